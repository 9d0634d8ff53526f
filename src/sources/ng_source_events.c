/* Timed events into a profile: see ng_source_events.h. */
#include "sources/ng_source_events.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_comm.h"
#include "core/ng_work_pass.h"
#include "sources/ng_source_opts.h"

/* Total mode: the operations between the reading and the accumulator, put
 * in order of start (tracers write them nearly so: their buffers are
 * flushed stream by stream); 40 bytes each, two arrays, 5 MiB. */
#define REORDER_MAX ((size_t)1 << 16)
/* Where the operations are kept (epochs, `ranges`, a trace too far out of
 * order for the window): at most this many, 40 bytes each (640 MiB), and
 * as many launch calls, 24 bytes each; a small file must not make the
 * gate run out of memory. */
#define KEPT_MAX ((size_t)1 << 24)

struct ng_source_events_item {
    enum ng_work_kind kind;
    size_t name_at;          /* into ev->names */
    size_t base_at;          /* the base name given, or SIZE_MAX */
    int64_t total_ns, count;
    size_t merged;           /* the item of its shown name (--kernel-names base) */
    int state;               /* 1 counted, -1 left out by the kernel filters */
    enum ng_work_class cls;  /* for the breakdown */
};

/* One GPU operation kept for the projection or gpu-busy. */
struct ng_source_events_op {
    int64_t start, end, corr, device;
    uint32_t item, proc;     /* proc: NG_SOURCE_EVENTS_ANY when not known */
    int has_corr;
};

/* One launch call: its process (an index into ev->proc_pid) and start. */
struct ng_source_events_call {
    int64_t corr, start;
    uint32_t proc;
    int64_t thread;          /* the projection's id of its thread (thread_id()) */
};

/* What ran on one device for one process. */
struct ng_source_events_pair {
    int64_t device;
    uint32_t proc;
    int64_t ns, launches;
};

/* A range held until finish (TIME_FALLBACK). */
struct ng_source_events_held {
    int64_t start, end, tid;
    uint32_t proc;
    const char *text;
};

static const struct ng_source_opts no_opts = { 0 };

/* ---- setting up ---- */

int ng_source_events_init(struct ng_source_events *ev, struct ng_profile *p,
                          const struct ng_source_opts *opts, const char *shown,
                          const struct ng_source_events_words *words, unsigned flags,
                          struct ng_err *err)
{
    memset(ev, 0, sizeof *ev);
    ev->default_pid = 0;
    ev->rank = ev->world_size = -1;
    ev->shown = shown;
    ev->p = p;
    ev->err = err;
    ev->words = words;
    ev->flags = flags;
    ev->opts = opts ? opts : &no_opts;
    ev->work = ev->opts->work ? ev->opts->work : NG_WORK_DEFAULT;
    ev->metric = ev->opts->metric;
    if (ev->opts->list_ranges)
        ev->ranges = p->ranges = ng_xcalloc(1, sizeof *p->ranges);

    const struct ng_regex *re = ev->opts->epoch_re;
    const char *pattern = ev->opts->epoch_pattern;
    if (re && pattern && strcmp(pattern, "auto") == 0) {
        if (ng_regex_compile(&ev->auto_re, words->auto_pattern, REG_ICASE, NG_NVTX_TEXT_MAX,
                             "--epoch-range", err) < 0)
            return -1;
        ev->have_auto_re = 1;
        re = &ev->auto_re;
    }
    if (re) {
        ng_nvtx_init(&ev->pj_store, re, ev->metric, ev->opts->skip_epochs);
        ev->pj = &ev->pj_store;
        if (ev->opts->item_samples)
            ng_nvtx_track_items(ev->pj);
    }
    /* epochs and `ranges` replay every operation once the ranges are
     * known; total mode counts each as it comes, through the window */
    ev->keep_rows = ev->pj || ev->ranges || (flags & NG_SOURCE_EVENTS_KEEP_ALL);
    return 0;
}

