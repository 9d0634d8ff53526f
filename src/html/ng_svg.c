#include "html/ng_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_stats.h"
#include "html/ng_html_escape.h"
#include "util/ng_text.h"

/* ---- scales and ticks ---- */

double ng_nice_num(double x, int round)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double e = floor(log10(x));
    double f = x / pow(10, e), nf;
    if (round)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * pow(10, e);
}

static int decimals_of(double step)
{
    int d = (int)-floor(log10(step) + 1e-9);
    return d > 0 ? d : 0;
}

void ng_ticks_nice(double lo, double hi, int target, struct ng_ticks *t)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = isfinite(lo) ? lo : isfinite(hi) ? hi : 0;
        hi = lo;
    }
    if (hi < lo) {
        double x = lo;
        lo = hi;
        hi = x;
    }
    if (hi == lo) {   /* one value: a range of 10% around it (or 0..1) */
        double d = lo == 0 ? 0.5 : fabs(lo) * 0.05;
        lo -= d;
        hi += d;
    }
    if (target < 1)
        target = 1;
    double step = ng_nice_num(ng_nice_num(hi - lo, 0) / target, 1);
    double k0, k1;
    for (;;) {
        k0 = floor(lo / step + 1e-9);
        k1 = ceil(hi / step - 1e-9);
        if (k1 - k0 + 1 <= NG_TICKS_MAX)
            break;
        step = ng_nice_num(step * 2, 1);   /* too many for the array: wider steps */
    }
    t->n = (size_t)(k1 - k0) + 1;
    t->step = step;
    t->decimals = decimals_of(step);
    for (size_t i = 0; i < t->n; i++)
        t->v[i] = (k0 + (double)i) * step;
}

void ng_fmt_tick(char *buf, size_t size, double v, int decimals)
{
    snprintf(buf, size, "%.*f", decimals, v);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));   /* "-0.00" is "0.00" */
}

double ng_scale_map(const struct ng_scale *s, double v)
{
    if (s->d1 == s->d0)
        return (s->r0 + s->r1) / 2;
    return s->r0 + (v - s->d0) * (s->r1 - s->r0) / (s->d1 - s->d0);
}

/* A position: one decimal, no "-0.0", no trailing ".0" (a chart of a
 * thousand points is mostly numbers). */
static void num(struct ng_buf *out, double v)
{
    char buf[NG_FMT_FIXED_MAX];
    if (!isfinite(v))
        v = 0;
    size_t n = ng_fmt_fixed(buf, v, 1);
    if (n > 2 && buf[n - 2] == '.' && buf[n - 1] == '0')
        n -= 2;
    if (n == 2 && buf[0] == '-' && buf[1] == '0')
        ng_buf_add(out, "0", 1);
    else
        ng_buf_add(out, buf, n);
}

static void xy(struct ng_buf *out, double x, double y)
{
    num(out, x);
    ng_buf_adds(out, " ");
    num(out, y);
}

/* ---- marks ---- */

static const char *outcome_colour(enum ng_outcome o)
{
    static const char *const colours[] = {
        [NG_OUTCOME_PASS] = "#1a7f37",
        [NG_OUTCOME_FAIL] = "#cf222e",
        [NG_OUTCOME_INCONCLUSIVE] = "#9a6700",
        [NG_OUTCOME_ERROR] = "#57606a",
    };
    return colours[o];
}

const char *ng_svg_kind_colour(enum ng_work_kind k)
{
    static const char *const colours[NG_WORK_KINDS] = {
        [NG_WORK_KERNEL] = "#0969da",
        [NG_WORK_GRAPH] = "#8250df",
        [NG_WORK_MEMCPY] = "#bc4c00",
        [NG_WORK_MEMSET] = "#1b7c83",
    };
    return colours[k];
}

/* The end of a mark: `head`, the colour, "\"/>" (no printf: a chart has a
 * thousand marks). */
static void fill(struct ng_buf *out, const char *head, const char *colour)
{
    ng_buf_adds(out, head);
    ng_buf_adds(out, colour);
    ng_buf_adds(out, "\"/>");
}

