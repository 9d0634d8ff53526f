/* The Chrome-trace scanner: the text of a torch.profiler trace
 * (util/ng_gzip.h) read as the strict JSON it must be, one unit at a
 * time (the top-level object's members, each event of traceEvents),
 * scanned in place with util/ng_json_scan.h.  No tree is built: an event
 * becomes a struct ng_kineto_event of spans into the window, handed to
 * the reader, and what is wrong is said once, with the byte and the event
 * where it is. */
#include "sources/kineto/ng_kineto_scan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/ng_json_scan.h"
#include "util/ng_text.h"

/* Nesting past this is refused (a trace's events are 4 or 5 deep). */
#define DEPTH_MAX NG_JSON_DEPTH_MAX
/* A number of more digits than this is not a time, an id or a count. */
#define NUMBER_MAX 256

/* ---- the categories read ---- */

/* The "cat" values read, as torch.profiler writes them, with the names
 * older releases (1.8-1.10) used; compared without case. */
static const struct ng_kineto_category categories[] = {
    { "kernel", NG_KINETO_WORK, NG_WORK_KERNEL },
    { "gpu_memcpy", NG_KINETO_WORK, NG_WORK_MEMCPY },
    { "memcpy", NG_KINETO_WORK, NG_WORK_MEMCPY },
    { "gpu_memset", NG_KINETO_WORK, NG_WORK_MEMSET },
    { "memset", NG_KINETO_WORK, NG_WORK_MEMSET },
    { "cuda_runtime", NG_KINETO_CALL, NG_WORK_KERNEL },
    { "runtime", NG_KINETO_CALL, NG_WORK_KERNEL },
    { "cuda_driver", NG_KINETO_CALL, NG_WORK_KERNEL },
    { "driver", NG_KINETO_CALL, NG_WORK_KERNEL },
    { "user_annotation", NG_KINETO_RANGE, NG_WORK_KERNEL },
    { "cpu_op", NG_KINETO_RANGE, NG_WORK_KERNEL },
    { "operator", NG_KINETO_RANGE, NG_WORK_KERNEL },
};
#define N_CATEGORIES (sizeof categories / sizeof categories[0])

/* ---- times ---- */

int ng_kineto_scan_time_ns(const char *text, size_t n, int scale, int64_t *out)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + n;
    uint64_t v = 0;
    int neg = 0, exp10 = scale, first_dropped = 0, point = 0;

    if (n == 0 || ng_json_number_end(p, end, NUMBER_MAX) != end)
        return -1;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    /* digits d, with the point: value = d * 10^(exp10 - scale) ... as the
     * digits after the point lower exp10 by one each */
    const unsigned char *digits = p;
    for (; p < end && (ng_json_is_digit(*p) || *p == '.'); p++)
        if (*p == '.')
            point = 1;
        else if (point)
            exp10--;
    int64_t e = 0;
    if (p < end) {   /* an exponent */
        int eneg = p[1] == '-';
        for (p += 1 + (p[1] == '-' || p[1] == '+'); p < end; p++)
            e = e < 100000 ? e * 10 + (*p - '0') : e;
        e = eneg ? -e : e;
    }
    int64_t total = (int64_t)exp10 + e;   /* value = digits * 10^total ns */
    /* the digits kept: all when total >= 0, else all but the last -total */
    size_t n_digits = 0;
    for (const unsigned char *d = digits; d < end && (ng_json_is_digit(*d) || *d == '.'); d++)
        n_digits += *d != '.';
    int64_t keep = total >= 0 ? (int64_t)n_digits : (int64_t)n_digits + total;
    size_t i = 0;
    for (const unsigned char *d = digits; i < n_digits; d++) {
        if (*d == '.')
            continue;
        int digit = *d - '0';
        if ((int64_t)i < keep) {
            if (v > (UINT64_MAX - 9) / 10)
                return -1;
            v = v * 10 + (uint64_t)digit;
        } else if ((int64_t)i == keep) {   /* the first digit below a ns */
            first_dropped = digit;
        }
        i++;
    }
    for (int64_t k = 0; k < total && v; k++) {
        if (v > UINT64_MAX / 10)
            return -1;
        v *= 10;
    }
    if (first_dropped >= 5)   /* to the nearest ns, halves away from zero */
        v++;
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* ---- values, read in place ---- */

