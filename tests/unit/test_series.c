/* ng_series: which runs a history baseline takes (the latest segment not
 * opened by an unacknowledged regression), the standing regression, the
 * acknowledgements in force and expired, and an ambiguous commit prefix.
 * The segments are checked on changes written here by hand, so the rule
 * is tested apart from the detector; ng_series_judge on a plain step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "history/ng_series.h"

static struct ng_series_change at(size_t pos, double magnitude, int acked)
{
    static const struct ng_ack ack = { 0 };
    struct ng_series_change c;
    memset(&c, 0, sizeof c);
    c.cp.at = pos;
    c.cp.magnitude = magnitude;
    c.regression = magnitude > 1;
    c.ack = acked ? &ack : NULL;
    return c;
}

static void test_no_change_is_everything(void **state)
{
    (void)state;
    size_t from, to;
    assert_int_equal(ng_series_baseline(NULL, 0, 40, &from, &to), 0);
    assert_int_equal(from, 0);
    assert_int_equal(to, 40);
}

static void test_unacknowledged_regression_keeps_the_level_before(void **state)
{
    (void)state;
    struct ng_series_change c[] = { at(30, 1.2, 0) };
    size_t from, to;
    assert_int_equal(ng_series_baseline(c, 1, 60, &from, &to), 0);   /* ended by c[0] */
    assert_int_equal(from, 0);
    assert_int_equal(to, 30);
}

static void test_acknowledged_regression_is_the_new_level(void **state)
{
    (void)state;
    struct ng_series_change c[] = { at(30, 1.2, 1) };
    size_t from, to;
    assert_int_equal(ng_series_baseline(c, 1, 60, &from, &to), 1);   /* the latest */
    assert_int_equal(from, 30);
    assert_int_equal(to, 60);
}

static void test_two_unacknowledged_go_back_past_both(void **state)
{
    (void)state;
    struct ng_series_change c[] = { at(10, 0.8, 0), at(30, 1.1, 0), at(45, 1.2, 0) };
    size_t from, to;
    /* the improvement at 10 opens the segment [10, 30); both later regressions stand */
    assert_int_equal(ng_series_baseline(c, 3, 60, &from, &to), 1);
    assert_int_equal(from, 10);
    assert_int_equal(to, 30);
}

static void test_the_fix_ends_a_regression(void **state)
{
    (void)state;
    struct ng_series_change c[] = { at(20, 1.3, 0), at(40, 0.77, 0) };
    size_t from, to;
    assert_int_equal(ng_series_baseline(c, 2, 60, &from, &to), 2);
    assert_int_equal(from, 40);
    assert_int_equal(to, 60);
    assert_false(ng_series_standing(c, 2));
}

/* ng_series_judge on 40 figures, its count (it must not fail here). */
static size_t judged(const char *gate, const double *x, const char *const *commits,
                     const struct ng_cp_opts *o, const struct ng_accept *a, time_t now,
                     struct ng_series_change **c)
{
    struct ng_err err;
    size_t n;
    assert_int_equal(ng_series_judge(gate, x, commits, 40, o, a, now, c, &n, &err), 0);
    return n;
}

/* A step of 1.3x at 20 of 40: one change, standing until acknowledged,
 * and again once its acknowledgement has expired. */
static void test_judge_a_step(void **state)
{
    (void)state;
    double x[40];
    char names[40][41];
    const char *commits[40];
    for (size_t i = 0; i < 40; i++) {
        x[i] = (i < 20 ? 100 : 130) * (1 + 0.01 * (double)((int)((i * 7) % 5) - 2));
        snprintf(names[i], sizeof names[i], "%07zx%033d", 0xabc0000 + i, 0);
        commits[i] = names[i];
    }
    const struct ng_cp_opts o = { NG_CP_DEFAULT_P, NG_CP_DEFAULT_MIN_CHANGE, NG_CP_DEFAULT_WINDOW };
    struct ng_ack ack = { "g", names[20], "r", "a", "2030-01-01", 2000, 1, "acks.jsonl" };
    struct ng_accept acc = { &ack, 1, 0, "acks.jsonl" };
    struct ng_accept none = NG_ACCEPT_INIT;
    struct ng_series_change *c;

    assert_int_equal(judged("g", x, commits, &o, &none, 1000, &c), 1);
    assert_int_equal(c[0].cp.at, 20);
    assert_true(c[0].regression && c[0].standing && !c[0].ack);
    free(c);
    assert_int_equal(judged("g", x, commits, &o, &acc, 1000, &c), 1);
    assert_true(c[0].ack == &ack && !c[0].standing && !c[0].expired);
    free(c);
    assert_int_equal(judged("g", x, commits, &o, &acc, 3000, &c), 1);
    assert_true(c[0].ack == NULL && c[0].standing && c[0].expired);
    free(c);
    /* another gate's acknowledgement does not count */
    assert_int_equal(judged("h", x, commits, &o, &acc, 1000, &c), 1);
    assert_true(c[0].ack == NULL && c[0].standing);
    free(c);
}

