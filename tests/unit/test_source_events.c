/* The event sink (sources/ng_source_events.h) over hand-made events: the
 * rows by full and base name (a base the reader gives, ".kd" dropped by
 * the rocprofv3 feed), devices and processes, steps by launch on the
 * launching thread, steps by GPU start when there is no launch call (with
 * its warning), the refusals for no work and no ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_nvtx.h"
#include "core/ng_profile.h"
#include "sources/ng_source_events.h"
#include "sources/ng_source_opts.h"
#include "sources/rocprof/ng_rocprof_feed.h"
#include "util/ng_regex.h"

static const struct ng_source_events_words words = {
    .auto_pattern = "^step ([0-9]+)$",
    .auto_shown = " (steps)",
    .no_ranges = "no test ranges",
    .no_ranges_hint = " (hint)",
    .a_range = "test range",
    .no_work = "nothing here",
    .unlaunched = "why",
    .by_time = "",
};


static int64_t row(const struct ng_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_rows; i++)
        if (strcmp(p->rows[i].name, name) == 0)
            return p->rows[i].total_ns;
    return -1;
}

static int64_t epoch(const struct ng_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_epochs; i++)
        if (strcmp(p->epochs[i].name, name) == 0)
            return p->epochs[i].ns;
    return -1;
}

/* Two processes, two GPUs; "step 0" and "step 1" on thread 7 of process
 * 100; kernel A launched on thread 7 in step 0 runs in step 1's window;
 * kernel B launched by thread 8 (no range there). */
static int feed(struct ng_source_events *ev, int calls)
{
    uint32_t p100 = ng_source_events_process(ev, 100), p200 = ng_source_events_process(ev, 200);
    ng_source_events_gpu(ev, "GPU Y");
    ng_source_events_gpu(ev, "GPU X");
    ng_source_events_gpu(ev, "GPU Y");
    if (ng_source_events_range(ev, p100, 7, 0, 1000, "step 0") < 0 ||
        ng_source_events_range(ev, p100, 7, 1000, 2000, "step 1") < 0)
        return -1;
    if (calls && (ng_source_events_call(ev, p100, 7, 1, 900) < 0 ||
                  ng_source_events_call(ev, p100, 8, 2, 100) < 0 ||
                  ng_source_events_call(ev, p100, 7, 3, 1500) < 0))
        return -1;
    if (ng_rocprof_feed_kernel(ev, p100, 1, 0, 1200, 1300, "A(int)", "A.kd") < 0 ||
        ng_rocprof_feed_kernel(ev, p100, 2, 1, 150, 170, "B<1>(x)", "B") < 0 ||
        ng_rocprof_feed_kernel(ev, p100, 3, 0, 1600, 1650, "A(float)", "A") < 0 ||
        ng_rocprof_feed_kernel(ev, p200, 1, 1, 10, 15, "A(int)", "A.kd") < 0)
        return -1;
    return 0;
}

static int load(struct ng_profile *p, struct ng_source_opts *o, int calls, struct ng_err *err)
{
    struct ng_source_events ev;
    ng_profile_init(p, "t");
    int ret = ng_rocprof_feed_init(&ev, p, o, "t", err);
    if (ret == 0)
        ret = feed(&ev, calls);
    if (ret == 0)
        ret = ng_source_events_finish(&ev);
    ng_source_events_release(&ev);
    return ret;
}

static void test_total_rows_and_places(void **state)
{
    struct ng_source_opts o = { 0 };
    struct ng_profile p;
    struct ng_err err = { { 0 } };
    (void)state;
    assert_int_equal(load(&p, &o, 1, &err), 0);
    assert_int_equal(p.total_ns, 100 + 20 + 50 + 5);
    assert_int_equal(row(&p, "A(int)"), 105);
    assert_int_equal(row(&p, "B<1>(x)"), 20);
    assert_string_equal(p.gpu, "GPU X, GPU Y");
    assert_int_equal(p.n_devices, 2);
    assert_int_equal(p.devices[0].ns, 150);
    assert_int_equal(p.devices[1].owner, NG_OWNER_SEVERAL);
    assert_int_equal(p.n_processes, 2);
    assert_int_equal(p.processes[0].id, 100);
    assert_int_equal(p.processes[0].ns, 170);
    ng_profile_release(&p);

    o.base_names = 1;   /* A.kd and A are one base name, A */
    assert_int_equal(load(&p, &o, 1, &err), 0);
    assert_int_equal(row(&p, "A"), 155);
    assert_int_equal(row(&p, "B"), 20);
    assert_int_equal(p.n_rows, 2);
    ng_profile_release(&p);
}

