#include "util/ng_json_scan.h"

const unsigned char ng_json_space[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };
const unsigned char ng_json_unescaped[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n',
    ['r'] = '\r', ['t'] = '\t',
};

/* A token that failed to scan: cut short when the bytes up to end could
 * still begin one (what a streaming reader reads on for), else wrong. */
static enum ng_json_skip_result cut_or_bad(const unsigned char *p, const unsigned char *end,
                                           const char *may)
{
    for (; p < end; p++)
        if (!strchr(may, *p) || !*p)
            return NG_JSON_BAD;
    return NG_JSON_CUT;
}

int ng_json_utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = *p, lo = 0x80, hi = 0xBF;
    int n;

    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    /* the second byte's range rules out overlong forms, surrogates and
     * code points past U+10FFFF; the others are plain continuations */
    for (int i = 1; i < n; i++) {
        if (p + i >= end)
            return -1;
        if (p[i] < lo || p[i] > hi)
            return 0;
        lo = 0x80, hi = 0xBF;
    }
    return n;
}

/* The string after the quote at *p: 0, or why not. */
static enum ng_json_skip_result skip_string(const unsigned char **p, const unsigned char *end,
                                            unsigned flags)
{
    const unsigned char *s = *p + 1;

    for (;;) {
        s = ng_json_plain_run(s, end);
        if (s >= end)
            return NG_JSON_CUT;
        if (*s == '"') {
            *p = s + 1;
            return NG_JSON_OK;
        }
        if (*s < 0x20 || *s >= 0x80) {
            int n = !(flags & NG_JSON_STRICT) ? 1 : *s < 0x20 ? 0 : ng_json_utf8_len(s, end);
            if (n <= 0) {
                *p = s;
                return n < 0 ? NG_JSON_CUT : NG_JSON_BAD;
            }
            s += n;
            continue;
        }
        if (end - s < 2)
            return NG_JSON_CUT;
        if (s[1] == 'u') {
            /* a \u escape, or the second half of a surrogate pair, cut short */
            long first = end - s >= 6 ? ng_hex4((const char *)s + 2) : -2;
            if (first == -2 || (first >= 0xD800 && first <= 0xDBFF && end - s < 12)) {
                *p = s;
                return NG_JSON_CUT;
            }
        }
        int n = s[1] == 'u' ? ng_json_unicode_escape(s, end) : ng_json_unescaped[s[1]] ? 2 : -1;
        if (n < 0) {
            *p = s;
            return NG_JSON_BAD;
        }
        s += n;
    }
}

static enum ng_json_skip_result skip_scalar(const unsigned char **p, const unsigned char *end,
                                            size_t number_max)
{
    const unsigned char *s = *p, *e;
    unsigned char ch = *s;

    if (ch == '-' || ng_json_is_digit(ch)) {
        if (!(e = ng_json_number_end(s, end, number_max)))
            return cut_or_bad(s, end, "0123456789+-.eE");
    } else if (!(e = ng_json_literal_end(s, end))) {
        size_t left = (size_t)(end - s);
        if (left < 5 && ((left < 4 && (memcmp(s, "true", left) == 0 ||
                                       memcmp(s, "null", left) == 0)) ||
                         memcmp(s, "false", left) == 0))
            return NG_JSON_CUT;
        return NG_JSON_BAD;
    }
    *p = e;
    return NG_JSON_OK;
}

/* One loop with a stack of bits (1: an object) and the cursor in a local,
 * not recursion: most of what a reader meets is values skipped. */