/* Where a unit is being read: [p, end) of the window. */
struct cur {
    const unsigned char *p, *end;
};

/* What reading a unit gives: OK, BAD (wrong, or a problem of valid JSON
 * in sc->why), CUT (the window ends inside it). */
enum { OK = 0, BAD = -1, CUT = -2 };

static int64_t offset_of(const struct ng_kineto_scan *sc, const unsigned char *at)
{
    return sc->in.base + (int64_t)(at - sc->in.buf);
}

/* A problem in the event being read that is valid JSON ("a kernel without
 * \"dur\""): said with the event's number and byte.  Returns -1, for the
 * event callback to return. */
static int ng_kineto_scan_semantic(struct ng_kineto_scan *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int ng_kineto_scan_semantic(struct ng_kineto_scan *sc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->why_buf, sizeof sc->why_buf, fmt, ap);
    va_end(ap);
    sc->why = sc->why_buf;
    return BAD;
}

static void skip_space(struct cur *c)
{
    c->p = ng_json_space_end(c->p, c->end);
}

static int string_at(struct cur *c, struct ng_kineto_span *s)
{
    int escaped = 0;
    const unsigned char *e = ng_json_string_end(c->p + 1, c->end, &escaped, NG_JSON_STRICT);
    if (!e)
        return BAD;
    s->at = c->p + 1;
    s->len = (size_t)(e - 1 - s->at);
    s->escaped = escaped;
    c->p = e;
    return OK;
}

static int skip(struct cur *c, int depth)
{
    enum ng_json_skip_result r =
        ng_json_skip(&c->p, c->end, depth, DEPTH_MAX, NUMBER_MAX, NG_JSON_STRICT);
    return r == NG_JSON_OK ? OK : BAD;
}

/* A number's text (checked), or BAD with *is 0 when the value is not one. */
static int number_at(struct cur *c, struct ng_kineto_span *s, int *is)
{
    const unsigned char *e = ng_json_number_end(c->p, c->end, NUMBER_MAX);
    *is = 0;
    if (!e || (c->p < c->end && *c->p != '-' && !ng_json_is_digit(*c->p)))
        return BAD;
    s->at = c->p;
    s->len = (size_t)(e - c->p);
    s->escaped = 0;
    c->p = e;
    *is = 1;
    return OK;
}

static int is_number_start(const struct cur *c)
{
    return c->p < c->end && (*c->p == '-' || ng_json_is_digit(*c->p));
}

/* An integer member (an id, a rank): its value rounded, or skipped when
 * it is not a number (*has 0). */
static int int_member(struct cur *c, int64_t *v, int *has, int depth)
{
    struct ng_kineto_span s;
    int is;
    if (!is_number_start(c)) {
        *has = 0;
        return skip(c, depth);
    }
    if (number_at(c, &s, &is) != OK)
        return BAD;
    *has = ng_kineto_scan_time_ns((const char *)s.at, s.len, 0, v) == 0;
    return OK;
}

/* The value of a string span (escapes undone, NULs shown as \x00), into
 * out with a NUL. */
void ng_kineto_scan_text(const struct ng_kineto_span *s, struct ng_buf *out)
{
    ng_json_text(s->at, s->len, s->escaped, out);
}

static int span_is(const struct ng_kineto_span *s, const char *word)
{
    size_t n = strlen(word);
    return s->len == n && strncasecmp((const char *)s->at, word, n) == 0;
}

/* A value the reader selects events by, as JSON means it: "\u006bernel"
 * is "kernel".  Only a value with a backslash is decoded (into sc->value,
 * valid until the next call), so the common plain value costs nothing. */
