/* ng_means: what decides a verdict with samples (docs/statistics.md).
 * The ratio of the two sides' mean time per epoch (total time over the
 * epochs counted), which no split of the epochs into clusters can flip as
 * it flips a median; with kinds of epoch, the current's kinds at the
 * baseline's mix, and the test of the mix; a one-sided Welch t test and a
 * 95% interval of that ratio on its log, each side's variance taken within
 * the kinds, allowing for dependence between neighbouring epochs, with
 * the test of the logs beside it when the epochs are skewed; for a
 * history baseline, the past runs' means as the unit; the leading epochs
 * that are warm-up; how many epochs a side the test would need to tell
 * the threshold's change; the call it makes of the threshold; and Holm's
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

/* One side's epochs: each run's in the order they ran (the dependence
 * between neighbours is measured within a run, never across two). */
struct ng_means_side {
    const double *x;
    size_t n;
    const size_t *runs;        /* epochs of each run, in order; NULL: one run */
    size_t n_runs;
};

/* Fewer samples a side than this: an interval but no test (the ratio
 * alone decides); for runs as the unit, fewer past runs than this: no
 * spread between runs is known. */
#define NG_MEANS_MIN_TEST 3

/* The largest lag-1 autocorrelation the variances allow for: past it an
 * epoch says almost nothing new, and the inflation would be a guess. */
#define NG_MEANS_RHO_MAX 0.9

/* The evidence of dependence (standard errors of the lag-1
 * autocorrelation above independence) before the variances allow for it. */
#define NG_MEANS_AR_Z 1.0

/* The variance inflation past which the epochs are correlated enough to
 * matter: the verdict's warning and details say so. */
#define NG_MEANS_INFLATION_SHOWN 1.5

/* Fewer epochs of a kind in a run than this tell nothing of dependence:
 * the correction for a short series' bias would only amplify noise. */
#define NG_MEANS_AR_EPOCHS 8

/* The skewness of the epochs past which the same test on their logs must
 * agree: a right-skewed sample's low mean comes with a low variance, and
 * the test of the means alone fails unchanged pairs more often than
 * alpha (6-7% at 8 lognormal epochs, sigma 0.5). */
#define NG_MEANS_SKEW 0.5

/* How the two figures the ratio is made of were formed. */
enum ng_means_basis {
    NG_MEANS_EPOCHS,           /* each side's mean */
    NG_MEANS_MIX,              /* the current's kinds at the baseline's mix (direct standardisation) */
    NG_MEANS_RUNS,             /* the mean of the past runs' means against the current run's */
};

struct ng_means {
    enum ng_means_basis basis;
    double figure[2];          /* baseline, current: ms per epoch as the ratio takes them */
    double ratio;              /* figure[1] / figure[0]: what decides */
    double raw_ratio;          /* the current's mean over the baseline's: the job's own change */
    int has_test;              /* an interval (2 or more samples a side, every stratum) */
    int has_p;                 /* a test (NG_MEANS_MIN_TEST a side, or past runs) */
    double p_value;            /* one-sided: current's figure larger (with log_test, the
                                  larger of the two tests' p) */
    int log_test;              /* the epochs were skewed: the test on their logs had a say */
    double ci_lo, ci_hi;       /* 95% interval of the ratio */
    double df;                 /* Welch-Satterthwaite degrees of freedom */
    size_t strata;             /* clusters the variances were taken in (1: none) */
    /* epochs a side the test needs to tell `threshold` at this noise, one-
     * sided alpha, power 0.8 (normal approximation); 0 when unknown */
    double epochs_needed;
    /* dependence between neighbouring epochs: the lag-1 autocorrelation
     * the variances allow for (bias-corrected, in [0, NG_MEANS_RHO_MAX])
     * and what it multiplies the variance of a side's mean by (1: none) */
    double rho;
    double inflation;
    /* the mix of kinds (strata > 1): each kind's epochs and mean per side,
     * the test of the counts (Fisher's exact for two kinds, else chi-square)
     * and what the current's change of mix adds to its time per epoch */
    size_t count[NG_CLUSTERS_MAX][2];
    double kind_ms[NG_CLUSTERS_MAX][2];
    double kind_median[NG_CLUSTERS_MAX];   /* each kind's median in the baseline */
    double mix_p;
    double mix_ms;
    size_t dropped;            /* kinds the current lacks: out of both figures */
    /* runs as the unit: the past runs compared, and the spread of their means */
    size_t runs;
    double between_cv;         /* the run means' standard deviation over their mean */
};