enum ng_json_skip_result ng_json_skip(const unsigned char **pp, const unsigned char *end,
                                      int depth, int depth_max, size_t number_max,
                                      unsigned flags)
{
    const unsigned char *p = *pp;
    uint64_t objects = 0;
    int open = 0;              /* containers opened here */
    enum ng_json_skip_result r;

    if (depth_max > NG_JSON_DEPTH_MAX)
        depth_max = NG_JSON_DEPTH_MAX;
    for (;;) {
        /* a value */
        p = ng_json_space_end(p, end);
        if (p >= end)
            goto cut;
        unsigned char ch = *p;
        if (ch == '"') {
            if ((r = skip_string(&p, end, flags)) != NG_JSON_OK)
                goto fail;
        } else if (ch == '{' || ch == '[') {
            int obj = ch == '{';
            if (depth + open + 1 > depth_max)
                goto bad;
            p = ng_json_space_end(p + 1, end);
            if (p < end && *p == (obj ? '}' : ']')) {
                p++;
            } else {
                objects = objects << 1 | (uint64_t)obj;
                open++;
                if (obj)
                    goto key;
                continue;
            }
        } else if ((r = skip_scalar(&p, end, number_max)) != NG_JSON_OK) {
            goto fail;
        }
        /* after a value: a comma, or the ends of containers */
        for (;;) {
            if (!open) {
                *pp = p;
                return NG_JSON_OK;
            }
            p = ng_json_space_end(p, end);
            if (p >= end)
                goto cut;
            if (*p == ',') {
                p++;
                break;
            }
            if (*p != ((objects & 1) ? '}' : ']'))
                goto bad;
            p++;
            objects >>= 1;
            open--;
        }
        if (!(objects & 1))
            continue;
    key:
        p = ng_json_space_end(p, end);
        if (p >= end)
            goto cut;
        if (*p != '"')
            goto bad;
        if ((r = skip_string(&p, end, flags)) != NG_JSON_OK)
            goto fail;
        p = ng_json_space_end(p, end);
        if (p >= end)
            goto cut;
        if (*p != ':')
            goto bad;
        p++;
    }
cut:
    r = NG_JSON_CUT;
    goto fail;
bad:
    r = NG_JSON_BAD;
fail:
    *pp = p;
    return r;
}

const char *ng_json_nul_escape(const char *text, size_t len)
{
    const char *p = text, *end = text + len;

    while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
        if (end - p >= 6 && p[1] == 'u' && ng_hex4(p + 2) == 0)
            return p;
        p += 2;   /* the escaped byte, a backslash too, is no escape's start */
        if (p >= end)
            break;
    }
    return NULL;
}

const char *ng_json_after(const char *p, const char *end)
{
    p = (const char *)ng_json_space_end((const unsigned char *)p, (const unsigned char *)end);
    return p < end ? p : NULL;
}

void ng_json_after_show(struct ng_buf *out, const char *p, const char *end)
{
    enum { SHOWN = 40 };
    while (end > p && ng_json_space[(unsigned char)end[-1]])
        end--;
    size_t n = (size_t)(end - p);
    ng_buf_adds(out, "\"");
    ng_text_clean(out, p, n > SHOWN ? SHOWN : n, NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_adds(out, n > SHOWN ? "...\"" : "\"");
}

void ng_json_text(const unsigned char *at, size_t len, int escaped, struct ng_buf *out)
{
    out->len = 0;
    if (!escaped) {
        for (size_t i = 0; i < len; i++)
            if (at[i] == 0)
                goto slow;
        ng_buf_add(out, at, len);
        return;
    }
slow:
    ng_buf_add(out, "", 0);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = at[i];
        if (ch != '\\') {
            if (ch == 0)
                ng_buf_adds(out, "\\x00");
            else
                ng_buf_add(out, &ch, 1);
            continue;
        }
        if (at[i + 1] != 'u') {
            ch = ng_json_unescaped[at[++i]];
            ng_buf_add(out, &ch, 1);
            continue;
        }
        unsigned long cp = (unsigned long)ng_hex4((const char *)at + i + 2);
        i += 5;
        if (cp >= 0xD800 && cp <= 0xDBFF) {   /* checked by the scanner: a pair */
            cp = 0x10000 + ((cp - 0xD800) << 10) +
                 ((unsigned long)ng_hex4((const char *)at + i + 3) - 0xDC00);
            i += 6;
        }
        unsigned char u[4];
        size_t n;
        if (cp == 0) {
            ng_buf_adds(out, "\\x00");
            continue;
        } else if (cp < 0x80) {
            u[0] = (unsigned char)cp, n = 1;
        } else if (cp < 0x800) {
            u[0] = (unsigned char)(0xC0 | cp >> 6), u[1] = (unsigned char)(0x80 | (cp & 0x3F));
            n = 2;
        } else if (cp < 0x10000) {
            u[0] = (unsigned char)(0xE0 | cp >> 12);
            u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            u[2] = (unsigned char)(0x80 | (cp & 0x3F));
            n = 3;
        } else {
            u[0] = (unsigned char)(0xF0 | cp >> 18);
            u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            u[3] = (unsigned char)(0x80 | (cp & 0x3F));
            n = 4;
        }
        ng_buf_add(out, u, n);
    }
}