void ng_svg_mark(struct ng_buf *out, enum ng_outcome o, double x, double y, double r)
{
    const char *c = outcome_colour(o);

    switch (o) {
    case NG_OUTCOME_PASS:
        ng_buf_adds(out, "<circle class=\"v-pass\" cx=\"");
        num(out, x);
        ng_buf_adds(out, "\" cy=\"");
        num(out, y);
        ng_buf_adds(out, "\" r=\"");
        num(out, r);
        fill(out, "\" fill=\"", c);
        return;
    case NG_OUTCOME_FAIL:   /* a triangle pointing up: slower */
        ng_buf_adds(out, "<path class=\"v-fail\" d=\"M");
        xy(out, x, y - 1.25 * r);
        ng_buf_adds(out, "L");
        xy(out, x + 1.15 * r, y + 0.75 * r);
        ng_buf_adds(out, "H");
        num(out, x - 1.15 * r);
        fill(out, "Z\" fill=\"", c);
        return;
    case NG_OUTCOME_INCONCLUSIVE:
        ng_buf_adds(out, "<path class=\"v-inconclusive\" d=\"M");
        xy(out, x, y - 1.3 * r);
        ng_buf_adds(out, "L");
        xy(out, x + r, y);
        ng_buf_adds(out, "L");
        xy(out, x, y + 1.3 * r);
        ng_buf_adds(out, "L");
        xy(out, x - r, y);
        fill(out, "Z\" fill=\"", c);
        return;
    case NG_OUTCOME_ERROR:
        ng_buf_adds(out, "<path class=\"v-error\" d=\"M");
        xy(out, x - r, y - r);
        ng_buf_adds(out, "L");
        xy(out, x + r, y + r);
        ng_buf_adds(out, "M");
        xy(out, x + r, y - r);
        ng_buf_adds(out, "L");
        xy(out, x - r, y + r);
        ng_buf_addf(out, "\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\"/>", c);
        return;
    }
}

/* ---- shared chart parts ---- */

static void svg_open(struct ng_buf *out, const char *cls, double w, double h, const char *label)
{
    ng_buf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" viewBox=\"0 0 ", cls);
    xy(out, w, h);
    ng_buf_adds(out, "\" role=\"img\" aria-label=\"");
    ng_html_escape_attr(out, label ? label : "");
    ng_buf_adds(out, "\"");
}

/* Horizontal grid lines with their labels on the left. */
static void y_axis(struct ng_buf *out, const struct ng_ticks *t, const struct ng_scale *y,
                   double x0, double x1, const char *unit)
{
    char buf[40];

    ng_buf_adds(out, "<path class=\"grid\" d=\"");
    for (size_t i = 0; i < t->n; i++) {
        ng_buf_adds(out, "M");
        xy(out, x0, ng_scale_map(y, t->v[i]));
        ng_buf_adds(out, "H");
        num(out, x1);
    }
    ng_buf_adds(out, "\" stroke=\"#d0d7de\" stroke-width=\"1\"/>");
    for (size_t i = 0; i < t->n; i++) {
        ng_fmt_tick(buf, sizeof buf, t->v[i], t->decimals);
        ng_buf_adds(out, "<text x=\"");
        num(out, x0 - 4);
        ng_buf_adds(out, "\" y=\"");
        num(out, ng_scale_map(y, t->v[i]) + 3.5);
        ng_buf_addf(out, "\" text-anchor=\"end\">%s%s</text>", buf,
                    i + 1 == t->n && unit ? unit : "");
    }
}

