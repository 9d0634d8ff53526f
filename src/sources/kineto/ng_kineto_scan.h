/* ng_kineto_scan: a torch.profiler Chrome trace read as strict JSON, one
 * unit at a time: the top-level object's members, each event of
 * "traceEvents" handed to the reader as it is read whole (its values are
 * spans into the window, valid during the call), and what
 * "deviceProperties" and "distributedInfo" say of the machine.
 *
 * Use: ng_kineto_scan_init, ng_kineto_scan_read (the file, through
 * util/ng_gzip.h), ng_kineto_scan_release.  What is wrong is said once
 * in err: a syntax error with its byte (and event), a truncated file, or
 * a problem in an event's times.
 *
 * Ownership: the scanner owns its input and buffers; the event callback's
 * ctx is the caller's. */
#ifndef NG_KINETO_SCAN_H
#define NG_KINETO_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_profile.h"
#include "util/ng_gzip.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

/* What an event's "cat" makes of it. */
enum ng_kineto_role {
    NG_KINETO_WORK,    /* GPU work: a kernel, a copy, a set */
    NG_KINETO_CALL,    /* a runtime or driver call, which launches work */
    NG_KINETO_RANGE,   /* a range: a user annotation, an operator */
};

struct ng_kineto_category {
    const char *cat;
    enum ng_kineto_role role;
    enum ng_work_kind kind;   /* of NG_KINETO_WORK */
};

/* A string value: its bytes as written, between the quotes. */
struct ng_kineto_span {
    const unsigned char *at;
    size_t len;
    int escaped;
};

/* One event of traceEvents: the members the gate reads. */
struct ng_kineto_event {
    int has_ph, has_ts, has_dur, has_pid, has_tid, has_corr, has_device, has_name;
    unsigned char ph;
    const struct ng_kineto_category *cat;   /* NULL: a category the gate does not read */
    struct ng_kineto_span name;
    struct ng_kineto_span ts, dur;          /* number texts */
    int64_t pid, tid, corr, device;
};

struct ng_kineto_scan {
    const char *shown;
    struct ng_err *err;
    struct ng_gzip_input in;
    /* each event of traceEvents, read whole: 0, or -1 after
     * ng_kineto_scan_times() refused it (or with err set and fatal) */
    int (*event)(void *ctx, const struct ng_kineto_event *e);
    void *ctx;
    const char *why;          /* the semantic problem of the unit being read */
    char why_buf[256];
    int64_t events;           /* events read */
    int trace_events;         /* 1 inside the traceEvents array, 2 after it */
    int fatal;                /* err is set: no syntax error to look for */
    struct ng_buf key;        /* a key with its escapes undone */
    struct ng_buf value;      /* a selecting value (cat, ph, an id) with its escapes undone */
    /* what the trace says of its machine */
    struct ng_buf gpus;       /* "\n"-separated device names */
    int64_t rank, world_size; /* -1 unknown */
};

void ng_kineto_scan_init(struct ng_kineto_scan *sc, const char *shown, struct ng_err *err,
                         int (*event)(void *ctx, const struct ng_kineto_event *e), void *ctx);

/* Reads the trace at path, each event into sc->event: 0, or -1 with
 * sc->err set. */
int ng_kineto_scan_read(struct ng_kineto_scan *sc, const char *path);

void ng_kineto_scan_release(struct ng_kineto_scan *sc);

/* An event's ts and dur in ns, *end = ts + dur; -1 (said with the
 * event's number and byte) when either is missing, negative, or past 64
 * bits. */
int ng_kineto_scan_times(struct ng_kineto_scan *sc, const struct ng_kineto_event *e,
                         int64_t *start, int64_t *end);

/* The value of a string span (escapes undone, NULs shown as \x00), into
 * out with a NUL. */
void ng_kineto_scan_text(const struct ng_kineto_span *s, struct ng_buf *out);

/* A Chrome trace's time (or any decimal JSON number), text[0..n), times
 * 10^scale, rounded to the nearest integer (halves away from zero) into
 * *out, exactly: ts and dur in microseconds with scale 3 are nanoseconds,
 * never through a double.  -1 when the text is not a JSON number or the
 * result does not fit 64 bits.  (Exposed for the unit tests too.) */
int ng_kineto_scan_time_ns(const char *text, size_t n, int scale, int64_t *out);

#endif
