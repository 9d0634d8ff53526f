#include "core/ng_verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_oom.h"
#include "util/ng_util.h"

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

const char *ng_kernel_status_name(enum ng_kernel_status s)
{
    switch (s) {
    case NG_KERNEL_NEW: return "new";
    case NG_KERNEL_GONE: return "gone";
    case NG_KERNEL_CHANGED: break;
    }
    return "changed";
}

int ng_verdict_exit_code(const struct ng_verdict *v)
{
    int code = ng_outcome_exit_code(v->outcome, v->fail_inconclusive);
    if (code == 0 && v->stale_baseline && v->policy && v->policy->fail_on_improvement)
        return 1;
    return code;
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

void ng_verdict_warn(struct ng_verdict *v, const char *fmt, ...)
{
    struct ng_buf b = NG_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    ng_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    /* the same profile on both sides (or twice on one) says it once */
    for (size_t i = 0; i < v->n_warnings; i++) {
        if (strcmp(v->warnings[i], b.data ? b.data : "") == 0) {
            ng_buf_release(&b);
            return;
        }
    }
    ng_strv_push(&v->warnings, &v->n_warnings, ng_buf_detach(&b));
}

void ng_verdict_release(struct ng_verdict *v)
{
    free(v->baseline.runs);
    free(v->current.runs);
    free(v->baseline.samples);
    free(v->current.samples);
    free(v->baseline.run_samples);
    free(v->current.run_samples);
    free(v->baseline.devices);
    free(v->current.devices);
    free(v->baseline.bd_devices);
    free(v->current.bd_devices);
    v->baseline.bd_devices = v->current.bd_devices = NULL;
    free(v->baseline.processes);
    free(v->current.processes);
    free(v->baseline.stragglers);
    free(v->current.stragglers);
    v->baseline.stragglers = v->current.stragglers = NULL;
    v->baseline.n_stragglers = v->current.n_stragglers = 0;
    v->baseline.devices = v->current.devices = NULL;
    v->baseline.processes = v->current.processes = NULL;
    free(v->kernels);
    for (size_t i = 0; i < v->n_ranges; i++)
        free(v->ranges[i].name);
    free(v->ranges);
    v->ranges = NULL;
    v->n_ranges = 0;
    v->has_ranges = 0;
    free(v->rows);
    v->rows = NULL;
    v->n_rows = 0;
    v->has_rows = 0;
    ng_strv_free(&v->warnings, &v->n_warnings);
    ng_context_release(&v->context);
    ng_verdict_history_release(&v->history);
    v->baseline.runs = v->current.runs = NULL;
    v->baseline.samples = v->current.samples = NULL;
    v->baseline.run_samples = v->current.run_samples = NULL;
    v->kernels = NULL;
    v->warnings = NULL;
    v->n_kernels = v->n_warnings = 0;
}

void ng_verdict_fail_with(struct ng_verdict *v, const char *error)
{
    v->outcome = NG_OUTCOME_ERROR;
    v->has_figures = 0;
    snprintf(v->error, sizeof v->error, "%s", error);
}

int ng_kernel_delta_by_current(const void *a, const void *b)
{
    const struct ng_kernel_delta *x = *(const struct ng_kernel_delta *const *)a;
    const struct ng_kernel_delta *y = *(const struct ng_kernel_delta *const *)b;
    if (x->current_ms_per_epoch != y->current_ms_per_epoch)
        return x->current_ms_per_epoch > y->current_ms_per_epoch ? -1 : 1;
    return x < y ? -1 : x > y;
}

void ng_verdict_history_release(struct ng_verdict_history *h)
{
    free(h->path);
    free(h->name);
    free(h->branch);
    free(h->first.commit);
    free(h->last.commit);
    free(h->before_change.commit);
    free(h->since_change.commit);
    free(h->held_commit);
    free(h->crept_commit);
    free(h->starts);
    ng_context_release(&h->match);
    memset(h, 0, sizeof *h);
}

void ng_verdict_batch_count(const struct ng_verdict_batch *b, struct ng_verdict_batch_counts *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < b->n; i++) {
        const struct ng_verdict *v = b->verdicts[i];
        int code = ng_verdict_exit_code(v);
        c->by_outcome[v->outcome]++;
        if (code > c->exit_code)
            c->exit_code = code;
    }
    if (c->exit_code == 2)
        c->outcome = NG_OUTCOME_ERROR;
    else if (c->exit_code == 1)
        c->outcome = NG_OUTCOME_FAIL;
    else if (c->by_outcome[NG_OUTCOME_INCONCLUSIVE] > 0)
        c->outcome = NG_OUTCOME_INCONCLUSIVE;
    else
        c->outcome = NG_OUTCOME_PASS;
}
