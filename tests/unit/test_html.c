/* The HTML pages' escaping for each context (text, attribute, SVG title,
 * URL), which run URLs are linked, the page frame's policy, a verdict's
 * section with hostile names, the overview's order, the --html reporter
 * for one verdict, an ERROR and a batch, and a verdict's timestamp read
 * back from its JSON line (the dashboard dates runs by it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render_helper.h"

#include "history/ng_verdict_doc.h"
#include "html/ng_html.h"
#include "reporters/ng_report.h"

static char *text(const char *s)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_html_escape_text(&b, s);
    return ng_buf_detach(&b);
}

static char *url(const char *s)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_html_escape_url(&b, s);
    return ng_buf_detach(&b);
}

#define ASSERT_TEXT(in, want) do { char *got_ = text(in); assert_string_equal(got_, want); free(got_); } while (0)
#define ASSERT_URL(in, want) do { char *got_ = url(in); assert_string_equal(got_, want); free(got_); } while (0)

static void test_text(void **state)
{
    (void)state;
    ASSERT_TEXT("</title><script>alert(1)</script><img src=x onerror=alert(2)>",
                "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;");
    ASSERT_TEXT("a & b \"q\" 'x'", "a &amp; b &quot;q&quot; &#39;x&#39;");
    ASSERT_TEXT("&amp;", "&amp;amp;");                 /* no double meaning */
    ASSERT_TEXT("line\nbreak\x1b[31m", "line\\x0Abreak\\x1B[31m");
    ASSERT_TEXT("bad\xff utf8", "bad\xEF\xBF\xBD utf8");
    ASSERT_TEXT("c1 \xc2\x9b", "c1 \\xC2\\x9B");
    ASSERT_TEXT("nonchar \xEF\xBF\xBE \xEF\xB7\x90 \xF4\x8F\xBF\xBF",
                "nonchar \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD");
    ASSERT_TEXT("\xC3\xA9\xE6\xBC\xA2 ok", "\xC3\xA9\xE6\xBC\xA2 ok");
    ASSERT_TEXT(NULL, "");
}

static void test_url(void **state)
{
    (void)state;
    ASSERT_URL("https://ci.example/runs/1?a=1&b=2#x", "https://ci.example/runs/1?a=1&amp;b=2#x");
    ASSERT_URL("https://x/a b\"c<d>e'f", "https://x/a%20b%22c%3Cd%3Ee%27f");
    ASSERT_URL("https://x/%41\xC3\xA9\n", "https://x/%41%C3%A9%0A");
    ASSERT_URL("g/resnet-1a2b.html#run-3", "g/resnet-1a2b.html#run-3");
    assert_true(ng_html_escape_url_linkable("https://github.com/o/r/actions/runs/1"));
    assert_true(ng_html_escape_url_linkable("HTTP://ci/1"));
    assert_true(ng_html_escape_url_linkable("hTtPs://ci/1"));
    assert_false(ng_html_escape_url_linkable("http:/ci/1"));
    assert_false(ng_html_escape_url_linkable("httpss://ci/1"));
    assert_false(ng_html_escape_url_linkable("http"));
    assert_false(ng_html_escape_url_linkable("javascript:alert(1)"));
    assert_false(ng_html_escape_url_linkable(" https://x"));
    assert_false(ng_html_escape_url_linkable("data:text/html,<script>"));
    assert_false(ng_html_escape_url_linkable("https://"));
    assert_false(ng_html_escape_url_linkable("file:///etc/passwd"));
    assert_false(ng_html_escape_url_linkable(NULL));
}

static double b_samples[] = { 10, 10.2, 9.9 };
static double c_samples[] = { 14, 14.1, 13.8 };
static struct ng_kernel_delta kernels[] = {
    { "</title><script>alert(1)</script><img src=x onerror=alert(2)>", NG_WORK_KERNEL,
      NG_KERNEL_CHANGED, 5, 9, 4, 0.9, 10, 10, 1, NG_OUTCOME_FAIL, 1.8, 1, 0.01, 0.02 },
    { "[CUDA memcpy Host-to-Device]", NG_WORK_MEMCPY, NG_KERNEL_NEW, 0, 0.4, 0.4, 0.1, 0, 2, 0,
      NG_OUTCOME_PASS, 0, 0, 0, 0 },
};

static struct ng_verdict verdict(const char *name, enum ng_outcome o)
{
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = o;
    v.name = name;
    v.mode = "nvtx";
    v.metric = "kernel-sum";
    snprintf(v.work, sizeof v.work, "kernels,graphs");
    v.threshold = 1.2;
    v.epochs = 3;
    v.has_figures = o != NG_OUTCOME_ERROR;
    v.ratio = 1.4;
    v.has_p = 1;
    v.p_value = 0.04;
    v.alpha = 0.05;
    v.baseline = (struct ng_verdict_side){ .path = "b<1>.sqlite", .samples = b_samples,
                                           .n_samples = 3, .ms_per_epoch = 10, .min_ms = 9.9,
                                           .max_ms = 10.2, .mean_ms = 10.03 };
    v.current = (struct ng_verdict_side){ .path = "c.sqlite", .samples = c_samples,
                                          .n_samples = 3, .ms_per_epoch = 14, .min_ms = 13.8,
                                          .max_ms = 14.1, .mean_ms = 13.97 };
    v.kernels = kernels;
    v.n_kernels = o == NG_OUTCOME_ERROR ? 0 : 2;
    if (o == NG_OUTCOME_ERROR)
        snprintf(v.error, sizeof v.error, "unable to open '<x>.sqlite': No such file");
    v.timestamp = 1714532400;
    return v;
}

