/* ng_nvtx: NVTX epochs projected onto the GPU work they launched.  Pure:
 * ranges, launch calls and work intervals go in, per-epoch values come
 * out; no I/O, so every reader can feed it and the unit tests can too.
 *
 * The rules, as nsys's nvtx_kern_sum / nvtx_gpu_proj_trace apply them:
 * - A range is a candidate when its text matches the epoch pattern.  Of
 *   nested candidates on one thread only the outermost counts.  Texts
 *   longer than NG_NVTX_TEXT_MAX bytes never match (no real epoch name
 *   is that long, and it bounds what the user's pattern is run on).
 * - A range's key is its text, or the text of the pattern's first group.
 *   The k-th kept range with a key on a thread is occurrence k of that key;
 *   (key, k) is one epoch, and the same occurrence on several threads or
 *   processes (ranks) adds up.  So distinct texts ("epoch 3") are one epoch
 *   each, and 64 ranges named "train_step" on a thread are 64 epochs.
 * - Work belongs to an epoch when the call that launched it (same
 *   correlation id, same process) starts and ends inside one of the
 *   epoch's ranges, on the range's thread.  A call on the shared boundary
 *   of two ranges lies in both and counts in both.
 * - Epochs are ordered by their first start; the first `skip` are warm-up
 *   and not counted; a counted epoch without work is left out (empty).
 * - A range without an end is left out, and named in unclosed().
 * - Which ranges changed: a call inside an epoch also belongs to the
 *   innermost closed range around it on its thread (any text) that is not
 *   a kept epoch (a range with an epoch's bounds is that epoch), and its
 *   work adds up by that range's name with digits as '#'
 *   (ng_nvtx_nested_each()); ranges nest on a thread, so the innermost is
 *   on the chain from the last range starting no later outward.
 * Every step is linear in its input (plus the output) but for that chain,
 * which costs the nesting depth a call at most: calls are mapped to the
 * run of ranges that contain them by binary search, and a call stores that
 * run's bounds, not one entry per range.
 *
 * Use: ng_nvtx_init, ng_nvtx_range (or ng_nvtx_range_on) for every range,
 * ng_nvtx_index, ng_nvtx_call (or ng_nvtx_call_on) for every runtime/driver
 * call, ng_nvtx_work for every work interval, then the results.
 *
 * Ownership: the projection borrows the pattern and owns everything else
 * (copies of texts and keys); ng_nvtx_release() frees it all.  The
 * struct is visible for embedding and for the two inline hot paths at the
 * end of this header (a call, a work row: once a row each); its fields are
 * otherwise private. */
#ifndef NG_NVTX_H
#define NG_NVTX_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_metric.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

#define NG_NVTX_TEXT_MAX 4096
#define NG_NVTX_NO_END INT64_MIN   /* ng_nvtx_range: the range never ended */

struct ng_nvtx_range;
struct ng_nvtx_nest;
struct ng_nvtx_epoch;
struct ng_nvtx_thread;
struct ng_nvtx_page_set;

/* A 16-bit value per (process, correlation id), in pages of ids allocated
 * as values are stored (ng_nvtx.c says why). */
struct ng_nvtx_ids {
    struct ng_nvtx_page_set *sets;    /* one a process */
    size_t n_sets;
    size_t last_set;            /* the set of the last id's process */
    /* the page of the last id stored or looked up: ids come in runs, so
     * most calls and most work rows find their slot here */
    uint16_t *hot;
    int64_t hot_gpid;
    size_t hot_no;
};

