#include "ng_report.h"

#include <stdio.h>
#include <string.h>

#include "ng_reporter.h"
#include "ng_util.h"

static const struct ng_reporter *const reporters[] = {
    &ng_reporter_human,
    &ng_reporter_json,
    &ng_reporter_junit,
    NULL,
};

static const struct ng_reporter *find(const char *name)
{
    for (size_t i = 0; reporters[i]; i++)
        if (strcmp(reporters[i]->name, name) == 0)
            return reporters[i];
    return NULL;
}

int ng_report_wants_details(const struct ng_verdict *v)
{
    if (!v->has_figures)
        return 0;
    return v->outcome == NG_OUTCOME_FAIL || v->outcome == NG_OUTCOME_INCONCLUSIVE || v->verbose;
}

static void side_line(struct ng_buf *out, const char *label, const struct ng_verdict_side *s,
                      const char *unit)
{
    ng_buf_addf(out, "  %s median %.3f ms/epoch (min %.3f, max %.3f, mean %.3f; %zu %s%s)\n",
                label, s->ms_per_epoch, s->min_ms, s->max_ms, s->mean_ms, s->n_samples, unit,
                s->n_samples == 1 ? "" : "s");
}

/* Long template names are cut: the line must stay readable in a CI log. */
#define NAME_SHOWN_MAX 160

void ng_report_details(const struct ng_verdict *v, struct ng_buf *out)
{
    const char *unit = strcmp(v->mode, "nvtx") == 0 ? "epoch" : "run";

    if (v->has_p)
        ng_buf_addf(out, "  p=%.3g (one-sided Mann-Whitney U test, %zu vs %zu samples)\n",
                    v->p_value, v->baseline.n_samples, v->current.n_samples);
    side_line(out, "baseline", &v->baseline, unit);
    side_line(out, "current ", &v->current, unit);
    if (v->n_kernels == 0)
        return;
    ng_buf_adds(out, "  kernels by contribution to the change, per epoch:\n");
    for (size_t i = 0; i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        size_t len = strlen(k->name);
        ng_buf_addf(out, "    %+.3f ms (%5.1f%%) %-7s %.3f -> %.3f ms, %.1f -> %.1f launches  ",
                    k->delta_ms_per_epoch, k->share * 100.0, ng_kernel_status_name(k->status),
                    k->baseline_ms_per_epoch, k->current_ms_per_epoch,
                    k->baseline_instances_per_epoch, k->current_instances_per_epoch);
        ng_text_clean(out, k->name, len > NAME_SHOWN_MAX ? NAME_SHOWN_MAX : len,
                      NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_adds(out, len > NAME_SHOWN_MAX ? "...\n" : "\n");
    }
}

int ng_report_known(const char *format)
{
    return find(format) != NULL;
}

int ng_report_render(const char *format, const struct ng_verdict *v, struct ng_buf *out,
                     struct ng_err *err)
{
    const struct ng_reporter *r = find(format);
    if (!r)
        return ng_err_set(err, "no reporter named '%s'", format);
    return r->render(v, out, err);
}

static int write_one(const struct ng_verdict *v, const struct ng_report_request *q,
                     struct ng_err *err)
{
    struct ng_buf out = NG_BUF_INIT;
    int ret = ng_report_render(q->format, v, &out, err);

    if (ret == 0 && out.len > 0) {
        switch (q->dest) {
        case NG_DEST_FILE:
            ret = ng_write_file_atomic(q->path, out.data, out.len, err);
            if (ret < 0 && q->origin)
                ng_err_prefix(err, "%s", q->origin);
            break;
        case NG_DEST_STDOUT:
        case NG_DEST_STDERR: {
            FILE *f = q->dest == NG_DEST_STDOUT ? stdout : stderr;
            if (fwrite(out.data, 1, out.len, f) != out.len || fflush(f) != 0)
                ret = ng_err_set(err, "unable to write the %s report to %s", q->format,
                                 q->dest == NG_DEST_STDOUT ? "standard output"
                                                           : "standard error");
            break;
        }
        }
    }
    ng_buf_release(&out);
    return ret;
}

int ng_report_write_all(const struct ng_verdict *v, const struct ng_report_request *reqs,
                        size_t n, struct ng_err *err)
{
    int ret = 0;

    for (size_t i = 0; i < n; i++) {
        struct ng_err one;
        if (write_one(v, &reqs[i], &one) < 0) {
            if (ret == 0)
                *err = one;
            ret = -1;
        }
    }
    return ret;
}
