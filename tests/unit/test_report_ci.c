/* The CI and dashboard reporters (GitHub summary, outputs and annotations;
 * OpenMetrics; JSON Lines; github-action-benchmark; batch JUnit and JSON)
 * against hand-built verdicts, and the verdict read back from its JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render_helper.h"

#include "core/ng_verdict_text.h"
#include "history/ng_verdict_doc.h"
#include "reporters/ng_report.h"
#include "reporters/ng_reporter.h"

static double b_samples[] = { 10.0, 11.0, 12.0 };
static double c_samples[] = { 14.0, 15.0, 16.0 };

/* Names that break every format that does not escape them. */
static struct ng_kernel_delta hostile[] = {
    { "k|pipe`tick`*em*_u_ [l](x) <b>&amp; @u #1 :x: $m$ 100% a,b\nline\\", NG_WORK_KERNEL, NG_KERNEL_CHANGED,
      9.0, 13.0, 4.0, 0.8, 2.0, 2.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 },
    { "new_kernel", NG_WORK_KERNEL, NG_KERNEL_NEW, 0.0, 1.0, 1.0, 0.2, 0.0, 1.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 },
};

/* Three samples x-1, x, x+1: median and mean x. */
static void samples(struct ng_verdict_side *s, double *x)
{
    s->samples = x;
    s->n_samples = 3;
    s->ms_per_epoch = s->mean_ms = s->median_ms = x[1];
    s->min_ms = x[0];
    s->max_ms = x[2];
}

static struct ng_verdict verdict(enum ng_outcome o)
{
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = o;
    v.name = "train: resnet,50%";
    v.mode = "nvtx";
    v.metric = "kernel-sum";
    strcpy(v.work, "kernels,graphs");
    v.threshold = 1.2;
    v.epochs = 3;
    v.alpha = 0.05;
    v.baseline = (struct ng_verdict_side){ .path = "b.sqlite", .format = NG_FORMAT_SQLITE,
                                           .loaded = 1, .total_ns = 33000000,
                                           .kernel_count = 30 };
    v.current = (struct ng_verdict_side){ .path = "c.sqlite", .format = NG_FORMAT_SQLITE,
                                          .loaded = 1, .total_ns = 45000000,
                                          .kernel_count = 30 };
    v.timestamp = 86400;
    v.elapsed_s = 0.5;
    if (o == NG_OUTCOME_ERROR) {
        v.current.loaded = 0;
        strcpy(v.error, "'c.sqlite' has no CUDA kernel data");
        return v;
    }
    v.has_figures = 1;
    v.ratio = 15.0 / 11.0;
    v.has_p = 1;
    v.p_value = 0.05;
    v.u_p_value = 0.1;
    samples(&v.baseline, b_samples);
    samples(&v.current, c_samples);
    v.kernels = hostile;
    v.n_kernels = 2;
    v.n_top = 2;
    v.top = (long)2;
    return v;
}

static char *render_batch(const char *fmt, const struct ng_verdict_batch *b)
{
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;
    assert_int_equal(ng_report_render_batch(fmt, b, &out, &err), 0);
    return ng_buf_detach(&out);
}

