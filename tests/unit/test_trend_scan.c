/* ng_trend_scan against the full reader (ng_verdict_doc_read, cJSON): wherever
 * the scanner reads a line, the full reader reads it too, to the same
 * figures bit for bit.  On every line of the project's histories (golden
 * expectations, fixtures, fuzz seeds), on lines the gate writes for
 * hostile names and contexts, on hand-made lines at every rule (first
 * member wins, last context string wins, what the scanner leaves to
 * cJSON), and on every truncation and many byte changes of a real line. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render_helper.h"

#include "history/ng_verdict_doc.h"
#include "core/ng_context.h"
#include "reporters/ng_reporter.h"
#include "history/ng_trend_scan.h"
#include "util/ng_json_scan.h"

/* One line through both readers; returns 1 when the scanner read it. */
static int agree_as(const char *line, size_t len, struct ng_trend_scan *fast)
{
    struct ng_trend_scan full = NG_TREND_SCAN_INIT;
    struct ng_verdict_doc doc;
    struct ng_err err;
    int scanned = ng_trend_scan_line(fast, line, len) == 0;
    int read = ng_verdict_doc_read(&doc, line, len, &err) == 0;

    if (scanned && !read)
        fail_msg("scanned, but the full reader says '%s': %.*s", err.msg, (int)len, line);
    if (scanned) {
        ng_trend_scan_of_verdict(&full, &doc.v);
        if (!ng_trend_scan_same(fast, &full))
            fail_msg("the readers disagree on %.*s", (int)len, line);
    }
    ng_verdict_doc_release(&doc);
    ng_trend_scan_release(&full);
    return scanned;
}

static int agree(const char *line)
{
    struct ng_trend_scan s = NG_TREND_SCAN_INIT;
    int scanned = agree_as(line, strlen(line), &s);
    ng_trend_scan_release(&s);
    return scanned;
}

static int full_reads(const char *line, size_t len)
{
    struct ng_verdict_doc doc;
    struct ng_err err;
    int ok = ng_verdict_doc_read(&doc, line, len, &err) == 0;
    ng_verdict_doc_release(&doc);
    return ok;
}

/* ---- the project's own histories ---- */

static size_t files_seen, lines_seen, lines_scanned;

static int each_history(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    size_t n = strlen(path);
    (void)st;
    (void)ftw;
    if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".jsonl") != 0)
        return 0;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    /* the gate's own lines (golden expectations and fixtures) are all
     * for the scanner; the fuzz seeds hold garbage on purpose */
    int gate_written = strstr(path, "/tests/golden/") != NULL;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            len--;
        if (len == 0)
            continue;
        struct ng_trend_scan s = NG_TREND_SCAN_INIT;
        int scanned = agree_as(line, (size_t)len, &s);
        ng_trend_scan_release(&s);
        if (gate_written && !scanned && full_reads(line, (size_t)len))
            fail_msg("%s: a line the gate wrote is left to the full reader: %.*s", path,
                     (int)len, line);
        lines_seen++;
        lines_scanned += (size_t)scanned;
    }
    free(line);
    fclose(f);
    files_seen++;
    return 0;
}

static void test_project_histories(void **state)
{
    const char *src = getenv("SRCDIR");
    char dir[4096];
    (void)state;
    assert_non_null(src);
    snprintf(dir, sizeof dir, "%s/tests", src);
    assert_int_equal(nftw(dir, each_history, 16, FTW_PHYS), 0);
    print_message("%zu files, %zu lines, %zu scanned\n", files_seen, lines_seen, lines_scanned);
    assert_true(files_seen >= 10);
    assert_true(lines_scanned >= 20);
}

/* ---- lines the gate writes ---- */

static double samples[] = { 10.0, 11.0, 12.5 };

