/* History baselines: which runs a window keeps (the last N of the gate,
 * not errors, measured alike, matching, since a date), the message when
 * none counts, one pass for several gates, and the runs as profiles
 * (samples, mean rows, lines from before rows), compared against today. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "render_helper.h"
#include "temp_helper.h"

#include "cli/ng_cli.h"
#include "core/ng_compare.h"
#include "reporters/ng_reporter.h"
#include "core/ng_work_rates.h"
#include "history/ng_history_baseline.h"
#include "run/ng_gate.h"

/* One past run as the gate would have appended it. */
struct run {
    const char *name;
    enum ng_outcome outcome;
    const char *mode, *metric;
    const char *branch, *commit;
    time_t when;
    double ms;                 /* its current ms/epoch (and every NVTX sample, +-1) */
    double gemm_ms;            /* its rows: gemm, and copy for the rest */
};

static void append(FILE *f, const struct run *r)
{
    struct ng_verdict v;
    double samples[3] = { r->ms - 1, r->ms, r->ms + 1 };
    struct ng_work_rate rows[2] = {
        { "gemm", NG_WORK_KERNEL, r->gemm_ms, 10 },
        { "[CUDA memcpy Host-to-Device]", NG_WORK_MEMCPY, r->ms - r->gemm_ms, 2 },
    };
    int nvtx = strcmp(r->mode, "nvtx") == 0;

    memset(&v, 0, sizeof v);
    v.outcome = r->outcome;
    v.name = r->name;
    v.mode = r->mode;
    v.metric = r->metric;
    snprintf(v.work, sizeof v.work, "kernels,graphs");
    v.threshold = 1.2;
    v.epochs = nvtx ? 3 : 4;
    v.has_figures = r->outcome != NG_OUTCOME_ERROR;
    v.ratio = 1;
    v.baseline.ms_per_epoch = r->ms;
    v.current = (struct ng_verdict_side){ .path = "c.sqlite", .format = NG_FORMAT_SQLITE,
                                          .loaded = 1, .samples = samples,
                                          .n_samples = nvtx ? 3 : 1, .ms_per_epoch = r->ms,
                                          .min_ms = r->ms, .max_ms = r->ms, .mean_ms = r->ms,
                                          .epochs_counted = nvtx ? 3 : 4,
                                          .total_ns = (int64_t)(r->ms * 1e6 * (nvtx ? 3 : 4)),
                                          .kernel_count = 12 * (nvtx ? 3 : 4) };
    v.current.kind_ns[NG_WORK_KERNEL] = (int64_t)(r->gemm_ms * 1e6 * (nvtx ? 3 : 4));
    if (!nvtx)
        v.current.samples[0] = r->ms;
    v.has_rows = v.has_figures;
    v.rows = rows;
    v.n_rows = 2;
    if (r->outcome == NG_OUTCOME_ERROR)
        snprintf(v.error, sizeof v.error, "broken");
    if (r->branch)
        ng_context_set(&v.context, "branch", r->branch);
    if (r->commit)
        ng_context_set(&v.context, "commit", r->commit);
    v.timestamp = r->when;
    char *line = render("history", &v);
    fputs(line, f);
    free(line);
    ng_context_release(&v.context);
}

#define DAY 86400
#define T0 1700000000

/* 14 nights of resnet on main (night 6 an error), bert in between, a
 * night on dev, one measured with gpu-busy, a torn line. */
static void write_history(void)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int night = 1; night <= 14; night++) {
        char commit[16];
        snprintf(commit, sizeof commit, "c%02d%s", night, "abcdef0123");
        struct run r = { "resnet", night == 6 ? NG_OUTCOME_ERROR : NG_OUTCOME_PASS, "total",
                         "kernel-sum", "main", commit, T0 + night * DAY, 100.0 + night, 60.0 };
        append(f, &r);
        struct run b = { "bert", NG_OUTCOME_PASS, "nvtx", "kernel-sum", "main", commit,
                         T0 + night * DAY, 50.0, 30.0 };
        append(f, &b);
    }
    struct run dev = { "resnet", NG_OUTCOME_FAIL, "total", "kernel-sum", "dev", "d1", T0 + 15 * DAY,
                       500.0, 400.0 };
    struct run busy = { "resnet", NG_OUTCOME_PASS, "total", "gpu-busy", "main", "b1",
                        T0 + 15 * DAY, 90.0, 60.0 };
    append(f, &dev);
    append(f, &busy);
    fputs("{\"schema_version\":1,\"name\":\"resn", f);   /* torn: no newline */
    fclose(f);
}