/* The events of feed() read with --epoch-range auto ("step N"). */
static void load_steps(struct ng_profile *p, int calls)
{
    struct ng_regex re;
    struct ng_err err = { { 0 } };
    assert_int_equal(ng_regex_compile(&re, "^step", 0, NG_NVTX_TEXT_MAX, "--epoch-range", &err), 0);
    struct ng_source_opts o = { .epoch_re = &re, .epoch_pattern = "auto" };
    assert_int_equal(load(p, &o, calls, &err), 0);
    ng_regex_release(&re);
}

static void test_steps_by_launch_on_the_thread(void **state)
{
    struct ng_profile p;
    (void)state;
    load_steps(&p, 1);
    /* A(int) launched at 900 in step 0 ran at 1200: step 0; B's call is on
     * thread 8, in no range */
    assert_int_equal(epoch(&p, "step 0"), 100);
    assert_int_equal(epoch(&p, "step 1"), 50);
    assert_int_equal(p.n_warnings, 1);   /* process 200's kernel has no call */
    assert_non_null(strstr(p.warnings[0], "no launch call"));
    ng_profile_release(&p);
}

static void test_steps_by_time_without_calls(void **state)
{
    struct ng_profile p;
    (void)state;
    load_steps(&p, 0);
    /* by GPU start: B at 150 in step 0, both A of process 100 in step 1 */
    assert_int_equal(epoch(&p, "step 0"), 20);
    assert_int_equal(epoch(&p, "step 1"), 150);
    assert_int_equal(p.n_warnings, 1);
    assert_non_null(strstr(p.warnings[0], "by the time it started on the GPU"));
    assert_non_null(strstr(p.warnings[0], "rocprofv3 --hip-trace --marker-trace"));
    ng_profile_release(&p);
}

static void test_refusals(void **state)
{
    struct ng_source_events ev;
    struct ng_profile p;
    struct ng_err err = { { 0 } };
    struct ng_regex re;
    (void)state;
    ng_profile_init(&p, "t");
    assert_int_equal(ng_source_events_init(&ev, &p, NULL, "t", &words, 0, &err), 0);
    assert_int_equal(ng_source_events_finish(&ev), -1);
    assert_non_null(strstr(err.msg, "(nothing here)"));
    ng_source_events_release(&ev);
    ng_profile_release(&p);

    assert_int_equal(ng_regex_compile(&re, "^step", 0, NG_NVTX_TEXT_MAX, "--epoch-range", &err), 0);
    struct ng_source_opts o = { .epoch_re = &re, .epoch_pattern = "auto" };
    ng_profile_init(&p, "t");
    assert_int_equal(ng_source_events_init(&ev, &p, &o, "t", &words, 0, &err), 0);
    int64_t item = ng_source_events_item(&ev, NG_WORK_KERNEL, "k", 1, "k", NULL);
    assert_true(item >= 0);
    assert_int_equal(ng_source_events_work(&ev, NG_SOURCE_EVENTS_ANY, 1, 1, 0, 0, 5,
                                           (size_t)item), 0);
    assert_int_equal(ng_source_events_finish(&ev), -1);
    assert_string_equal(err.msg, "'t' has no test ranges, so no epochs for --epoch-range 'auto' (hint)");
    ng_source_events_release(&ev);
    ng_profile_release(&p);
    ng_regex_release(&re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_total_rows_and_places),
        cmocka_unit_test(test_steps_by_launch_on_the_thread),
        cmocka_unit_test(test_steps_by_time_without_calls),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests_name("source_events", tests, NULL, NULL);
}
