#include "history/ng_history_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_metric.h"
#include "core/ng_work_rates.h"
#include "history/ng_history.h"
#include "history/ng_series.h"
#include "util/ng_text.h"

/* The names a message lists of the other gates in the file. */
#define OTHER_NAMES_SHOWN 5

/* --history-match pairs are read as labels are (KEY=VALUE, a later one
 * wins), without any CI variable. */
static const char *no_env(const char *name, void *ctx)
{
    (void)name;
    (void)ctx;
    return NULL;
}

void ng_history_baseline_init(struct ng_history_baseline *w, const struct ng_history_baseline_query *q)
{
    struct ng_buf name = NG_BUF_INIT;

    memset(w, 0, sizeof *w);
    w->path = q->path;
    w->name = q->name;
    ng_text_cut(&name, w->name, NG_HISTORY_NAME_MAX, 1);
    w->line_name = ng_buf_detach(&name);
    w->mode = q->nvtx ? "nvtx" : "total";
    w->policy = q->policy;
    w->metric = ng_metric_name(q->metric);
    ng_work_format(q->work ? q->work : NG_WORK_DEFAULT, w->work, sizeof w->work);
    ng_context_collect(&w->match, q->match, q->n_match, no_env, NULL);
    w->has_since = q->has_since;
    w->since = q->since;
    w->size = q->size > 0 ? (size_t)q->size : 10;
    w->accept = q->accept;
    w->n_accept = q->n_accept;
    w->runs = ng_xcalloc(w->size, sizeof *w->runs);
    w->lines = ng_xcalloc(w->size, sizeof *w->lines);
}

/* ---- which runs count ---- */

/* Lines of gates from before --metric and --work said nothing of them:
 * they measured the defaults. */
static const char *or_default(const char *v, const char *dflt)
{
    return v && *v ? v : dflt;
}

static int same_patterns(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return 1;
}

/* The kernel filters and names decide which rows count and how they are
 * called (a line from before policies had none: the defaults). */
static int same_policy(const struct ng_policy *a, const struct ng_policy *b)
{
    static const struct ng_policy none;
    if (!a)
        a = &none;
    if (!b)
        b = &none;
    return same_patterns(a->kernels, a->n_kernels, b->kernels, b->n_kernels) &&
           same_patterns(a->exclude, a->n_exclude, b->exclude, b->n_exclude) &&
           !a->base_names == !b->base_names;
}

/* Whether v was measured as w measures; else an example of the difference. */
static int same_setup(const struct ng_history_baseline *w, const struct ng_verdict *v, char *eg,
                      size_t size)
{
    const char *metric = or_default(v->metric, "kernel-sum");
    const char *work = or_default(v->work, "kernels,graphs");

    if (!same_policy(v->policy, w->policy))
        snprintf(eg, size, "other --kernels, --exclude-kernels or --kernel-names");
    else if (strcmp(v->mode, w->mode) != 0)
        snprintf(eg, size, "mode %s", v->mode);
    else if (strcmp(metric, w->metric) != 0)
        snprintf(eg, size, "metric %s", metric);
    else if (strcmp(work, w->work) != 0)
        snprintf(eg, size, "work %s", work);
    else
        return 1;
    return 0;
}

/* Whether v's context holds every --history-match pair; else an example
 * of what it holds instead ("branch=dev", "no branch"). */
static int matches(const struct ng_history_baseline *w, const struct ng_verdict *v, char *eg, size_t size)
{
    for (size_t i = 0; i < w->match.n; i++) {
        const struct ng_context_item *want = &w->match.items[i];
        const char *have = ng_context_get(&v->context, want->key);
        if (have && strcmp(have, want->value) == 0)
            continue;
        if (have)
            snprintf(eg, size, "%s=%.100s", want->key, have);
        else
            snprintf(eg, size, "no %s", want->key);
        return 0;
    }
    return 1;
}