static void test_summary(void **state)
{
    struct ng_verdict v = verdict(NG_OUTCOME_FAIL);
    char *s = render("github-summary", &v);
    (void)state;
    assert_string_equal(s,
        "\n### \xE2\x9D\x8C nsys-gate FAIL: train\\: resnet\\,50\\%\n"
        "\n```text\n"
        "FAIL: per-epoch regression 1.36x exceeds 1.20x threshold | baseline=11.0ms/epoch current=15.0ms/epoch ratio=1.364x (epochs=3)\n"
        "```\n"
        "\nMeasured: metric kernel-sum, nvtx mode, work kernels,graphs; baseline b\\.sqlite (sqlite), current c\\.sqlite (sqlite)\n"
        "\n| | baseline | current |\n| :-- | --: | --: |\n"
        "| ms per epoch (mean) | 11.000 | 15.000 |\n"
        "| median | 11.000 | 15.000 |\n"
        "| min .. max | 10.000 .. 12.000 | 14.000 .. 16.000 |\n"
        "| samples | 3 epochs | 3 epochs |\n"
        "\n| ratio | 95% interval | threshold | epochs | p-value |\n| --: | --: | --: | --: | --: |\n"
        "| **1.364x** | \xE2\x80\x94 | 1.20x | 3 | 0.05 |\n"
        "\nKernels by contribution to the change, per epoch:\n\n"
        "| kernel | status | baseline ms | current ms | change ms | share | launches |\n"
        "| :-- | :-- | --: | --: | --: | --: | --: |\n"
        "| k\\|pipe\\`tick\\`\\*em\\*\\_u\\_ \\[l\\]\\(x\\) \\<b\\>\\&amp\\; \\@u \\#1 \\:x\\: \\$m\\$ 100\\% a\\,b\\\\x0Aline\\\\ | changed | 9.000 | 13.000 | +4.000 | 80.0% | 2 \xE2\x86\x92 2 |\n"
        "| new\\_kernel | new | 0.000 | 1.000 | +1.000 | 20.0% | 0 \xE2\x86\x92 1 |\n");
    free(s);
    /* on a PASS the kernels are noise, as in the human output */
    v = verdict(NG_OUTCOME_PASS);
    s = render("github-summary", &v);
    assert_non_null(strstr(s, "| **1.364x** | \xE2\x80\x94 | 1.20x | 3 | 0.05 |"));
    assert_null(strstr(s, "Kernels"));
    free(s);
    v.verbose = 1;
    s = render("github-summary", &v);
    assert_non_null(strstr(s, "Kernels by contribution"));
    free(s);
}

/* The step summary stays under GitHub's 1 MiB, cut between rows. */
static void test_summary_cap(void **state)
{
    struct ng_verdict v = verdict(NG_OUTCOME_FAIL);
    enum { N = 20000 };
    struct ng_kernel_delta *k = calloc(N, sizeof *k);
    char long_name[200];
    (void)state;
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    for (size_t i = 0; i < N; i++)
        k[i] = (struct ng_kernel_delta){ long_name, NG_WORK_KERNEL, NG_KERNEL_CHANGED, 1, 2, 1, 0.0001, 1, 1, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 };
    v.kernels = k;
    v.n_kernels = N;
    v.n_top = N;
    v.top = (long)N;
    char *s = render("github-summary", &v);
    size_t len = strlen(s);
    assert_true(len <= 1024 * 1024);
    assert_true(len > 1000 * 1000);
    const char *note = "\n*Truncated: a step summary holds at most 1 MiB.*\n";
    assert_string_equal(s + len - strlen(note), note);
    assert_true(s[len - strlen(note) - 1] == '\n');   /* after a whole row */
    free(s);
    free(k);
}

/* The runner's reading of key<<DELIMITER: the value is everything up to
 * the first line that is exactly the delimiter. */
static char *output_value(const char *file, const char *key)
{
    char head[64];
    snprintf(head, sizeof head, "%s<<", key);
    const char *p = strstr(file, head);
    assert_non_null(p);
    p += strlen(head);
    const char *eol = strchr(p, '\n');
    char delim[128];
    snprintf(delim, sizeof delim, "\n%.*s\n", (int)(eol - p), p);
    const char *end = strstr(eol, delim);
    assert_non_null(end);
    return strndup(eol + 1, (size_t)(end - eol - 1));
}

static void test_outputs(void **state)
{
    struct ng_verdict v = verdict(NG_OUTCOME_FAIL);
    (void)state;
    char *s = render("github-output", &v);
    assert_string_equal(s,
        "verdict=fail\n"
        "ratio=1.3636363636363635\n"
        "baseline_ms_per_epoch=11\n"
        "current_ms_per_epoch=15\n"
        "threshold=1.2\n"
        "epochs=3\n"
        "p_value=0.05\n"
        "name<<ghadelimiter_a71299869912d37c\n"
        "train: resnet,50%\n"
        "ghadelimiter_a71299869912d37c\n"
        "message<<ghadelimiter_5054907756a79c29\n"
        "FAIL: per-epoch regression 1.36x exceeds 1.20x threshold | baseline=11.0ms/epoch current=15.0ms/epoch ratio=1.364x (epochs=3)\n"
        "ghadelimiter_5054907756a79c29\n");
    free(s);

    /* a name holding delimiter-like lines still comes back whole (one that
     * holds its own delimiter cannot be built: it is derived from it) */
    char name[128];
    snprintf(name, sizeof name, "x\nghadelimiter_a71299869912d37c\ny");
    v.name = name;
    s = render("github-output", &v);
    char *got = output_value(s, "name");
    assert_string_equal(got, name);
    free(got);
    free(s);

    /* unknown figures are empty values, so a stale one is overwritten */
    v = verdict(NG_OUTCOME_ERROR);
    s = render("github-output", &v);
    assert_non_null(strstr(s, "verdict=error\nratio=\nbaseline_ms_per_epoch=\n"));
    assert_non_null(strstr(s, "p_value=\n"));
    got = output_value(s, "message");
    assert_string_equal(got, "ERROR: 'c.sqlite' has no CUDA kernel data");
    free(got);
    free(s);
}

