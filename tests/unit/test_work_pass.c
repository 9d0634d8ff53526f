/* ng_work_pass: what a reader's pass over timed work leaves in its
 * profile, in total mode (from the accumulator) and in NVTX mode (from
 * the projection), the same for every reader that calls it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_nvtx.h"
#include "core/ng_profile.h"
#include "core/ng_work_pass.h"
#include "util/ng_regex.h"

#define TID(pid, t) (((int64_t)1 << 48) | ((int64_t)(pid) << 24) | (t))

/* Two overlapping kernels and a copy on device 0: gpu-busy is the union. */
static void add_intervals(struct ng_acc *a)
{
    assert_int_equal(ng_acc_add(a, 0, 0, 100, NG_CLASS_COMPUTE), 0);
    assert_int_equal(ng_acc_add(a, 0, 50, 150, NG_CLASS_COMPUTE), 0);
    assert_int_equal(ng_acc_add(a, 0, 200, 260, NG_CLASS_MEMORY), 0);
}

/* Total mode: a metric other than the kernel sum is measured over the
 * whole pass; the kernel sum is the rows' own total, so nothing is set. */
static void test_total_mode(void **state)
{
    struct ng_profile p;
    struct ng_acc a;
    struct ng_err err = { "" };
    (void)state;

    memset(&a, 0, sizeof a);
    add_intervals(&a);
    ng_profile_init(&p, "t.sqlite");
    struct ng_work_pass busy = { NULL, &a, NG_METRIC_GPU_BUSY, 0 };
    assert_int_equal(ng_work_pass_finish(&p, &busy, p.path, &err), 0);
    assert_int_equal(p.measured, 1);
    assert_int_equal(p.measured_ns, 210);
    assert_int_equal(p.has_breakdown, 1);
    assert_int_equal(p.n_bd_devices, 1);
    assert_int_equal(p.breakdown.memory, 60);
    assert_int_equal(p.nvtx, 0);
    assert_int_equal(p.has_nested, 0);
    ng_profile_release(&p);

    ng_profile_init(&p, "t.sqlite");
    struct ng_work_pass sum = { NULL, &a, NG_METRIC_KERNEL_SUM, 0 };
    assert_int_equal(ng_work_pass_finish(&p, &sum, p.path, &err), 0);
    assert_int_equal(p.measured, 0);
    assert_int_equal(p.has_breakdown, 1);
    ng_profile_release(&p);
    ng_acc_release(&a);
}

/* NVTX mode: the counted epochs in order, after the skipped warm-up one,
 * and the nested ranges were looked for even when there are none. */
static void test_nvtx_mode(void **state)
{
    struct ng_regex re;
    struct ng_nvtx pj;
    struct ng_profile p;
    struct ng_err err = { "" };
    (void)state;

    assert_int_equal(ng_regex_compile(&re, "^step$", 0, NG_NVTX_TEXT_MAX, "--epoch-range",
                                      &err), 0);
    ng_nvtx_init(&pj, &re, NG_METRIC_KERNEL_SUM, 1);
    for (int k = 0; k < 3; k++)
        ng_nvtx_range(&pj, 1000 * k, 1000 * k + 900, TID(7, 0), "step");
    assert_int_equal(ng_nvtx_index(&pj), 3);
    for (int k = 0; k < 3; k++) {
        ng_nvtx_call(&pj, TID(7, 0), k + 1, 1000 * k + 10, 1000 * k + 11);
        assert_int_equal(ng_nvtx_work(&pj, TID(7, 0) & ~(int64_t)0xFFFFFF, k + 1, 0,
                                      1000 * k + 20, 1000 * k + 20 + 10 * (k + 1), SIZE_MAX,
                                      NG_CLASS_COMPUTE), k > 0);   /* the first is warm-up */
    }
    ng_profile_init(&p, "t.sqlite");
    struct ng_work_pass w = { &pj, NULL, NG_METRIC_KERNEL_SUM, 1 };
    assert_int_equal(ng_work_pass_finish(&p, &w, p.path, &err), 0);
    assert_int_equal(p.nvtx, 1);
    assert_int_equal(p.skipped_epochs, 1);
    assert_int_equal(p.empty_epochs, 0);
    assert_int_equal(p.n_epochs, 2);
    assert_int_equal(p.epochs[0].ns, 20);
    assert_int_equal(p.epochs[1].ns, 30);
    assert_int_equal(p.measured, 0);
    assert_int_equal(p.has_breakdown, 1);
    assert_int_equal(p.breakdown.compute, 50);
    assert_int_equal(p.has_nested, 1);
    ng_profile_release(&p);
    ng_nvtx_release(&pj);
    ng_regex_release(&re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_total_mode),
        cmocka_unit_test(test_nvtx_mode),
    };
    return cmocka_run_group_tests_name("work_pass", tests, NULL, NULL);
}