static void count_other_name(struct ng_history_baseline *w, const char *name)
{
    int added;
    size_t at = ng_strmap_get(&w->other_names, name, strlen(name), w->n_other_names, &added);
    if (added) {
        w->other_counts = ng_xgrow(w->other_counts, w->n_other_names, sizeof *w->other_counts);
        w->other_list = ng_xgrow(w->other_list, w->n_other_names, sizeof *w->other_list);
        w->other_list[w->n_other_names] = ng_xstrdup(name);
        w->other_counts[w->n_other_names++] = 0;
    }
    w->other_counts[at]++;
}

/* The run in the ring (the oldest one it replaces is released). */
static void keep(struct ng_history_baseline *w, struct ng_history_entry *e)
{
    size_t at;
    if (w->n_runs < w->size) {
        at = w->n_runs++;
    } else {
        at = w->head;
        ng_verdict_doc_release(&w->runs[at]);
        w->head = (w->head + 1) % w->size;
    }
    w->runs[at] = e->doc;
    w->lines[at] = e->line;
    memset(&e->doc, 0, sizeof e->doc);   /* the window's now */
}

/* Counts the verdict for the message, and says whether it is one of the
 * gate's runs. */
static int counts(struct ng_history_baseline *w, const struct ng_verdict *v)
{
    char eg[160];

    w->verdicts++;
    if (strcmp(v->name, w->line_name) != 0) {
        count_other_name(w, v->name);
        return 0;
    }
    if (v->outcome == NG_OUTCOME_ERROR || !v->has_figures || v->current.n_samples == 0) {
        w->errored++;
        return 0;
    }
    if (!same_setup(w, v, eg, sizeof eg)) {
        if (!w->other_setup++)
            snprintf(w->setup_example, sizeof w->setup_example, "%s", eg);
        return 0;
    }
    if (!matches(w, v, eg, sizeof eg)) {
        if (!w->unmatched++)
            snprintf(w->match_example, sizeof w->match_example, "%s", eg);
        return 0;
    }
    if (w->has_since && v->timestamp < w->since) {
        w->older++;
        return 0;
    }
    return 1;
}

struct reading {
    struct ng_history_baseline *const *w;
    size_t n;
};

/* The run in the gate's series: its figure, commit and line. */
static void add_to_series(struct ng_history_baseline *w, const struct ng_history_entry *e)
{
    const char *commit = ng_context_get(&e->doc.v.context, "commit");
    size_t n = w->n_series;

    if ((n & (n - 1)) == 0) {   /* a power of two (or 0): room for as many again */
        size_t cap = n ? 2 * n : 16;
        w->ms = ng_xrealloc(w->ms, cap * sizeof *w->ms);
        w->failed = ng_xrealloc(w->failed, cap * sizeof *w->failed);
        w->commits = ng_xrealloc(w->commits, cap * sizeof *w->commits);
        w->series_lines = ng_xrealloc(w->series_lines, cap * sizeof *w->series_lines);
    }
    w->ms[n] = e->doc.v.current.ms_per_epoch;
    w->failed[n] = e->doc.v.outcome == NG_OUTCOME_FAIL;
    w->commits[n] = commit ? ng_xstrdup(commit) : NULL;
    w->series_lines[n] = e->line;
    w->n_series++;
}

/* Every window counts the line; the first whose run it is keeps it (a
 * manifest's names are distinct: one gate's run). */
static int take(struct ng_history_entry *e, void *ctx)
{
    const struct reading *r = ctx;
    size_t keeper = r->n;

    for (size_t i = 0; i < r->n; i++)
        if (counts(r->w[i], &e->doc.v) && keeper == r->n)
            keeper = i;
    if (keeper < r->n) {
        add_to_series(r->w[keeper], e);
        keep(r->w[keeper], e);
    }
    return 0;
}

/* The second pass: a window whose runs are not the latest keeps the lines
 * of [from, to) of its series. */
