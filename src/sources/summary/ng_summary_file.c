#include "sources/summary/ng_summary_file.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_digest.h"
#include "util/ng_json_scan.h"
#include "util/ng_version.h"

#define MAGIC "{\"nsys_gate_summary\":"
#define CHECKSUM_KEY ",\"checksum\":\"xxh3_128:"
/* what ends the text: the checksum member, 32 hex digits, "}\n" */
#define TAIL_LEN (sizeof CHECKSUM_KEY - 1 + NG_DIGEST_HEX + 3)

/* ---- writing ---------------------------------------------------------- */

static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        int n = *p < 0x80 ? 1 : ng_json_utf8_len(p, end);
        if (n <= 0)
            return 0;
        p += n;
    }
    return 1;
}

/* "key":"text", or "key_hex":"<hex>" when text is not valid UTF-8 (bytes
 * JSON cannot hold); NULL is null. */
static void put_text(struct ng_buf *b, const char *key, const char *s)
{
    if (!s) {
        ng_buf_addf(b, "\"%s\":null", key);
        return;
    }
    if (!valid_utf8(s)) {
        ng_buf_addf(b, "\"%s_hex\":\"", key);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            ng_buf_addf(b, "%02x", *p);
        ng_buf_adds(b, "\"");
        return;
    }
    ng_buf_addf(b, "\"%s\":\"", key);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            ng_buf_addf(b, "\\%c", c);
        else if (c < 0x20)
            ng_buf_addf(b, "\\u%04x", c);
        else
            ng_buf_add(b, p, 1);
    }
    ng_buf_adds(b, "\"");
}

static void put_int(struct ng_buf *b, const char *key, int64_t v)
{
    ng_buf_addf(b, ",\"%s\":%" PRId64, key, v);
}

static void put_ints(struct ng_buf *b, const char *key, const int64_t *v, size_t n)
{
    ng_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        ng_buf_addf(b, "%s%" PRId64, i ? "," : "", v[i]);
    ng_buf_adds(b, "]");
}

static void put_list(struct ng_buf *b, const char *key, const char *const *v, size_t n)
{
    ng_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        ng_buf_adds(b, i ? ",{" : "{");
        put_text(b, "text", v[i]);
        ng_buf_adds(b, "}");
    }
    ng_buf_adds(b, "]");
}

static void put_options(struct ng_buf *b, const struct ng_source_opts *o,
                        const struct ng_profile *p)
{
    char work[64];
    const struct ng_filter *f = o->filter;

    ng_buf_adds(b, ",\"options\":{");
    ng_buf_addf(b, "\"mode\":\"%s\",", o->epoch_re ? "nvtx" : "total");
    put_text(b, "epoch_range", o->epoch_re ? o->epoch_pattern : NULL);
    put_int(b, "skip_epochs", o->skip_epochs);
    ng_buf_addf(b, ",\"work\":\"%s\"", ng_work_format(o->work ? o->work : NG_WORK_DEFAULT, work,
                                                     sizeof work));
    ng_buf_addf(b, ",\"metric\":\"%s\"", ng_metric_name(o->metric));
    put_list(b, "kernels", f ? f->include_text : NULL, f ? f->n_include : 0);
    put_list(b, "exclude_kernels", f ? f->exclude_text : NULL, f ? f->n_exclude : 0);
    put_list(b, "comm_kernels", o->comm_text, o->n_comm_text);
    ng_buf_addf(b, ",\"kernel_names\":\"%s\"", o->base_names ? "base" : "full");
    int cells = 0;
    for (size_t i = 0; i < p->n_rows && !cells; i++)
        cells = p->rows[i].cells != NULL;
    ng_buf_addf(b, ",\"item_cells\":%s}", o->item_samples || cells ? "true" : "false");
}

static void put_rows(struct ng_buf *b, const char *key, const struct ng_work_row *r, size_t n)
{
    ng_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        ng_buf_addf(b, "%s{\"kind\":\"%s\",", i ? ",\n" : "\n", ng_work_kind_name(r[i].kind));
        put_text(b, "name", r[i].name);
        put_int(b, "ns", r[i].total_ns);
        put_int(b, "n", r[i].instances);
        if (r[i].cells) {
            ng_buf_adds(b, ",\"cells\":[");
            for (size_t k = 0; k < r[i].cells->n; k++)
                ng_buf_addf(b, "%s%" PRIu32 ",%" PRId64, k ? "," : "", r[i].cells->epoch[k],
                            r[i].cells->ns[k]);
            ng_buf_adds(b, "]");
        }
        ng_buf_adds(b, "}");
    }
    ng_buf_adds(b, "]");
}

static void put_places(struct ng_buf *b, const char *key, const struct ng_place *pl, size_t n)
{
    ng_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        ng_buf_addf(b, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
                    i ? "," : "", pl[i].id, pl[i].ns, pl[i].launches, pl[i].rank, pl[i].owner);
    ng_buf_adds(b, "]");
}

static void put_breakdown(struct ng_buf *b, const struct ng_breakdown *d, int device)
{
    if (device)
        ng_buf_addf(b, "%" PRId64 ",", d->device);
    ng_buf_addf(b, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", d->compute,
                d->comm, d->exposed, d->memory, d->idle);
}