static void test_annotations(void **state)
{
    struct ng_verdict v = verdict(NG_OUTCOME_FAIL);
    (void)state;
    v.kernels = hostile;
    v.n_kernels = 1;
    v.n_top = 1;
    v.top = (long)1;
    char *s = render("github-annotations", &v);
    assert_string_equal(s,
        "::error title=nsys-gate%3A train%3A resnet%2C50%25::"
        "FAIL: per-epoch regression 1.36x exceeds 1.20x threshold | baseline=11.0ms/epoch current=15.0ms/epoch ratio=1.364x (epochs=3)"
        "%0A  p=0.05 (one-sided Welch t test of the ratio of means, 3 vs 3 samples; Mann-Whitney U p=0.1)"
        "%0A  baseline mean 11.000 ms/epoch (median 11.000, min 10.000, max 12.000; 3 epochs)"
        "%0A  current  mean 15.000 ms/epoch (median 15.000, min 14.000, max 16.000; 3 epochs)"
        "%0A  kernels by contribution to the change, per epoch:"
        "%0A    +4.000 ms ( 80.0%25) changed 9.000 -> 13.000 ms, 2 -> 2 launches  "
        "k|pipe`tick`*em*_u_ [l](x) <b>&amp; @u #1 :x: $m$ 100%25 a,b\\x0Aline\\\n");
    free(s);

    v.outcome = NG_OUTCOME_INCONCLUSIVE;
    s = render("github-annotations", &v);
    assert_true(strncmp(s, "::warning title=", 16) == 0);
    free(s);

    v.outcome = NG_OUTCOME_PASS;
    s = render("github-annotations", &v);
    assert_string_equal(s, "");
    free(s);

    /* a CR and LF in the name cannot end the command early */
    v = verdict(NG_OUTCOME_ERROR);
    v.name = "a\r\nb";
    s = render("github-annotations", &v);
    assert_string_equal(s, "::error title=nsys-gate%3A a\\x0D\\x0Ab::"
                           "ERROR: 'c.sqlite' has no CUDA kernel data\n");
    free(s);
}

/* GitHub shows 10 error annotations per step: the 10th counts the rest. */
static void test_annotations_cap(void **state)
{
    enum { N = 25 };
    struct ng_verdict v[N];
    const struct ng_verdict *p[N];
    (void)state;
    for (size_t i = 0; i < N; i++) {
        v[i] = verdict(NG_OUTCOME_ERROR);
        p[i] = &v[i];
    }
    struct ng_verdict_batch b = { p, N, "m.json", 0, 0 };
    char *s = render_batch("github-annotations", &b);
    size_t lines = 0;
    for (const char *c = s; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 10);
    assert_non_null(strstr(s, "::error title=nsys-gate::16 more errors not shown: see the step "
                              "summary\n"));
    free(s);
}

