#include "util/ng_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortened parts keep this much at each end. */
#define KEEP_MIN 24
#define ELLIPSIS "..."

/* A byte that continues a UTF-8 sequence: never cut before one. */
static int continues(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* The longest quoted part ('...') of s that is longer than the least it
 * can be shortened to; 0 when there is none. */
static size_t longest_quoted(const char *s, size_t *start)
{
    size_t best = 0;
    for (const char *open = strchr(s, '\''); open; ) {
        const char *close = strchr(open + 1, '\'');
        if (!close)
            break;
        size_t n = (size_t)(close - open - 1);
        if (n > best && n > 2 * KEEP_MIN + sizeof ELLIPSIS - 1) {
            best = n;
            *start = (size_t)(open + 1 - s);
        }
        open = strchr(close + 1, '\'');
    }
    return best;
}

/* Fits s (len bytes, heap) into dst[NG_ERR_MAX], keeping the reason: the
 * subjects are quoted (the house rule), so the longest quoted parts, most
 * often paths, are shortened in the middle first; only a message that is
 * still too long then loses its end. */
static void fit(char *dst, char *s, size_t len)
{
    size_t start;
    size_t n;

    while (len >= NG_ERR_MAX && (n = longest_quoted(s, &start)) > 0) {
        size_t over = len - (NG_ERR_MAX - 1);
        size_t keep = n > over + sizeof ELLIPSIS - 1 ? n - over - (sizeof ELLIPSIS - 1) : 0;
        if (keep < 2 * KEEP_MIN)
            keep = 2 * KEEP_MIN;
        size_t head = keep / 2, tail_at = start + n - (keep - head);
        while (head > 0 && continues((unsigned char)s[start + head]))
            head--;
        while (tail_at < start + n && continues((unsigned char)s[tail_at]))
            tail_at++;
        size_t cut_from = start + head;
        memcpy(s + cut_from, ELLIPSIS, sizeof ELLIPSIS - 1);
        memmove(s + cut_from + sizeof ELLIPSIS - 1, s + tail_at, len - tail_at + 1);
        len = len - (tail_at - cut_from) + sizeof ELLIPSIS - 1;
    }
    if (len >= NG_ERR_MAX) {
        len = NG_ERR_MAX - 1;
        while (len > 0 && continues((unsigned char)s[len]))
            len--;
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
}

static void set_v(struct ng_err *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0), nonnull(1, 2)));

static void set_v(struct ng_err *err, const char *fmt, va_list ap)
{
    va_list again;
    char *full;

    va_copy(again, ap);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n < 0 || (size_t)n < sizeof err->msg || !(full = malloc((size_t)n + 1))) {
        va_end(again);
        return;   /* it fits (or what vsnprintf cut is all there is) */
    }
    vsnprintf(full, (size_t)n + 1, fmt, again);
    va_end(again);
    fit(err->msg, full, (size_t)n);
    free(full);
}

int ng_err_set(struct ng_err *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    set_v(err, fmt, ap);
    va_end(ap);
    return -1;
}

/* The old message goes after the prefix whole: set_v shortens the result
 * as one message. */
int ng_err_prefix(struct ng_err *err, const char *fmt, ...)
{
    char old[NG_ERR_MAX];
    va_list ap;

    memcpy(old, err->msg, sizeof old);
    va_start(ap, fmt);
    struct ng_err prefix;
    set_v(&prefix, fmt, ap);
    va_end(ap);
    return ng_err_set(err, "%s: %s", prefix.msg, old);
}
