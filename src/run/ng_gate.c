#include "run/ng_gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ng_compare.h"
#include "core/ng_context.h"
#include "core/ng_work_rates.h"
#include "history/ng_history_baseline.h"
#include "run/ng_read.h"
#include "util/ng_oom.h"
#include "util/ng_util.h"

/* Every profile of both sides, loaded side by side (ng_read_profiles()):
 * the first failure in order (baseline runs, then current runs) is the
 * one reported. */
static int load_all(struct ng_gate *g, long jobs, struct ng_err *err)
{
    size_t n = g->nb + g->nc;
    struct ng_profile **p = ng_xcalloc(n ? n : 1, sizeof *p);

    for (size_t i = 0; i < n; i++)
        p[i] = i < g->nb ? &g->baseline[i] : &g->current[i - g->nb];
    int ret = ng_read_profiles(&g->read, p, n, jobs, err);
    free(p);
    return ret;
}

/* --ranks: each side's operands expanded and folded into its one run;
 * the current side's when it is the baseline too (a history's start). */
static int load_ranks(struct ng_gate *g, const struct ng_settings *s, int current_twice,
                      struct ng_err *err)
{
    const char *const *ops[2] = { current_twice ? s->currents : s->baselines, s->currents };
    size_t n_ops[2] = { current_twice ? s->n_currents : s->n_baselines, s->n_currents };
    struct ng_profile *runs[2] = { &g->baseline[0], &g->current[0] };
    static const char *const side_names[2] = { "baseline", "current" };
    struct ng_read_side sides[2];
    char **paths[2] = { NULL, NULL };
    size_t n_paths[2] = { 0, 0 }, n_sides = 0;
    int ret = 0;

    for (size_t i = g->nb ? 0 : 1; i < 2 && ret == 0; i++) {
        ret = ng_read_expand(ops[i], n_ops[i], side_names[i], &paths[i], &n_paths[i], err);
        /* --write-summary: the current run's, of all its ranks */
        sides[n_sides++] = (struct ng_read_side){ runs[i], paths[i], n_paths[i],
                                                  i == 1 && s->write_summary };
    }
    if (ret == 0)
        ret = ng_read_ranks(&g->read, sides, n_sides, s->jobs, err);
    for (size_t i = 0; i < 2; i++)
        ng_strv_free(&paths[i], &n_paths[i]);
    return ret;
}

void ng_gate_history_baseline_init(struct ng_history_baseline *w, const struct ng_settings *s)
{
    const struct ng_history_baseline_query q = {
        .path = s->baseline_history,
        .name = s->compare.name,
        .nvtx = s->epoch_range != NULL,
        .metric = s->compare.metric,
        .work = s->compare.work,
        .policy = &s->compare.policy,
        .match = s->history_match,
        .n_match = s->n_history_match,
        .has_since = s->has_history_since,
        .since = s->history_since,
        .size = s->history_window,
        .accept = s->accept,
        .n_accept = s->n_accept,
    };
    ng_history_baseline_init(w, &q);
}

/* A history that is not there yet, or holds no line at all: a nightly's
 * first run, which starts it. */
static int history_starts(const struct ng_history_baseline *w)
{
    struct stat st;
    if (w->error[0])
        return stat(w->path, &st) != 0 && errno == ENOENT;
    return w->verdicts == 0 && w->n_warnings == 0;
}

/* --baseline-history: the runs the batch read for this gate, or the file
 * read here; 1 when the file starts a history (history_starts), -1 with
 * err when it cannot be read or holds no run. */
static int history_window(const struct ng_settings *s, struct ng_history_baseline *own,
                          const struct ng_history_baseline **w, struct ng_err *err)
{
    if (s->window) {
        *w = s->window;
    } else {
        struct ng_history_baseline *one = own;
        ng_gate_history_baseline_init(own, s);
        *w = own;
        (void)ng_history_baseline_read(&one, 1, err);
    }
    if (history_starts(*w))
        return 1;
    return ng_history_baseline_check(*w, err);
}

