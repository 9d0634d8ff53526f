#include "html/ng_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_verdict_text.h"
#include "html/ng_html_assets.h"
#include "html/ng_svg.h"
#include "util/ng_text.h"

/* ---- the page frame ---- */

/* The page's only style and script (src/html/page.css, filter.js), with
 * the hashes the policy allows them by, computed by the build
 * (src/html/embed.py) from the same bytes. */

/* Browsers and validators want a short <title>; the page's heading has
 * the whole name. */
#define TITLE_CHARS 60

void ng_html_begin(struct ng_buf *out, const char *title)
{
    ng_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src '" NG_HTML_STYLE_HASH "'; script-src '" NG_HTML_SCRIPT_HASH "'; "
                     "img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"referrer\" content=\"no-referrer\">\n<title>");
    ng_html_escape_text_cut(out, title, TITLE_CHARS);
    ng_buf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", ng_html_style);
}

void ng_html_end(struct ng_buf *out)
{
    ng_buf_addf(out, "<script>%s</script>\n</body>\n</html>\n", ng_html_script);
}

void ng_html_filter(struct ng_buf *out)
{
    ng_buf_adds(out, "<p hidden><label>Filter gates: <input id=\"filter\" type=\"search\" "
                     "autocomplete=\"off\"></label></p>\n");
}

/* ---- marks, badges, legend ---- */

static void mark_icon(struct ng_buf *out, enum ng_outcome o)
{
    ng_buf_adds(out, "<svg class=\"mk\" viewBox=\"0 0 12 12\" aria-hidden=\"true\">");
    ng_svg_mark(out, o, 6, 6.5, 4);
    ng_buf_adds(out, "</svg>");
}

void ng_html_badge(struct ng_buf *out, enum ng_outcome o)
{
    ng_buf_addf(out, "<span class=\"badge v-%s\">", ng_outcome_name(o));
    mark_icon(out, o);
    ng_buf_addf(out, " %s</span>", ng_outcome_title(o));
}

static void swatch(struct ng_buf *out, const char *colour)
{
    ng_buf_addf(out, "<svg class=\"mk\" viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect x=\"1\" "
                     "y=\"1\" width=\"10\" height=\"10\" fill=\"%s\"/></svg>", colour);
}

static void kind_swatch(struct ng_buf *out, enum ng_work_kind k)
{
    swatch(out, ng_svg_kind_colour(k));
}

void ng_html_legend(struct ng_buf *out, const struct ng_html_legend *l)
{
    ng_buf_adds(out, "<p class=\"legend\">");
    for (int o = NG_OUTCOME_PASS; o <= NG_OUTCOME_ERROR; o++) {
        if (!(l->outcomes & (1u << o)))
            continue;
        ng_buf_adds(out, "<span>");
        ng_html_badge(out, (enum ng_outcome)o);
        ng_buf_adds(out, "</span>");
    }
    if (l->trend)
        ng_buf_adds(out, "<span>band: the run's current min..max</span>"
                         "<span>dashed: baseline</span><span>dotted red: threshold x baseline</span>");
    if (l->strip)
        ng_buf_adds(out, "<span>dot: a sample (an epoch, or a run in total mode)</span>"
                         "<span>bar: a side's median</span>");
    if (l->strip && !l->trend)   /* the trend's item says it for both */
        ng_buf_adds(out, "<span>dotted red: threshold x baseline</span>");
    ng_buf_adds(out, "</p>\n");
    if (!(l->kinds & NG_WORK_ALL))
        return;
    ng_buf_adds(out, "<p class=\"legend\">");
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        if (!(l->kinds & NG_WORK_BIT(k)))
            continue;
        ng_buf_adds(out, "<span>");
        kind_swatch(out, (enum ng_work_kind)k);
        ng_buf_addf(out, " %s</span>", ng_work_kind_name((enum ng_work_kind)k));
    }
    ng_buf_adds(out, "</p>\n");
}

void ng_html_legend_add(struct ng_html_legend *l, const struct ng_verdict *v)
{
    l->outcomes |= 1u << v->outcome;
    l->strip |= v->has_figures;
    for (size_t i = 0; i < v->n_kernels; i++)
        l->kinds |= NG_WORK_BIT(v->kernels[i].kind);
}