static int take_again(struct ng_history_entry *e, void *ctx)
{
    const struct reading *r = ctx;

    for (size_t i = 0; i < r->n; i++) {
        struct ng_history_baseline *w = r->w[i];
        const size_t *lines = w->series_lines + w->from;
        size_t lo = 0, hi = w->to - w->from;
        if (!w->reread || w->error[0])
            continue;
        while (lo < hi) {   /* the series is in line order */
            size_t mid = lo + (hi - lo) / 2;
            if (lines[mid] < e->line)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < w->to - w->from && lines[lo] == e->line && w->n_runs < w->size) {
            w->runs[w->n_runs] = e->doc;
            w->lines[w->n_runs++] = e->line;
            memset(&e->doc, 0, sizeof e->doc);
            return 0;
        }
    }
    return 0;
}

/* The ring in file order, oldest first. */
static void unroll(struct ng_history_baseline *w)
{
    struct ng_verdict_doc *runs = ng_xcalloc(w->size, sizeof *runs);
    size_t *lines = ng_xcalloc(w->size, sizeof *lines);
    for (size_t i = 0; i < w->n_runs; i++) {
        runs[i] = w->runs[(w->head + i) % w->n_runs];
        lines[i] = w->lines[(w->head + i) % w->n_runs];
    }
    free(w->runs);
    free(w->lines);
    w->runs = runs;
    w->lines = lines;
    w->head = 0;
}

/* A change of the series as the verdict says it. */
static void note_change(struct ng_verdict_history_change *to, const struct ng_history_baseline *w,
                        const struct ng_series_change *c)
{
    const char *commit = w->commits[c->cp.at];
    to->on = 1;
    to->line = w->series_lines[c->cp.at];
    to->commit = commit ? ng_xstrdup(commit) : NULL;
    to->magnitude = c->cp.magnitude;
    to->acknowledged = c->ack != NULL;
    to->expired = c->expired && !c->ack;
}

/* Drops the oldest runs of the ring (unrolled) before w->from. */
static void trim(struct ng_history_baseline *w)
{
    size_t first = w->n_series - w->n_runs;   /* the ring's first run in the series */
    size_t drop = w->from > first ? w->from - first : 0;

    for (size_t i = 0; i < drop; i++)
        ng_verdict_doc_release(&w->runs[i]);
    memmove(w->runs, w->runs + drop, (w->n_runs - drop) * sizeof *w->runs);
    memmove(w->lines, w->lines + drop, (w->n_runs - drop) * sizeof *w->lines);
    w->n_runs -= drop;
}

/* A segment that crept: the baseline is its first runs; say what it rose
 * by, over how many runs, from which commit. */
static void note_creep(struct ng_history_baseline *w, const struct ng_series_window *win)
{
    const char *commit = w->commits[win->trend_from];
    w->crept = 1;
    w->crept_ratio = ng_series_crept_ratio(win);
    w->crept_runs = win->segment_to - win->trend_from - 1;
    w->crept_p = win->trend.p_value;
    w->crept_line = w->series_lines[win->trend_from];
    w->crept_commit = commit ? ng_xstrdup(commit) : NULL;
}

/* Which runs of the series are the baseline (history/ng_series.h), and
 * why; -1 with err when an --accept file cannot be read or names a commit
 * ambiguously. */
