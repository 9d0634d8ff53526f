#include "html/ng_html_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_text.h"
#include "util/ng_util.h"

/* A UTF-8 sequence (valid: the text is cleaned first) that is a Unicode
 * noncharacter: U+FDD0..U+FDEF, or U+xFFFE / U+xFFFF in any plane.  HTML
 * calls them parse errors, so they are shown as U+FFFD. */
static int nonchar(const unsigned char *p, size_t n)
{
    if (n == 3 && p[0] == 0xEF && p[1] == 0xB7 && p[2] >= 0x90 && p[2] <= 0xAF)
        return 1;
    if (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)
        return 1;
    return n == 4 && (p[1] & 0x0F) == 0x0F && p[2] == 0xBF && p[3] >= 0xBE;
}

static size_t seq_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* The five characters HTML text and attributes escape, or NULL. */
static const char *html_ref(unsigned char c)
{
    static const char *const refs[256] = {
        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
    };
    return refs[c];
}

/* Printable ASCII needs no cleaning: escaped as it stands, a run of
 * plain characters at a time (nearly every text of a page).  0 when s
 * holds anything else. */
static int ascii_text(struct ng_buf *out, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] >= 0x7F)
            return 0;
    for (size_t i = 0, run = 0; i <= n; i++) {
        const char *ref = i < n ? html_ref(s[i]) : NULL;
        if (i < n && !ref)
            continue;
        ng_buf_add(out, s + run, i - run);
        if (ref)
            ng_buf_adds(out, ref);
        run = i + 1;
    }
    return 1;
}

void ng_html_escape_text_n(struct ng_buf *out, const char *s, size_t n)
{
    struct ng_buf clean = NG_BUF_INIT;

    if (s && ascii_text(out, (const unsigned char *)s, n))
        return;
    ng_text_clean(&clean, s ? s : "", s ? n : 0, NG_TEXT_ESCAPE_CONTROLS);
    const unsigned char *p = (const unsigned char *)clean.data;
    for (size_t i = 0; i < clean.len;) {
        size_t len = seq_len(p[i]);
        const char *ref = html_ref(p[i]);
        if (ref)
            ng_buf_adds(out, ref);
        else if (nonchar(p + i, len))
            ng_buf_adds(out, "\xEF\xBF\xBD");
        else
            ng_buf_add(out, p + i, len);
        i += len;
    }
    ng_buf_release(&clean);
}

void ng_html_escape_text(struct ng_buf *out, const char *s)
{
    ng_html_escape_text_n(out, s, s ? strlen(s) : 0);
}

void ng_html_escape_text_cut(struct ng_buf *out, const char *s, size_t chars)
{
    char *clean = ng_text_cleaned(s ? s : "", NG_TEXT_ESCAPE_CONTROLS);
    size_t i = 0, seen = 0;
    while (clean[i] && seen < chars) {
        i++;
        while ((clean[i] & 0xC0) == 0x80)
            i++;
        seen++;
    }
    int cut = clean[i] != '\0';
    clean[i] = '\0';
    ng_html_escape_text(out, clean);
    if (cut)
        ng_buf_adds(out, "...");
    free(clean);
}

void ng_html_escape_attr(struct ng_buf *out, const char *s)
{
    ng_html_escape_text(out, s);
}

/* RFC 3986's unreserved and reserved characters, and '%' (an escape the
 * URL already has). */
static int url_char(unsigned char c)
{
    static const char marks[] = "-._~:/?#[]@!$&'()*+,;=%";
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && memchr(marks, c, sizeof marks - 1) != NULL);
}

/* Plain URL characters are copied a run at a time (a page links every
 * point of its chart). */
void ng_html_escape_url(struct ng_buf *out, const char *url)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)(url ? url : ""), *run = p;

    for (;; p++) {
        unsigned char c = *p;
        if (c && c != '&' && c != '\'' && url_char(c))
            continue;
        ng_buf_add(out, run, (size_t)(p - run));
        if (!c)
            return;
        if (c == '&') {
            ng_buf_adds(out, "&amp;");
        } else if (c == '\'') {
            ng_buf_adds(out, "%27");
        } else {
            char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
            ng_buf_add(out, esc, sizeof esc);
        }
        run = p + 1;
    }
}

/* The length of scheme (lower case, with its "://") when s starts with
 * it in any case of ASCII letters (not the locale's), else 0. */
static size_t scheme_len(const char *s, const char *scheme)
{
    size_t i = 0;
    for (; scheme[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)scheme[i])
            return 0;
    }
    return i;
}

int ng_html_escape_url_linkable(const char *url)
{
    if (!url)
        return 0;
    size_t n = scheme_len(url, "http://");
    if (!n)
        n = scheme_len(url, "https://");
    return n && url[n] != '\0';
}
