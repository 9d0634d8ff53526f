/* ng_profile: rows merged as they are added (memory follows the distinct
 * names, whatever the number of rows read), the order and the totals of a
 * finished profile, overflows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_profile.h"

static int finish(struct ng_profile *p, struct ng_err *err)
{
    err->msg[0] = '\0';
    return ng_profile_finish(p, err);
}

static void test_merge_on_add(void **state)
{
    struct ng_profile p;
    struct ng_err err;
    (void)state;

    ng_profile_init(&p, "p");
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "k", 1, 10, 1), 0);
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "k", 1, 5, 2), 1);
    /* a memcpy and a kernel of one name are two items */
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_MEMCPY, "k", 1, 7, 1), 0);
    /* the name ends at name_len or at a NUL, whichever comes first */
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "kx", 1, 1, 1), 1);
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "k\0y", 3, 1, 1), 1);
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "kk", 2, 3, 1), 0);
    assert_int_equal(p.n_rows, 3);
    assert_int_equal(finish(&p, &err), 0);
    assert_int_equal(p.total_ns, 27);
    assert_int_equal(p.launches, 7);
    assert_string_equal(p.rows[0].name, "k");
    assert_int_equal(p.rows[0].kind, NG_WORK_KERNEL);
    assert_int_equal(p.rows[0].total_ns, 17);
    assert_int_equal(p.rows[0].instances, 5);
    assert_int_equal(p.kind_ns[NG_WORK_MEMCPY], 7);
    assert_int_equal(p.kind_launches[NG_WORK_KERNEL], 6);
    ng_profile_release(&p);
}

/* A million rows naming ten kernels keep ten rows, not a million: before
 * the merge moved to ng_profile_add_row() every row was kept until
 * ng_profile_finish(). */
static void test_memory_follows_names(void **state)
{
    struct ng_profile p;
    struct ng_err err;
    char name[16];
    (void)state;

    ng_profile_init(&p, "p");
    for (int i = 0; i < 1000000; i++) {
        int n = snprintf(name, sizeof name, "kernel_%d", (i * 7) % 10);
        ng_profile_add_row(&p, NG_WORK_KERNEL, name, (size_t)n, 2, 1);
    }
    assert_int_equal(p.n_rows, 10);
    assert_true(p.cap_rows <= 16);
    assert_true(p.merge.n_blocks == 1);
    assert_int_equal(finish(&p, &err), 0);
    assert_int_equal(p.total_ns, 2000000);
    assert_int_equal(p.launches, 1000000);
    for (size_t i = 0; i < p.n_rows; i++)
        assert_int_equal(p.rows[i].instances, 100000);
    ng_profile_release(&p);
}

/* Many distinct names, each arriving several times in scrambled order (the
 * index grows past its first size many times over), and names longer than a
 * name block. */
static void test_many_names(void **state)
{
    enum { NAMES = 50000, REPEAT = 3 };
    static char big[100000];
    struct ng_profile p;
    struct ng_err err;
    char name[32];
    (void)state;

    memset(big, 'x', sizeof big - 1);
    ng_profile_init(&p, "p");
    for (int r = 0; r < REPEAT; r++) {
        for (int i = 0; i < NAMES; i++) {
            int k = (int)(((long long)i * 7919 + r * 104729) % NAMES);
            int n = snprintf(name, sizeof name, "void k%d<float>(float *)", k);
            ng_profile_add_row(&p, k % 2 ? NG_WORK_KERNEL : NG_WORK_MEMSET, name, (size_t)n,
                               k + 1, 1);
        }
        ng_profile_add_row(&p, NG_WORK_KERNEL, big, sizeof big - 1, 0, 1);
    }
    assert_int_equal(p.n_rows, NAMES + 1);
    assert_int_equal(finish(&p, &err), 0);
    /* sorted by total, largest first; equal totals by kind, then name */
    for (size_t i = 1; i < p.n_rows; i++)
        assert_true(p.rows[i - 1].total_ns >= p.rows[i].total_ns);
    assert_int_equal(p.rows[0].total_ns, (int64_t)NAMES * REPEAT);
    assert_string_equal(p.rows[0].name, "void k49999<float>(float *)");
    assert_int_equal(p.rows[0].instances, REPEAT);
    assert_int_equal(strlen(p.rows[p.n_rows - 1].name), sizeof big - 1);
    assert_int_equal(p.launches, (NAMES + 1) * REPEAT);
    ng_profile_release(&p);
}

static void test_order_ties(void **state)
{
    struct ng_profile p;
    struct ng_err err;
    (void)state;

    ng_profile_init(&p, "p");
    ng_profile_add_row(&p, NG_WORK_MEMSET, "a", 1, 5, 1);
    ng_profile_add_row(&p, NG_WORK_KERNEL, "b", 1, 5, 1);
    ng_profile_add_row(&p, NG_WORK_KERNEL, "a", 1, 5, 1);
    ng_profile_add_row(&p, NG_WORK_GRAPH, "z", 1, 9, 1);
    assert_int_equal(finish(&p, &err), 0);
    assert_string_equal(p.rows[0].name, "z");
    assert_string_equal(p.rows[1].name, "a");
    assert_int_equal(p.rows[1].kind, NG_WORK_KERNEL);
    assert_string_equal(p.rows[2].name, "b");
    assert_int_equal(p.rows[3].kind, NG_WORK_MEMSET);
    /* the index is dropped at finish; a later row still merges */
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "b", 1, 1, 1), 1);
    assert_int_equal(ng_profile_add_row(&p, NG_WORK_KERNEL, "c", 1, 1, 1), 0);
    assert_int_equal(p.n_rows, 5);
    ng_profile_release(&p);
}