static void check_written(const char *name, const char *kernel, const char *commit,
                          const char *label, int want_scanned)
{
    struct ng_kernel_delta k = { kernel, NG_WORK_KERNEL, NG_KERNEL_CHANGED, 1.0, 2.0, 1.0,
                                 0.5, 3.0, 3.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 };
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = NG_OUTCOME_INCONCLUSIVE;
    v.name = name;
    v.mode = "nvtx";
    v.metric = "kernel-sum";
    v.threshold = 1.1;
    v.has_figures = 1;
    v.ratio = 1.0 / 3;
    v.has_p = 1;
    v.p_value = 0.0123456789;
    v.epochs = 3;
    v.baseline = (struct ng_verdict_side){ .path = "b\"\\.sqlite", .loaded = 1, .samples = samples,
                                           .n_samples = 3, .ms_per_epoch = 11.0, .min_ms = 10.0,
                                           .max_ms = 12.5 };
    v.current = v.baseline;
    v.current.ms_per_epoch = 1e-7;
    v.current.min_ms = -0.0;
    v.current.max_ms = 123456789.125;
    v.kernels = &k;
    v.n_kernels = 1;
    v.n_top = 1;
    v.top = 1;
    v.timestamp = 1717171717;
    ng_context_set(&v.context, "commit", commit);
    ng_context_set(&v.context, "run_url", "https://ci.example/run/1?a=1&b=\"2\"");
    ng_context_set(&v.context, "zz_label", label);
    ng_verdict_warn(&v, "a warning with \"quotes\" and \\ and \x01");
    static const char *const formats[] = { "history", "json-line" };
    for (size_t i = 0; i < 2; i++) {
        char *line = render(formats[i], &v);
        line[strlen(line) - 1] = '\0';
        assert_int_equal(agree(line), want_scanned);
        free(line);
    }
    ng_context_release(&v.context);
    for (size_t i = 0; i < v.n_warnings; i++)
        free(v.warnings[i]);
    free(v.warnings);
}

static void test_gate_written(void **state)
{
    char *huge = malloc(1 << 20);
    (void)state;
    memset(huge, 'k', (1 << 20) - 1);
    huge[(1 << 20) - 1] = '\0';
    check_written("plain", "gemm", "0123456789abcdef", "x", 1);
    check_written("quote\" back\\slash /slash", "</title><script>alert(1)</script>",
                  "c\"o\\m", "v\"\\", 1);
    check_written("caf\xc3\xa9 \xe2\x82\xac", "\xff\xfe bad utf-8", "\xf0\x9f\x98\x80", "\t", 1);
    check_written("tab\there", "k", "c", "l", 1);          /* \t: an escape the scanner undoes */
    check_written("ctl\x01name", "k", "c", "l", 0);        /* \u0001: left to cJSON */
    check_written("n", "k", "ctl\x1b[31m", "l", 0);
    check_written("n", "k\x01\x02", "c", "\x7f\x01", 1);   /* \u in values it skips: read */
    check_written(huge, huge, huge, huge, 1);
    free(huge);
}

/* ---- the rules, line by line ---- */

#define BASE_HEAD "{\"name\":\"g\",\"verdict\":\"fail\",\"ratio\":1.5,\"threshold\":1.2,\"p_value\":0.01,"
#define BASE_SIDES "\"baseline\":{\"median_ms\":2},\"current\":{\"median_ms\":3,\"min_ms\":2.5,\"max_ms\":3.5},"
#define BASE_TAIL "\"context\":{\"commit\":\"abc\",\"run_url\":\"https://x/1\"},\"timestamp\":\"2024-01-01T00:00:00Z\""
#define BASE BASE_HEAD BASE_SIDES BASE_TAIL

struct rule {
    const char *line;
    int scanned;               /* what the scanner answers */
};

