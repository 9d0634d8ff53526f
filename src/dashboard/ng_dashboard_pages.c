#include "dashboard/ng_dashboard_pages.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ng_verdict_text.h"
#include "dashboard/ng_dashboard_changes.h"
#include "html/ng_html.h"
#include "html/ng_svg.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

/* A dashboard draws every mark: trends of every outcome, and run
 * sections with strip plots and work items of any kind. */
static const struct ng_html_legend all_marks = NG_HTML_LEGEND_ALL;

/* ---- charts ---- */

/* What the gate's latest run read whole measured ("kernel-sum"), or NULL:
 * the title of its chart's y axis. */
static const char *gate_metric(const struct gate *g)
{
    for (size_t k = g->n; k-- > 0;)
        if (g->runs[k].doc && g->runs[k].doc->v.metric)
            return g->runs[k].doc->v.metric;
    return NULL;
}

/* Where a point links, appended to b with its NUL: its CI run (http or
 * https only), else its commit through --commit-url, else its section;
 * 0 when it links nowhere (nothing appended). */
static int point_href(struct ng_buf *b, const struct site *s, const struct gate *g,
                      const struct run *r, int on_index)
{
    const char *at;

    if (ng_html_escape_url_linkable(r->run_url)) {
        ng_buf_adds(b, r->run_url);
    } else if (s->o->commit_url && r->commit && (at = strstr(s->o->commit_url, "{commit}"))) {
        ng_buf_add(b, s->o->commit_url, (size_t)(at - s->o->commit_url));
        ng_buf_adds(b, r->commit);
        ng_buf_adds(b, at + strlen("{commit}"));
    } else if (r->doc) {
        ng_buf_adds(b, on_index ? "g/" : "");
        ng_buf_adds(b, g->slug);
        ng_buf_adds(b, ".html#run-");
        ng_buf_add_uint(b, r->seq);
    } else {
        return 0;
    }
    ng_buf_add(b, "", 1);
    return 1;
}

/* A point's tooltip, appended to b with its NUL. */
static void point_title(struct ng_buf *b, const struct run *r)
{
    char when[32];

    ng_fmt_utc(when, sizeof when, r->ts, 1);
    ng_buf_adds(b, "run ");
    ng_buf_add_uint(b, r->seq);
    ng_buf_adds(b, ", commit ");
    if (r->commit)
        ng_buf_add(b, r->commit, strlen(r->commit) > 12 ? 12 : strlen(r->commit));
    else
        ng_buf_adds(b, "unknown");
    ng_buf_adds(b, ", ");
    ng_buf_adds(b, when);
    ng_buf_adds(b, ", ");
    ng_buf_adds(b, ng_outcome_title(r->outcome));
    if (r->has_figures) {   /* ", ratio %.3fx, %.3f ms/epoch", without printf */
        ng_buf_adds(b, ", ratio ");
        ng_buf_add_fixed(b, r->ratio, 3);
        ng_buf_adds(b, "x, ");
        ng_buf_add_fixed(b, r->cur_ms, 3);
        ng_buf_adds(b, " ms/epoch");
    } else
        ng_buf_adds(b, ", ratio unknown");
    if (r->has_p)
        ng_buf_addf(b, ", p %.3g", r->p);
    else
        ng_buf_adds(b, ", p n/a");
    ng_buf_add(b, "", 1);
}