static int choose(struct ng_history_baseline *w, struct ng_err *err)
{
    struct ng_accept acc = NG_ACCEPT_INIT;
    struct ng_series_change *c = NULL;
    const struct ng_cp_opts co = { NG_CP_DEFAULT_P, NG_CP_DEFAULT_MIN_CHANGE, NG_CP_DEFAULT_WINDOW };
    size_t to;
    int ret = 0;

    for (size_t i = 0; ret == 0 && i < w->n_accept; i++)
        ret = ng_accept_read(&acc, w->accept[i], err);
    size_t n_c = 0;
    if (ret == 0)
        ret = ng_series_judge(w->line_name, w->ms, (const char *const *)w->commits, w->n_series,
                              &co, &acc, ng_util_report_time(), &c, &n_c, err);
    if (ret == 0) {
        struct ng_series_window win;
        ng_series_window(c, n_c, w->ms, w->failed, w->n_series, w->size, &win);
        w->window = win;
        size_t j = win.ends;
        if (j < n_c)
            note_change(&w->before_change, w, &c[j]);
        if (j > 0)
            note_change(&w->since_change, w, &c[j - 1]);
        w->held_out = win.held_out;
        w->from = win.from;
        w->to = to = win.to;
        if (win.crept)
            note_creep(w, &win);
        if (to == w->n_series) {
            trim(w);
        } else {
            for (size_t i = 0; i < w->n_runs; i++)
                ng_verdict_doc_release(&w->runs[i]);
            w->n_runs = 0;
            w->reread = 1;
        }
    }
    free(c);
    ng_accept_release(&acc);
    return ret;
}

int ng_history_baseline_read(struct ng_history_baseline *const *w, size_t n, struct ng_err *err)
{
    struct ng_history h = NG_HISTORY_INIT;
    struct reading r = { w, n };
    int ret = ng_history_read(&h, w[0]->path, take, &r, err), again = 0;

    if (ret < 0)
        ng_err_prefix(err, "--baseline-history");
    for (size_t i = 0; i < n; i++) {
        struct ng_err e2;
        if (ret < 0) {
            snprintf(w[i]->error, sizeof w[i]->error, "%s", err->msg);
            continue;
        }
        unroll(w[i]);
        for (size_t k = 0; k < h.n_warnings; k++)
            ng_strv_push(&w[i]->warnings, &w[i]->n_warnings, ng_xstrdup(h.warnings[k]));
        if (choose(w[i], &e2) < 0)
            snprintf(w[i]->error, sizeof w[i]->error, "%s", e2.msg);
        again |= w[i]->reread && !w[i]->error[0];
    }
    ng_history_release(&h);
    if (ret == 0 && again) {
        struct ng_history h2 = NG_HISTORY_INIT;
        ret = ng_history_read(&h2, w[0]->path, take_again, &r, err);
        if (ret < 0) {
            ng_err_prefix(err, "--baseline-history (read again)");
            for (size_t i = 0; i < n; i++)
                if (w[i]->reread)
                    snprintf(w[i]->error, sizeof w[i]->error, "%s", err->msg);
        }
        ng_history_release(&h2);
    }
    return ret;
}

/* ---- the message when nothing counts ---- */

static void looked_for(const struct ng_history_baseline *w, struct ng_buf *b)
{
    ng_buf_addf(b, "looked for: verdict not error, mode %s, metric %s, work %s", w->mode,
                w->metric, w->work);
    if (w->policy && (w->policy->n_kernels || w->policy->n_exclude))
        ng_buf_adds(b, ", these --kernels/--exclude-kernels");
    if (w->policy && w->policy->base_names)
        ng_buf_adds(b, ", --kernel-names base");
    for (size_t i = 0; i < w->match.n; i++)
        ng_buf_addf(b, ", %s=%s", w->match.items[i].key, w->match.items[i].value);
    if (w->has_since) {
        char ts[32];
        ng_fmt_utc(ts, sizeof ts, w->since, 1);
        ng_buf_addf(b, ", since %s", ts);
    }
}