/* Vertical grid lines with their labels below. */
static void x_axis(struct ng_buf *out, const struct ng_ticks *t, const struct ng_scale *x,
                   double y0, double y1, const char *unit)
{
    char buf[40];

    ng_buf_adds(out, "<path class=\"grid\" d=\"");
    for (size_t i = 0; i < t->n; i++) {
        ng_buf_adds(out, "M");
        xy(out, ng_scale_map(x, t->v[i]), y0);
        ng_buf_adds(out, "V");
        num(out, y1);
    }
    ng_buf_adds(out, "\" stroke=\"#d0d7de\" stroke-width=\"1\"/>");
    for (size_t i = 0; i < t->n; i++) {
        ng_fmt_tick(buf, sizeof buf, t->v[i], t->decimals);
        ng_buf_adds(out, "<text x=\"");
        num(out, ng_scale_map(x, t->v[i]));
        ng_buf_adds(out, "\" y=\"");
        num(out, y1 + 13);
        ng_buf_addf(out, "\" text-anchor=\"middle\">%s%s</text>", buf,
                    i + 1 == t->n && unit ? unit : "");
    }
}

/* ---- the trend chart ---- */

#define TREND_LEFT 56.0
#define TREND_RIGHT 12.0
#define TREND_TOP 8.0
#define TREND_BOTTOM 22.0

static void widen(double *lo, double *hi, double v)
{
    if (!isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

static void trend_domain(const struct ng_svg_point *p, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (p[i].has_value) {
            widen(lo, hi, p[i].value);
            widen(lo, hi, p[i].lo);
            widen(lo, hi, p[i].hi);
        }
        if (p[i].has_limit) {
            widen(lo, hi, p[i].limit);
            widen(lo, hi, p[i].baseline);
        }
    }
    if (*lo > *hi)
        *lo = *hi = NAN;
}

/* A path through the points that have what `pick` returns, broken where
 * a point lacks it.  which: 0 value, 1 limit, 2 baseline. */
static double picked(const struct ng_svg_point *p, int which)
{
    if (which == 0)
        return p->has_value ? p->value : NAN;
    if (!p->has_limit)
        return NAN;
    return which == 1 ? p->limit : p->baseline;
}

static void trend_line(struct ng_buf *out, const struct ng_svg_point *p, size_t n,
                       const struct ng_scale *x, const struct ng_scale *y, int which,
                       const char *attrs)
{
    int open = 0, any = 0;

    for (size_t i = 0; i < n; i++) {
        double v = picked(&p[i], which);
        if (!isfinite(v)) {
            open = 0;
            continue;
        }
        if (!any)
            ng_buf_adds(out, "<path d=\"");
        any = 1;
        ng_buf_adds(out, open ? "L" : "M");
        xy(out, ng_scale_map(x, p[i].x), ng_scale_map(y, v));
        open = 1;
    }
    if (any)
        ng_buf_addf(out, "\" %s/>", attrs);
}

/* The min..max band: one closed shape per run of consecutive points with
 * figures (an ERROR breaks it). */
static void trend_band(struct ng_buf *out, const struct ng_svg_point *p, size_t n,
                       const struct ng_scale *x, const struct ng_scale *y)
{
    int any = 0;

    for (size_t i = 0; i < n;) {
        if (!p[i].has_value) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && p[j].has_value)
            j++;
        if (!any)
            ng_buf_adds(out, "<path class=\"band\" d=\"");
        any = 1;
        for (size_t k = i; k < j; k++) {
            ng_buf_adds(out, k == i ? "M" : "L");
            xy(out, ng_scale_map(x, p[k].x), ng_scale_map(y, p[k].hi));
        }
        for (size_t k = j; k-- > i;) {
            ng_buf_adds(out, "L");
            xy(out, ng_scale_map(x, p[k].x), ng_scale_map(y, p[k].lo));
        }
        ng_buf_adds(out, "Z");
        i = j;
    }
    if (any)
        ng_buf_adds(out, "\" fill=\"#0969da\" fill-opacity=\"0.15\"/>");
}

/* Labels under about six of the points, evenly spread. */
static void trend_x_labels(struct ng_buf *out, const struct ng_svg_point *p, size_t n,
                           const struct ng_scale *x, double y)
{
    size_t labels = n < 6 ? n : 6;
    size_t last = (size_t)-1;

    for (size_t k = 0; k < labels; k++) {
        size_t i = labels == 1 ? 0 : (k * (n - 1) + (labels - 1) / 2) / (labels - 1);
        if (i == last || !p[i].x_label)
            continue;
        last = i;
        double px = ng_scale_map(x, p[i].x);
        const char *anchor = k == 0 && labels > 1 ? "start" : k + 1 == labels && labels > 1
                                                                 ? "end"
                                                                 : "middle";
        ng_buf_adds(out, "<text x=\"");
        num(out, px);
        ng_buf_adds(out, "\" y=\"");
        num(out, y);
        ng_buf_addf(out, "\" text-anchor=\"%s\">", anchor);
        ng_html_escape_text(out, p[i].x_label);
        ng_buf_adds(out, "</text>");
    }
}

