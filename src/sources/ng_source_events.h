/* ng_source_events: timed events into a profile, for the readers of
 * traces that list each GPU operation with its start and end (a Chrome
 * trace, rocprofv3's JSON, CSV and rocpd database).  A reader says what it
 * reads, in any order: the processes, the GPU models, the work items (a
 * kernel, a copy: a key and its names), ranges (start, end, thread, text),
 * launch calls (thread, correlation id, start) and the GPU work (process,
 * correlation id, device, start, end, item); ng_source_events_finish()
 * makes the profile of them: the rows (--kernel-names, the kernel
 * filters, the classes of the breakdown), the devices and processes, the
 * machine, the total or the epochs (core/ng_nvtx.h), `ranges`' list, and
 * every warning and refusal that goes with them.
 *
 * Epochs: work belongs to the range that held the start of its launch
 * call (the same correlation id in the same process).  A range and a call
 * are given on their OS thread; how steps span threads is the reader's
 * choice (init's flags):
 * - by default a step is a window over its whole process (torch.profiler:
 *   the backward pass runs on another thread than the step's range);
 * - NG_SOURCE_EVENTS_THREAD_STEPS: a call counts in the ranges of its own
 *   thread only, as nsys does;
 * - NG_SOURCE_EVENTS_TIME_FALLBACK: a profile that has no launch call at
 *   all has each operation attributed by its GPU start to the ranges of
 *   its process, with a warning (words.by_time says how to record the
 *   calls).  The ranges are then held until finish, when it is known
 *   whether calls came.
 *
 * Use: ng_source_events_init (which may fail: the --epoch-range auto
 * pattern), the events, ng_source_events_finish, ng_source_events_release
 * (always, after init, failed or not).  A function that fails returns -1
 * with err set, except ng_source_events_work in total mode when an
 * operation comes further out of order than its window: -1 with err
 * unset and ng_source_events_out_of_order() true; the reader reads the
 * file again with NG_SOURCE_EVENTS_KEEP_ALL.
 *
 * Memory: the items always; in total mode a window of 2^16 operations
 * (40 bytes each); with epochs, `ranges` or KEEP_ALL every operation and
 * call, at most 2^24 of each (then a refusal).
 *
 * Ownership: the sink borrows the profile, the options, the shown name and
 * the words for its life; it copies every text it is given; what it puts
 * in the profile is the profile's. */
#ifndef NG_SOURCE_EVENTS_H
#define NG_SOURCE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_filter.h"
#include "core/ng_metric.h"
#include "core/ng_nvtx.h"
#include "core/ng_profile.h"
#include "core/ng_range_groups.h"
#include "util/ng_err.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

struct ng_source_opts;

/* What the messages say of the reader's format. */
struct ng_source_events_words {
    const char *auto_pattern;   /* the ERE --epoch-range auto stands for */
    const char *auto_shown;     /* said after it in a "no range matches" refusal */
    const char *no_ranges;      /* "no user_annotation or cpu_op events" */
    const char *no_ranges_hint; /* after the refusal for no ranges ("" or " (record ...)") */
    const char *a_range;        /* "user_annotation or cpu_op event" */
    const char *no_work;        /* why nothing may be counted, in parentheses */
    const char *unlaunched;     /* why work may have no launch call, in parentheses */
    const char *by_time;        /* TIME_FALLBACK: how to record launch calls */
};

#define NG_SOURCE_EVENTS_KEEP_ALL 1u       /* keep every operation, even in total mode */
#define NG_SOURCE_EVENTS_THREAD_STEPS 2u   /* a call counts in its own thread's ranges */
#define NG_SOURCE_EVENTS_TIME_FALLBACK 4u  /* no calls at all: attribute by GPU start */

/* ng_source_events_work's process when the work's process is not known:
 * its call is found by correlation id alone, and it counts under
 * default_pid. */
#define NG_SOURCE_EVENTS_ANY UINT32_MAX

struct ng_source_events_item;
struct ng_source_events_op;
struct ng_source_events_call;
struct ng_source_events_pair;
struct ng_source_events_held;

/* Visible for embedding; the fields are private but those marked. */
struct ng_source_events {
    /* the reader's to set before finish */
    int64_t default_pid;       /* the process of work given as NG_SOURCE_EVENTS_ANY */
    int64_t rank, world_size;  /* the processes' distributed rank; -1: unknown */