static void test_metrics(void **state)
{
    struct ng_verdict v[2] = { verdict(NG_OUTCOME_FAIL), verdict(NG_OUTCOME_ERROR) };
    const struct ng_verdict *p[2] = { &v[0], &v[1] };
    (void)state;
    v[1].name = "x#y\"z\\w\nq%";
    struct ng_verdict_batch b = { p, 2, "m.json", 0, 0 };
    char *s = render_batch("metrics", &b);
    assert_string_equal(s,
        "# HELP nsys_gate_pass 1 when the gate passed (INCONCLUSIVE passes unless --fail-inconclusive), else 0.\n"
        "# TYPE nsys_gate_pass gauge\n"
        "nsys_gate_pass{name=\"train: resnet,50%25\"} 0\n"
        "nsys_gate_pass{name=\"x%23y\\\"z\\\\w\\nq%25\"} 0\n"
        "# HELP nsys_gate_ratio Current over baseline GPU time per epoch (ratio of means).\n"
        "# TYPE nsys_gate_ratio gauge\n"
        "nsys_gate_ratio{name=\"train: resnet,50%25\"} 1.363636\n"
        "# HELP nsys_gate_baseline_epoch_gpu_time_seconds Baseline GPU time per epoch in seconds "
        "(mean).\n"
        "# TYPE nsys_gate_baseline_epoch_gpu_time_seconds gauge\n"
        "nsys_gate_baseline_epoch_gpu_time_seconds{name=\"train: resnet,50%25\"} 0.011000000\n"
        "# HELP nsys_gate_current_epoch_gpu_time_seconds Current GPU time per epoch in seconds "
        "(mean).\n"
        "# TYPE nsys_gate_current_epoch_gpu_time_seconds gauge\n"
        "nsys_gate_current_epoch_gpu_time_seconds{name=\"train: resnet,50%25\"} 0.015000000\n"
        "# HELP nsys_gate_threshold Largest current/baseline ratio that passes.\n"
        "# TYPE nsys_gate_threshold gauge\n"
        "nsys_gate_threshold{name=\"train: resnet,50%25\"} 1.200000\n"
        "nsys_gate_threshold{name=\"x%23y\\\"z\\\\w\\nq%25\"} 1.200000\n"
        "# HELP nsys_gate_epochs Epochs per side the ratio is based on.\n"
        "# TYPE nsys_gate_epochs gauge\n"
        "nsys_gate_epochs{name=\"train: resnet,50%25\"} 3\n"
        "nsys_gate_epochs{name=\"x%23y\\\"z\\\\w\\nq%25\"} 3\n"
        "# HELP nsys_gate_p_value One-sided Mann-Whitney U test p-value (only when the test ran).\n"
        "# TYPE nsys_gate_p_value gauge\n"
        "nsys_gate_p_value{name=\"train: resnet,50%25\"} 5.000000e-02\n"
        "# EOF\n");
    assert_null(strchr(s, '\r'));
    free(s);
}

static void test_json_line_round_trip(void **state)
{
    enum ng_outcome kinds[] = { NG_OUTCOME_FAIL, NG_OUTCOME_ERROR, NG_OUTCOME_PASS,
                                NG_OUTCOME_INCONCLUSIVE, NG_OUTCOME_FAIL };
    static double fewer[] = { 10.0, 11.0 };
    (void)state;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct ng_verdict v = verdict(kinds[i]);
        struct ng_verdict_doc d;
        struct ng_err err;
        v.warnings = (char *[]){ "different GPU" };
        v.n_warnings = 1;
        if (kinds[i] == NG_OUTCOME_INCONCLUSIVE)
            v.p_value = 0.0571;
        if (i == 4) {   /* NVTX sides of different sizes: "epochs=2/3" */
            v.baseline.samples = fewer;
            v.baseline.n_samples = 2;
            v.epochs = 2;
        }
        char *line = render("json-line", &v);
        assert_int_equal(strchr(line, '\n') - line, (long)strlen(line) - 1);
        assert_int_equal(ng_verdict_doc_read(&d, line, strlen(line), &err), 0);
        d.v.timestamp = v.timestamp;
        /* the headline is rendered from the fields, so the fields read
         * back render it again, byte for byte */
        char *a = ng_verdict_text_headline_string(&v), *b = ng_verdict_text_headline_string(&d.v);
        assert_string_equal(a, b);
        assert_non_null(strstr(line, a));   /* the JSON's "message" */
        if (i == 4)
            assert_non_null(strstr(a, "(epochs=2/3)"));
        free(a);
        free(b);
        /* every reporter sees the same verdict again */
        a = render("json", &v);
        b = render("json", &d.v);
        assert_string_equal(a, b);
        free(a);
        free(b);
        d.v.fail_inconclusive = v.fail_inconclusive;
        a = render("human", &v);
        b = render("human", &d.v);
        assert_string_equal(a, b);
        free(a);
        free(b);
        a = render("junit", &v);
        d.v.elapsed_s = v.elapsed_s;
        b = render("junit", &d.v);
        assert_string_equal(a, b);
        free(a);
        free(b);
        free(line);
        ng_verdict_doc_release(&d);
    }
    struct ng_verdict_doc d;
    struct ng_err err;
    assert_int_equal(ng_verdict_doc_read(&d, "{\"verdict\": \"maybe\"}", 20, &err), -1);
    assert_string_equal(err.msg, "not a JSON verdict");
    ng_verdict_doc_release(&d);
}

