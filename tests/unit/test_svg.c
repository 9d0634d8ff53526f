/* The plotting code: nice numbers and ticks (covering, steps of 1, 2 or 5
 * times a power of ten, decimals, degenerate and huge ranges), the scale,
 * tick labels, and the charts' structure: one mark per point of the right
 * shape and colour, links escaped, gaps where a run has no figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "html/ng_svg.h"
#include "util/ng_text.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_nice_num(void **state)
{
    (void)state;
    assert_true(ng_nice_num(1.4, 1) == 1);
    assert_true(ng_nice_num(1.6, 1) == 2);
    assert_true(ng_nice_num(3.2, 1) == 5);
    assert_true(ng_nice_num(7.5, 1) == 10);
    assert_true(ng_nice_num(1.01, 0) == 2);
    assert_true(ng_nice_num(2.0, 0) == 2);
    assert_true(ng_nice_num(5.5, 0) == 10);
    assert_true(fabs(ng_nice_num(0.034, 1) - 0.05) < 1e-12);
    assert_true(ng_nice_num(420, 0) == 500);
    assert_true(ng_nice_num(0, 1) == 1);     /* not a range: a unit step */
    assert_true(ng_nice_num(NAN, 1) == 1);
}

/* Every tick set covers its range with a nice step and evenly spaced values. */
static void check_ticks(double lo, double hi, int target)
{
    struct ng_ticks t;
    ng_ticks_nice(lo, hi, target, &t);
    assert_true(t.n >= 2 && t.n <= NG_TICKS_MAX);
    assert_true(t.v[0] <= lo + 1e-9 * fabs(lo) && t.v[t.n - 1] >= hi - 1e-9 * fabs(hi));
    double m = t.step / pow(10, floor(log10(t.step)));
    assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);
    for (size_t i = 1; i < t.n; i++)
        assert_true(fabs(t.v[i] - t.v[i - 1] - t.step) < 1e-9 * t.step);
}

static void test_ticks(void **state)
{
    (void)state;
    struct ng_ticks t;
    char buf[32];

    ng_ticks_nice(13.2, 19.7, 4, &t);
    assert_true(t.step == 2 && t.n == 5 && t.v[0] == 12 && t.v[4] == 20 && t.decimals == 0);
    ng_ticks_nice(0.81, 1.27, 4, &t);
    assert_true(fabs(t.step - 0.1) < 1e-12 && t.decimals == 1);
    ng_fmt_tick(buf, sizeof buf, t.v[2], t.decimals);
    assert_string_equal(buf, "1.0");
    ng_ticks_nice(-0.003, 55.6, 5, &t);   /* a bar chart with one small negative */
    assert_true(t.v[0] < 0 && t.v[0] >= -20 && t.v[t.n - 1] >= 55.6);
    ng_ticks_nice(106.7, 106.7, 4, &t);   /* one value: widened around it */
    assert_true(t.v[0] < 106.7 && t.v[t.n - 1] > 106.7);
    ng_ticks_nice(0, 0, 4, &t);
    assert_true(t.v[0] <= 0 && t.v[t.n - 1] > 0);
    ng_ticks_nice(NAN, NAN, 4, &t);       /* no data at all */
    assert_true(t.n >= 2 && isfinite(t.v[0]));
    ng_ticks_nice(5, 1, 4, &t);           /* reversed */
    assert_true(t.v[0] <= 1 && t.v[t.n - 1] >= 5);
    ng_ticks_nice(0, 1e9, 100, &t);       /* more than the array holds: wider steps */
    assert_true(t.n <= NG_TICKS_MAX);
    double ranges[][2] = { { 0.0012, 0.0019 }, { 1, 1e6 }, { -50, 50 }, { 999, 1001 },
                           { 0.2, 0.2001 }, { 12345.6, 98765.4 } };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        for (int target = 1; target <= 10; target++)
            check_ticks(ranges[i][0], ranges[i][1], target);
    ng_fmt_tick(buf, sizeof buf, -0.0000001, 2);
    assert_string_equal(buf, "0.00");   /* never "-0.00" */
    ng_fmt_tick(buf, sizeof buf, 0.25, 2);
    assert_string_equal(buf, "0.25");
}

static void test_scale(void **state)
{
    (void)state;
    struct ng_scale s = { 10, 20, 100, 0 };   /* y grows downwards */
    assert_true(ng_scale_map(&s, 10) == 100);
    assert_true(ng_scale_map(&s, 20) == 0);
    assert_true(ng_scale_map(&s, 15) == 50);
    struct ng_scale flat = { 3, 3, 0, 10 };
    assert_true(ng_scale_map(&flat, 3) == 5);
}