static void this_gate(const struct ng_history_baseline *w, struct ng_buf *b)
{
    size_t mine = w->errored + w->other_setup + w->unmatched + w->older;
    const char *sep = "";

    if (!mine)
        return;
    ng_buf_addf(b, "'%s' %zu (", w->name, mine);
    if (w->errored)
        ng_buf_addf(b, "%s%zu error%s", sep, w->errored, w->errored == 1 ? "" : "s"), sep = ", ";
    if (w->other_setup)
        ng_buf_addf(b, "%s%zu measured otherwise, e.g. %s", sep, w->other_setup,
                    w->setup_example), sep = ", ";
    if (w->unmatched)
        ng_buf_addf(b, "%s%zu not matching, e.g. %s", sep, w->unmatched, w->match_example),
            sep = ", ";
    if (w->older)
        ng_buf_addf(b, "%s%zu older than --history-since", sep, w->older);
    ng_buf_adds(b, ")");
}

/* The other gates of the file, most runs first: at most OTHER_NAMES_SHOWN. */
static void other_gates(const struct ng_history_baseline *w, struct ng_buf *b, int after)
{
    size_t n = w->n_other_names;
    int *shown = ng_xcalloc(n ? n : 1, sizeof *shown);

    for (size_t k = 0; k < n && k < OTHER_NAMES_SHOWN; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (!shown[i] && (best == n || w->other_counts[i] > w->other_counts[best] ||
                              (w->other_counts[i] == w->other_counts[best] &&
                               strcmp(w->other_list[i], w->other_list[best]) < 0)))
                best = i;
        shown[best] = 1;
        ng_buf_addf(b, "%s'%s' %zu", after || k ? ", " : "", w->other_list[best],
                    w->other_counts[best]);
    }
    if (n > OTHER_NAMES_SHOWN)
        ng_buf_addf(b, " and %zu more gate%s", n - OTHER_NAMES_SHOWN,
                    n - OTHER_NAMES_SHOWN == 1 ? "" : "s");
    free(shown);
}

int ng_history_baseline_check(const struct ng_history_baseline *w, struct ng_err *err)
{
    struct ng_buf b = NG_BUF_INIT;

    if (w->error[0])
        return ng_err_set(err, "%s", w->error);
    if (w->n_runs > 0)
        return 0;
    char *path = ng_text_cleaned(w->path, NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_addf(&b, "--baseline-history '%s' has no run of '%s' to compare with (", path,
                w->name);
    free(path);
    looked_for(w, &b);
    if (w->verdicts == 0) {
        ng_buf_adds(&b, "); the file holds no verdict");
    } else {
        ng_buf_addf(&b, "); the file holds %zu verdict%s: ", w->verdicts,
                    w->verdicts == 1 ? "" : "s");
        size_t before = b.len;
        this_gate(w, &b);
        other_gates(w, &b, b.len > before);
    }
    if (w->n_warnings)
        ng_buf_addf(&b, ", and lines it skipped (see the warnings)");
    ng_err_set(err, "%s", b.data);
    ng_buf_release(&b);
    return -1;
}

/* ---- the runs as profiles ---- */

static int64_t scaled(int64_t v, double f)
{
    return (int64_t)llround((double)v * f);
}

/* The run's rows, `e` epochs' worth: its history rows, or for a line
 * written before rows its kernels (today's side of them) and one others
 * row for the rest of its time. */
static void add_rows(struct ng_profile *p, const struct ng_verdict *r, double e, double per)
{
    double named = 0;

    if (r->has_rows) {
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct ng_work_rate *row = &r->rows[i];
            struct ng_buf name = NG_BUF_INIT;
            ng_work_rates_name(&name, row->name);
            ng_profile_add_row(p, row->kind, name.data ? name.data : "", name.len,
                               llround(row->ms_per_epoch * 1e6 * e),
                               llround(row->launches_per_epoch * e));
            ng_buf_release(&name);
        }
        return;
    }
    for (size_t i = 0; i < r->n_kernels; i++) {
        const struct ng_kernel_delta *k = &r->kernels[i];
        if (!(k->current_ms_per_epoch > 0))
            continue;
        struct ng_buf name = NG_BUF_INIT;
        ng_work_rates_name(&name, k->name);
        ng_profile_add_row(p, k->kind, name.data ? name.data : "", name.len,
                           llround(k->current_ms_per_epoch * 1e6 * e),
                           llround(k->current_instances_per_epoch * e));
        ng_buf_release(&name);
        named += k->current_ms_per_epoch;
    }
    double rest = (double)r->current.total_ns / 1e6 / per - named;
    if (rest > 0)
        ng_profile_add_row(p, NG_WORK_OTHERS, ng_work_rates_others, strlen(ng_work_rates_others),
                           llround(rest * 1e6 * e), 0);
}

