#include "ng_compare.h"

#include <stdio.h>
#include <string.h>

#include "ng_util.h"

const char *ng_outcome_name(enum ng_outcome o)
{
    switch (o) {
    case NG_OUTCOME_PASS: return "pass";
    case NG_OUTCOME_FAIL: return "fail";
    case NG_OUTCOME_INCONCLUSIVE: return "inconclusive";
    case NG_OUTCOME_ERROR: break;
    }
    return "error";
}

int ng_outcome_exit_code(enum ng_outcome o, int fail_inconclusive)
{
    switch (o) {
    case NG_OUTCOME_PASS: return 0;
    case NG_OUTCOME_FAIL: return 1;
    case NG_OUTCOME_INCONCLUSIVE: return fail_inconclusive ? 1 : 0;
    case NG_OUTCOME_ERROR: break;
    }
    return 2;
}

static void side_begin(struct ng_verdict_side *s, const struct ng_profile *p)
{
    memset(s, 0, sizeof *s);
    if (!p)
        return;
    s->path = p->path;
    s->format = p->format;
    s->loaded = p->loaded;
    s->total_ns = p->total_ns;
    s->kernel_count = p->kernel_count;
}

void ng_verdict_begin(struct ng_verdict *v, const struct ng_profile *baseline,
                      const struct ng_profile *current, const struct ng_compare_opts *opts)
{
    memset(v, 0, sizeof *v);
    v->outcome = NG_OUTCOME_ERROR;
    v->name = opts->name;
    v->mode = "total";
    v->threshold = opts->threshold;
    v->epochs = opts->epochs;
    side_begin(&v->baseline, baseline);
    side_begin(&v->current, current);
}

void ng_verdict_fail_with(struct ng_verdict *v, const char *error)
{
    v->outcome = NG_OUTCOME_ERROR;
    snprintf(v->error, sizeof v->error, "%s", error);
    snprintf(v->message, sizeof v->message, "ERROR: %s", error);
}

/* Per-epoch ms exactly as the prototype computes it: total ns as a double,
 * to ms, then divided by the epochs, so the first line matches it to the
 * byte. */
static double per_epoch_ms(int64_t total_ns, long epochs)
{
    return (double)total_ns / 1000000.0 / (double)epochs;
}

void ng_compare(struct ng_verdict *v, const struct ng_profile *baseline,
                const struct ng_profile *current, const struct ng_compare_opts *opts)
{
    char thr[32], summary[256];

    ng_verdict_begin(v, baseline, current, opts);
    if (baseline->total_ns == 0) {
        char msg[NG_ERR_MAX];
        snprintf(msg, sizeof msg,
                 "baseline '%s' has 0 ns of kernel time; no ratio can be formed",
                 baseline->path);
        ng_verdict_fail_with(v, msg);
        return;
    }
    v->baseline.ms_per_epoch = per_epoch_ms(baseline->total_ns, opts->epochs);
    v->current.ms_per_epoch = per_epoch_ms(current->total_ns, opts->epochs);
    v->ratio = v->current.ms_per_epoch / v->baseline.ms_per_epoch;
    v->has_figures = 1;

    ng_fmt_threshold(thr, sizeof thr, opts->threshold);
    snprintf(summary, sizeof summary,
             "baseline=%.1fms/epoch current=%.1fms/epoch ratio=%.3fx (epochs=%ld)",
             v->baseline.ms_per_epoch, v->current.ms_per_epoch, v->ratio, opts->epochs);
    if (v->ratio > opts->threshold) {
        v->outcome = NG_OUTCOME_FAIL;
        snprintf(v->message, sizeof v->message,
                 "FAIL: per-epoch regression %.2fx exceeds %sx threshold | %s", v->ratio, thr,
                 summary);
    } else {
        v->outcome = NG_OUTCOME_PASS;
        snprintf(v->message, sizeof v->message, "PASS: per-epoch within %sx | %s", thr,
                 summary);
    }
}
