/* Each reporter against a hand-built verdict, compared whole. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "render_helper.h"

#include "reporters/ng_report.h"

static double base_samples[] = { 190.0, 200.0, 210.0 };
static double cur_samples[] = { 290.0, 300.0, 310.0 };
static struct ng_kernel_delta kernels[] = {
    { "gemm<\x1b[1m&>", NG_WORK_KERNEL, NG_KERNEL_CHANGED, 150.0, 240.0, 90.0, 0.9, 10.0, 10.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 },
    { "fresh_kernel", NG_WORK_KERNEL, NG_KERNEL_NEW, 0.0, 10.0, 10.0, 0.1, 0.0, 2.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 },
};
static char warning[] = "baseline and current ran on different GPU (A100 vs H100): the comparison may be meaningless";
static char *warnings[] = { warning };

static struct ng_verdict fail_verdict(void)
{
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = NG_OUTCOME_FAIL;
    v.name = "bert <large> & \"friends\"";
    v.mode = "total";
    v.threshold = 1.2;
    v.epochs = 5;
    v.has_figures = 1;
    v.ratio = 1.5;
    v.decision.figure[0] = 200.0;
    v.decision.figure[1] = 300.0;
    v.decision.ratio = v.decision.raw_ratio = 1.5;
    v.decision.inflation = 1;
    v.decision.mix_p = NAN;
    v.call = NG_MEANS_PAST;
    v.metric = "kernel-sum";
    strcpy(v.work, "kernels,graphs");
    v.baseline = (struct ng_verdict_side){ .path = "b.sqlite", .format = NG_FORMAT_SQLITE,
                                           .loaded = 1, .total_ns = 1000000000,
                                           .kernel_count = 10, .ms_per_epoch = 200.0,
                                           .epochs_counted = 5,
                                           .kind_ns = { 1000000000 }, .kind_launches = { 10 },
                                           .left_out_ns = { 0, 0, 2500000 },
                                           .left_out_launches = { 0, 0, 4 } };
    v.current = (struct ng_verdict_side){ .path = "c\x1b[31m\xff.csv", .format = NG_FORMAT_CSV,
                                          .loaded = 1, .total_ns = 1500000000,
                                          .kernel_count = 12, .ms_per_epoch = 300.0,
                                          .epochs_counted = 5,
                                          .kind_ns = { 1500000000 }, .kind_launches = { 12 } };
    v.baseline.samples = base_samples;
    v.baseline.n_samples = 3;
    v.baseline.min_ms = 190.0;
    v.baseline.max_ms = 210.0;
    v.baseline.mean_ms = 200.0;
    v.baseline.median_ms = 200.0;
    v.current.samples = cur_samples;
    v.current.n_samples = 3;
    v.current.min_ms = 290.0;
    v.current.max_ms = 310.0;
    v.current.mean_ms = 300.0;
    v.current.median_ms = 300.0;
    v.has_p = 1;
    v.p_value = 0.05;
    v.u_p_value = 0.1;
    v.alpha = 0.05;
    v.kernels = kernels;
    v.n_kernels = 2;
    v.n_top = 2;
    v.top = (long)2;
    v.warnings = warnings;
    v.n_warnings = 1;
    v.timestamp = 86400 * 365;
    v.elapsed_s = 0.12345;
    return v;
}

static void test_human(void **state)
{
    struct ng_verdict v = fail_verdict();
    char *s = render("human", &v);
    (void)state;
    assert_string_equal(s, 
        "FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\n"
        "  p=0.05 (one-sided Welch t test of the ratio of means, 3 vs 3 samples; Mann-Whitney U p=0.1)\n"
        "  baseline mean 200.000 ms/epoch (median 200.000, min 190.000, max 210.000; 3 runs)\n"
        "  current  mean 300.000 ms/epoch (median 300.000, min 290.000, max 310.000; 3 runs)\n"
        "  kernels by contribution to the change, per epoch:\n"
        "    +90.000 ms ( 90.0%) changed 150.000 -> 240.000 ms, 10 -> 10 launches  gemm<\\x1B[1m&>\n"
        "    +10.000 ms ( 10.0%) new     0.000 -> 10.000 ms, 0 -> 2 launches  fresh_kernel\n");
    free(s);
    v.outcome = NG_OUTCOME_ERROR;
    s = render("human", &v);
    assert_string_equal(s, "");   /* main prints the ERROR line */
    free(s);
}