static void put_epochs(struct ng_buf *b, const struct ng_profile *p)
{
    ng_buf_adds(b, ",\"epochs\":[");
    for (size_t i = 0; i < p->n_epochs; i++) {
        ng_buf_adds(b, i ? ",{" : "{");
        put_text(b, "name", p->epochs[i].name);
        put_int(b, "first_start", p->epochs[i].first_start);
        put_int(b, "ns", p->epochs[i].ns);
        put_int(b, "kernels", p->epochs[i].kernels);
        ng_buf_adds(b, "}");
    }
    ng_buf_adds(b, "]");
}

static void put_where(struct ng_buf *b, const struct ng_profile *p)
{
    ng_buf_addf(b, ",\"has_places\":%s", p->has_places ? "true" : "false");
    put_places(b, "devices", p->devices, p->n_devices);
    put_places(b, "processes", p->processes, p->n_processes);
    ng_buf_addf(b, ",\"has_breakdown\":%s,\"breakdown\":[", p->has_breakdown ? "true" : "false");
    put_breakdown(b, &p->breakdown, 0);
    ng_buf_adds(b, ",\"bd_devices\":[");
    for (size_t i = 0; i < p->n_bd_devices; i++) {
        ng_buf_adds(b, i ? ",[" : "[");
        put_breakdown(b, &p->bd_devices[i], 1);
    }
    ng_buf_addf(b, "],\"has_nested\":%s,\"nested\":[", p->has_nested ? "true" : "false");
    for (size_t i = 0; i < p->n_nested; i++) {
        ng_buf_adds(b, i ? ",{" : "{");
        put_text(b, "name", p->nested[i].name);
        put_int(b, "ns", p->nested[i].ns);
        ng_buf_adds(b, "}");
    }
    ng_buf_adds(b, "]");
}

static void put_profile(struct ng_buf *b, const struct ng_profile *p, size_t n_include,
                        size_t n_exclude)
{
    int64_t hits[NG_FILTER_MAX];

    ng_buf_addf(b, ",\"profile\":{\"format\":\"%s\",", ng_format_name(p->format));
    put_text(b, "gpu", p->gpu);
    ng_buf_adds(b, ",");
    put_text(b, "driver", p->driver);
    put_int(b, "rank", p->rank);
    put_int(b, "world_size", p->world_size);
    ng_buf_adds(b, ",");
    put_text(b, "graph_mode", p->graph_mode);
    put_int(b, "graph_node_kernels", p->graph_node_kernels);
    put_int(b, "total_ns", p->total_ns);
    put_int(b, "launches", p->launches);
    ng_buf_addf(b, ",\"measured\":%s", p->measured ? "true" : "false");
    put_int(b, "measured_ns", p->measured_ns);
    put_ints(b, "kind_ns", p->kind_ns, NG_WORK_KINDS);
    put_ints(b, "kind_launches", p->kind_launches, NG_WORK_KINDS);
    put_ints(b, "left_out_ns", p->left_out_ns, NG_WORK_KINDS);
    put_ints(b, "left_out_launches", p->left_out_launches, NG_WORK_KINDS);
    put_int(b, "excluded_ns", p->excluded_ns);
    put_int(b, "excluded_launches", p->excluded_launches);
    for (size_t i = 0; i < n_include; i++)
        hits[i] = (int64_t)p->include_hits[i];
    put_ints(b, "include_hits", hits, n_include);
    for (size_t i = 0; i < n_exclude; i++)
        hits[i] = (int64_t)p->exclude_hits[i];
    put_ints(b, "exclude_hits", hits, n_exclude);
    ng_buf_addf(b, ",\"nvtx\":%s", p->nvtx ? "true" : "false");
    put_epochs(b, p);
    put_int(b, "skipped_epochs", (int64_t)p->skipped_epochs);
    put_int(b, "empty_epochs", (int64_t)p->empty_epochs);
    put_rows(b, "rows", p->rows, p->n_rows);
    put_rows(b, "excluded", p->excluded, p->n_excluded);
    put_where(b, p);
    ng_buf_adds(b, ",\"warnings\":[");
    for (size_t i = 0; i < p->n_warnings; i++) {
        ng_buf_adds(b, i ? ",{" : "{");
        put_text(b, "text", p->warnings[i]);
        ng_buf_adds(b, "}");
    }
    ng_buf_adds(b, "]}");
}

/* What `nsys-gate ranges` lists; its doubles as %.17g, which reads back
 * to the same double. */
static void put_listing(struct ng_buf *b, const struct ng_profile_listing *l)
{
    ng_buf_addf(b, ",\"ranges\":{\"listed\":%s", l->listed ? "true" : "false");
    put_int(b, "n", (int64_t)l->n_ranges);
    put_int(b, "total_ns", l->total_ns);
    ng_buf_adds(b, ",\"groups\":[");
    for (size_t i = 0; i < l->n_groups; i++) {
        const struct ng_range_group *g = &l->groups[i];
        ng_buf_adds(b, i ? ",\n{" : "\n{");
        put_text(b, "name", g->name);
        ng_buf_adds(b, ",");
        put_text(b, "example", g->example);
        put_int(b, "count", (int64_t)g->count);
        put_int(b, "gpu_ns", g->gpu_ns);
        put_int(b, "threads", (int64_t)g->threads);
        put_int(b, "min_depth", g->min_depth);
        put_int(b, "max_depth", g->max_depth);
        ng_buf_addf(b, ",\"mean_ms\":%.17g,\"cv\":%.17g,\"share\":%.17g}", g->mean_ms, g->cv,
                    g->share);
    }
    ng_buf_adds(b, "]}");
}