static void span_decode(struct ng_kineto_scan *sc, struct ng_kineto_span *s)
{
    if (!s->escaped)
        return;
    ng_kineto_scan_text(s, &sc->value);
    s->at = (const unsigned char *)sc->value.data;
    s->len = sc->value.len;
    s->escaped = 0;
}

static int key_is(const struct ng_kineto_span *k, const char *word, size_t n)
{
    return k->len == n && memcmp(k->at, word, n) == 0;
}

/* A member's key; one with escapes is compared by its value. */
static int key_at(struct ng_kineto_scan *sc, struct cur *c, struct ng_kineto_span *k)
{
    skip_space(c);
    if (c->p >= c->end || *c->p != '"' || string_at(c, k) != OK)
        return BAD;
    if (k->escaped) {
        ng_kineto_scan_text(k, &sc->key);
        k->at = (const unsigned char *)sc->key.data;
        k->len = sc->key.len;
        k->escaped = 0;
    }
    skip_space(c);
    if (c->p >= c->end || *c->p != ':')
        return BAD;
    c->p++;
    skip_space(c);
    return OK;
}

/* After a member: 1 another follows, 0 the object ended, BAD. */
static int next_member(struct cur *c, unsigned char close)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ',') {
        c->p++;
        return 1;
    }
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return 0;
    }
    return BAD;
}

/* An object's members, each to fn (which reads or skips its value). */
static int object_at(struct ng_kineto_scan *sc, struct cur *c, int depth,
                     int (*fn)(struct ng_kineto_scan *, struct cur *,
                               const struct ng_kineto_span *, void *, int),
                     void *ctx)
{
    if (depth + 1 > DEPTH_MAX)
        return BAD;
    if (c->p >= c->end || *c->p != '{')
        return BAD;
    c->p++;
    skip_space(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return OK;
    }
    for (;;) {
        struct ng_kineto_span k;
        if (key_at(sc, c, &k) != OK || fn(sc, c, &k, ctx, depth + 1) != OK)
            return BAD;
        int more = next_member(c, '}');
        if (more < 0)
            return BAD;
        if (!more)
            return OK;
    }
}

/* ---- one event ---- */

static int args_member(struct ng_kineto_scan *sc, struct cur *c,
                       const struct ng_kineto_span *k, void *ctx, int depth)
{
    struct ng_kineto_event *e = ctx;
    (void)sc;
    if (key_is(k, "correlation", 11))
        return int_member(c, &e->corr, &e->has_corr, depth);
    if (key_is(k, "device", 6))
        return int_member(c, &e->device, &e->has_device, depth);
    return skip(c, depth);
}

/* A time member: its text, kept to be read when the event is one the gate
 * uses; anything but a number is refused. */
static int time_member(struct ng_kineto_scan *sc, struct cur *c, struct ng_kineto_span *s, int *has,
                       const char *what)
{
    int is;
    if (!is_number_start(c))
        return ng_kineto_scan_semantic(sc, "an event whose \"%s\" is not a number", what);
    if (number_at(c, s, &is) != OK)
        return BAD;
    *has = 1;
    return OK;
}

/* A process or thread id: a number, or a name (a named process or thread
 * in some traces), which stands as a hash of its text. */
static int id_member(struct ng_kineto_scan *sc, struct cur *c, int64_t *v, int *has, int depth)
{
    if (c->p < c->end && *c->p == '"') {
        struct ng_kineto_span s;
        if (string_at(c, &s) != OK)
            return BAD;
        span_decode(sc, &s);
        *v = (int64_t)(ng_hash(s.at, s.len) >> 2);
        *has = 1;
        return OK;
    }
    return int_member(c, v, has, depth);
}

