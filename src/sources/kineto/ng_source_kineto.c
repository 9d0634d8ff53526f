/* The torch.profiler (Kineto) Chrome-trace backend: one JSON object with
 * "traceEvents", plain or gzip (the only file that talks to zlib).
 *
 * The file is read once, as a stream: a window of the (inflated) text is
 * scanned in place (util/ng_json_scan.h) one event at a time, and grows
 * only while one event does not fit, up to UNIT_MAX.  No tree is built;
 * what is kept is the table of work items and, when an epoch projection
 * or gpu-busy needs them, one small row per GPU operation and per launch
 * call.
 *
 * Kinds: "kernel" events are kernels (a CUDA graph's replayed kernels
 * are kernels too), "gpu_memcpy" and "gpu_memset" memory operations,
 * named as nsys names them ("[CUDA memcpy Host-to-Device]", "[CUDA
 * memset]").  Times: "ts" and "dur" are microseconds in decimal text,
 * read straight into integer nanoseconds (ng_kineto_time_ns), never
 * through a double.
 *
 * Epochs feed the NVTX projection (core/ng_nvtx.c) with what it takes
 * from an nsys export: ranges (user_annotation and cpu_op events), the
 * launch calls (cuda_runtime / cuda_driver, by args.correlation) and the
 * work.  A step is a window over the whole process (the backward pass
 * runs on another thread), so every range and call of a process is
 * given to the projection as one thread's, and a call as the instant it
 * started: a kernel belongs to the range in which its launch started. */
#include "sources/kineto/ng_source_kineto.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <zlib.h>

#include "core/ng_comm.h"
#include "core/ng_nvtx.h"
#include "core/ng_range_groups.h"
#include "core/ng_work_pass.h"
#include "sources/ng_source_names.h"
#include "sources/ng_source_opts.h"
#include "util/ng_json_scan.h"
#include "util/ng_regex.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

#define READ_CHUNK ((size_t)256 << 10)
#define WINDOW ((size_t)1 << 20)
/* One event, or one top-level value other than traceEvents, must fit in
 * this: a longer one is refused (a huge string), not read into memory. */
#define UNIT_MAX ((size_t)32 << 20)
/* Nesting past this is refused (a trace's events are 4 or 5 deep). */
#define DEPTH_MAX NG_JSON_DEPTH_MAX
/* A number of more digits than this is not a time, an id or a count. */
#define NUMBER_MAX 256
/* Total mode: the operations between the reading and the accumulator, put
 * in order of start (torch.profiler writes them nearly so: CUPTI's buffers
 * are flushed stream by stream); 40 bytes each, two arrays, 5 MiB. */
#define REORDER_MAX ((size_t)1 << 16)
/* Where the operations are kept (NVTX mode, `ranges`, a trace too far out
 * of order for the window): at most this many, 40 bytes each (640 MiB),
 * and as many launch calls, 24 bytes each; a small gzip must not make the
 * gate run out of memory. */
#define KEPT_MAX ((size_t)1 << 24)

/* The pattern --epoch-range auto stands for in a Chrome trace: the steps
 * torch.profiler's schedule marks (ProfilerStep#N), the number as key. */
static const char auto_pattern[] = "^ProfilerStep#([0-9]+)$";

/* ---- the categories read ---- */

enum role { R_OTHER, R_WORK, R_CALL, R_RANGE };

/* The "cat" values read, as torch.profiler writes them, with the names
 * older releases (1.8-1.10) used; compared without case. */
static const struct category {
    const char *cat;
    enum role role;
    enum ng_work_kind kind;
} categories[] = {
    { "kernel", R_WORK, NG_WORK_KERNEL },
    { "gpu_memcpy", R_WORK, NG_WORK_MEMCPY },
    { "memcpy", R_WORK, NG_WORK_MEMCPY },
    { "gpu_memset", R_WORK, NG_WORK_MEMSET },
    { "memset", R_WORK, NG_WORK_MEMSET },
    { "cuda_runtime", R_CALL, NG_WORK_KERNEL },
    { "runtime", R_CALL, NG_WORK_KERNEL },
    { "cuda_driver", R_CALL, NG_WORK_KERNEL },
    { "driver", R_CALL, NG_WORK_KERNEL },
    { "user_annotation", R_RANGE, NG_WORK_KERNEL },
    { "cpu_op", R_RANGE, NG_WORK_KERNEL },
    { "operator", R_RANGE, NG_WORK_KERNEL },
};
#define N_CATEGORIES (sizeof categories / sizeof categories[0])

/* ---- times ---- */

int ng_kineto_time_ns(const char *text, size_t n, int scale, int64_t *out)
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

/* ---- the input: the file, inflated when it is gzip ---- */

struct input {
    int fd;
    int gz;
    z_stream z;
    int z_live;
    unsigned char *raw;
    int raw_eof;
    unsigned char *buf;      /* the window: buf[pos..len) not yet read */
    size_t cap, len, pos;
    int eof;                 /* the whole rest is in the window */
    int64_t base;            /* offset of buf[0] in the (inflated) text */
    int64_t raw_read;
};

