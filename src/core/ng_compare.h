/* ng_compare: the decision.  Pure: the profiles of each side and the
 * options in, one verdict out; no I/O, no clock, no globals.
 *
 * Total mode (the prototype's rule): each profile is one per-epoch sample,
 * its kernel time / epochs.  NVTX mode: every counted epoch of every
 * profile is a sample.  The ratio is current median / baseline median;
 * FAIL when it exceeds the threshold and, with at least 3 samples a side
 * and alpha > 0, a one-sided Mann-Whitney U test finds it significant;
 * a ratio over the threshold that is not significant is INCONCLUSIVE.
 * Which work items made the change, and the per-kernel gates, are
 * ng_attribution's.
 *
 * Ownership: the verdict borrows the profiles' paths and kernel names and
 * opts->name, so they must outlive it; release it with
 * ng_verdict_release(). */
#ifndef NG_COMPARE_H
#define NG_COMPARE_H

#include <stddef.h>

#include "core/ng_profile.h"
#include "core/ng_verdict.h"

struct ng_compare_opts {
    const char *name;
    double threshold;    /* >= 1; FAIL when ratio > threshold */
    long epochs;         /* total mode: epochs each run made, >= 1 */
    /* total mode: the epochs of each run of one side, for captures of
     * different lengths; 0: `epochs` */
    long baseline_epochs, current_epochs;
    int nvtx;            /* per-epoch samples from NVTX epoch ranges */
    enum ng_metric metric;
    unsigned work;       /* the kinds counted (NG_WORK_BIT); 0: NG_WORK_DEFAULT */
    int work_given;      /* --work was set (flag, variable or manifest), not defaulted */
    long skip_epochs;    /* NVTX mode: warm-up epochs dropped from each run */
    double alpha;        /* significance level; 0 = no test */
    long top;            /* kernels kept in the attribution */
    double straggler_threshold;   /* a device past this x the others' median is named;
                                     0: NG_STRAGGLER_DEFAULT */
    struct ng_policy policy;
};

/* NVIDIA driver versions in either spelling ("470.141.03", 47014103):
 * the same when their digits are; shown dotted where that is unambiguous. */
int ng_driver_same(const char *a, const char *b);
void ng_driver_show(const char *v, char *buf, size_t size);

/* Starts a verdict for these sides: paths, formats, and whatever figures
 * the profiles that loaded already have; outcome ERROR until decided. */
void ng_compare_begin(struct ng_verdict *v, const struct ng_profile *baseline, size_t nb,
                      const struct ng_profile *current, size_t nc,
                      const struct ng_compare_opts *opts);


/* Decides: every profile must be loaded (nb, nc >= 1). */
void ng_compare(struct ng_verdict *v, const struct ng_profile *baseline, size_t nb,
                const struct ng_profile *current, size_t nc, const struct ng_compare_opts *opts);

#endif
