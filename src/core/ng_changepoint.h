/* ng_changepoint: where a series of nightly figures changes level, pure
 * (no I/O).  The method is E-Divisive means (Matteson & James 2014) with
 * Otava's significance test in place of permutations:
 *
 * 1. The series is smoothed by a running median of three, so that a
 *    one-night spike (or an isolated heavy-tailed outlier) neither draws a
 *    split to itself nor widens the test's variance; a step keeps its
 *    edge under that filter.
 * 2. Binary segmentation: in a segment, every split t whose two sides
 *    hold at least NG_CP_MIN_SIDE points is scored by the energy
 *    statistic (alpha 1) of the `window` points either side of it,
 *      Q(t) = m1 m2 / (m1 + m2) * (2 E|X-Y| - E|X-X'| - E|Y-Y'|),
 *    kept up to date in O(window) a step, so a pass is O(n window).  The
 *    split taken is the one with the largest Q among those whose Welch
 *    t-test between the two windows gives p < p_max and whose magnitude
 *    (median after / median before, of the raw figures) is at least
 *    1 + min_change or at most 1 / (1 + min_change); both sides are
 *    split again until no split qualifies.
 * 3. A merge pass, as Otava's: each change is tested again between its
 *    neighbours (windows bounded by them) and the weakest that no longer
 *    qualifies is dropped, until every one does.  Its p and magnitude are
 *    those of this last test.
 *
 * Ownership: the series is borrowed; the changes are the caller's array. */
#ifndef NG_CHANGEPOINT_H
#define NG_CHANGEPOINT_H

#include <stddef.h>

#define NG_CP_MIN_SIDE 4          /* points on each side of a split */
#define NG_CP_DEFAULT_P 0.001
#define NG_CP_DEFAULT_MIN_CHANGE 0.05
#define NG_CP_DEFAULT_WINDOW 50

struct ng_cp_opts {
    double p_max;                 /* --change-p */
    double min_change;            /* --min-change, a fraction (0.05: 5%) */
    size_t window;                /* --window, points either side */
};

struct ng_cp {
    size_t at;                    /* the first point of the new level */
    double p_value;
    double magnitude;             /* median after / median before */
    double before, after;         /* those medians */
};

/* The changes of x[0..n), oldest first, into cp (room for n / NG_CP_MIN_SIDE
 * + 1 is always enough); their count. */
size_t ng_cp_detect(const double *x, size_t n, const struct ng_cp_opts *o, struct ng_cp *cp);

/* Two-sided Mann-Whitney U test of a against b, normal approximation
 * with tie and continuity corrections: the test a split passes. */
double ng_cp_rank_p(const double *a, size_t na, const double *b, size_t nb);

/* Two-sided Welch t-test p of the means of a and b (an independent
 * reference checks it in the tests); 1 when either has fewer than 2. */
double ng_cp_welch_p(const double *a, size_t na, const double *b, size_t nb);

#endif