static void test_ambiguous_prefix(void **state)
{
    (void)state;
    const char *commits[] = { "abcdef0111", NULL, "abcdef0222", "abcdef0111" };
    struct ng_ack ack = { "g", "abcdef0", "r", "a", "2030-01-01", 2000, 3, "acks.jsonl" };
    struct ng_accept acc = { &ack, 1, 0, "acks.jsonl" };
    struct ng_err err;
    assert_int_equal(ng_series_check_acks(&acc, "g", commits, 4, &err), -1);
    assert_non_null(strstr(err.msg, "line 3"));
    assert_non_null(strstr(err.msg, "names more than one commit"));
    assert_int_equal(ng_series_check_acks(&acc, "g", commits, 2, &err), 0);   /* one commit */
    assert_int_equal(ng_series_check_acks(&acc, "other", commits, 4, &err), 0);
    /* judging checks them first: no changes, the same error */
    const double x[4] = { 1, 1, 1, 1 };
    const struct ng_cp_opts o = { NG_CP_DEFAULT_P, NG_CP_DEFAULT_MIN_CHANGE, NG_CP_DEFAULT_WINDOW };
    struct ng_series_change *c = (void *)&err;
    size_t n = 9;
    assert_int_equal(ng_series_judge("g", x, commits, 4, &o, &acc, 1000, &c, &n, &err), -1);
    assert_null(c);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "names more than one commit"));
}

/* A series steady for 10 runs (+-0.3) then +1 a run for 15: it crept
 * (Mann-Kendall p 5.15e-10, Theil-Sen slope 0.763 and level 95.265 at the
 * first run, as the stats suite's reference computes them), so the window
 * is the first 10 runs; the hinge bends at run 9 (level 100, rise 1: numpy's
 * lstsq), so those runs keep their level, and a run after the bend is taken
 * back to it.  Without the creep the window is the latest runs. */
static void test_window_crept(void **state)
{
    double x[25];
    unsigned char failed[25] = { 0 };
    struct ng_series_window w;
    (void)state;
    for (size_t i = 0; i < 25; i++)
        x[i] = i < 10 ? 100 + (i % 2 ? 0.3 : -0.3) : 100 + (double)(i - 9);
    ng_series_window(NULL, 0, x, failed, 25, 10, &w);
    assert_true(w.crept);
    assert_int_equal(w.from, 0);
    assert_int_equal(w.to, 10);
    assert_true(fabs(w.trend.p_value - 5.150066817682112e-10) < 1e-15);
    assert_true(fabs(w.trend.slope - 0.7630555555555556) < 1e-12);
    assert_true(fabs(w.trend.intercept - 95.265) < 1e-9);
    assert_int_equal(w.bend, 9);
    assert_true(fabs(w.level - 100) < 1e-9 && fabs(w.rise - 1) < 1e-9);
    assert_true(ng_series_creep_scale(&w, 3) == 1);
    assert_true(fabs(ng_series_creep_scale(&w, 20) - 100.0 / 111.0) < 1e-12);
    assert_true(fabs(ng_series_crept_ratio(&w) - (95.265 + 0.7630555555555556 * 24) / 95.265) <
                1e-12);
    for (size_t i = 0; i < 25; i++)   /* steady: the latest 10, nothing scaled */
        x[i] = 100 + (i % 3 == 0 ? 0.5 : i % 3 == 1 ? -0.5 : 0);
    ng_series_window(NULL, 0, x, failed, 25, 10, &w);
    assert_false(w.crept);
    assert_int_equal(w.from, 15);
    assert_int_equal(w.to, 25);
    assert_true(ng_series_creep_scale(&w, 20) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_change_is_everything),
        cmocka_unit_test(test_unacknowledged_regression_keeps_the_level_before),
        cmocka_unit_test(test_acknowledged_regression_is_the_new_level),
        cmocka_unit_test(test_two_unacknowledged_go_back_past_both),
        cmocka_unit_test(test_the_fix_ends_a_regression),
        cmocka_unit_test(test_judge_a_step),
        cmocka_unit_test(test_ambiguous_prefix),
        cmocka_unit_test(test_window_crept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
