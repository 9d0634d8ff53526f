/* Text cleaning and cutting, number formatting, dates and atomic writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/ng_util.h"
#include "util/ng_text.h"
#include "util/ng_file.h"

static void expect_clean(const char *in, size_t len, int flags, const char *want)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_text_clean(&b, in, len, flags);
    assert_string_equal(b.data, want);
    ng_buf_release(&b);
}

static void test_text_clean(void **state)
{
    (void)state;
    expect_clean("plain", 5, NG_TEXT_UTF8_ONLY, "plain");
    expect_clean("caf\xc3\xa9", 5, NG_TEXT_UTF8_ONLY, "caf\xc3\xa9");
    expect_clean("a\xff" "b", 3, NG_TEXT_UTF8_ONLY, "a\xef\xbf\xbd" "b");
    expect_clean("\xc0\xaf", 2, NG_TEXT_UTF8_ONLY, "\xef\xbf\xbd\xef\xbf\xbd");   /* overlong */
    expect_clean("\xed\xa0\x80", 3, NG_TEXT_UTF8_ONLY, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expect_clean("\xe2\x82", 2, NG_TEXT_UTF8_ONLY, "\xef\xbf\xbd\xef\xbf\xbd");   /* truncated */
    expect_clean("a\x1b[31mb\n", 8, NG_TEXT_ESCAPE_CONTROLS, "a\\x1B[31mb\\x0A");
    expect_clean("a\nb\tc", 5, NG_TEXT_ESCAPE_CONTROLS | NG_TEXT_KEEP_NEWLINES, "a\nb\\x09c");
    expect_clean("", 0, NG_TEXT_UTF8_ONLY, "");
    expect_clean("\x7f", 1, NG_TEXT_ESCAPE_CONTROLS, "\\x7F");
    /* C1: CSI (U+009B) and NEL (U+0085) escaped byte by byte; U+00A0 is
     * printable; a lone 0x9B byte is not UTF-8 at all */
    expect_clean("a\xc2\x9b" "31mb", 7, NG_TEXT_ESCAPE_CONTROLS, "a\\xC2\\x9B31mb");
    expect_clean("\xc2\x85\xc2\xa0", 4, NG_TEXT_ESCAPE_CONTROLS, "\\xC2\\x85\xc2\xa0");
    expect_clean("\xc2\x9b", 2, NG_TEXT_UTF8_ONLY, "\xc2\x9b");
    expect_clean("\x9b", 1, NG_TEXT_ESCAPE_CONTROLS, "\xef\xbf\xbd");
}

static void test_formats(void **state)
{
    char buf[64];
    (void)state;
    ng_fmt_threshold(buf, sizeof buf, 1.2);
    assert_string_equal(buf, "1.20");
    ng_fmt_threshold(buf, sizeof buf, 1.125);
    assert_string_equal(buf, "1.125");
    ng_fmt_threshold(buf, sizeof buf, 3.0);
    assert_string_equal(buf, "3.00");
    ng_fmt_double(buf, sizeof buf, 0.1);
    assert_string_equal(buf, "0.1");
    /* the shortest exact form: 16 digits here, where "%.17g" gives 17 */
    ng_fmt_double(buf, sizeof buf, 97.767081199999993);
    assert_string_equal(buf, "97.76708119999999");
    assert_true(strtod(buf, NULL) == 97.767081199999993);
    ng_fmt_double(buf, sizeof buf, 0.91336848339029475);
    assert_string_equal(buf, "0.9133684833902947");
    ng_fmt_double(buf, sizeof buf, 1.0 / 3);
    assert_true(strtod(buf, NULL) == 1.0 / 3);
    /* ms to the nanosecond, trailing zeros dropped */
    ng_fmt_ms(buf, sizeof buf, 488.835406 / 5);
    assert_string_equal(buf, "97.767081");
    ng_fmt_ms(buf, sizeof buf, 107.04013);
    assert_string_equal(buf, "107.04013");
    ng_fmt_ms(buf, sizeof buf, 20.0);
    assert_string_equal(buf, "20");
    ng_fmt_ms(buf, sizeof buf, 0.000001);
    assert_string_equal(buf, "0.000001");
    ng_fmt_ms(buf, sizeof buf, -0.0000001);
    assert_string_equal(buf, "0");
    ng_fmt_ms(buf, sizeof buf, 1e300);
    assert_string_equal(buf, "1e+300");
    ng_fmt_utc(buf, sizeof buf, 0, 1);
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
    ng_fmt_utc(buf, sizeof buf, 1, 0);
    assert_string_equal(buf, "1970-01-01T00:00:01");
}

