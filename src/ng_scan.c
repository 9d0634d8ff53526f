#include "ng_scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ng_context.h"

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

static const unsigned char is_space[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };
/* where a string's plain run ends */
static const unsigned char string_stop[256] = { ['"'] = 1, ['\\'] = 1 };
/* the escapes that stand for one byte (\u is read apart) */
static const unsigned char unescaped[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n',
    ['r'] = '\r', ['t'] = '\t',
};

static void skip_space(struct cur *c)
{
    while (c->p < c->end && is_space[*c->p])
        c->p++;
}

static int at(const struct cur *c, unsigned char ch)
{
    return c->p < c->end && *c->p == ch;
}

static int hex4(const unsigned char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char h = p[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The length of the \u escape at p (6, or 12 for a surrogate pair), or
 * -1 where cJSON would refuse it (a lone surrogate) or read it otherwise
 * than JSON does (it takes a bad hex digit for 0). */
static int unicode_escape(const unsigned char *p, const unsigned char *end)
{
    int first = end - p >= 6 ? hex4(p + 2) : -1;

    if (first < 0 || (first >= 0xDC00 && first <= 0xDFFF))
        return -1;
    if (first < 0xD800 || first > 0xDBFF)
        return 6;
    if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
        return -1;
    int second = hex4(p + 8);
    return second >= 0xDC00 && second <= 0xDFFF ? 12 : -1;
}

/* The string at c->p (its opening quote). */
static int string(struct cur *c, struct span *s)
{
    const unsigned char *p = c->p + 1, *end = c->end;
    int escaped = 0;

    for (;;) {
        while (p < end && !string_stop[*p])
            p++;
        if (p >= end)
            return -1;
        if (*p == '"')
            break;
        escaped = 1;
        if (end - p < 2)
            return -1;
        int n = p[1] == 'u' ? unicode_escape(p, end) : unescaped[p[1]] ? 2 : -1;
        if (n < 0)
            return -1;
        p += n;
    }
    s->at = c->p + 1;
    s->len = (size_t)(p - s->at);
    s->escaped = escaped;
    c->p = p + 1;
    return 0;
}

static const unsigned char *digits(const unsigned char *p, const unsigned char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* The number at c->p, strictly as JSON writes one; its value (as cJSON's
 * strtod() reads it) into *v when v is not NULL. */
static int number(struct cur *c, double *v)
{
    const unsigned char *p = c->p, *end = c->end, *d;

    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if ((d = digits(p, end)) > p)
        p = d;
    else
        return -1;
    if (p < end && *p == '.') {
        if ((d = digits(p + 1, end)) == p + 1)
            return -1;
        p = d;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if ((d = digits(p, end)) == p)
            return -1;
        p = d;
    }
    size_t n = (size_t)(p - c->p);
    if (n > NUMBER_MAX)
        return -1;
    if (v) {
        char buf[NUMBER_MAX + 1];
        memcpy(buf, c->p, n);
        buf[n] = '\0';
        *v = strtod(buf, NULL);
    }
    c->p = p;
    return 0;
}

static int literal(struct cur *c)
{
    static const char *const words[] = { "true", "false", "null" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[i], n) == 0) {
            c->p += n;
            return 0;
        }
    }
    return -1;
}

/* A scalar at c->p (not an object or array). */
static int scalar(struct cur *c)
{
    struct span s;
    if (at(c, '"'))
        return string(c, &s);
    if (at(c, '-') || (c->p < c->end && *c->p >= '0' && *c->p <= '9'))
        return number(c, NULL);
    return literal(c);
}

/* Skips the value at c->p whole, checking it; depth: the containers it
 * lies in.  One loop with a stack of bits (1: an object), not recursion:
 * most of a line is values skipped. */
static int skip_value(struct cur *c, int depth)
{
    uint64_t objects = 0;
    int open = 0;              /* containers opened here */

    for (;;) {
        /* a value */
        skip_space(c);
        if (at(c, '{') || at(c, '[')) {
            int obj = *c->p == '{';
            if (depth + open + 1 > DEPTH_MAX)
                return -1;
            c->p++;
            skip_space(c);
            if (at(c, obj ? '}' : ']')) {
                c->p++;
            } else {
                objects = objects << 1 | (uint64_t)obj;
                open++;
                if (obj)
                    goto key;
                continue;
            }
        } else if (scalar(c) < 0) {
            return -1;
        }
        /* after a value: a comma, or the ends of containers */
        for (;;) {
            if (!open)
                return 0;
            skip_space(c);
            int obj = (int)(objects & 1);
            if (at(c, ',')) {
                c->p++;
                break;
            }
            if (!at(c, obj ? '}' : ']'))
                return -1;
            c->p++;
            objects >>= 1;
            open--;
        }
        if (!(objects & 1))
            continue;
    key:
        skip_space(c);
        struct span k;
        if (!at(c, '"') || string(c, &k) < 0)
            return -1;
        skip_space(c);
        if (!at(c, ':'))
            return -1;
        c->p++;
    }
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

static int key_is(const struct span *k, const char *name)
{
    size_t n = strlen(name);
    return k->len == n && memcmp(k->at, name, n) == 0;
}

/* Which of `names` the key is, or -1. */
static int key_index(const struct span *k, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (key_is(k, names[i]))
            return i;
    return -1;
}

/* A number member: *v and 1 when it is one, else skipped (null, ...). */
static int number_or_skip(struct cur *c, double *v, int *is, int depth)
{
    if (at(c, '-') || (c->p < c->end && *c->p >= '0' && *c->p <= '9')) {
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
static const char *const side_keys[SIDE_FIELDS] = { "median_ms", "min_ms", "max_ms" };

struct side {
    unsigned seen;
    double v[SIDE_FIELDS];     /* 0 unless a number */
};

static int side_member(struct cur *c, const struct span *key, void *ctx, int depth)
{
    struct side *s = ctx;
    int f = key_index(key, side_keys, SIDE_FIELDS);
    int is = 0;

    if (f < 0 || (s->seen & (1u << f)))
        return skip_value(c, depth);
    s->seen |= 1u << f;
    return number_or_skip(c, &s->v[f], &is, depth);
}

/* "context": each string member is set in turn (ng_context_set()), so
 * the last one of a key wins and an empty one takes the key out. */
enum { CTX_COMMIT, CTX_RUN_URL, CTX_FIELDS };
static const char *const context_keys[CTX_FIELDS] = { "commit", "run_url" };

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
    F_NAME, F_VERDICT, F_TIMESTAMP,                                   /* strings */
    F_RATIO, F_P, F_THRESHOLD, F_BASELINE_MS, F_CURRENT_MS,           /* numbers */
    F_BASELINE, F_CURRENT, F_CONTEXT,                                 /* objects */
    F_FIELDS
};
#define F_STRINGS 3
#define F_NUMBERS 8

static const char *const root_keys[F_FIELDS] = {
    "name", "verdict", "timestamp", "ratio", "p_value", "threshold", "baseline_ms_per_epoch",
    "current_ms_per_epoch", "baseline", "current", "context",
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
            ch = unescaped[s->at[i]];
        }
        ng_buf_add(b, &ch, 1);
    }
    ng_buf_add(b, "", 1);
    return 0;
}

static int outcome_of(const struct span *s, enum ng_outcome *o)
{
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++) {
        if (!s->escaped && key_is(s, ng_outcome_name((enum ng_outcome)k))) {
            *o = (enum ng_outcome)k;
            return 0;
        }
    }
    return -1;
}

