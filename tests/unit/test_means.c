/* ng_means (and ng_stats' t tail it uses): the distributions against published values, the clusters on
 * the shapes they are for, Holm's adjustment, and the comparison's edges
 * (the figures against scipy are the stats suite's). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/ng_means.h"
#include "core/ng_stats.h"

static void near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* Student's t upper tails (as scipy.stats.t.sf gives them) */
static void test_t_distribution(void **state)
{
    (void)state;
    near(ng_stats_t_upper(2.0, 10), 0.036694017385370, 1e-9);
    near(ng_stats_t_upper(1.0, 1), 0.25, 1e-12);           /* Cauchy */
    near(ng_stats_t_upper(2.228138851986, 10), 0.025, 1e-9);
    near(ng_stats_t_upper(-2.0, 10), 1 - 0.036694017385370, 1e-12);
    near(ng_stats_t_upper(1.959963984540, INFINITY), 0.025, 1e-9);
    near(ng_stats_t_upper(0, 3.5), 0.5, 1e-12);
    near(ng_stats_t_upper(30, 4), 3.6764280488306617e-06, 1e-9);
}

static void test_clusters(void **state)
{
    double alt[32], one[10], outlier[20];
    struct ng_cluster c[NG_CLUSTERS_MAX];
    (void)state;
    for (int i = 0; i < 32; i++)
        alt[i] = i % 2 ? 15.7 + 0.001 * i : 0.3 + 0.0001 * i;
    assert_int_equal(ng_means_clusters(alt, 32, c), 2);
    assert_int_equal(c[0].n, 16);
    assert_int_equal(c[1].n, 16);
    assert_true(c[0].max < 0.31 && c[1].min > 15.7);
    for (int i = 0; i < 10; i++)
        one[i] = 10 + i;   /* 10 .. 19: no gap past 2x */
    assert_int_equal(ng_means_clusters(one, 10, c), 1);
    for (int i = 0; i < 20; i++)
        outlier[i] = i == 7 ? 100 : 10 + 0.1 * i;   /* one slow epoch is no kind of its own */
    assert_int_equal(ng_means_clusters(outlier, 20, c), 1);
    assert_int_equal(c[0].n, 20);
    assert_int_equal(ng_means_clusters(outlier, 0, c), 0);
}

static void test_holm(void **state)
{
    double p[] = { 0.01, 0.04, 0.03, 0.005 };
    (void)state;
    ng_means_holm(p, 4, 4);
    /* sorted 0.005 0.01 0.03 0.04: x4 0.02, x3 0.03, x2 0.06, x1 0.04 -> running max */
    near(p[3], 0.02, 1e-12);
    near(p[0], 0.03, 1e-12);
    near(p[2], 0.06, 1e-12);
    near(p[1], 0.06, 1e-12);
    double q[] = { 0.001 };
    ng_means_holm(q, 1, 200);   /* a family of 200, one of them tested */
    near(q[0], 0.2, 1e-12);
    double r[] = { 0.5, 0.9 };
    ng_means_holm(r, 2, 10);
    near(r[0], 1, 1e-12);       /* never past 1 */
}

static void test_edges(void **state)
{
    double x[] = { 10, 10, 10 }, y[] = { 12, 12, 12 }, one[] = { 5 };
    struct ng_means m;
    (void)state;
    ng_means_compare(x, 3, y, 3, 1.2, 0.05, &m);   /* no noise at all */
    assert_true(m.has_test);
    near(m.ratio, 1.2, 1e-12);
    assert_true(m.p_value == 0);
    near(m.ci_lo, 1.2, 1e-12);
    ng_means_compare(x, 3, x, 3, 1.2, 0.05, &m);
    assert_true(m.p_value == 1);
    ng_means_compare(one, 1, y, 3, 1.2, 0.05, &m);   /* one sample: no test, no interval */
    assert_false(m.has_test);
    assert_true(isnan(m.ci_lo));
    near(m.ratio, 12.0 / 5, 1e-12);
}

/* The sample-size figure: cv 10% a side, 1.2x, alpha 0.05, power 0.8:
 * (1.645 + 0.842)^2 * 0.02 / ln(1.2)^2 = 3.7, so 4 */
static void test_epochs_needed(void **state)
{
    double x[400], y[400];
    struct ng_means m;
    (void)state;
    for (int i = 0; i < 400; i++) {   /* +-1 in turn: a standard deviation of 10% of 10 */
        x[i] = 10 + (i % 2 ? 1 : -1) * 1.0 * sqrt(400.0 / 399);
        y[i] = 10.5 + (i % 2 ? 1 : -1) * 1.05 * sqrt(400.0 / 399);
    }
    ng_means_compare(x, 400, y, 400, 1.2, 0.05, &m);
    assert_true(m.epochs_needed == 4);
}

/* The chi-square tail and Fisher's exact test, as scipy.stats.chi2.sf and
 * scipy.stats.fisher_exact (two-sided) give them. */
static void test_mix_tests(void **state)
{
    (void)state;
    near(ng_stats_chi2_upper(3.0, 2), 0.22313016014842982, 1e-10);
    near(ng_stats_chi2_upper(10.5, 3), 0.014760897143990665, 1e-10);
    near(ng_stats_chi2_upper(0.5, 1), 0.47950012218695337, 1e-10);
    near(ng_stats_chi2_upper(40, 5), 1.493367900050393e-07, 1e-8);
    near(ng_stats_fisher_2x2(3, 5, 7, 1), 0.11888111888111888, 1e-10);
    near(ng_stats_fisher_2x2(8, 8, 8, 8), 1.0, 1e-12);
    near(ng_stats_fisher_2x2(0, 10, 10, 0), 1.082508822446903e-05, 1e-9);
    near(ng_stats_fisher_2x2(2, 7, 8, 2), 0.02301413756522116, 1e-10);
}