static const struct rule rules[] = {
    { BASE "}", 1 },
    { " \t" BASE "} \r\t ", 1 },
    { "{ \"name\" : \"g\" ,\n\t\"verdict\" :\r\"pass\" }", 1 },
    /* the first member of a name counts */
    { "{\"name\":\"first\",\"verdict\":\"pass\",\"name\":\"second\"}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":null,\"ratio\":2}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline\":{\"median_ms\":\"x\",\"median_ms\":2}}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline_ms_per_epoch\":7," BASE_SIDES "\"x\":1}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline\":[1,2],\"current\":\"c\",\"context\":[]}", 1 },
    /* a figure no gate writes (negative, infinite): the full reader refuses it */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline\":{},\"current\":{\"min_ms\":-1e999}}", 0 },
    /* the last string of a context key counts; an empty one takes it out */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"commit\":\"a\",\"commit\":\"b\"}}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"commit\":\"a\",\"commit\":\"\"}}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"commit\":\"a\",\"commit\":7}}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"commit\":\"\\u0000x\"}}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"run_url\":\"a\\/b\\\"c\"},\"context\":{}}", 1 },
    /* escapes and what cJSON reads otherwise */
    { "{\"name\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\",\"verdict\":\"pass\"}", 1 },
    { "{\"name\":\"\\u0041\",\"verdict\":\"pass\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"p\\u0061ss\"}", 0 },
    { "{\"na\\u006de\":\"g\",\"verdict\":\"pass\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\ud83d\\ude00 \\u00e9\"}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\ud800\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\udc00\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\ud800\\u0041\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\u12G4\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"\\x\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":\"raw \x01\x1f\x7f\xff controls\"}", 1 },
    { "{\"name\":\"g\x01\",\"verdict\":\"pass\"}", 1 },
    /* whitespace only as JSON has it: cJSON takes any byte up to 0x20 */
    { "{\"name\":\"g\",\x01\"verdict\":\"pass\"}", 0 },
    { "\xef\xbb\xbf{\"name\":\"g\",\"verdict\":\"pass\"}", 0 },
    /* numbers */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1e999,\"p_value\":-0,\"threshold\":1E-2}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1e9,\"p_value\":-0,\"threshold\":1E-2}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":-0.0e+00}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":01}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1.}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":.5}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":+1}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1e}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":-}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":0x10}", 0 },
    /* 63 characters are read as cJSON reads them; 64 are not */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1.0000000000000000000000000000000000000000000000000000000000001}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":1.00000000000000000000000000000000000000000000000000000000000001}", 0 },
    /* literals, empty containers, nesting */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":[true,false,null,{},[],[[]],{\"a\":{}}]}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":tru}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":nulll}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":[1,]}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":[1 2]}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":{\"a\" 1}}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":{1:2}}", 0 },
    /* not a verdict, or not one value */
    { "{\"verdict\":\"pass\"}", 0 },
    { "{\"name\":7,\"verdict\":\"pass\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"maybe\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\"}x", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\"}{\"name\":\"g\",\"verdict\":\"pass\"}", 0 },
    { "[{\"name\":\"g\",\"verdict\":\"pass\"}]", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\"", 0 },
    { "{\"name\":\"g", 0 },
    /* dates */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"timestamp\":\"2024-02-30T00:00:00Z\"}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"timestamp\":\"2024-02-29\"}", 1 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"timestamp\":7,\"timestamp\":\"2024-02-29\"}", 1 },    /* figures out of range, and the largest in range */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline\":{},\"current\":{\"min_ms\":-1}}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"baseline\":{\"median_ms\":1e300}}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"current_ms_per_epoch\":9.3e12}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"current_ms_per_epoch\":9.1e12}", 1 },
    /* a NUL (\u0000) in any string, looked at or not: the line is the full
     * reader's, which refuses it; an escaped backslash before u0000 is text */
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"run_url\":\"https://x/1\\u0000y\"}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"warnings\":[\"w\\u0000\"]}", 0 },
    { "{\"name\":\"g\",\"verdict\":\"pass\",\"warnings\":[\"w\\\\u0000\"]}", 1 },
};

static void test_rules(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (agree(rules[i].line) != rules[i].scanned)
            fail_msg("rule %zu: the scanner %s %s", i, rules[i].scanned ? "leaves" : "reads",
                     rules[i].line);
}

/* What `changes` keys a series by: mode, metric and work as the full
 * reader keeps them, whether absent (mode "total", work "", metric none),
 * given, or a work set longer than the verdict's room (cut alike). */