static int event_member(struct ng_kineto_scan *sc, struct cur *c,
                        const struct ng_kineto_span *k, void *ctx, int depth)
{
    struct ng_kineto_event *e = ctx;
    struct ng_kineto_span s;

    switch (k->len) {
    case 2:
        if (key_is(k, "ph", 2)) {
            if (c->p >= c->end || *c->p != '"')
                return skip(c, depth);
            if (string_at(c, &s) != OK)
                return BAD;
            span_decode(sc, &s);
            e->has_ph = s.len == 1;
            e->ph = s.len ? s.at[0] : 0;
            return OK;
        }
        if (key_is(k, "ts", 2))
            return time_member(sc, c, &e->ts, &e->has_ts, "ts");
        break;
    case 3:
        if (key_is(k, "cat", 3)) {
            e->cat = NULL;
            if (c->p >= c->end || *c->p != '"')
                return skip(c, depth);
            if (string_at(c, &s) != OK)
                return BAD;
            span_decode(sc, &s);
            for (size_t i = 0; i < N_CATEGORIES; i++)
                if (span_is(&s, categories[i].cat))
                    e->cat = &categories[i];
            return OK;
        }
        if (key_is(k, "dur", 3))
            return time_member(sc, c, &e->dur, &e->has_dur, "dur");
        if (key_is(k, "pid", 3))
            return id_member(sc, c, &e->pid, &e->has_pid, depth);
        if (key_is(k, "tid", 3))
            return id_member(sc, c, &e->tid, &e->has_tid, depth);
        break;
    case 4:
        if (key_is(k, "name", 4)) {
            e->has_name = 0;
            if (c->p >= c->end || *c->p != '"')
                return skip(c, depth);
            if (string_at(c, &e->name) != OK)
                return BAD;
            e->has_name = 1;
            return OK;
        }
        if (key_is(k, "args", 4)) {
            e->has_corr = e->has_device = 0;
            if (c->p < c->end && *c->p == '{')
                return object_at(sc, c, depth, args_member, e);
            return skip(c, depth);
        }
        break;
    }
    return skip(c, depth);
}

static const char *event_word(const struct ng_kineto_event *e)
{
    if (!e->cat)
        return "an event";
    switch (e->cat->role) {
    case NG_KINETO_WORK: return e->cat->kind == NG_WORK_KERNEL ? "a kernel" : "a memory operation";
    case NG_KINETO_CALL: return "a launch call";
    default: return "a range";
    }
}

int ng_kineto_scan_times(struct ng_kineto_scan *sc, const struct ng_kineto_event *e,
                         int64_t *start, int64_t *end)
{
    const char *what = event_word(e);
    int64_t dur;
    if (!e->has_ts)
        return ng_kineto_scan_semantic(sc, "%s without \"ts\"", what);
    if (!e->has_dur)
        return ng_kineto_scan_semantic(sc, "%s without \"dur\"", what);
    if (ng_kineto_scan_time_ns((const char *)e->ts.at, e->ts.len, 3, start) < 0)
        return ng_kineto_scan_semantic(sc, "%s whose \"ts\" (%.*s us) is past 64 bits of "
                                       "nanoseconds", what,
                                       (int)(e->ts.len > 40 ? 40 : e->ts.len), e->ts.at);
    if (ng_kineto_scan_time_ns((const char *)e->dur.at, e->dur.len, 3, &dur) < 0)
        return ng_kineto_scan_semantic(sc, "%s whose \"dur\" is past 64 bits of nanoseconds",
                                       what);
    if (dur < 0)
        return ng_kineto_scan_semantic(sc, "%s with a negative duration (\"dur\": %.*s)", what,
                                       (int)(e->dur.len > 40 ? 40 : e->dur.len), e->dur.at);
    if (__builtin_add_overflow(*start, dur, end))
        return ng_kineto_scan_semantic(sc, "%s that ends past 64 bits of nanoseconds", what);
    return OK;
}

static int event_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    struct ng_kineto_event e;
    (void)ctx;
    memset(&e, 0, sizeof e);
    skip_space(c);
    if (object_at(sc, c, 2, event_member, &e) != OK)
        return BAD;
    sc->events++;
    if (sc->event(sc->ctx, &e) != OK) {
        sc->events--;   /* said with its number below */
        return BAD;
    }
    return OK;
}

/* ---- the metadata ---- */

