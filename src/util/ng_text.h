/* ng_text: text and numbers for outputs: cleaning (valid UTF-8, visible
 * controls), cutting to a JSON length, locale-independent number
 * formatting, and UTC dates written and read without the C library's
 * locale or time zone.
 *
 * Ownership: every function borrows its arguments; text is appended to
 * the caller's buffer, or returned freshly allocated where said. */
#ifndef NG_TEXT_H
#define NG_TEXT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>

#include "util/ng_util.h"

/* Text cleaning.  Output is always valid UTF-8: each byte that is not part
 * of a valid sequence becomes U+FFFD.  With NG_TEXT_ESCAPE_CONTROLS, C0
 * controls, DEL and the C1 controls U+0080..U+009F become visible `\xNN`
 * (one per byte) so a terminal escape or a newline in a kernel name cannot
 * break a one-line output or an XML document. */
enum {
    NG_TEXT_UTF8_ONLY = 0,
    NG_TEXT_ESCAPE_CONTROLS = 1,   /* every control, newline included */
    NG_TEXT_KEEP_NEWLINES = 2,     /* with ESCAPE_CONTROLS: keep \n as is */
};
void ng_text_clean(struct ng_buf *out, const char *s, size_t len, int flags);
/* Convenience: a freshly allocated cleaned copy of a NUL-terminated string. */
char *ng_text_cleaned(const char *s, int flags);

/* Appends s cleaned (NG_TEXT_UTF8_ONLY) and, when its JSON text (as the
 * JSON reporters escape it: 2 bytes for a quote, 6 for a control) would be
 * longer than max bytes, cut at a character so that it is not: the kept
 * start, then U+2026 "…", then with `hashed` 16 hex digits of ng_hash()
 * of the whole text as given, so two long names that share their start
 * stay apart.  Cutting a cut text again changes nothing. */
void ng_text_cut(struct ng_buf *out, const char *s, size_t max, int hashed);

/* The value of four hex digits at s (a JSON \uXXXX escape), or -1 when
 * one is not a hex digit. */
long ng_hex4(const char *s);

/* Formats a threshold or ratio bound with at least two decimals and as
 * many more (up to six) as needed to show the value exactly, e.g. 1.20,
 * 1.125, 1.333333.  Locale-independent (the process never leaves "C"). */
void ng_fmt_threshold(char *buf, size_t size, double v);

/* The shortest form that reads back as v ("%.15g", "%.16g" or "%.17g"),
 * e.g. 1.2, 0.1, 0.9133684833902947: what a JSON encoder prints for
 * ratios and p-values. */
void ng_fmt_double(char *buf, size_t size, double v);

/* Milliseconds to the nanosecond: at most six decimals, trailing zeros
 * dropped (97.767081, not 97.767081199999993: the float noise of a
 * division); every time the gate measures is whole nanoseconds, so
 * nothing a check compares is lost.  buf at least 40 bytes for |v| < 1e30. */
void ng_fmt_ms(char *buf, size_t size, double v);

/* v in decimal into buf (at least 21 bytes), NUL-terminated; its length. */
size_t ng_fmt_uint(char *buf, uint64_t v);
void ng_buf_add_uint(struct ng_buf *b, uint64_t v);

/* v as printf's "%.*f" writes it, decimals 0 to 3, into buf (at least
 * NG_FMT_FIXED_MAX bytes); returns the length.  The charts print tens of
 * thousands of numbers a page: this takes a few dozen instructions where
 * printf takes a thousand, and gives the same bytes (the double's
 * mantissa times 10^decimals is an exact integer, shifted and rounded
 * half to even as printf rounds); what it cannot do so (a huge value, a
 * NaN, more than 3 decimals) goes to snprintf. */
#define NG_FMT_FIXED_MAX 352
size_t ng_fmt_fixed(char *buf, double v, int decimals);
/* The same appended to b. */
void ng_buf_add_fixed(struct ng_buf *b, double v, int decimals);

/* "YYYY-MM-DDTHH:MM:SS" in UTC, plus "Z" when zone is non-zero. */
void ng_fmt_utc(char *buf, size_t size, time_t t, int zone);
/* The other way: "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM:SSZ"
 * into *out; -1 for anything else (another zone, a date that does not
 * exist). */
int ng_parse_utc(const char *s, time_t *out);

/* The Levenshtein distance between the first alen bytes of a and b, for a
 * "did you mean" hint; counting stops past limit (limit + 1 is returned). */
size_t ng_text_distance(const char *a, size_t alen, const char *b, size_t limit);
/* Whether a distance d between a typed word of length len and a known one
 * is close enough to suggest it: at most 2 edits, and fewer than half
 * of the word (so "--x" suggests nothing). */
int ng_text_near(size_t d, size_t len);

#endif