static void test_page(void **state)
{
    (void)state;
    struct ng_verdict v = verdict("gate <b>&</b>", NG_OUTCOME_FAIL);
    char *page = render("html", &v);

    assert_true(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                              "'none'; style-src 'sha256-", 140) == 0);
    assert_non_null(strstr(page, "<title>FAIL: gate &lt;b&gt;&amp;&lt;/b&gt;</title>"));
    /* one script, the page's own; the kernel's name is text in the table and in the bar's title */
    char *first = strstr(page, "<script>");
    assert_non_null(first);
    assert_null(strstr(first + 1, "<script>"));
    assert_null(strstr(page, "<img"));
    assert_int_equal(strstr(page, "&lt;/title&gt;&lt;script&gt;alert(1)") != NULL, 1);
    assert_non_null(strstr(page, "<section class=\"run\" id=\"run\" data-verdict=\"fail\" "
                                 "data-gate=\"gate &lt;b&gt;&amp;&lt;/b&gt;\">"));
    assert_non_null(strstr(page, "b&lt;1&gt;.sqlite"));
    assert_non_null(strstr(page, "<circle class=\"s\""));
    assert_non_null(strstr(page, "data-kind=\"memcpy\""));
    /* the per-kernel gate's verdict of the gated item, nothing for the other */
    assert_non_null(strstr(page, "<th scope=\"col\">item gate</th>"));
    assert_non_null(strstr(page, "FAIL</span> <span class=\"note\">p 0.01, adjusted 0.02</span></td>"));
    assert_non_null(strstr(page, "<td class=\"n\">10.0%</td><td></td>"));
    assert_non_null(strstr(page, "<th scope=\"row\">commit</th><td><span class=\"note\">unknown</span>"));
    assert_non_null(strstr(page, "2024-05-01T03:00:00Z"));
    free(page);

    struct ng_verdict e = verdict("broken", NG_OUTCOME_ERROR);
    page = render("html", &e);
    assert_non_null(strstr(page, "<p class=\"mono err\">ERROR: unable to open &#39;&lt;x&gt;.sqlite&#39;"));
    assert_null(strstr(page, "class=\"chart strip\""));   /* no figures: no charts */
    assert_non_null(strstr(page, "ratio unknown"));
    free(page);
}

static void test_batch(void **state)
{
    (void)state;
    struct ng_verdict a = verdict("a-pass", NG_OUTCOME_PASS), b = verdict("b-error", NG_OUTCOME_ERROR),
                      c = verdict("c-fail", NG_OUTCOME_FAIL), d = verdict("d-inc", NG_OUTCOME_INCONCLUSIVE);
    const struct ng_verdict *vs[] = { &a, &b, &c, &d };
    struct ng_verdict_batch batch = { vs, 4, "m.json", 1714532400, 1.0 };
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;

    assert_int_equal(ng_report_render_batch("html", &batch, &out, &err), 0);
    const char *table = strstr(out.data, "<table class=\"overview\">");
    assert_non_null(table);
    /* failing first: fail, error, inconclusive, pass */
    const char *pc = strstr(table, "href=\"#gate-3\""), *pb = strstr(table, "href=\"#gate-2\"");
    const char *pd = strstr(table, "href=\"#gate-4\""), *pa = strstr(table, "href=\"#gate-1\"");
    assert_true(pc && pb && pd && pa && pc < pb && pb < pd && pd < pa);
    /* the sections keep manifest order */
    assert_true(strstr(out.data, "id=\"gate-1\"") < strstr(out.data, "id=\"gate-4\""));
    assert_non_null(strstr(out.data, "ERROR: 4 gates: 1 pass, 1 fail, 1 inconclusive, 1 error"));
    ng_buf_release(&out);
}

static void test_timestamp_read_back(void **state)
{
    (void)state;
    struct ng_verdict v = verdict("t", NG_OUTCOME_PASS);
    char *line = render("json-line", &v);
    struct ng_verdict_doc d;
    struct ng_err err;

    assert_int_equal(ng_verdict_doc_read(&d, line, strlen(line), &err), 0);
    assert_int_equal(d.v.timestamp, 1714532400);
    ng_verdict_doc_release(&d);
    free(line);
    const char *bad = "{\"name\":\"x\",\"verdict\":\"pass\",\"timestamp\":\"yesterday\"}";
    assert_int_equal(ng_verdict_doc_read(&d, bad, strlen(bad), &err), 0);
    assert_int_equal(d.v.timestamp, 0);
    ng_verdict_doc_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_url),
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_timestamp_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