void ng_source_events_release(struct ng_source_events *ev)
{
    if (ev->pj)
        ng_nvtx_release(ev->pj);
    free(ev->range_start);
    free(ev->range_end);
    ng_strmap_release(&ev->item_index);
    ng_strmap_release(&ev->shown_index);
    free(ev->items);
    ng_buf_release(&ev->names);
    free(ev->ops);
    free(ev->window);
    free(ev->run);
    free(ev->calls);
    free(ev->held);
    ng_arena_release(&ev->held_texts);
    ng_idmap_release(&ev->procs);
    ng_idmap_release(&ev->threads);
    free(ev->proc_pid);
    ng_idmap_release(&ev->pair_index);
    free(ev->pairs);
    ng_acc_release(&ev->whole);
    ng_buf_release(&ev->gpus);
    if (ev->have_auto_re)
        ng_regex_release(&ev->auto_re);
    memset(ev, 0, sizeof *ev);
}

int ng_source_events_wants_ranges(const struct ng_source_events *ev)
{
    return ev->pj || ev->ranges;
}

uint32_t ng_source_events_process(struct ng_source_events *ev, int64_t pid)
{
    int added;
    size_t i = ng_idmap_get(&ev->procs, pid, 0, ev->n_procs, &added);
    if (added) {
        ev->proc_pid = ng_xgrow(ev->proc_pid, ev->n_procs, sizeof *ev->proc_pid);
        ev->proc_pid[ev->n_procs++] = pid;
    }
    return (uint32_t)i;
}

void ng_source_events_gpu(struct ng_source_events *ev, const char *model)
{
    ng_buf_adds(&ev->gpus, model);
    ng_buf_add(&ev->gpus, "\n", 1);
}

int ng_source_events_counts(const struct ng_source_events *ev, enum ng_work_kind kind)
{
    return (ev->work & NG_WORK_BIT(kind)) != 0;
}

int ng_source_events_leave_out(struct ng_source_events *ev, enum ng_work_kind kind, int64_t ns)
{
    struct ng_profile *p = ev->p;
    if (__builtin_add_overflow(p->left_out_ns[kind], ns, &p->left_out_ns[kind]))
        return ng_err_set(ev->err, "'%s' has left-out work whose time overflows 64 bits",
                          ev->shown);
    p->left_out_launches[kind]++;
    return 0;
}

/* ---- items ---- */

static const char *item_name(const struct ng_source_events *ev,
                             const struct ng_source_events_item *it)
{
    return ev->names.data + it->name_at;
}

/* An item's class for the breakdown: kernels by their shown name. */
static int classify(struct ng_source_events *ev, struct ng_source_events_item *it)
{
    int comm = 0;
    if (it->kind == NG_WORK_KERNEL && it->state > 0)
        comm = ng_comm_is(ev->opts->comm, item_name(ev, it), &ev->comm_cpu);
    if (comm < 0)
        return ng_err_set(ev->err, "the communication kernel patterns took more than %.0f s "
                          "of CPU time on the names of '%s'; use simpler --comm-kernels "
                          "patterns", NG_REGEX_CPU_BUDGET, ev->shown);
    it->cls = it->kind == NG_WORK_MEMCPY || it->kind == NG_WORK_MEMSET ? NG_CLASS_MEMORY
              : comm ? NG_CLASS_COMM : NG_CLASS_COMPUTE;
    return 0;
}

/* The name an item is shown by: its base name with --kernel-names base
 * (the reader's, or derived), else its full name; into b when derived. */
static const char *shown_name(struct ng_source_events *ev, const struct ng_source_events_item *it,
                              struct ng_buf *b)
{
    if (!ev->opts->base_names || it->kind != NG_WORK_KERNEL)
        return item_name(ev, it);
    if (it->base_at != SIZE_MAX)
        return ev->names.data + it->base_at;
    ng_kernel_base_name(item_name(ev, it), b);
    return b->data ? b->data : "";
}

/* An item's shown name, merged into the first item of that name, and the
 * kernel filters' choice and the class for it: chosen when the item is
 * first seen, so each operation can be counted as it is read (the choice
 * of an item depends only on earlier ones).  -1 with ev->err. */