static void settings(struct ng_settings *s, const char *name, const char *epoch_range)
{
    memset(s, 0, sizeof *s);
    s->compare.name = name;
    s->compare.metric = NG_METRIC_KERNEL_SUM;
    s->compare.work = NG_WORK_DEFAULT;
    s->compare.epochs = 4;
    s->compare.nvtx = epoch_range != NULL;
    s->compare.alpha = 0.05;
    s->compare.threshold = 1.2;
    s->compare.top = 5;
    s->epoch_range = epoch_range;
    s->baseline_history = path;
    s->history_window = 10;
}

static void read_one(struct ng_history_baseline *w, const struct ng_settings *s)
{
    struct ng_history_baseline *one = w;
    struct ng_err err;
    ng_gate_history_baseline_init(w, s);
    assert_int_equal(ng_history_baseline_read(&one, 1, &err), 0);
}

/* 10 of 13 good nights on main, oldest first: the error, gpu-busy, bert
 * and the torn line are not among them (the torn line is a warning);
 * without a match the night on dev is one of the gate's runs too, but it
 * failed its own gate and no change point tells it yet: it is held out.
 * The nights rise 1 ms each (100 + night) with no single step: the series
 * crept, so the window is its first ten good nights, not its last. */
static void test_window(void **state)
{
    struct ng_settings s;
    struct ng_history_baseline w;
    struct ng_err err;
    (void)state;
    write_history();
    settings(&s, "resnet", NULL);
    read_one(&w, &s);
    assert_int_equal(w.n_runs, 10);
    assert_int_equal(w.n_series, 14);
    assert_int_equal(w.held_out, 1);
    assert_true(w.crept);
    assert_true(w.runs[0].v.current.ms_per_epoch == 101.0);
    assert_true(w.runs[9].v.current.ms_per_epoch == 111.0);
    ng_history_baseline_release(&w);

    s.history_match[s.n_history_match++] = "branch=main";
    read_one(&w, &s);
    assert_int_equal(ng_history_baseline_check(&w, &err), 0);
    assert_int_equal(w.n_runs, 10);
    /* nights 1..14 but 6, crept: the first ten are 1..5, 7..11 */
    assert_true(w.crept);
    assert_true(w.runs[0].v.current.ms_per_epoch == 101.0);
    assert_true(w.runs[4].v.current.ms_per_epoch == 105.0);
    assert_true(w.runs[5].v.current.ms_per_epoch == 107.0);
    assert_true(w.runs[9].v.current.ms_per_epoch == 111.0);
    assert_int_equal(w.lines[0], 1);   /* resnet and bert alternate: night 1 is line 1 */
    assert_int_equal(w.n_warnings, 1);
    assert_non_null(strstr(w.warnings[0], "line 31"));

    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    ng_history_baseline_describe(&w, &v);
    assert_true(v.history.on);
    assert_int_equal(v.history.runs, 10);
    assert_string_equal(v.history.branch, "main");
    assert_string_equal(v.history.first.commit, "c01abcdef0123");
    assert_string_equal(v.history.last.commit, "c11abcdef0123");
    assert_int_equal(v.history.last.line, 21);
    /* the torn line, and the creep: +13% over 12 runs since night 1 */
    assert_int_equal(v.n_warnings, 2);
    assert_non_null(strstr(v.warnings[1], "crept: +13% over 12 runs since c01abcdef0123"));
    assert_true(v.history.crept);
    ng_verdict_release(&v);
    ng_history_baseline_release(&w);

    /* a smaller window and a date: the last 3 from night 12 on */
    s.history_window = 3;
    s.has_history_since = 1;
    s.history_since = T0 + 12 * DAY;
    read_one(&w, &s);
    assert_int_equal(w.n_runs, 3);
    assert_true(w.runs[0].v.current.ms_per_epoch == 112.0);
    assert_int_equal(w.older, 10);
    assert_int_equal(w.unmatched, 1);   /* the dev night */
    ng_history_baseline_release(&w);
}

