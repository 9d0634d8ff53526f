/* The torch.profiler (Kineto) Chrome-trace backend: what the events of a
 * trace become in the profile.  The file is read once, as a stream
 * (util/ng_gzip.h inflates it when it is gzip), and scanned one event
 * at a time (ng_kineto_scan.h); each event the gate reads comes here.
 * What the events become in the profile is the event sink's
 * (sources/ng_source_events.h): this file says which events are which.
 *
 * Kinds: "kernel" events are kernels (a CUDA graph's replayed kernels
 * are kernels too), "gpu_memcpy" and "gpu_memset" memory operations,
 * named as nsys names them ("[CUDA memcpy Host-to-Device]", "[CUDA
 * memset]").  Times: "ts" and "dur" are microseconds in decimal text,
 * read straight into integer nanoseconds (ng_kineto_scan_time_ns), never
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

#include <string.h>
#include <strings.h>

#include "sources/kineto/ng_kineto_scan.h"
#include "sources/ng_source_events.h"
#include "sources/ng_source_names.h"
#include "util/ng_json_scan.h"
#include "util/ng_util.h"

/* What the sink says of a Chrome trace. */
static const struct ng_source_events_words words = {
    /* the steps torch.profiler's schedule marks (ProfilerStep#N), the
     * number as key */
    .auto_pattern = "^ProfilerStep#([0-9]+)$",
    .auto_shown = " (ProfilerStep#N)",
    .no_ranges = "no user_annotation or cpu_op events",
    .no_ranges_hint = "",
    .a_range = "user_annotation or cpu_op event",
    .no_work = "no \"kernel\" events: was the trace recorded with ProfilerActivity.CUDA?",
    .unlaunched = "launched before the profiler started?",
    .by_time = "",
};

struct reader {
    struct ng_source_events ev;
    struct ng_kineto_scan sc;   /* the file, one event at a time */
    struct ng_buf scratch;      /* a name with its escapes undone */
    int64_t host_pid;           /* the trace's process: of its first host event */
    int has_host;
};

/* The name an operation is shown by: kernels as written, copies and sets
 * as nsys's cuda_gpu_mem_time_sum names them ("Memcpy HtoD (Pageable ->
 * Device)" -> "[CUDA memcpy Host-to-Device]"). */
static void work_name(const struct ng_kineto_event *e, struct ng_buf *out)
{
    enum ng_work_kind kind = e->cat->kind;
    out->len = 0;
    if (kind == NG_WORK_MEMSET) {
        ng_buf_adds(out, "[CUDA memset]");
        return;
    }
    struct ng_buf name = NG_BUF_INIT;
    if (e->has_name)
        ng_kineto_scan_text(&e->name, &name);
    const char *s = name.data ? name.data : "";
    if (kind == NG_WORK_MEMCPY) {
        /* "Memcpy <K> (...)": <K> is CUPTI's short copy kind */
        size_t k = 0;
        if (strncasecmp(s, "Memcpy ", 7) == 0)
            while (s[7 + k] && s[7 + k] != ' ' && k < 32)
                k++;
        struct ng_buf old = NG_BUF_INIT;
        ng_buf_addf(&old, "[CUDA memcpy %.*s]", (int)k, k ? s + 7 : "Unknown");
        const char *now = ng_source_names_memcpy(old.data, old.len);
        ng_buf_adds(out, now ? now : old.data);
        ng_buf_release(&old);
    } else {
        ng_buf_add(out, s, name.len);
    }
    ng_buf_add(out, "", 1);
    out->len--;
    ng_buf_release(&name);
}

static void note_host(struct reader *rd, const struct ng_kineto_event *e)
{
    if (!rd->has_host && e->has_pid) {
        rd->host_pid = e->pid;
        rd->has_host = 1;
    }
}

/* What the sink refused stops the scan (its message is in err; an
 * operation out of order has none, and the file is read again). */
static int stop(struct reader *rd)
{
    rd->sc.fatal = 1;
    return -1;
}