void ng_summary_file_write(const struct ng_profile *p, const struct ng_source_opts *o,
                           const struct ng_profile_origin *origin,
                           const struct ng_profile_listing *listing, struct ng_buf *out)
{
    size_t start = out->len;
    char hex[NG_DIGEST_HEX + 1];

    ng_buf_addf(out, MAGIC "%d,\"nsys_gate_version\":\"%s\"", NG_SUMMARY_FILE_VERSION,
                NG_VERSION);
    put_options(out, o, p);
    ng_buf_adds(out, ",\"sources\":[{");
    put_text(out, "name", origin->name);
    put_int(out, "size", origin->size);
    ng_buf_addf(out, ",\"xxh3_128\":\"%s\",\"format\":\"%s\"}]", origin->hash,
                ng_format_name(p->format));
    put_profile(out, p, o->filter ? o->filter->n_include : 0,
                o->filter ? o->filter->n_exclude : 0);
    if (listing)
        put_listing(out, listing);
    ng_digest_bytes(out->data + start, out->len - start, hex);
    ng_buf_addf(out, CHECKSUM_KEY "%s\"}\n", hex);
}

/* ---- reading ---------------------------------------------------------- */

struct rd {
    const unsigned char *start, *p, *end;
    const char *shown;
    struct ng_err *err;
    int bad;
    int lenient;       /* for `nsys-gate ranges`: the reading options are not checked */
    struct ng_buf s;   /* the last string read */
};

/* The first problem is the one reported; the rest of the reading is a
 * no-op from there. */
static int bad(struct rd *r, const char *what)
{
    if (!r->bad)
        ng_err_set(r->err, "'%s' is not a summary nsys-gate can read (%s at byte %zu)", r->shown,
                   what, (size_t)(r->p - r->start));
    r->bad = 1;
    return -1;
}

static int expect(struct rd *r, char c)
{
    if (r->bad)
        return -1;
    r->p = ng_json_space_end(r->p, r->end);
    if (r->p >= r->end || *r->p != (unsigned char)c) {
        char what[32];
        snprintf(what, sizeof what, "'%c' expected", c);
        return bad(r, what);
    }
    r->p++;
    return 0;
}

static int peek(struct rd *r, char c)
{
    r->p = ng_json_space_end(r->p, r->end);
    return !r->bad && r->p < r->end && *r->p == (unsigned char)c;
}

/* One escape at p (a backslash), decoded into r->s; its length, or -1. */
static int unescape(struct rd *r, const unsigned char *p)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (r->end - p < 2)
        return -1;
    if (p[1] != 'u') {
        const char *k = p[1] ? strchr(from, p[1]) : NULL;
        if (!k)
            return -1;
        ng_buf_add(&r->s, &to[k - from], 1);
        return 2;
    }
    int n = ng_json_unicode_escape(p, r->end);
    if (n < 0)
        return -1;
    unsigned long cp = (unsigned long)ng_hex4((const char *)p + 2);
    if (n == 12)
        cp = 0x10000 + ((cp - 0xD800) << 10) +
             ((unsigned long)ng_hex4((const char *)p + 8) - 0xDC00);
    if (cp == 0)
        return -1;   /* a C string would end there */
    ng_buf_add_utf8(&r->s, cp);
    return n;
}

/* A string into r->s (NUL-terminated). */
static int string(struct rd *r)
{
    if (expect(r, '"') < 0)
        return -1;
    r->s.len = 0;
    ng_buf_add(&r->s, "", 0);
    for (;;) {
        const unsigned char *run = ng_json_plain_run(r->p, r->end);
        ng_buf_add(&r->s, r->p, (size_t)(run - r->p));
        r->p = run;
        if (r->p >= r->end)
            return bad(r, "a string cut short");
        if (*r->p == '"') {
            r->p++;
            return 0;
        }
        int n = *r->p == '\\' ? unescape(r, r->p)
                : *r->p < 0x20 ? -1 : ng_json_utf8_len(r->p, r->end);
        if (n <= 0)
            return bad(r, "a bad string");
        if (*r->p != '\\')
            ng_buf_add(&r->s, r->p, (size_t)n);
        r->p += n;
    }
}

/* The member name `key` and its colon; *hex set (may be NULL) when the
 * member is key_hex instead. */
static int key_hex(struct rd *r, const char *key, int *hex)
{
    if (r->bad || string(r) < 0)
        return -1;
    size_t kl = strlen(key);
    if (hex)
        *hex = r->s.len == kl + 4 && memcmp(r->s.data, key, kl) == 0 &&
               memcmp(r->s.data + kl, "_hex", 4) == 0;
    if (!(hex && *hex) && (r->s.len != kl || memcmp(r->s.data, key, kl) != 0)) {
        char what[96];
        snprintf(what, sizeof what, "member \"%s\" expected", key);
        return bad(r, what);
    }
    return expect(r, ':');
}