static void expect_message(struct ng_settings *s, const char *want)
{
    struct ng_history_baseline w;
    struct ng_err err;
    read_one(&w, s);
    assert_int_equal(ng_history_baseline_check(&w, &err), -1);
    assert_string_equal(err.msg, want);
    ng_history_baseline_release(&w);
}

static void test_no_run(void **state)
{
    struct ng_settings s;
    (void)state;
    write_history();
    settings(&s, "gpt", NULL);
    char want[2048];
    snprintf(want, sizeof want,
             "--baseline-history '%s' has no run of 'gpt' to compare with (looked for: verdict "
             "not error, mode total, metric kernel-sum, work kernels,graphs); the file holds 30 "
             "verdicts: 'resnet' 16, 'bert' 14, and lines it skipped (see the warnings)", path);
    expect_message(&s, want);

    settings(&s, "resnet", NULL);
    s.history_match[s.n_history_match++] = "branch=release";
    snprintf(want, sizeof want,
             "--baseline-history '%s' has no run of 'resnet' to compare with (looked for: verdict "
             "not error, mode total, metric kernel-sum, work kernels,graphs, branch=release); the "
             "file holds 30 verdicts: 'resnet' 16 (1 error, 1 measured otherwise, e.g. metric "
             "gpu-busy, 14 not matching, e.g. branch=main), 'bert' 14, and lines it skipped (see "
             "the warnings)", path);
    expect_message(&s, want);

    settings(&s, "resnet", NULL);
    s.has_history_since = 1;
    s.history_since = T0 + 100 * DAY;
    snprintf(want, sizeof want,
             "--baseline-history '%s' has no run of 'resnet' to compare with (looked for: verdict "
             "not error, mode total, metric kernel-sum, work kernels,graphs, since "
             "2024-02-22T22:13:20Z); the file holds 30 verdicts: 'resnet' 16 (1 error, 1 measured "
             "otherwise, e.g. metric gpu-busy, 14 older than --history-since), 'bert' 14, and "
             "lines it skipped (see the warnings)", path);
    expect_message(&s, want);

    /* filtered today, not then: another quantity */
    settings(&s, "resnet", NULL);
    s.compare.policy.kernels[s.compare.policy.n_kernels++] = "gemm";
    snprintf(want, sizeof want,
             "--baseline-history '%s' has no run of 'resnet' to compare with (looked for: verdict "
             "not error, mode total, metric kernel-sum, work kernels,graphs, these "
             "--kernels/--exclude-kernels); the file holds 30 verdicts: 'resnet' 16 (1 error, 15 "
             "measured otherwise, e.g. other --kernels, --exclude-kernels or --kernel-names), "
             "'bert' 14, and lines it skipped (see the warnings)", path);
    expect_message(&s, want);

    FILE *f = fopen(path, "wb");
    fclose(f);
    settings(&s, "resnet", NULL);
    snprintf(want, sizeof want,
             "--baseline-history '%s' has no run of 'resnet' to compare with (looked for: verdict "
             "not error, mode total, metric kernel-sum, work kernels,graphs); the file holds no "
             "verdict", path);
    expect_message(&s, want);

    struct ng_history_baseline w;
    struct ng_history_baseline *one = &w;
    struct ng_err err;
    settings(&s, "resnet", NULL);
    s.baseline_history = "/nonexistent/h.jsonl";
    ng_gate_history_baseline_init(&w, &s);
    assert_int_equal(ng_history_baseline_read(&one, 1, &err), -1);
    assert_int_equal(ng_history_baseline_check(&w, &err), -1);
    assert_string_equal(err.msg, "--baseline-history: unable to open '/nonexistent/h.jsonl': No "
                                 "such file or directory");
    ng_history_baseline_release(&w);
}

