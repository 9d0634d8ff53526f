#include "util/ng_text.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid.
 * Rejects overlong forms, surrogates and code points past U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    return n;
}
void ng_text_clean(struct ng_buf *out, const char *s, size_t len, int flags)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    /* make sure the result is a string even when s is empty */
    ng_buf_add(out, "", 0);
    while (i < len) {
        /* printable ASCII is kept as it is in every mode: copied a run at a time */
        size_t run = i;
        while (run < len && p[run] >= 0x20 && p[run] < 0x7F)
            run++;
        if (run > i) {
            ng_buf_add(out, p + i, run - i);
            i = run;
            continue;
        }
        size_t n = utf8_seq(p + i, len - i);
        if (n == 0) {
            ng_buf_adds(out, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (n == 1 && (flags & NG_TEXT_ESCAPE_CONTROLS) &&
            (p[i] < 0x20 || p[i] == 0x7F) &&
            !(p[i] == '\n' && (flags & NG_TEXT_KEEP_NEWLINES))) {
            ng_buf_addf(out, "\\x%02X", p[i]);
            i++;
            continue;
        }
        /* C1 controls (U+0080..U+009F): xterm reads U+009B as ESC [ */
        if (n == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0 && (flags & NG_TEXT_ESCAPE_CONTROLS)) {
            ng_buf_addf(out, "\\x%02X\\x%02X", p[i], p[i + 1]);
            i += 2;
            continue;
        }
        ng_buf_add(out, p + i, n);
        i += n;
    }
}
char *ng_text_cleaned(const char *s, int flags)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_text_clean(&b, s ? s : "", s ? strlen(s) : 0, flags);
    return ng_buf_detach(&b);
}
void ng_fmt_threshold(char *buf, size_t size, double v)
{
    for (int prec = 2; prec <= 6; prec++) {
        snprintf(buf, size, "%.*f", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}
/* v * 10^decimals rounded half to even, exactly: v is m * 2^e with m an
 * integer of 53 bits, so m * 10^decimals (at most 63 bits) shifted by -e
 * is the whole part and the bits shifted out the fraction, compared with
 * a half exactly.  No floating point, and so no long double. */
static uint64_t scaled_round(double v, int decimals)
{
    static const uint64_t ten[] = { 1, 10, 100, 1000 };
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    int shift = ex ? 1075 - (int)ex : 1074;              /* |v| = m / 2^shift */
    if (ex)
        m |= UINT64_C(1) << 52;
    uint64_t p = m * ten[decimals];                      /* below 2^63 */

    if (shift <= 0)
        return p << -shift;                              /* never for |v| < 1e15 */
    if (shift >= 64)
        return 0;                                        /* below a half of the last digit */
    uint64_t whole = p >> shift, rest = p & ((UINT64_C(1) << shift) - 1),
             half = UINT64_C(1) << (shift - 1);
    return whole + (rest > half || (rest == half && (whole & 1)));
}
size_t ng_fmt_uint(char *buf, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do
        d[sizeof d - ++n] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    memcpy(buf, d + sizeof d - n, n);
    buf[n] = '\0';
    return n;
}
void ng_buf_add_uint(struct ng_buf *b, uint64_t v)
{
    char d[24];
    ng_buf_add(b, d, ng_fmt_uint(d, v));
}
size_t ng_fmt_fixed(char *buf, double v, int decimals)
{
    if (decimals >= 0 && decimals <= 3 && v == v && fabs(v) < 1e15) {
        char digits[24];
        size_t nd = ng_fmt_uint(digits, scaled_round(v, decimals)), d = (size_t)decimals, n = 0;
        if (signbit(v))
            buf[n++] = '-';
        /* at least one digit before the point: "0.05" from 5 */
        size_t whole = nd > d ? nd - d : 0, zeros = nd > d ? 0 : d - nd;
        if (whole) {
            memcpy(buf + n, digits, whole);
            n += whole;
        } else {
            buf[n++] = '0';
        }
        if (d) {
            buf[n++] = '.';
            memset(buf + n, '0', zeros);
            n += zeros;
            memcpy(buf + n, digits + whole, nd - whole);
            n += nd - whole;
        }
        buf[n] = '\0';
        return n;
    }
    return (size_t)snprintf(buf, NG_FMT_FIXED_MAX, "%.*f", decimals, v);
}
void ng_buf_add_fixed(struct ng_buf *b, double v, int decimals)
{
    char buf[NG_FMT_FIXED_MAX];
    ng_buf_add(b, buf, ng_fmt_fixed(buf, v, decimals));
}
void ng_fmt_double(char *buf, size_t size, double v)
{
    /* 15 digits hold the shortest form when it is shorter still (%g drops
     * the zeros): a double is within 1.2e-16 of its shortest decimal */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void ng_fmt_ms(char *buf, size_t size, double v)
{
    if (!(v > -1e15 && v < 1e15)) {   /* past the nanosecond's digits, or NaN */
        ng_fmt_double(buf, size, v);
        return;
    }
    size_t n = (size_t)snprintf(buf, size, "%.6f", v);
    if (n >= size)
        return;
    while (n > 0 && buf[n - 1] == '0')
        n--;
    if (n > 0 && buf[n - 1] == '.')
        n--;
    buf[n] = '\0';
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
}
/* Years of four digits (every date a history holds) are written digit by
 * digit: a chart dates each of its points twice, and strftime() costs a
 * thousand instructions a call.  Others go to strftime(). */
void ng_fmt_utc(char *buf, size_t size, time_t t, int zone)
{
    int64_t days = (int64_t)t / 86400, secs = (int64_t)t % 86400;
    if (secs < 0)
        secs += 86400, days--;
    /* Howard Hinnant's civil_from_days: gmtime_r() without its time zone
     * lock */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int day = (int)(doy - (153 * mp + 2) / 5 + 1), month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t year = (int64_t)yoe + era * 400 + (month <= 2);
    if (year < 1000 || year > 9999 || size < 21) {
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(buf, size, zone ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S", &tm);
        return;
    }
    const int parts[6] = { (int)year, month, day, (int)(secs / 3600), (int)(secs / 60 % 60),
                           (int)(secs % 60) };
    static const char seps[6] = { '-', '-', 'T', ':', ':', '\0' };
    char *p = buf;
    for (int i = 0; i < 6; i++) {
        int v = parts[i];
        if (i == 0) {
            *p++ = (char)('0' + v / 1000);
            *p++ = (char)('0' + v / 100 % 10);
        }
        *p++ = (char)('0' + v / 10 % 10);
        *p++ = (char)('0' + v % 10);
        if (i < 5)
            *p++ = seps[i];
    }
    if (zone)
        *p++ = 'Z';
    *p = '\0';
}
/* Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil): timegm() without the process's time zone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}
/* n digits at p as a number, or -1 */
static int digits(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}
int ng_parse_utc(const char *s, time_t *out)
{
    static const unsigned char mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y = digits(s, 4), mo, d, h = 0, mi = 0, sec = 0;
    size_t n = strlen(s);

    if (y < 0 || (n != 10 && n != 20) || s[4] != '-' || s[7] != '-')
        return -1;
    mo = digits(s + 5, 2);
    d = digits(s + 8, 2);
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0))))
        return -1;
    if (n == 20) {
        if (s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
            return -1;
        h = digits(s + 11, 2);
        mi = digits(s + 14, 2);
        sec = digits(s + 17, 2);
        if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
            return -1;
    }
    *out = (time_t)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 +
                    sec);
    return 0;
}
/* The JSON length of one character of clean UTF-8 at p (*n: its bytes). */
static size_t json_char(const unsigned char *p, size_t *n)
{
    unsigned char c = p[0];
    *n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
        return 2;
    if (c < 0x20 || c == 0x7F || (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
        return 6;   /* \u00XX: cJSON's for C0, the JSON reporter's for DEL and C1 */
    return *n;
}
/* How many bytes of s fit in `budget` bytes of JSON text. */
static size_t json_prefix(const char *s, size_t budget)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t bytes = 0, json = 0, n;
    while (p[bytes]) {
        size_t j = json_char(p + bytes, &n);
        if (json + j > budget)
            break;
        json += j;
        bytes += n;
    }
    return bytes;
}
void ng_text_cut(struct ng_buf *out, const char *s, size_t max, int hashed)
{
    static const char ellipsis[] = "\xE2\x80\xA6";
    size_t len = strlen(s);
    /* every byte is at least one byte of JSON: past max bytes it cannot
     * fit, and only its start needs cleaning (a 1 MB name is not cleaned
     * whole to keep 512 bytes of it) */
    size_t head = len > max ? max + 4 : len;
    struct ng_buf clean = NG_BUF_INIT;

    ng_text_clean(&clean, s, head, NG_TEXT_UTF8_ONLY);
    ng_buf_adds(&clean, "");
    if (len <= max && json_prefix(clean.data, max) == clean.len) {
        ng_buf_add(out, clean.data, clean.len);
    } else {
        size_t tail = sizeof ellipsis - 1 + (hashed ? 16 : 0);
        ng_buf_add(out, clean.data, max > tail ? json_prefix(clean.data, max - tail) : 0);
        ng_buf_adds(out, ellipsis);
        if (hashed)
            ng_buf_addf(out, "%016llx", (unsigned long long)ng_hash(s, len));
    }
    ng_buf_release(&clean);
}

long ng_hex4(const char *s)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

size_t ng_text_distance(const char *a, size_t alen, const char *b, size_t limit)
{
    size_t blen = strlen(b);
    size_t row[128];

    if (alen >= sizeof row / sizeof row[0] || blen >= sizeof row / sizeof row[0])
        return limit + 1;
    if ((alen > blen ? alen - blen : blen - alen) > limit)
        return limit + 1;
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0], best;
        row[0] = best = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[blen];
}

int ng_text_near(size_t d, size_t len)
{
    return d <= 2 && d * 2 < len;
}