/* Per-kernel gates in NVTX mode test each item on its epoch samples; a
 * history line keeps an item's mean per epoch, not its epochs, so each of
 * the run's epochs gets that mean. */
static void even_cells(struct ng_profile *p)
{
    size_t n = p->n_epochs;
    uint32_t *epoch = ng_xcalloc(n ? n : 1, sizeof *epoch);
    int64_t *ns = ng_xcalloc(n ? n : 1, sizeof *ns);

    for (size_t e = 0; e < n; e++)
        epoch[e] = (uint32_t)e;
    for (size_t i = 0; n && i < p->n_rows; i++) {
        const struct ng_work_row *r = &p->rows[i];
        for (size_t e = 0; e < n; e++)
            ns[e] = r->total_ns / (int64_t)n;
        ng_profile_add_cells(p, r->kind, r->name, epoch, ns, n);
    }
    free(epoch);
    free(ns);
}

static void run_profile(struct ng_profile *p, const struct ng_history_baseline *w, size_t i,
                        const struct ng_compare_opts *o)
{
    const struct ng_verdict *r = &w->runs[i].v;
    const struct ng_verdict_side *c = &r->current;
    struct ng_buf path = NG_BUF_INIT;

    ng_buf_addf(&path, "%s:%zu", w->path, w->lines[i]);
    ng_profile_init(p, path.data);
    ng_buf_release(&path);
    p->format = NG_FORMAT_HISTORY;
    /* today's epochs' worth of the run: --epochs in total mode, its own
     * epochs in NVTX mode (they are its samples) */
    double e = o->nvtx ? (double)c->n_samples : (double)o->epochs;
    double per = c->epochs_counted > 0 ? c->epochs_counted : e;
    /* a crept series' run taken back to the level it crept from (the
     * decision's figures only: its rows show what crept) */
    double scale = ng_series_creep_scale(&w->window, w->from + i);
    if (o->nvtx) {
        p->nvtx = 1;
        for (size_t k = 0; k < c->n_samples; k++)
            ng_profile_add_epoch(p, "", 0, llround(c->samples[k] * scale * 1e6), 0);
    } else {
        p->measured_ns = llround(c->ms_per_epoch * scale * 1e6 * e);
        p->measured = 1;
    }
    add_rows(p, r, e, per);
    if (o->nvtx && o->policy.kernel_threshold > 0)
        even_cells(p);
    p->total_ns = scaled(c->total_ns, e / per);
    p->launches = scaled(c->kernel_count, e / per);
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        p->kind_ns[k] = scaled(c->kind_ns[k], e / per);
        p->kind_launches[k] = scaled(c->kind_launches[k], e / per);
        p->left_out_ns[k] = scaled(c->left_out_ns[k], e / per);
        p->left_out_launches[k] = scaled(c->left_out_launches[k], e / per);
    }
    p->loaded = 1;
}

void ng_history_baseline_profiles(const struct ng_history_baseline *w, struct ng_profile *p, size_t *n,
                        const struct ng_compare_opts *o)
{
    *n = w->n_runs < NG_MAX_RUNS ? w->n_runs : NG_MAX_RUNS;
    for (size_t i = 0; i < *n; i++)
        run_profile(&p[i], w, i, o);
}

/* ---- what the verdict says of it ---- */