/* "st" for 21, "nd" for 2, "th" for 12 */
static const char *ordinal(size_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The chart of a gate's runs, thinned to about `budget` points; says how
 * in the note under it. */
static void trend(struct ng_buf *out, const struct site *s, const struct gate *g, size_t budget,
                  int on_index)
{
    enum ng_outcome *o = ng_xmalloc((g->n ? g->n : 1) * sizeof *o);
    unsigned char *keep = ng_xmalloc(g->n ? g->n : 1);
    size_t every, shown;

    for (size_t i = 0; i < g->n; i++)
        o[i] = g->runs[i].outcome;
    shown = ng_dashboard_thin(o, g->n, budget, keep, &every);
    struct ng_svg_point *p = ng_xcalloc(shown ? shown : 1, sizeof *p);
    char (*labels)[16] = ng_xcalloc(shown ? shown : 1, sizeof *labels);
    /* the points' links and tooltips, one after another in one buffer
     * (offsets while it grows, pointers once it is done) */
    struct ng_buf text = NG_BUF_INIT;
    size_t *at = ng_xmalloc(2 * (shown ? shown : 1) * sizeof *at);
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct run *r = &g->runs[i];
        if (!keep[i])
            continue;
        char when[32];   /* room for the whole time: its date is the label */
        ng_fmt_utc(when, sizeof when, r->ts, 0);
        size_t day = strnlen(when, 10);   /* YYYY-MM-DD */
        memcpy(labels[n], when, day);
        labels[n][day] = '\0';
        size_t href = text.len;
        if (!point_href(&text, s, g, r, on_index))
            href = SIZE_MAX;
        at[2 * n] = href;
        at[2 * n + 1] = text.len;
        point_title(&text, r);
        p[n] = (struct ng_svg_point){
            .x = (double)r->seq,
            .outcome = r->outcome,
            .has_value = r->has_figures,
            .value = r->cur_ms,
            .lo = r->lo,
            .hi = r->hi,
            .has_limit = r->has_figures,
            .limit = r->threshold * r->base_ms,
            .baseline = r->base_ms,
            .x_label = labels[n],
        };
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        p[i].href = at[2 * i] == SIZE_MAX ? NULL : text.data + at[2 * i];
        p[i].title = text.data + at[2 * i + 1];
    }
    struct ng_buf label = NG_BUF_INIT, y_title = NG_BUF_INIT;
    ng_buf_addf(&label, "%s: ms/epoch over %zu runs", g->name, g->n);
    const char *metric = gate_metric(g);
    ng_buf_addf(&y_title, "%s%sms per epoch", metric ? metric : "", metric ? ", " : "");
    struct ng_svg_marker *markers;
    char *marker_text;
    size_t n_markers = ng_dash_change_markers(s, g, &markers, &marker_text);
    struct ng_svg_trend_opts to = { 760, 200, label.data, g->name, g->n, y_title.data, markers,
                                    n_markers };
    ng_svg_trend(out, p, n, &to);
    free(markers);
    free(marker_text);
    ng_buf_release(&label);
    ng_buf_release(&y_title);
    if (shown < g->n)
        ng_buf_addf(out, "\n<p class=\"note thinned\">%zu of %zu runs shown: the latest %zu each, "
                         "of the older runs every %zu%s and up to %zu more that did not pass. "
                         "%s</p>\n",
                    shown, g->n, budget / 2, every, ordinal(every), budget / 4,
                    on_index ? "The gate's page has more." : "");
    else
        ng_buf_adds(out, "\n");
    ng_buf_release(&text);
    free(at);
    free(labels);
    free(p);
    free(keep);
    free(o);
}

/* ---- pages ---- */

static void gate_page_href(struct ng_buf *b, const struct gate *g)
{
    ng_buf_addf(b, "g/%s.html", g->slug);
}

static void footer(struct ng_buf *out, const struct site *s)
{
    char ts[32];

    ng_fmt_utc(ts, sizeof ts, s->now, 1);
    ng_buf_addf(out, "<p class=\"note\">Written by %s %s at %s from ", NG_TOOL_NAME, NG_VERSION, ts);
    for (size_t i = 0; i < s->o->n_histories; i++) {
        ng_buf_adds(out, i ? ", " : "");
        ng_buf_adds(out, "<span class=\"mono\">");
        ng_html_escape_text(out, s->o->histories[i]);
        ng_buf_adds(out, "</span>");
    }
    ng_buf_adds(out, ".</p>\n");
}

static int rank_cmp(const void *a, const void *b, void *ctx)
{
    const struct site *s = ctx;
    const struct gate *x = &s->gates[*(const size_t *)a], *y = &s->gates[*(const size_t *)b];
    int d = ng_html_outcome_rank(x->runs[x->n - 1].outcome) -
            ng_html_outcome_rank(y->runs[y->n - 1].outcome);
    return d ? d : strcmp(x->name, y->name);
}

