/* The decision rule at its edges: exactly at the threshold, just over it,
 * a zero baseline, and the prototype's line format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_verdict_text.h"
#include "core/ng_compare.h"
#include "reporters/ng_reporter.h"

/* The prototype's line, as the reporters render it from the verdict. */
static void assert_headline(const struct ng_verdict *v, const char *want)
{
    char *got = ng_verdict_text_headline_string(v);
    assert_string_equal(got, want);
    free(got);
}

static void profile(struct ng_profile *p, const char *path, long long total)
{
    ng_profile_init(p, path);
    ng_profile_add_row(p, NG_WORK_KERNEL, "k", 1, total, 10);
    assert_int_equal(ng_profile_finish(p, &(struct ng_err){ "" }), 0);
}

static void decide(struct ng_verdict *v, long long base, long long cur, double thr, long epochs)
{
    struct ng_profile b, c;
    struct ng_compare_opts o = { .name = "gate", .threshold = thr, .epochs = epochs,
                                 .alpha = 0.05, .top = 5 };
    if (base == 0) {
        ng_profile_init(&b, "b");
        ng_profile_add_row(&b, NG_WORK_KERNEL, "k", 1, 0, 1);
        assert_int_equal(ng_profile_finish(&b, &(struct ng_err){ "" }), 0);
    } else {
        profile(&b, "b", base);
    }
    profile(&c, "c", cur);
    ng_compare(v, &b, 1, &c, 1, &o);
    /* the verdict borrows the paths: check them before releasing */
    assert_string_equal(v->baseline.path, "b");
    assert_string_equal(v->current.path, "c");
    ng_verdict_release(v);   /* the arrays only: the texts checked below stay */
    ng_profile_release(&b);
    ng_profile_release(&c);
}

static void test_exact_threshold_passes(void **state)
{
    struct ng_verdict v;
    (void)state;
    /* 1.5 is exact in binary: ratio == threshold passes */
    decide(&v, 1000000000, 1500000000, 1.5, 5);
    assert_int_equal(v.outcome, NG_OUTCOME_PASS);
    assert_true(v.ratio == 1.5);
    assert_headline(&v,
                        "PASS: per-epoch within 1.50x | baseline=200.0ms/epoch "
                        "current=300.0ms/epoch ratio=1.500x (epochs=5)");
    decide(&v, 1000000000, 1500000001, 1.5, 5);
    assert_int_equal(v.outcome, NG_OUTCOME_FAIL);
    assert_headline(&v,
                        "FAIL: per-epoch regression 1.50x exceeds 1.50x threshold | "
                        "baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)");
    assert_int_equal(ng_outcome_exit_code(v.outcome, 0), 1);
}

static void test_default_threshold(void **state)
{
    struct ng_verdict v;
    (void)state;
    decide(&v, 100000000, 121000000, 1.2, 1);
    assert_int_equal(v.outcome, NG_OUTCOME_FAIL);
    assert_headline(&v,
                        "FAIL: per-epoch regression 1.21x exceeds 1.20x threshold | "
                        "baseline=100.0ms/epoch current=121.0ms/epoch ratio=1.210x (epochs=1)");
    decide(&v, 100000000, 90000000, 1.2, 2);
    assert_int_equal(v.outcome, NG_OUTCOME_PASS);
    assert_true(v.has_figures);
    assert_true(v.baseline.ms_per_epoch == 50.0);
    /* an unusual threshold is shown with the digits it has */
    decide(&v, 100000000, 90000000, 1.125, 2);
    assert_headline(&v,
                        "PASS: per-epoch within 1.125x | baseline=50.0ms/epoch "
                        "current=45.0ms/epoch ratio=0.900x (epochs=2)");
}

static void test_zero_baseline_is_error(void **state)
{
    struct ng_verdict v;
    (void)state;
    decide(&v, 0, 5, 1.2, 5);
    assert_int_equal(v.outcome, NG_OUTCOME_ERROR);
    assert_false(v.has_figures);
    assert_string_equal(v.error, "baseline 'b' has 0 ns of kernel time per epoch; no ratio can be formed");
    assert_int_equal(ng_outcome_exit_code(v.outcome, 0), 2);
}

static void test_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(ng_outcome_exit_code(NG_OUTCOME_PASS, 1), 0);
    assert_int_equal(ng_outcome_exit_code(NG_OUTCOME_INCONCLUSIVE, 0), 0);
    assert_int_equal(ng_outcome_exit_code(NG_OUTCOME_INCONCLUSIVE, 1), 1);
    assert_int_equal(ng_outcome_exit_code(NG_OUTCOME_ERROR, 0), 2);
    assert_string_equal(ng_outcome_name(NG_OUTCOME_INCONCLUSIVE), "inconclusive");
}

/* Driver spellings seen on real captures: dotted text, the digits run
 * together as an integer, 0 for unknown. */
static void test_driver_spellings(void **state)
{
    static const struct { const char *a, *b; int same; } pairs[] = {
        { "470.141.03", "47014103", 1 },
        { "515.65.01", "5156501", 1 },
        { "460.39", "46039", 1 },
        { "580.95.05", "580.95.05", 1 },
        { "580.95.05", "570.124.06", 0 },
        { "5156501", "47014103", 0 },
    };
    static const struct { const char *stored, *shown; } show[] = {
        { "47014103", "470.141.03" }, { "5156501", "515.65.01" }, { "46039", "460.39" },
        { "580.95.05", "580.95.05" }, { "525105", "525105" },   /* 525.105 or 52.51.05? kept */
    };
    char buf[64];
    (void)state;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(ng_driver_same(pairs[i].a, pairs[i].b), pairs[i].same);
    for (size_t i = 0; i < sizeof show / sizeof show[0]; i++) {
        ng_driver_show(show[i].stored, buf, sizeof buf);
        assert_string_equal(buf, show[i].shown);
    }
}

/* An unknown driver (0 or empty) on either side says nothing; one driver
 * in two spellings says nothing; two drivers are named as the user knows
 * them. */
static void test_driver_warning(void **state)
{
    static const struct { const char *b, *c; const char *warning; } cases[] = {
        { "0", "580.95.05", NULL },
        { "470.141.03", "47014103", NULL },
        { "5156501", "580.95.05",
          "baseline and current ran on different NVIDIA driver (515.65.01 vs 580.95.05): the "
          "comparison may be meaningless" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ng_profile b, c;
        struct ng_verdict v;
        struct ng_compare_opts o = { .name = "g", .threshold = 1.2, .epochs = 1, .top = 5 };
        profile(&b, "b", 1000);
        profile(&c, "c", 1000);
        b.driver = strdup(cases[i].b);
        c.driver = strdup(cases[i].c);
        ng_compare(&v, &b, 1, &c, 1, &o);
        if (cases[i].warning) {
            assert_int_equal(v.n_warnings, 1);
            assert_string_equal(v.warnings[0], cases[i].warning);
        } else {
            assert_int_equal(v.n_warnings, 0);
        }
        ng_verdict_release(&v);
        ng_profile_release(&b);
        ng_profile_release(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_threshold_passes),
        cmocka_unit_test(test_default_threshold),
        cmocka_unit_test(test_zero_baseline_is_error),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_driver_spellings),
        cmocka_unit_test(test_driver_warning),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
