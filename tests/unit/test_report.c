/* Each reporter against a hand-built verdict, compared whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ng_report.h"

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
    v.metric = "kernel-sum";
    v.baseline = (struct ng_verdict_side){ .path = "b.sqlite", .format = NG_FORMAT_SQLITE,
                                           .loaded = 1, .total_ns = 1000000000,
                                           .kernel_count = 10, .ms_per_epoch = 200.0 };
    v.current = (struct ng_verdict_side){ .path = "c\x1b[31m\xff.csv", .format = NG_FORMAT_CSV,
                                          .loaded = 1, .total_ns = 1500000000,
                                          .kernel_count = 12, .ms_per_epoch = 300.0 };
    strcpy(v.message, "FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)");
    v.timestamp = 86400 * 365;
    v.elapsed_s = 0.12345;
    return v;
}

static char *render(const char *fmt, const struct ng_verdict *v)
{
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;
    assert_int_equal(ng_report_render(fmt, v, &out, &err), 0);
    return ng_buf_detach(&out);
}

static void test_human(void **state)
{
    struct ng_verdict v = fail_verdict();
    char *s = render("human", &v);
    (void)state;
    assert_string_equal(s, "FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\n");
    free(s);
    v.outcome = NG_OUTCOME_ERROR;
    s = render("human", &v);
    assert_string_equal(s, "");   /* main prints the ERROR line */
    free(s);
}

static void test_json(void **state)
{
    struct ng_verdict v = fail_verdict();
    char *s = render("json", &v);
    (void)state;
    assert_string_equal(s,
        "{\n"
        "\t\"schema_version\":\t1,\n"
        "\t\"tool\":\t{\n\t\t\"name\":\t\"nsys-gate\",\n\t\t\"version\":\t\"" NG_VERSION "\"\n\t},\n"
        "\t\"name\":\t\"bert <large> & \\\"friends\\\"\",\n"
        "\t\"verdict\":\t\"fail\",\n"
        "\t\"mode\":\t\"total\",\n"
        "\t\"baseline_ms_per_epoch\":\t200,\n"
        "\t\"current_ms_per_epoch\":\t300,\n"
        "\t\"ratio\":\t1.5,\n"
        "\t\"threshold\":\t1.2,\n"
        "\t\"epochs\":\t5,\n"
        "\t\"baseline\":\t{\n\t\t\"path\":\t\"b.sqlite\",\n\t\t\"format\":\t\"sqlite\",\n\t\t\"total_gpu_ms\":\t1000,\n\t\t\"kernel_count\":\t10\n\t},\n"
        "\t\"current\":\t{\n\t\t\"path\":\t\"c\\u001b[31m\xef\xbf\xbd.csv\",\n\t\t\"format\":\t\"nsys-stats\",\n\t\t\"total_gpu_ms\":\t1500,\n\t\t\"kernel_count\":\t12\n\t},\n"
        "\t\"message\":\t\"FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\",\n"
        "\t\"error\":\tnull,\n"
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
    strcpy(v.message, "ERROR: 'c.csv' is empty");
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
        "    <property name=\"epochs\" value=\"5\"/>\n"
        "    <property name=\"baseline\" value=\"b.sqlite\"/>\n"
        "    <property name=\"current\" value=\"c\\x1B[31m\xef\xbf\xbd.csv\"/>\n"
        "  </properties>\n"
        "  <testcase classname=\"nsys-gate\" name=\"bert &lt;large&gt; &amp; &quot;friends&quot;\" time=\"0.123\">\n"
        "    <failure type=\"regression\" message=\"FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)\">FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)</failure>\n"
        "  </testcase>\n"
        "  <system-out>FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch current=300.0ms/epoch ratio=1.500x (epochs=5)</system-out>\n"
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