struct ng_nvtx {
    const struct ng_regex *re;
    double regex_cpu;           /* seconds spent matching, against the budget */
    int over_budget;
    enum ng_metric metric;
    long skip;
    /* distinct texts: how often each occurs, and its key once matched */
    struct ng_strmap texts;
    int64_t *text_count;
    int64_t *text_key;          /* key index, -1: no match, -2: not matched yet */
    char **text_of;             /* text index -> the text (owned by texts) */
    size_t n_texts;
    struct ng_strmap keys;
    size_t n_keys;
    struct ng_nvtx_range *r;
    size_t n_ranges;
    struct ng_nvtx_thread *threads;
    size_t n_threads;
    size_t last_thread;         /* the thread of the last call (calls come in runs) */
    struct ng_nvtx_epoch *epochs;
    size_t n_epochs;
    size_t *order;              /* epochs by first start */
    struct ng_nvtx_ids ids;     /* call -> the one range it lies in, + 1 */
    /* ranges nested in the epochs: every closed range of a thread (any
     * text), sorted and linked to the range around it at ng_nvtx_index();
     * a call inside an epoch is tied to the innermost one around it, by
     * the group of its name (digits as '#': "layer #") */
    struct ng_nvtx_nest *nest;
    size_t n_nest;
    struct ng_nvtx_thread *nest_threads;   /* begin, end: into nest */
    size_t n_nest_threads, last_nest_thread;
    uint32_t *text_group;       /* text -> its group + 1 (0: not yet named) */
    struct ng_strmap groups;
    char **group_name;
    int64_t *group_ns;          /* the counted epochs' work launched inside it */
    size_t n_groups;
    struct ng_nvtx_ids group_ids;   /* call -> its group + 1 (groups up to 65534) */
    struct ng_idmap group_spill;    /* the calls of the groups past those */
    /* the last call that lay in exactly one range: a call of the same
     * thread with start in [lo, hi) and end in (prev_end, end] lies in that
     * range alone too (hi: the next range's start; prev_end: the end of
     * the range before it) */
    int64_t call_tid, call_lo, call_hi, call_end, call_prev_end;
    size_t call_range;
    struct ng_acc **range_acc;  /* range -> its epoch's figures; NULL: a warm-up epoch */
    struct ng_idmap spans;      /* calls in several ranges (or past the pages) */
    /* per item and epoch (per-kernel gates): cell i is item cell_item[i]'s
     * time in epoch cell_epoch[i] */
    int track_items;
    struct ng_idmap cell_index;
    size_t *cell_epoch, *cell_item;
    int64_t *cell_ns;
    size_t n_cells;
    int64_t unclosed;
    char *unclosed_names;       /* the first few, quoted and ", "-joined */
    int64_t taken;              /* work intervals counted, over all epochs */
};

/* The results, one per counted epoch that had work, in order. */
struct ng_nvtx_result {
    const char *name;           /* the text of its earliest range; "#k" added when
                                   its key repeats */
    int64_t first_start;
    int64_t ns;                 /* by the metric */
    int64_t launches;
};

void ng_nvtx_init(struct ng_nvtx *pj, const struct ng_regex *re, enum ng_metric metric,
                     long skip);
void ng_nvtx_release(struct ng_nvtx *pj);

/* One range (any text; those that do not match are only counted, for the
 * "most frequent ranges" message).  end NG_NVTX_NO_END: never ended. */
void ng_nvtx_range(struct ng_nvtx *pj, int64_t start, int64_t end, int64_t tid,
                      const char *text);
/* The same, where the epoch's thread and the thread ranges nest on differ
 * (torch.profiler: a step spans the process's threads, an operator is its
 * own thread's): tid for the epochs, nest_tid (same process bits) for the
 * ranges nested in them. */
void ng_nvtx_range_on(struct ng_nvtx *pj, int64_t start, int64_t end, int64_t tid,
                      int64_t nest_tid, const char *text);
/* Keeps the outermost candidates, numbers occurrences, orders the epochs.
 * Returns how many epochs there are (warm-up ones included). */
size_t ng_nvtx_index(struct ng_nvtx *pj);

/* A runtime or driver call of thread tid (a globalTid: the process is its
 * upper bits).  Inline below. */
void ng_nvtx_call_any(struct ng_nvtx *pj, int64_t tid, int64_t corr, int64_t start,
                         int64_t end);

/* A call as ng_nvtx_call(), whose nested range is looked up on nest_tid
 * (the thread ng_nvtx_range_on() put its ranges on). */
void ng_nvtx_call_on(struct ng_nvtx *pj, int64_t tid, int64_t nest_tid, int64_t corr,
                     int64_t start, int64_t end);

/* Keep each item's time per epoch too (call before ng_nvtx_work). */
void ng_nvtx_track_items(struct ng_nvtx *pj);

/* A work interval of item `item` (the caller's index; SIZE_MAX: none)
 * launched by call `corr` of process gpid: the number of counted epochs it
 * went into (0: none), or -1 when a figure would overflow 64 bits. */
int ng_nvtx_work_any(struct ng_nvtx *pj, int64_t gpid, int64_t corr, int64_t device,
                        int64_t start, int64_t end, size_t item, enum ng_work_class cls);

/* How many counted epochs a call of process gpid lies in, without adding
 * anything (work the kernel filters leave out). */
int ng_nvtx_epochs_of(struct ng_nvtx *pj, int64_t gpid, int64_t corr);

/* Each item's time per epoch (with ng_nvtx_track_items), as positions
 * in ng_nvtx_results()'s array: fn(ctx, item, position, ns). */
void ng_nvtx_item_cells(const struct ng_nvtx *pj,
                           void (*fn)(void *ctx, size_t item, size_t position, int64_t ns),
                           void *ctx);

/* gpu-busy saw intervals out of order: feed them again, in order of start,
 * after ng_nvtx_restart_work(). */
int ng_nvtx_disordered(const struct ng_nvtx *pj);
void ng_nvtx_restart_work(struct ng_nvtx *pj);

