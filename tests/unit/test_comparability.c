/* The comparability check: the median of per-item launch ratios, the share
 * of time in one-side items and the largest of them, and which warnings it
 * gives.  The expected figures are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_comparability.h"

struct lines {
    char text[4][1024];
    int n;
};

static void collect(void *ctx, const char *text)
{
    struct lines *l = ctx;
    assert_true(l->n < 4);
    strncpy(l->text[l->n], text, sizeof l->text[0] - 1);
    l->text[l->n++][sizeof l->text[0] - 1] = '\0';
}

static void test_median_and_share(void **state)
{
    struct ng_comparability c;
    struct ng_comparability_acc acc;
    struct lines l = { .n = 0 };
    (void)state;
    ng_comparability_begin(&acc, &c);
    /* launch ratios 0.9, 0.8, 1.0, 0.85 over four items on both sides:
     * sorted 0.8 0.85 0.9 1.0, median (0.85 + 0.9) / 2 = 0.875 */
    ng_comparability_add(&acc, "a", NG_WORK_KERNEL, 3, 10, 9, 100, 90);
    ng_comparability_add(&acc, "b", NG_WORK_KERNEL, 3, 10, 8, 10, 8);
    ng_comparability_add(&acc, "c", NG_WORK_KERNEL, 3, 10, 10, 4, 4);
    ng_comparability_add(&acc, "d", NG_WORK_MEMCPY, 3, 10, 8.5, 20, 17);
    /* one-side items: 3 + 2 + 1 + 0.5 = 6.5 ms of 40 + 35.5 + 6.5 = 82 ms */
    ng_comparability_add(&acc, "gone-small", NG_WORK_KERNEL, 1, 0.5, 0, 5, 0);
    ng_comparability_add(&acc, "new-big", NG_WORK_KERNEL, 2, 0, 3, 0, 30);
    ng_comparability_add(&acc, "gone-mid", NG_WORK_GRAPH, 1, 2, 0, 2, 0);
    ng_comparability_add(&acc, "new-least", NG_WORK_KERNEL, 2, 0, 1, 0, 1);
    ng_comparability_finish(&acc);
    assert_true(c.known);
    assert_int_equal(c.items_both, 4);
    assert_true(fabs(c.launch_ratio - 0.875) < 1e-12);
    assert_true(fabs(c.one_side_share - 6.5 / 82.0) < 1e-12);
    assert_int_equal(c.n_largest, 3);
    assert_string_equal(c.largest[0].name, "new-big");
    assert_int_equal(c.largest[0].current, 1);
    assert_string_equal(c.largest[1].name, "gone-mid");
    assert_int_equal(c.largest[1].current, 0);
    assert_string_equal(c.largest[2].name, "new-least");
    ng_comparability_warn(&c, 0, "b.sqlite", "c.sqlite", collect, &l);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.text[0],
                        "'c.sqlite' launches about 0.88x the kernels per epoch of 'b.sqlite' "
                        "(the median over the 4 items both have): the captures differ in "
                        "length; give each side its own count (--baseline-epochs N "
                        "--current-epochs M) or gate per NVTX range (--epoch-range)");
    assert_string_equal(l.text[1],
                        "7.9% of the GPU time is in items only one side has: kernel 'new-big' "
                        "3.000 ms/epoch (current only), graph 'gone-mid' 2.000 ms/epoch "
                        "(baseline only), kernel 'new-least' 1.000 ms/epoch (current only); "
                        "the captures may not run the same work");
}

/* At the edges nothing is said: a ratio of exactly 0.9 or 1.1 is within
 * 10%, a share of exactly 5% is not past it; an empty side has no median. */
static void test_quiet_at_edges(void **state)
{
    struct ng_comparability c;
    struct ng_comparability_acc acc;
    struct lines l = { .n = 0 };
    (void)state;
    ng_comparability_begin(&acc, &c);
    ng_comparability_add(&acc, "a", NG_WORK_KERNEL, 3, 9.5, 9.5, 8, 8);
    ng_comparability_add(&acc, "b", NG_WORK_KERNEL, 1, 1, 0, 1, 0);   /* 1 of 20 ms: 5% */
    ng_comparability_finish(&acc);
    assert_true(fabs(c.one_side_share - 0.05) < 1e-12);
    ng_comparability_warn(&c, 0, "b", "c", collect, &l);
    assert_int_equal(l.n, 0);

    ng_comparability_begin(&acc, &c);
    ng_comparability_add(&acc, "n", NG_WORK_KERNEL, 2, 0, 4, 0, 4);
    ng_comparability_finish(&acc);
    assert_int_equal(c.items_both, 0);
    assert_true(c.launch_ratio == 1.0);
    assert_true(c.one_side_share == 1.0);
}

static void test_places(void **state)
{
    struct ng_comparability c = { .known = 1, .launch_ratio = 1.0, .has_places = 1,
                                  .baseline_devices = 1, .current_devices = 2,
                                  .baseline_processes = 2, .current_processes = 2 };
    struct lines l = { .n = 0 };
    (void)state;
    ng_comparability_warn(&c, 1, "b", "c", collect, &l);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.text[0], "the baseline ran on 1 device and the current on 2: the "
                                   "per-epoch figures sum over them, so they are not the same "
                                   "work");
    c.has_places = 0;   /* not measured: nothing to compare */
    l.n = 0;
    ng_comparability_warn(&c, 1, "b", "c", collect, &l);
    assert_int_equal(l.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_and_share),
        cmocka_unit_test(test_quiet_at_edges),
        cmocka_unit_test(test_places),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