/* Two gates of a batch, one pass over the file. */
static void test_two_gates(void **state)
{
    struct ng_settings a, b;
    struct ng_history_baseline wa, wb;
    struct ng_history_baseline *both[] = { &wa, &wb };
    struct ng_err err;
    (void)state;
    write_history();
    settings(&a, "resnet", NULL);
    settings(&b, "bert", "auto");
    b.history_window = 4;
    ng_gate_history_baseline_init(&wa, &a);
    ng_gate_history_baseline_init(&wb, &b);
    assert_int_equal(ng_history_baseline_read(both, 2, &err), 0);
    assert_int_equal(wa.n_runs, 10);
    assert_int_equal(wb.n_runs, 4);
    assert_string_equal(wb.runs[3].v.name, "bert");
    /* each counts every line, those another gate keeps too */
    assert_int_equal(wa.verdicts, 30);
    assert_int_equal(wb.verdicts, 30);
    assert_int_equal(wa.n_other_names, 1);
    assert_string_equal(wa.other_list[0], "bert");
    assert_int_equal(wa.other_counts[0], 14);
    ng_history_baseline_release(&wa);
    ng_history_baseline_release(&wb);
}

static struct ng_profile *today(double gemm_ms, double copy_ms, int nvtx)
{
    struct ng_profile *p = calloc(1, sizeof *p);
    struct ng_err err;
    int epochs = nvtx ? 3 : 4;
    ng_profile_init(p, "today.sqlite");
    ng_profile_add_row(p, NG_WORK_KERNEL, "gemm", 4, (int64_t)(gemm_ms * 1e6 * epochs),
                       10 * epochs);
    ng_profile_add_row(p, NG_WORK_MEMCPY, "[CUDA memcpy Host-to-Device]", 64,
                       (int64_t)(copy_ms * 1e6 * epochs), 2 * epochs);
    if (nvtx) {
        p->nvtx = 1;
        for (int e = 0; e < epochs; e++)
            ng_profile_add_epoch(p, "epoch", e, (int64_t)((gemm_ms + copy_ms + e - 1) * 1e6), 12);
    }
    assert_int_equal(ng_profile_finish(p, &err), 0);
    ng_work_rates_fold(p);
    return p;
}

/* The gate's history and today's profile compared, as ng_gate does. */
struct compared {
    struct ng_history_baseline w;
    struct ng_profile base[NG_MAX_RUNS];
    size_t nb;
    struct ng_profile *cur;
    struct ng_verdict v;
};

static void compare_today(struct compared *c, struct ng_settings *s, double gemm_ms,
                          double copy_ms)
{
    write_history();
    read_one(&c->w, s);
    ng_history_baseline_profiles(&c->w, c->base, &c->nb, &s->compare);
    c->cur = today(gemm_ms, copy_ms, s->compare.nvtx);
    ng_compare(&c->v, c->base, c->nb, c->cur, 1, &s->compare);
}

static void compared_release(struct compared *c)
{
    ng_verdict_release(&c->v);
    for (size_t i = 0; i < c->nb; i++)
        ng_profile_release(&c->base[i]);
    ng_profile_release(c->cur);
    free(c->cur);
    ng_history_baseline_release(&c->w);
}

/* Total mode: each run one sample, the rows their mean; today's gemm grew:
 * it is "changed", not new against a gone one, and takes the delta. */
