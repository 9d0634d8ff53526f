/* The markup layouts of saved `nsys stats` text: json (--format json)
 * and html (hdoc, htable), each written one field or cell a line.  Their
 * strings are decoded, then the cells go to ng_nsys_summary.h like any
 * layout's. */
#include "sources/nsys_stats/ng_nsys_summary_markup.h"

#include <string.h>

#include "util/ng_text.h"

/* ---- json: an array of objects, one "key": value a line ----
 * nsys's writer has escaped '"' and '\' in every version tried (2022.4,
 * 2023.4), but its documentation says it does not; it writes control
 * characters raw, and a value that looks like a number or a JSON keyword
 * (a kernel named 12345 or null) bare.  A value is read as it stands on
 * its line, so an unescaped quote still has one reading -- unless the file
 * also holds a backslash, which such a writer would not have escaped. */

static int not_json(struct ng_nsys_summary *ps)
{
    return ng_err_set(ps->err, "'%s' line %ld: not nsys stats json (one \"key\": value a line, "
                      "as --format json writes it); a name with a line break cannot be read "
                      "back from any nsys stats text: read the SQLite export instead",
                      ps->path, ps->lineno);
}

/* A "key": value line: the key, and the value as it stands (its trailing
 * comma, if any, is dropped once the object's last field is known). */
static int json_field(struct ng_nsys_summary *ps, const char *line)
{
    const char *s = line;
    size_t n = strlen(line);

    ng_nsys_summary_trim(&s, &n);
    if (n < 4 || s[0] != '"')
        return not_json(ps);
    const char *q = memchr(s + 1, '"', n - 1);
    if (!q || (size_t)(q - s) + 2 > n || q[1] != ':')
        return not_json(ps);
    const char *key = s + 1;
    size_t klen = (size_t)(q - key);
    const char *v = q + 2;
    size_t vlen = n - (size_t)(v - s);
    ng_nsys_summary_trim(&v, &vlen);
    if (vlen == 0)
        return not_json(ps);
    if (!ps->header_done) {
        ng_nsys_summary_store_add(&ps->keys, key, klen, ps->lineno);
    } else if (ps->hdr.kind != NG_SUMMARY_OTHER) {
        int i = ps->vals.count;
        if (i >= ps->keys.count ||
            !ng_nsys_summary_field_is(key, klen, ps->keys.text.data + ps->keys.off[i]))
            return ng_err_set(ps->err, "'%s' line %ld: json object whose fields differ from "
                              "the first object's", ps->path, ps->lineno);
    }
    ng_nsys_summary_store_add(&ps->vals, v, vlen, ps->lineno);
    return 0;
}

