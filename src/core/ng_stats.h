/* ng_stats: the statistics of the decision: order statistics of a sample,
 * the one-sided Mann-Whitney U test, Student's t and the chi-square tails,
 * Fisher's exact test of a 2x2 table and the Mann-Kendall trend test with
 * its Theil-Sen slope.  Pure functions on arrays.
 *
 * Ownership: inputs are borrowed and never modified (functions that sort
 * work on a copy). */
#ifndef NG_STATS_H
#define NG_STATS_H

#include <stddef.h>

struct ng_summary {
    double median, min, max, mean;
};

/* The median of an even count is the mean of the middle two.  No samples
 * (n == 0, e.g. the missing side of --print-profile FILE) have no
 * statistics: every field is NaN, which no reporter can mistake for 0 ms. */
void ng_stats_summary(const double *x, size_t n, struct ng_summary *out);

/* One-sided Mann-Whitney U test of H1 "y tends to be larger than x".
 * Exact null distribution when there are no ties and both samples have at
 * most NG_STATS_EXACT_MAX values; otherwise the normal approximation with
 * tie correction and continuity correction.  Returns p in [0, 1]; *exact
 * (may be NULL) tells which was used. */
#define NG_STATS_EXACT_MAX 50
double ng_stats_mwu_greater(const double *x, size_t nx, const double *y, size_t ny, int *exact);

/* P(T > t) for Student's t with df degrees of freedom (df > 0; past 1e7
 * the normal distribution), through the regularized incomplete beta. */
double ng_stats_t_upper(double t, double df);

/* P(X > x) for chi-square with df degrees of freedom (df > 0), through
 * the regularized upper incomplete gamma function. */
double ng_stats_chi2_upper(double x, double df);

/* Fisher's exact test of the 2x2 table {{a, b}, {c, d}}, two-sided as
 * scipy.stats.fisher_exact gives it: the probability, given the margins,
 * of every table no more likely than this one. */
double ng_stats_fisher_2x2(size_t a, size_t b, size_t c, size_t d);

/* The Mann-Kendall test of an upward trend in x[0..n) (in order), with
 * the tie correction and the continuity correction (one-sided p), and
 * Theil-Sen's slope (the median of the pairwise slopes, per step).
 * Fewer than 3 values: p = 1, slope 0.  The pairs are n^2 / 2: callers
 * bound n. */
struct ng_trend {
    double s;          /* the Mann-Kendall statistic */
    double p_value;    /* one-sided, upward */
    double slope;      /* Theil-Sen, per step */
    double intercept;  /* the median of x[i] - slope * i: the line at i = 0 */
};
void ng_stats_trend(const double *x, size_t n, struct ng_trend *out);

#endif