/* How the interval is made (JSON ratio_ci_method), one text a basis, and
 * with the variances taken within clusters. */
#define NG_MEANS_CI_METHOD "t interval of the log ratio of means (Welch)"
#define NG_MEANS_CI_METHOD_STRATA NG_MEANS_CI_METHOD " within clusters"
#define NG_MEANS_CI_METHOD_RUNS "t interval of the log ratio of the run's mean to past runs' means"

/* The comparison of baseline x (nx epochs, one run) and current y (ny). */
void ng_means_compare(const double *x, size_t nx, const double *y, size_t ny, double threshold,
                      double alpha, struct ng_means *out);
/* The same with runs.  With two or more kinds of epoch (the baseline's
 * epochs split at each gap past NG_CLUSTER_GAP) the current's kinds are
 * weighed by the baseline's shares: the figure no longer moves with the
 * mix, and the variance within the kinds is the right one whether kinds
 * alternate by design or fall at random; the change of the mix is tested
 * on its own (mix_p). */
void ng_means_compare_in(const struct ng_means_side *b, const struct ng_means_side *c,
                         double threshold, double alpha, struct ng_means *out);
/* Runs as the unit (a nightly baseline of past runs): the current run's
 * mean against the distribution of the past runs' means, the spread
 * between runs estimated from them, the current run's own spread within
 * added. */
void ng_means_compare_runs(const struct ng_means_side *b, const struct ng_means_side *c,
                           struct ng_means *out);

/* What the figures say of the threshold. */
enum ng_means_call {
    NG_MEANS_WITHIN,           /* within the threshold */
    NG_MEANS_NOT_SIGNIFICANT,  /* past it, but the test does not say it is real */
    NG_MEANS_MIX_SHIFTED,      /* within it at the baseline's mix, but the mix changed
                                  significantly and the raw ratio is past it */
    NG_MEANS_FEW_RUNS,         /* past it, against fewer than NG_MEANS_MIN_TEST past runs */
    NG_MEANS_PAST,             /* past it, and significant (or no test could run) */
};
enum ng_means_call ng_means_call(const struct ng_means *m, double threshold, double alpha);
#define NG_MEANS_CALLS 5

/* The call's and the basis's names in the JSON verdict, and back (-1 for
 * a name that is none). */
const char *ng_means_call_name(enum ng_means_call c);
int ng_means_call_parse(const char *name, enum ng_means_call *out);
const char *ng_means_basis_name(enum ng_means_basis b);
int ng_means_basis_parse(const char *name, enum ng_means_basis *out);

/* How many of a run's first epochs x[0..n) are warm-up: each more than
 * NG_MEANS_WARMUP times every epoch after the leading ones, at most a
 * quarter of the run, with at least 3 epochs left.  0 when none. */
#define NG_MEANS_WARMUP 2.0
size_t ng_means_warmup(const double *x, size_t n);

/* Holm's step-down adjustment of n p-values, in place order kept:
 * p_adj(i) = max over the j smallest up to i of min(1, (m - j + 1) p_(j)),
 * with m >= n the family's size (items that were not tested count as the
 * largest p-values, which only makes the adjustment stricter). */
void ng_means_holm(double *p, size_t n, size_t m);

#endif
