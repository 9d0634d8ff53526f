/* ng_profile_merge: the single-rank files of a job (gentrace --rank-base)
 * folded together are the one file of every rank, figure by figure, in
 * NVTX mode (epochs, per-item cells, nested ranges, the breakdown) and in
 * total mode (gpu-busy), whatever the order the ranks come in; epochs
 * some ranks lack are said; equal pids of two ranks stay two processes;
 * ranks of two modes, one rank twice and sums past 64 bits are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/ng_profile.h"
#include "core/ng_profile_merge.h"
#include "sources/ng_source.h"
#include "util/ng_regex.h"

#include "profile_helper.h"

#define RANKS 4

static char dir[128];

/* gentrace into dir/name with args; asserts it worked. */
static void gen(const char *name, const char *args)
{
    const char *g = getenv("GENTRACE");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' -o '%s/%s' --force %s >/dev/null", g ? g : "gentrace", dir,
             name, args);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ng-test-merge.%d", (int)getpid());
    char cmd[256];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The job: every rank in one file, and one file per rank. */
static const char job[] = "--kernels 4000 --epochs 6 --warmup 1 --jitter 0.2 --nested "
                          "--memory-share 0.1 --comm-share 0.1 --devices-per-rank 2 "
                          "--slow-device 5:1.4";

static void make_job(void)
{
    char args[512];
    snprintf(args, sizeof args, "%s --ranks %d", job, RANKS);
    gen("all.sqlite", args);
    for (int r = 0; r < RANKS; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank%d.sqlite", r);
        snprintf(args, sizeof args, "--kernels 1000 --epochs 6 --warmup 1 --jitter 0.2 "
                 "--nested --memory-share 0.1 --comm-share 0.1 --devices-per-rank 2 "
                 "--slow-device 5:1.4 --rank-base %d", r);
        gen(name, args);
    }
}

static void load(struct ng_profile *p, const char *name, const struct ng_source_opts *o)
{
    char path[256];
    struct ng_err err = { "" };
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ng_profile_init(p, path);
    if (ng_source_load(p, o, &err) != 0)
        fail_msg("%s: %s", path, err.msg);
}

/* The ranks, folded in `order`, into run. */
static void merge(struct ng_profile *run, const struct ng_source_opts *o, const int *order)
{
    struct ng_profile_merge m;
    struct ng_err err = { "" };
    ng_profile_init(run, "job");
    ng_profile_merge_init(&m, run, o->epoch_re);
    for (int i = 0; i < RANKS; i++) {
        struct ng_profile r;
        char name[32];
        snprintf(name, sizeof name, "rank%d.sqlite", order[i]);
        load(&r, name, o);
        assert_int_equal(ng_profile_merge_add(&m, &r, (size_t)order[i], &err), 0);
        ng_profile_release(&r);
    }
    if (ng_profile_merge_finish(&m, &err) != 0)
        fail_msg("%s", err.msg);
    ng_profile_merge_release(&m);
}

static const int in_order[RANKS] = { 0, 1, 2, 3 }, shuffled[RANKS] = { 2, 0, 3, 1 };

static void check_mode(const struct ng_source_opts *o)
{
    struct ng_profile whole, a, b;
    load(&whole, "all.sqlite", o);
    merge(&a, o, in_order);
    merge(&b, o, shuffled);
    assert_true(whole.n_rows > 4);
    assert_profiles_equal(&whole, &a, CELLS_BY_EPOCH);
    assert_profiles_equal(&a, &b, CELLS_BY_EPOCH);
    ng_profile_release(&whole);
    ng_profile_release(&a);
    ng_profile_release(&b);
}

static void test_nvtx_mode(void **state)
{
    struct ng_regex re;
    struct ng_err err = { "" };
    (void)state;
    make_job();
    assert_int_equal(ng_regex_compile(&re, "^epoch [0-9]+$", 0, 4096, "--epoch-range", &err), 0);
    const struct ng_source_opts o = { .epoch_re = &re, .epoch_pattern = "^epoch [0-9]+$",
                                      .skip_epochs = 1, .item_samples = 1, .work = NG_WORK_ALL,
                                      .metric = NG_METRIC_GPU_BUSY };
    check_mode(&o);
    const struct ng_source_opts sum = { .epoch_re = &re, .epoch_pattern = "^epoch [0-9]+$",
                                        .item_samples = 1 };
    check_mode(&sum);
    ng_regex_release(&re);
}

static void test_total_mode(void **state)
{
    (void)state;
    const struct ng_source_opts busy = { .metric = NG_METRIC_GPU_BUSY };
    check_mode(&busy);
    const struct ng_source_opts memory = { .metric = NG_METRIC_EXPOSED_COMM,
                                           .work = NG_WORK_ALL };
    check_mode(&memory);
}