static int choose_item(struct ng_source_events *ev, size_t i)
{
    struct ng_source_events_item *it = &ev->items[i];
    struct ng_buf key = NG_BUF_INIT, base = NG_BUF_INIT;
    const char *name = shown_name(ev, it, &base);
    int ret = 0;

    ng_buf_add(&key, (char[]){ (char)('0' + it->kind) }, 1);
    ng_buf_adds(&key, name);
    int added;
    it->merged = ng_strmap_get(&ev->shown_index, key.data, key.len, i, &added);
    if (added) {
        if (name != item_name(ev, it)) {   /* the merged item is named by its base */
            /* a base name given by the reader lies in ev->names, which may move */
            char *copy = ng_xstrdup(name);
            size_t at = ev->names.len;
            ng_buf_add(&ev->names, copy, strlen(copy) + 1);
            ev->items[i].name_at = at;
            free(copy);
        }
        int sel = ng_filter_empty(ev->opts->filter)
                      ? 1 : ng_filter_selects(ev->opts->filter, item_name(ev, it), &ev->account);
        if (sel < 0)
            ret = ng_err_set(ev->err, "the --kernels / --exclude-kernels patterns took more "
                             "than %.0f s of CPU time on the names of '%s'; use simpler "
                             "patterns", NG_REGEX_CPU_BUDGET, ev->shown);
        it->state = sel > 0 ? 1 : -1;
        if (ret == 0 && classify(ev, it) < 0)
            ret = -1;
    } else {
        it->state = ev->items[it->merged].state;
        it->cls = ev->items[it->merged].cls;
    }
    ng_buf_release(&key);
    ng_buf_release(&base);
    return ret;
}

int64_t ng_source_events_item(struct ng_source_events *ev, enum ng_work_kind kind,
                              const void *key, size_t key_len, const char *full,
                              const char *base)
{
    /* called once per operation: the kind-prefixed key on the stack, on
     * the heap only when it is long */
    char small[256];
    char *k = key_len < sizeof small ? small : ng_xmalloc(key_len + 1);
    k[0] = (char)('0' + kind);
    memcpy(k + 1, key, key_len);
    int added;
    size_t i = ng_strmap_get(&ev->item_index, k, key_len + 1, ev->n_items, &added);
    if (k != small)
        free(k);
    if (!added)
        return (int64_t)i;
    ev->items = ng_xgrow(ev->items, ev->n_items, sizeof *ev->items);
    ev->items[ev->n_items] = (struct ng_source_events_item){ kind, ev->names.len, SIZE_MAX, 0, 0,
                                                             ev->n_items, 0, NG_CLASS_COMPUTE };
    ng_buf_add(&ev->names, full, strlen(full) + 1);
    if (base) {
        ev->items[ev->n_items].base_at = ev->names.len;
        ng_buf_add(&ev->names, base, strlen(base) + 1);
    }
    ev->n_items++;
    return choose_item(ev, i) < 0 ? -1 : (int64_t)i;
}

/* ---- ranges and calls ---- */

/* The thread id the projection is given for a process: with steps over a
 * whole process every range and call of it is on this "thread" (the
 * process index in the id's upper bits, as a globalTid has it). */
static int64_t proc_tid(uint32_t proc)
{
    return ((int64_t)proc + 1) << 24;
}

/* The id the projection is given for a thread of a process: the
 * process's bits of proc_tid() and a number for the thread below them
 * (threads past 2^24 - 2 of a trace share the last one). */
static int64_t thread_id(struct ng_source_events *ev, uint32_t proc, int64_t tid)
{
    int added;
    size_t i = ng_idmap_get(&ev->threads, proc, tid, ev->n_threads, &added);
    ev->n_threads += (size_t)added;
    return proc_tid(proc) | (int64_t)(i < 0xFFFFFE ? i + 1 : 0xFFFFFF);
}

/* Steps on threads (the calls are ordinary launches) rather than over the
 * process. */
static int thread_steps(const struct ng_source_events *ev)
{
    return (ev->flags & NG_SOURCE_EVENTS_THREAD_STEPS) && !ev->by_time;
}

static int too_many(struct ng_source_events *ev, const char *what)
{
    return ng_err_set(ev->err, "'%s' has more than %zu %s to keep in memory (--epoch-range, "
                      "`ranges` or operations far out of order keep each); refusing it rather "
                      "than run out of memory", ev->shown, KEPT_MAX, what);
}