static void trend_point(struct ng_buf *out, const struct ng_svg_point *p,
                        const struct ng_scale *x, const struct ng_scale *y, double bottom)
{
    double px = ng_scale_map(x, p->x);
    double py = p->has_value ? ng_scale_map(y, p->value) : bottom - 5;

    if (p->href) {
        ng_buf_adds(out, "<a class=\"pt\" href=\"");
        ng_html_escape_url(out, p->href);
        ng_buf_adds(out, "\">");
    } else {
        ng_buf_adds(out, "<g class=\"pt\">");
    }
    ng_buf_adds(out, "<title>");
    ng_html_escape_text(out, p->title ? p->title : "");
    ng_buf_adds(out, "</title>");
    ng_svg_mark(out, p->outcome, px, py, 3.5);
    ng_buf_adds(out, p->href ? "</a>" : "</g>");
}

/* The change points: a line from top to bottom at the first bad run,
 * labelled at the top (the label's anchor turns near the right edge so
 * it stays inside the chart). */
static void trend_markers(struct ng_buf *out, const struct ng_svg_trend_opts *o,
                          const struct ng_scale *x, double y0, double y1, double x_end)
{
    for (size_t i = 0; i < o->n_markers; i++) {
        const struct ng_svg_marker *m = &o->markers[i];
        if (m->x < x->d0 || m->x > x->d1)
            continue;   /* thinned away or outside */
        double at = ng_scale_map(x, m->x);
        ng_buf_addf(out, "<g class=\"change%s\"><title>", m->acknowledged ? " acked" : "");
        ng_html_escape_text(out, m->title ? m->title : "");
        ng_buf_adds(out, "</title><path d=\"M");
        xy(out, at, y0);
        ng_buf_adds(out, "V");
        num(out, y1);
        ng_buf_addf(out, "\" stroke=\"%s\" stroke-width=\"1.5\"%s/>",
                    m->acknowledged ? "#8c959f" : "#cf222e",
                    m->acknowledged ? " stroke-dasharray=\"3 2\"" : "");
        ng_buf_adds(out, "<text class=\"change-label\" x=\"");
        num(out, at + (at > x_end - 90 ? -3 : 3));
        ng_buf_adds(out, "\" y=\"");
        num(out, y0 + 9);
        ng_buf_addf(out, "\" font-size=\"10\" fill=\"%s\"%s>", m->acknowledged ? "#57606a" : "#cf222e",
                    at > x_end - 90 ? " text-anchor=\"end\"" : "");
        ng_html_escape_text(out, m->label ? m->label : "");
        ng_buf_adds(out, "</text></g>");
    }
}

