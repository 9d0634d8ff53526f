/* The dashboard's change points: every gate's series judged as `nsys-gate
 * changes` and the gate's --baseline-history judge it (history/ng_series.h,
 * the default parameters), shown as markers on the trends and as tables. */
#include "dashboard/ng_dashboard_changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html/ng_html.h"
#include "html/ng_html_escape.h"
#include "html/ng_svg.h"
#include "util/ng_text.h"

/* Rows of the index's tables: beyond them the gates' pages list the rest. */
#define CHANGES_SHOWN 100

static int read_acks(struct site *s, struct ng_err *err)
{
    const struct ng_dashboard_opts *o = s->o;

    for (size_t i = 0; i < o->n_accept; i++)
        if (ng_accept_read(&s->acks, o->accept[i], err) < 0)
            return -1;
    if (o->n_accept || !o->accept_list)
        return 0;
    /* the variable's list, one file at a time (the paths borrowed by the
     * acknowledgements live in the arena, as long as the site) */
    for (const char *p = o->accept_list; *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            char *one = ng_xstrndup(p, len);
            const char *path = ng_arena_strdup(&s->strings, one);
            free(one);
            if (ng_accept_read(&s->acks, path, err) < 0)
                return -1;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

/* One gate's series as a job: the runs with a figure, as the series of
 * `changes` takes them (error verdicts and runs without figures left
 * out); run[k]: the gate's run at series position k. */
static struct ng_series_job gate_job(const struct gate *g, size_t *run)
{
    double *x = ng_xmalloc((g->n + 1) * sizeof *x);
    const char **commits = ng_xmalloc((g->n + 1) * sizeof *commits);
    size_t n = 0;

    for (size_t k = 0; k < g->n; k++) {
        const struct run *r = &g->runs[k];
        if (r->outcome == NG_OUTCOME_ERROR || !r->has_figures || !isfinite(r->cur_ms))
            continue;
        x[n] = r->cur_ms;
        commits[n] = r->commit;
        run[n++] = k;
    }
    return (struct ng_series_job){ g->name, x, commits, n, NULL, 0 };
}

/* The gate's changes into the site's list, in gate order.  Frees the job. */
static void take_judged(struct site *s, size_t gi, struct ng_series_job *j, const size_t *run)
{
    struct gate *g = &s->gates[gi];
    g->change0 = s->n_changes;
    g->n_changes = j->n_changes;
    s->changes = ng_xrealloc(s->changes, (s->n_changes + j->n_changes + 1) * sizeof *s->changes);
    for (size_t k = 0; k < j->n_changes; k++)
        s->changes[s->n_changes++] = (struct change){ gi, run[j->changes[k].cp.at - 1],
                                                      run[j->changes[k].cp.at], j->changes[k] };
    free(j->changes);
    free(j->x);
    free(j->commits);
}

int ng_dash_changes(struct site *s, struct ng_err *err)
{
    const struct ng_cp_opts o = { NG_CP_DEFAULT_P, NG_CP_DEFAULT_MIN_CHANGE, NG_CP_DEFAULT_WINDOW };
    if (read_acks(s, err) < 0)
        return -1;
    struct ng_series_job *jobs = ng_xcalloc(s->n_gates + 1, sizeof *jobs);
    size_t **runs = ng_xcalloc(s->n_gates + 1, sizeof *runs);
    for (size_t i = 0; i < s->n_gates; i++) {
        runs[i] = ng_xmalloc((s->gates[i].n + 1) * sizeof **runs);
        jobs[i] = gate_job(&s->gates[i], runs[i]);
    }
    int ret = ng_series_judge_all(jobs, s->n_gates, s->o->jobs, &o, &s->acks, s->now, err);
    for (size_t i = 0; i < s->n_gates; i++) {
        take_judged(s, i, &jobs[i], runs[i]);
        free(runs[i]);
    }
    free(runs);
    free(jobs);
    return ret;
}

/* ---- the markers ---- */

static void marker_text(struct ng_buf *b, const struct change *c, const struct run *bad)
{
    ng_buf_addf(b, "%.7s %.2fx", bad->commit ? bad->commit : "?", c->sc.cp.magnitude);
}

static void marker_title(struct ng_buf *b, const struct change *c, const struct run *bad)
{
    ng_buf_addf(b, "%s %.2fx at run %zu (%.12s): %.3f -> %.3f ms/epoch, p=%.1e",
                c->sc.regression ? "regression" : "improvement", c->sc.cp.magnitude, bad->seq,
                bad->commit ? bad->commit : "commit unknown", c->sc.cp.before, c->sc.cp.after,
                c->sc.cp.p_value);
    if (c->sc.ack)
        ng_buf_addf(b, "; acknowledged by %s until %s: %s", c->sc.ack->author,
                    c->sc.ack->expires, c->sc.ack->reason);
    else if (c->sc.regression)
        ng_buf_adds(b, c->sc.standing ? "; standing, not acknowledged" : "; not acknowledged");
}

size_t ng_dash_change_markers(const struct site *s, const struct gate *g,
                              struct ng_svg_marker **markers, char **labels)
{
    struct ng_buf text = NG_BUF_INIT;
    size_t n = g->n_changes, *at = ng_xmalloc((2 * n + 1) * sizeof *at);
    struct ng_svg_marker *m = ng_xcalloc(n + 1, sizeof *m);

    for (size_t k = 0; k < n; k++) {
        const struct change *c = &s->changes[g->change0 + k];
        const struct run *bad = &g->runs[c->bad];
        at[2 * k] = text.len;
        marker_text(&text, c, bad);
        ng_buf_add(&text, "", 1);
        at[2 * k + 1] = text.len;
        marker_title(&text, c, bad);
        ng_buf_add(&text, "", 1);
        m[k].x = (double)bad->seq;
        m[k].acknowledged = c->sc.ack != NULL;
    }
    for (size_t k = 0; k < n; k++) {   /* the text no longer moves */
        m[k].label = text.data + at[2 * k];
        m[k].title = text.data + at[2 * k + 1];
    }
    free(at);
    *labels = ng_buf_detach(&text);
    *markers = m;
    return n;
}

/* ---- the tables ---- */

static int newest_first(const void *pa, const void *pb, void *ctx)
{
    const struct site *s = ctx;
    const struct change *a = *(const struct change *const *)pa, *b = *(const struct change *const *)pb;
    const struct run *ra = &s->gates[a->gate].runs[a->bad], *rb = &s->gates[b->gate].runs[b->bad];
    if (ra->ts != rb->ts)
        return ra->ts > rb->ts ? -1 : 1;
    int c = strcmp(s->gates[a->gate].name, s->gates[b->gate].name);
    return c ? c : (a->bad > b->bad ? -1 : a->bad < b->bad);
}

static void commit_cell(struct ng_buf *out, const struct site *s, const struct run *r)
{
    const char *at = s->o->commit_url ? strstr(s->o->commit_url, "{commit}") : NULL;

    ng_buf_adds(out, "<td class=\"mono\">");
    if (at && r->commit) {
        struct ng_buf url = NG_BUF_INIT;
        ng_buf_add(&url, s->o->commit_url, (size_t)(at - s->o->commit_url));
        ng_buf_adds(&url, r->commit);
        ng_buf_adds(&url, at + strlen("{commit}"));
        ng_buf_adds(out, "<a href=\"");
        ng_html_escape_url(out, url.data);
        ng_buf_adds(out, "\">");
        ng_html_commit(out, r->commit);
        ng_buf_adds(out, "</a>");
        ng_buf_release(&url);
    } else {
        ng_html_commit(out, r->commit);
    }
    ng_buf_adds(out, "</td>");
}

static void change_row(struct ng_buf *out, const struct site *s, const struct change *c,
                       int on_index)
{
    const struct gate *g = &s->gates[c->gate];
    const struct run *bad = &g->runs[c->bad];
    char when[32];

    ng_buf_addf(out, "<tr class=\"%s%s\">", c->sc.regression ? "regression" : "improvement",
                c->sc.standing ? " standing" : "");
    if (on_index) {
        ng_buf_addf(out, "<td><a href=\"g/%s.html\">", g->slug);
        ng_html_escape_text(out, g->name);
        ng_buf_adds(out, "</a></td>");
    }
    commit_cell(out, s, bad);
    ng_buf_addf(out, "<td>%s</td>", c->sc.regression ? "regression" : "improvement");
    ng_html_num_cell(out, c->sc.cp.magnitude, "x");
    ng_html_num_cell(out, c->sc.cp.before, "");
    ng_html_num_cell(out, c->sc.cp.after, "");
    ng_fmt_utc(when, sizeof when, bad->ts, 0);
    ng_buf_addf(out, "<td class=\"date\">%.10s</td><td>", bad->ts > 0 ? when : "unknown");
    if (c->sc.ack) {
        ng_buf_adds(out, "acknowledged by ");
        ng_html_escape_text(out, c->sc.ack->author);
        ng_buf_addf(out, " until %s: ", c->sc.ack->expires);
        ng_html_escape_text(out, c->sc.ack->reason);
    } else if (c->sc.regression) {
        ng_buf_adds(out, c->sc.expired ? "acknowledgement expired; " : "");
        ng_buf_adds(out, c->sc.standing ? "<strong>standing</strong>, not acknowledged"
                                        : "not acknowledged");
    } else {
        ng_buf_adds(out, "<span class=\"note\">an improvement</span>");
    }
    ng_buf_adds(out, "</td></tr>\n");
}

static void table(struct ng_buf *out, const struct site *s, const struct change *const *c,
                  size_t n, const char *heading, const char *id, int on_index)
{
    size_t shown = on_index && n > CHANGES_SHOWN ? CHANGES_SHOWN : n;

    ng_buf_addf(out, "<h2 id=\"%s\">%s</h2>\n", id, heading);
    if (n == 0) {
        ng_buf_adds(out, "<p class=\"note\">None.</p>\n");
        return;
    }
    ng_buf_addf(out, "<table class=\"changes\" id=\"%s-table\">\n<thead><tr>", id);
    if (on_index)
        ng_buf_adds(out, "<th scope=\"col\">gate</th>");
    ng_buf_adds(out, "<th scope=\"col\">first bad commit</th><th scope=\"col\">direction</th>"
                     "<th scope=\"col\" class=\"n\">magnitude</th><th scope=\"col\" class=\"n\">"
                     "before, ms/epoch</th><th scope=\"col\" class=\"n\">after</th>"
                     "<th scope=\"col\">date</th><th scope=\"col\">acknowledgement</th></tr>\n"
                     "</thead>\n<tbody>\n");
    for (size_t k = 0; k < shown; k++)
        change_row(out, s, c[k], on_index);
    ng_buf_adds(out, "</tbody>\n</table>\n");
    if (shown < n)
        ng_buf_addf(out, "<p class=\"note\">The newest %zu of %zu; each gate's page lists its "
                         "own.</p>\n", shown, n);
}

void ng_dash_changes_tables(struct ng_buf *out, const struct site *s, const struct gate *g)
{
    size_t from = g ? g->change0 : 0, n = g ? g->n_changes : s->n_changes, n_open = 0, n_acked = 0;
    const struct change **open = ng_xcalloc(n + 1, sizeof *open);
    const struct change **acked = ng_xcalloc(n + 1, sizeof *acked);

    for (size_t k = 0; k < n; k++) {
        const struct change *c = &s->changes[from + k];
        if (c->sc.ack)
            acked[n_acked++] = c;
        else
            open[n_open++] = c;
    }
    qsort_r(open, n_open, sizeof *open, newest_first, (void *)s);
    qsort_r(acked, n_acked, sizeof *acked, newest_first, (void *)s);
    table(out, s, open, n_open, "Changes", "changes", g == NULL);
    if (n_acked)
        table(out, s, acked, n_acked, "Acknowledged changes", "acknowledged", g == NULL);
    free(open);
    free(acked);
}