/* A rank with fewer epochs: the run says which epoch some ranks lack. */
static void test_lacking_epoch(void **state)
{
    struct ng_regex re;
    struct ng_err err = { "" };
    struct ng_profile run, r0, r1;
    struct ng_profile_merge m;
    (void)state;
    gen("short.sqlite", "--kernels 1000 --epochs 4 --rank-base 1");
    assert_int_equal(ng_regex_compile(&re, "^epoch", 0, 4096, "--epoch-range", &err), 0);
    const struct ng_source_opts o = { .epoch_re = &re, .epoch_pattern = "^epoch" };
    load(&r0, "rank0.sqlite", &o);
    load(&r1, "short.sqlite", &o);
    ng_profile_init(&run, "job");
    ng_profile_merge_init(&m, &run, &re);
    assert_int_equal(ng_profile_merge_add(&m, &r1, 1, &err), 0);
    assert_int_equal(ng_profile_merge_add(&m, &r0, 0, &err), 0);
    assert_int_equal(ng_profile_merge_finish(&m, &err), 0);
    assert_int_equal(run.n_epochs, 7);
    int64_t s0 = r0.epochs[0].first_start, s1 = r1.epochs[0].first_start;
    assert_int_equal(run.epochs[0].first_start, s0 < s1 ? s0 : s1);
    assert_int_equal(run.epochs[0].ns, r0.epochs[0].ns + r1.epochs[0].ns);
    assert_int_equal(run.epochs[6].ns, r0.epochs[6].ns);
    assert_int_equal(run.n_warnings, 1);
    assert_string_equal(run.warnings[0], "1 of the 2 ranks of 'job' have no epoch 'epoch 4' "
                        "(and 2 more epochs some rank lacks): a rank that lacks an epoch adds "
                        "nothing to it");
    ng_profile_merge_release(&m);
    ng_profile_release(&run);
    ng_profile_release(&r0);
    ng_profile_release(&r1);
    ng_regex_release(&re);
}

/* Epoch texts that carry their rank ("epoch_3-rank_1") are one epoch
 * by the pattern's first group, as in one profile; named by the
 * earliest rank's text.  Repeated texts ("step #2") keep their
 * occurrence in the key. */
static void test_rank_in_epoch_names(void **state)
{
    struct ng_regex re;
    struct ng_err err = { "" };
    struct ng_profile r[2], run;
    struct ng_profile_merge m;
    static const char *const fmt[2] = { "--epoch-format epoch_%d-rank_0 --rank-base 0",
                                        "--epoch-format epoch_%d-rank_1 --rank-base 1" };
    (void)state;
    const char *pattern = "^epoch_([0-9]+)";
    assert_int_equal(ng_regex_compile(&re, pattern, 0, 4096, "--epoch-range", &err), 0);
    const struct ng_source_opts o = { .epoch_re = &re, .epoch_pattern = pattern };
    for (int i = 0; i < 2; i++) {
        char args[128], name[32];
        snprintf(args, sizeof args, "--kernels 400 --epochs 4 %s", fmt[i]);
        snprintf(name, sizeof name, "named%d.sqlite", i);
        gen(name, args);
        load(&r[i], name, &o);
    }
    ng_profile_init(&run, "job");
    ng_profile_merge_init(&m, &run, &re);
    for (int i = 1; i >= 0; i--)
        assert_int_equal(ng_profile_merge_add(&m, &r[i], (size_t)i, &err), 0);
    assert_int_equal(ng_profile_merge_finish(&m, &err), 0);
    assert_int_equal(run.n_epochs, 4);
    for (size_t e = 0; e < 4; e++) {
        int first = r[1].epochs[e].first_start < r[0].epochs[e].first_start;
        assert_string_equal(run.epochs[e].name, r[first].epochs[e].name);
        assert_int_equal(run.epochs[e].first_start, r[first].epochs[e].first_start);
        assert_int_equal(run.epochs[e].ns, r[0].epochs[e].ns + r[1].epochs[e].ns);
    }
    assert_int_equal(run.n_warnings, 0);
    ng_profile_merge_release(&m);
    ng_profile_release(&run);
    for (int i = 0; i < 2; i++)
        ng_profile_release(&r[i]);
    /* the occurrence stays in the key: "step #1" and "step #2" are two epochs */
    struct ng_regex step;
    assert_int_equal(ng_regex_compile(&step, "^(step)", 0, 4096, "--epoch-range", &err), 0);
    for (int i = 0; i < 2; i++) {
        ng_profile_init(&r[i], i ? "s1" : "s0");
        r[i].format = NG_FORMAT_SQLITE;
        r[i].nvtx = 1;
        ng_profile_add_epoch(&r[i], "step #1", 100 + i, 10, 1);
        ng_profile_add_epoch(&r[i], "step #2", 200 + i, 20, 1);
        ng_profile_add_row(&r[i], NG_WORK_KERNEL, "k", 1, 30, 2);
        assert_int_equal(ng_profile_finish(&r[i], &err), 0);
    }
    ng_profile_init(&run, "job");
    ng_profile_merge_init(&m, &run, &step);
    for (int i = 0; i < 2; i++)
        assert_int_equal(ng_profile_merge_add(&m, &r[i], (size_t)i, &err), 0);
    assert_int_equal(ng_profile_merge_finish(&m, &err), 0);
    assert_int_equal(run.n_epochs, 2);
    assert_int_equal(run.epochs[1].ns, 40);
    ng_profile_merge_release(&m);
    ng_profile_release(&run);
    for (int i = 0; i < 2; i++)
        ng_profile_release(&r[i]);
    ng_regex_release(&step);
    ng_regex_release(&re);
}

