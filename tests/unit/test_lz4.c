/* The LZ4 frame decoder on hand-encoded frames: literals, matches, a run
 * (a match overlapping what it copies), stored blocks, long lengths, and
 * every way a frame can lie about its lengths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/ng_lz4.h"

/* magic, FLG (version 01, independent blocks), BD (64 KB), header checksum */
#define HEAD 0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82
#define END 0, 0, 0, 0

static int decode(const unsigned char *in, size_t len, size_t cap, char *out, size_t *n,
                  struct ng_err *err)
{
    static unsigned char buf[4096];
    int rc = ng_lz4_frame(in, len, buf, cap, n, err);
    if (rc == 0) {
        memcpy(out, buf, *n);
        out[*n] = 0;
    }
    return rc;
}

static void expect_text(const unsigned char *in, size_t len, const char *want)
{
    char out[4097];
    size_t n = 0;
    struct ng_err err = {{0}};
    assert_int_equal(decode(in, len, 4096, out, &n, &err), 0);
    assert_int_equal(n, strlen(want));
    assert_string_equal(out, want);
}

static void expect_refusal(const unsigned char *in, size_t len, size_t cap, const char *why)
{
    char out[4097];
    size_t n = 0;
    struct ng_err err = {{0}};
    assert_int_equal(decode(in, len, cap, out, &n, &err), -1);
    assert_non_null(strstr(err.msg, why));
}

static void test_literals(void **state)
{
    (void)state;
    static const unsigned char f[] = {HEAD, 6, 0, 0, 0, 0x50, 's', 't', 'e', 'p', ' ', END};
    expect_text(f, sizeof f, "step ");
    /* a stored block (high bit), then a compressed one: one text */
    static const unsigned char g[] = {HEAD, 2, 0, 0, 0x80, 'a', 'b', 2, 0, 0, 0, 0x10, 'c', END};
    expect_text(g, sizeof g, "abc");
    /* an empty frame is an empty text */
    static const unsigned char e[] = {HEAD, END};
    expect_text(e, sizeof e, "");
}

static void test_long_literal(void **state)
{
    (void)state;
    /* 15 + 5 = 20 literals: the nibble 15 continues in a byte */
    static const unsigned char f[] = {HEAD, 22, 0, 0, 0, 0xF0, 5,
        '{', '"', 'm', 'e', 's', 's', 'a', 'g', 'e', '"', ':', '"', 's', 't', 'e', 'p', ' ',
        '1', '"', '}', END};
    expect_text(f, sizeof f, "{\"message\":\"step 1\"}");
}

static void test_matches(void **state)
{
    (void)state;
    /* "abc", then 9 bytes from 3 back, then "xyz" */
    static const unsigned char f[] = {HEAD, 10, 0, 0, 0, 0x35, 'a', 'b', 'c', 3, 0,
        0x30, 'x', 'y', 'z', END};
    expect_text(f, sizeof f, "abcabcabcabcxyz");
    /* a match of 4 + 15 + 2 = 21: the nibble continues */
    static const unsigned char g[] = {HEAD, 8, 0, 0, 0, 0x2F, 'a', 'b', 2, 0, 2, 0x10, '!', END};
    expect_text(g, sizeof g, "abababababababababababa!");
    /* a block refers to the one before it (linked blocks) */
    static const unsigned char h[] = {HEAD, 4, 0, 0, 0, 0x30, 'x', 'y', 'z',
        5, 0, 0, 0, 0x00, 3, 0, 0x10, '.', END};
    expect_text(h, sizeof h, "xyzxyzx.");
}

static void test_overlap(void **state)
{
    (void)state;
    /* one byte, then 9 copies of the byte 1 back: a run */
    static const unsigned char f[] = {HEAD, 6, 0, 0, 0, 0x15, 'a', 1, 0, 0x10, '!', END};
    expect_text(f, sizeof f, "aaaaaaaaaa!");
}

static void test_bad_lengths(void **state)
{
    (void)state;
    /* the block says 40 bytes, the frame holds 6 */
    static const unsigned char f[] = {HEAD, 40, 0, 0, 0, 0x50, 's', 't', 'e', 'p', ' ', END};
    expect_refusal(f, sizeof f, 4096, "runs past the frame");
    /* the token says 9 literals, the block holds 5 */
    static const unsigned char g[] = {HEAD, 6, 0, 0, 0, 0x90, 's', 't', 'e', 'p', ' ', END};
    expect_refusal(g, sizeof g, 4096, "literals run past");
    /* a match from before the text */
    static const unsigned char h[] = {HEAD, 6, 0, 0, 0, 0x15, 'a', 7, 0, 0x10, '!', END};
    expect_refusal(h, sizeof h, 4096, "points before the text");
    /* offset 0 */
    static const unsigned char z[] = {HEAD, 6, 0, 0, 0, 0x15, 'a', 0, 0, 0x10, '!', END};
    expect_refusal(z, sizeof z, 4096, "points before the text");
    /* not a frame */
    static const unsigned char m[] = {'L', 'Z', '4', 'F', 0x60, 0x40, 0x82, END};
    expect_refusal(m, sizeof m, 4096, "no LZ4 frame");
    /* a version this decoder does not know */
    static const unsigned char v[] = {0x04, 0x22, 0x4D, 0x18, 0xA0, 0x40, 0x82, END};
    expect_refusal(v, sizeof v, 4096, "does not know");
}

static void test_truncated(void **state)
{
    (void)state;
    static const unsigned char f[] = {HEAD, 10, 0, 0, 0, 0x35, 'a', 'b', 'c', 3, 0,
        0x30, 'x', 'y', 'z', END};
    /* every cut of the frame is refused, none read past its end */
    for (size_t cut = 0; cut < sizeof f; cut++) {
        unsigned char buf[sizeof f];
        char out[64];
        size_t n = 0;
        struct ng_err err = {{0}};
        memcpy(buf, f, cut);
        assert_int_equal(decode(buf, cut, 4096, out, &n, &err), -1);
    }
    /* a block cut inside its match offset */
    static const unsigned char g[] = {HEAD, 5, 0, 0, 0, 0x35, 'a', 'b', 'c', 3, END};
    expect_refusal(g, sizeof g, 4096, "inside a match offset");
    /* a block cut inside a length */
    static const unsigned char h[] = {HEAD, 2, 0, 0, 0, 0xF0, 255, END};
    expect_refusal(h, sizeof h, 4096, "inside a length");
}

static void test_over_cap(void **state)
{
    (void)state;
    static const unsigned char f[] = {HEAD, 6, 0, 0, 0, 0x15, 'a', 1, 0, 0x10, '!', END};
    expect_refusal(f, sizeof f, 5, "longer than 5 bytes");
    static const unsigned char g[] = {HEAD, 6, 0, 0, 0, 0x50, 's', 't', 'e', 'p', ' ', END};
    expect_refusal(g, sizeof g, 4, "longer than 4 bytes");
    static const unsigned char s[] = {HEAD, 2, 0, 0, 0x80, 'a', 'b', END};
    expect_refusal(s, sizeof s, 1, "longer than 1 bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_long_literal),
        cmocka_unit_test(test_matches),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_over_cap),
    };
    return cmocka_run_group_tests_name("lz4", tests, NULL, NULL);
}