/* One range for `nsys-gate ranges`. */
static void list_range(struct ng_source_events *ev, int64_t start, int64_t end, int64_t tid,
                       const char *text)
{
    struct ng_range_list *l = ev->ranges;
    l->r = ng_xgrow(l->r, l->n, sizeof *l->r);
    ev->range_start = ng_xgrow(ev->range_start, l->n, sizeof *ev->range_start);
    ev->range_end = ng_xgrow(ev->range_end, l->n, sizeof *ev->range_end);
    ev->range_start[l->n] = start;
    ev->range_end[l->n] = end;
    l->r[l->n++] = (struct ng_range_in){ ng_arena_strdup(&l->texts, text), (uint64_t)tid, 0, 0 };
}

/* A range into the projection and the list: a step's thread is its
 * process's or its own; nesting is always its own thread's. */
static void put_range(struct ng_source_events *ev, uint32_t proc, int64_t tid, int64_t start,
                      int64_t end, const char *text)
{
    int64_t own = ev->pj || thread_steps(ev) ? thread_id(ev, proc, tid) : 0;
    int64_t step = thread_steps(ev) ? own : proc_tid(proc);
    if (ev->pj)
        ng_nvtx_range_on(ev->pj, start, end, step, own, text);
    if (ev->ranges)
        list_range(ev, start, end, step, text);
}

int ng_source_events_range(struct ng_source_events *ev, uint32_t proc, int64_t tid,
                           int64_t start, int64_t end, const char *text)
{
    if (!ng_source_events_wants_ranges(ev))
        return 0;
    if (!(ev->flags & NG_SOURCE_EVENTS_TIME_FALLBACK)) {
        put_range(ev, proc, tid, start, end, text);
        return 0;
    }
    if (ev->n_held >= KEPT_MAX)
        return too_many(ev, "ranges");
    ev->held = ng_xgrow(ev->held, ev->n_held, sizeof *ev->held);
    ev->held[ev->n_held++] = (struct ng_source_events_held){
        start, end, tid, proc, ng_arena_strdup(&ev->held_texts, text) };
    return 0;
}

int ng_source_events_call(struct ng_source_events *ev, uint32_t proc, int64_t tid, int64_t corr,
                          int64_t start)
{
    if (!ng_source_events_wants_ranges(ev))
        return 0;
    if (ev->n_calls >= KEPT_MAX)
        return too_many(ev, "launch calls");
    int64_t own = ev->pj || (ev->flags & NG_SOURCE_EVENTS_THREAD_STEPS) ? thread_id(ev, proc, tid)
                                                                         : 0;
    ev->calls = ng_xgrow(ev->calls, ev->n_calls, sizeof *ev->calls);
    ev->calls[ev->n_calls++] = (struct ng_source_events_call){ corr, start, proc, own };
    return 0;
}

/* ---- operations ---- */

static int replay_one(struct ng_source_events *ev, const struct ng_source_events_op *w);

/* The window of operations on their way to the accumulator: a min-heap by
 * start. */
