/* The metrics reporter (--metrics): OpenMetrics text, one gauge family per
 * figure, one sample per gate, labelled name="<--name>", ending "# EOF".
 * Read by Prometheus' node_exporter textfile collector (written atomically,
 * so it never sees half a file), by GitLab's metrics report, and by any
 * OpenMetrics parser.
 *
 * Decisions, all for those three readers:
 * - Prometheus's naming rules, which `promtool check metrics` enforces:
 *   base units with the unit as the suffix, so GPU time per epoch is in
 *   seconds (nsys_gate_baseline_epoch_gpu_time_seconds; until 0.1.0 it was
 *   nsys_gate_baseline_ms_per_epoch, which promtool refuses: "metric names
 *   should not contain abbreviated units").
 * - Fixed precision (%.6f; seconds %.9f, to the nanosecond the profiles
 *   count in; the p-value %.6e, as it spans many decades): GitLab compares
 *   values as strings, so the same figure must always print the same.
 * - An unknown figure (a gate that errored has no ratio) is left out, not
 *   written as NaN: NaN is legal OpenMetrics, but it poisons every
 *   aggregation over the series, and GitLab would show "NaN" as a change.
 *   A family with no known sample is left out whole.  nsys_gate_pass is
 *   always there (0 on ERROR), so a dashboard still sees the gate.
 * - Label values escape \ " and newline as OpenMetrics says; other control
 *   characters become visible \xNN text.  GitLab's parser cuts every line
 *   at its first '#', quotes or not, so a '#' in a name would cut the
 *   sample off: '#' is written as %23, and '%' as %25 so the name can
 *   still be recovered by percent-decoding. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reporters/ng_reporter.h"
#include "util/ng_text.h"

enum value_kind { FIXED, SECONDS, SCIENTIFIC, INTEGER };

struct family {
    const char *name;
    const char *help;
    enum value_kind kind;
    /* 1 and *out when the verdict knows this figure */
    int (*get)(const struct ng_verdict *v, double *out);
};

static int get_pass(const struct ng_verdict *v, double *out)
{
    *out = ng_verdict_exit_code(v) == 0 ? 1 : 0;
    return 1;
}

static int get_ratio(const struct ng_verdict *v, double *out)
{
    *out = v->ratio;
    return v->has_figures;
}

static int get_baseline(const struct ng_verdict *v, double *out)
{
    *out = v->baseline.ms_per_epoch / 1000.0;
    return v->has_figures;
}

static int get_current(const struct ng_verdict *v, double *out)
{
    *out = v->current.ms_per_epoch / 1000.0;
    return v->has_figures;
}

static int get_threshold(const struct ng_verdict *v, double *out)
{
    *out = v->threshold;
    return v->threshold > 0;
}

static int get_epochs(const struct ng_verdict *v, double *out)
{
    *out = (double)v->epochs;
    return v->epochs > 0;
}

static int get_p(const struct ng_verdict *v, double *out)
{
    *out = v->p_value;
    return v->has_p;
}

static const struct family families[] = {
    { "nsys_gate_pass",
      "1 when the gate passed (INCONCLUSIVE passes unless --fail-inconclusive), else 0.",
      INTEGER, get_pass },
    { "nsys_gate_ratio", "Current over baseline GPU time per epoch (ratio of means).", FIXED,
      get_ratio },
    { "nsys_gate_baseline_epoch_gpu_time_seconds",
      "Baseline GPU time per epoch in seconds (mean).", SECONDS, get_baseline },
    { "nsys_gate_current_epoch_gpu_time_seconds",
      "Current GPU time per epoch in seconds (mean).", SECONDS, get_current },
    { "nsys_gate_threshold", "Largest current/baseline ratio that passes.", FIXED,
      get_threshold },
    { "nsys_gate_epochs", "Epochs per side the ratio is based on.", INTEGER, get_epochs },
    { "nsys_gate_p_value",
      "One-sided Mann-Whitney U test p-value (only when the test ran).", SCIENTIFIC, get_p },
};

static int known(const struct family *f, const struct ng_verdict *v, double *out)
{
    return f->get(v, out) && isfinite(*out);
}

static void add_label_value(struct ng_buf *out, const char *name)
{
    struct ng_buf clean = NG_BUF_INIT;

    ng_text_clean(&clean, name, strlen(name), NG_TEXT_ESCAPE_CONTROLS | NG_TEXT_KEEP_NEWLINES);
    for (size_t i = 0; i < clean.len; i++) {
        switch (clean.data[i]) {
        case '\\': ng_buf_adds(out, "\\\\"); break;
        case '"': ng_buf_adds(out, "\\\""); break;
        case '\n': ng_buf_adds(out, "\\n"); break;
        case '#': ng_buf_adds(out, "%23"); break;
        case '%': ng_buf_adds(out, "%25"); break;
        default: ng_buf_add(out, &clean.data[i], 1);
        }
    }
    ng_buf_release(&clean);
}

static void add_sample(struct ng_buf *out, const struct family *f, const char *name, double x)
{
    ng_buf_addf(out, "%s{name=\"", f->name);
    add_label_value(out, name);
    switch (f->kind) {
    case FIXED: ng_buf_addf(out, "\"} %.6f\n", x); break;
    case SECONDS: ng_buf_addf(out, "\"} %.9f\n", x); break;
    case SCIENTIFIC: ng_buf_addf(out, "\"} %.6e\n", x); break;
    case INTEGER: ng_buf_addf(out, "\"} %.0f\n", x); break;
    }
}

static int metrics_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                                struct ng_err *err)
{
    (void)err;
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++) {
        const struct family *f = &families[k];
        int header = 0;
        for (size_t i = 0; i < b->n; i++) {
            double x;
            if (!known(f, b->verdicts[i], &x))
                continue;
            if (!header++)
                ng_buf_addf(out, "# HELP %s %s\n# TYPE %s gauge\n", f->name, f->help, f->name);
            add_sample(out, f, b->verdicts[i]->name, x);
        }
    }
    ng_buf_adds(out, "# EOF\n");
    return 0;
}

const struct ng_reporter ng_reporter_metrics = {
    .name = "metrics",
    .render_batch = metrics_render_batch,
};