void ng_svg_trend(struct ng_buf *out, const struct ng_svg_point *p, size_t n,
                  const struct ng_svg_trend_opts *o)
{
    double w = o->width, h = o->height, lo, hi;
    double x0 = TREND_LEFT, x1 = w - TREND_RIGHT, y0 = TREND_TOP, y1 = h - TREND_BOTTOM;
    struct ng_ticks t;

    svg_open(out, "chart trend", w, h, o->label);
    ng_buf_adds(out, " data-gate=\"");
    ng_html_escape_attr(out, o->data_gate ? o->data_gate : "");
    ng_buf_addf(out, "\" data-runs=\"%zu\" data-shown=\"%zu\">", o->runs, n);
    trend_domain(p, n, &lo, &hi);
    ng_ticks_nice(lo, hi, 4, &t);
    struct ng_scale y = { t.v[0], t.v[t.n - 1], y1, y0 };
    /* a lone point sits in the middle; the marks keep clear of the edges */
    struct ng_scale x = { n ? p[0].x : 0, n ? p[n - 1].x : 0, x0 + 6, x1 - 6 };
    y_axis(out, &t, &y, x0, x1, " ms");
    if (o->y_title) {   /* along the axis, clear of its tick labels */
        ng_buf_adds(out, "<text class=\"axis-title\" transform=\"rotate(-90)\" x=\"");
        num(out, -(y0 + y1) / 2);
        ng_buf_adds(out, "\" y=\"10\" text-anchor=\"middle\">");
        ng_html_escape_text(out, o->y_title);
        ng_buf_adds(out, "</text>");
    }
    trend_x_labels(out, p, n, &x, h - 6);
    trend_band(out, p, n, &x, &y);
    trend_line(out, p, n, &x, &y, 2,
               "class=\"baseline\" fill=\"none\" stroke=\"#57606a\" stroke-width=\"1\" "
               "stroke-dasharray=\"4 3\"");
    trend_line(out, p, n, &x, &y, 1,
               "class=\"limit\" fill=\"none\" stroke=\"#cf222e\" stroke-width=\"1\" "
               "stroke-dasharray=\"1 2\"");
    trend_line(out, p, n, &x, &y, 0,
               "class=\"line\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\"");
    trend_markers(out, o, &x, y0, y1, x1);
    for (size_t i = 0; i < n; i++)
        trend_point(out, &p[i], &x, &y, y1);
    ng_buf_adds(out, "</svg>");
}

/* ---- the sparkline ---- */

#define SPARK_W 120.0
#define SPARK_H 24.0

void ng_svg_sparkline(struct ng_buf *out, const double *v, size_t n, enum ng_outcome last)
{
    double lo = INFINITY, hi = -INFINITY;

    svg_open(out, "spark", SPARK_W, SPARK_H, "recent ms/epoch");
    ng_buf_adds(out, ">");
    for (size_t i = 0; i < n; i++)
        widen(&lo, &hi, v[i]);
    if (lo > hi) {
        ng_buf_adds(out, "</svg>");
        return;
    }
    struct ng_scale x = { 0, n > 1 ? (double)(n - 1) : 0, 3, SPARK_W - 5 };
    struct ng_scale y = { lo, hi, SPARK_H - 4, 4 };
    int open = 0, any = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            open = 0;
            continue;
        }
        if (!any)
            ng_buf_adds(out, "<path d=\"");
        any = 1;
        ng_buf_adds(out, open ? "L" : "M");
        xy(out, ng_scale_map(&x, (double)i), ng_scale_map(&y, v[i]));
        open = 1;
    }
    if (any)
        ng_buf_adds(out, "\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.2\"/>");
    double ly = isfinite(v[n - 1]) ? ng_scale_map(&y, v[n - 1]) : SPARK_H - 4;
    ng_svg_mark(out, last, ng_scale_map(&x, (double)(n - 1)), ly, 2.5);
    ng_buf_adds(out, "</svg>");
}

/* ---- the strip plot ---- */

#define STRIP_W 660.0
#define STRIP_LEFT 70.0
#define STRIP_ROW 34.0

static void strip_row(struct ng_buf *out, const char *side, const char *cls, const double *v,
                      size_t n, const struct ng_scale *x, double mid, const char *colour)
{
    struct ng_summary sm;

    ng_stats_summary(v, n, &sm);
    ng_buf_addf(out, "<g class=\"side %s\"><title>%s: %zu sample%s", cls, side, n,
                n == 1 ? "" : "s");
    if (n)
        ng_buf_addf(out, ", median %.3f ms, min %.3f, max %.3f", sm.median, sm.min, sm.max);
    ng_buf_adds(out, "</title><text x=\"4\" y=\"");
    num(out, mid + 4);
    ng_buf_addf(out, "\">%s</text>", side);
    for (size_t i = 0; i < n; i++) {
        /* a fixed spread over nine lanes, so equal samples stay visible */
        double dy = (double)((int)((i * 5) % 9) - 4) * 2.6;
        ng_buf_adds(out, "<circle class=\"s\" cx=\"");
        num(out, ng_scale_map(x, v[i]));
        ng_buf_adds(out, "\" cy=\"");
        num(out, mid + dy);
        ng_buf_addf(out, "\" r=\"2.5\" fill=\"%s\" fill-opacity=\"0.6\"/>", colour);
    }
    if (n) {
        ng_buf_adds(out, "<path class=\"median\" d=\"M");
        xy(out, ng_scale_map(x, sm.median), mid - 14);
        ng_buf_adds(out, "v28\" stroke=\"#1f2328\" stroke-width=\"2\"/>");
    }
    ng_buf_adds(out, "</g>");
}