/* ng_fmt_fixed against printf itself: the ties that round to even (0.25,
 * 2.5, 0.125), values just off a tie, negative values that round to
 * zero, big and tiny values, then a quarter of a million random ones of each kind. */
static void expect_fixed(double v, int decimals)
{
    char want[NG_FMT_FIXED_MAX], got[NG_FMT_FIXED_MAX];
    snprintf(want, sizeof want, "%.*f", decimals, v);
    size_t n = ng_fmt_fixed(got, v, decimals);
    assert_string_equal(got, want);
    assert_int_equal(n, strlen(want));
}

/* Decimals of 0, 9, 10 and the largest 64-bit value, as printf's %llu. */
static void test_fmt_uint(void **state)
{
    static const uint64_t v[] = { 0, 9, 10, 1000, 123456789012345ull, UINT64_MAX };
    char got[24], want[24];
    (void)state;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        snprintf(want, sizeof want, "%llu", (unsigned long long)v[i]);
        assert_int_equal(ng_fmt_uint(got, v[i]), strlen(want));
        assert_string_equal(got, want);
    }
}

/* Arena strings: each copy whole and where it was put, across blocks, a
 * string longer than a block in a block of its own; released at once. */
static void test_arena(void **state)
{
    struct ng_arena a = NG_ARENA_INIT;
    char *kept[3000];
    char want[80];
    (void)state;
    for (int i = 0; i < 3000; i++) {
        snprintf(want, sizeof want, "commit-%05d-%0*d", i, i % 50, 0);
        kept[i] = ng_arena_strdup(&a, want);
    }
    char *big = ng_xmalloc(200000);
    memset(big, 'x', 199999);
    big[199999] = '\0';
    char *long_one = ng_arena_strdup(&a, big);
    char *after = ng_arena_strdup(&a, "");
    for (int i = 0; i < 3000; i++) {
        snprintf(want, sizeof want, "commit-%05d-%0*d", i, i % 50, 0);
        assert_string_equal(kept[i], want);
    }
    assert_string_equal(long_one, big);
    assert_string_equal(after, "");
    free(big);
    ng_arena_release(&a);
    assert_null(a.head);
}

static void test_fmt_fixed(void **state)
{
    static const double edges[] = { 0, -0.0, 0.25, 0.35, 2.5, 3.5, -2.5, 0.125, 0.0625, 1e-300,
                                    -0.04, -0.05, 0.05, 0.15, 999.9999, 999999999999999.9,
                                    1e15, -1e15, 1e16, 4.5e300, 1.0 / 3, 12345.6785 };
    uint64_t x = 88172645463325252ull;
    (void)state;

    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (int d = 0; d <= 3; d++) {
            expect_fixed(edges[i], d);
            expect_fixed(nextafter(edges[i], INFINITY), d);
            expect_fixed(nextafter(edges[i], -INFINITY), d);
        }
    expect_fixed(NAN, 1);
    expect_fixed(INFINITY, 2);
    expect_fixed(-INFINITY, 0);
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        if (i % 4 == 0) {   /* any bit pattern */
            memcpy(&v, &x, sizeof v);
        } else if (i % 4 == 1) {   /* exact ties and near them */
            v = (double)((int64_t)(x % 2000001) - 1000000) / (double)(1u << (x >> 60));
        } else if (i % 4 == 2) {   /* every scale */
            v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * pow(10, (double)((x >> 3) % 20) - 4);
        } else {   /* thousandths and halves of them */
            v = (double)((int64_t)(x % 200001) - 100000) / 1000.0 + (double)((x >> 40) % 3) * 0.0005;
        }
        expect_fixed(v, i % 4);
    }
}

/* ng_fmt_utc against gmtime_r() and strftime(): every day from year 1000
 * to 9999 at a moving time of day, the edges of that range (where it
 * hands over to strftime()), and times before 1970. */
