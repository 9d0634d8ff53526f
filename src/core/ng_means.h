/* ng_means: what decides a verdict with samples (docs/statistics.md).
 * The ratio of the two sides' mean time per epoch (total time over the
 * epochs counted), which no split of the epochs into clusters can flip as
 * it flips a median; a one-sided Welch t test and a 95% interval of that
 * ratio on its log, each side's variance taken within the clusters of
 * the baseline's epochs (a step that launches two kinds of ranges has two
 * clusters, and the spread between them is not noise); how many epochs a
 * side the test would need to tell the threshold's change; and Holm's
 * adjustment of the per-item p-values.  Pure functions on arrays, no
 * randomness: the same samples give the same bytes.
 *
 * Ownership: inputs are borrowed and never modified. */
#ifndef NG_MEANS_H
#define NG_MEANS_H

#include <stddef.h>

/* A run of a side's sorted epochs with no gap of more than
 * NG_CLUSTER_GAP times between neighbours. */
#define NG_CLUSTER_GAP 2.0
#define NG_CLUSTERS_MAX 8

struct ng_cluster {
    size_t n;
    double median, min, max;   /* ms */
};

/* The clusters of x (sorted apart, largest gaps first, at most
 * NG_CLUSTERS_MAX; a cluster of fewer than max(2, n/20) epochs joins its
 * nearer neighbour: an outlier is not a kind of epoch), smallest first.
 * Returns how many (1: one kind of epoch; 0: n == 0). */
size_t ng_means_clusters(const double *x, size_t n, struct ng_cluster *out);

struct ng_means {
    double ratio;              /* mean(current) / mean(baseline) */
    int has_test;              /* both sides have 2 or more epochs (in every stratum) */
    double p_value;            /* one-sided: current's mean larger */
    double ci_lo, ci_hi;       /* 95% interval of the ratio */
    double df;                 /* Welch-Satterthwaite degrees of freedom */
    size_t strata;             /* clusters the variances were taken in (1: none) */
    /* epochs a side the test needs to tell `threshold` at this noise, one-
     * sided alpha, power 0.8 (normal approximation); 0 when unknown */
    double epochs_needed;
};

/* How the interval is made (JSON ratio_ci_method): with one stratum, and
 * with the variances taken within clusters. */
#define NG_MEANS_CI_METHOD "t interval of the log ratio of means (Welch)"
#define NG_MEANS_CI_METHOD_STRATA NG_MEANS_CI_METHOD " within clusters"

/* The comparison of baseline x (nx epochs) and current y (ny). */
void ng_means_compare(const double *x, size_t nx, const double *y, size_t ny, double threshold,
                      double alpha, struct ng_means *out);
/* The same with the baseline's clusters already found (ng_means_clusters
 * of x: the verdict keeps them per side), so x is not sorted again. */
void ng_means_compare_in(const double *x, size_t nx, const double *y, size_t ny,
                         const struct ng_cluster *c, size_t k, double threshold, double alpha,
                         struct ng_means *out);

/* Holm's step-down adjustment of n p-values, in place order kept:
 * p_adj(i) = max over the j smallest up to i of min(1, (m - j + 1) p_(j)),
 * with m >= n the family's size (items that were not tested count as the
 * largest p-values, which only makes the adjustment stricter). */
void ng_means_holm(double *p, size_t n, size_t m);

#endif