static void test_overflow(void **state)
{
    struct ng_profile p;
    struct ng_err err;
    (void)state;

    /* met while merging two rows of one name */
    ng_profile_init(&p, "p");
    ng_profile_add_row(&p, NG_WORK_KERNEL, "k", 1, INT64_MAX - 1, 1);
    ng_profile_add_row(&p, NG_WORK_KERNEL, "k", 1, 2, 1);
    assert_int_equal(finish(&p, &err), -1);
    assert_string_equal(err.msg, "'p': kernel time overflows 64 bits");
    ng_profile_release(&p);
    /* met while adding up two names */
    ng_profile_init(&p, "p");
    ng_profile_add_row(&p, NG_WORK_KERNEL, "a", 1, INT64_MAX - 1, 1);
    ng_profile_add_row(&p, NG_WORK_KERNEL, "b", 1, 2, 1);
    assert_int_equal(finish(&p, &err), -1);
    assert_string_equal(err.msg, "'p': total kernel time overflows 64 bits");
    ng_profile_release(&p);
    /* and no rows at all */
    ng_profile_init(&p, "p");
    assert_int_equal(finish(&p, &err), -1);
    assert_string_equal(err.msg, "'p' has no CUDA kernel data");
    ng_profile_release(&p);
}

/* The error for a profile in which --work counted nothing names what the
 * profile holds instead, in the words of --work. */
static void test_no_counted_work(void **state)
{
    struct ng_profile p;
    struct ng_err err = { "" };
    (void)state;

    ng_profile_init(&p, "x.sqlite");
    assert_int_equal(ng_profile_no_counted_work(&p, 0, &err), 0);   /* nothing left out */
    assert_string_equal(err.msg, "");
    p.left_out_ns[NG_WORK_MEMCPY] = 19529481;
    p.left_out_launches[NG_WORK_MEMCPY] = 120;
    p.left_out_ns[NG_WORK_MEMSET] = 14848;
    p.left_out_launches[NG_WORK_MEMSET] = 14;
    assert_int_equal(ng_profile_no_counted_work(&p, 0, &err), -1);
    assert_string_equal(err.msg, "'x.sqlite' has no GPU work that --work kernels,graphs counts; "
                        "it holds 134 memory operations (19.544 ms): add memory to --work");
    p.left_out_ns[NG_WORK_GRAPH] = 1499;
    p.left_out_launches[NG_WORK_GRAPH] = 2;
    assert_int_equal(ng_profile_no_counted_work(&p, NG_WORK_BIT(NG_WORK_KERNEL), &err), -1);
    assert_string_equal(err.msg, "'x.sqlite' has no GPU work that --work kernels counts; it "
                        "holds 2 graph launches (0.001 ms) and 134 memory operations (19.544 ms): "
                        "add graphs,memory to --work");
    ng_profile_release(&p);
}

/* Every format has its row: the name outputs and history lines give it,
 * and the tracer that records it. */
static void test_formats(void **state)
{
    (void)state;
    static const struct { enum ng_format f; const char *name, *tracer; } want[] = {
        { NG_FORMAT_UNKNOWN, "unknown", NULL },
        { NG_FORMAT_SQLITE, "sqlite", "nsys" },
        { NG_FORMAT_NSYS_REP, "nsys-rep", "nsys" },
        { NG_FORMAT_CSV, "nsys-stats", "nsys" },
        { NG_FORMAT_HISTORY, "history", NULL },
        { NG_FORMAT_KINETO, "kineto", "torch.profiler" },
        { NG_FORMAT_ROCPD, "rocpd", "rocprofv3" },
        { NG_FORMAT_ROCPROF_JSON, "rocprof-json", "rocprofv3" },
        { NG_FORMAT_ROCPROF_CSV, "rocprof-csv", "rocprofv3" },
        { NG_FORMAT_SUMMARY, "summary", NULL },
    };
    assert_int_equal(sizeof want / sizeof want[0], NG_FORMATS);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_string_equal(ng_format_name(want[i].f), want[i].name);
        if (want[i].tracer)
            assert_string_equal(ng_format_tracer(want[i].f), want[i].tracer);
        else
            assert_null(ng_format_tracer(want[i].f));
    }
    assert_string_equal(ng_format_name(NG_FORMATS), "unknown");
    assert_null(ng_format_tracer(NG_FORMATS));
}

/* What the kernel filters left out keeps its own copy of the name and
 * adds to the excluded totals; the patterns' hits are kept as counted. */
static void test_excluded(void **state)
{
    struct ng_profile p;
    struct ng_filter_account a = { { 3, 1 }, { 2 }, 0, 0 };
    char name[] = "nccl_kernel";
    (void)state;

    ng_profile_init(&p, "x.sqlite");
    ng_profile_add_excluded(&p, NG_WORK_KERNEL, name, 700, 7);
    ng_profile_add_excluded(&p, NG_WORK_MEMCPY, "[CUDA memcpy Host-to-Device]", 300, 3);
    name[0] = 'X';
    assert_int_equal(p.n_excluded, 2);
    assert_string_equal(p.excluded[0].name, "nccl_kernel");
    assert_int_equal(p.excluded[1].kind, NG_WORK_MEMCPY);
    assert_int_equal(p.excluded_ns, 1000);
    assert_int_equal(p.excluded_launches, 10);
    ng_profile_set_hits(&p, &a);
    assert_int_equal(p.include_hits[0], 3);
    assert_int_equal(p.include_hits[1], 1);
    assert_int_equal(p.exclude_hits[0], 2);
    ng_profile_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_on_add),
        cmocka_unit_test(test_memory_follows_names),
        cmocka_unit_test(test_many_names),
        cmocka_unit_test(test_order_ties),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_no_counted_work),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_excluded),
    };
    return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