static void test_fmt_utc(void **state)
{
    static const int64_t edges[] = { -30610224000LL - 1, -30610224000LL, 253402300799LL,
                                     253402300800LL, -1, 0, 951782400, 4107542399LL };
    char got[64], want[64];
    struct tm tm;
    (void)state;

    for (int64_t t = -30610224000LL, i = 0; t < 253402300800LL; t += 86400 + 7, i++) {
        time_t tt = (time_t)t;
        ng_fmt_utc(got, sizeof got, tt, (int)(i & 1));
        gmtime_r(&tt, &tm);
        strftime(want, sizeof want, i & 1 ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S", &tm);
        if (strcmp(got, want) != 0)
            fail_msg("%lld: %s, not %s", (long long)t, got, want);
    }
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        time_t tt = (time_t)edges[i];
        ng_fmt_utc(got, sizeof got, tt, 1);
        gmtime_r(&tt, &tm);
        strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
        assert_string_equal(got, want);
    }
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void test_atomic_write(void **state)
{
    char dir[] = "/tmp/ng-util-test.XXXXXX";
    char path[128], bad[160], buf[64];
    struct ng_err err;
    FILE *f;
    (void)state;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.json", dir);
    assert_int_equal(ng_write_file_atomic(path, "old\n", 4, &err), 0);
    assert_int_equal(ng_write_file_atomic(path, "new\n", 4, &err), 0);
    f = fopen(path, "r");
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "new\n");
    assert_int_equal(count_entries(dir), 1);   /* no temporary left */

    /* a missing directory: an error naming the path, nothing created */
    snprintf(bad, sizeof bad, "%s/missing/out.json", dir);
    assert_int_equal(ng_write_file_atomic(bad, "x", 1, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "unable to write '%s': No such file or directory", bad);
    assert_string_equal(err.msg, want);
    /* a directory at the target: rename fails, the temporary is removed */
    snprintf(bad, sizeof bad, "%s/sub", dir);
    assert_int_equal(mkdir(bad, 0755), 0);
    assert_int_equal(ng_write_file_atomic(bad, "x", 1, &err), -1);
    assert_int_equal(count_entries(dir), 2);
    rmdir(bad);
    unlink(path);
    rmdir(dir);
}

static void test_buf(void **state)
{
    struct ng_buf b = NG_BUF_INIT;
    (void)state;
    for (int i = 0; i < 1000; i++)
        ng_buf_addf(&b, "%d,", i);
    assert_int_equal(b.len, strlen(b.data));
    assert_memory_equal(b.data, "0,1,2,", 6);
    /* a text longer than the room the buffer has: formatted again, whole */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    size_t at = b.len;
    ng_buf_addf(&b, "<%s>", big);
    assert_int_equal(b.len, at + 1001);
    assert_int_equal(b.len, strlen(b.data));
    assert_memory_equal(b.data + at + 995, "xxxxx>", 6);
    char *s = ng_buf_detach(&b);
    assert_null(b.data);
    free(s);
    s = ng_buf_detach(&b);
    assert_string_equal(s, "");
    free(s);
}

/* One element at a time: every index gets room (ASan checks the bounds),
 * and between the doublings (n = 16, 32, 64, ...) the array stays put. */
static void test_xgrow(void **state)
{
    long *a = NULL;
    (void)state;
    for (size_t n = 0; n < 5000; n++) {
        long *before = a;
        a = ng_xgrow(a, n, sizeof *a);
        int doubling = n == 0 || (n >= 16 && (n & (n - 1)) == 0);
        if (!doubling)
            assert_ptr_equal(a, before);
        a[n] = (long)n;
    }
    for (size_t n = 0; n < 5000; n++)
        assert_int_equal(a[n], (long)n);
    free(a);
}

/* FIPS 180-2 test vectors, and every length around the padding boundary
 * (55, 56, 63, 64 bytes) checked against an independent one-shot digest. */
/* The JSON bytes a cut text takes: what ng_text_cut() bounds. */
static size_t json_bytes(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += *p == '"' || *p == '\\' || *p == '\n' || *p == '\t' ? 2 : *p < 0x20 ? 6 : 1;
    return n;
}

static char *cut(const char *s, size_t max, int hashed)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_text_cut(&b, s, max, hashed);
    ng_buf_adds(&b, "");
    return ng_buf_detach(&b);
}

