/* Order statistics and the one-sided Mann-Whitney U test.  The expected
 * p-values were computed independently with SciPy 1.10.1 (Debian's
 * python3-scipy): scipy.stats.mannwhitneyu(y, x, alternative='greater',
 * method='exact' when there are no ties and both samples have at most 50
 * values, else method='asymptotic', use_continuity=True). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>

#include <cmocka.h>

#include "core/ng_stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void close_to(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) > 1e-3 ? fabs(want) : 1e-3)) {
        print_error("got %.17g, want %.17g\n", got, want);
        fail();
    }
}

static void test_summary(void **state)
{
    static const double odd[] = { 5, 1, 4, 2, 3 };
    static const double even[] = { 10, 40, 20, 30 };
    static const double one[] = { 7.5 };
    struct ng_summary s;
    (void)state;
    ng_stats_summary(odd, N(odd), &s);
    close_to(s.median, 3);
    close_to(s.min, 1);
    close_to(s.max, 5);
    close_to(s.mean, 3);
    ng_stats_summary(even, N(even), &s);
    close_to(s.median, 25);
    close_to(s.mean, 25);
    ng_stats_summary(one, 1, &s);
    close_to(s.median, 7.5);
    close_to(s.min, 7.5);
    /* the input is not reordered */
    close_to(odd[0], 5);
    /* no samples: unknown, never a made-up 0 (and no read before the array) */
    ng_stats_summary(NULL, 0, &s);
    assert_true(isnan(s.median) && isnan(s.min) && isnan(s.max) && isnan(s.mean));
}

static void test_exact(void **state)
{
    static const double x1[] = { 1, 2, 3 }, y1[] = { 4, 5, 6 };
    static const double x2[] = { 10.1, 10.3, 9.9, 10.0, 10.2 };
    static const double y2[] = { 10.4, 10.25, 10.6, 10.05, 10.7 };
    static const double x3[] = { 3.1, 2.9, 3.3, 3.0, 3.2, 2.8, 3.4 };
    static const double y3[] = { 3.25, 3.5, 3.6, 2.95 };
    int exact = 0;
    (void)state;
    close_to(ng_stats_mwu_greater(x1, 3, y1, 3, &exact), 0.05);
    assert_int_equal(exact, 1);
    close_to(ng_stats_mwu_greater(y1, 3, x1, 3, &exact), 1.0);
    close_to(ng_stats_mwu_greater(x2, N(x2), y2, N(y2), &exact), 0.047619047619047616);
    close_to(ng_stats_mwu_greater(x3, N(x3), y3, N(y3), &exact), 0.11515151515151514);
    assert_int_equal(exact, 1);
}

static void test_normal_with_ties(void **state)
{
    static const double x[] = { 1, 2, 2, 3, 4 }, y[] = { 2, 3, 3, 5, 6 };
    static const double same[] = { 5, 5, 5 };
    static const double bx[] = {
        100.0, 101.5, 98.6, 95.5, 97.7, 95.0, 100.3, 106.7, 97.5, 96.9, 102.4, 101.8, 100.5,
        95.3, 99.9, 103.5, 93.3, 97.7, 90.5, 93.6, 90.8, 98.8, 93.7, 101.4, 100.8, 99.1, 87.4,
        97.3, 99.8, 100.6, 92.3, 97.6, 95.1, 96.0, 105.3, 96.0, 99.8, 104.4, 97.1, 99.4, 100.6,
        100.3, 93.9, 100.4, 106.8, 92.3, 104.3, 100.6, 96.8, 110.0, 103.8, 94.0, 100.4, 102.9,
        99.1, 103.4, 99.7, 103.3, 107.2, 96.6,
    };
    static const double by[] = {
        104.0, 100.7, 103.6, 97.1, 100.1, 102.0, 107.5, 108.7, 96.4, 99.0, 106.2, 93.0, 100.7,
        102.5, 109.3, 106.4, 101.4, 101.2, 101.7, 110.6, 100.9, 101.5, 104.8, 102.4, 102.0,
        97.4, 102.9, 100.8, 108.8, 106.3, 102.9, 106.3, 101.3, 108.3, 103.0, 105.9, 96.5, 104.7,
        94.6, 92.8, 101.5, 98.5, 103.8, 114.2, 98.8, 99.9, 104.0, 105.5, 102.1, 102.0, 106.5,
        105.6, 97.8, 102.6, 103.2, 97.7, 104.3, 98.7, 107.9, 104.0, 103.4, 100.0, 102.4, 93.0,
        97.3, 104.8, 92.4, 107.2, 94.3, 106.8,
    };
    int exact = 1;
    (void)state;
    close_to(ng_stats_mwu_greater(x, N(x), y, N(y), &exact), 0.09941447200822123);
    assert_int_equal(exact, 0);
    close_to(ng_stats_mwu_greater(bx, N(bx), by, N(by), &exact), 2.1230723698442507e-05);
    assert_int_equal(exact, 0);
    close_to(ng_stats_mwu_greater(same, 3, same, 3, &exact), 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_normal_with_ties),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