static void test_setup(void **state)
{
    static const char *const lines[] = {
        "{\"name\":\"a\",\"verdict\":\"pass\"}",
        "{\"name\":\"a\",\"verdict\":\"pass\",\"mode\":\"nvtx\",\"metric\":\"gpu-busy\","
        "\"work\":\"all\"}",
        "{\"name\":\"a\",\"verdict\":\"pass\",\"work\":\"kernels,graphs,memory,kernels,graphs,"
        "memory,kernels,graphs\"}",
    };
    struct ng_trend_scan s = NG_TREND_SCAN_INIT;
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        assert_true(agree_as(lines[i], strlen(lines[i]), &s));
        if (i == 0) {
            assert_string_equal(s.mode, "total");
            assert_null(s.metric);
            assert_string_equal(s.work, "");
        } else if (i == 1) {
            assert_string_equal(s.mode, "nvtx");
            assert_string_equal(s.metric, "gpu-busy");
            assert_string_equal(s.work, "all");
        } else {
            assert_int_equal(strlen(s.work), NG_VERDICT_WORK_MAX - 1);
        }
    }
    ng_trend_scan_release(&s);
}

/* The full reader refuses a NUL escape as a line no gate writes (-2: the
 * history reader skips it with this reason), anywhere in the line. */
static void test_nul_refused(void **state)
{
    static const char *const lines[] = {
        "{\"name\":\"g\",\"verdict\":\"pass\",\"run_url\":\"https://x/1\\u0000y\"}",
        "{\"name\":\"g\\u0000h\",\"verdict\":\"pass\"}",
        "{\"name\":\"g\",\"verdict\":\"pass\",\"context\":{\"commit\":\"\\u0000\"}}",
    };
    (void)state;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct ng_verdict_doc doc;
        struct ng_err err;
        assert_int_equal(ng_verdict_doc_read(&doc, lines[i], strlen(lines[i]), &err), -2);
        assert_non_null(strstr(err.msg, "NUL"));
        ng_verdict_doc_release(&doc);
    }
    assert_non_null(ng_json_nul_escape("\\u0000", 6));
    assert_null(ng_json_nul_escape("\\\\u0000", 7));       /* \\ then u0000 */
    assert_non_null(ng_json_nul_escape("\\\\\\u0000", 8)); /* \\ then \u0000 */
    assert_null(ng_json_nul_escape("\\u000", 5));
    assert_null(ng_json_nul_escape("\\u0001", 6));
}

/* What the rules mean, spelled out for a few. */
static void test_values(void **state)
{
    struct ng_trend_scan s = NG_TREND_SCAN_INIT;
    (void)state;

    assert_int_equal(ng_trend_scan_line(&s, rules[0].line, strlen(rules[0].line)), 0);
    assert_string_equal(s.name, "g");
    assert_int_equal(s.outcome, NG_OUTCOME_FAIL);
    assert_true(s.has_figures && s.has_p);
    assert_true(s.ratio == 1.5 && s.threshold == 1.2 && s.p_value == 0.01);
    assert_true(s.baseline_ms == 2 && s.current_ms == 3);
    assert_true(s.current_min_ms == 2.5 && s.current_max_ms == 3.5);
    assert_string_equal(s.commit, "abc");
    assert_string_equal(s.run_url, "https://x/1");
    assert_int_equal(s.timestamp, 1704067200);

    assert_int_equal(ng_trend_scan_line(&s, rules[3].line, strlen(rules[3].line)), 0);
    assert_string_equal(s.name, "first");
    assert_null(s.commit);
    assert_int_equal(ng_trend_scan_line(&s, rules[4].line, strlen(rules[4].line)), 0);
    assert_false(s.has_figures);
    assert_true(s.ratio == 0);
    assert_int_equal(ng_trend_scan_line(&s, rules[6].line, strlen(rules[6].line)), 0);
    assert_true(s.baseline_ms == 7 && s.current_ms == 3);
    assert_int_equal(ng_trend_scan_line(&s, rules[9].line, strlen(rules[9].line)), 0);
    assert_string_equal(s.commit, "b");
    assert_int_equal(ng_trend_scan_line(&s, rules[10].line, strlen(rules[10].line)), 0);
    assert_null(s.commit);
    assert_int_equal(ng_trend_scan_line(&s, rules[11].line, strlen(rules[11].line)), 0);
    assert_string_equal(s.commit, "a");
    assert_int_equal(ng_trend_scan_line(&s, rules[14].line, strlen(rules[14].line)), 0);
    assert_string_equal(s.name, "a\"b\\c/d\b\f\n\r\t");
    ng_trend_scan_release(&s);
}

