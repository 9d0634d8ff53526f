/* The torch.profiler (Kineto) Chrome-trace backend: what the events of a
 * trace become in the profile.  The file is read once, as a stream
 * (util/ng_gzip.h inflates it when it is gzip), and scanned one event
 * at a time (ng_kineto_scan.h); each event the gate reads comes here.
 * What is kept is the table of work items and, when an epoch projection
 * or gpu-busy needs them, one small row per GPU operation and per launch
 * call.
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

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ng_comm.h"
#include "core/ng_nvtx.h"
#include "core/ng_range_groups.h"
#include "core/ng_work_pass.h"
#include "sources/kineto/ng_kineto_scan.h"
#include "sources/ng_source_names.h"
#include "sources/ng_source_opts.h"
#include "util/ng_json_scan.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

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

struct reader {
    const char *shown;
    const struct ng_source_opts *opts;
    struct ng_profile *p;
    struct ng_err *err;
    unsigned work;
    enum ng_metric metric;
    struct ng_kineto_scan sc;   /* the file, one event at a time */
    /* items */
    struct ng_strmap item_index;   /* kind byte + name -> item */
    struct ng_strmap shown_index;  /* kind byte + shown name -> the item named so */
    struct item *items;
    size_t n_items;
    struct ng_buf names;      /* NUL-terminated names of the items */
    struct ng_buf scratch;    /* a name with its escapes undone */
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
    struct ng_filter_account account;
    double comm_cpu;          /* CPU seconds the communication patterns took */
    /* `nsys-gate ranges`: every named range, with its times */
    struct ng_range_list *ranges;
    int64_t *range_start, *range_end;
};

/* ---- what the events become ---- */

/* The name an operation is shown by: kernels as written, copies and sets
 * as nsys's cuda_gpu_mem_time_sum names them ("Memcpy HtoD (Pageable ->
 * Device)" -> "[CUDA memcpy Host-to-Device]"). */
static void work_name(struct reader *rd, const struct ng_kineto_event *e, struct ng_buf *out)
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
    ng_buf_release(&name);
    (void)rd;
}

static int choose_item(struct reader *rd, size_t i);

/* The item of a kind byte + name key, chosen when new; -1 with rd->err
 * (and rd->sc.fatal). */
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
            rd->sc.fatal = 1;
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
static int64_t thread_id(struct reader *rd, uint32_t proc, const struct ng_kineto_event *e)
{
    int added;
    size_t i = ng_idmap_get(&rd->threads, proc, e->has_tid ? e->tid : 0, rd->n_threads, &added);
    rd->n_threads += (size_t)added;
    return proc_tid(proc) | (int64_t)(i < 0xFFFFFE ? i + 1 : 0xFFFFFF);
}

static void note_host(struct reader *rd, const struct ng_kineto_event *e)
{
    if (!rd->has_host && e->has_pid) {
        rd->host_pid = e->pid;
        rd->has_host = 1;
    }
}

static int replay_one(struct reader *rd, const struct work *w);

static int too_many(struct reader *rd, const char *what)
{
    rd->sc.fatal = 1;
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
        rd->sc.fatal = 1;
        return ng_err_set(rd->err, "'%s' has GPU work whose time overflows 64 bits", rd->shown);
    }
    return 0;
}

/* Total mode: an operation counted in bounded memory, through a window of
 * REORDER_MAX: one in order of start after the last of the run joins it
 * (the common case, no sorting), any other the heap.  One that starts
 * before an operation already fed came further out of order than the
 * window holds: the trace is read again with every operation kept. */
static int reorder(struct reader *rd, const struct work *w)
{
    if (rd->fed_any && w->start < rd->fed) {
        rd->out_of_order = rd->sc.fatal = 1;
        return -1;
    }
    if (!rd->window) {
        rd->window = ng_xmalloc(REORDER_MAX * sizeof *rd->window);
        rd->run = ng_xmalloc(REORDER_MAX * sizeof *rd->run);
    }
    if (rd->n_run + rd->n_window == REORDER_MAX && feed_one(rd) < 0)
        return -1;
    size_t last = (rd->run_head + rd->n_run + REORDER_MAX - 1) % REORDER_MAX;
    if (!rd->n_run || w->start >= rd->run[last].start) {
        rd->run[(rd->run_head + rd->n_run) % REORDER_MAX] = *w;
        rd->n_run++;
    } else {
        rd->window[rd->n_window++] = *w;
        heap_up(rd->window, rd->n_window - 1);
    }
    return 0;
}