static void test_text_cut(void **state)
{
    char *big = malloc(1 << 20), *big2;
    (void)state;
    memset(big, 'k', (1 << 20) - 1);
    big[(1 << 20) - 1] = '\0';
    big2 = strdup(big);
    big2[(1 << 20) - 2] = 'x';   /* differs only at its end */

    char *a = cut("short", 64, 1), *b;
    assert_string_equal(a, "short");   /* fits: as it is */
    free(a);
    a = cut(big, 512, 1);
    b = cut(big2, 512, 1);
    assert_true(json_bytes(a) <= 512);
    assert_true(strlen(a) > 400);
    assert_string_not_equal(a, b);   /* the hash of the whole keeps them apart */
    assert_memory_equal(a, b, strlen(a) - 16);
    assert_non_null(strstr(a, "\xE2\x80\xA6"));
    char *again = cut(a, 512, 1);
    assert_string_equal(again, a);   /* cutting twice changes nothing */
    free(again);
    free(a);
    free(b);
    /* controls count as the \u00XX they become; a character is never split */
    memset(big, '\x01', 1000);
    big[1000] = '\0';
    a = cut(big, 100, 0);
    assert_true(json_bytes(a) <= 100);
    assert_int_equal(strlen(a), (100 - 3) / 6 + 3);
    free(a);
    a = cut("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, 0);   /* six e-acute, 12 bytes */
    assert_string_equal(a, "\xc3\xa9\xc3\xa9\xE2\x80\xA6");
    free(a);
    a = cut("bad \xff byte", 64, 0);   /* cleaned first */
    assert_string_equal(a, "bad \xef\xbf\xbd byte");
    free(a);
    free(big);
    free(big2);
}

static void test_parse_utc(void **state)
{
    static const struct {
        const char *text;
        int ok;
        long long t;
    } cases[] = {
        { "1970-01-01", 1, 0 },
        { "2023-11-14T22:13:20Z", 1, 1700000000 },
        { "2024-02-29", 1, 1709164800 },
        { "2000-02-29T00:00:00Z", 1, 951782400 },
        { "1900-02-29", 0, 0 },
        { "2023-02-29", 0, 0 },
        { "2023-13-01", 0, 0 },
        { "2023-11-14T22:13:20", 0, 0 },
        { "2023-11-14T22:13:20+01:00", 0, 0 },
        { "2023-11-14 22:13:20Z", 0, 0 },
        { "2023-11-14T24:00:00Z", 0, 0 },
        { "23-11-14", 0, 0 },
        { "", 0, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        time_t t = 0;
        int rc = ng_parse_utc(cases[i].text, &t);
        assert_int_equal(rc, cases[i].ok ? 0 : -1);
        if (cases[i].ok)
            assert_true((long long)t == cases[i].t);
    }
    /* and back: the timestamp the reports write */
    char buf[32];
    time_t t;
    ng_fmt_utc(buf, sizeof buf, 1234567890, 1);
    assert_int_equal(ng_parse_utc(buf, &t), 0);
    assert_true(t == 1234567890);
}

/* Keys are any bytes: two that differ after a NUL are two keys, and a
 * prefix up to the NUL is a third. */
static void test_strmap_bytes(void **state)
{
    struct ng_strmap m = NG_STRMAP_INIT;
    int added;
    (void)state;
    assert_int_equal(ng_strmap_get(&m, "a\0b", 3, 0, &added), 0);
    assert_true(added);
    assert_int_equal(ng_strmap_get(&m, "a\0c", 3, 1, &added), 1);
    assert_true(added);
    assert_int_equal(ng_strmap_get(&m, "a", 1, 2, &added), 2);
    assert_true(added);
    assert_int_equal(ng_strmap_get(&m, "a\0b", 3, 9, &added), 0);
    assert_false(added);
    for (int i = 0; i < 200; i++) {   /* past a few growths */
        char key[16] = "k\0";
        snprintf(key + 2, sizeof key - 2, "%d", i);
        assert_int_equal(ng_strmap_get(&m, key, 2 + strlen(key + 2), 3 + (size_t)i, NULL),
                         3 + (size_t)i);
    }
    assert_int_equal(ng_strmap_get(&m, "a\0c", 3, 9, &added), 1);
    assert_false(added);
    ng_strmap_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_clean),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_fmt_uint),
        cmocka_unit_test(test_arena),
        cmocka_unit_test(test_fmt_fixed),
        cmocka_unit_test(test_fmt_utc),
        cmocka_unit_test(test_atomic_write),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_xgrow),
        cmocka_unit_test(test_text_cut),
        cmocka_unit_test(test_parse_utc),
        cmocka_unit_test(test_strmap_bytes),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
