/* ng_attribution: which work items made the change.  Pure: the profiles of
 * both sides and a verdict whose samples are counted in, the verdict's
 * items, range groups and per-kernel gates out; no I/O, no globals.
 *
 * Items are merged over both sides by kind and name (a memcpy and a kernel
 * of one name stay two), each with its time per epoch on each side, its
 * change and its share of the total change.  The verdict keeps the top
 * --top by contribution; with per-kernel gates also the top --top by
 * current time and every item the gates did not pass, decided as one
 * family (Holm).  The nested NVTX range groups get the same figures, and
 * the comparability of the two sides' items and places is filled in.
 * ng_compare() calls it once the sides' samples and the per-kernel floor
 * are known.
 *
 * Ownership: the kept items borrow their names from the profiles, which
 * must outlive the verdict; the range groups' names are the verdict's
 * (ng_verdict_release()). */
#ifndef NG_ATTRIBUTION_H
#define NG_ATTRIBUTION_H

#include <stddef.h>

#include "core/ng_profile.h"
#include "core/ng_verdict.h"

struct ng_attribution_opts {
    int nvtx;                  /* samples are epochs (NVTX mode), not runs */
    long top;                  /* items kept by contribution (and by current time) */
    double alpha;              /* significance level of each item's test; 0: no test */
    double kernel_threshold;   /* per-kernel gates when > 0: an item's largest ratio */
};

/* Fills v->kernels, v->ranges, the item and place figures of
 * v->comparability and, with per-kernel gates, the items' verdicts and
 * counts.  The sides' epochs_counted (and, in total mode, run_epochs) and
 * v->kernel_floor_ms must be set. */
void ng_attribution_fill(struct ng_verdict *v, const struct ng_profile *baseline, size_t nb,
                         const struct ng_profile *current, size_t nc,
                         const struct ng_attribution_opts *o);

#endif