static int take_work(struct reader *rd, const struct ng_kineto_event *e, int64_t start, int64_t end)
{
    enum ng_work_kind kind = e->cat->kind;

    if (!ng_source_events_counts(&rd->ev, kind))
        return ng_source_events_leave_out(&rd->ev, kind, end - start) < 0 ? stop(rd) : 0;
    work_name(e, &rd->scratch);
    int64_t item = ng_source_events_item(&rd->ev, kind, rd->scratch.data, rd->scratch.len,
                                         rd->scratch.data, NULL);
    if (item < 0)
        return stop(rd);
    /* a GPU event's pid is its device in Kineto's layout; args.device says it */
    int64_t device = e->has_device ? e->device : e->has_pid ? e->pid : 0;
    if (ng_source_events_work(&rd->ev, NG_SOURCE_EVENTS_ANY, e->has_corr, e->corr, device, start,
                              end, (size_t)item) < 0)
        return stop(rd);
    return 0;
}

/* One event of the trace, as the scanner reads it (ctx: the reader). */
static int take_event(void *ctx, const struct ng_kineto_event *e)
{
    struct reader *rd = ctx;
    int64_t start = 0, end = 0;
    int ranges = ng_source_events_wants_ranges(&rd->ev);

    if (!e->cat || e->ph != 'X' || !e->has_ph)
        return 0;
    if (e->cat->role != NG_KINETO_WORK)
        note_host(rd, e);
    if (e->cat->role == NG_KINETO_CALL && (!ranges || !e->has_corr))
        return 0;   /* calls matter to ranges only, and only with the id that ties them */
    if (e->cat->role == NG_KINETO_RANGE && !ranges)
        return 0;
    if (ng_kineto_scan_times(&rd->sc, e, &start, &end) < 0)
        return -1;
    if (e->cat->role == NG_KINETO_WORK)
        return take_work(rd, e, start, end);
    uint32_t proc = ng_source_events_process(&rd->ev, e->has_pid ? e->pid : 0);
    int64_t tid = e->has_tid ? e->tid : 0;
    if (e->cat->role == NG_KINETO_CALL)
        return ng_source_events_call(&rd->ev, proc, tid, e->corr, start) < 0 ? stop(rd) : 0;
    if (e->cat->role == NG_KINETO_RANGE && e->has_name) {
        ng_kineto_scan_text(&e->name, &rd->scratch);
        if (ng_source_events_range(&rd->ev, proc, tid, start, end, rd->scratch.data) < 0)
            return stop(rd);
    }
    return 0;
}

/* The machine the trace names: its GPU models ("\n"-separated), its rank. */
static void give_machine(struct reader *rd)
{
    for (char *s = rd->sc.gpus.data, *nl; s && *s; s = nl + 1) {
        nl = strchr(s, '\n');
        *nl = '\0';
        ng_source_events_gpu(&rd->ev, s);
    }
    rd->ev.rank = rd->sc.rank;
    rd->ev.world_size = rd->sc.world_size;
    rd->ev.default_pid = rd->has_host ? rd->host_pid : 0;
}

/* One reading; *out_of_order: total mode met an operation past its
 * window (nothing of the profile is set but what --work left out). */
static int load_once(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                     int keep_all, int *out_of_order, struct ng_err *err)
{
    struct reader rd;
    int ret;

    memset(&rd, 0, sizeof rd);
    ng_kineto_scan_init(&rd.sc, path, err, take_event, &rd);
    ret = ng_source_events_init(&rd.ev, p, opts, path, &words,
                                keep_all ? NG_SOURCE_EVENTS_KEEP_ALL : 0, err);
    if (ret == 0)
        ret = ng_kineto_scan_read(&rd.sc, path);
    if (ret == 0) {
        give_machine(&rd);
        ret = ng_source_events_finish(&rd.ev);
    }
    *out_of_order = ng_source_events_out_of_order(&rd.ev);
    ng_source_events_release(&rd.ev);
    ng_kineto_scan_release(&rd.sc);
    ng_buf_release(&rd.sc.gpus);
    ng_buf_release(&rd.scratch);
    return ret;
}

static int kineto_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                       struct ng_err *err)
{
    return ng_source_events_load(p, path, opts, load_once, err);
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