static void test_json(void **state)
{
    struct ng_verdict v = fail_verdict();
    /* set in any order, listed fixed fields first, then labels by key */
    ng_context_set(&v.context, "model", "resnet50");
    ng_context_set(&v.context, "branch", "main");
    ng_context_set(&v.context, "gpu", "h100");
    ng_context_set(&v.context, "commit", "0123abc");
    char *s = render("json", &v);
    (void)state;
    ng_context_release(&v.context);
    assert_string_equal(s,
        "{\n"
        "\t\"schema_version\":\t1,\n"
        "\t\"tool\":\t{\n"
        "\t\t\"name\":\t\"nsys-gate\",\n"
        "\t\t\"version\":\t\"" NG_VERSION "\"\n"
        "\t},\n"
        "\t\"name\":\t\"bert <large> & \\\"friends\\\"\",\n"
        "\t\"verdict\":\t\"fail\",\n"
        "\t\"mode\":\t\"total\",\n"
        "\t\"metric\":\t\"kernel-sum\",\n"
        "\t\"work\":\t\"kernels,graphs\",\n"
        "\t\"baseline_ms_per_epoch\":\t200,\n"
        "\t\"current_ms_per_epoch\":\t300,\n"
        "\t\"ratio\":\t1.5,\n"
        "\t\"threshold\":\t1.2,\n"
        "\t\"epochs\":\t5,\n"
        "\t\"p_value\":\t0.05,\n"

        "\t\"u_p_value\":\t0.1,\n"

        "\t\"ratio_ci\":\tnull,\n"

        "\t\"ratio_ci_method\":\tnull,\n"

        "\t\"epochs_needed\":\tnull,\n"
        "\t\"decision\":\t{\n"
        "\t\t\"basis\":\t\"means\",\n"
        "\t\t\"call\":\t\"past\",\n"
        "\t\t\"baseline_ms_per_epoch\":\t200,\n"
        "\t\t\"current_ms_per_epoch\":\t300,\n"
        "\t\t\"raw_ratio\":\t1.5,\n"
        "\t\t\"log_test\":\tfalse,\n"
        "\t\t\"autocorrelation\":\tnull,\n"
        "\t\t\"variance_inflation\":\tnull,\n"
        "\t\t\"mix\":\tnull,\n"
        "\t\t\"past_runs\":\tnull,\n"
        "\t\t\"between_runs_cv\":\tnull,\n"
        "\t\t\"baseline_warmup_epochs\":\t0,\n"
        "\t\t\"current_warmup_epochs\":\t0\n"
        "\t},\n"
        "\t\"alpha\":\t0.05,\n"
        "\t\"policy\":\t{\n"
        "\t\t\"threshold\":\t1.2,\n"
        "\t\t\"alpha\":\t0.05,\n"
        "\t\t\"fail_inconclusive\":\tfalse,\n"
        "\t\t\"kernels\":\t[],\n"
        "\t\t\"exclude_kernels\":\t[],\n"
        "\t\t\"comm_kernels\":\t[],\n"
        "\t\t\"min_delta_ms\":\t0,\n"
        "\t\t\"kernel_threshold\":\tnull,\n"
        "\t\t\"kernel_min_delta_ms\":\tnull,\n"
        "\t\t\"fail_on_improvement\":\tfalse,\n"
        "\t\t\"kernel_names\":\t\"full\",\n"

        "\t\t\"kernel_p_adjust\":\t\"holm\",\n"
        "\t\t\"top\":\t2\n"
        "\t},\n"
        "\t\"total_verdict\":\t\"pass\",\n"
        "\t\"under_floor\":\tfalse,\n"
        "\t\"stale_baseline\":\tfalse,\n"
        "\t\"comparability\":\tnull,\n"
        "\t\"baseline\":\t{\n"
        "\t\t\"path\":\t\"b.sqlite\",\n"
        "\t\t\"format\":\t\"sqlite\",\n"
        "\t\t\"total_gpu_ms\":\t1000,\n"
        "\t\t\"kernel_count\":\t10,\n"
        "\t\t\"median_ms\":\t200,\n"
        "\t\t\"min_ms\":\t190,\n"
        "\t\t\"max_ms\":\t210,\n"
        "\t\t\"mean_ms\":\t200,\n"

        "\t\t\"clusters\":\t[],\n"
        "\t\t\"work_ms\":\t{\n"
        "\t\t\t\"kernel\":\t1000,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"work_launches\":\t{\n"
        "\t\t\t\"kernel\":\t10,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"left_out_ms\":\t{\n"
        "\t\t\t\"kernel\":\t0,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t2.5,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"left_out_launches\":\t{\n"
        "\t\t\t\"kernel\":\t0,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t4,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"epochs\":\t5,\n"
        "\t\t\"excluded_ms_per_epoch\":\t0,\n"
        "\t\t\"excluded_launches\":\t0,\n"
        "\t\t\"overlap_ms_per_epoch\":\tnull,\n"
        "\t\t\"breakdown\":\tnull,\n"
        "\t\t\"devices\":\tnull,\n"
        "\t\t\"processes\":\tnull,\n"
        "\t\t\"stragglers\":\tnull,\n"
        "\t\t\"runs\":\t[]\n"
        "\t},\n"
        "\t\"baseline_history\":\tnull,\n"
        "\t\"current\":\t{\n"
        "\t\t\"path\":\t\"c\\u001b[31m\xef""\xbf""\xbd"".csv\",\n"
        "\t\t\"format\":\t\"nsys-stats\",\n"
        "\t\t\"total_gpu_ms\":\t1500,\n"
        "\t\t\"kernel_count\":\t12,\n"
        "\t\t\"median_ms\":\t300,\n"
        "\t\t\"min_ms\":\t290,\n"
        "\t\t\"max_ms\":\t310,\n"
        "\t\t\"mean_ms\":\t300,\n"

        "\t\t\"clusters\":\t[],\n"
        "\t\t\"work_ms\":\t{\n"
        "\t\t\t\"kernel\":\t1500,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"work_launches\":\t{\n"
        "\t\t\t\"kernel\":\t12,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"left_out_ms\":\t{\n"
        "\t\t\t\"kernel\":\t0,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"left_out_launches\":\t{\n"
        "\t\t\t\"kernel\":\t0,\n"
        "\t\t\t\"graph\":\t0,\n"
        "\t\t\t\"memcpy\":\t0,\n"
        "\t\t\t\"memset\":\t0\n"
        "\t\t},\n"
        "\t\t\"epochs\":\t5,\n"
        "\t\t\"excluded_ms_per_epoch\":\t0,\n"
        "\t\t\"excluded_launches\":\t0,\n"
        "\t\t\"overlap_ms_per_epoch\":\tnull,\n"
        "\t\t\"breakdown\":\tnull,\n"
        "\t\t\"devices\":\tnull,\n"
        "\t\t\"processes\":\tnull,\n"
        "\t\t\"stragglers\":\tnull,\n"
        "\t\t\"runs\":\t[]\n"
        "\t},\n"
        "\t\"samples\":\t{\n"
        "\t\t\"baseline\":\t[190, 200, 210],\n"
        "\t\t\"current\":\t[290, 300, 310]\n"
        "\t},\n"
        "\t\"kernels\":\t[{\n"
        "\t\t\t\"name\":\t\"gemm<\\u001b[1m&>\",\n"
        "\t\t\t\"kind\":\t\"kernel\",\n"
        "\t\t\t\"status\":\t\"changed\",\n"
        "\t\t\t\"baseline_ms_per_epoch\":\t150,\n"
        "\t\t\t\"current_ms_per_epoch\":\t240,\n"
        "\t\t\t\"delta_ms_per_epoch\":\t90,\n"
        "\t\t\t\"share\":\t0.9,\n"
        "\t\t\t\"baseline_instances_per_epoch\":\t10,\n"
        "\t\t\t\"current_instances_per_epoch\":\t10,\n"
        "\t\t\t\"verdict\":\tnull,\n"
        "\t\t\t\"ratio\":\tnull,\n"
        "\t\t\t\"p_value\":\tnull,\n"

        "\t\t\t\"p_adjusted\":\tnull\n"
        "\t\t}, {\n"
        "\t\t\t\"name\":\t\"fresh_kernel\",\n"
        "\t\t\t\"kind\":\t\"kernel\",\n"
        "\t\t\t\"status\":\t\"new\",\n"
        "\t\t\t\"baseline_ms_per_epoch\":\t0,\n"
        "\t\t\t\"current_ms_per_epoch\":\t10,\n"
        "\t\t\t\"delta_ms_per_epoch\":\t10,\n"
        "\t\t\t\"share\":\t0.1,\n"
        "\t\t\t\"baseline_instances_per_epoch\":\t0,\n"
        "\t\t\t\"current_instances_per_epoch\":\t2,\n"
        "\t\t\t\"verdict\":\tnull,\n"
        "\t\t\t\"ratio\":\tnull,\n"
        "\t\t\t\"p_value\":\tnull,\n"

        "\t\t\t\"p_adjusted\":\tnull\n"
        "\t\t}],\n"
        "\t\"ranges\":\tnull,\n"
        "\t\"warnings\":\t[\"baseline and current ran on different GPU (A100 vs H100): the comparison may be meaningless\"],\n"
        "\t\"message\":\t\"FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\",\n"
        "\t\"error\":\tnull,\n"
        "\t\"context\":\t{\n"
        "\t\t\"commit\":\t\"0123abc\",\n"
        "\t\t\"branch\":\t\"main\",\n"
        "\t\t\"run_url\":\tnull,\n"
        "\t\t\"run_id\":\tnull,\n"
        "\t\t\"job\":\tnull,\n"
        "\t\t\"pipeline\":\tnull,\n"
        "\t\t\"runner\":\tnull,\n"
        "\t\t\"gpu\":\t\"h100\",\n"
        "\t\t\"model\":\t\"resnet50\"\n"
        "\t},\n"
        "\t\"timestamp\":\t\"1971-01-01T00:00:00Z\"\n"
        "}\n");
    free(s);
}

