#include "run/ng_gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ng_compare.h"
#include "core/ng_context.h"
#include "core/ng_nvtx.h"
#include "core/ng_work_rates.h"
#include "history/ng_history_baseline.h"
#include "sources/ng_source.h"
#include "sources/nsysrep/ng_export_slots.h"
#include "sources/nsysrep/ng_exports.h"
#include "util/ng_oom.h"
#include "util/ng_threads.h"
#include "util/ng_util.h"

/* epoch 3, epoch=3, Epoch_3, EPOCH: 3, epoch-3, Epoch 3/10, epoch_3-rank_1:
 * the number is the group, so the ranks of one epoch add up. */
const char ng_gate_auto_epoch_pattern[] =
    "^[[:space:]]*epoch[[:space:]]*[:=_-]?[[:space:]]*([0-9]+)"
    "([[:space:]]*/[[:space:]]*[0-9]+)?"
    "([[:space:]]*[-_,:]?[[:space:]]*rank[[:space:]]*[:=_-]?[[:space:]]*[0-9]+)?[[:space:]]*$";

static int compile_pattern(struct ng_gate *g, const char *pattern, struct ng_err *err)
{
    const char *re = strcmp(pattern, "auto") == 0 ? ng_gate_auto_epoch_pattern : pattern;
    if (ng_regex_compile(&g->epoch_re, re, REG_ICASE, NG_NVTX_TEXT_MAX, "--epoch-range",
                         err) < 0)
        return -1;
    g->have_re = 1;
    return 0;
}

/* A profile that was never read still gets its kind, for the reports. */
static void note_formats(struct ng_profile *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct ng_err ignored;
        if (!p[i].loaded && p[i].format == NG_FORMAT_UNKNOWN)
            (void)ng_source_detect(p[i].path, &p[i].format, &ignored);
    }
}

/* Every profile of both sides, loaded side by side: up to --jobs at once
 * (one per processor by default, ng_threads), so .nsys-rep operands are
 * exported in parallel, within the run's export slots (ng_export_slots:
 * the memory bound, and across a batch's gates).  Operands naming one
 * report share its export (ng_exports).  A job is one profile with its
 * own error; the first failure in order (baseline runs, then current runs)
 * is the one reported, as if loaded one by one. */
struct loading {
    struct ng_profile **p;
    const struct ng_source_opts *opts;
};

int ng_gate_slots_setup(long jobs, const char *const *paths, size_t n, int shared)
{
    uint64_t largest = 0;
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        enum ng_format f;
        struct ng_err ignored;
        struct stat st;
        if (ng_source_detect(paths[i], &f, &ignored) == 0 && f == NG_FORMAT_NSYS_REP &&
            stat(paths[i], &st) == 0) {
            any = 1;
            if ((uint64_t)st.st_size > largest)
                largest = (uint64_t)st.st_size;
        }
    }
    return any ? ng_export_slots_setup(ng_export_slots_count(jobs, largest), shared) : 0;
}

static int load_one(void *ctx, size_t i, struct ng_err *err)
{
    struct loading *l = ctx;

    ng_oom_doing("reading '%s'", l->p[i]->path);   /* named if memory runs out */
    int rc = ng_source_load(l->p[i], l->opts, err);
    ng_oom_doing(NULL);
    return rc;
}

static int load_all(struct ng_gate *g, const struct ng_source_opts *o, long jobs,
                    struct ng_err *err)
{
    size_t n = g->nb + g->nc;
    struct ng_profile **p = ng_xcalloc(n ? n : 1, sizeof *p);
    const char **paths = ng_xcalloc(n ? n : 1, sizeof *paths);
    struct ng_source_opts opts = *o;
    struct loading l = { p, &opts };

    for (size_t i = 0; i < n; i++) {
        p[i] = i < g->nb ? &g->baseline[i] : &g->current[i - g->nb];
        paths[i] = p[i]->path;
    }
    /* a batch's gate finds the batch's slots there already */
    int made_slots = ng_gate_slots_setup(jobs, paths, n, 0) == 1;
    free(paths);
    opts.exports = g->exports = ng_exports_new();
    int ret = ng_threads_run(jobs, n, load_one, &l, err);
    if (made_slots)
        ng_export_slots_teardown();
    free(p);
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
    for (size_t i = 0; i < g->nb; i++)
        ng_profile_init(&g->baseline[i], s->baselines[i]);
    for (size_t i = 0; i < g->nc; i++)
        ng_profile_init(&g->current[i], s->currents[i]);
    if (ok && s->epoch_range)
        ok = compile_pattern(g, s->epoch_range, &err) == 0;
    const struct ng_policy *pol = &s->compare.policy;
    if (ok && (pol->n_kernels || pol->n_exclude)) {
        ok = ng_filter_init(&g->filter, pol->kernels, pol->n_kernels, pol->exclude,
                            pol->n_exclude, &err) == 0;
        g->have_filter = ok;
    }
    if (ok) {
        ok = ng_comm_init(&g->comm, pol->comm, pol->n_comm, &err) == 0;
        g->have_comm = ok;
    }

    struct ng_source_opts src = {
        .nsys = s->nsys,
        .work = s->compare.work,
        .nsys_timeout = s->nsys_timeout,
        .epoch_re = g->have_re ? &g->epoch_re : NULL,
        .epoch_pattern = s->epoch_range,
        .metric = s->compare.metric,
        .skip_epochs = s->compare.skip_epochs,
        .cache = s->cache.dir ? &s->cache : NULL,
        .filter = g->have_filter ? &g->filter : NULL,
        .comm = g->have_comm ? &g->comm : NULL,
        .base_names = pol->base_names,
        .item_samples = s->compare.nvtx && pol->kernel_threshold > 0,
        .sql_only = s->sql_only,
    };
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
            ng_profile_init(&g->baseline[i], s->currents[i]);
        g->nb = g->nc;
    }
    ok = ok && load_all(g, &src, s->jobs, &err) == 0;
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
        note_formats(g->baseline, g->nb);
        note_formats(g->current, g->nc);
        ng_compare_begin(&g->verdict, g->baseline, g->nb, g->current, g->nc, &s->compare);
        ng_verdict_fail_with(&g->verdict, err.msg);
    }
    if (s->compare.nvtx && s->epochs_given)
        ng_verdict_warn(&g->verdict, "--epochs, --baseline-epochs and --current-epochs are "
                        "not used with --epoch-range: the NVTX ranges are the epochs");
    /* what the exports had to say (e.g. the cache was not used), once */
    for (size_t i = 0; i < ng_exports_n_notes(g->exports); i++)
        ng_verdict_warn(&g->verdict, "%s", ng_exports_note_at(g->exports, i));
    /* the exports' private files are not needed past the reading */
    ng_exports_free(g->exports);
    g->exports = NULL;
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
    if (g->have_re)
        ng_regex_release(&g->epoch_re);
    if (g->have_filter)
        ng_filter_release(&g->filter);
    g->have_filter = 0;
    if (g->have_comm)
        ng_comm_release(&g->comm);
    g->have_comm = 0;
    g->nb = g->nc = 0;
    g->have_re = 0;
}
