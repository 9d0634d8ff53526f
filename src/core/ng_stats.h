/* ng_stats: the statistics of the decision: order statistics of a sample,
 * the one-sided Mann-Whitney U test and Student's t tail.  Pure functions on arrays.
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

#endif