static void test_benchmark(void **state)
{
    struct ng_verdict v[2] = { verdict(NG_OUTCOME_FAIL), verdict(NG_OUTCOME_ERROR) };
    const struct ng_verdict *p[2] = { &v[0], &v[1] };
    struct ng_verdict_batch b = { p, 2, "m.json", 0, 0 };
    (void)state;
    char *s = render_batch("benchmark", &b);
    /* the errored gate has no value to chart: left out */
    assert_string_equal(s,
        "[{\n"
        "\t\t\"name\":\t\"train: resnet,50%\",\n"
        "\t\t\"unit\":\t\"ms\",\n"
        "\t\t\"value\":\t15,\n"
        "\t\t\"range\":\t\"14.000..16.000\",\n"
        "\t\t\"extra\":\t\"verdict fail; baseline 11.000 ms/epoch; ratio 1.364x (threshold 1.20x); p=0.05; epochs 3; nvtx mode\"\n"
        "\t}]\n");
    free(s);
}

static void test_batch_junit_and_json(void **state)
{
    struct ng_verdict v[4] = { verdict(NG_OUTCOME_FAIL), verdict(NG_OUTCOME_ERROR),
                               verdict(NG_OUTCOME_PASS), verdict(NG_OUTCOME_INCONCLUSIVE) };
    const struct ng_verdict *p[4] = { &v[0], &v[1], &v[2], &v[3] };
    const char *names[] = { "a", "b", "c", "d" };
    struct ng_verdict_batch b = { p, 4, "m.json", 0, 2.5 };
    struct ng_verdict_batch_counts c;
    (void)state;
    for (size_t i = 0; i < 4; i++)
        v[i].name = names[i];
    ng_verdict_batch_count(&b, &c);
    assert_int_equal(c.outcome, NG_OUTCOME_ERROR);
    assert_int_equal(c.exit_code, 2);
    char *s = render_batch("junit", &b);
    assert_non_null(strstr(s, "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"2.500\""));
    assert_non_null(strstr(s, "<property name=\"verdict\" value=\"error\"/>"));
    assert_non_null(strstr(s, "<testcase classname=\"nsys-gate\" name=\"d\" time=\"0.500\"/>"));
    free(s);
    /* --fail-inconclusive makes the inconclusive gate a failure */
    v[3].fail_inconclusive = 1;
    v[1] = verdict(NG_OUTCOME_PASS);
    v[1].name = "b";
    ng_verdict_batch_count(&b, &c);
    assert_int_equal(c.outcome, NG_OUTCOME_FAIL);
    assert_int_equal(c.exit_code, 1);
    s = render_batch("junit", &b);
    assert_non_null(strstr(s, "tests=\"4\" failures=\"2\" errors=\"0\""));
    free(s);
    s = render_batch("json", &b);
    assert_non_null(strstr(s, "\"verdict\":\t\"fail\",\n\t\"counts\":\t{\n\t\t\"pass\":\t2,\n"
                              "\t\t\"fail\":\t1,\n\t\t\"inconclusive\":\t1,\n\t\t\"error\":\t0\n"));
    free(s);
    s = render_batch("human", &b);
    assert_non_null(strstr(s, "\nFAIL: 4 gates: 2 pass, 1 fail, 1 inconclusive, 0 error\n"));
    assert_true(strncmp(s, "a: FAIL: ", 9) == 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_cap),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_annotations),
        cmocka_unit_test(test_annotations_cap),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_json_line_round_trip),
        cmocka_unit_test(test_benchmark),
        cmocka_unit_test(test_batch_junit_and_json),
    };
    return cmocka_run_group_tests_name("report_ci", tests, NULL, NULL);
}