/* The threshold's line across both rows, with its figure as a tooltip. */
static void strip_limit(struct ng_buf *out, const struct ng_scale *x, double limit_ms, double h)
{
    ng_buf_adds(out, "<g class=\"limit\"><title>threshold x baseline: ");
    ng_buf_add_fixed(out, limit_ms, 3);
    ng_buf_adds(out, " ms</title><path d=\"M");
    xy(out, ng_scale_map(x, limit_ms), 2);
    ng_buf_adds(out, "V");
    num(out, h);
    ng_buf_adds(out, "\" stroke=\"#cf222e\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"/></g>");
}

void ng_svg_strip(struct ng_buf *out, const double *base, size_t nb, const double *cur,
                  size_t nc, double limit_ms)
{
    double lo = INFINITY, hi = -INFINITY;
    double h = 2 * STRIP_ROW + 30;
    int limit = isfinite(limit_ms) && limit_ms > 0 && (nb || nc);
    struct ng_ticks t;

    for (size_t i = 0; i < nb; i++)
        widen(&lo, &hi, base[i]);
    for (size_t i = 0; i < nc; i++)
        widen(&lo, &hi, cur[i]);
    if (limit)
        widen(&lo, &hi, limit_ms);
    if (lo > hi)
        lo = hi = NAN;
    ng_ticks_nice(lo, hi, 6, &t);
    struct ng_scale x = { t.v[0], t.v[t.n - 1], STRIP_LEFT, STRIP_W - 36 };
    svg_open(out, "chart strip", STRIP_W, h, "per-epoch samples of both sides, ms");
    ng_buf_adds(out, ">");
    x_axis(out, &t, &x, 4, 2 * STRIP_ROW + 12, " ms");
    strip_row(out, "baseline", "baseline", base, nb, &x, 4 + STRIP_ROW / 2 + 2, "#57606a");
    strip_row(out, "current", "current", cur, nc, &x, 4 + STRIP_ROW * 1.5 + 4, "#0969da");
    if (limit)
        strip_limit(out, &x, limit_ms, 2 * STRIP_ROW + 8);
    ng_buf_adds(out, "</svg>");
}

/* ---- the bar chart ---- */

#define BARS_W 720.0
#define BARS_LABEL 268.0
#define BARS_ROW 20.0
#define LABEL_CHARS 40

void ng_svg_stacked(struct ng_buf *out, const struct ng_svg_stack *rows, size_t n,
                    const struct ng_svg_segment *seg, const char *unit, const char *label)
{
    double hi = 0, h = (double)n * (BARS_ROW + 8) + 26;
    struct ng_ticks t;

    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < rows[i].n; k++)
            sum += isfinite(rows[i].value[k]) && rows[i].value[k] > 0 ? rows[i].value[k] : 0;
        if (sum > hi)
            hi = sum;
    }
    ng_ticks_nice(0, hi > 0 ? hi : 1, 5, &t);
    struct ng_scale x = { t.v[0], t.v[t.n - 1], 90, BARS_W - 40 };
    svg_open(out, "chart stacked", BARS_W, h, label);
    ng_buf_adds(out, ">");
    x_axis(out, &t, &x, 2, (double)n * (BARS_ROW + 8) + 6, unit);
    for (size_t i = 0; i < n; i++) {
        double y = 4 + (double)i * (BARS_ROW + 8), at = 0;
        ng_buf_adds(out, "<text x=\"82\" y=\"");
        num(out, y + 14);
        ng_buf_adds(out, "\" text-anchor=\"end\">");
        ng_html_escape_text(out, rows[i].label);
        ng_buf_adds(out, "</text>");
        for (size_t k = 0; k < rows[i].n; k++) {
            double v = isfinite(rows[i].value[k]) && rows[i].value[k] > 0 ? rows[i].value[k] : 0;
            double a = ng_scale_map(&x, at), b = ng_scale_map(&x, at + v);
            at += v;
            if (!(b - a > 0))
                continue;
            char val[48];
            snprintf(val, sizeof val, "%.3f", v);
            ng_buf_adds(out, "<rect class=\"seg\" data-segment=\"");
            ng_html_escape_attr(out, seg[k].name);
            ng_buf_adds(out, "\" x=\"");
            num(out, a);
            ng_buf_adds(out, "\" y=\"");
            num(out, y + 2);
            ng_buf_adds(out, "\" width=\"");
            num(out, b - a);
            ng_buf_addf(out, "\" height=\"%d\" fill=\"%s\"><title>", (int)BARS_ROW,
                        seg[k].colour);
            ng_html_escape_text(out, rows[i].label);
            ng_buf_adds(out, ": ");
            ng_html_escape_text(out, seg[k].name);
            ng_buf_addf(out, " %s%s</title></rect>", val, unit);
        }
    }
    ng_buf_adds(out, "</svg>");
}