static void test_json_error_has_nulls(void **state)
{
    struct ng_verdict v = fail_verdict();
    (void)state;
    v.outcome = NG_OUTCOME_ERROR;
    v.has_figures = 0;
    v.current.loaded = 0;
    strcpy(v.error, "'c.csv' is empty");
    char *s = render("json", &v);
    assert_non_null(strstr(s, "\"verdict\":\t\"error\""));
    assert_non_null(strstr(s, "\"ratio\":\tnull"));
    assert_non_null(strstr(s, "\"baseline_ms_per_epoch\":\tnull"));
    assert_non_null(strstr(s, "\"total_gpu_ms\":\t1000"));   /* the baseline did load */
    assert_non_null(strstr(s, "\"total_gpu_ms\":\tnull"));
    assert_non_null(strstr(s, "\"error\":\t\"'c.csv' is empty\""));
    free(s);
}

static void test_junit(void **state)
{
    struct ng_verdict v = fail_verdict();
    char host[256], *s;
    (void)state;
    s = render("junit", &v);
    /* the host name is the machine's: cut it out before comparing */
    char *h = strstr(s, "hostname=\"");
    assert_non_null(h);
    char *e = strchr(h + 10, '"');
    memmove(h + 10, e, strlen(e) + 1);
    if (gethostname(host, sizeof host) == 0)
        (void)host;
    assert_string_equal(s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuite name=\"nsys-gate\" timestamp=\"1971-01-01T00:00:00\" hostname=\"\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.123\">\n"
        "  <properties>\n"
        "    <property name=\"verdict\" value=\"fail\"/>\n"
        "    <property name=\"mode\" value=\"total\"/>\n"
        "    <property name=\"baseline_ms_per_epoch\" value=\"200\"/>\n"
        "    <property name=\"current_ms_per_epoch\" value=\"300\"/>\n"
        "    <property name=\"ratio\" value=\"1.5\"/>\n"
        "    <property name=\"threshold\" value=\"1.2\"/>\n"
        "    <property name=\"p_value\" value=\"0.05\"/>\n"
        "    <property name=\"alpha\" value=\"0.05\"/>\n"
        "    <property name=\"metric\" value=\"kernel-sum\"/>\n"
        "    <property name=\"epochs\" value=\"5\"/>\n"
        "    <property name=\"baseline\" value=\"b.sqlite\"/>\n"
        "    <property name=\"current\" value=\"c\\x1B[31m\xef""\xbf""\xbd"".csv\"/>\n"
        "  </properties>\n"
        "  <testcase classname=\"nsys-gate\" name=\"bert &lt;large&gt; &amp; &quot;friends&quot;\" time=\"0.123\">\n"
        "    <failure type=\"regression\" message=\"FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\">FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\n"
        "  p=0.05 (one-sided Welch t test of the ratio of means, 3 vs 3 samples; Mann-Whitney U p=0.1)\n"
        "  baseline mean 200.000 ms/epoch (median 200.000, min 190.000, max 210.000; 3 runs)\n"
        "  current  mean 300.000 ms/epoch (median 300.000, min 290.000, max 310.000; 3 runs)\n"
        "  kernels by contribution to the change, per epoch:\n"
        "    +90.000 ms ( 90.0%) changed 150.000 -&gt; 240.000 ms, 10 -&gt; 10 launches  gemm&lt;\\x1B[1m&amp;&gt;\n"
        "    +10.000 ms ( 10.0%) new     0.000 -&gt; 10.000 ms, 0 -&gt; 2 launches  fresh_kernel\n"
        "</failure>\n"
        "  </testcase>\n"
        "  <system-out>FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\n"
        "  p=0.05 (one-sided Welch t test of the ratio of means, 3 vs 3 samples; Mann-Whitney U p=0.1)\n"
        "  baseline mean 200.000 ms/epoch (median 200.000, min 190.000, max 210.000; 3 runs)\n"
        "  current  mean 300.000 ms/epoch (median 300.000, min 290.000, max 310.000; 3 runs)\n"
        "  kernels by contribution to the change, per epoch:\n"
        "    +90.000 ms ( 90.0%) changed 150.000 -&gt; 240.000 ms, 10 -&gt; 10 launches  gemm&lt;\\x1B[1m&amp;&gt;\n"
        "    +10.000 ms ( 10.0%) new     0.000 -&gt; 10.000 ms, 0 -&gt; 2 launches  fresh_kernel\n"
        "</system-out>\n"
        "  <system-err></system-err>\n"
        "</testsuite>\n");
    free(s);
}

static void test_unknown_reporter(void **state)
{
    struct ng_verdict v = fail_verdict();
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;
    (void)state;
    assert_int_equal(ng_report_render("yaml", &v, &out, &err), -1);
    assert_string_equal(err.msg, "no reporter named 'yaml'");
    assert_true(ng_report_known("junit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_error_has_nulls),
        cmocka_unit_test(test_junit),
        cmocka_unit_test(test_unknown_reporter),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