void ng_dash_index_page(struct ng_buf *out, const struct site *s)
{
    struct ng_html_row *rows = ng_xcalloc(s->n_gates ? s->n_gates : 1, sizeof *rows);
    double *spark = ng_xcalloc(s->n_gates * SPARK_RUNS + 1, sizeof *spark);
    struct ng_buf hrefs = NG_BUF_INIT;
    size_t *href_at = ng_xcalloc(s->n_gates + 1, sizeof *href_at);
    size_t budget = s->n_gates ? INDEX_POINTS / s->n_gates : PAGE_POINTS;

    budget = budget < INDEX_MIN ? INDEX_MIN : budget > PAGE_POINTS ? PAGE_POINTS : budget;
    ng_html_begin(out, s->o->title);
    ng_buf_adds(out, "<h1>");
    ng_html_escape_text(out, s->o->title);
    ng_buf_addf(out, "</h1>\n<p>%zu gate%s, %zu run%s.</p>\n", s->n_gates,
                s->n_gates == 1 ? "" : "s", s->runs, s->runs == 1 ? "" : "s");
    for (size_t i = 0; i < s->n_gates; i++) {
        const struct gate *g = &s->gates[i];
        const struct run *last = &g->runs[g->n - 1];
        size_t first = g->n > SPARK_RUNS ? g->n - SPARK_RUNS : 0;
        for (size_t k = first; k < g->n; k++)
            spark[i * SPARK_RUNS + k - first] = g->runs[k].has_figures ? g->runs[k].cur_ms : NAN;
        href_at[i] = hrefs.len;
        gate_page_href(&hrefs, g);
        ng_buf_add(&hrefs, "", 1);
        rows[i] = (struct ng_html_row){ &last->doc->v, NULL, spark + i * SPARK_RUNS,
                                        g->n - first, g->n };
    }
    for (size_t i = 0; i < s->n_gates; i++)
        rows[i].href = hrefs.data + href_at[i];
    if (s->n_gates == 0)
        ng_buf_adds(out, "<p>No runs yet.</p>\n");
    ng_html_filter(out);
    if (s->n_gates)
        ng_html_overview(out, rows, s->n_gates);
    if (s->n_gates)
        ng_dash_changes_tables(out, s, NULL);
    ng_html_legend(out, &all_marks);
    /* the charts in the overview's order: failing first */
    size_t *by_rank = ng_xcalloc(s->n_gates + 1, sizeof *by_rank);
    for (size_t i = 0; i < s->n_gates; i++)
        by_rank[i] = i;
    qsort_r(by_rank, s->n_gates, sizeof *by_rank, rank_cmp, (void *)s);
    for (size_t k = 0; k < s->n_gates; k++) {
        const struct gate *g = &s->gates[by_rank[k]];
        ng_buf_addf(out, "<section class=\"gate\" id=\"g-%s\" data-gate=\"", g->slug);
        ng_html_escape_attr(out, g->name);
        ng_buf_adds(out, "\">\n<h2>");
        ng_html_badge(out, g->runs[g->n - 1].outcome);
        ng_buf_adds(out, " <a href=\"");
        gate_page_href(out, g);
        ng_buf_adds(out, "\">");
        ng_html_escape_text(out, g->name);
        ng_buf_adds(out, "</a></h2>\n");
        trend(out, s, g, budget, 1);
        ng_buf_adds(out, "</section>\n");
    }
    free(by_rank);
    ng_html_warnings(out, s->r->warnings, s->r->n_warnings, 2);
    footer(out, s);
    ng_html_end(out);
    ng_buf_release(&hrefs);
    free(href_at);
    free(spark);
    free(rows);
}

#define ERROR_SHOWN 160   /* characters of an ERROR's message in the runs table */