/* ---- the run's context ---- */

/* How a verdict's run context is read (the commit, the CI run's URL, the
 * branch, ...): the key's value, or NULL when the verdict has none (an
 * older history line).  Keys: "commit", "branch", "run_url", "run_id",
 * "job", "pipeline", "runner", and labels. */
static const char *context_of(const struct ng_verdict *v, const char *key)
{
    const char *val = ng_context_get(&v->context, key);
    return val && *val ? val : NULL;
}

void ng_html_warnings(struct ng_buf *out, char *const *w, size_t n, int heading)
{
    if (!n)
        return;
    ng_buf_addf(out, "<h%d>Warnings</h%d>\n<ul class=\"warnings\">\n", heading, heading);
    for (size_t i = 0; i < n; i++) {
        ng_buf_adds(out, "<li class=\"warn\">");
        ng_html_escape_text(out, w[i]);
        ng_buf_adds(out, "</li>\n");
    }
    ng_buf_adds(out, "</ul>\n");
}

void ng_html_commit(struct ng_buf *out, const char *commit)
{
    if (!commit || !*commit) {
        ng_buf_adds(out, "unknown");
        return;
    }
    size_t n = strlen(commit);
    ng_buf_adds(out, "<code>");
    ng_html_escape_text_n(out, commit, n > 12 ? 12 : n);
    ng_buf_adds(out, "</code>");
}

static void value_or_unknown(struct ng_buf *out, const char *v)
{
    if (v && *v) {
        ng_buf_adds(out, "<span class=\"mono\">");
        ng_html_escape_text(out, v);
        ng_buf_adds(out, "</span>");
    } else {
        ng_buf_adds(out, "<span class=\"note\">unknown</span>");
    }
}

static void context_row(struct ng_buf *out, const char *key, const char *val)
{
    ng_buf_adds(out, "<tr><th scope=\"row\">");
    ng_html_escape_text(out, key);
    ng_buf_adds(out, "</th><td>");
    if (strcmp(key, "run_url") == 0 && ng_html_escape_url_linkable(val)) {
        ng_buf_adds(out, "<a class=\"run-url\" href=\"");
        ng_html_escape_url(out, val);
        ng_buf_adds(out, "\">");
        ng_html_escape_text(out, val);
        ng_buf_adds(out, "</a>");
    } else {
        value_or_unknown(out, val);
    }
    ng_buf_adds(out, "</td></tr>\n");
}

/* The run's date, the fixed context fields (unknown when the CI did not
 * say), then its labels (--label) in their order. */
