/* ng_json_scan: the pieces of a strict JSON (RFC 8259) scanner that reads
 * text in place, without building a tree: past white space, a string, a
 * number, a literal, a whole value.  Shared by the trend scanner of
 * history lines (history/ng_trend_scan.c) and the Chrome-trace reader
 * (sources/kineto/), which build their own readers of the
 * members they look at on these.
 *
 * Each function reads [p, end) and returns where the token ends, or NULL
 * when the text is not one; none reads a byte at or past end.
 * ng_json_skip() also tells a value cut short by `end` (a prefix of valid
 * JSON, so a streaming reader can read on) from one that is wrong.
 *
 * Ownership: nothing is kept; the text is borrowed. */
#ifndef NG_JSON_SCAN_H
#define NG_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/ng_text.h"

/* Nesting the skipper follows: a bit a level (1: an object). */
#define NG_JSON_DEPTH_MAX 64

enum ng_json_skip_result {
    NG_JSON_OK = 0,
    NG_JSON_BAD = -1,      /* not JSON (or past the depth or number length allowed) */
    NG_JSON_CUT = -2,      /* valid so far, cut short by end */
};

extern const unsigned char ng_json_space[256];
/* the escapes that stand for one byte (\u is read apart) */
extern const unsigned char ng_json_unescaped[256];

static inline const unsigned char *ng_json_space_end(const unsigned char *p,
                                                     const unsigned char *end)
{
    while (p < end && ng_json_space[*p])
        p++;
    return p;
}

/* The length of the \u escape at p (6, or 12 for a surrogate pair), or
 * -1 for a lone surrogate or a bad hex digit. */
static inline int ng_json_unicode_escape(const unsigned char *p, const unsigned char *end)
{
    long first = end - p >= 6 ? ng_hex4((const char *)p + 2) : -1;

    if (first < 0 || (first >= 0xDC00 && first <= 0xDFFF))
        return -1;
    if (first < 0xD800 || first > 0xDBFF)
        return 6;
    if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
        return -1;
    long second = ng_hex4((const char *)p + 8);
    return second >= 0xDC00 && second <= 0xDFFF ? 12 : -1;
}

/* Where the plain run of a string that starts at p ends: at a quote, a
 * backslash, a control character (which JSON must escape), a byte of a
 * multi-byte UTF-8 sequence (checked apart, so the common ASCII run stays
 * one test a word) or the end.  Sixteen bytes a step with SSE2, else
 * eight.  SSE2: a signed compare below 0x20 holds both the control
 * characters and the bytes from 0x80 up.  Words: a byte equal to '"' or
 * '\\' is a zero byte of x ^ 0x22.. or x ^ 0x5C.., a byte below 0x20 has
 * its high bit set in x - 0x20.. and not in x, one from 0x80 up has it
 * in x; the lowest byte these tests flag is exact (a borrow only runs
 * upward from a byte flagged itself). */
static inline const unsigned char *ng_json_plain_run(const unsigned char *p,
                                                     const unsigned char *end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote),
                                                 _mm_cmpeq_epi8(x, backslash)),
                                    _mm_cmplt_epi8(x, space));
        int hit = _mm_movemask_epi8(stop);
        if (hit)
            return p + __builtin_ctz((unsigned)hit);
        p += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (end - p >= 8) {
        uint64_t x, q, b;
        memcpy(&x, p, sizeof x);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        uint64_t hit = ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs) |
                       (((x - ones * 0x20) | x) & highs);
        if (hit)
            return p + __builtin_ctzll(hit) / 8;
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
        p++;
    return p;
}

/* What the scanner checks beyond the grammar.  Without it a string may
 * hold raw control characters and any bytes, as cJSON reads them (the
 * trend scanner agrees with cJSON, the full reader of history lines). */
enum ng_json_flags {
    NG_JSON_STRICT = 1,    /* strings as RFC 8259 has them: control characters
                            * escaped (7), UTF-8 in RFC 3629's forms (8.1) */
};

/* The length (2 to 4) of the UTF-8 sequence at p (a byte from 0x80 up),
 * 0 when it is not one (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF), -1 when end cuts a valid start short. */