/* A hand-made rank: one kernel row, one device, process `pid`. */
static void tiny(struct ng_profile *p, const char *path, int64_t pid, int64_t ns, int nvtx)
{
    struct ng_err err = { "" };
    ng_profile_init(p, path);
    p->format = NG_FORMAT_SQLITE;
    p->nvtx = nvtx;
    ng_profile_add_row(p, NG_WORK_KERNEL, "k", 1, ns, 1);
    p->has_places = 1;
    ng_place_owner(ng_profile_add_place(&p->devices, &p->n_devices, 0, ns, 1), pid);
    ng_profile_add_place(&p->processes, &p->n_processes, pid, ns, 1);
    ng_profile_warn(p, "shared note");
    assert_int_equal(ng_profile_finish(p, &err), 0);
}

static int fold(struct ng_profile *run, struct ng_profile *r, size_t n, struct ng_err *err)
{
    struct ng_profile_merge m;
    ng_profile_init(run, "job");
    ng_profile_merge_init(&m, run, NULL);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = ng_profile_merge_add(&m, &r[i], n - 1 - i, err);
    if (rc == 0)
        rc = ng_profile_merge_finish(&m, err);
    ng_profile_merge_release(&m);
    return rc;
}

/* Two nodes' ranks with one pid: two processes, told apart by rank
 * position; the device id they share adds up, owned by several. */
static void test_equal_pids(void **state)
{
    struct ng_profile r[3], run;
    struct ng_err err = { "" };
    (void)state;
    tiny(&r[0], "n2.sqlite", 777, 30, 0);
    tiny(&r[1], "n1.sqlite", 777, 20, 0);
    tiny(&r[2], "n0.sqlite", 555, 10, 0);
    assert_int_equal(fold(&run, r, 3, &err), 0);
    assert_int_equal(run.n_processes, 3);
    assert_int_equal(run.processes[0].id, 555);
    assert_int_equal(run.processes[0].rank, -1);   /* its pid is its own */
    assert_int_equal(run.processes[1].id, 777);
    assert_int_equal(run.processes[1].rank, 1);
    assert_int_equal(run.processes[1].ns, 20);
    assert_int_equal(run.processes[2].rank, 2);
    assert_int_equal(run.n_devices, 1);
    assert_int_equal(run.devices[0].ns, 60);
    assert_int_equal(run.devices[0].owner, NG_OWNER_SEVERAL);
    assert_int_equal(run.n_warnings, 1);   /* kept once */
    assert_int_equal(run.total_ns, 60);
    ng_profile_release(&run);
    for (int i = 0; i < 3; i++)
        ng_profile_release(&r[i]);
}

static void test_refusals(void **state)
{
    struct ng_profile r[2], run;
    struct ng_err err = { "" };
    (void)state;
    tiny(&r[0], "b.sqlite", 1, 10, 1);
    tiny(&r[1], "a.sqlite", 2, 10, 0);
    assert_int_equal(fold(&run, r, 2, &err), -1);
    /* named by rank position, whatever came first */
    assert_string_equal(err.msg, "'a.sqlite' (sqlite, total mode) and 'b.sqlite' (sqlite, NVTX "
                        "mode) cannot be ranks of one run: read every rank the same way");
    ng_profile_release(&run);
    r[0].nvtx = 0;
    r[0].rank = r[1].rank = 3;
    assert_int_equal(fold(&run, r, 2, &err), -1);
    assert_string_equal(err.msg, "'a.sqlite' and 'b.sqlite' are both rank 3: give each rank "
                        "once");
    ng_profile_release(&run);
    r[0].rank = r[1].rank = -1;
    r[0].left_out_ns[NG_WORK_MEMCPY] = INT64_MAX;
    r[1].left_out_ns[NG_WORK_MEMCPY] = 1;
    assert_int_equal(fold(&run, r, 2, &err), -1);
    assert_string_equal(err.msg, "'a.sqlite': the run's figures with this rank's overflow 64 "
                        "bits");
    ng_profile_release(&run);
    r[1].left_out_ns[NG_WORK_MEMCPY] = 0;
    r[0].rows[0].total_ns = INT64_MAX;
    assert_int_equal(fold(&run, r, 2, &err), -1);
    assert_non_null(strstr(err.msg, "overflows 64 bits"));
    ng_profile_release(&run);
    ng_profile_init(&run, "job");
    struct ng_profile_merge m;
    ng_profile_merge_init(&m, &run, NULL);
    assert_int_equal(ng_profile_merge_finish(&m, &err), -1);
    assert_string_equal(err.msg, "'job': no rank to read");
    ng_profile_merge_release(&m);
    ng_profile_release(&run);
    for (int i = 0; i < 2; i++)
        ng_profile_release(&r[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvtx_mode),
        cmocka_unit_test(test_total_mode),
        cmocka_unit_test(test_lacking_epoch),
        cmocka_unit_test(test_rank_in_epoch_names),
        cmocka_unit_test(test_equal_pids),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