size_t ng_nvtx_ranges(const struct ng_nvtx *pj);   /* kept candidates */
size_t ng_nvtx_epochs(const struct ng_nvtx *pj);   /* warm-up included */
int64_t ng_nvtx_taken(const struct ng_nvtx *pj);

/* The counted epochs with work, in order: *empty gets how many counted
 * epochs had none.  The array is the caller's to free (names are borrowed
 * from pj). */
struct ng_nvtx_result *ng_nvtx_results(const struct ng_nvtx *pj, size_t *n,
                                             size_t *empty);

/* The breakdown of the counted epochs with work, added up (per device
 * into *devs, *n; over devices into *sum): ng_acc_breakdown's figures.
 * -1 when a sum would overflow. */
int ng_nvtx_breakdown(const struct ng_nvtx *pj, struct ng_breakdown **devs, size_t *n,
                      struct ng_breakdown *sum);

/* The counted epochs' work by the innermost range nested in its epoch
 * around the call that launched it, grouped by name shape: fn(ctx, group
 * name, ns) for each group that got work, in order of name.  A call
 * whose innermost range is its epoch's own adds to none. */
void ng_nvtx_nested_each(const struct ng_nvtx *pj,
                         void (*fn)(void *ctx, const char *name, int64_t ns), void *ctx);

/* The pattern spent its CPU budget on the range texts (the matching
 * stopped: the result would be partial). */
int ng_nvtx_over_budget(const struct ng_nvtx *pj);

/* Ranges left out for having no end: how many, and the first names. */
int64_t ng_nvtx_unclosed(const struct ng_nvtx *pj, const char **names);

/* "'a' (12), 'b' (3)": the most frequent range texts, for a "no range
 * matches" message (at most `max`, each cut at 60 bytes, cleaned). */
void ng_nvtx_frequent(const struct ng_nvtx *pj, size_t max, struct ng_buf *out);
size_t ng_nvtx_texts(const struct ng_nvtx *pj);    /* distinct range texts seen */

/* ---- the hot paths, inline: a call in the same range as the last one,
 * and work launched by a call in one range, both with their correlation
 * id on the hot page; everything else takes the *_any functions. ---- */

#define NG_NVTX_PAGE_BITS 16
#define NG_NVTX_GPID_MASK (~(int64_t)0xFFFFFF)

static inline uint16_t *ng_nvtx_hot_slot(struct ng_nvtx_ids *ids, int64_t gpid, int64_t corr)
{
    if (!ids->hot || corr < 0 || ids->hot_gpid != gpid ||
        ids->hot_no != (uint64_t)corr >> NG_NVTX_PAGE_BITS)
        return NULL;
    return &ids->hot[(uint64_t)corr & (((uint64_t)1 << NG_NVTX_PAGE_BITS) - 1)];
}

/* A call inside an epoch: the group of the innermost nested range around
 * it, stored for its work.  Work launched by call (gpid, corr), counted in
 * n epochs: its duration into that group (-1: it overflows). */
void ng_nvtx_nested_call(struct ng_nvtx *pj, int64_t tid, int64_t corr, int64_t start,
                         int64_t end);
int ng_nvtx_nested_work(struct ng_nvtx *pj, int64_t gpid, int64_t corr, int64_t ns, int n);

static inline void ng_nvtx_call(struct ng_nvtx *pj, int64_t tid, int64_t corr,
                                   int64_t start, int64_t end)
{
    if (tid == pj->call_tid && start >= pj->call_lo && start < pj->call_hi &&
        end <= pj->call_end && end > pj->call_prev_end) {
        uint16_t *slot = ng_nvtx_hot_slot(&pj->ids, tid & NG_NVTX_GPID_MASK, corr);
        if (slot) {
            *slot = (uint16_t)(pj->call_range + 1);
            if (pj->n_nest)
                ng_nvtx_nested_call(pj, tid, corr, start, end);
            return;
        }
    }
    ng_nvtx_call_any(pj, tid, corr, start, end);
}

static inline int ng_nvtx_work(struct ng_nvtx *pj, int64_t gpid, int64_t corr,
                                  int64_t device, int64_t start, int64_t end, size_t item,
                                  enum ng_work_class cls)
{
    const uint16_t *slot = pj->track_items ? NULL
                           : ng_nvtx_hot_slot(&pj->ids, gpid & NG_NVTX_GPID_MASK, corr);
    if (!slot || !*slot)
        return ng_nvtx_work_any(pj, gpid, corr, device, start, end, item, cls);
    struct ng_acc *a = pj->range_acc[*slot - 1];
    if (!a)
        return 0;   /* a warm-up epoch */
    if (ng_acc_add(a, device, start, end, cls) < 0 ||
        (pj->n_groups && ng_nvtx_nested_work(pj, gpid, corr, end - start, 1) < 0))
        return -1;
    pj->taken++;
    return 1;
}

#endif