static void test_compare_total(void **state)
{
    struct ng_settings s;
    struct compared c;
    (void)state;
    settings(&s, "resnet", NULL);
    s.history_match[s.n_history_match++] = "branch=main";
    compare_today(&c, &s, 90.0, 60.0);
    const struct ng_verdict *v = &c.v;
    assert_int_equal(c.nb, 10);
    assert_int_equal(v->outcome, NG_OUTCOME_FAIL);
    assert_int_equal(v->baseline.n_samples, 10);
    /* the series crept: its first ten good nights, each taken back to the
     * level it crept from by the hinge through the 13 nights (bend at the
     * first, level 100.956, rise 1.110 a night: numpy's lstsq) */
    assert_float_equal(v->baseline.samples[0], 101.0, 1e-6);
    assert_float_equal(v->baseline.samples[9], 101.0060419968304, 1e-6);
    assert_float_equal(v->baseline.ms_per_epoch, 100.9997761163477, 1e-6);
    /* runs are the unit: the current run against the ten past runs' spread */
    assert_true(v->has_p);
    assert_int_equal(v->decision.basis, NG_MEANS_RUNS);
    assert_int_equal(v->decision.runs, 10);
    assert_string_equal(v->kernels[0].name, "gemm");
    assert_int_equal(v->kernels[0].status, NG_KERNEL_CHANGED);
    assert_float_equal(v->kernels[0].baseline_ms_per_epoch, 60.0, 1e-6);
    assert_float_equal(v->kernels[0].delta_ms_per_epoch, 30.0, 1e-6);
    assert_float_equal(v->kernels[0].baseline_instances_per_epoch, 10.0, 1e-9);
    /* the copy row: the mean of the nights' (ms - 60), as they ran (the rows
     * show what crept) */
    assert_float_equal(v->kernels[1].baseline_ms_per_epoch, 106.0 - 60.0, 1e-6);
    compared_release(&c);
}

/* NVTX mode: the runs' epoch samples pooled; the U test runs. */
static void test_compare_nvtx(void **state)
{
    struct ng_settings s;
    struct compared c;
    (void)state;
    settings(&s, "bert", "auto");
    compare_today(&c, &s, 30.0, 20.0);
    assert_int_equal(c.v.baseline.n_samples, 30);
    assert_true(c.v.has_p);
    assert_int_equal(c.v.outcome, NG_OUTCOME_PASS);
    assert_float_equal(c.v.baseline.ms_per_epoch, 50.0, 1e-9);
    compared_release(&c);
}

/* A line from before rows: its kernels (today's side) and an others row
 * for the rest of its time. */
static void test_lines_before_rows(void **state)
{
    struct ng_settings s;
    struct ng_history_baseline w;
    struct ng_profile base[NG_MAX_RUNS];
    size_t nb;
    struct ng_buf fixture = NG_BUF_INIT;
    (void)state;
    ng_buf_addf(&fixture, "%s/tests/golden/fixtures/history_main_4c2abb4.jsonl",
                getenv("SRCDIR") ? getenv("SRCDIR") : ".");
    settings(&s, "nvtx-fail", "auto");
    s.baseline_history = fixture.data;
    read_one(&w, &s);
    assert_int_equal(w.n_runs, 1);
    ng_history_baseline_profiles(&w, base, &nb, &s.compare);
    assert_int_equal(nb, 1);
    assert_int_equal(base[0].n_epochs, 10);
    assert_int_equal(base[0].format, NG_FORMAT_HISTORY);
    int64_t rows = 0, others = 0;
    for (size_t i = 0; i < base[0].n_rows; i++) {
        rows += base[0].rows[i].total_ns;
        if (base[0].rows[i].kind == NG_WORK_OTHERS)
            others += base[0].rows[i].total_ns;
    }
    /* its 5 kernels and an others row add up to its counted time */
    assert_int_equal(base[0].n_rows, 6);
    assert_true(others > 0);
    assert_true(llabs(rows - 1624124606) < 10);
    ng_profile_release(&base[0]);
    ng_history_baseline_release(&w);
    ng_buf_release(&fixture);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_no_run),
        cmocka_unit_test(test_two_gates),
        cmocka_unit_test(test_compare_total),
        cmocka_unit_test(test_compare_nvtx),
        cmocka_unit_test(test_lines_before_rows),
    };
    return cmocka_run_group_tests_name("window", tests, temp_setup, temp_teardown);
}