/* Reads compressed bytes when zlib has none left. */
static int read_raw(struct input *in, const char *shown, struct ng_err *err)
{
    ssize_t n;
    do
        n = read(in->fd, in->raw, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
    in->raw_eof = n == 0;
    in->raw_read += n;
    in->z.next_in = in->raw;
    in->z.avail_in = (uInt)n;
    return 0;
}

/* Inflates into buf[len..cap): at least one byte, or the end. */
static int inflate_some(struct input *in, const char *shown, struct ng_err *err)
{
    size_t before = in->len;
    while (in->len == before && !in->eof) {
        if (in->z.avail_in == 0) {
            if (read_raw(in, shown, err) < 0)
                return -1;
            if (in->raw_eof) {
                if (in->z_live)
                    return ng_err_set(err, "'%s' is a truncated gzip file (it ends after %" PRId64
                                      " compressed bytes, inside the stream)", shown,
                                      in->raw_read);
                in->eof = 1;
                break;
            }
        }
        if (!in->z_live) {   /* a next gzip member (gzip files may be concatenated) */
            if (inflateReset2(&in->z, 16 + MAX_WBITS) != Z_OK)
                return ng_err_set(err, "'%s': zlib could not restart", shown);
            in->z_live = 1;
        }
        in->z.next_out = in->buf + in->len;
        in->z.avail_out = (uInt)(in->cap - in->len);
        int rc = inflate(&in->z, Z_NO_FLUSH);
        in->len = (size_t)(in->z.next_out - in->buf);
        if (rc == Z_STREAM_END)
            in->z_live = 0;
        else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
            return ng_err_set(err, "'%s' is corrupt gzip data (%s, after %" PRId64
                              " compressed bytes)", shown, in->z.msg ? in->z.msg : "bad data",
                              in->raw_read - in->z.avail_in);
        else if (rc == Z_MEM_ERROR)
            return ng_err_set(err, "'%s': zlib ran out of memory", shown);
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            return ng_err_set(err, "'%s': zlib failed (%d)", shown, rc);
    }
    return 0;
}

static int read_plain(struct input *in, const char *shown, struct ng_err *err)
{
    ssize_t n;
    do
        n = read(in->fd, in->buf + in->len, in->cap - in->len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
    in->eof = n == 0;
    in->len += (size_t)n;
    return 0;
}

/* More text after buf[pos..len): what was read moves to the front; the
 * window doubles when one unit fills it, up to UNIT_MAX. */
static int fill(struct input *in, const char *shown, struct ng_err *err)
{
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->base += (int64_t)in->pos;
        in->len -= in->pos;
        in->pos = 0;
    }
    if (in->len == in->cap) {
        if (in->cap >= UNIT_MAX)
            return ng_err_set(err, "'%s': an event (or a top-level value) at byte %" PRId64
                              " is longer than %zu MiB (a huge string?); refusing to read it",
                              shown, in->base, UNIT_MAX >> 20);
        in->cap *= 2;
        in->buf = ng_xrealloc(in->buf, in->cap);
    }
    return in->gz ? inflate_some(in, shown, err) : read_plain(in, shown, err);
}

static int input_open(struct input *in, const char *path, struct ng_err *err)
{
    unsigned char magic[2];
    memset(in, 0, sizeof *in);
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
    in->gz = pread(in->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    in->cap = WINDOW;
    in->buf = ng_xmalloc(in->cap);
    if (in->gz) {
        in->raw = ng_xmalloc(READ_CHUNK);
        if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
            return ng_err_set(err, "'%s': zlib could not start", path);
        in->z_live = 1;
    }
    return 0;
}

static void input_close(struct input *in)
{
    if (in->gz)
        inflateEnd(&in->z);
    if (in->fd >= 0)
        close(in->fd);
    free(in->raw);
    free(in->buf);
}

/* ---- the reader ---- */

struct item {
    enum ng_work_kind kind;
    size_t name_at;          /* into rd->names */
    int64_t total_ns, count;
    size_t merged;           /* the item of its shown name (--kernel-names base) */
    int state;               /* 1 counted, -1 left out by the kernel filters */
    enum ng_work_class cls;  /* for the breakdown */
};

/* One GPU operation kept for the projection or gpu-busy. */
struct work {
    int64_t start, end, corr, device;
    uint32_t item;
    int has_corr;
};

/* One launch call: its process (an index into rd->procs) and start. */
struct call {
    int64_t corr, start;
    uint32_t proc;
    int64_t thread;            /* the projection's id of its thread (thread_id()) */
};

struct place_sum {
    int64_t id, ns, launches;
};

/* A string value: its bytes as written, between the quotes. */
struct span {
    const unsigned char *at;
    size_t len;
    int escaped;
};

struct event {
    int has_ph, has_ts, has_dur, has_pid, has_tid, has_corr, has_device, has_name;
    unsigned char ph;
    const struct category *cat;
    struct span name;
    struct span ts, dur;     /* number texts */
    int64_t pid, tid, corr, device;
};

struct reader {
    const char *shown;
    const struct ng_source_opts *opts;
    struct ng_profile *p;
    struct ng_err *err;
    unsigned work;
    enum ng_metric metric;
    struct input in;
    const char *why;          /* the semantic problem of the unit being read */
    char why_buf[256];
    int64_t events;           /* events read */
    int trace_events;         /* the array was seen */
    /* items */
    struct ng_strmap item_index;   /* kind byte + name -> item */
    struct ng_strmap shown_index;  /* kind byte + shown name -> the item named so */
    int fatal;                /* rd->err is set: no syntax error to look for */
    struct item *items;
    size_t n_items;
    struct ng_buf names;      /* NUL-terminated names of the items */
    struct ng_buf scratch;    /* a name with its escapes undone, a key */
    struct ng_buf value;      /* a selecting value (cat, ph, an id) with its escapes undone */
    /* the rows kept (every one: the breakdown replays them in order), or
     * in total mode at most REORDER_MAX on their way to the accumulator
     * (reorder()) */
    int keep_rows;
    int keep_all;             /* keep them even in total mode (read again) */
    int out_of_order;         /* an operation came past the window: read again */
    struct work *window;      /* the heap: operations out of order */
    size_t n_window;
    struct work *run;         /* a ring of REORDER_MAX: operations in order of start */
    size_t run_head, n_run;
    int64_t fed;              /* the start of the last one fed: none may come before */
    int fed_any;
    struct work *works;
    size_t n_works;
    struct call *calls;
    size_t n_calls;
    struct ng_idmap procs;    /* host pid -> index */
    struct ng_idmap threads;  /* (process index, tid) -> index, for thread_id() */
    size_t n_threads;
    int64_t *proc_pid;
    size_t n_procs;
    int64_t host_pid;         /* the trace's process: of its first host event */
    int has_host;
    /* figures */
    struct ng_idmap device_index;
    struct place_sum *devices;
    size_t n_devices, last_device;
    int64_t counted_ns, counted_launches;
    struct ng_acc whole;      /* total mode, gpu-busy */
    /* NVTX mode */
    struct ng_nvtx *pj;
    struct ng_regex auto_re;
    int have_auto_re;
    int64_t unlaunched, unlaunched_ns;
    /* the machine */
    struct ng_buf gpus;       /* "\n"-separated device names */
    int64_t rank, world_size;
    struct ng_filter_account account;
    double comm_cpu;          /* CPU seconds the communication patterns took */
    /* `nsys-gate ranges`: every named range, with its times */
    struct ng_range_list *ranges;
    int64_t *range_start, *range_end;
};

struct cur {
    const unsigned char *p, *end;
};

enum { OK = 0, BAD = -1, CUT = -2 };

static int64_t offset_of(const struct reader *rd, const unsigned char *at)
{
    return rd->in.base + (int64_t)(at - rd->in.buf);
}

/* A problem found in a unit that is valid JSON: said with the unit. */
static int semantic(struct reader *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int semantic(struct reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->why_buf, sizeof rd->why_buf, fmt, ap);
    va_end(ap);
    rd->why = rd->why_buf;
    return BAD;
}

static void skip_space(struct cur *c)
{
    c->p = ng_json_space_end(c->p, c->end);
}

static int string_at(struct cur *c, struct span *s)
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
static int number_at(struct cur *c, struct span *s, int *is)
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
    struct span s;
    int is;
    if (!is_number_start(c)) {
        *has = 0;
        return skip(c, depth);
    }
    if (number_at(c, &s, &is) != OK)
        return BAD;
    *has = ng_kineto_time_ns((const char *)s.at, s.len, 0, v) == 0;
    return OK;
}

/* The value of a string span (escapes undone, NULs shown as \x00), into
 * out with a NUL. */
static void span_text(const struct span *s, struct ng_buf *out)
{
    out->len = 0;
    if (!s->escaped) {
        for (size_t i = 0; i < s->len; i++)
            if (s->at[i] == 0)
                goto slow;
        ng_buf_add(out, s->at, s->len);
        return;
    }
slow:
    ng_buf_add(out, "", 0);
    for (size_t i = 0; i < s->len; i++) {
        unsigned char ch = s->at[i];
        if (ch != '\\') {
            if (ch == 0)
                ng_buf_adds(out, "\\x00");
            else
                ng_buf_add(out, &ch, 1);
            continue;
        }
        if (s->at[i + 1] != 'u') {
            ch = ng_json_unescaped[s->at[++i]];
            ng_buf_add(out, &ch, 1);
            continue;
        }
        unsigned long cp = (unsigned long)ng_hex4((const char *)s->at + i + 2);
        i += 5;
        if (cp >= 0xD800 && cp <= 0xDBFF) {   /* checked by the scanner: a pair */
            cp = 0x10000 + ((cp - 0xD800) << 10) +
                 ((unsigned long)ng_hex4((const char *)s->at + i + 3) - 0xDC00);
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

static int span_is(const struct span *s, const char *word)
{
    size_t n = strlen(word);
    return s->len == n && strncasecmp((const char *)s->at, word, n) == 0;
}

/* A value the reader selects events by, as JSON means it: "\u006bernel"
 * is "kernel".  Only a value with a backslash is decoded (into rd->value,
 * valid until the next call), so the common plain value costs nothing. */
static void span_decode(struct reader *rd, struct span *s)
{
    if (!s->escaped)
        return;
    span_text(s, &rd->value);
    s->at = (const unsigned char *)rd->value.data;
    s->len = rd->value.len;
    s->escaped = 0;
}

static int key_is(const struct span *k, const char *word, size_t n)
{
    return k->len == n && memcmp(k->at, word, n) == 0;
}

/* A member's key; one with escapes is compared by its value. */
static int key_at(struct reader *rd, struct cur *c, struct span *k)
{
    skip_space(c);
    if (c->p >= c->end || *c->p != '"' || string_at(c, k) != OK)
        return BAD;
    if (k->escaped) {
        span_text(k, &rd->scratch);
        k->at = (const unsigned char *)rd->scratch.data;
        k->len = rd->scratch.len;
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
static int object_at(struct reader *rd, struct cur *c, int depth,
                     int (*fn)(struct reader *, struct cur *, const struct span *, void *, int),
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
        struct span k;
        if (key_at(rd, c, &k) != OK || fn(rd, c, &k, ctx, depth + 1) != OK)
            return BAD;
        int more = next_member(c, '}');
        if (more < 0)
            return BAD;
        if (!more)
            return OK;
    }
}

/* ---- one event ---- */

static int args_member(struct reader *rd, struct cur *c, const struct span *k, void *ctx,
                       int depth)
{
    struct event *e = ctx;
    (void)rd;
    if (key_is(k, "correlation", 11))
        return int_member(c, &e->corr, &e->has_corr, depth);
    if (key_is(k, "device", 6))
        return int_member(c, &e->device, &e->has_device, depth);
    return skip(c, depth);
}

/* A time member: its text, kept to be read when the event is one the gate
 * uses; anything but a number is refused. */
static int time_member(struct reader *rd, struct cur *c, struct span *s, int *has,
                       const char *what)
{
    int is;
    if (!is_number_start(c))
        return semantic(rd, "an event whose \"%s\" is not a number", what);
    if (number_at(c, s, &is) != OK)
        return BAD;
    *has = 1;
    return OK;
}

/* A process or thread id: a number, or a name (a named process or thread
 * in some traces), which stands as a hash of its text. */
static int id_member(struct reader *rd, struct cur *c, int64_t *v, int *has, int depth)
{
    if (c->p < c->end && *c->p == '"') {
        struct span s;
        if (string_at(c, &s) != OK)
            return BAD;
        span_decode(rd, &s);
        *v = (int64_t)(ng_hash(s.at, s.len) >> 2);
        *has = 1;
        return OK;
    }
    return int_member(c, v, has, depth);
}

static int event_member(struct reader *rd, struct cur *c, const struct span *k, void *ctx,
                        int depth)
{
    struct event *e = ctx;
    struct span s;

    switch (k->len) {
    case 2:
        if (key_is(k, "ph", 2)) {
            if (c->p >= c->end || *c->p != '"')
                return skip(c, depth);
            if (string_at(c, &s) != OK)
                return BAD;
            span_decode(rd, &s);
            e->has_ph = s.len == 1;
            e->ph = s.len ? s.at[0] : 0;
            return OK;
        }
        if (key_is(k, "ts", 2))
            return time_member(rd, c, &e->ts, &e->has_ts, "ts");
        break;
    case 3:
        if (key_is(k, "cat", 3)) {
            e->cat = NULL;
            if (c->p >= c->end || *c->p != '"')
                return skip(c, depth);
            if (string_at(c, &s) != OK)
                return BAD;
            span_decode(rd, &s);
            for (size_t i = 0; i < N_CATEGORIES; i++)
                if (span_is(&s, categories[i].cat))
                    e->cat = &categories[i];
            return OK;
        }
        if (key_is(k, "dur", 3))
            return time_member(rd, c, &e->dur, &e->has_dur, "dur");
        if (key_is(k, "pid", 3))
            return id_member(rd, c, &e->pid, &e->has_pid, depth);
        if (key_is(k, "tid", 3))
            return id_member(rd, c, &e->tid, &e->has_tid, depth);
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
                return object_at(rd, c, depth, args_member, e);
            return skip(c, depth);
        }
        break;
    }
    return skip(c, depth);
}

static const char *event_word(const struct event *e)
{
    if (!e->cat)
        return "an event";
    switch (e->cat->role) {
    case R_WORK: return e->cat->kind == NG_WORK_KERNEL ? "a kernel" : "a memory operation";
    case R_CALL: return "a launch call";
    default: return "a range";
    }
}

/* ts and dur of an event the gate uses, in ns. */
static int event_times(struct reader *rd, const struct event *e, int64_t *start, int64_t *end)
{
    int64_t dur;
    if (!e->has_ts)
        return semantic(rd, "%s without \"ts\"", event_word(e));
    if (!e->has_dur)
        return semantic(rd, "%s without \"dur\"", event_word(e));
    if (ng_kineto_time_ns((const char *)e->ts.at, e->ts.len, 3, start) < 0)
        return semantic(rd, "%s whose \"ts\" (%.*s us) is past 64 bits of nanoseconds",
                        event_word(e), (int)(e->ts.len > 40 ? 40 : e->ts.len), e->ts.at);
    if (ng_kineto_time_ns((const char *)e->dur.at, e->dur.len, 3, &dur) < 0)
        return semantic(rd, "%s whose \"dur\" is past 64 bits of nanoseconds", event_word(e));
    if (dur < 0)
        return semantic(rd, "%s with a negative duration (\"dur\": %.*s)", event_word(e),
                        (int)(e->dur.len > 40 ? 40 : e->dur.len), e->dur.at);
    if (__builtin_add_overflow(*start, dur, end))
        return semantic(rd, "%s that ends past 64 bits of nanoseconds", event_word(e));
    return OK;
}

/* ---- what the events become ---- */

/* The name an operation is shown by: kernels as written, copies and sets
 * as nsys's cuda_gpu_mem_time_sum names them ("Memcpy HtoD (Pageable ->
 * Device)" -> "[CUDA memcpy Host-to-Device]"). */
static void work_name(struct reader *rd, const struct event *e, struct ng_buf *out)
{
    enum ng_work_kind kind = e->cat->kind;
    out->len = 0;
    ng_buf_add(out, (char[]){ (char)('0' + kind) }, 1);
    if (kind == NG_WORK_MEMSET) {
        ng_buf_adds(out, "[CUDA memset]");
        return;
    }
    struct ng_buf name = NG_BUF_INIT;
    if (e->has_name)
        span_text(&e->name, &name);
    const char *s = name.data ? name.data : "";
    if (kind == NG_WORK_MEMCPY) {
        /* "Memcpy <K> (...)": <K> is CUPTI's short copy kind */
        size_t k = 0;
        if (strncasecmp(s, "Memcpy ", 7) == 0)
            while (s[7 + k] && s[7 + k] != ' ' && k < 32)
                k++;
        struct ng_buf old = NG_BUF_INIT;
        ng_buf_addf(&old, "[CUDA memcpy %.*s]", (int)k, k ? s + 7 : "Unknown");
        const char *now = ng_source_memcpy_name(old.data, old.len);
        ng_buf_adds(out, now ? now : old.data);
        ng_buf_release(&old);
    } else {
        ng_buf_add(out, s, name.len);
    }
    ng_buf_release(&name);
    (void)rd;
}

static int choose_item(struct reader *rd, size_t i);

/* The item of a kind byte + name key, chosen when new; -1 with rd->err
 * (and rd->fatal). */
static int64_t item_of(struct reader *rd, const struct ng_buf *key)
{
    int added;
    size_t i = ng_strmap_get(&rd->item_index, key->data, key->len, rd->n_items, &added);
    if (added) {
        rd->items = ng_xgrow(rd->items, rd->n_items, sizeof *rd->items);
        rd->items[rd->n_items] = (struct item){ (enum ng_work_kind)(key->data[0] - '0'),
                                                rd->names.len, 0, 0, rd->n_items, 0, NG_CLASS_COMPUTE };
        ng_buf_add(&rd->names, key->data + 1, key->len - 1);
        ng_buf_add(&rd->names, "", 1);
        rd->n_items++;
        if (choose_item(rd, i) < 0) {
            rd->fatal = 1;
            return -1;
        }
    }
    return (int64_t)i;
}

static struct place_sum *device_of(struct reader *rd, int64_t id)
{
    if (rd->n_devices && rd->devices[rd->last_device].id == id)
        return &rd->devices[rd->last_device];
    int added;
    size_t i = ng_idmap_get(&rd->device_index, id, 0, rd->n_devices, &added);
    if (added) {
        rd->devices = ng_xgrow(rd->devices, rd->n_devices, sizeof *rd->devices);
        rd->devices[rd->n_devices++] = (struct place_sum){ id, 0, 0 };
    }
    rd->last_device = i;
    return &rd->devices[i];
}

static int count_place(struct reader *rd, int64_t device, int64_t dur)
{
    struct place_sum *d = device_of(rd, device);
    if (__builtin_add_overflow(d->ns, dur, &d->ns) ||
        __builtin_add_overflow(rd->counted_ns, dur, &rd->counted_ns))
        return -1;
    d->launches++;
    rd->counted_launches++;
    return 0;
}

static uint32_t proc_of(struct reader *rd, int64_t pid)
{
    int added;
    size_t i = ng_idmap_get(&rd->procs, pid, 0, rd->n_procs, &added);
    if (added) {
        rd->proc_pid = ng_xgrow(rd->proc_pid, rd->n_procs, sizeof *rd->proc_pid);
        rd->proc_pid[rd->n_procs++] = pid;
    }
    return (uint32_t)i;
}

/* The thread id the projection is given for a process: every range and
 * call of a process on one "thread", so a step is a window over all of
 * its threads (the process index in the id's upper bits, as a globalTid
 * has it). */
static int64_t proc_tid(uint32_t proc)
{
    return ((int64_t)proc + 1) << 24;
}

/* The id the projection is given for an event's own thread, for the
 * ranges nested in a step (a backward pass's operators run on autograd's
 * thread, not the step's): the process's bits of proc_tid() and a number
 * for the thread below them (threads past 2^24 - 2 of a trace share the
 * last one). */
static int64_t thread_id(struct reader *rd, uint32_t proc, const struct event *e)
{
    int added;
    size_t i = ng_idmap_get(&rd->threads, proc, e->has_tid ? e->tid : 0, rd->n_threads, &added);
    rd->n_threads += (size_t)added;
    return proc_tid(proc) | (int64_t)(i < 0xFFFFFE ? i + 1 : 0xFFFFFF);
}

static void note_host(struct reader *rd, const struct event *e)
{
    if (!rd->has_host && e->has_pid) {
        rd->host_pid = e->pid;
        rd->has_host = 1;
    }
}

static int replay_one(struct reader *rd, const struct work *w);

static int too_many(struct reader *rd, const char *what)
{
    rd->fatal = 1;
    return ng_err_set(rd->err, "'%s' has more than %zu %s to keep in memory (--epoch-range, "
                      "`ranges` or operations far out of order keep each); refusing it rather "
                      "than run out of memory", rd->shown, KEPT_MAX, what);
}

/* The window of operations on their way to the accumulator: a min-heap by
 * start. */
static void heap_up(struct work *h, size_t i)
{
    struct work w = h[i];
    for (; i > 0 && h[(i - 1) / 2].start > w.start; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = w;
}

static struct work heap_pop(struct work *h, size_t *n)
{
    struct work top = h[0], w = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].start < h[c].start)
            c++;
        if (h[c].start >= w.start)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = w;
    return top;
}

/* The earliest operation of the window into the accumulator: the front
 * of the run or the top of the heap. */
static int feed_one(struct reader *rd)
{
    struct work w;
    if (rd->n_run && (!rd->n_window || rd->run[rd->run_head].start <= rd->window[0].start)) {
        w = rd->run[rd->run_head];
        rd->run_head = (rd->run_head + 1) % REORDER_MAX;
        rd->n_run--;
    } else {
        w = heap_pop(rd->window, &rd->n_window);
    }
    rd->fed = w.start;
    rd->fed_any = 1;
    if (replay_one(rd, &w) < 0) {
        rd->fatal = 1;
        return ng_err_set(rd->err, "'%s' has GPU work whose time overflows 64 bits", rd->shown);
    }
    return OK;
}

/* Total mode: an operation counted in bounded memory, through a window of
 * REORDER_MAX: one in order of start after the last of the run joins it
 * (the common case, no sorting), any other the heap.  One that starts
 * before an operation already fed came further out of order than the
 * window holds: the trace is read again with every operation kept. */
static int reorder(struct reader *rd, const struct work *w)
{
    if (rd->fed_any && w->start < rd->fed) {
        rd->out_of_order = rd->fatal = 1;
        return BAD;
    }
    if (!rd->window) {
        rd->window = ng_xmalloc(REORDER_MAX * sizeof *rd->window);
        rd->run = ng_xmalloc(REORDER_MAX * sizeof *rd->run);
    }
    if (rd->n_run + rd->n_window == REORDER_MAX && feed_one(rd) < 0)
        return BAD;
    size_t last = (rd->run_head + rd->n_run + REORDER_MAX - 1) % REORDER_MAX;
    if (!rd->n_run || w->start >= rd->run[last].start) {
        rd->run[(rd->run_head + rd->n_run) % REORDER_MAX] = *w;
        rd->n_run++;
    } else {
        rd->window[rd->n_window++] = *w;
        heap_up(rd->window, rd->n_window - 1);
    }
    return OK;
}

static int take_work(struct reader *rd, const struct event *e, int64_t start, int64_t end)
{
    enum ng_work_kind kind = e->cat->kind;
    int64_t dur = end - start;

    if (!(rd->work & NG_WORK_BIT(kind))) {
        if (__builtin_add_overflow(rd->p->left_out_ns[kind], dur, &rd->p->left_out_ns[kind]))
            return semantic(rd, "left-out work whose time overflows 64 bits");
        rd->p->left_out_launches[kind]++;
        return OK;
    }
    work_name(rd, e, &rd->scratch);
    int64_t found = item_of(rd, &rd->scratch);
    if (found < 0)
        return BAD;
    uint32_t i = (uint32_t)found;
    /* a GPU event's pid is its device in Kineto's layout; args.device says it */
    int64_t device = e->has_device ? e->device : e->has_pid ? e->pid : 0;
    struct work w = { start, end, e->corr, device, i, e->has_corr };
    if (!rd->keep_rows)
        return reorder(rd, &w);
    if (rd->n_works >= KEPT_MAX)
        return too_many(rd, "GPU operations");
    rd->works = ng_xgrow(rd->works, rd->n_works, sizeof *rd->works);
    rd->works[rd->n_works++] = w;
    return OK;
}

/* One range for `nsys-gate ranges`; its process is its thread, as for
 * the epochs. */
static void list_range(struct reader *rd, int64_t start, int64_t end, int64_t tid,
                       const char *text)
{
    struct ng_range_list *l = rd->ranges;
    l->r = ng_xgrow(l->r, l->n, sizeof *l->r);
    rd->range_start = ng_xgrow(rd->range_start, l->n, sizeof *rd->range_start);
    rd->range_end = ng_xgrow(rd->range_end, l->n, sizeof *rd->range_end);
    rd->range_start[l->n] = start;
    rd->range_end[l->n] = end;
    l->r[l->n++] = (struct ng_range_in){ ng_arena_strdup(&l->texts, text), (uint64_t)tid, 0, 0 };
}

static int take_event(struct reader *rd, const struct event *e)
{
    int64_t start = 0, end = 0;

    if (!e->cat || e->ph != 'X' || !e->has_ph)
        return OK;
    if (e->cat->role != R_WORK)
        note_host(rd, e);
    if (e->cat->role == R_CALL && ((!rd->pj && !rd->ranges) || !e->has_corr))
        return OK;   /* calls matter to ranges only, and only with the id that ties them */
    if (e->cat->role == R_RANGE && !rd->pj && !rd->ranges)
        return OK;
    if (event_times(rd, e, &start, &end) != OK)
        return BAD;
    switch (e->cat->role) {
    case R_WORK:
        return take_work(rd, e, start, end);
    case R_CALL: {
        uint32_t proc = proc_of(rd, e->has_pid ? e->pid : 0);
        if (rd->n_calls >= KEPT_MAX)
            return too_many(rd, "launch calls");
        rd->calls = ng_xgrow(rd->calls, rd->n_calls, sizeof *rd->calls);
        rd->calls[rd->n_calls++] = (struct call){ e->corr, start, proc,
                                                  rd->pj ? thread_id(rd, proc, e) : 0 };
        return OK;
    }
    case R_RANGE:
        if (e->has_name) {
            uint32_t proc = proc_of(rd, e->has_pid ? e->pid : 0);
            int64_t tid = proc_tid(proc);
            span_text(&e->name, &rd->scratch);
            if (rd->pj)   /* a step spans the process's threads; nesting is a thread's */
                ng_nvtx_range_on(rd->pj, start, end, tid, thread_id(rd, proc, e),
                                 rd->scratch.data);
            if (rd->ranges)
                list_range(rd, start, end, tid, rd->scratch.data);
        }
        return OK;
    default:
        return OK;
    }
}

static int event_unit(struct reader *rd, struct cur *c, void *ctx)
{
    struct event e;
    (void)ctx;
    memset(&e, 0, sizeof e);
    skip_space(c);
    if (object_at(rd, c, 2, event_member, &e) != OK)
        return BAD;
    rd->events++;
    if (take_event(rd, &e) != OK) {
        rd->events--;   /* said with its number below */
        return BAD;
    }
    return OK;
}

/* ---- the metadata ---- */

static int device_member(struct reader *rd, struct cur *c, const struct span *k, void *ctx,
                         int depth)
{
    struct span *name = ctx;
    (void)rd;
    if (key_is(k, "name", 4) && c->p < c->end && *c->p == '"')
        return string_at(c, name);
    return skip(c, depth);
}

/* "deviceProperties": [{"id": 0, "name": "NVIDIA A100-...", ...}, ...] */
static int devices_unit(struct reader *rd, struct cur *c, void *ctx)
{
    size_t before = rd->gpus.len;
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
        struct span name = { NULL, 0, 0 };
        skip_space(c);
        int r = c->p < c->end && *c->p == '{' ? object_at(rd, c, 2, device_member, &name)
                                              : skip(c, 2);
        if (r != OK) {
            rd->gpus.len = before;   /* read again whole */
            return BAD;
        }
        if (name.at && name.len) {
            struct ng_buf text = NG_BUF_INIT;
            span_text(&name, &text);
            ng_buf_add(&rd->gpus, text.data, text.len);
            ng_buf_add(&rd->gpus, "\n", 1);
            ng_buf_release(&text);
        }
        int more = next_member(c, ']');
        if (more < 0) {
            rd->gpus.len = before;
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

static int dist_member(struct reader *rd, struct cur *c, const struct span *k, void *ctx,
                       int depth)
{
    struct dist *d = ctx;
    (void)rd;
    if (key_is(k, "rank", 4))
        return int_member(c, &d->rank, &d->has_rank, depth);
    if (key_is(k, "world_size", 10))
        return int_member(c, &d->world_size, &d->has_world, depth);
    return skip(c, depth);
}

/* "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8} */
static int dist_unit(struct reader *rd, struct cur *c, void *ctx)
{
    struct dist d = { -1, -1, 0, 0 };
    (void)ctx;
    if (c->p >= c->end || *c->p != '{')
        return skip(c, 1);
    if (object_at(rd, c, 1, dist_member, &d) != OK)
        return BAD;
    rd->rank = d.has_rank && d.rank >= 0 ? d.rank : -1;
    rd->world_size = d.has_world && d.world_size > 0 ? d.world_size : -1;
    return OK;
}

static int skip_unit(struct reader *rd, struct cur *c, void *ctx)
{
    (void)rd;
    (void)ctx;
    return skip(c, 1);
}

/* ---- the document, one unit at a time ---- */

typedef int (*unit_fn)(struct reader *rd, struct cur *c, void *ctx);

/* Why the byte a scan stopped at is wrong, when the byte says it: JSON
 * escapes control characters and is UTF-8 (RFC 8259 7 and 8.1). */
static const char *bad_byte(struct reader *rd, const unsigned char *at)
{
    if (at >= rd->in.buf + rd->in.len || (*at >= 0x20 && *at < 0x80))
        return "";
    snprintf(rd->why_buf, sizeof rd->why_buf,
             *at < 0x20 ? " (a raw control character 0x%02X, which JSON escapes)"
                        : " (byte 0x%02X is not UTF-8)", *at);
    return rd->why_buf;
}

static int syntax_error(struct reader *rd, const unsigned char *at, int cut)
{
    struct ng_buf where = NG_BUF_INIT;
    if (rd->trace_events == 1)
        ng_buf_addf(&where, ", in event %" PRId64 " of traceEvents", rd->events + 1);
    if (cut)
        ng_err_set(rd->err, "'%s' is a truncated JSON file: it ends inside %s (after %" PRId64
                   " bytes of JSON%s)", rd->shown,
                   rd->trace_events == 1 ? "the traceEvents array" : "the top-level object",
                   offset_of(rd, rd->in.buf + rd->in.len), where.len ? where.data : "");
    else
        ng_err_set(rd->err, "'%s' is not valid JSON at byte %" PRId64 "%s%s", rd->shown,
                   offset_of(rd, at), where.len ? where.data : "", bad_byte(rd, at));
    ng_buf_release(&where);
    return -1;
}

/* Runs fn on the text at the window's start, reading more and again while
 * the text ends inside what fn reads (fn has no effect until it returns
 * OK).  fn says CUT itself, or BAD: then a problem of valid JSON is fn's
 * to name (rd->why), else the scanner tells, from `depth` on, whether
 * the text was cut short (read on, or a truncated file) or is wrong. */
static int unit(struct reader *rd, unit_fn fn, void *ctx, int depth)
{
    for (;;) {
        struct input *in = &rd->in;
        struct cur c = { in->buf + in->pos, in->buf + in->len };
        rd->why = NULL;
        int r = fn(rd, &c, ctx);
        if (r == OK) {
            in->pos = (size_t)(c.p - in->buf);
            return 0;
        }
        if (rd->fatal)
            return -1;
        const unsigned char *at = ng_json_space_end(in->buf + in->pos, in->buf + in->len);
        enum ng_json_skip_result s = r == CUT ? NG_JSON_CUT
                                     : ng_json_skip(&at, in->buf + in->len, depth, DEPTH_MAX,
                                                    NUMBER_MAX, NG_JSON_STRICT);
        if (rd->why && s != NG_JSON_CUT)
            return ng_err_set(rd->err, "'%s': event %" PRId64 " of traceEvents (byte %" PRId64
                              ") is %s", rd->shown, rd->events + 1,
                              offset_of(rd, in->buf + in->pos), rd->why);
        if (s == NG_JSON_BAD && at < in->buf + in->len && (*at == '{' || *at == '['))
            return ng_err_set(rd->err, "'%s' nests JSON deeper than %d levels at byte %" PRId64
                              " (no trace does); refusing it", rd->shown, DEPTH_MAX,
                              offset_of(rd, at));
        if (s == NG_JSON_BAD)
            return syntax_error(rd, at, 0);
        if (s == NG_JSON_OK)   /* valid, yet not what fn reads */
            return syntax_error(rd, in->buf + in->pos, 0);
        if (in->eof)
            return syntax_error(rd, at, 1);
        if (fill(in, rd->shown, rd->err) < 0)
            return -1;
    }
}

/* A punctuation step: white space, then one of `want` (its byte into
 * *got), cut short or wrong like any unit. */
struct punct {
    const char *want;
    unsigned char got;
};

static int punct_unit(struct reader *rd, struct cur *c, void *ctx)
{
    struct punct *pu = ctx;
    (void)rd;
    skip_space(c);
    if (c->p >= c->end)
        return CUT;
    if (!strchr(pu->want, *c->p) || !*c->p)
        return BAD;
    pu->got = *c->p++;
    return OK;
}

static int punct(struct reader *rd, const char *want, unsigned char *got)
{
    struct punct pu = { want, 0 };
    for (;;) {
        struct input *in = &rd->in;
        struct cur c = { in->buf + in->pos, in->buf + in->len };
        int r = punct_unit(rd, &c, &pu);
        if (r == OK) {
            in->pos = (size_t)(c.p - in->buf);
            *got = pu.got;
            return 0;
        }
        if (r == BAD)
            return syntax_error(rd, c.p, 0);
        in->pos = (size_t)(c.p - in->buf);   /* the white space is read */
        if (in->eof)
            return syntax_error(rd, c.p, 1);
        if (fill(in, rd->shown, rd->err) < 0)
            return -1;
    }
}

struct key_ctx {
    char key[32];            /* the key when it is one of the few read, else "" */
};

static int key_unit(struct reader *rd, struct cur *c, void *ctx)
{
    struct key_ctx *k = ctx;
    struct span s = { NULL, 0, 0 };
    if (key_at(rd, c, &s) != OK)
        return c->p >= c->end && s.at ? CUT : BAD;
    snprintf(k->key, sizeof k->key, "%.*s", s.len < sizeof k->key ? (int)s.len : 0, s.at);
    return OK;
}

static int trace_events(struct reader *rd)
{
    unsigned char got;
    if (rd->trace_events)
        return ng_err_set(rd->err, "'%s' has two \"traceEvents\" arrays", rd->shown);
    rd->trace_events = 1;
    if (punct(rd, "[", &got) < 0 || punct(rd, "]{", &got) < 0)
        return -1;
    if (got == ']')
        goto done;
    rd->in.pos--;   /* the event's '{' */
    for (;;) {
        if (unit(rd, event_unit, NULL, 2) < 0 || punct(rd, ",]", &got) < 0)
            return -1;
        if (got == ']')
            goto done;
    }
done:
    rd->trace_events = 2;
    return 0;
}

static int read_document(struct reader *rd)
{
    unsigned char got;
    struct input *in = &rd->in;

    if (fill(in, rd->shown, rd->err) < 0)
        return -1;
    if (in->len >= 3 && memcmp(in->buf, "\xEF\xBB\xBF", 3) == 0)
        in->pos = 3;   /* a byte-order mark */
    struct cur c = { in->buf + in->pos, in->buf + in->len };
    skip_space(&c);
    if (c.p < c.end && *c.p != '{')
        return ng_err_set(rd->err, "'%s' is %snot a JSON object (a Chrome trace from "
                          "torch.profiler starts with '{')", rd->shown,
                          in->gz ? "gzip-compressed but " : "");
    if (punct(rd, "{", &got) < 0 || punct(rd, "}\"", &got) < 0)
        return -1;
    if (got == '"')
        in->pos--;   /* the key's quote: the key is read whole below */
    while (got != '}') {
        struct key_ctx k;
        if (unit(rd, key_unit, &k, 1) < 0)
            return -1;
        int r = strcmp(k.key, "traceEvents") == 0        ? trace_events(rd)
                 : strcmp(k.key, "deviceProperties") == 0 ? unit(rd, devices_unit, NULL, 1)
                 : strcmp(k.key, "distributedInfo") == 0  ? unit(rd, dist_unit, NULL, 1)
                                                          : unit(rd, skip_unit, NULL, 1);
        if (r < 0 || punct(rd, ",}", &got) < 0)
            return -1;
        if (got == ',' && punct(rd, "\"", &got) == 0)
            in->pos--;
        else if (got == ',')
            return -1;
    }
    /* nothing but white space after it */
    for (;;) {
        struct cur t = { in->buf + in->pos, in->buf + in->len };
        skip_space(&t);
        if (t.p < t.end)
            return ng_err_set(rd->err, "'%s' has text after its JSON object (byte %" PRId64 ")",
                              rd->shown, offset_of(rd, t.p));
        in->pos = in->len;
        if (in->eof)
            break;
        if (fill(in, rd->shown, rd->err) < 0)
            return -1;
    }
    if (!rd->trace_events)
        return ng_err_set(rd->err, "'%s' is a JSON object without \"traceEvents\": not a "
                          "Chrome trace of torch.profiler (Kineto)", rd->shown);
    return 0;
}

/* ---- after the reading ---- */

static const char *item_name(const struct reader *rd, const struct item *it)
{
    return rd->names.data + it->name_at;
}

/* An item's class for the breakdown: kernels by their shown name. */
static int classify(struct reader *rd, struct item *it)
{
    int comm = 0;
    if (it->kind == NG_WORK_KERNEL && it->state > 0)
        comm = ng_comm_is(rd->opts->comm, item_name(rd, it), &rd->comm_cpu);
    if (comm < 0)
        return ng_err_set(rd->err, "the communication kernel patterns took more than %.0f s "
                          "of CPU time on the names of '%s'; use simpler --comm-kernels "
                          "patterns", NG_REGEX_CPU_BUDGET, rd->shown);
    it->cls = it->kind == NG_WORK_MEMCPY || it->kind == NG_WORK_MEMSET ? NG_CLASS_MEMORY
              : comm ? NG_CLASS_COMM : NG_CLASS_COMPUTE;
    return 0;
}

/* An item's shown name (--kernel-names base derives it), merged into the
 * first item of that name, and the kernel filters' choice and the class
 * for it: chosen when the item is first seen, so each operation can be
 * counted as it is read (the choice of an item depends only on earlier
 * ones).  -1 with rd->err. */
static int choose_item(struct reader *rd, size_t i)
{
    struct item *it = &rd->items[i];
    const char *name = item_name(rd, it);
    struct ng_buf key = NG_BUF_INIT, base = NG_BUF_INIT;
    int ret = 0;

    if (rd->opts->base_names && it->kind == NG_WORK_KERNEL) {
        ng_kernel_base_name(name, &base);
        name = base.data ? base.data : "";
    }
    ng_buf_add(&key, (char[]){ (char)('0' + it->kind) }, 1);
    ng_buf_adds(&key, name);
    int added;
    it->merged = ng_strmap_get(&rd->shown_index, key.data, key.len, i, &added);
    if (added) {
        if (name != item_name(rd, it)) {   /* the merged item is named by its base */
            it->name_at = rd->names.len;
            ng_buf_add(&rd->names, name, strlen(name) + 1);
        }
        int sel = ng_filter_empty(rd->opts->filter)
                      ? 1 : ng_filter_selects(rd->opts->filter, item_name(rd, it), &rd->account);
        if (sel < 0)
            ret = ng_err_set(rd->err, "the --kernels / --exclude-kernels patterns took more "
                             "than %.0f s of CPU time on the names of '%s'; use simpler "
                             "patterns", NG_REGEX_CPU_BUDGET, rd->shown);
        it->state = sel > 0 ? 1 : -1;
        if (ret == 0 && classify(rd, it) < 0)
            ret = -1;
    } else {
        it->state = rd->items[it->merged].state;
        it->cls = rd->items[it->merged].cls;
    }
    ng_buf_release(&key);
    ng_buf_release(&base);
    return ret;
}

static int by_start(const void *a, const void *b)
{
    const struct work *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int by_corr(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static const struct call *call_of(const struct reader *rd, int64_t corr)
{
    size_t lo = 0, hi = rd->n_calls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rd->calls[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rd->n_calls && rd->calls[lo].corr == corr ? &rd->calls[lo] : NULL;
}

/* One kept operation into the figures: in NVTX mode only when its launch
 * lies in a counted epoch. */
static int replay_one(struct reader *rd, const struct work *w)
{
    struct item *it = &rd->items[rd->items[w->item].merged];
    int counted = it->state > 0;
    int64_t dur = w->end - w->start;

    if (rd->pj) {
        const struct call *call = w->has_corr ? call_of(rd, w->corr) : NULL;
        if (!call) {
            if (counted) {
                rd->unlaunched++;
                rd->unlaunched_ns += dur;
            }
            return 0;
        }
        int64_t gpid = proc_tid(call->proc);
        int taken = counted ? ng_nvtx_work(rd->pj, gpid, w->corr, w->device, w->start, w->end,
                                           (size_t)(it - rd->items), it->cls)
                            : ng_nvtx_epochs_of(rd->pj, gpid, w->corr);
        if (taken < 0)
            return -1;
        if (taken == 0)
            return 0;
    } else if (counted && ng_acc_add(&rd->whole, w->device, w->start, w->end, it->cls) < 0) {
        return -1;
    }
    if (__builtin_add_overflow(it->total_ns, dur, &it->total_ns))
        return -1;
    it->count++;
    return counted ? count_place(rd, w->device, dur) : 0;
}

static int replay(struct reader *rd)
{
    /* the breakdown's unions need each device's intervals in order of start */
    if (rd->n_works)
        ng_sort(rd->works, rd->n_works, sizeof *rd->works, by_start);
    for (size_t i = 0; i < rd->n_works; i++)
        if (replay_one(rd, &rd->works[i]) < 0)
            return ng_err_set(rd->err, "'%s' has GPU work whose time overflows 64 bits",
                              rd->shown);
    while (rd->n_run + rd->n_window)   /* total mode: the window's last */
        if (feed_one(rd) < 0)
            return -1;
    return 0;
}

/* The ranges are in (they were read with the events): index them, then
 * the calls, sorted by correlation id, so each operation finds its call. */
static int nvtx_calls(struct reader *rd)
{
    const struct ng_source_opts *o = rd->opts;
    const char *pattern = o->epoch_pattern ? o->epoch_pattern : "?";

    if (ng_nvtx_over_budget(rd->pj))
        return ng_err_set(rd->err, "--epoch-range '%s' took more than %.0f s of CPU time "
                          "matching the range names of '%s'; use a simpler pattern", pattern,
                          NG_REGEX_CPU_BUDGET, rd->shown);
    if (ng_nvtx_index(rd->pj) == 0) {
        if (ng_nvtx_texts(rd->pj) == 0)
            return ng_err_set(rd->err, "'%s' has no user_annotation or cpu_op events, so no "
                              "epochs for --epoch-range '%s'", rd->shown, pattern);
        struct ng_buf list = NG_BUF_INIT;
        ng_nvtx_frequent(rd->pj, 5, &list);
        ng_err_set(rd->err, "no user_annotation or cpu_op event of '%s' matches --epoch-range "
                   "'%s'%s; the most frequent are: %s", rd->shown, pattern,
                   strcmp(pattern, "auto") == 0 ? " (ProfilerStep#N)" : "", list.data);
        ng_buf_release(&list);
        return -1;
    }
    size_t n = ng_nvtx_epochs(rd->pj);
    if ((size_t)o->skip_epochs >= n)
        return ng_err_set(rd->err, "'%s' has %zu epoch%s matching --epoch-range, and "
                          "--skip-epochs %ld leaves none", rd->shown, n, n == 1 ? "" : "s",
                          o->skip_epochs);
    if (rd->n_calls)
        ng_sort(rd->calls, rd->n_calls, sizeof *rd->calls, by_corr);
    for (size_t i = 0; i < rd->n_calls; i++) {
        const struct call *c = &rd->calls[i];
        ng_nvtx_call_on(rd->pj, proc_tid(c->proc), c->thread, c->corr, c->start, c->start);
    }
    return 0;
}

struct cell {
    size_t item, position;
    int64_t ns;
};

static void collect_cell(void *ctx, size_t item, size_t position, int64_t ns)
{
    struct ng_buf *b = ctx;
    struct cell c = { item, position, ns };
    ng_buf_add(b, &c, sizeof c);
}

static int by_item(const void *a, const void *b)
{
    const struct cell *x = a, *y = b;
    if (x->item != y->item)
        return x->item < y->item ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

/* Per-kernel gates: each item's time per counted epoch onto its row. */
static void attach_cells(struct reader *rd)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_nvtx_item_cells(rd->pj, collect_cell, &b);
    size_t n = b.len / sizeof(struct cell);
    struct cell *cells = (struct cell *)(void *)b.data;
    if (n)
        ng_sort(cells, n, sizeof *cells, by_item);
    uint32_t *epochs = ng_xcalloc(n ? n : 1, sizeof *epochs);
    int64_t *ns = ng_xcalloc(n ? n : 1, sizeof *ns);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && cells[j].item == cells[i].item; j++) {
            epochs[j - i] = (uint32_t)cells[j].position;
            ns[j - i] = cells[j].ns;
        }
        const struct item *it = &rd->items[cells[i].item];
        ng_profile_add_cells(rd->p, it->kind, item_name(rd, it), epochs, ns, j - i);
    }
    free(epochs);
    free(ns);
    ng_buf_release(&b);
}

static void emit_rows(struct reader *rd)
{
    struct ng_profile *p = rd->p;
    for (size_t i = 0; i < rd->n_items; i++) {
        struct item *it = &rd->items[i];
        if (it->merged != i) {   /* into the item of its shown name */
            struct item *m = &rd->items[it->merged];
            m->total_ns += it->total_ns;
            m->count += it->count;
        }
    }
    for (size_t i = 0; i < rd->n_items; i++) {
        const struct item *it = &rd->items[i];
        if (it->merged != i || it->count == 0)
            continue;
        const char *name = item_name(rd, it);
        if (it->state > 0)
            ng_profile_add_row(p, it->kind, name, strlen(name), it->total_ns, it->count);
        else
            ng_profile_add_excluded(p, it->kind, name, it->total_ns, it->count);
    }
    ng_profile_set_hits(p, &rd->account);
}

static int by_place(const void *a, const void *b)
{
    const struct place_sum *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The machine: the GPU models, sorted and distinct; the rank. */
static void emit_machine(struct reader *rd)
{
    struct ng_profile *p = rd->p;
    char **names = NULL;
    size_t n = 0;
    for (char *s = rd->gpus.data, *nl; s && *s; s = nl + 1) {
        nl = strchr(s, '\n');
        *nl = '\0';
        names = ng_xgrow(names, n, sizeof *names);
        names[n++] = s;
    }
    if (n) {
        ng_sort(names, n, sizeof *names, by_text);
        struct ng_buf b = NG_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
                ng_buf_addf(&b, "%s%s", b.len ? ", " : "", names[i]);
        p->gpu = ng_buf_detach(&b);
    }
    free(names);
    p->rank = rd->rank;
    p->world_size = rd->world_size;
}

static void emit_places(struct reader *rd)
{
    struct ng_profile *p = rd->p;
    p->has_places = 1;
    if (rd->n_devices)
        ng_sort(rd->devices, rd->n_devices, sizeof *rd->devices, by_place);
    /* a trace is one process's (its work is counted under its host pid) */
    for (size_t i = 0; i < rd->n_devices; i++)
        ng_place_owner(ng_profile_add_place(&p->devices, &p->n_devices, rd->devices[i].id,
                                            rd->devices[i].ns, rd->devices[i].launches),
                       rd->has_host ? rd->host_pid : 0);
    ng_idmap_release(&rd->device_index);
    rd->n_devices = 0;
    if (rd->counted_launches)
        ng_profile_add_place(&p->processes, &p->n_processes, rd->has_host ? rd->host_pid : 0,
                             rd->counted_ns, rd->counted_launches)->rank = rd->rank;
}

/* The operations no launch call in the trace ties to an epoch. */
static void warn_unlaunched(struct reader *rd)
{
    if (rd->unlaunched)
        ng_profile_warn(rd->p, "%" PRId64 " GPU operation%s (%.3f ms) of '%s' %s no launch call "
                        "in the trace (launched before the profiler started?), so no epoch; "
                        "%s left out of the epochs", rd->unlaunched,
                        rd->unlaunched == 1 ? "" : "s", (double)rd->unlaunched_ns / 1e6,
                        rd->shown, rd->unlaunched == 1 ? "has" : "have",
                        rd->unlaunched == 1 ? "it is" : "they are");
}

/* Nothing counted: say what is there, never "0 ms". */
static int nothing_counted(struct reader *rd)
{
    if (ng_profile_no_counted_work(rd->p, rd->work, rd->err) < 0)
        return -1;
    char work[64];
    ng_work_format(rd->work, work, sizeof work);
    return ng_err_set(rd->err, "'%s' has no GPU work that --work %s counts (no \"kernel\" "
                      "events: was the trace recorded with ProfilerActivity.CUDA?)", rd->shown,
                      work);
}

/* The counted work launched inside each listed range: each operation's
 * time goes to its launch call, the calls to the ranges that hold their
 * start (ng_range_attribute). */
static void attribute_ranges(struct reader *rd)
{
    if (!rd->pj && rd->n_calls)   /* with epochs, nvtx_calls sorted them */
        ng_sort(rd->calls, rd->n_calls, sizeof *rd->calls, by_corr);
    int64_t *ns = ng_xcalloc(rd->n_calls + 1, sizeof *ns);
    for (size_t i = 0; i < rd->n_works; i++) {
        const struct work *w = &rd->works[i];
        const struct call *c = w->has_corr ? call_of(rd, w->corr) : NULL;
        if (c && rd->items[rd->items[w->item].merged].state > 0)
            ns[c - rd->calls] += w->end - w->start;   /* the replay checked the sums */
    }
    struct ng_range_call *calls = NULL;
    size_t n = 0;
    for (size_t i = 0; i < rd->n_calls; i++) {
        if (ns[i] == 0)
            continue;
        calls = ng_xgrow(calls, n, sizeof *calls);
        calls[n++] = (struct ng_range_call){ (uint64_t)proc_tid(rd->calls[i].proc),
                                             rd->calls[i].start, rd->calls[i].start, ns[i] };
    }
    ng_range_attribute(rd->ranges->r, rd->range_start, rd->range_end, rd->ranges->n, calls, n);
    free(calls);
    free(ns);
}

static void reader_release(struct reader *rd)
{
    free(rd->range_start);
    free(rd->range_end);
    input_close(&rd->in);
    ng_strmap_release(&rd->item_index);
    ng_strmap_release(&rd->shown_index);
    free(rd->items);
    ng_buf_release(&rd->names);
    ng_buf_release(&rd->scratch);
    ng_buf_release(&rd->value);
    free(rd->works);
    free(rd->window);
    free(rd->run);
    free(rd->calls);
    ng_idmap_release(&rd->procs);
    ng_idmap_release(&rd->threads);
    free(rd->proc_pid);
    ng_idmap_release(&rd->device_index);
    free(rd->devices);
    ng_acc_release(&rd->whole);
    ng_buf_release(&rd->gpus);
    if (rd->have_auto_re)
        ng_regex_release(&rd->auto_re);
}

static int kineto_read(struct reader *rd, struct ng_nvtx *pj)
{
    const struct ng_source_opts *o = rd->opts;
    const struct ng_regex *re = o->epoch_re;

    if (re && o->epoch_pattern && strcmp(o->epoch_pattern, "auto") == 0) {
        if (ng_regex_compile(&rd->auto_re, auto_pattern, REG_ICASE, NG_NVTX_TEXT_MAX, "--epoch-range",
                             rd->err) < 0)
            return -1;
        rd->have_auto_re = 1;
        re = &rd->auto_re;
    }
    if (re) {
        ng_nvtx_init(pj, re, o->metric, o->skip_epochs);
        rd->pj = pj;
        if (o->item_samples)
            ng_nvtx_track_items(pj);
    }
    /* NVTX mode and `ranges` replay every operation once the ranges are
     * known; total mode counts each as it comes, through the window */
    rd->keep_rows = rd->pj || rd->ranges || rd->keep_all;
    if (input_open(&rd->in, rd->p->path, rd->err) < 0 || read_document(rd) < 0)
        return -1;
    if (rd->n_items == 0)
        return nothing_counted(rd);
    if ((rd->pj && nvtx_calls(rd) < 0) || replay(rd) < 0)
        return -1;
    emit_rows(rd);
    if (rd->ranges)
        attribute_ranges(rd);
    if (rd->pj) {
        if (ng_nvtx_taken(rd->pj) == 0 && rd->p->n_excluded == 0)
            return ng_err_set(rd->err, "'%s': no counted GPU work was launched inside the %zu "
                              "epoch range%s matching --epoch-range (%" PRId64 " operation%s "
                              "had no launch call in the trace)", rd->shown,
                              ng_nvtx_ranges(rd->pj), ng_nvtx_ranges(rd->pj) == 1 ? "" : "s",
                              rd->unlaunched, rd->unlaunched == 1 ? "" : "s");
        warn_unlaunched(rd);
        if (o->item_samples)
            attach_cells(rd);
    }
    emit_places(rd);
    emit_machine(rd);
    struct ng_work_pass pass = { rd->pj, &rd->whole, rd->metric, o->skip_epochs };
    if (ng_work_pass_finish(rd->p, &pass, rd->shown, rd->err) < 0)
        return -1;
    return ng_profile_finish(rd->p, rd->err);
}

/* One reading; *out_of_order: total mode met an operation past its
 * window (nothing of the profile is set but what --work left out). */
static int load_once(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                     int keep_all, int *out_of_order, struct ng_err *err)
{
    static const struct ng_source_opts defaults = { 0 };
    struct reader rd;
    struct ng_nvtx pj;

    memset(&rd, 0, sizeof rd);
    rd.keep_all = keep_all;
    memset(&pj, 0, sizeof pj);
    rd.in.fd = -1;
    rd.shown = path;
    rd.p = p;
    rd.err = err;
    rd.opts = opts ? opts : &defaults;
    rd.work = rd.opts->work ? rd.opts->work : NG_WORK_DEFAULT;
    rd.metric = rd.opts->metric;
    rd.rank = rd.world_size = -1;
    if (rd.opts->list_ranges)
        rd.ranges = p->ranges = ng_xcalloc(1, sizeof *p->ranges);
    int ret = kineto_read(&rd, &pj);
    *out_of_order = rd.out_of_order;
    if (rd.pj)
        ng_nvtx_release(&pj);
    reader_release(&rd);
    return ret;
}

static int kineto_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                       struct ng_err *err)
{
    int out_of_order = 0;
    int ret = load_once(p, path, opts, 0, &out_of_order, err);
    if (ret < 0 && out_of_order) {
        /* rare: kept whole and sorted, as NVTX mode does, within KEPT_MAX */
        memset(p->left_out_ns, 0, sizeof p->left_out_ns);
        memset(p->left_out_launches, 0, sizeof p->left_out_launches);
        ret = load_once(p, path, opts, 1, &out_of_order, err);
    }
    return ret;
}

/* gzip's magic, or a JSON object: white space (and a byte-order mark)
 * then '{'.  Saved nsys stats JSON is an array, or text before one. */
static int kineto_sniff(const unsigned char *head, size_t len)
{
    size_t i = 0;
    if (len >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return 1;
    if (len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && ng_json_space[head[i]])
        i++;
    return i < len && head[i] == '{';
}

const struct ng_source_kind ng_source_kineto = {
    .format = NG_FORMAT_KINETO,
    .sniff = kineto_sniff,
    .load = kineto_load,
    .reads = "torch.profiler traces (Chrome trace JSON, plain or gzip)",
};
