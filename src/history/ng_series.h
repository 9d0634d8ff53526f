/* ng_series: a gate's nightly series judged: its change points
 * (core/ng_changepoint.h says how they are found), each with the
 * acknowledgement in force (history/ng_accept.h), whether the latest runs
 * follow a regression nobody acknowledged, and which runs a history
 * baseline takes.  One rule for `nsys-gate changes`, the dashboard and
 * the gate's --baseline-history, so the three never disagree.
 *
 * For these metrics smaller is better: a change whose magnitude (median
 * after / median before) is above 1 is a regression.  A segment "follows
 * an unacknowledged regression" when the change that opens it is a
 * regression no acknowledgement in force covers; an improvement after it
 * (the fix) opens a segment that does not.
 *
 * Ownership: the figures and commits are borrowed; the changes are the
 * caller's (free()). */
#ifndef NG_SERIES_H
#define NG_SERIES_H

#include <stddef.h>
#include <time.h>

#include "core/ng_changepoint.h"
#include "core/ng_stats.h"
#include "history/ng_accept.h"
#include "util/ng_err.h"

struct ng_series_change {
    struct ng_cp cp;              /* cp.at: the index of the first bad run */
    int regression;               /* magnitude above 1 */
    const struct ng_ack *ack;     /* the acknowledgement in force, or NULL */
    int expired;                  /* one matched, but it has expired */
    int standing;                 /* the last change, a regression, not acknowledged */
};

/* -1 with err when an acknowledgement of gate names more than one of the
 * commits of its runs (commits[0..n), NULL for a run without one). */
int ng_series_check_acks(const struct ng_accept *a, const char *gate,
                         const char *const *commits, size_t n, struct ng_err *err);

/* The changes of the gate's figures x[0..n), oldest first, judged against
 * the acknowledgements a in force at now, into *out (NULL when none; the
 * caller's) and *n_out.  -1 with err when an acknowledgement of the gate
 * names more than one of its commits (ng_series_check_acks()). */
int ng_series_judge(const char *gate, const double *x, const char *const *commits, size_t n,
                    const struct ng_cp_opts *o, const struct ng_accept *a, time_t now,
                    struct ng_series_change **out, size_t *n_out, struct ng_err *err);

/* One series of a batch: the caller's gate, figures and commits (read
 * only), and what ng_series_judge() made of them (changes: the caller's to
 * free, as the arrays). */
struct ng_series_job {
    const char *gate;
    double *x;
    const char **commits;
    size_t n;
    struct ng_series_change *changes;
    size_t n_changes;
};

/* ng_series_judge() of every job, the jobs shared out over `workers`
 * threads (ng_threads: 0, a worker a processor; each writes only its own):
 * every job gets its changes; -1 with the
 * error of the first job that has one, in job order, so the answer is the
 * one a loop would give. */
int ng_series_judge_all(struct ng_series_job *jobs, size_t n, long workers,
                        const struct ng_cp_opts *o, const struct ng_accept *a, time_t now,
                        struct ng_err *err);

/* 1 when the latest runs follow an unacknowledged regression. */
int ng_series_standing(const struct ng_series_change *c, size_t n_c);

/* The runs a history baseline takes: the latest segment that does not
 * follow an unacknowledged regression, [*from, *to) of the n runs.
 * Returns the index in c of the change that ends it (the unacknowledged
 * regression after it), or n_c when it is the latest segment. */
size_t ng_series_baseline(const struct ng_series_change *c, size_t n_c, size_t n, size_t *from,
                          size_t *to);

/* The runs a history baseline takes of the gate's series x[0..n) (failed:
 * each run's own verdict was fail), at most `size` of them:
 * - the latest segment that does not follow an unacknowledged regression
 *   (ng_series_baseline());
 * - less the failing runs at its end that a change point cannot tell yet
 *   (fewer than `size`, with runs before them in the segment);
 * - its latest `size` runs, unless the segment crept: runs that rise
 *   night after night with no single step (a Mann-Kendall trend upward at
 *   NG_SERIES_CREEP_P over the whole segment), which a window of the
 *   latest runs would follow until no night looks wrong.  Then its first
 *   `size` runs, the level it crept from (of its latest 2,000 runs: the
 *   trend costs their square). */
#define NG_SERIES_CREEP_P 0.01
struct ng_series_window {
    size_t from, to;              /* the runs taken: [from, to) */
    size_t held_out;              /* failing runs held out at the segment's end */
    size_t ends;                  /* the index in the changes of the one after it, or n_c */
    int crept;                    /* the window is the segment's first runs */
    size_t segment_from, segment_to;   /* the segment (its held-out runs included) */
    size_t trend_from;            /* the first run the trend was taken from */
    struct ng_trend trend;        /* of the segment's runs from trend_from */
    /* crept: the least-squares hinge through the segment's runs from
     * trend_from, level + rise x max(0, t - bend) at run trend_from + t
     * (flat until the creep began, then a line) */
    double level, rise;
    size_t bend;
};
void ng_series_window(const struct ng_series_change *c, size_t n_c, const double *x,
                      const unsigned char *failed, size_t n, size_t size,
                      struct ng_series_window *out);

/* What a crept segment rose by, from its trend line: the line at its last
 * run over the line at its first (Theil-Sen). */
double ng_series_crept_ratio(const struct ng_series_window *w);

/* What run `run` of the series (in the window) is multiplied by to stand
 * for the level the series crept from: the hinge's level over its value
 * at that run (1 before the creep began, and when the window did not
 * creep).  A creep that began with the segment lifts its first runs too:
 * taken back to where they started, they are the anchor. */
double ng_series_creep_scale(const struct ng_series_window *w, size_t run);

#endif