/* Mann-Kendall (S, the one-sided p with continuity and tie corrections,
 * as the normal tail of (S - 1) / sd gives it: scipy.stats.norm.sf) and
 * Theil-Sen (scipy.stats.theilslopes' slope). */
static void test_trend(void **state)
{
    double x[] = { 1, 3, 2, 5, 4, 6, 8, 7, 9, 10 }, ties[] = { 1, 2, 2, 3, 3, 3, 4 };
    double flat[] = { 5, 5, 5, 5 };
    struct ng_trend t;
    (void)state;
    ng_stats_trend(x, 10, &t);
    near(t.s, 39, 1e-12);
    near(t.p_value, 0.00033838209006052287, 1e-9);
    near(t.slope, 1.0, 1e-12);
    near(t.intercept, 1.0, 1e-12);
    ng_stats_trend(ties, 7, &t);
    near(t.s, 17, 1e-12);
    near(t.p_value, 0.005535822276595939, 1e-9);
    ng_stats_trend(flat, 4, &t);
    assert_true(t.p_value == 1 && t.slope == 0);
    ng_stats_trend(x, 2, &t);   /* too few */
    assert_true(t.p_value == 1);
}

/* Warm-up: leading epochs over 2x every later one, at most a quarter of
 * the run, 3 left; a long kind first in turn is no warm-up. */
static void test_warmup(void **state)
{
    double one[] = { 50, 10, 10.2, 9.9, 10.1, 10, 9.8, 10.3 };
    double two[] = { 30, 50, 10, 10.2, 9.9, 10.1, 10, 9.8 };
    double turn[] = { 15.7, 0.3, 15.6, 0.3, 15.8, 0.3, 15.7, 0.3 };
    double mild[] = { 18, 10, 10.2, 9.9, 10.1, 10, 9.8, 10.3 };
    double few[] = { 50, 10, 10 };
    (void)state;
    assert_int_equal(ng_means_warmup(one, 8), 1);
    assert_int_equal(ng_means_warmup(two, 8), 2);
    assert_int_equal(ng_means_warmup(turn, 8), 0);
    assert_int_equal(ng_means_warmup(mild, 8), 0);
    assert_int_equal(ng_means_warmup(few, 3), 0);
}

/* Two kinds at random: the current's kinds at the baseline's mix.  The
 * baseline has 2 long (10) and 6 short (4) epochs, the current 6 and 2,
 * nothing slower: the figure is the baseline's mean, the raw ratio 1.75,
 * the call a shift of the mix, never a silent pass. */
static void test_mix(void **state)
{
    double x[] = { 4, 10, 4.1, 3.9, 4, 10.2, 4.05, 3.95 };
    double y[] = { 10, 10.1, 4, 9.9, 10, 4.1, 10.05, 9.95 };
    struct ng_means m;
    (void)state;
    ng_means_compare(x, 8, y, 8, 1.2, 0.05, &m);
    assert_int_equal(m.basis, NG_MEANS_MIX);
    assert_int_equal(m.strata, 2);
    near(m.figure[0], (4 + 10 + 4.1 + 3.9 + 4 + 10.2 + 4.05 + 3.95) / 8, 1e-12);
    near(m.figure[1], 0.75 * 4.05 + 0.25 * 10.0, 1e-12);
    near(m.raw_ratio, (10 + 10.1 + 4 + 9.9 + 10 + 4.1 + 10.05 + 9.95) / (4 + 10 + 4.1 + 3.9 + 4 + 10.2 + 4.05 + 3.95), 1e-12);
    near(m.mix_p, 0.1319347319347319, 1e-9);   /* fisher_exact([[6, 2], [2, 6]]) */
    assert_true(m.ratio < 1.2 && m.raw_ratio > 1.2);
    assert_int_equal(ng_means_call(&m, 1.2, 0.2), NG_MEANS_MIX_SHIFTED);
    assert_int_equal(ng_means_call(&m, 1.2, 0.05), NG_MEANS_WITHIN);
    assert_int_equal(ng_means_call(&m, 1.2, 0), NG_MEANS_WITHIN);   /* tests off */
}

/* Runs as the unit: the mean of the past runs' means, a run without
 * epochs no unit; fewer than 3 runs: an interval, no test. */
static void test_runs(void **state)
{
    double x[] = { 10, 10.2, 9.8, 11, 11.2, 12, 12.4 }, y[] = { 14, 14.2, 13.8 };
    size_t runs[] = { 3, 0, 2, 2 };
    struct ng_means_side b = { x, 7, runs, 4 }, c = { y, 3, NULL, 0 };
    struct ng_means m;
    (void)state;
    ng_means_compare_runs(&b, &c, &m);
    assert_int_equal(m.basis, NG_MEANS_RUNS);
    assert_int_equal(m.runs, 3);
    near(m.figure[0], (10.0 + 11.1 + 12.2) / 3, 1e-12);
    near(m.figure[1], 14.0, 1e-12);
    assert_true(m.has_p && m.has_test);
    size_t two[] = { 3, 4 };
    struct ng_means_side b2 = { x, 7, two, 2 };
    ng_means_compare_runs(&b2, &c, &m);
    assert_false(m.has_p);
    assert_int_equal(ng_means_call(&m, 1.2, 0.05), NG_MEANS_FEW_RUNS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_distribution),
        cmocka_unit_test(test_clusters),
        cmocka_unit_test(test_mix_tests),
        cmocka_unit_test(test_trend),
        cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_mix),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_epochs_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
