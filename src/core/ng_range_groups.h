/* ng_range_groups: NVTX ranges grouped by name shape, for finding the
 * epochs of a profile (the `ranges` command, and the --epoch-range auto
 * refusal).  Pure: ranges in, groups out.
 *
 * A range's group is its text with every run of digits replaced by '#'
 * ("step 12" and "step 7" are "step #").  Each group has its count, the
 * GPU time launched inside its ranges, the distinct threads it ran on, its
 * nesting depths, and the spread of GPU time per occurrence.  The most
 * step-like group is one that occurs often (at least NG_RANGE_STEP_MIN
 * times), with similar GPU time each (coefficient of variation at most
 * NG_RANGE_STEP_CV) and covers most of the GPU time (at least
 * NG_RANGE_STEP_SHARE); of several, the one covering the most.
 *
 * Ownership: ng_range_groups() returns an array the caller frees with
 * ng_range_groups_free(); the names in it are owned by it.  The inputs are
 * borrowed for the call. */
#ifndef NG_RANGE_GROUPS_H
#define NG_RANGE_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_util.h"

#define NG_RANGE_STEP_MIN 3
#define NG_RANGE_STEP_CV 0.25
#define NG_RANGE_STEP_SHARE 0.5

struct ng_range_in {
    const char *text;
    uint64_t thread;           /* any id unique per thread (and process) */
    int depth;                 /* 0: outermost on its thread */
    int64_t gpu_ns;            /* GPU time launched inside it */
};

struct ng_range_group {
    char *name;                /* the text, digits as '#' (owned) */
    char *example;             /* its first range's text (owned): the pattern's source, since
                                  a '#' of the text itself ("ProfilerStep#3") is not a digit */
    size_t count;
    int64_t gpu_ns;
    size_t threads;
    int min_depth, max_depth;
    double mean_ms, cv;        /* GPU time per occurrence: mean, stddev / mean (0 if mean 0) */
    double share;              /* gpu_ns / the profile's GPU time (0..1, 0 when it is 0) */
};

/* Every NVTX range of a profile, as a source lists it for `nsys-gate
 * ranges` (ng_source_opts.list_ranges): texts in the list's arena;
 * total_ns the kernel time of the whole profile. */
struct ng_range_list {
    struct ng_range_in *r;
    size_t n;
    int64_t total_ns;
    struct ng_arena texts;
};

/* Each range's depth and the kernel time launched inside it, from the
 * ranges (start, end, thread, text; depth and gpu_ns are set here) and
 * the launch calls: a call of thread tid from call_start to call_end whose
 * work took call_ns lies in every range of its thread that holds it
 * whole.  The calls' arrays are sorted here (by thread, then start). */
struct ng_range_call {
    uint64_t thread;
    int64_t start, end, ns;
};
void ng_range_attribute(struct ng_range_in *r, const int64_t *start, const int64_t *end,
                        size_t n, struct ng_range_call *calls, size_t n_calls);
void ng_range_list_release(struct ng_range_list *l);

/* "step 12/3" -> "step #/#" (a new string). */
char *ng_range_group_name(const char *text);

/* The groups of ranges[0..n), biggest GPU time first (ties: more ranges,
 * then name); total_ns: the profile's GPU time, for the shares. */
struct ng_range_group *ng_range_groups(const struct ng_range_in *ranges, size_t n,
                                       int64_t total_ns, size_t *n_groups);
void ng_range_groups_free(struct ng_range_group *g, size_t n);

/* The index of the most step-like group, or -1 when none qualifies. */
long ng_range_groups_step(const struct ng_range_group *g, size_t n);

/* An --epoch-range pattern matching exactly a group's texts, from its
 * example: ERE special characters escaped, each run of digits [0-9]+,
 * anchored ("^ProfilerStep#[0-9]+$").  A new string. */
char *ng_range_group_pattern(const struct ng_range_group *g);

#endif