int ng_json_utf8_len(const unsigned char *p, const unsigned char *end);

/* Past the string whose first byte (after the quote) is at p: the byte
 * after its closing quote, or NULL (a bad escape, the end, or with
 * NG_JSON_STRICT a raw control character or a byte that is not UTF-8).
 * *escaped: it holds a backslash. */
static inline const unsigned char *ng_json_string_end(const unsigned char *p,
                                                      const unsigned char *end, int *escaped,
                                                      unsigned flags)
{
    for (;;) {
        p = ng_json_plain_run(p, end);
        if (p >= end)
            return NULL;
        if (*p == '"')
            return p + 1;
        if (*p < 0x20 || *p >= 0x80) {
            int n = !(flags & NG_JSON_STRICT) ? 1 : *p < 0x20 ? 0 : ng_json_utf8_len(p, end);
            if (n <= 0)
                return NULL;
            p += n;
            continue;
        }
        *escaped = 1;
        if (end - p < 2)
            return NULL;
        int n = p[1] == 'u' ? ng_json_unicode_escape(p, end) : ng_json_unescaped[p[1]] ? 2 : -1;
        if (n < 0)
            return NULL;
        p += n;
    }
}

static inline int ng_json_is_digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9';
}

static inline const unsigned char *ng_json_digits(const unsigned char *p,
                                                  const unsigned char *end)
{
    while (p < end && ng_json_is_digit(*p))
        p++;
    return p;
}

/* Past the number at p, strictly as JSON writes one and at most `max`
 * characters long, or NULL. */
static inline const unsigned char *ng_json_number_end(const unsigned char *p,
                                                      const unsigned char *end, size_t max)
{
    const unsigned char *start = p, *d;

    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if ((d = ng_json_digits(p, end)) > p)
        p = d;
    else
        return NULL;
    if (p < end && *p == '.') {
        if ((d = ng_json_digits(p + 1, end)) == p + 1)
            return NULL;
        p = d;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if ((d = ng_json_digits(p, end)) == p)
            return NULL;
        p = d;
    }
    return (size_t)(p - start) <= max ? p : NULL;
}

/* Past the literal at p (true, false, null), or NULL. */
static inline const unsigned char *ng_json_literal_end(const unsigned char *p,
                                                       const unsigned char *end)
{
    size_t left = (size_t)(end - p);

    if (left >= 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0))
        return p + 4;
    if (left >= 5 && memcmp(p, "false", 5) == 0)
        return p + 5;
    return NULL;
}

/* The value of the string whose bytes between the quotes are at[0..len),
 * checked by ng_json_string_end() (escaped: it holds a backslash), into
 * out with a NUL: escapes undone, a NUL shown as \x00. */
void ng_json_text(const unsigned char *at, size_t len, int escaped, struct ng_buf *out);

/* Skips the value at *p whole, checking it: *p is then past it.  depth:
 * the containers it lies in; more than depth_max (at most
 * NG_JSON_DEPTH_MAX) is NG_JSON_BAD, so is a number longer than
 * number_max.  flags: enum ng_json_flags.  On failure *p is where the
 * scan stopped (the offending byte of a string). */
enum ng_json_skip_result ng_json_skip(const unsigned char **p, const unsigned char *end,
                                      int depth, int depth_max, size_t number_max,
                                      unsigned flags);

/* The first \u0000 escape in the JSON text, or NULL: cJSON (and every C string)
 * ends such a string at the NUL, so a URL or a commit would be read cut
 * short; the readers of history lines, manifests and acknowledgements
 * refuse it instead.  An escaped backslash (\\u0000) is no such escape. */
const char *ng_json_nul_escape(const char *text, size_t len);

/* What follows a JSON value that ends at p, before end, past white
 * space: NULL when nothing does, else where it starts.  A line or a file
 * that is one JSON value must end there: cJSON stops after the first
 * value and would leave "{...} more" or a second object unread. */
const char *ng_json_after(const char *p, const char *end);

/* Appends the text at p (before end) as an error shows it: in quotes, at
 * most 40 bytes (then "..."), controls escaped, trailing white space
 * dropped. */
void ng_json_after_show(struct ng_buf *out, const char *p, const char *end);

#endif