/* Nesting: 64 levels are scanned, 65 left to cJSON (which reads 1000). */
static void test_nesting(void **state)
{
    struct ng_buf b = NG_BUF_INIT;
    (void)state;
    for (int depth = 62; depth <= 66; depth++) {
        b.len = 0;
        ng_buf_adds(&b, "{\"name\":\"g\",\"verdict\":\"pass\",\"x\":");
        for (int i = 1; i < depth; i++)
            ng_buf_adds(&b, i % 2 ? "[" : "{\"k\":");
        ng_buf_adds(&b, "0");
        for (int i = depth - 1; i >= 1; i--)
            ng_buf_adds(&b, i % 2 ? "]" : "}");
        ng_buf_adds(&b, "}");
        assert_int_equal(agree(b.data), depth <= 64);
    }
    ng_buf_release(&b);
}

/* Numbers of every shape and size, read by the scanner without strtod()
 * where they allow it: the same doubles as cJSON's strtod(). */
static void test_numbers(void **state)
{
    static const char *const forms[] = { "%.17g", "%.15g", "%.6g", "%.3f", "%.9f", "%.2e",
                                         "%.16e", "%.0f", "%.20f" };
    uint64_t x = 0x9E3779B97F4A7C15ull;
    char num[80], line[160];
    size_t scanned = 0, in_range = 0;
    (void)state;

    for (int i = 0; i < 60000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        if (i % 3 == 0) {
            memcpy(&v, &x, sizeof v);
            if (!isfinite(v))
                v = (double)(x >> 11);
        } else {
            v = (double)(x >> (x % 64)) * pow(10, (double)((int)(x % 61) - 30));
        }
        if (x & 1)
            v = -v;
        snprintf(num, sizeof num, forms[i % 9], v);
        if (i % 7 == 0)   /* digits alone, up to 25 of them, a point anywhere */
            snprintf(num, sizeof num, "%llu.%llu", (unsigned long long)(x >> 20),
                     (unsigned long long)(x % 100000000000000ull));
        snprintf(line, sizeof line, "{\"name\":\"g\",\"verdict\":\"pass\",\"ratio\":%s}", num);
        scanned += (size_t)agree(line);
        /* a figure a gate writes is read; one out of range is left to the
         * full reader, which refuses it */
        double d = strtod(num, NULL);
        in_range += d >= 0 && d <= 9.2e12;
    }
    assert_true(in_range > 20000);
    assert_int_equal(scanned, in_range);
}

/* Every cut of a real line, and a handful of bytes put at many places:
 * where the scanner reads one, so does cJSON, to the same figures. */
static void test_mutations(void **state)
{
    static const char marks[] = "\"\\{}[],:0 e-.\x01";
    struct ng_buf b = NG_BUF_INIT;
    size_t scanned = 0, tried = 0;
    (void)state;
    ng_buf_adds(&b, BASE ",\"kernels\":[{\"name\":\"k\\\"1\",\"ratio\":null,\"share\":0.5}],"
                    "\"samples\":{\"baseline\":[1,2.5e3,-4],\"current\":[]},\"ok\":true}");
    const char *line = b.data;
    size_t len = b.len;
    char *copy = malloc(len + 1);
    for (size_t cut = 0; cut <= len; cut++) {
        struct ng_trend_scan s = NG_TREND_SCAN_INIT;
        scanned += (size_t)agree_as(line, cut, &s);
        ng_trend_scan_release(&s);
        tried++;
    }
    for (size_t at = 0; at < len; at++) {
        for (size_t m = 0; m < sizeof marks - 1; m++) {
            memcpy(copy, line, len + 1);
            copy[at] = marks[m];
            struct ng_trend_scan s = NG_TREND_SCAN_INIT;
            scanned += (size_t)agree_as(copy, len, &s);
            ng_trend_scan_release(&s);
            tried++;
        }
    }
    print_message("%zu of %zu changed lines scanned\n", scanned, tried);
    assert_true(scanned > tried / 20);   /* the comparisons were made */
    free(copy);
    ng_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_project_histories),
        cmocka_unit_test(test_gate_written),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_setup),
        cmocka_unit_test(test_nul_refused),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