/* \uXXXX, with a surrogate pair as one code point; 0 on a bad escape. */
static size_t json_unicode(const char *s, size_t n, struct ng_buf *out)
{
    long first = n >= 6 ? ng_hex4(s + 2) : -1, second;
    if (first <= 0)
        return 0;
    unsigned cp = (unsigned)first, lo;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        second = n >= 12 && s[6] == '\\' && s[7] == 'u' ? ng_hex4(s + 8) : -1;
        if (second < 0xDC00 || second > 0xDFFF)
            return 0;
        lo = (unsigned)second;
        ng_buf_add_utf8(out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
        return 12;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return 0;
    ng_buf_add_utf8(out, cp);
    return 6;
}

/* The content of a JSON string (without its quotes) decoded into out;
 * 1 when it holds a quote no backslash escapes (then out is meaningless),
 * -1 on a malformed escape. */
static int json_unescape(const char *s, size_t n, struct ng_buf *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

    for (size_t i = 0; i < n;) {
        if (s[i] == '"')
            return 1;
        if (s[i] != '\\') {
            ng_buf_add(out, &s[i++], 1);
            continue;
        }
        if (i + 1 == n)
            return -1;
        const char *e = s[i + 1] ? strchr(from, s[i + 1]) : NULL;
        if (e) {
            ng_buf_add(out, &to[e - from], 1);
            i += 2;
            continue;
        }
        size_t used = s[i + 1] == 'u' ? json_unicode(s + i, n - i, out) : 0;
        if (!used)
            return -1;
        i += used;
    }
    return 0;
}

/* One stored value into its text: strings decoded, bare numbers and
 * keywords as they stand. */
static int json_value(struct ng_nsys_summary *ps, const char *v, size_t n, struct ng_buf *out)
{
    if (n == 0 || v[0] != '"') {
        ng_buf_add(out, v, n);
        return 0;
    }
    if (n < 2 || v[n - 1] != '"')
        return not_json(ps);
    if (memchr(v, '\\', n) && !ps->backslash_line)
        ps->backslash_line = ps->lineno;
    int rc = json_unescape(v + 1, n - 2, out);
    if (rc < 0)
        return ng_err_set(ps->err, "'%s' line %ld: a json string with a malformed escape",
                          ps->path, ps->lineno);
    if (rc == 1) {
        out->len = 0;
        ng_buf_add(out, v + 1, n - 2);   /* as nsys wrote it: the quotes are the name's */
        if (!ps->raw_quote_line)
            ps->raw_quote_line = ps->lineno;
    }
    if (ps->raw_quote_line && ps->backslash_line)
        return ng_err_set(ps->err, "'%s' line %ld: a name in this json holds a quote that nsys "
                          "did not escape, and its strings hold backslashes (line %ld), which "
                          "such a writer leaves unescaped too: the names cannot be read back "
                          "without guessing; save the summary with --format csv",
                          ps->path, ps->raw_quote_line, ps->backslash_line);
    return 0;
}

/* The object is complete: every field but the last ends with a comma. */
static int json_object_end(struct ng_nsys_summary *ps)
{
    struct ng_nsys_summary_store *st = &ps->vals;
    struct ng_nsys_summary_store decoded = { .text = NG_BUF_INIT };
    struct ng_nsys_summary_cells c = { .count = 0 };
    int ret = 0;

    if (!ps->header_done) {
        ng_nsys_summary_store_cells(&ps->keys, &c);
        ps->hdr.kind = ng_nsys_summary_match_header(&c, ps->title_exp10, &ps->hdr);
        ng_nsys_summary_begin_block(ps, NG_SUMMARY_JSON, NG_SUMMARY_JSON_ARRAY, ps->hdr.kind);
        ps->header_done = 1;
    }
    ps->state = NG_SUMMARY_JSON_ARRAY;
    if (ps->hdr.kind == NG_SUMMARY_OTHER)
        return 0;
    if (st->count != ps->keys.count)
        return ng_err_set(ps->err, "'%s' line %ld: json object whose fields differ from the "
                          "first object's", ps->path, ps->lineno);
    for (int i = 0; i < st->count && ret == 0; i++) {
        const char *v = st->text.data + st->off[i];
        size_t n = st->len[i];
        if (i + 1 < st->count) {
            if (n == 0 || v[n - 1] != ',') {
                ret = not_json(ps);
                break;
            }
            n--;
        }
        struct ng_buf b = NG_BUF_INIT;
        long at = ps->lineno;
        ps->lineno = st->line[i];   /* messages name the field's line */
        ret = json_value(ps, v, n, &b);
        ps->lineno = at;
        ng_nsys_summary_store_add(&decoded, b.data ? b.data : "", b.len, st->line[i]);
        ng_buf_release(&b);
    }
    if (ret == 0) {
        ng_nsys_summary_store_cells(&decoded, &c);
        long at = ps->lineno;
        ps->lineno = st->line[ps->hdr.ncols - 1];   /* where the name is */
        ret = ng_nsys_summary_add_row(ps, &c, (struct ng_nsys_summary_numfmt){ '.', 0 });
        ps->lineno = at;
    }
    ng_buf_release(&decoded.text);
    return ret;
}

int ng_nsys_summary_markup_json_line(struct ng_nsys_summary *ps, const char *line)
{
    if (ps->header_done && ps->hdr.kind == NG_SUMMARY_OTHER) {   /* not ours: find its end */
        if (ng_nsys_summary_line_is(line, "]"))
            ps->state = NG_SUMMARY_OUTSIDE;
        return 0;
    }
    if (ps->state == NG_SUMMARY_JSON_ARRAY) {
        if (ng_nsys_summary_line_is(line, "]")) {
            ps->state = NG_SUMMARY_OUTSIDE;
            return 0;
        }
        if (!ng_nsys_summary_line_is(line, "{"))
            return not_json(ps);
        ng_nsys_summary_store_clear(&ps->vals);
        ps->state = NG_SUMMARY_JSON_OBJECT;
        return 0;
    }
    if (ng_nsys_summary_line_is(line, "}") || ng_nsys_summary_line_is(line, "},"))
        return json_object_end(ps);
    return json_field(ps, line);
}

/* ---- hdoc and htable: one <th> or <td> cell a line, HTML-escaped ---- */

static const struct { const char *name; const char *text; } entities[] = {
    { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" },
    { "&apos;", "'" }, { NULL, NULL },
};

/* "&#252;" or "&#xFC;" (len bytes, ';' included): its code point, 0 if it
 * is not one. */
static unsigned long char_ref(const char *s, size_t len)
{
    int hex = len > 3 && (s[2] == 'x' || s[2] == 'X');
    unsigned long cp = 0;
    size_t i = 2 + (size_t)hex;

    if (len < 4 || s[1] != '#' || i + 1 >= len)
        return 0;
    for (; i + 1 < len; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0 || cp > 0x10FFFF)
            return 0;
        cp = cp * (hex ? 16 : 10) + (unsigned long)d;
    }
    return cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : cp;
}

static int html_decode(struct ng_nsys_summary *ps, const char *s, size_t n, struct ng_buf *out)
{
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            ng_buf_add(out, &s[i++], 1);
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i);
        size_t len = semi ? (size_t)(semi - (s + i)) + 1 : 0;
        int e = 0;
        while (entities[e].name && !(len && ng_nsys_summary_field_is(s + i, len, entities[e].name)))
            e++;
        if (entities[e].name) {
            ng_buf_adds(out, entities[e].text);
            i += len;
            continue;
        }
        unsigned long cp = len ? char_ref(s + i, len) : 0;
        if (cp == 0) {
            struct ng_buf shown = NG_BUF_INIT;
            ng_text_clean(&shown, s + i, len ? len : (n - i > 12 ? 12 : n - i),
                          NG_TEXT_ESCAPE_CONTROLS);
            ng_err_set(ps->err, "'%s' line %ld: '%s' is not an HTML character reference "
                       "nsys writes", ps->path, ps->lineno, shown.data);
            ng_buf_release(&shown);
            return -1;
        }
        ng_buf_add_utf8(out, (unsigned)cp);
        i += len;
    }
    return 0;
}