    const char *shown;
    const struct ng_source_opts *opts;
    const struct ng_source_events_words *words;
    struct ng_profile *p;
    struct ng_err *err;
    unsigned work, flags;
    enum ng_metric metric;
    /* items */
    struct ng_strmap item_index;   /* kind byte + key -> item */
    struct ng_strmap shown_index;  /* kind byte + shown name -> the item named so */
    struct ng_source_events_item *items;
    size_t n_items;
    struct ng_buf names;       /* NUL-terminated names of the items */
    /* operations: kept, or in total mode through the window */
    int keep_rows;
    int out_of_order;
    struct ng_source_events_op *window;   /* a heap: operations out of order */
    size_t n_window;
    struct ng_source_events_op *run;      /* a ring: operations in order of start */
    size_t run_head, n_run;
    int64_t fed;
    int fed_any;
    struct ng_source_events_op *ops;
    size_t n_ops;
    struct ng_source_events_call *calls;
    size_t n_calls;
    struct ng_source_events_held *held;   /* TIME_FALLBACK: ranges until finish */
    size_t n_held;
    struct ng_arena held_texts;
    int by_time;
    struct ng_idmap procs;     /* pid -> index */
    int64_t *proc_pid;
    size_t n_procs;
    struct ng_idmap threads;   /* (process index, tid) -> number */
    size_t n_threads;
    struct ng_buf gpus;        /* "\n"-separated GPU models */
    /* figures */
    struct ng_idmap pair_index;   /* (device, process index) -> pair */
    struct ng_source_events_pair *pairs;
    size_t n_pairs, last_pair;
    struct ng_acc whole;
    struct ng_nvtx pj_store;
    struct ng_nvtx *pj;
    struct ng_regex auto_re;
    int have_auto_re;
    int64_t unlaunched, unlaunched_ns;
    struct ng_filter_account account;
    double comm_cpu;
    struct ng_range_list *ranges;
    int64_t *range_start, *range_end;
};

/* Starts the sink for profile p (its ranges list too, when opts ask for
 * `ranges`): -1 when the auto pattern does not compile. */
int ng_source_events_init(struct ng_source_events *ev, struct ng_profile *p,
                          const struct ng_source_opts *opts, const char *shown,
                          const struct ng_source_events_words *words, unsigned flags,
                          struct ng_err *err);
void ng_source_events_release(struct ng_source_events *ev);

/* 1 when ranges and calls matter (epochs or `ranges`): a reader may skip
 * reading them otherwise. */
int ng_source_events_wants_ranges(const struct ng_source_events *ev);

/* The index of process pid (an OS pid), added when new. */
uint32_t ng_source_events_process(struct ng_source_events *ev, int64_t pid);

/* A GPU model of the machine (copied; duplicates are fine). */
void ng_source_events_gpu(struct ng_source_events *ev, const char *model);

/* 1 when --work counts operations of this kind. */
int ng_source_events_counts(const struct ng_source_events *ev, enum ng_work_kind kind);

/* An operation of a kind --work leaves out: counted in the profile's
 * left_out figures.  -1 when they overflow. */
int ng_source_events_leave_out(struct ng_source_events *ev, enum ng_work_kind kind,
                               int64_t ns);

/* The item of key[0..key_len) of a kind (any bytes: a name, a kernel id),
 * added when new with its full name and its base name (NULL: derived with
 * ng_kernel_base_name()); items whose shown name is the same are one row.
 * The index, or -1 with err (a kernel filter over its CPU budget). */
int64_t ng_source_events_item(struct ng_source_events *ev, enum ng_work_kind kind,
                              const void *key, size_t key_len, const char *full,
                              const char *base);

/* A range of thread tid of process proc (end NG_NVTX_NO_END: never ended);
 * -1 past the memory bound. */
int ng_source_events_range(struct ng_source_events *ev, uint32_t proc, int64_t tid,
                           int64_t start, int64_t end, const char *text);

/* A launch call: correlation id corr, started at start on thread tid of
 * process proc.  -1 past the memory bound. */
int ng_source_events_call(struct ng_source_events *ev, uint32_t proc, int64_t tid, int64_t corr,
                          int64_t start);

/* A GPU operation of a counted kind: item from ng_source_events_item(),
 * launched by call corr of process proc (has_corr 0: no call known),
 * on device (an id unique in the profile), from start to end (end >=
 * start, the reader checked).  -1 with err, or out of order (above). */
int ng_source_events_work(struct ng_source_events *ev, uint32_t proc, int has_corr, int64_t corr,
                          int64_t device, int64_t start, int64_t end, size_t item);

int ng_source_events_out_of_order(const struct ng_source_events *ev);

/* One reading of a file into p by a reader (keep_all: init's
 * NG_SOURCE_EVENTS_KEEP_ALL; *out_of_order: what the sink said). */
typedef int (*ng_source_events_once)(struct ng_profile *p, const char *path,
                                     const struct ng_source_opts *opts, int keep_all,
                                     int *out_of_order, struct ng_err *err);

/* A reader's load: once(), and once more keeping every operation when the
 * first reading met one further out of order than total mode's window
 * (what --work left out is counted again from zero). */
int ng_source_events_load(struct ng_profile *p, const char *path,
                          const struct ng_source_opts *opts, ng_source_events_once once,
                          struct ng_err *err);

/* Everything read: the profile made and finished (ng_profile_finish), or
 * -1 with err (nothing counted, no epochs, an overflow). */
int ng_source_events_finish(struct ng_source_events *ev);

#endif
