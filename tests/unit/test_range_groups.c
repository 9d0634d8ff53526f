/* NVTX ranges grouped by name shape: the names, counts, GPU time, threads,
 * depths and spread of each group, their order, the step-like choice and
 * its pattern.  Expected figures worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_range_groups.h"

static void name_is(const char *text, const char *want)
{
    char *got = ng_range_group_name(text);
    assert_string_equal(got, want);
    free(got);
}

static void test_names(void **state)
{
    (void)state;
    name_is("step 12", "step #");
    name_is("epoch 3/10 rank 0", "epoch #/# rank #");
    name_is("ProfilerStep#7", "ProfilerStep##");
    name_is("forward", "forward");
    name_is("", "");
}

static void test_groups(void **state)
{
    /* 4 steps of 10 ms on thread 1 (one with 11 ms), each holding a
     * forward; 2 "init" ranges on two threads; total GPU time 50 ms */
    const struct ng_range_in r[] = {
        { "step 0", 1, 0, 10000000 }, { "forward", 1, 1, 6000000 },
        { "step 1", 1, 0, 10000000 }, { "forward", 1, 1, 6000000 },
        { "step 2", 1, 0, 11000000 }, { "forward", 1, 1, 6000000 },
        { "step 3", 1, 0, 9000000 },  { "forward", 1, 1, 6000000 },
        { "init", 1, 0, 4000000 },    { "init", 2, 0, 1000000 },
    };
    size_t n;
    (void)state;
    struct ng_range_group *g = ng_range_groups(r, sizeof r / sizeof r[0], 50000000, &n);
    assert_int_equal(n, 3);
    /* step #: 40 ms, 4 ranges, mean 10 ms, stddev sqrt((0+0+1+1)/4) = 0.7071 ms */
    assert_string_equal(g[0].name, "step #");
    assert_int_equal(g[0].count, 4);
    assert_int_equal(g[0].gpu_ns, 40000000);
    assert_int_equal(g[0].threads, 1);
    assert_int_equal(g[0].max_depth, 0);
    assert_true(fabs(g[0].mean_ms - 10.0) < 1e-9);
    assert_true(fabs(g[0].cv - sqrt(0.5) / 10.0) < 1e-9);
    assert_true(fabs(g[0].share - 0.8) < 1e-12);
    /* forward: 24 ms at depth 1; init: 5 ms on 2 threads, cv 1.5/2.5 = 0.6 */
    assert_string_equal(g[1].name, "forward");
    assert_int_equal(g[1].min_depth, 1);
    assert_string_equal(g[2].name, "init");
    assert_int_equal(g[2].threads, 2);
    assert_true(fabs(g[2].cv - 0.6) < 1e-9);
    assert_int_equal(ng_range_groups_step(g, n), 0);
    char *p = ng_range_group_pattern(&g[0]);
    assert_string_equal(p, "^step [0-9]+$");
    free(p);
    ng_range_groups_free(g, n);
}

/* Not step-like: too few, too uneven, too small a share; the pattern of a
 * text with ERE specials and its own '#'. */
static void test_no_step(void **state)
{
    const struct ng_range_in r[] = {
        { "a(1)", 1, 0, 1000000 }, { "a(2)", 1, 0, 30000000 }, { "a(3)", 1, 0, 1000000 },
        { "b", 1, 0, 10000000 }, { "b", 1, 0, 10000000 },
        { "ProfilerStep#12", 1, 0, 1000000 }, { "ProfilerStep#13", 1, 0, 1000000 },
        { "ProfilerStep#14", 1, 0, 1000000 },
    };
    size_t n;
    (void)state;
    struct ng_range_group *g = ng_range_groups(r, sizeof r / sizeof r[0], 100000000, &n);
    assert_int_equal(n, 3);
    assert_string_equal(g[0].name, "a(#)");      /* 32%: uneven (cv 1.33) and under half */
    assert_string_equal(g[1].name, "b");         /* 20%: only 2 */
    assert_string_equal(g[2].name, "ProfilerStep##");   /* 3%: too small a share */
    assert_int_equal(ng_range_groups_step(g, n), -1);
    char *p = ng_range_group_pattern(&g[0]);
    assert_string_equal(p, "^a\\([0-9]+\\)$");
    free(p);
    p = ng_range_group_pattern(&g[2]);
    assert_string_equal(p, "^ProfilerStep#[0-9]+$");
    free(p);
    ng_range_groups_free(g, n);
    g = ng_range_groups(NULL, 0, 0, &n);
    assert_int_equal(n, 0);
    assert_int_equal(ng_range_groups_step(g, n), -1);
    ng_range_groups_free(g, n);
}

/* Nested ranges on two threads: a launch lies in every range of its own
 * thread that holds it whole (so in the epoch and in its step), a launch
 * that leaves a range is not in it, another thread's never; depth counts
 * the ranges around a range. */
static void test_attribute(void **state)
{
    struct ng_range_in r[] = {
        { "epoch 0", 1, 0, 0 }, { "step 0", 1, 0, 0 }, { "step 1", 1, 0, 0 },
        { "epoch 0", 2, 0, 0 }, { "overlap", 1, 0, 0 },
    };
    int64_t start[] = { 0, 10, 50, 0, 95 }, end[] = { 100, 40, 90, 100, 200 };
    struct ng_range_call calls[] = {
        { 1, 20, 30, 7 },    /* in epoch 0 and step 0 */
        { 1, 60, 70, 5 },    /* in epoch 0 and step 1 */
        { 1, 35, 45, 3 },    /* in epoch 0: it leaves step 0 */
        { 2, 60, 70, 11 },   /* the other thread's epoch */
        { 1, 96, 99, 2 },    /* epoch 0 and the range that outlives it */
        { 1, 150, 160, 1 },  /* past epoch 0, inside "overlap" */
    };
    (void)state;
    ng_range_attribute(r, start, end, 5, calls, 6);
    assert_int_equal(r[0].gpu_ns, 7 + 5 + 3 + 2);
    assert_int_equal(r[1].gpu_ns, 7);
    assert_int_equal(r[2].gpu_ns, 5);
    assert_int_equal(r[3].gpu_ns, 11);
    assert_int_equal(r[4].gpu_ns, 2 + 1);
    assert_int_equal(r[0].depth, 0);
    assert_int_equal(r[1].depth, 1);
    assert_int_equal(r[2].depth, 1);
    assert_int_equal(r[3].depth, 0);
    assert_int_equal(r[4].depth, 0);   /* starts inside epoch 0 but outlives it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_no_step),
        cmocka_unit_test(test_attribute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