static void heap_up(struct ng_source_events_op *h, size_t i)
{
    struct ng_source_events_op w = h[i];
    for (; i > 0 && h[(i - 1) / 2].start > w.start; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = w;
}

static struct ng_source_events_op heap_pop(struct ng_source_events_op *h, size_t *n)
{
    struct ng_source_events_op top = h[0], w = h[--*n];
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
static int feed_one(struct ng_source_events *ev)
{
    struct ng_source_events_op w;
    if (ev->n_run && (!ev->n_window || ev->run[ev->run_head].start <= ev->window[0].start)) {
        w = ev->run[ev->run_head];
        ev->run_head = (ev->run_head + 1) % REORDER_MAX;
        ev->n_run--;
    } else {
        w = heap_pop(ev->window, &ev->n_window);
    }
    ev->fed = w.start;
    ev->fed_any = 1;
    if (replay_one(ev, &w) < 0)
        return ng_err_set(ev->err, "'%s' has GPU work whose time overflows 64 bits", ev->shown);
    return 0;
}

/* Total mode: an operation counted in bounded memory, through a window of
 * REORDER_MAX: one in order of start after the last of the run joins it
 * (the common case, no sorting), any other the heap.  One that starts
 * before an operation already fed came further out of order than the
 * window holds: the file is read again with every operation kept. */
static int reorder(struct ng_source_events *ev, const struct ng_source_events_op *w)
{
    if (ev->fed_any && w->start < ev->fed) {
        ev->out_of_order = 1;
        return -1;
    }
    if (!ev->window) {
        ev->window = ng_xmalloc(REORDER_MAX * sizeof *ev->window);
        ev->run = ng_xmalloc(REORDER_MAX * sizeof *ev->run);
    }
    if (ev->n_run + ev->n_window == REORDER_MAX && feed_one(ev) < 0)
        return -1;
    size_t last = (ev->run_head + ev->n_run + REORDER_MAX - 1) % REORDER_MAX;
    if (!ev->n_run || w->start >= ev->run[last].start) {
        ev->run[(ev->run_head + ev->n_run) % REORDER_MAX] = *w;
        ev->n_run++;
    } else {
        ev->window[ev->n_window++] = *w;
        heap_up(ev->window, ev->n_window - 1);
    }
    return 0;
}

int ng_source_events_work(struct ng_source_events *ev, uint32_t proc, int has_corr, int64_t corr,
                          int64_t device, int64_t start, int64_t end, size_t item)
{
    struct ng_source_events_op w = { start, end, corr, device, (uint32_t)item, proc, has_corr };
    if (!ev->keep_rows)
        return reorder(ev, &w);
    if (ev->n_ops >= KEPT_MAX)
        return too_many(ev, "GPU operations");
    ev->ops = ng_xgrow(ev->ops, ev->n_ops, sizeof *ev->ops);
    ev->ops[ev->n_ops++] = w;
    return 0;
}

int ng_source_events_out_of_order(const struct ng_source_events *ev)
{
    return ev->out_of_order;
}

int ng_source_events_load(struct ng_profile *p, const char *path,
                          const struct ng_source_opts *opts, ng_source_events_once once,
                          struct ng_err *err)
{
    int out_of_order = 0;
    int ret = once(p, path, opts, 0, &out_of_order, err);
    if (ret < 0 && out_of_order) {
        /* rare: kept whole and sorted, as NVTX mode does, within the sink's bound */
        memset(p->left_out_ns, 0, sizeof p->left_out_ns);
        memset(p->left_out_launches, 0, sizeof p->left_out_launches);
        ret = once(p, path, opts, 1, &out_of_order, err);
    }
    return ret;
}

/* ---- after the reading ---- */

static struct ng_source_events_pair *pair_of(struct ng_source_events *ev, int64_t device,
                                             uint32_t proc)
{
    if (ev->n_pairs && ev->pairs[ev->last_pair].device == device &&
        ev->pairs[ev->last_pair].proc == proc)
        return &ev->pairs[ev->last_pair];
    int added;
    size_t i = ng_idmap_get(&ev->pair_index, device, proc, ev->n_pairs, &added);
    if (added) {
        ev->pairs = ng_xgrow(ev->pairs, ev->n_pairs, sizeof *ev->pairs);
        ev->pairs[ev->n_pairs++] = (struct ng_source_events_pair){ device, proc, 0, 0 };
    }
    ev->last_pair = i;
    return &ev->pairs[i];
}

static int count_place(struct ng_source_events *ev, int64_t device, uint32_t proc, int64_t dur)
{
    struct ng_source_events_pair *d = pair_of(ev, device, proc);
    if (__builtin_add_overflow(d->ns, dur, &d->ns))
        return -1;
    d->launches++;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct ng_source_events_op *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int by_corr(const void *a, const void *b)
{
    const struct ng_source_events_call *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* The call of an operation: the first of its correlation id (by start),
 * of its process when it is known. */
static const struct ng_source_events_call *call_of(const struct ng_source_events *ev,
                                                   const struct ng_source_events_op *w)
{
    size_t lo = 0, hi = ev->n_calls;
    if (!w->has_corr)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev->calls[mid].corr < w->corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < ev->n_calls && ev->calls[lo].corr == w->corr; lo++)
        if (w->proc == NG_SOURCE_EVENTS_ANY || ev->calls[lo].proc == w->proc)
            return &ev->calls[lo];
    return NULL;
}

/* The projection's process of an operation and the call id it goes by:
 * attributed by time, the operation is its own call (its index). */
static int launch_of(const struct ng_source_events *ev, const struct ng_source_events_op *w,
                     int64_t *gpid, int64_t *corr)
{
    if (ev->by_time) {
        *gpid = proc_tid(w->proc);
        *corr = w - ev->ops;
        return 1;
    }
    const struct ng_source_events_call *call = call_of(ev, w);
    if (!call)
        return 0;
    *gpid = proc_tid(call->proc);
    *corr = w->corr;
    return 1;
}

/* One kept operation into the figures: with epochs only when its launch
 * lies in a counted epoch. */
static int replay_one(struct ng_source_events *ev, const struct ng_source_events_op *w)
{
    struct ng_source_events_item *it = &ev->items[ev->items[w->item].merged];
    int counted = it->state > 0;
    int64_t dur = w->end - w->start;

    if (ev->pj) {
        int64_t gpid, corr;
        if (!launch_of(ev, w, &gpid, &corr)) {
            if (counted) {
                ev->unlaunched++;
                ev->unlaunched_ns += dur;
            }
            return 0;
        }
        int taken = counted ? ng_nvtx_work(ev->pj, gpid, corr, w->device, w->start, w->end,
                                           (size_t)(it - ev->items), it->cls)
                            : ng_nvtx_epochs_of(ev->pj, gpid, corr);
        if (taken < 0)
            return -1;
        if (taken == 0)
            return 0;
    } else if (counted && ng_acc_add(&ev->whole, w->device, w->start, w->end, it->cls) < 0) {
        return -1;
    }
    if (__builtin_add_overflow(it->total_ns, dur, &it->total_ns))
        return -1;
    it->count++;
    return counted ? count_place(ev, w->device, w->proc, dur) : 0;
}

static int replay(struct ng_source_events *ev)
{
    for (size_t i = 0; i < ev->n_ops; i++)
        if (replay_one(ev, &ev->ops[i]) < 0)
            return ng_err_set(ev->err, "'%s' has GPU work whose time overflows 64 bits",
                              ev->shown);
    while (ev->n_run + ev->n_window)   /* total mode: the window's last */
        if (feed_one(ev) < 0)
            return -1;
    return 0;
}

/* Attributed by time: without a single launch call, each operation is a
 * call of its process at its GPU start; the held ranges go in now that
 * this is known. */
static void settle_ranges(struct ng_source_events *ev)
{
    ev->by_time = (ev->flags & NG_SOURCE_EVENTS_TIME_FALLBACK) && ev->n_calls == 0 &&
                  ev->n_held > 0;
    for (size_t i = 0; i < ev->n_held; i++) {
        const struct ng_source_events_held *h = &ev->held[i];
        put_range(ev, h->proc, h->tid, h->start, h->end, h->text);
    }
}

/* The ranges are in: index them, then the calls, sorted by correlation
 * id, so each operation finds its call. */
static int epoch_calls(struct ng_source_events *ev)
{
    const struct ng_source_opts *o = ev->opts;
    const struct ng_source_events_words *words = ev->words;
    const char *pattern = o->epoch_pattern ? o->epoch_pattern : "?";

    if (ng_nvtx_over_budget(ev->pj))
        return ng_err_set(ev->err, "--epoch-range '%s' took more than %.0f s of CPU time "
                          "matching the range names of '%s'; use a simpler pattern", pattern,
                          NG_REGEX_CPU_BUDGET, ev->shown);
    if (ng_nvtx_index(ev->pj) == 0) {
        if (ng_nvtx_texts(ev->pj) == 0)
            return ng_err_set(ev->err, "'%s' has %s, so no epochs for --epoch-range '%s'%s",
                              ev->shown, words->no_ranges, pattern, words->no_ranges_hint);
        struct ng_buf list = NG_BUF_INIT;
        ng_nvtx_frequent(ev->pj, 5, &list);
        ng_err_set(ev->err, "no %s of '%s' matches --epoch-range '%s'%s; the most frequent "
                   "are: %s", words->a_range, ev->shown, pattern,
                   strcmp(pattern, "auto") == 0 ? words->auto_shown : "", list.data);
        ng_buf_release(&list);
        return -1;
    }
    size_t n = ng_nvtx_epochs(ev->pj);
    if ((size_t)o->skip_epochs >= n)
        return ng_err_set(ev->err, "'%s' has %zu epoch%s matching --epoch-range, and "
                          "--skip-epochs %ld leaves none", ev->shown, n, n == 1 ? "" : "s",
                          o->skip_epochs);
    if (ev->by_time) {
        for (size_t i = 0; i < ev->n_ops; i++) {
            int64_t t = proc_tid(ev->ops[i].proc);
            ng_nvtx_call_on(ev->pj, t, t, (int64_t)i, ev->ops[i].start, ev->ops[i].start);
        }
        return 0;
    }
    for (size_t i = 0; i < ev->n_calls; i++) {
        const struct ng_source_events_call *c = &ev->calls[i];
        ng_nvtx_call_on(ev->pj, thread_steps(ev) ? c->thread : proc_tid(c->proc), c->thread,
                        c->corr, c->start, c->start);
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
static void attach_cells(struct ng_source_events *ev)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_nvtx_item_cells(ev->pj, collect_cell, &b);
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
        const struct ng_source_events_item *it = &ev->items[cells[i].item];
        ng_profile_add_cells(ev->p, it->kind, item_name(ev, it), epochs, ns, j - i);
    }
    free(epochs);
    free(ns);
    ng_buf_release(&b);
}

static void emit_rows(struct ng_source_events *ev)
{
    struct ng_profile *p = ev->p;
    for (size_t i = 0; i < ev->n_items; i++) {
        struct ng_source_events_item *it = &ev->items[i];
        if (it->merged != i) {   /* into the item of its shown name */
            struct ng_source_events_item *m = &ev->items[it->merged];
            m->total_ns += it->total_ns;
            m->count += it->count;
        }
    }
    for (size_t i = 0; i < ev->n_items; i++) {
        const struct ng_source_events_item *it = &ev->items[i];
        if (it->merged != i || it->count == 0)
            continue;
        const char *name = item_name(ev, it);
        if (it->state > 0)
            ng_profile_add_row(p, it->kind, name, strlen(name), it->total_ns, it->count);
        else
            ng_profile_add_excluded(p, it->kind, name, it->total_ns, it->count);
    }
    ng_profile_set_hits(p, &ev->account);
}

static int64_t pid_of(const struct ng_source_events *ev, uint32_t proc)
{
    return proc == NG_SOURCE_EVENTS_ANY ? ev->default_pid : ev->proc_pid[proc];
}

static int by_place(const void *a, const void *b)
{
    const struct ng_source_events_pair *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->proc > y->proc) - (x->proc < y->proc);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The machine: the GPU models, sorted and distinct; the rank. */
static void emit_machine(struct ng_source_events *ev)
{
    struct ng_profile *p = ev->p;
    char **names = NULL;
    size_t n = 0;
    for (char *s = ev->gpus.data, *nl; s && *s; s = nl + 1) {
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
    p->rank = ev->rank;
    p->world_size = ev->world_size;
}

/* Each device with the process that launched on it (or several), then
 * each process. */
static void emit_places(struct ng_source_events *ev)
{
    struct ng_profile *p = ev->p;
    p->has_places = 1;
    ng_sort(ev->pairs, ev->n_pairs, sizeof *ev->pairs, by_place);
    for (size_t i = 0; i < ev->n_pairs; i++)
        ng_place_owner(ng_profile_add_place(&p->devices, &p->n_devices, ev->pairs[i].device,
                                            ev->pairs[i].ns, ev->pairs[i].launches),
                       pid_of(ev, ev->pairs[i].proc));
    for (size_t i = 0; i < ev->n_pairs; i++)
        ng_profile_add_place(&p->processes, &p->n_processes, pid_of(ev, ev->pairs[i].proc),
                             ev->pairs[i].ns, ev->pairs[i].launches)->rank = ev->rank;
}

/* The operations no launch call ties to an epoch. */
static void warn_unlaunched(struct ng_source_events *ev)
{
    if (ev->unlaunched)
        ng_profile_warn(ev->p, "%" PRId64 " GPU operation%s (%.3f ms) of '%s' %s no launch call "
                        "in the trace (%s), so no epoch; %s left out of the epochs",
                        ev->unlaunched, ev->unlaunched == 1 ? "" : "s",
                        (double)ev->unlaunched_ns / 1e6, ev->shown,
                        ev->unlaunched == 1 ? "has" : "have", ev->words->unlaunched,
                        ev->unlaunched == 1 ? "it is" : "they are");
}

static void warn_by_time(struct ng_source_events *ev)
{
    if (ev->by_time)
        ng_profile_warn(ev->p, "'%s' has no launch calls, so its GPU work is given to the "
                        "ranges by the time it started on the GPU: work queued in one step "
                        "that ran in the next counts in the next; %s", ev->shown,
                        ev->words->by_time);
}

/* Nothing counted: say what is there, never "0 ms". */
static int nothing_counted(struct ng_source_events *ev)
{
    if (ng_profile_no_counted_work(ev->p, ev->work, ev->err) < 0)
        return -1;
    char work[64];
    ng_work_format(ev->work, work, sizeof work);
    return ng_err_set(ev->err, "'%s' has no GPU work that --work %s counts (%s)", ev->shown,
                      work, ev->words->no_work);
}

/* The counted work launched inside each listed range: each operation's
 * time goes to its launch call, the calls to the ranges that hold their
 * start (ng_range_attribute); attributed by time, each operation is its
 * own call. */
static void attribute_ranges(struct ng_source_events *ev)
{
    size_t n_calls = ev->by_time ? ev->n_ops : ev->n_calls;
    int64_t *ns = ng_xcalloc(n_calls + 1, sizeof *ns);
    for (size_t i = 0; i < ev->n_ops; i++) {
        const struct ng_source_events_op *w = &ev->ops[i];
        if (ev->items[ev->items[w->item].merged].state <= 0)
            continue;
        const struct ng_source_events_call *c = ev->by_time ? NULL : call_of(ev, w);
        if (ev->by_time || c)   /* the replay checked the sums */
            ns[ev->by_time ? i : (size_t)(c - ev->calls)] += w->end - w->start;
    }
    struct ng_range_call *calls = NULL;
    size_t n = 0;
    for (size_t i = 0; i < n_calls; i++) {
        if (ns[i] == 0)
            continue;
        int64_t start = ev->by_time ? ev->ops[i].start : ev->calls[i].start;
        int64_t tid = ev->by_time ? proc_tid(ev->ops[i].proc)
                      : thread_steps(ev) ? ev->calls[i].thread : proc_tid(ev->calls[i].proc);
        calls = ng_xgrow(calls, n, sizeof *calls);
        calls[n++] = (struct ng_range_call){ (uint64_t)tid, start, start, ns[i] };
    }
    ng_range_attribute(ev->ranges->r, ev->range_start, ev->range_end, ev->ranges->n, calls, n);
    free(calls);
    free(ns);
}

/* The epochs' checks and extras, once the rows are in. */
static int finish_epochs(struct ng_source_events *ev)
{
    if (ng_nvtx_taken(ev->pj) == 0 && ev->p->n_excluded == 0)
        return ng_err_set(ev->err, "'%s': no counted GPU work was launched inside the %zu "
                          "epoch range%s matching --epoch-range (%" PRId64 " operation%s "
                          "had no launch call in the trace)", ev->shown,
                          ng_nvtx_ranges(ev->pj), ng_nvtx_ranges(ev->pj) == 1 ? "" : "s",
                          ev->unlaunched, ev->unlaunched == 1 ? "" : "s");
    warn_by_time(ev);
    warn_unlaunched(ev);
    if (ev->opts->item_samples)
        attach_cells(ev);
    return 0;
}

int ng_source_events_finish(struct ng_source_events *ev)
{
    if (ev->n_items == 0)
        return nothing_counted(ev);
    settle_ranges(ev);
    /* the breakdown's unions need each device's intervals in order of
     * start; time attribution numbers them in that order */
    ng_sort(ev->ops, ev->n_ops, sizeof *ev->ops, by_start);
    ng_sort(ev->calls, ev->n_calls, sizeof *ev->calls, by_corr);
    if ((ev->pj && epoch_calls(ev) < 0) || replay(ev) < 0)
        return -1;
    emit_rows(ev);
    if (ev->ranges)
        attribute_ranges(ev);
    if (ev->pj && finish_epochs(ev) < 0)
        return -1;
    emit_places(ev);
    emit_machine(ev);
    struct ng_work_pass pass = { ev->pj, &ev->whole, ev->metric, ev->opts->skip_epochs };
    if (ng_work_pass_finish(ev->p, &pass, ev->shown, ev->err) < 0)
        return -1;
    return ng_profile_finish(ev->p, ev->err);
}