static int take_work(struct reader *rd, const struct ng_kineto_event *e, int64_t start, int64_t end)
{
    enum ng_work_kind kind = e->cat->kind;
    int64_t dur = end - start;

    if (!(rd->work & NG_WORK_BIT(kind))) {
        if (__builtin_add_overflow(rd->p->left_out_ns[kind], dur, &rd->p->left_out_ns[kind]))
            return ng_kineto_scan_semantic(&rd->sc, "left-out work whose time overflows 64 bits");
        rd->p->left_out_launches[kind]++;
        return 0;
    }
    work_name(rd, e, &rd->scratch);
    int64_t found = item_of(rd, &rd->scratch);
    if (found < 0)
        return -1;
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
    return 0;
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

/* One event of the trace, as the scanner reads it (ctx: the reader). */
static int take_event(void *ctx, const struct ng_kineto_event *e)
{
    struct reader *rd = ctx;
    int64_t start = 0, end = 0;

    if (!e->cat || e->ph != 'X' || !e->has_ph)
        return 0;
    if (e->cat->role != NG_KINETO_WORK)
        note_host(rd, e);
    if (e->cat->role == NG_KINETO_CALL && ((!rd->pj && !rd->ranges) || !e->has_corr))
        return 0;   /* calls matter to ranges only, and only with the id that ties them */
    if (e->cat->role == NG_KINETO_RANGE && !rd->pj && !rd->ranges)
        return 0;
    if (ng_kineto_scan_times(&rd->sc, e, &start, &end) < 0)
        return -1;
    switch (e->cat->role) {
    case NG_KINETO_WORK:
        return take_work(rd, e, start, end);
    case NG_KINETO_CALL: {
        uint32_t proc = proc_of(rd, e->has_pid ? e->pid : 0);
        if (rd->n_calls >= KEPT_MAX)
            return too_many(rd, "launch calls");
        rd->calls = ng_xgrow(rd->calls, rd->n_calls, sizeof *rd->calls);
        rd->calls[rd->n_calls++] = (struct call){ e->corr, start, proc,
                                                  rd->pj ? thread_id(rd, proc, e) : 0 };
        return 0;
    }
    case NG_KINETO_RANGE:
        if (e->has_name) {
            uint32_t proc = proc_of(rd, e->has_pid ? e->pid : 0);
            int64_t tid = proc_tid(proc);
            ng_kineto_scan_text(&e->name, &rd->scratch);
            if (rd->pj)   /* a step spans the process's threads; nesting is a thread's */
                ng_nvtx_range_on(rd->pj, start, end, tid, thread_id(rd, proc, e),
                                 rd->scratch.data);
            if (rd->ranges)
                list_range(rd, start, end, tid, rd->scratch.data);
        }
        return 0;
    default:
        return 0;
    }
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
    for (char *s = rd->sc.gpus.data, *nl; s && *s; s = nl + 1) {
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
    p->rank = rd->sc.rank;
    p->world_size = rd->sc.world_size;
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
                             rd->counted_ns, rd->counted_launches)->rank = rd->sc.rank;
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
    ng_kineto_scan_release(&rd->sc);
    ng_strmap_release(&rd->item_index);
    ng_strmap_release(&rd->shown_index);
    free(rd->items);
    ng_buf_release(&rd->names);
    ng_buf_release(&rd->scratch);
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
    ng_buf_release(&rd->sc.gpus);
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
    if (ng_kineto_scan_read(&rd->sc, rd->p->path) < 0)
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
    ng_kineto_scan_init(&rd.sc, path, err, take_event, &rd);
    rd.shown = path;
    rd.p = p;
    rd.err = err;
    rd.opts = opts ? opts : &defaults;
    rd.work = rd.opts->work ? rd.opts->work : NG_WORK_DEFAULT;
    rd.metric = rd.opts->metric;
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