static int key(struct rd *r, const char *k)
{
    return key_hex(r, k, NULL);
}

/* A member ("," first unless it is the object's first) */
static int member(struct rd *r, const char *k)
{
    return expect(r, ',') < 0 ? -1 : key(r, k);
}

static int int64(struct rd *r, int64_t *v)
{
    if (r->bad)
        return -1;
    r->p = ng_json_space_end(r->p, r->end);
    const unsigned char *q = r->p;
    int neg = q < r->end && *q == '-';
    q += neg;
    if (q >= r->end || !ng_json_is_digit(*q) || (*q == '0' && q + 1 < r->end &&
                                                 ng_json_is_digit(q[1])))
        return bad(r, "an integer expected");
    uint64_t u = 0;
    for (; q < r->end && ng_json_is_digit(*q); q++) {
        if (u > (UINT64_MAX - 9) / 10)
            return bad(r, "an integer past 64 bits");
        u = u * 10 + (uint64_t)(*q - '0');
    }
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
        return bad(r, "an integer past 64 bits");
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    r->p = q;
    return 0;
}

static int int_member(struct rd *r, const char *k, int64_t *v)
{
    return member(r, k) < 0 ? -1 : int64(r, v);
}

static int count_member(struct rd *r, const char *k, size_t *v)
{
    int64_t x = 0;
    if (int_member(r, k, &x) < 0)
        return -1;
    if (x < 0)
        return bad(r, "a negative count");
    *v = (size_t)x;
    return 0;
}

static int boolean(struct rd *r, int *v)
{
    if (r->bad)
        return -1;
    r->p = ng_json_space_end(r->p, r->end);
    const unsigned char *e = ng_json_literal_end(r->p, r->end);
    if (!e || *r->p == 'n')
        return bad(r, "true or false expected");
    *v = *r->p == 't';
    r->p = e;
    return 0;
}

static int bool_member(struct rd *r, const char *k, int *v)
{
    return member(r, k) < 0 ? -1 : boolean(r, v);
}

static int unhex(struct rd *r)
{
    size_t n = r->s.len / 2;
    if (r->s.len % 2 || n == 0)
        return bad(r, "bad hex");
    for (size_t i = 0; i < n; i++) {
        long hi = ng_hex4((char[]){ '0', '0', r->s.data[2 * i], r->s.data[2 * i + 1] });
        if (hi <= 0)
            return bad(r, "bad hex");
        r->s.data[i] = (char)hi;
    }
    r->s.len = n;
    r->s.data[n] = '\0';
    return 0;
}

/* A text member (key or key_hex, or null when nullable): a new string in
 * *out (NULL for null). */
static int text_member(struct rd *r, const char *k, int first, int nullable, char **out)
{
    int hex = 0;
    *out = NULL;
    if ((!first && expect(r, ',') < 0) || key_hex(r, k, &hex) < 0)
        return -1;
    r->p = ng_json_space_end(r->p, r->end);
    if (nullable && !hex && r->end - r->p >= 4 && memcmp(r->p, "null", 4) == 0) {
        r->p += 4;
        return 0;
    }
    if (string(r) < 0 || (hex && unhex(r) < 0))
        return -1;
    if (strlen(r->s.data) != r->s.len)
        return bad(r, "a NUL in a text");
    *out = ng_xstrdup(r->s.data);
    return 0;
}

/* An array's next element: 1 when there is one (its comma read), 0 at
 * its end (the bracket read), -1. */
static int next(struct rd *r, size_t i)
{
    if (peek(r, ']')) {
        r->p++;
        return 0;
    }
    if (i > 0 && expect(r, ',') < 0)
        return -1;
    return r->bad ? -1 : 1;
}