static int device_member(struct ng_kineto_scan *sc, struct cur *c,
                         const struct ng_kineto_span *k, void *ctx, int depth)
{
    struct ng_kineto_span *name = ctx;
    (void)sc;
    if (key_is(k, "name", 4) && c->p < c->end && *c->p == '"')
        return string_at(c, name);
    return skip(c, depth);
}

/* "deviceProperties": [{"id": 0, "name": "NVIDIA A100-...", ...}, ...] */
static int devices_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    size_t before = sc->gpus.len;
    (void)ctx;
    if (c->p >= c->end || *c->p != '[')
        return skip(c, 1);
    c->p++;
    skip_space(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return OK;
    }
    for (;;) {
        struct ng_kineto_span name = { NULL, 0, 0 };
        skip_space(c);
        int r = c->p < c->end && *c->p == '{' ? object_at(sc, c, 2, device_member, &name)
                                              : skip(c, 2);
        if (r != OK) {
            sc->gpus.len = before;   /* read again whole */
            return BAD;
        }
        if (name.at && name.len) {
            struct ng_buf text = NG_BUF_INIT;
            ng_kineto_scan_text(&name, &text);
            ng_buf_add(&sc->gpus, text.data, text.len);
            ng_buf_add(&sc->gpus, "\n", 1);
            ng_buf_release(&text);
        }
        int more = next_member(c, ']');
        if (more < 0) {
            sc->gpus.len = before;
            return BAD;
        }
        if (!more)
            return OK;
    }
}

struct dist {
    int64_t rank, world_size;
    int has_rank, has_world;
};

static int dist_member(struct ng_kineto_scan *sc, struct cur *c,
                       const struct ng_kineto_span *k, void *ctx, int depth)
{
    struct dist *d = ctx;
    (void)sc;
    if (key_is(k, "rank", 4))
        return int_member(c, &d->rank, &d->has_rank, depth);
    if (key_is(k, "world_size", 10))
        return int_member(c, &d->world_size, &d->has_world, depth);
    return skip(c, depth);
}

/* "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8} */
static int dist_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    struct dist d = { -1, -1, 0, 0 };
    (void)ctx;
    if (c->p >= c->end || *c->p != '{')
        return skip(c, 1);
    if (object_at(sc, c, 1, dist_member, &d) != OK)
        return BAD;
    sc->rank = d.has_rank && d.rank >= 0 ? d.rank : -1;
    sc->world_size = d.has_world && d.world_size > 0 ? d.world_size : -1;
    return OK;
}

static int skip_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    (void)sc;
    (void)ctx;
    return skip(c, 1);
}

/* ---- the document, one unit at a time ---- */

typedef int (*unit_fn)(struct ng_kineto_scan *sc, struct cur *c, void *ctx);

/* Why the byte a scan stopped at is wrong, when the byte says it: JSON
 * escapes control characters and is UTF-8 (RFC 8259 7 and 8.1). */
static const char *bad_byte(struct ng_kineto_scan *sc, const unsigned char *at)
{
    if (at >= sc->in.buf + sc->in.len || (*at >= 0x20 && *at < 0x80))
        return "";
    snprintf(sc->why_buf, sizeof sc->why_buf,
             *at < 0x20 ? " (a raw control character 0x%02X, which JSON escapes)"
                        : " (byte 0x%02X is not UTF-8)", *at);
    return sc->why_buf;
}

static int syntax_error(struct ng_kineto_scan *sc, const unsigned char *at, int cut)
{
    struct ng_buf where = NG_BUF_INIT;
    if (sc->trace_events == 1)
        ng_buf_addf(&where, ", in event %" PRId64 " of traceEvents", sc->events + 1);
    if (cut)
        ng_err_set(sc->err, "'%s' is a truncated JSON file: it ends inside %s (after %" PRId64
                   " bytes of JSON%s)", sc->shown,
                   sc->trace_events == 1 ? "the traceEvents array" : "the top-level object",
                   offset_of(sc, sc->in.buf + sc->in.len), where.len ? where.data : "");
    else
        ng_err_set(sc->err, "'%s' is not valid JSON at byte %" PRId64 "%s%s", sc->shown,
                   offset_of(sc, at), where.len ? where.data : "", bad_byte(sc, at));
    ng_buf_release(&where);
    return -1;
}