static void describe_run(struct ng_verdict_history_run *to, const struct ng_history_baseline *w, size_t i)
{
    const char *commit = ng_context_get(&w->runs[i].v.context, "commit");
    to->line = w->lines[i];
    to->commit = commit ? ng_xstrdup(commit) : NULL;
    to->timestamp = w->runs[i].v.timestamp;
}

static void copy_change(struct ng_verdict_history_change *to,
                        const struct ng_verdict_history_change *from)
{
    *to = *from;
    to->commit = from->commit ? ng_xstrdup(from->commit) : NULL;
}

void ng_history_baseline_describe(const struct ng_history_baseline *w, struct ng_verdict *v)
{
    struct ng_verdict_history *h = &v->history;

    for (size_t i = 0; i < w->n_warnings; i++)
        ng_verdict_warn(v, "%s", w->warnings[i]);
    ng_verdict_history_release(h);
    h->on = 1;
    h->path = ng_xstrdup(w->path);
    h->name = ng_xstrdup(w->name);
    h->window = w->size;
    h->runs = w->n_runs;
    ng_context_merge(&h->match, &w->match);
    h->has_since = w->has_since;
    h->since = w->since;
    if (w->n_runs == 0)
        return;
    for (size_t i = 0; i < w->n_runs; i++) {
        const char *b = ng_context_get(&w->runs[i].v.context, "branch");
        size_t k = 0;
        while (b && k < i) {
            const char *seen = ng_context_get(&w->runs[k].v.context, "branch");
            if (seen && strcmp(seen, b) == 0)
                break;
            k++;
        }
        if (b && k == i && h->branches++ == 0)
            h->branch = ng_xstrdup(b);
    }
    if (h->branches > 1) {
        free(h->branch);
        h->branch = NULL;
    }
    describe_run(&h->first, w, 0);
    describe_run(&h->last, w, w->n_runs - 1);
    copy_change(&h->before_change, &w->before_change);
    copy_change(&h->since_change, &w->since_change);
    if (w->crept) {
        h->crept = 1;
        h->crept_ratio = w->crept_ratio;
        h->crept_runs = w->crept_runs;
        h->crept_p = w->crept_p;
        h->crept_line = w->crept_line;
        h->crept_commit = w->crept_commit ? ng_xstrdup(w->crept_commit) : NULL;
        ng_verdict_warn(v, "the series of '%s' crept: %+.0f%% over %zu runs since %s (line %zu), "
                        "no single step (Mann-Kendall p=%.2g); the baseline is the first %zu "
                        "runs from there, not the latest", w->name ? w->name : "",
                        (w->crept_ratio - 1) * 100, w->crept_runs,
                        w->crept_commit ? w->crept_commit : "a run without a commit",
                        w->crept_line, w->crept_p, w->n_runs);
    }
    if (w->held_out) {
        const char *c = w->commits[w->to];
        h->held_out = w->held_out;
        h->held_line = w->series_lines[w->to];
        h->held_commit = c ? ng_xstrdup(c) : NULL;
    }
}

void ng_history_baseline_release(struct ng_history_baseline *w)
{
    for (size_t i = 0; i < w->n_runs; i++)
        ng_verdict_doc_release(&w->runs[i]);
    free(w->runs);
    free(w->lines);
    free(w->line_name);
    for (size_t i = 0; i < w->n_series; i++)
        free(w->commits[i]);
    free(w->commits);
    free(w->ms);
    free(w->failed);
    free(w->series_lines);
    free(w->before_change.commit);
    free(w->since_change.commit);
    free(w->crept_commit);
    ng_context_release(&w->match);
    ng_strmap_release(&w->other_names);
    for (size_t i = 0; i < w->n_other_names; i++)
        free(w->other_list[i]);
    free(w->other_list);
    free(w->other_counts);
    ng_strv_free(&w->warnings, &w->n_warnings);
    memset(w, 0, sizeof *w);
}