/* The strings into s->text; offsets first, as the buffer may move. */
static int figures(struct ng_scan *s, const struct root *r)
{
    size_t at[4] = { 0 };
    int has[4] = { 1, r->is_str[F_TIMESTAMP], r->context.set[CTX_COMMIT],
                   r->context.set[CTX_RUN_URL] };
    const struct span *from[4] = { &r->str[F_NAME], &r->str[F_TIMESTAMP],
                                   &r->context.v[CTX_COMMIT], &r->context.v[CTX_RUN_URL] };

    if (!r->is_str[F_NAME] || !r->is_str[F_VERDICT] || outcome_of(&r->str[F_VERDICT], &s->outcome) < 0)
        return -1;
    s->text.len = 0;
    for (int i = 0; i < 4; i++) {
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
    s->has_figures = r->is_num[F_RATIO];
    s->ratio = r->num[F_RATIO];
    s->has_p = r->is_num[F_P];
    s->p_value = r->num[F_P];
    s->threshold = r->num[F_THRESHOLD];
    s->baseline_ms = r->is_num[F_BASELINE_MS] ? r->num[F_BASELINE_MS] : r->sides[0].v[SIDE_MEDIAN];
    s->current_ms = r->is_num[F_CURRENT_MS] ? r->num[F_CURRENT_MS] : r->sides[1].v[SIDE_MEDIAN];
    s->current_min_ms = r->sides[1].v[SIDE_MIN];
    s->current_max_ms = r->sides[1].v[SIDE_MAX];
    return 0;
}

int ng_scan_line(struct ng_scan *s, const char *line, size_t len)
{
    struct cur c = { (const unsigned char *)line, (const unsigned char *)line + len };
    struct root r;

    memset(&r, 0, sizeof r);
    skip_space(&c);
    if (!at(&c, '{') || object(&c, root_member, &r, 0) < 0)
        return 1;
    skip_space(&c);
    if (c.p != c.end || figures(s, &r) < 0)
        return 1;
    return 0;
}

void ng_scan_of_verdict(struct ng_scan *s, const struct ng_verdict *v)
{
    const char *text[3] = { v->name ? v->name : "", ng_context_get(&v->context, "commit"),
                            ng_context_get(&v->context, "run_url") };
    size_t at[3];

    s->text.len = 0;
    for (int i = 0; i < 3; i++) {
        at[i] = s->text.len;
        if (text[i])
            ng_buf_add(&s->text, text[i], strlen(text[i]) + 1);
    }
    s->name = s->text.data + at[0];
    s->commit = text[1] ? s->text.data + at[1] : NULL;
    s->run_url = text[2] ? s->text.data + at[2] : NULL;
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

int ng_scan_same(const struct ng_scan *a, const struct ng_scan *b)
{
    const double x[] = { a->ratio, a->p_value, a->threshold, a->baseline_ms, a->current_ms,
                         a->current_min_ms, a->current_max_ms };
    const double y[] = { b->ratio, b->p_value, b->threshold, b->baseline_ms, b->current_ms,
                         b->current_min_ms, b->current_max_ms };

    return same_text(a->name, b->name) && same_text(a->commit, b->commit) &&
           same_text(a->run_url, b->run_url) && a->outcome == b->outcome &&
           a->timestamp == b->timestamp && a->has_figures == b->has_figures &&
           a->has_p == b->has_p && memcmp(x, y, sizeof x) == 0;
}

void ng_scan_release(struct ng_scan *s)
{
    ng_buf_release(&s->text);
    memset(s, 0, sizeof *s);
}