static void test_trend(void **state)
{
    (void)state;
    struct ng_svg_point p[4] = {
        { .x = 1, .outcome = NG_OUTCOME_PASS, .has_value = 1, .value = 10, .lo = 9, .hi = 11,
          .has_limit = 1, .limit = 12, .baseline = 10, .href = "https://ci/1?a=1&b=\"2\"",
          .title = "run 1 </title><script>x</script>", .x_label = "2024-05-01" },
        { .x = 2, .outcome = NG_OUTCOME_ERROR, .title = "run 2" },
        { .x = 3, .outcome = NG_OUTCOME_FAIL, .has_value = 1, .value = 14, .lo = 13, .hi = 15,
          .has_limit = 1, .limit = 12, .baseline = 10, .title = "run 3" },
        { .x = 5, .outcome = NG_OUTCOME_INCONCLUSIVE, .has_value = 1, .value = 13, .lo = 12,
          .hi = 14, .has_limit = 1, .limit = 12, .baseline = 10, .title = "run 5" },
    };
    /* change points: one unacknowledged (red), one acknowledged (grey,
     * dashed), one outside the points drawn (not drawn) */
    static const struct ng_svg_marker m[] = {
        { 2, "abc1234 1.20x", "regression <1.20x>", 0 },
        { 4, "def5678 1.10x", "acknowledged", 1 },
        { 9, "gone", "thinned away", 0 },
    };
    struct ng_svg_trend_opts o = { 760, 200, "g <1>", "g \"1\"", 5, "kernel-sum, ms <per> epoch",
                                   m, 3 };
    struct ng_buf b = NG_BUF_INIT;

    ng_svg_trend(&b, p, 4, &o);
    assert_int_equal(count(b.data, "class=\"pt\""), 4);
    assert_int_equal(count(b.data, "<a class=\"pt\""), 1);
    assert_int_equal(count(b.data, "<circle class=\"v-pass\""), 1);
    assert_int_equal(count(b.data, "<path class=\"v-fail\""), 1);
    assert_int_equal(count(b.data, "<path class=\"v-error\""), 1);
    assert_int_equal(count(b.data, "<path class=\"v-inconclusive\""), 1);
    assert_non_null(strstr(b.data, "href=\"https://ci/1?a=1&amp;b=%222%22\""));
    assert_non_null(strstr(b.data, "<title>run 1 &lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>"));
    assert_null(strstr(b.data, "<script"));
    assert_non_null(strstr(b.data, "data-gate=\"g &quot;1&quot;\" data-runs=\"5\" data-shown=\"4\""));
    assert_non_null(strstr(b.data, "class=\"axis-title\" transform=\"rotate(-90)\""));
    assert_non_null(strstr(b.data, ">kernel-sum, ms &lt;per&gt; epoch</text>"));
    /* the ERROR breaks the band into two shapes, the lines into two pieces */
    const char *band = strstr(b.data, "class=\"band\" d=\"");
    assert_non_null(band);
    assert_int_equal(count(band, "Z") - count(strstr(band, "/>"), "Z"), 2);
    assert_non_null(strstr(b.data, "class=\"limit\""));
    assert_non_null(strstr(b.data, "class=\"baseline\""));
    assert_non_null(strstr(b.data, ">2024-05-01</text>"));
    assert_int_equal(count(b.data, "<g class=\"change"), 2);
    assert_int_equal(count(b.data, "<g class=\"change acked\">"), 1);
    assert_non_null(strstr(b.data, "<title>regression &lt;1.20x&gt;</title>"));
    assert_non_null(strstr(b.data, ">abc1234 1.20x</text>"));
    assert_null(strstr(b.data, ">gone</text>"));
    ng_buf_release(&b);

    ng_svg_trend(&b, p, 1, &o);   /* one point: drawn, in the middle */
    assert_int_equal(count(b.data, "class=\"pt\""), 1);
    ng_buf_release(&b);
    ng_svg_trend(&b, p + 1, 1, &o);   /* only an ERROR: no figures, still its mark */
    assert_int_equal(count(b.data, "class=\"v-error\""), 1);
    assert_null(strstr(b.data, "nan"));
    ng_buf_release(&b);
}

static void test_strip_bars_spark(void **state)
{
    (void)state;
    double base[] = { 10, 10, 10.5 }, cur[] = { 12, 12.2, 11.9, 12.1 };
    struct ng_svg_bar bars[] = {
        { "k1 <&>", "k1 <&>: +2", 2.0, NG_WORK_KERNEL },
        { "a very long name that goes on and on past forty characters \xC3\xA9\xC3\xA9", "t",
          -0.5, NG_WORK_MEMCPY },
    };
    double spark[] = { 1, NAN, 2, 3 };
    struct ng_buf b = NG_BUF_INIT;

    ng_svg_strip(&b, base, 3, cur, 4, NAN);
    assert_int_equal(count(b.data, "<circle class=\"s\""), 7);
    assert_int_equal(count(b.data, "class=\"median\""), 2);
    assert_non_null(strstr(b.data, "baseline: 3 samples, median 10.000 ms"));
    assert_null(strstr(b.data, "class=\"limit\""));
    ng_buf_release(&b);

    /* the threshold's line, inside the axis even past every sample */
    ng_svg_strip(&b, base, 3, cur, 4, 1.2 * 10);
    assert_int_equal(count(b.data, "<g class=\"limit\""), 1);
    assert_non_null(strstr(b.data, "threshold x baseline: 12.000 ms"));
    ng_buf_release(&b);
    ng_svg_strip(&b, base, 3, cur, 4, 20);
    assert_non_null(strstr(b.data, ">20 ms</text>"));   /* the axis reaches it */
    ng_buf_release(&b);

    ng_svg_bars(&b, bars, 2, " ms");
    assert_int_equal(count(b.data, "<g class=\"bar\""), 2);
    assert_non_null(strstr(b.data, "data-kind=\"memcpy\""));
    assert_non_null(strstr(b.data, "k1 &lt;&amp;&gt;</text>"));
    assert_non_null(strstr(b.data, "goes on and on pas...</text>"));   /* cut to 40 characters */
    assert_non_null(strstr(b.data, ">-0.500</text>"));
    assert_non_null(strstr(b.data, "fill=\"#bc4c00\""));
    ng_buf_release(&b);

    ng_svg_sparkline(&b, spark, 4, NG_OUTCOME_FAIL);
    assert_int_equal(count(b.data, "M"), 3);   /* two pieces and the mark's path */
    assert_int_equal(count(b.data, "v-fail"), 1);
    ng_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nice_num),
        cmocka_unit_test(test_ticks),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_trend),
        cmocka_unit_test(test_strip_bars_spark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
