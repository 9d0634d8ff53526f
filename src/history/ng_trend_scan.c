#include "history/ng_trend_scan.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_context.h"
#include "history/ng_verdict_doc.h"
#include "util/ng_json_scan.h"
#include "util/ng_text.h"

/* Past this nesting the line is left to cJSON (whose own limit is 1000). */
#define DEPTH_MAX 64
/* cJSON copies at most 63 characters of a number before strtod(): a
 * longer one is not read the same, so it is not read here at all. */
#define NUMBER_MAX 63

struct cur {
    const unsigned char *p, *end;
};

/* A string's bytes between its quotes, as written (escapes not undone). */
struct span {
    const unsigned char *at;
    size_t len;
    int escaped;               /* holds a backslash */
};

static void skip_space(struct cur *c)
{
    c->p = ng_json_space_end(c->p, c->end);
}

static int at(const struct cur *c, unsigned char ch)
{
    return c->p < c->end && *c->p == ch;
}

/* The string at c->p (its opening quote). */
static int string(struct cur *c, struct span *s)
{
    int escaped = 0;
    const unsigned char *e = ng_json_string_end(c->p + 1, c->end, &escaped, 0);

    if (!e)
        return -1;
    s->at = c->p + 1;
    s->len = (size_t)(e - 1 - s->at);
    s->escaped = escaped;
    c->p = e;
    return 0;
}

static inline int is_digit(unsigned char ch)
{
    return ng_json_is_digit(ch);
}

/* The value of the number in s[0..n) (already checked), as strtod()
 * gives it: correctly rounded.  Where its digits make an integer below
 * 2^53 and the power of ten is at most 22, both are exact doubles and one
 * multiplication or division rounds once: the same double, without
 * strtod's thousand instructions (Clinger's fast path).  Anything else
 * goes to strtod() itself. */