static void runs_table(struct ng_buf *out, const struct gate *g)
{
    size_t first = g->n > TABLE_RUNS ? g->n - TABLE_RUNS : 0;
    char when[32];

    ng_buf_addf(out, "<h2>Latest runs</h2>\n<table class=\"runs\">\n<thead><tr><th scope=\"col\" class=\"n\">run</th>"
                     "<th scope=\"col\">verdict</th><th scope=\"col\" class=\"n\">ratio</th><th scope=\"col\" class=\"n\">current ms/epoch</th>"
                     "<th scope=\"col\" class=\"n\">baseline</th><th scope=\"col\">commit</th><th scope=\"col\">date</th><th scope=\"col\">CI run</th></tr>\n</thead>\n<tbody>\n");
    for (size_t k = g->n; k-- > first;) {
        const struct run *r = &g->runs[k];
        ng_buf_adds(out, "<tr><td class=\"n\">");
        if (r->doc)
            ng_buf_addf(out, "<a href=\"#run-%zu\">%zu</a>", r->seq, r->seq);
        else
            ng_buf_addf(out, "%zu", r->seq);
        ng_buf_adds(out, "</td><td>");
        ng_html_badge(out, r->outcome);
        if (r->has_figures) {
            ng_buf_adds(out, "</td>");
            ng_html_num_cell(out, r->ratio, "x");
            ng_html_num_cell(out, r->cur_ms, "");
            ng_html_num_cell(out, r->base_ms, "");
            ng_buf_adds(out, "<td>");
        } else if (r->doc && r->doc->v.error[0]) {   /* an ERROR says why, where the figures go */
            ng_buf_adds(out, "</td><td colspan=\"3\" class=\"err\">");
            ng_html_escape_text_cut(out, r->doc->v.error, ERROR_SHOWN);
            ng_buf_adds(out, "</td><td>");
        } else
            ng_buf_adds(out, "</td><td class=\"n\">-</td><td class=\"n\">-</td>"
                             "<td class=\"n\">-</td><td>");
        ng_html_commit(out, r->commit);
        ng_fmt_utc(when, sizeof when, r->ts, 1);
        ng_buf_addf(out, "</td><td class=\"date\">%s</td><td>", when);
        if (ng_html_escape_url_linkable(r->run_url)) {
            ng_buf_adds(out, "<a href=\"");
            ng_html_escape_url(out, r->run_url);
            ng_buf_adds(out, "\">run</a>");
        } else {
            ng_buf_adds(out, "<span class=\"note\">unknown</span>");
        }
        ng_buf_adds(out, "</td></tr>\n");
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
}

/* "Run 12 · 2026-05-14 02:10 UTC · 0123abc": which run a section is, where
 * a page of one gate would repeat the gate's name. */
static void run_heading(struct ng_buf *b, const struct run *r)
{
    char when[32];

    ng_buf_addf(b, "Run %zu", r->seq);
    if (r->ts > 0) {
        ng_fmt_utc(when, sizeof when, r->ts, 1);
        ng_buf_addf(b, " \xC2\xB7 %.10s %.5s UTC", when, when + 11);
    }
    if (r->commit)
        ng_buf_addf(b, " \xC2\xB7 %.7s", r->commit);
}

void ng_dash_gate_page(struct ng_buf *out, const struct site *s, const struct gate *g)
{
    struct ng_buf title = NG_BUF_INIT, head = NG_BUF_INIT;
    char id[40];

    ng_buf_addf(&title, "%s: %s", g->name, s->o->title);
    ng_html_begin(out, title.data);
    ng_buf_release(&title);
    ng_buf_adds(out, "<p><a href=\"../index.html\">");
    ng_html_escape_text(out, s->o->title);
    ng_buf_adds(out, "</a></p>\n<h1>");
    ng_html_escape_text(out, g->name);
    ng_buf_addf(out, "</h1>\n<p>%zu run%s; the latest %zu have a section below.</p>\n", g->n,
                g->n == 1 ? "" : "s", g->n_held);
    ng_html_legend(out, &all_marks);
    ng_buf_adds(out, "<section class=\"gate\" data-gate=\"");
    ng_html_escape_attr(out, g->name);
    ng_buf_adds(out, "\">\n");
    trend(out, s, g, PAGE_POINTS, 0);
    ng_buf_adds(out, "</section>\n");
    ng_dash_changes_tables(out, s, g);
    runs_table(out, g);
    for (size_t k = g->n; k-- > 0;) {
        if (!g->runs[k].doc)
            continue;
        snprintf(id, sizeof id, "run-%zu", g->runs[k].seq);
        run_heading(&head, &g->runs[k]);
        ng_html_section(out, &g->runs[k].doc->v, id, 2, head.data);
        head.len = 0;
    }
    ng_buf_release(&head);
    footer(out, s);
    ng_html_end(out);
}

/* ---- thinning ---- */

size_t ng_dashboard_thin(const enum ng_outcome *o, size_t n, size_t budget, unsigned char *keep,
                         size_t *every)
{
    size_t kept = 0;

    if (budget < 4)
        budget = 4;
    *every = 1;
    if (n <= budget) {
        memset(keep, 1, n);
        return n;
    }
    size_t recent = budget / 2, older = n - recent, room = budget - recent;
    size_t k = (older + room - 1) / room, extra = budget / 4;
    *every = k;
    for (size_t i = 0; i < older; i++)
        kept += keep[i] = i % k == 0;
    for (size_t i = older; i-- > 0 && extra > 0;) {
        if (!keep[i] && o[i] != NG_OUTCOME_PASS) {
            keep[i] = 1;
            kept++;
            extra--;
        }
    }
    memset(keep + older, 1, recent);
    return kept + recent;
}