static int ints(struct rd *r, const char *k, int64_t *v, size_t n)
{
    if (member(r, k) < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((i && expect(r, ',') < 0) || int64(r, &v[i]) < 0)
            return -1;
    return expect(r, ']');
}

/* ---- the options, checked against the gate's ---- */

/* A list of texts ("kernels":[{"text":..}]) joined as the options show
 * them: 'a', 'b' (or "none"). */
static int text_list(struct rd *r, const char *k, struct ng_buf *shown)
{
    int more;
    if (member(r, k) < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        char *t = NULL;
        if (expect(r, '{') < 0 || text_member(r, "text", 1, 0, &t) < 0 || expect(r, '}') < 0) {
            free(t);
            return -1;
        }
        ng_buf_addf(shown, "%s'%s'", i ? ", " : "", t);
        free(t);
    }
    return more;
}

static void own_list(struct ng_buf *b, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ng_buf_addf(b, "%s'%s'", i ? ", " : "", v[i]);
}

static int mismatch(struct rd *r, const char *option, const char *made, const char *asked)
{
    if (r->lenient)
        return 0;
    r->bad = 1;
    if (!*made)
        return ng_err_set(r->err, "'%s' was made without %s and this gate asks for %s %s; "
                          "summarize the profile again with these options", r->shown, option,
                          option, asked);
    if (!*asked)
        return ng_err_set(r->err, "'%s' was made with %s %s and this gate gives no %s; "
                          "summarize the profile again with these options", r->shown, option,
                          made, option);
    return ng_err_set(r->err, "'%s' was made with %s %s and this gate asks for %s %s; "
                      "summarize the profile again with these options", r->shown, option, made,
                      option, asked);
}

static int check_list(struct rd *r, const char *k, const char *option, const char *const *v,
                      size_t n)
{
    struct ng_buf made = NG_BUF_INIT, asked = NG_BUF_INIT;
    ng_buf_adds(&made, "");
    ng_buf_adds(&asked, "");
    int ret = text_list(r, k, &made) < 0 ? -1 : 0;
    own_list(&asked, v, n);
    if (ret == 0 && strcmp(made.data, asked.data) != 0)
        ret = mismatch(r, option, made.data, asked.data);
    ng_buf_release(&made);
    ng_buf_release(&asked);
    return ret;
}

static int check_text(struct rd *r, const char *k, const char *option, const char *asked,
                      int nullable)
{
    char *made;
    if (text_member(r, k, 0, nullable, &made) < 0)
        return -1;
    int ret = 0;
    if ((made == NULL) != (asked == NULL) || (made && strcmp(made, asked) != 0)) {
        char m[NG_ERR_MAX / 4], a[NG_ERR_MAX / 4];
        snprintf(m, sizeof m, made ? "'%s'" : "", made ? made : "");
        snprintf(a, sizeof a, asked ? "'%s'" : "", asked ? asked : "");
        ret = mismatch(r, option, m, a);
    }
    free(made);
    return ret;
}

static int check_options(struct rd *r, const struct ng_source_opts *o, int *cells)
{
    static const char *const none[1];
    const struct ng_filter *f = o->filter;
    char work[64];
    int64_t skip;

    if (member(r, "options") < 0 || expect(r, '{') < 0 || key(r, "mode") < 0 || string(r) < 0)
        return -1;
    int nvtx = strcmp(r->s.data, "nvtx") == 0;
    if (!nvtx && strcmp(r->s.data, "total") != 0)
        return bad(r, "an unknown mode");
    if (check_text(r, "epoch_range", "--epoch-range", o->epoch_re ? o->epoch_pattern : NULL,
                   1) < 0 || int_member(r, "skip_epochs", &skip) < 0)
        return -1;
    if (skip != o->skip_epochs) {
        char m[32], num[32];
        snprintf(m, sizeof m, "%" PRId64, skip);
        snprintf(num, sizeof num, "%ld", o->skip_epochs);
        return mismatch(r, "--skip-epochs", m, num);
    }
    if (check_text(r, "work", "--work", ng_work_format(o->work ? o->work : NG_WORK_DEFAULT, work,
                                                       sizeof work), 0) < 0 ||
        check_text(r, "metric", "--metric", ng_metric_name(o->metric), 0) < 0 ||
        check_list(r, "kernels", "--kernels", f ? f->include_text : none,
                   f ? f->n_include : 0) < 0 ||
        check_list(r, "exclude_kernels", "--exclude-kernels", f ? f->exclude_text : none,
                   f ? f->n_exclude : 0) < 0 ||
        check_list(r, "comm_kernels", "--comm-kernels", o->comm_text ? o->comm_text : none,
                   o->n_comm_text) < 0 ||
        check_text(r, "kernel_names", "--kernel-names", o->base_names ? "base" : "full", 0) < 0 ||
        bool_member(r, "item_cells", cells) < 0 || expect(r, '}') < 0)
        return -1;
    if (o->item_samples && !*cells && !r->lenient) {
        r->bad = 1;
        return ng_err_set(r->err, "'%s' was made without each item's time per epoch, which "
                          "--kernel-threshold needs in NVTX mode; summarize the profile "
                          "again (nsys-gate summarize keeps it)", r->shown);
    }
    return 0;
}

/* ---- the profile ---- */

static int format_of(struct rd *r, enum ng_format *f)
{
    for (int i = NG_FORMAT_UNKNOWN; i <= NG_FORMAT_LAST; i++)
        if (strcmp(r->s.data, ng_format_name((enum ng_format)i)) == 0) {
            *f = (enum ng_format)i;
            return 0;
        }
    return bad(r, "an unknown format");
}

static int origin(struct rd *r, struct ng_profile *p)
{
    int64_t size;
    char *name;
    if (member(r, "sources") < 0 || expect(r, '[') < 0 || expect(r, '{') < 0 ||
        text_member(r, "name", 1, 0, &name) < 0)
        return -1;
    p->origin = ng_xcalloc(1, sizeof *p->origin);
    p->origin->name = name;
    if (int_member(r, "size", &size) < 0 || member(r, "xxh3_128") < 0 || string(r) < 0)
        return -1;
    p->origin->size = size;
    if (r->s.len != NG_DIGEST_HEX)
        return bad(r, "a bad xxh3_128");
    memcpy(p->origin->hash, r->s.data, NG_DIGEST_HEX + 1);
    if (member(r, "format") < 0 || string(r) < 0)
        return -1;
    return expect(r, '}') < 0 ? -1 : expect(r, ']');
}

static int kind_of(struct rd *r, enum ng_work_kind *k)
{
    for (int i = 0; i <= NG_WORK_OTHERS; i++)
        if (strcmp(r->s.data, ng_work_kind_name((enum ng_work_kind)i)) == 0) {
            *k = (enum ng_work_kind)i;
            return 0;
        }
    return bad(r, "an unknown kind of work");
}

/* The cells of the row just added: [epoch,ns,epoch,ns,...]. */
static int cells(struct rd *r, struct ng_profile *p, enum ng_work_kind kind, const char *name,
                 int keep)
{
    int more;
    if (member(r, "cells") < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        int64_t e, ns;
        if (int64(r, &e) < 0 || expect(r, ',') < 0 || int64(r, &ns) < 0)
            return -1;
        if (e < 0 || (size_t)e >= p->n_epochs)
            return bad(r, "a cell of no epoch");
        uint32_t e32 = (uint32_t)e;
        if (keep)
            ng_profile_add_cells(p, kind, name, &e32, &ns, 1);
    }
    return more;
}

static int rows(struct rd *r, struct ng_profile *p, const char *k, int excluded, int keep_cells)
{
    int more;
    if (member(r, k) < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        enum ng_work_kind kind = NG_WORK_KERNEL;
        char *name = NULL;
        int64_t ns, n;
        if (expect(r, '{') < 0 || key(r, "kind") < 0 || string(r) < 0 || kind_of(r, &kind) < 0 ||
            text_member(r, "name", 0, 0, &name) < 0 || int_member(r, "ns", &ns) < 0 ||
            int_member(r, "n", &n) < 0) {
            free(name);
            return -1;
        }
        if (ns < 0 || n < 0) {
            free(name);
            return bad(r, "a negative figure");
        }
        int64_t sum;
        if (excluded && (__builtin_add_overflow(p->excluded_ns, ns, &sum) ||
                         __builtin_add_overflow(p->excluded_launches, n, &sum))) {
            free(name);
            return bad(r, "excluded items past 64 bits");
        }
        if (excluded)
            ng_profile_add_excluded(p, kind, name, ns, n);
        else if (ng_profile_add_row(p, kind, name, strlen(name), ns, n) == 1) {
            free(name);
            return bad(r, "a row twice");
        }
        if (!excluded && peek(r, ',') && cells(r, p, kind, name, keep_cells) < 0) {
            free(name);
            return -1;
        }
        free(name);
        if (expect(r, '}') < 0)
            return -1;
    }
    return more;
}

static int places(struct rd *r, const char *k, struct ng_place **pl, size_t *n)
{
    int more;
    if (member(r, k) < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        int64_t v[5];
        if (expect(r, '[') < 0)
            return -1;
        for (int j = 0; j < 5; j++)
            if ((j && expect(r, ',') < 0) || int64(r, &v[j]) < 0)
                return -1;
        if (expect(r, ']') < 0)
            return -1;
        *pl = ng_xgrow(*pl, *n, sizeof **pl);
        (*pl)[(*n)++] = (struct ng_place){ v[0], v[1], v[2], v[3], v[4] };
    }
    return more;
}

static int breakdown(struct rd *r, struct ng_breakdown *d, int device)
{
    int64_t v[6];
    int n = device ? 6 : 5;
    if (expect(r, '[') < 0)
        return -1;
    for (int j = 0; j < n; j++)
        if ((j && expect(r, ',') < 0) || int64(r, &v[j]) < 0)
            return -1;
    const int64_t *f = v + device;
    *d = (struct ng_breakdown){ device ? v[0] : 0, f[0], f[1], f[2], f[3], f[4] };
    return expect(r, ']');
}

static int epochs(struct rd *r, struct ng_profile *p)
{
    int more;
    if (member(r, "epochs") < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        char *name;
        int64_t first, ns, kernels;
        if (expect(r, '{') < 0 || text_member(r, "name", 1, 0, &name) < 0)
            return -1;
        if (int_member(r, "first_start", &first) == 0 && int_member(r, "ns", &ns) == 0 &&
            int_member(r, "kernels", &kernels) == 0 && (ns < 0 || kernels < 0))
            bad(r, "a negative figure");
        if (!r->bad)
            ng_profile_add_epoch(p, name, first, ns, kernels);
        free(name);
        if (expect(r, '}') < 0)
            return -1;
    }
    return more;
}

static int where(struct rd *r, struct ng_profile *p)
{
    int more;
    if (bool_member(r, "has_places", &p->has_places) < 0 ||
        places(r, "devices", &p->devices, &p->n_devices) < 0 ||
        places(r, "processes", &p->processes, &p->n_processes) < 0 ||
        bool_member(r, "has_breakdown", &p->has_breakdown) < 0 || member(r, "breakdown") < 0 ||
        breakdown(r, &p->breakdown, 0) < 0 || member(r, "bd_devices") < 0 ||
        expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        p->bd_devices = ng_xgrow(p->bd_devices, p->n_bd_devices, sizeof *p->bd_devices);
        if (breakdown(r, &p->bd_devices[p->n_bd_devices++], 1) < 0)
            return -1;
    }
    if (more < 0 || bool_member(r, "has_nested", &p->has_nested) < 0 ||
        member(r, "nested") < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        char *name;
        int64_t ns;
        if (expect(r, '{') < 0 || text_member(r, "name", 1, 0, &name) < 0)
            return -1;
        if (int_member(r, "ns", &ns) == 0)
            ng_profile_add_nested(p, name, ns);
        free(name);
        if (expect(r, '}') < 0)
            return -1;
    }
    return more;
}

static int warnings(struct rd *r, struct ng_profile *p)
{
    int more;
    if (member(r, "warnings") < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        char *w;
        if (expect(r, '{') < 0 || text_member(r, "text", 1, 0, &w) < 0)
            return -1;
        ng_strv_push(&p->warnings, &p->n_warnings, w);
        if (expect(r, '}') < 0)
            return -1;
    }
    return more;
}

/* A pattern's hits, one count a pattern of the options read before. */
static int hits(struct rd *r, const char *k, size_t *v)
{
    int more;
    if (member(r, k) < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        int64_t x;
        if (i >= NG_FILTER_MAX)
            return bad(r, "more hits than patterns");
        if (int64(r, &x) < 0)
            return -1;
        if (x < 0)
            return bad(r, "a negative count");
        v[i] = (size_t)x;
    }
    return more;
}

/* Totals, kinds, left out, excluded: what the rows do not give. */
static int figures(struct rd *r, struct ng_profile *p)
{
    if (int_member(r, "graph_node_kernels", &p->graph_node_kernels) < 0 ||
        int_member(r, "total_ns", &p->total_ns) < 0 ||
        int_member(r, "launches", &p->launches) < 0 ||
        bool_member(r, "measured", &p->measured) < 0 ||
        int_member(r, "measured_ns", &p->measured_ns) < 0 ||
        ints(r, "kind_ns", p->kind_ns, NG_WORK_KINDS) < 0 ||
        ints(r, "kind_launches", p->kind_launches, NG_WORK_KINDS) < 0 ||
        ints(r, "left_out_ns", p->left_out_ns, NG_WORK_KINDS) < 0 ||
        ints(r, "left_out_launches", p->left_out_launches, NG_WORK_KINDS) < 0 ||
        int_member(r, "excluded_ns", &p->excluded_ns) < 0 ||
        int_member(r, "excluded_launches", &p->excluded_launches) < 0 ||
        hits(r, "include_hits", p->include_hits) < 0 ||
        hits(r, "exclude_hits", p->exclude_hits) < 0 ||
        bool_member(r, "nvtx", &p->nvtx) < 0 || epochs(r, p) < 0 ||
        count_member(r, "skipped_epochs", &p->skipped_epochs) < 0 ||
        count_member(r, "empty_epochs", &p->empty_epochs) < 0)
        return -1;
    return 0;
}

static int profile(struct rd *r, struct ng_profile *p, const struct ng_source_opts *o, int cells)
{
    if (member(r, "profile") < 0 || expect(r, '{') < 0 || key(r, "format") < 0 ||
        string(r) < 0 || format_of(r, &p->format) < 0 ||
        text_member(r, "gpu", 0, 1, &p->gpu) < 0 ||
        text_member(r, "driver", 0, 1, &p->driver) < 0 ||
        int_member(r, "rank", &p->rank) < 0 || int_member(r, "world_size", &p->world_size) < 0 ||
        text_member(r, "graph_mode", 0, 1, &p->graph_mode) < 0 || figures(r, p) < 0)
        return -1;
    /* the stated totals stay; the excluded rows' own sum is only checked
     * for overflow, starting from 0 */
    int64_t excluded_ns = p->excluded_ns, excluded_launches = p->excluded_launches;
    p->excluded_ns = p->excluded_launches = 0;
    /* cells only where the gate reads them: as the profile itself would be read */
    if (rows(r, p, "rows", 0, cells && o->item_samples) < 0 || rows(r, p, "excluded", 1, 0) < 0 ||
        where(r, p) < 0 || warnings(r, p) < 0 || expect(r, '}') < 0)
        return -1;
    p->excluded_ns = excluded_ns;
    p->excluded_launches = excluded_launches;
    return 0;
}

static int number(struct rd *r, double *v)
{
    char buf[64];
    if (r->bad)
        return -1;
    r->p = ng_json_space_end(r->p, r->end);
    const unsigned char *e = ng_json_number_end(r->p, r->end, sizeof buf - 1);
    if (!e)
        return bad(r, "a number expected");
    memcpy(buf, r->p, (size_t)(e - r->p));
    buf[e - r->p] = '\0';
    *v = strtod(buf, NULL);
    r->p = e;
    return 0;
}

static int group(struct rd *r, struct ng_range_group *g)
{
    int64_t count, threads, lo, hi;
    if (expect(r, '{') < 0 || text_member(r, "name", 1, 0, &g->name) < 0 ||
        text_member(r, "example", 0, 0, &g->example) < 0 || int_member(r, "count", &count) < 0 ||
        int_member(r, "gpu_ns", &g->gpu_ns) < 0 || int_member(r, "threads", &threads) < 0 ||
        int_member(r, "min_depth", &lo) < 0 || int_member(r, "max_depth", &hi) < 0 ||
        member(r, "mean_ms") < 0 || number(r, &g->mean_ms) < 0 || member(r, "cv") < 0 ||
        number(r, &g->cv) < 0 || member(r, "share") < 0 || number(r, &g->share) < 0)
        return -1;
    if (count < 0 || threads < 0 || lo < 0 || hi < lo || hi > INT32_MAX)
        return bad(r, "a bad range group");
    g->count = (size_t)count;
    g->threads = (size_t)threads;
    g->min_depth = (int)lo;
    g->max_depth = (int)hi;
    return expect(r, '}');
}

/* What `nsys-gate ranges` lists, when the summary has it. */
static int listing(struct rd *r, struct ng_profile *p)
{
    int more;
    if (member(r, "ranges") < 0 || expect(r, '{') < 0)
        return -1;
    struct ng_profile_listing *l = p->listing = ng_xcalloc(1, sizeof *l);
    if (key(r, "listed") < 0 || boolean(r, &l->listed) < 0 ||
        count_member(r, "n", &l->n_ranges) < 0 || int_member(r, "total_ns", &l->total_ns) < 0 ||
        member(r, "groups") < 0 || expect(r, '[') < 0)
        return -1;
    for (size_t i = 0; (more = next(r, i)) == 1; i++) {
        l->groups = ng_xgrow(l->groups, l->n_groups, sizeof *l->groups);
        memset(&l->groups[l->n_groups], 0, sizeof *l->groups);
        if (group(r, &l->groups[l->n_groups++]) < 0)
            return -1;
    }
    return more < 0 ? -1 : expect(r, '}');
}

int ng_summary_file_sniff(const unsigned char *head, size_t len)
{
    return len >= sizeof MAGIC - 1 && memcmp(head, MAGIC, sizeof MAGIC - 1) == 0;
}

/* The checksum first: a file cut short, or changed since it was written,
 * is refused before any of it is believed. */
static int check_sum(const char *text, size_t len, const char *shown, struct ng_err *err)
{
    char hex[NG_DIGEST_HEX + 1];
    /* the tail's place only once the text is long enough to have one */
    const char *tail = len < sizeof MAGIC - 1 + TAIL_LEN ? NULL : text + len - TAIL_LEN;

    if (!tail || memcmp(tail, CHECKSUM_KEY, sizeof CHECKSUM_KEY - 1) != 0 ||
        memcmp(text + len - 3, "\"}\n", 3) != 0)
        return ng_err_set(err, "'%s' is cut short: a summary ends with its checksum, and this "
                          "one does not (a truncated copy?); copy or summarize it again", shown);
    ng_digest_bytes(text, (size_t)(tail - text), hex);
    if (memcmp(hex, tail + sizeof CHECKSUM_KEY - 1, NG_DIGEST_HEX) != 0)
        return ng_err_set(err, "'%s' fails its checksum: it was changed after nsys-gate wrote it "
                          "(edited, or damaged); summarize the profile again", shown);
    return 0;
}

/* Sorts the rows (the profile's order), sums them as every reader's
 * profile is summed, and marks it loaded: the totals the file states must
 * be those sums. */
static int finish(struct ng_profile *p, struct ng_err *err)
{
    struct ng_profile kept = *p;

    if (ng_profile_finish(p, err) < 0)
        return -1;
    if (p->total_ns != kept.total_ns || p->launches != kept.launches ||
        memcmp(p->kind_ns, kept.kind_ns, sizeof p->kind_ns) != 0 ||
        memcmp(p->kind_launches, kept.kind_launches, sizeof p->kind_launches) != 0) {
        p->loaded = 0;
        return ng_err_set(err, "'%s' is not a summary nsys-gate can read (its totals are not "
                          "the sums of its rows)", p->path);
    }
    p->measured_ns = kept.measured_ns;
    return 0;
}

int ng_summary_file_read(struct ng_profile *p, const char *text, size_t len,
                         const struct ng_source_opts *o, struct ng_err *err)
{
    static const struct ng_source_opts plain = {0};
    const unsigned char *t = (const unsigned char *)text;
    struct rd r = { t, t + sizeof MAGIC - 1, t, p->path, err, 0,
                    o && o->list_ranges, NG_BUF_INIT };
    int64_t version;
    int cells = 0, ret = -1;

    if (!o)
        o = &plain;
    if (check_sum(text, len, p->path, err) < 0)
        return -1;
    r.end = t + len - TAIL_LEN;   /* the checksum says the text is that long */
    if (int64(&r, &version) < 0)
        return -1;
    if (version != NG_SUMMARY_FILE_VERSION)
        return ng_err_set(err, "'%s' is a summary of version %" PRId64 "; this nsys-gate (%s) "
                          "reads version %d%s", p->path, version, NG_VERSION,
                          NG_SUMMARY_FILE_VERSION,
                          version > NG_SUMMARY_FILE_VERSION ? ": use a newer nsys-gate" : "");
    if (member(&r, "nsys_gate_version") == 0 && string(&r) == 0 &&
        check_options(&r, o, &cells) == 0 && origin(&r, p) == 0 && profile(&r, p, o, cells) == 0 &&
        (!peek(&r, ',') || listing(&r, p) == 0)) {
        r.p = ng_json_space_end(r.p, r.end);
        ret = r.p == r.end ? finish(p, err) : bad(&r, "text after the profile");
    }
    ng_buf_release(&r.s);
    return ret;
}