static double number_value(const unsigned char *s, size_t n)
{
    static const double tens[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    const unsigned char *p = s, *end = s + n;
    uint64_t w = 0;
    int exact = 1, e = 0, negative = *p == '-';

    p += negative;
    for (; p < end && (is_digit(*p) || *p == '.'); p++) {
        if (*p == '.') {
            e = -(int)(end - p - 1);   /* the digits after the point, fixed below */
            continue;
        }
        exact &= w <= ((1ull << 53) - 9) / 10;   /* w * 10 + 9 stays below 2^53 */
        w = w * 10 + (uint64_t)(*p - '0');
    }
    if (e < 0)
        e += (int)(end - p);   /* only the digits before any exponent */
    if (p < end) {   /* an exponent */
        int neg = p[1] == '-', x = 0;
        for (p += 1 + (p[1] == '-' || p[1] == '+'); p < end; p++)
            x = x < 10000 ? x * 10 + (*p - '0') : x;
        e += neg ? -x : x;
    }
#if FLT_EVAL_METHOD == 0
    if (exact && e >= -22 && e <= 22) {
        double x = (double)w;
        x = e < 0 ? x / tens[-e] : x * tens[e];
        return negative ? -x : x;
    }
#endif
    char buf[NUMBER_MAX + 1];
    memcpy(buf, s, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

/* The number at c->p; its value into *v. */
static int number(struct cur *c, double *v)
{
    const unsigned char *e = ng_json_number_end(c->p, c->end, NUMBER_MAX);

    if (!e)
        return -1;
    *v = number_value(c->p, (size_t)(e - c->p));
    c->p = e;
    return 0;
}

/* Skips the value at c->p whole, checking it; depth: the containers it
 * lies in. */
static int skip_value(struct cur *c, int depth)
{
    return ng_json_skip(&c->p, c->end, depth, DEPTH_MAX, NUMBER_MAX, 0) == NG_JSON_OK ? 0 : -1;
}

/* ---- the members looked at ---- */

/* A member of an object the scanner looks into, with its key (no escape,
 * no NUL: such a key could stand for any other, so the line is left to
 * cJSON); the function reads or skips the value. */
typedef int (*member_fn)(struct cur *c, const struct span *key, void *ctx, int depth);

static int object(struct cur *c, member_fn fn, void *ctx, int depth)
{
    if (depth + 1 > DEPTH_MAX)
        return -1;
    c->p++;
    skip_space(c);
    if (at(c, '}')) {
        c->p++;
        return 0;
    }
    for (;;) {
        struct span k;
        skip_space(c);
        if (!at(c, '"') || string(c, &k) < 0 || k.escaped || memchr(k.at, '\0', k.len))
            return -1;
        skip_space(c);
        if (!at(c, ':'))
            return -1;
        c->p++;
        skip_space(c);
        if (fn(c, &k, ctx, depth + 1) < 0)
            return -1;
        skip_space(c);
        if (at(c, ',')) {
            c->p++;
            continue;
        }
        if (!at(c, '}'))
            return -1;
        c->p++;
        return 0;
    }
}

static int key_is(const struct span *k, const char *name, size_t n)
{
    return k->len == n && memcmp(k->at, name, n) == 0;
}

/* A key looked up, with its length (every member of a line is looked up). */
struct key {
    const char *name;
    size_t len;
};
#define KEY(s) { s, sizeof s - 1 }

/* Which of `keys` the key is, or -1. */
static int key_index(const struct span *k, const struct key *keys, int n)
{
    for (int i = 0; i < n; i++)
        if (key_is(k, keys[i].name, keys[i].len))
            return i;
    return -1;
}

/* A number member: *v and 1 when it is one, else skipped (null, ...). */
static int number_or_skip(struct cur *c, double *v, int *is, int depth)
{
    if (at(c, '-') || (c->p < c->end && is_digit(*c->p))) {
        *is = 1;
        return number(c, v);
    }
    return skip_value(c, depth);
}

/* A string member: its span and 1 when it is one, else skipped. */
static int string_or_skip(struct cur *c, struct span *s, int *is, int depth)
{
    if (at(c, '"')) {
        *is = 1;
        return string(c, s);
    }
    return skip_value(c, depth);
}

/* "baseline" and "current": the first of each of these members counts. */
enum { SIDE_MEDIAN, SIDE_MIN, SIDE_MAX, SIDE_FIELDS };
static const struct key side_keys[SIDE_FIELDS] = { KEY("median_ms"), KEY("min_ms"),
                                                   KEY("max_ms") };

struct side {
    unsigned seen;
    double v[SIDE_FIELDS];     /* 0 unless a number */
    int is[SIDE_FIELDS];
};

static int side_member(struct cur *c, const struct span *key, void *ctx, int depth)
{
    struct side *s = ctx;
    int f = key_index(key, side_keys, SIDE_FIELDS);
    int is = 0;

    if (f < 0 || (s->seen & (1u << f)))
        return skip_value(c, depth);
    s->seen |= 1u << f;
    int ret = number_or_skip(c, &s->v[f], &is, depth);
    s->is[f] = is;
    return ret;
}

/* "context": each string member is set in turn (ng_context_set()), so
 * the last one of a key wins and an empty one takes the key out. */
enum { CTX_COMMIT, CTX_RUN_URL, CTX_FIELDS };
static const struct key context_keys[CTX_FIELDS] = { KEY("commit"), KEY("run_url") };

struct context {
    struct span v[CTX_FIELDS];
    int set[CTX_FIELDS];
};

static int context_member(struct cur *c, const struct span *key, void *ctx, int depth)
{
    struct context *x = ctx;
    int f = key_index(key, context_keys, CTX_FIELDS);
    struct span s;
    int is = 0;

    if (f < 0)
        return skip_value(c, depth);
    if (string_or_skip(c, &s, &is, depth) < 0)
        return -1;
    if (is) {
        x->v[f] = s;
        x->set[f] = s.len > 0;
    }
    return 0;
}

/* The top level: the first member of each name counts, as in cJSON. */
enum {
    F_NAME, F_VERDICT, F_TIMESTAMP, F_MODE, F_METRIC, F_WORK,         /* strings */
    F_RATIO, F_P, F_THRESHOLD, F_BASELINE_MS, F_CURRENT_MS,           /* numbers */
    F_BASELINE, F_CURRENT, F_CONTEXT,                                 /* objects */
    F_FIELDS
};
#define F_STRINGS 6
#define F_NUMBERS 11

static const struct key root_keys[F_FIELDS] = {
    KEY("name"), KEY("verdict"), KEY("timestamp"), KEY("mode"), KEY("metric"), KEY("work"),
    KEY("ratio"), KEY("p_value"),
    KEY("threshold"), KEY("baseline_ms_per_epoch"), KEY("current_ms_per_epoch"),
    KEY("baseline"), KEY("current"), KEY("context"),
};

struct root {
    unsigned seen;
    struct span str[F_STRINGS];
    int is_str[F_STRINGS];
    double num[F_NUMBERS];
    int is_num[F_NUMBERS];
    struct side sides[2];
    struct context context;
};

static int root_member(struct cur *c, const struct span *key, void *ctx, int depth)
{
    struct root *r = ctx;
    int f = key_index(key, root_keys, F_FIELDS);

    if (f < 0 || (r->seen & (1u << f)))
        return skip_value(c, depth);
    r->seen |= 1u << f;
    if (f < F_STRINGS)
        return string_or_skip(c, &r->str[f], &r->is_str[f], depth);
    if (f < F_NUMBERS)
        return number_or_skip(c, &r->num[f], &r->is_num[f], depth);
    if (!at(c, '{'))   /* not an object: as good as absent */
        return skip_value(c, depth);
    if (f == F_CONTEXT)
        return object(c, context_member, &r->context, depth);
    return object(c, side_member, &r->sides[f - F_BASELINE], depth);
}

/* ---- the figures ---- */

/* Appends the string's value (escapes undone) and a NUL; -1 when it holds
 * what cJSON would read otherwise (a \u escape, a NUL: its C string would
 * end there). */
static int keep(struct ng_buf *b, const struct span *s)
{
    if (memchr(s->at, '\0', s->len))
        return -1;
    if (!s->escaped) {
        ng_buf_add(b, s->at, s->len);
        ng_buf_add(b, "", 1);
        return 0;
    }
    for (size_t i = 0; i < s->len; i++) {
        unsigned char ch = s->at[i];
        if (ch == '\\') {
            if (s->at[++i] == 'u')
                return -1;
            ch = ng_json_unescaped[s->at[i]];
        }
        ng_buf_add(b, &ch, 1);
    }
    ng_buf_add(b, "", 1);
    return 0;
}

static int outcome_of(const struct span *s, enum ng_outcome *o)
{
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++) {
        const char *name = ng_outcome_name((enum ng_outcome)k);
        if (!s->escaped && key_is(s, name, strlen(name))) {
            *o = (enum ng_outcome)k;
            return 0;
        }
    }
    return -1;
}

/* The strings into s->text; offsets first, as the buffer may move. */
static int figures(struct ng_trend_scan *s, const struct root *r)
{
    size_t at[7] = { 0 };
    int has[7] = { 1, r->is_str[F_TIMESTAMP], r->context.set[CTX_COMMIT],
                   r->context.set[CTX_RUN_URL], r->is_str[F_MODE], r->is_str[F_METRIC],
                   r->is_str[F_WORK] };
    const struct span *from[7] = { &r->str[F_NAME], &r->str[F_TIMESTAMP],
                                   &r->context.v[CTX_COMMIT], &r->context.v[CTX_RUN_URL],
                                   &r->str[F_MODE], &r->str[F_METRIC], &r->str[F_WORK] };

    if (!r->is_str[F_NAME] || !r->is_str[F_VERDICT] || outcome_of(&r->str[F_VERDICT], &s->outcome) < 0)
        return -1;
    s->text.len = 0;
    for (int i = 0; i < 7; i++) {
        at[i] = s->text.len;
        if (has[i] && keep(&s->text, from[i]) < 0)
            return -1;
    }
    s->name = s->text.data + at[0];
    s->timestamp = 0;
    if (has[1])
        (void)ng_parse_utc(s->text.data + at[1], &s->timestamp);
    s->commit = has[2] ? s->text.data + at[2] : NULL;
    s->run_url = has[3] ? s->text.data + at[3] : NULL;
    /* as the full reader keeps them: mode "total" when absent, work "" when
     * absent and cut to its 47 bytes */
    s->mode = has[4] ? s->text.data + at[4] : "total";
    s->metric = has[5] ? s->text.data + at[5] : NULL;
    s->work = "";
    if (has[6]) {
        char *work = s->text.data + at[6];
        if (strlen(work) >= NG_VERDICT_WORK_MAX)
            work[NG_VERDICT_WORK_MAX - 1] = '\0';
        s->work = work;
    }
    s->has_figures = r->is_num[F_RATIO];
    s->ratio = r->num[F_RATIO];
    s->has_p = r->is_num[F_P];
    s->p_value = r->num[F_P];
    s->threshold = r->num[F_THRESHOLD];
    s->baseline_ms = r->is_num[F_BASELINE_MS] ? r->num[F_BASELINE_MS] : r->sides[0].v[SIDE_MEDIAN];
    s->current_ms = r->is_num[F_CURRENT_MS] ? r->num[F_CURRENT_MS] : r->sides[1].v[SIDE_MEDIAN];
    s->current_min_ms = r->sides[1].v[SIDE_MIN];
    s->current_max_ms = r->sides[1].v[SIDE_MAX];
    /* a figure out of range: the full reader refuses the line and says why */
    for (int f = F_RATIO; f < F_NUMBERS; f++)
        if (r->is_num[f] && !ng_verdict_doc_figure_ok(r->num[f]))
            return -1;
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < SIDE_FIELDS; f++)
            if ((r->sides[k].is[f]) && !ng_verdict_doc_figure_ok(r->sides[k].v[f]))
                return -1;
    return 0;
}

int ng_trend_scan_line(struct ng_trend_scan *s, const char *line, size_t len)
{
    struct cur c = { (const unsigned char *)line, (const unsigned char *)line + len };
    struct root r;

    memset(&r, 0, sizeof r);
    /* a \u0000 anywhere: the full reader refuses the line and says why */
    if (ng_json_nul_escape(line, len))
        return 1;
    skip_space(&c);
    if (!at(&c, '{') || object(&c, root_member, &r, 0) < 0)
        return 1;
    skip_space(&c);
    if (c.p != c.end || figures(s, &r) < 0)
        return 1;
    return 0;
}

void ng_trend_scan_of_verdict(struct ng_trend_scan *s, const struct ng_verdict *v)
{
    const char *text[6] = { v->name ? v->name : "", ng_context_get(&v->context, "commit"),
                            ng_context_get(&v->context, "run_url"), v->mode, v->metric, v->work };
    size_t at[6];

    s->text.len = 0;
    for (int i = 0; i < 6; i++) {
        at[i] = s->text.len;
        if (text[i])
            ng_buf_add(&s->text, text[i], strlen(text[i]) + 1);
    }
    s->name = s->text.data + at[0];
    s->commit = text[1] ? s->text.data + at[1] : NULL;
    s->run_url = text[2] ? s->text.data + at[2] : NULL;
    s->mode = text[3] ? s->text.data + at[3] : NULL;
    s->metric = text[4] ? s->text.data + at[4] : NULL;
    s->work = s->text.data + at[5];
    s->outcome = v->outcome;
    s->timestamp = v->timestamp;
    s->has_figures = v->has_figures;
    s->ratio = v->ratio;
    s->has_p = v->has_p;
    s->p_value = v->p_value;
    s->threshold = v->threshold;
    s->baseline_ms = v->baseline.ms_per_epoch;
    s->current_ms = v->current.ms_per_epoch;
    s->current_min_ms = v->current.min_ms;
    s->current_max_ms = v->current.max_ms;
}

static int same_text(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

int ng_trend_scan_same(const struct ng_trend_scan *a, const struct ng_trend_scan *b)
{
    const double x[] = { a->ratio, a->p_value, a->threshold, a->baseline_ms, a->current_ms,
                         a->current_min_ms, a->current_max_ms };
    const double y[] = { b->ratio, b->p_value, b->threshold, b->baseline_ms, b->current_ms,
                         b->current_min_ms, b->current_max_ms };

    return same_text(a->name, b->name) && same_text(a->commit, b->commit) &&
           same_text(a->run_url, b->run_url) && same_text(a->mode, b->mode) &&
           same_text(a->metric, b->metric) && same_text(a->work, b->work) &&
           a->outcome == b->outcome &&
           a->timestamp == b->timestamp && a->has_figures == b->has_figures &&
           a->has_p == b->has_p && memcmp(x, y, sizeof x) == 0;
}

void ng_trend_scan_release(struct ng_trend_scan *s)
{
    ng_buf_release(&s->text);
    memset(s, 0, sizeof *s);
}
