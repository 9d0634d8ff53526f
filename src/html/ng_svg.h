/* ng_svg: the gate's own plotting: linear scales with nice ticks, and the
 * charts the HTML pages draw (a trend of ms/epoch over runs, a sparkline,
 * a strip plot of two sides' samples, a bar chart of signed deltas), as
 * SVG text appended to a buffer.  Charts take plain arrays, not verdicts:
 * what a point means, and where it links, is the caller's.
 *
 * Every number is printed in the C locale with one decimal (positions) so
 * the output is byte-stable.  Every text (labels, <title> tooltips) goes
 * through ng_html_escape_text(), and every link through ng_html_escape_url(), so names
 * from profiles and histories cannot break out of the SVG.  The SVG is
 * well-formed XML as well as valid inline SVG in HTML.
 *
 * Ownership: every function borrows its arguments and appends to out. */
#ifndef NG_SVG_H
#define NG_SVG_H

#include <stddef.h>

#include "core/ng_verdict.h"
#include "util/ng_util.h"

/* ---- scales and ticks ---- */

#define NG_TICKS_MAX 24

/* Ticks that cover [lo, hi]: the first at or below lo, the last at or
 * above hi, a step of 1, 2 or 5 times a power of ten, about `target`
 * intervals (Heckbert's "nice numbers").  A degenerate range (lo == hi,
 * or not finite) is widened around lo first.  `decimals` is how many the
 * step needs (0.25 -> 2, 5 -> 0). */
struct ng_ticks {
    double v[NG_TICKS_MAX];
    size_t n;
    double step;
    int decimals;
};
void ng_ticks_nice(double lo, double hi, int target, struct ng_ticks *t);

/* The nice number near x: 1, 2, 5 or 10 times a power of ten, rounded
 * (round != 0) or the next at or above x. */
double ng_nice_num(double x, int round);

/* A tick value with the ticks' decimals, "-0" never printed. */
void ng_fmt_tick(char *buf, size_t size, double v, int decimals);

/* A linear map from the domain [d0, d1] to the range [r0, r1]; a domain
 * of zero width maps everything to the middle of the range. */
struct ng_scale {
    double d0, d1, r0, r1;
};
double ng_scale_map(const struct ng_scale *s, double v);

/* ---- marks ---- */

/* The verdict's mark, shape and colour both (never colour alone): pass a
 * circle, fail a triangle pointing up (slower), inconclusive a diamond,
 * error a cross.  r is the mark's radius in user units. */
void ng_svg_mark(struct ng_buf *out, enum ng_outcome o, double x, double y, double r);
const char *ng_svg_kind_colour(enum ng_work_kind k);

/* ---- charts ---- */

/* One run on a trend chart.  x is its position (the run's number in its
 * gate's series, so thinned runs leave gaps).  A point without figures
 * (an ERROR run) is drawn as a cross on the bottom edge. */
struct ng_svg_point {
    double x;
    enum ng_outcome outcome;
    int has_value;
    double value;              /* current median ms/epoch */
    double lo, hi;             /* the run's current min..max */
    int has_limit;
    double limit;              /* threshold x the run's baseline ms/epoch */
    double baseline;           /* the run's baseline ms/epoch (with has_limit) */
    const char *href;          /* the link (any URL: escaped here), or NULL */
    const char *title;         /* the tooltip (raw text: escaped here) */
    const char *x_label;       /* its label when a tick falls on it (e.g. "05-14"), or NULL */
};

/* A change point on a trend: a vertical line at its first bad run. */
struct ng_svg_marker {
    double x;                  /* that run's x */
    const char *label;         /* shown at the top, e.g. "d62af1e 1.20x" (raw text) */
    const char *title;         /* the tooltip (raw text) */
    int acknowledged;          /* drawn grey and dashed; else red */
};

struct ng_svg_trend_opts {
    double width, height;      /* the viewBox */
    const char *label;         /* aria-label (raw text) */
    const char *data_gate;     /* data-gate attribute, for tests and the filter (raw) */
    size_t runs;               /* data-runs: every run the series has */
    const char *y_title;       /* the y axis's title, e.g. "kernel-sum, ms per epoch"
                                  (raw text); NULL: none */
    const struct ng_svg_marker *markers;   /* change points, oldest first */
    size_t n_markers;
};

/* The trend of ms/epoch over runs: the min..max band, the baseline
 * (dashed) and threshold (red, stepped) lines, one mark per point, each
 * point an <a> (with href) or <g> of class "pt" holding its <title>; a
 * <g class="change"> per marker inside the points' x range. */
void ng_svg_trend(struct ng_buf *out, const struct ng_svg_point *p, size_t n,
                  const struct ng_svg_trend_opts *o);

/* A small line of values (NaN: a gap) with the last point's mark. */
void ng_svg_sparkline(struct ng_buf *out, const double *v, size_t n, enum ng_outcome last);

/* Both sides' per-epoch (or per-run) samples as a strip plot: one row a
 * side, a dot a sample (spread vertically in a fixed pattern so equal
 * values stay visible), a bar at the median, and a dotted red line at
 * limit_ms (threshold x baseline; not drawn when not finite and > 0). */
void ng_svg_strip(struct ng_buf *out, const double *base, size_t nb, const double *cur,
                  size_t nc, double limit_ms);

struct ng_svg_bar {
    const char *label;         /* shown, cut to fit (raw text) */
    const char *title;         /* the tooltip (raw text) */
    double value;              /* signed */
    enum ng_work_kind kind;    /* the colour */
};

/* One stacked bar: its label and segments (values >= 0, in order). */
#define NG_SVG_SEGMENTS_MAX 8
struct ng_svg_stack {
    const char *label;         /* raw text */
    size_t n;
    double value[NG_SVG_SEGMENTS_MAX];
};
struct ng_svg_segment {
    const char *name;          /* in the tooltips (raw text) */
    const char *colour;
};

/* Stacked horizontal bars on one scale, a row each: segment k of every
 * row is drawn in seg[k]'s colour, with a tooltip of its name and value. */
void ng_svg_stacked(struct ng_buf *out, const struct ng_svg_stack *rows, size_t n,
                    const struct ng_svg_segment *seg, const char *unit, const char *label);

/* Horizontal bars of signed values around a zero line, one a row. */
void ng_svg_bars(struct ng_buf *out, const struct ng_svg_bar *b, size_t n, const char *unit);

#endif