static int not_html(struct ng_nsys_summary *ps)
{
    return ng_err_set(ps->err, "'%s' line %ld: not nsys stats html (one <th> or <td> cell a "
                      "line, as --format hdoc and htable write it); a name with a line break "
                      "cannot be read back from any nsys stats text: read the SQLite export "
                      "instead", ps->path, ps->lineno);
}

static int html_row_end(struct ng_nsys_summary *ps)
{
    struct ng_nsys_summary_store decoded = { .text = NG_BUF_INIT };
    struct ng_nsys_summary_store *src = ps->header_done ? &ps->vals : &ps->keys;
    struct ng_nsys_summary_cells c = { .count = 0 };
    int ret = 0;

    if (!ps->header_done && ps->keys.count == 0)
        return 0;
    long at = ps->lineno;
    for (int i = 0; i < src->count && i < NG_SUMMARY_MAX_COLS && ret == 0; i++) {
        struct ng_buf b = NG_BUF_INIT;
        ps->lineno = src->line[i];   /* messages name the cell's line */
        ret = html_decode(ps, src->text.data + src->off[i], src->len[i], &b);
        ng_nsys_summary_store_add(&decoded, b.data ? b.data : "", b.len, src->line[i]);
        ng_buf_release(&b);
    }
    ps->lineno = at;
    if (src->count > NG_SUMMARY_MAX_COLS)
        decoded.count = src->count;
    ng_nsys_summary_store_cells(&decoded, &c);
    if (ret == 0 && !ps->header_done) {
        ps->hdr.kind = ng_nsys_summary_match_header(&c, ps->title_exp10, &ps->hdr);
        ng_nsys_summary_begin_block(ps, NG_SUMMARY_HTML, NG_SUMMARY_HTML_TABLE, ps->hdr.kind);
        ps->header_done = 1;
    } else if (ret == 0 && ps->hdr.kind != NG_SUMMARY_OTHER) {
        if (c.count != ps->hdr.ncols) {
            ret = ng_nsys_summary_cell_count_error(ps, c.count);
        } else {
            ps->lineno = src->line[ps->hdr.ncols - 1];   /* where the name is */
            ret = ng_nsys_summary_add_row(ps, &c, (struct ng_nsys_summary_numfmt){ '.', 0 });
            ps->lineno = at;
        }
    }
    ng_nsys_summary_store_clear(&ps->vals);
    ng_buf_release(&decoded.text);
    return ret;
}

int ng_nsys_summary_markup_html_line(struct ng_nsys_summary *ps, const char *line)
{
    static const char *const ignored[] = { "<thead>", "</thead>", "<tbody>", "</tbody>", NULL };
    const char *s = line;
    size_t n = strlen(line);

    ng_nsys_summary_trim(&s, &n);
    if (ng_nsys_summary_field_is(s, n, "</table>")) {
        ps->state = NG_SUMMARY_OUTSIDE;
        return 0;
    }
    if (ps->header_done && ps->hdr.kind == NG_SUMMARY_OTHER)   /* not ours: find its end */
        return 0;
    if (ng_nsys_summary_field_is(s, n, "<tr>")) {
        ng_nsys_summary_store_clear(&ps->vals);
        return 0;
    }
    if (ng_nsys_summary_field_is(s, n, "</tr>"))
        return html_row_end(ps);
    for (int i = 0; ignored[i]; i++)
        if (ng_nsys_summary_field_is(s, n, ignored[i]))
            return 0;
    int th = ng_nsys_summary_starts_with(s, "<th>") && ng_nsys_summary_ends_with(s, n, "</th>");
    int td = ng_nsys_summary_starts_with(s, "<td>") && ng_nsys_summary_ends_with(s, n, "</td>");
    if ((!th && !td) || n < 9)
        return not_html(ps);
    if (th != !ps->header_done)
        return not_html(ps);
    ng_nsys_summary_store_add(th ? &ps->keys : &ps->vals, s + 4, n - 9, ps->lineno);
    return 0;
}

void ng_nsys_summary_markup_begin(struct ng_nsys_summary *ps, enum ng_nsys_summary_state state)
{
    ps->state = state;
    ps->header_done = 0;
    ng_nsys_summary_store_clear(&ps->keys);
    ng_nsys_summary_store_clear(&ps->vals);
}