static void context_table(struct ng_buf *out, const struct ng_verdict *v)
{
    char when[32];

    ng_buf_adds(out, "<table class=\"context\">\n<tbody>\n");
    ng_fmt_utc(when, sizeof when, v->timestamp, 1);
    ng_buf_addf(out, "<tr><th scope=\"row\">date</th><td>%s</td></tr>\n", when);
    for (size_t i = 0; ng_context_fields[i]; i++)
        context_row(out, ng_context_fields[i], context_of(v, ng_context_fields[i]));
    for (size_t i = 0; i < v->context.n; i++) {
        size_t k = 0;
        while (ng_context_fields[k] && strcmp(ng_context_fields[k], v->context.items[i].key) != 0)
            k++;
        if (!ng_context_fields[k])
            context_row(out, v->context.items[i].key, v->context.items[i].value);
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
}

void ng_html_num_cell(struct ng_buf *out, double v, const char *suffix)
{
    ng_buf_adds(out, "<td class=\"n\">");
    ng_buf_add_fixed(out, v, 3);
    ng_buf_adds(out, suffix);
    ng_buf_adds(out, "</td>");
}

/* ---- a verdict's section ---- */

static void side_row(struct ng_buf *out, const char *label, const struct ng_verdict_side *s,
                     int figures)
{
    ng_buf_addf(out, "<tr><th scope=\"row\">%s</th>", label);
    if (figures) {
        ng_html_num_cell(out, s->ms_per_epoch, "");
        ng_html_num_cell(out, s->median_ms, "");
        ng_html_num_cell(out, s->min_ms, "");
        ng_html_num_cell(out, s->max_ms, "");
        ng_buf_addf(out, "<td class=\"n\">%zu</td>", s->n_samples);
    } else
        ng_buf_adds(out, "<td class=\"n\" colspan=\"5\">unknown</td>");
    ng_buf_adds(out, "<td>");
    for (size_t i = 0; i < s->n_runs; i++) {
        ng_buf_adds(out, i ? "<br>" : "");
        value_or_unknown(out, s->runs[i].path);
        ng_buf_addf(out, " <span class=\"note\">(%s)</span>", ng_format_name(s->runs[i].format));
    }
    if (s->n_runs == 0)
        value_or_unknown(out, s->path);
    ng_buf_adds(out, "</td></tr>\n");
}

static void figures(struct ng_buf *out, const struct ng_verdict *v)
{
    char thr[32], alpha[32];

    ng_buf_adds(out, "<table class=\"figures\">\n<thead><tr><td></td><th scope=\"col\" class=\"n\">mean ms/epoch"
                     "</th><th scope=\"col\" class=\"n\">median</th><th scope=\"col\" class=\"n\">min</th><th scope=\"col\" class=\"n\">max"
                     "</th><th scope=\"col\" class=\"n\">samples</th><th scope=\"col\">profiles</th></tr>\n</thead>\n<tbody>\n");
    side_row(out, "baseline", &v->baseline, v->has_figures);
    side_row(out, "current", &v->current, v->has_figures);
    ng_buf_adds(out, "</tbody>\n</table>\n<p>");
    ng_fmt_threshold(thr, sizeof thr, v->threshold);
    if (v->has_figures)
        ng_buf_addf(out, "ratio <strong>%.3fx</strong> (threshold %sx)", v->ratio, thr);
    else
        ng_buf_addf(out, "ratio unknown (threshold %sx)", thr);
    ng_fmt_double(alpha, sizeof alpha, v->alpha);
    if (v->has_ci)
        ng_buf_addf(out, ", 95%% interval %.3fx .. %.3fx", v->ratio_ci[0], v->ratio_ci[1]);
    if (v->has_p) {
        ng_buf_addf(out, "; p = %.3g (", v->p_value);
        ng_verdict_text_test_name(v, out);
        ng_buf_addf(out, ", alpha %s; Mann-Whitney U p = %.3g)", alpha, v->u_p_value);
    } else
        ng_buf_adds(out, "; no significance test");
    ng_buf_addf(out, "; %s mode, metric ", v->mode ? v->mode : "unknown");
    ng_html_escape_text(out, v->metric ? v->metric : "unknown");
    ng_buf_adds(out, ", work ");
    ng_html_escape_text(out, v->work);
    ng_buf_addf(out, ", epochs %ld</p>\n", v->epochs);
}

/* A change and its share, as cells: a sign on every change, "-" of a
 * negative zero as printf's (%+.3f); the share in percent. */
static void delta_cells(struct ng_buf *out, double delta, double share)
{
    ng_buf_adds(out, signbit(delta) ? "<td class=\"n\">" : "<td class=\"n\">+");
    ng_buf_add_fixed(out, delta, 3);
    ng_buf_adds(out, "</td><td class=\"n\">");
    ng_buf_add_fixed(out, share * 100, 1);
    ng_buf_adds(out, "%</td>");
}

static void work_items(struct ng_buf *out, const struct ng_verdict *v)
{
    struct ng_svg_bar *bars = ng_xcalloc(v->n_kernels ? v->n_kernels : 1, sizeof *bars);
    char **titles = ng_xcalloc(v->n_kernels ? v->n_kernels : 1, sizeof *titles);

    for (size_t i = 0; i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        struct ng_buf t = NG_BUF_INIT;
        ng_buf_addf(&t, "%s (%s, %s): %+.3f ms/epoch, %.3f -> %.3f ms", k->name,
                    ng_work_kind_name(k->kind), ng_kernel_status_name(k->status),
                    k->delta_ms_per_epoch, k->baseline_ms_per_epoch, k->current_ms_per_epoch);
        titles[i] = ng_buf_detach(&t);
        bars[i] = (struct ng_svg_bar){ k->name, titles[i], k->delta_ms_per_epoch, k->kind };
    }
    ng_buf_adds(out, "<h3>Top work items: change of ms/epoch</h3>\n");
    ng_svg_bars(out, bars, v->n_kernels, " ms");
    int gated = 0;
    for (size_t i = 0; i < v->n_kernels; i++)
        gated |= v->kernels[i].gated;
    ng_buf_adds(out, "\n<table class=\"work\">\n<thead><tr><th scope=\"col\">kind</th>"
                     "<th scope=\"col\">status</th><th scope=\"col\" class=\"n\">baseline ms/epoch"
                     "</th><th scope=\"col\" class=\"n\">current</th><th scope=\"col\" class=\"n\">"
                     "delta</th><th scope=\"col\" class=\"n\">share</th>");
    if (gated)   /* per-kernel gates (--kernel-threshold): each item's own verdict */
        ng_buf_adds(out, "<th scope=\"col\">item gate</th>");
    ng_buf_adds(out, "<th scope=\"col\">name</th></tr>\n</thead>\n<tbody>\n");
    for (size_t i = 0; i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        ng_buf_adds(out, "<tr><td>");
        kind_swatch(out, k->kind);
        ng_buf_addf(out, " %s</td><td>%s</td>", ng_work_kind_name(k->kind),
                    ng_kernel_status_name(k->status));
        ng_html_num_cell(out, k->baseline_ms_per_epoch, "");
        ng_html_num_cell(out, k->current_ms_per_epoch, "");
        delta_cells(out, k->delta_ms_per_epoch, k->share);
        if (gated) {
            ng_buf_adds(out, "<td>");
            if (k->gated) {
                ng_html_badge(out, k->verdict);
                if (k->has_p)
                    ng_buf_addf(out, " <span class=\"note\">p %.3g, adjusted %.3g</span>",
                                k->p_value, k->p_adjusted);
            }
            ng_buf_adds(out, "</td>");
        }
        ng_buf_adds(out, "<td class=\"mono\">");
        ng_html_escape_text(out, k->name);
        ng_buf_adds(out, "</td></tr>\n");
        free(titles[i]);
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
    free(titles);
    free(bars);
}

/* Where the step time went (docs/breakdown.md): a stacked bar a side and
 * the figures as a table, whose swatches are the bar's legend.  The
 * communication is split into its exposed part and the part compute hid. */
static const struct ng_svg_segment breakdown_segments[] = {
    { "compute", "#0969da" },
    { "exposed communication", "#cf222e" },
    { "hidden communication", "#f5a3a3" },
    { "memory", "#8250df" },
    { "idle", "#afb8c1" },
};
#define N_BREAKDOWN_SEGMENTS (sizeof breakdown_segments / sizeof breakdown_segments[0])

static void breakdown_values(const struct ng_verdict_side *s, struct ng_svg_stack *row,
                             const char *label)
{
    struct ng_breakdown_ms m;
    ng_breakdown_per_epoch(&s->breakdown, s->epochs_counted, &m);
    *row = (struct ng_svg_stack){ label, N_BREAKDOWN_SEGMENTS,
                                  { m.compute, m.exposed, m.comm - m.exposed, m.memory, m.idle } };
}

static void breakdown(struct ng_buf *out, const struct ng_verdict *v)
{
    const struct ng_verdict_side *s[2] = { &v->baseline, &v->current };
    struct ng_svg_stack rows[2];

    for (int i = 0; i < 2; i++)
        if (!s[i]->has_breakdown || !(s[i]->epochs_counted > 0))
            return;
    breakdown_values(s[0], &rows[0], "baseline");
    breakdown_values(s[1], &rows[1], "current");
    ng_buf_adds(out, "<h3>Where the time went: ms per epoch</h3>\n");
    ng_svg_stacked(out, rows, 2, breakdown_segments, " ms",
                   "time per epoch by what ran: compute, communication, memory, idle");
    ng_buf_adds(out, "\n<table class=\"breakdown\">\n<thead><tr><td></td>");
    for (size_t k = 0; k < N_BREAKDOWN_SEGMENTS; k++) {
        ng_buf_adds(out, "<th scope=\"col\" class=\"n\">");
        swatch(out, breakdown_segments[k].colour);
        ng_buf_addf(out, " %s</th>", breakdown_segments[k].name);
    }
    ng_buf_adds(out, "</tr>\n</thead>\n<tbody>\n");
    for (int i = 0; i < 2; i++) {
        ng_buf_addf(out, "<tr><th scope=\"row\">%s</th>", rows[i].label);
        for (size_t k = 0; k < N_BREAKDOWN_SEGMENTS; k++)
            ng_html_num_cell(out, rows[i].value[k], "");
        ng_buf_adds(out, "</tr>\n");
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
}

/* The page lists this many groups of nested ranges; the JSON, every one. */
#define RANGES_LISTED 50

/* Which ranges nested in the epochs changed (docs/breakdown.md): a table
 * of their groups by contribution to the change. */
static void nested_ranges(struct ng_buf *out, const struct ng_verdict *v)
{
    if (v->n_ranges == 0)
        return;
    ng_buf_adds(out, "<h3>Ranges nested in the epochs: change of ms/epoch</h3>\n"
                     "<table class=\"ranges\">\n<thead><tr><th scope=\"col\" class=\"n\">"
                     "baseline ms/epoch</th><th scope=\"col\" class=\"n\">current</th>"
                     "<th scope=\"col\" class=\"n\">delta</th><th scope=\"col\" class=\"n\">"
                     "share</th><th scope=\"col\">range</th></tr>\n</thead>\n<tbody>\n");
    for (size_t i = 0; i < v->n_ranges && i < RANGES_LISTED; i++) {
        const struct ng_range_delta *r = &v->ranges[i];
        ng_buf_adds(out, "<tr>");
        ng_html_num_cell(out, r->baseline_ms_per_epoch, "");
        ng_html_num_cell(out, r->current_ms_per_epoch, "");
        delta_cells(out, r->delta_ms_per_epoch, r->share);
        ng_buf_adds(out, "<td class=\"mono\">");
        ng_html_escape_text(out, r->name);
        ng_buf_adds(out, "</td></tr>\n");
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
    if (v->n_ranges > RANGES_LISTED)
        ng_buf_addf(out, "<p class=\"note\">... and %zu more groups (the JSON lists them).</p>\n",
                    v->n_ranges - RANGES_LISTED);
}

/* The work item that moved the total most, beside the verdict (the table
 * of work items is further down the page). */
static void top_contributor(struct ng_buf *out, const struct ng_verdict *v, const char *tag)
{
    struct ng_buf t = NG_BUF_INIT;
    if ((v->outcome == NG_OUTCOME_FAIL || v->outcome == NG_OUTCOME_INCONCLUSIVE) &&
        ng_verdict_text_top_contributor(v, &t)) {
        ng_buf_addf(out, "<%s class=\"note mono\">", tag);
        ng_html_escape_text(out, t.data);
        ng_buf_addf(out, "</%s>", tag);
        if (strcmp(tag, "p") == 0)
            ng_buf_adds(out, "\n");
    }
    ng_buf_release(&t);
}

void ng_html_section(struct ng_buf *out, const struct ng_verdict *v, const char *id,
                     int heading, const char *title)
{
    ng_buf_addf(out, "<section class=\"run\" id=\"%s\" data-verdict=\"%s\" data-gate=\"", id,
                ng_outcome_name(v->outcome));
    ng_html_escape_attr(out, v->name);
    ng_buf_addf(out, "\">\n<h%d>", heading);
    ng_html_badge(out, v->outcome);
    ng_buf_adds(out, " ");
    ng_html_escape_text(out, title ? title : v->name);
    ng_buf_addf(out, "</h%d>\n<p class=\"mono%s\">", heading,
                v->outcome == NG_OUTCOME_ERROR ? " err" : "");
    char *headline = ng_verdict_text_headline_string(v);
    ng_html_escape_text(out, headline);
    free(headline);
    ng_buf_adds(out, "</p>\n");
    top_contributor(out, v, "p");
    figures(out, v);
    ng_html_warnings(out, v->warnings, v->n_warnings, 3);
    ng_buf_adds(out, "<h3>Run</h3>\n");
    context_table(out, v);
    if (v->has_figures) {
        ng_buf_addf(out, "<h3>Samples: ms per %s</h3>\n",
                    v->mode && strcmp(v->mode, "nvtx") == 0 ? "epoch" : "epoch, one per run");
        /* the line a current median past it fails at: why a run failed */
        ng_svg_strip(out, v->baseline.samples, v->baseline.n_samples, v->current.samples,
                     v->current.n_samples, v->threshold * v->baseline.ms_per_epoch);
        ng_buf_adds(out, "\n");
        breakdown(out, v);
        nested_ranges(out, v);
    }
    if (v->n_kernels)
        work_items(out, v);
    ng_buf_adds(out, "</section>\n");
}

/* ---- the overview table ---- */

int ng_html_outcome_rank(enum ng_outcome o)
{
    static const int rank[] = {
        [NG_OUTCOME_FAIL] = 0,
        [NG_OUTCOME_ERROR] = 1,
        [NG_OUTCOME_INCONCLUSIVE] = 2,
        [NG_OUTCOME_PASS] = 3,
    };
    return rank[o];
}

static int row_cmp(const void *a, const void *b)
{
    const struct ng_html_row *x = a, *y = b;
    int d = ng_html_outcome_rank(x->v->outcome) - ng_html_outcome_rank(y->v->outcome);
    return d ? d : strcmp(x->v->name, y->v->name);
}

static void overview_row(struct ng_buf *out, const struct ng_html_row *r)
{
    const struct ng_verdict *v = r->v;
    char when[32], thr[32];

    ng_buf_adds(out, "<tr data-gate=\"");
    ng_html_escape_attr(out, v->name);
    ng_buf_addf(out, "\" data-verdict=\"%s\"><td>", ng_outcome_name(v->outcome));
    ng_html_badge(out, v->outcome);
    ng_buf_adds(out, "</td><td>");
    if (r->href) {
        ng_buf_adds(out, "<a href=\"");
        ng_html_escape_url(out, r->href);
        ng_buf_adds(out, "\">");
    }
    ng_html_escape_text(out, v->name);
    ng_buf_adds(out, r->href ? "</a>" : "");
    top_contributor(out, v, "div");
    ng_buf_adds(out, "</td>");
    ng_fmt_threshold(thr, sizeof thr, v->threshold);
    if (v->has_figures) {
        ng_html_num_cell(out, v->ratio, "x");
        ng_html_num_cell(out, v->current.ms_per_epoch, "");
        ng_html_num_cell(out, v->baseline.ms_per_epoch, "");
    } else
        ng_buf_adds(out, "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>");
    ng_buf_addf(out, "<td class=\"n\">%sx</td><td>", thr);
    ng_html_commit(out, context_of(v, "commit"));
    ng_fmt_utc(when, sizeof when, v->timestamp, 1);
    ng_buf_addf(out, "</td><td class=\"date\">%s</td>", when);
    if (r->spark) {
        ng_buf_adds(out, "<td>");
        ng_svg_sparkline(out, r->spark, r->n_spark, v->outcome);
        ng_buf_addf(out, "</td><td class=\"n\">%zu</td>", r->runs);
    }
    ng_buf_adds(out, "</tr>\n");
}

void ng_html_overview(struct ng_buf *out, struct ng_html_row *rows, size_t n)
{
    int spark = n > 0 && rows[0].spark;

    ng_sort(rows, n, sizeof *rows, row_cmp);
    ng_buf_addf(out, "<table class=\"overview\">\n<thead><tr><th scope=\"col\">verdict</th><th scope=\"col\">gate</th>"
                     "<th scope=\"col\" class=\"n\">ratio</th><th scope=\"col\" class=\"n\">current ms/epoch</th>"
                     "<th scope=\"col\" class=\"n\">baseline</th><th scope=\"col\" class=\"n\">threshold</th><th scope=\"col\">commit</th>"
                     "<th scope=\"col\">date</th>%s</tr>\n</thead>\n<tbody>\n",
                spark ? "<th scope=\"col\">trend</th><th scope=\"col\" class=\"n\">runs</th>" : "");
    for (size_t i = 0; i < n; i++)
        overview_row(out, &rows[i]);
    ng_buf_adds(out, "</tbody>\n</table>\n");
}