void ng_gate_run(struct ng_gate *g, const struct ng_settings *s, const struct ng_err *usage_err)
{
    struct ng_err err;
    int ok = usage_err == NULL;
    struct ng_history_baseline own;
    const struct ng_history_baseline *w = NULL;

    memset(g, 0, sizeof *g);
    if (usage_err)
        err = *usage_err;
    g->nb = s->n_baselines;
    g->nc = s->n_currents;
    if (s->ranks) {   /* each side is one run */
        g->nb = g->nb > 0;
        g->nc = 1;
        if (g->nb)
            ng_read_side_init(&g->baseline[0], s->baselines, s->n_baselines);
        ng_read_side_init(&g->current[0], s->currents, s->n_currents);
    } else {
        for (size_t i = 0; i < g->nb; i++)
            ng_profile_init(&g->baseline[i], s->baselines[i]);
        for (size_t i = 0; i < g->nc; i++)
            ng_profile_init(&g->current[i], s->currents[i]);
    }
    if (ok)
        ok = ng_read_setup(&g->read, s, &err) == 0;
    memset(&own, 0, sizeof own);
    int starts = 0;
    if (ok && s->baseline_history && g->nb == 0) {
        starts = history_window(s, &own, &w, &err);
        ok = starts >= 0;
    }
    if (ok && starts == 1) {
        /* nothing to compare with: today against itself passes, and its
         * line (--history) is the first run the next one compares with */
        for (size_t i = 0; i < g->nc; i++)
            ng_profile_init(&g->baseline[i], g->current[i].path);
        g->nb = g->nc;
    }
    if (ok)
        ok = (s->ranks ? load_ranks(g, s, starts == 1, &err) : load_all(g, s->jobs, &err)) == 0;
    if (ok && s->write_summary)
        ok = ng_read_summary_write(&g->read, &g->current[0], s->write_summary, 0, NULL,
                                   &err) == 0;
    if (ok && w && starts == 0) {
        /* today's rows spelled and folded as the history lines' (ng_work_rates) */
        for (size_t i = 0; i < g->nc; i++)
            ng_work_rates_fold(&g->current[i]);
        ng_history_baseline_profiles(w, g->baseline, &g->nb, &s->compare);
    }
    if (ok) {
        ng_oom_doing("comparing '%s' with '%s'", g->baseline[0].path, g->current[0].path);
        ng_compare(&g->verdict, g->baseline, g->nb, g->current, g->nc, &s->compare);
        ng_work_rates_fill(&g->verdict, g->current, g->nc);
        ng_oom_doing(NULL);
    } else {
        ng_read_note_formats(g->baseline, g->nb);
        ng_read_note_formats(g->current, g->nc);
        ng_compare_begin(&g->verdict, g->baseline, g->nb, g->current, g->nc, &s->compare);
        ng_verdict_fail_with(&g->verdict, err.msg);
    }
    if (s->compare.nvtx && s->epochs_given)
        ng_verdict_warn(&g->verdict, "--epochs, --baseline-epochs and --current-epochs are "
                        "not used with --epoch-range: the NVTX ranges are the epochs");
    /* what the exports had to say (e.g. the cache was not used), once */
    for (size_t i = 0; i < ng_read_n_notes(&g->read); i++)
        ng_verdict_warn(&g->verdict, "%s", ng_read_note_at(&g->read, i));
    /* the exports' private files are not needed past the reading */
    ng_read_drop_exports(&g->read);
    g->verdict.verbose = s->verbose;
    g->verdict.fail_inconclusive = s->fail_inconclusive;
    ng_context_collect(&g->verdict.context, s->labels, s->n_labels, NULL, NULL);
    if (s->baseline_history) {
        /* the side is the file, whatever its runs' own paths */
        g->verdict.baseline.path = s->baseline_history;
        g->verdict.baseline.format = NG_FORMAT_HISTORY;
        if (w && w->n_runs)
            ng_history_baseline_describe(w, &g->verdict);
        if (starts == 1 && g->verdict.outcome != NG_OUTCOME_ERROR)
            g->verdict.history.starts = ng_xstrdup(s->compare.name);
    }
    ng_history_baseline_release(&own);
}

void ng_gate_release(struct ng_gate *g)
{
    ng_verdict_release(&g->verdict);
    for (size_t i = 0; i < g->nb; i++)
        ng_profile_release(&g->baseline[i]);
    for (size_t i = 0; i < g->nc; i++)
        ng_profile_release(&g->current[i]);
    ng_read_release(&g->read);
    g->nb = g->nc = 0;
}