void ng_svg_bars(struct ng_buf *out, const struct ng_svg_bar *b, size_t n, const char *unit)
{
    double lo = 0, hi = 0;
    double h = (double)n * BARS_ROW + 26;
    struct ng_ticks t;

    for (size_t i = 0; i < n; i++)
        widen(&lo, &hi, b[i].value);
    ng_ticks_nice(lo, hi, 5, &t);
    struct ng_scale x = { t.v[0], t.v[t.n - 1], BARS_LABEL + 8, BARS_W - 60 };
    svg_open(out, "chart bars", BARS_W, h, "delta per epoch of the top work items");
    ng_buf_adds(out, ">");
    x_axis(out, &t, &x, 2, (double)n * BARS_ROW + 6, unit);
    double zero = ng_scale_map(&x, 0);
    for (size_t i = 0; i < n; i++) {
        double y = 4 + (double)i * BARS_ROW, v = isfinite(b[i].value) ? b[i].value : 0;
        double a = ng_scale_map(&x, v);
        double left = a < zero ? a : zero, width = fabs(a - zero);
        char val[48];
        snprintf(val, sizeof val, "%+.3f", v);
        ng_buf_addf(out, "<g class=\"bar\" data-kind=\"%s\"><title>", ng_work_kind_name(b[i].kind));
        ng_html_escape_text(out, b[i].title ? b[i].title : "");
        ng_buf_adds(out, "</title><text x=\"");
        num(out, BARS_LABEL);
        ng_buf_adds(out, "\" y=\"");
        num(out, y + 12);
        ng_buf_adds(out, "\" text-anchor=\"end\">");
        ng_html_escape_text_cut(out, b[i].label, LABEL_CHARS);
        ng_buf_adds(out, "</text><rect x=\"");
        num(out, left);
        ng_buf_adds(out, "\" y=\"");
        num(out, y + 2);
        ng_buf_adds(out, "\" width=\"");
        num(out, width < 1 ? 1 : width);
        ng_buf_addf(out, "\" height=\"%d\" fill=\"%s\"/><text x=\"", (int)BARS_ROW - 6,
                    ng_svg_kind_colour(b[i].kind));
        num(out, (a > zero ? a : zero) + 4);
        ng_buf_adds(out, "\" y=\"");
        num(out, y + 12);
        ng_buf_addf(out, "\">%s</text></g>", val);
    }
    ng_buf_adds(out, "<path d=\"M");
    xy(out, zero, 2);
    ng_buf_adds(out, "V");
    num(out, (double)n * BARS_ROW + 6);
    ng_buf_adds(out, "\" stroke=\"#1f2328\" stroke-width=\"1\"/></svg>");
}