/* Runs fn on the text at the window's start, reading more and again while
 * the text ends inside what fn reads (fn has no effect until it returns
 * OK).  fn says CUT itself, or BAD: then a problem of valid JSON is fn's
 * to name (sc->why), else the scanner tells, from `depth` on, whether
 * the text was cut short (read on, or a truncated file) or is wrong. */
static int unit(struct ng_kineto_scan *sc, unit_fn fn, void *ctx, int depth)
{
    for (;;) {
        struct ng_gzip_input *in = &sc->in;
        struct cur c = { in->buf + in->pos, in->buf + in->len };
        sc->why = NULL;
        int r = fn(sc, &c, ctx);
        if (r == OK) {
            in->pos = (size_t)(c.p - in->buf);
            return 0;
        }
        if (sc->fatal)
            return -1;
        const unsigned char *at = ng_json_space_end(in->buf + in->pos, in->buf + in->len);
        enum ng_json_skip_result s = r == CUT ? NG_JSON_CUT
                                     : ng_json_skip(&at, in->buf + in->len, depth, DEPTH_MAX,
                                                    NUMBER_MAX, NG_JSON_STRICT);
        if (sc->why && s != NG_JSON_CUT)
            return ng_err_set(sc->err, "'%s': event %" PRId64 " of traceEvents (byte %" PRId64
                              ") is %s", sc->shown, sc->events + 1,
                              offset_of(sc, in->buf + in->pos), sc->why);
        if (s == NG_JSON_BAD && at < in->buf + in->len && (*at == '{' || *at == '['))
            return ng_err_set(sc->err, "'%s' nests JSON deeper than %d levels at byte %" PRId64
                              " (no trace does); refusing it", sc->shown, DEPTH_MAX,
                              offset_of(sc, at));
        if (s == NG_JSON_BAD)
            return syntax_error(sc, at, 0);
        if (s == NG_JSON_OK)   /* valid, yet not what fn reads */
            return syntax_error(sc, in->buf + in->pos, 0);
        if (in->eof)
            return syntax_error(sc, at, 1);
        if (ng_gzip_fill(in, sc->shown, sc->err) < 0)
            return -1;
    }
}

/* A punctuation step: white space, then one of `want` (its byte into
 * *got), cut short or wrong like any unit. */
struct punct {
    const char *want;
    unsigned char got;
};

static int punct_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    struct punct *pu = ctx;
    (void)sc;
    skip_space(c);
    if (c->p >= c->end)
        return CUT;
    if (!strchr(pu->want, *c->p) || !*c->p)
        return BAD;
    pu->got = *c->p++;
    return OK;
}

static int punct(struct ng_kineto_scan *sc, const char *want, unsigned char *got)
{
    struct punct pu = { want, 0 };
    for (;;) {
        struct ng_gzip_input *in = &sc->in;
        struct cur c = { in->buf + in->pos, in->buf + in->len };
        int r = punct_unit(sc, &c, &pu);
        if (r == OK) {
            in->pos = (size_t)(c.p - in->buf);
            *got = pu.got;
            return 0;
        }
        if (r == BAD)
            return syntax_error(sc, c.p, 0);
        in->pos = (size_t)(c.p - in->buf);   /* the white space is read */
        if (in->eof)
            return syntax_error(sc, c.p, 1);
        if (ng_gzip_fill(in, sc->shown, sc->err) < 0)
            return -1;
    }
}

struct key_ctx {
    char key[32];            /* the key when it is one of the few read, else "" */
};

static int key_unit(struct ng_kineto_scan *sc, struct cur *c, void *ctx)
{
    struct key_ctx *k = ctx;
    struct ng_kineto_span s = { NULL, 0, 0 };
    if (key_at(sc, c, &s) != OK)
        return c->p >= c->end && s.at ? CUT : BAD;
    snprintf(k->key, sizeof k->key, "%.*s", s.len < sizeof k->key ? (int)s.len : 0, s.at);
    return OK;
}

static int trace_events(struct ng_kineto_scan *sc)
{
    unsigned char got;
    if (sc->trace_events)
        return ng_err_set(sc->err, "'%s' has two \"traceEvents\" arrays", sc->shown);
    sc->trace_events = 1;
    if (punct(sc, "[", &got) < 0 || punct(sc, "]{", &got) < 0)
        return -1;
    if (got == ']')
        goto done;
    sc->in.pos--;   /* the event's '{' */
    for (;;) {
        if (unit(sc, event_unit, NULL, 2) < 0 || punct(sc, ",]", &got) < 0)
            return -1;
        if (got == ']')
            goto done;
    }
done:
    sc->trace_events = 2;
    return 0;
}

static int read_document(struct ng_kineto_scan *sc)
{
    unsigned char got;
    struct ng_gzip_input *in = &sc->in;

    if (ng_gzip_fill(in, sc->shown, sc->err) < 0)
        return -1;
    if (in->len >= 3 && memcmp(in->buf, "\xEF\xBB\xBF", 3) == 0)
        in->pos = 3;   /* a byte-order mark */
    struct cur c = { in->buf + in->pos, in->buf + in->len };
    skip_space(&c);
    if (c.p < c.end && *c.p != '{')
        return ng_err_set(sc->err, "'%s' is %snot a JSON object (a Chrome trace from "
                          "torch.profiler starts with '{')", sc->shown,
                          in->gz ? "gzip-compressed but " : "");
    if (punct(sc, "{", &got) < 0 || punct(sc, "}\"", &got) < 0)
        return -1;
    if (got == '"')
        in->pos--;   /* the key's quote: the key is read whole below */
    while (got != '}') {
        struct key_ctx k;
        if (unit(sc, key_unit, &k, 1) < 0)
            return -1;
        int r = strcmp(k.key, "traceEvents") == 0        ? trace_events(sc)
                 : strcmp(k.key, "deviceProperties") == 0 ? unit(sc, devices_unit, NULL, 1)
                 : strcmp(k.key, "distributedInfo") == 0  ? unit(sc, dist_unit, NULL, 1)
                                                          : unit(sc, skip_unit, NULL, 1);
        if (r < 0 || punct(sc, ",}", &got) < 0)
            return -1;
        if (got == ',' && punct(sc, "\"", &got) == 0)
            in->pos--;
        else if (got == ',')
            return -1;
    }
    /* nothing but white space after it */
    for (;;) {
        struct cur t = { in->buf + in->pos, in->buf + in->len };
        skip_space(&t);
        if (t.p < t.end)
            return ng_err_set(sc->err, "'%s' has text after its JSON object (byte %" PRId64 ")",
                              sc->shown, offset_of(sc, t.p));
        in->pos = in->len;
        if (in->eof)
            break;
        if (ng_gzip_fill(in, sc->shown, sc->err) < 0)
            return -1;
    }
    if (!sc->trace_events)
        return ng_err_set(sc->err, "'%s' is a JSON object without \"traceEvents\": not a "
                          "Chrome trace of torch.profiler (Kineto)", sc->shown);
    return 0;
}

void ng_kineto_scan_init(struct ng_kineto_scan *sc, const char *shown, struct ng_err *err,
                         int (*event)(void *ctx, const struct ng_kineto_event *e), void *ctx)
{
    memset(sc, 0, sizeof *sc);
    sc->in.fd = -1;
    sc->shown = shown;
    sc->err = err;
    sc->event = event;
    sc->ctx = ctx;
    sc->rank = sc->world_size = -1;
}

int ng_kineto_scan_read(struct ng_kineto_scan *sc, const char *path)
{
    if (ng_gzip_open(&sc->in, path, sc->err) < 0)
        return -1;
    return read_document(sc);
}

void ng_kineto_scan_release(struct ng_kineto_scan *sc)
{
    ng_gzip_close(&sc->in);
    ng_buf_release(&sc->key);
    ng_buf_release(&sc->value);
    ng_buf_release(&sc->gpus);
}
