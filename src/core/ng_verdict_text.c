#include "core/ng_verdict_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_text.h"
#include "util/ng_util.h"

int ng_verdict_text_wants_details(const struct ng_verdict *v)
{
    if (!v->has_figures)
        return 0;
    return v->outcome == NG_OUTCOME_FAIL || v->outcome == NG_OUTCOME_INCONCLUSIVE || v->verbose;
}

static void side_line(struct ng_buf *out, const char *label, const struct ng_verdict_side *s,
                      const char *unit)
{
    ng_buf_addf(out, "  %s mean %.3f ms/epoch (median %.3f, min %.3f, max %.3f; %zu %s%s)\n",
                label, s->ms_per_epoch, s->median_ms, s->min_ms, s->max_ms, s->n_samples, unit,
                s->n_samples == 1 ? "" : "s");
}

/* Long template names are cut: the line must stay readable in a CI log. */
#define NAME_SHOWN_MAX 160

static int kinds_counted(const struct ng_verdict_side *s)
{
    int n = 0;
    for (int k = 0; k < NG_WORK_KINDS; k++)
        n += s->kind_ns[k] > 0;
    return n;
}

/* "kernel 10.200 ms, graph 3.400 ms": the counted time by kind, per epoch */
static void kinds_text(struct ng_buf *out, const struct ng_verdict_side *s)
{
    const char *sep = "";
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        if (s->kind_ns[k] == 0)
            continue;
        ng_buf_addf(out, "%s%s %.3f ms", sep, ng_work_kind_name((enum ng_work_kind)k),
                    (double)s->kind_ns[k] / 1e6 / s->epochs_counted);
        sep = ", ";
    }
}

/* One line per side and kind of place, when there is more than one: a
 * slow rank or GPU then shows. */
static void places_line(struct ng_buf *out, const char *label, const char *what,
                        const struct ng_place *p, size_t n, double per)
{
    if (n < 2)
        return;
    ng_buf_addf(out, "  %s work per %s:", label, what);
    for (size_t i = 0; i < n; i++)
        ng_buf_addf(out, "%s %lld: %.3f ms/epoch", i ? "," : "", (long long)p[i].id,
                    (double)p[i].ns / 1e6 / per);
    ng_buf_adds(out, "\n");
}

/* "  baseline time per epoch: compute 1.000 ms, communication 0.500 ms
 * (0.100 ms exposed), memory 0.000 ms, idle 0.200 ms" */
int ng_breakdown_text(const struct ng_verdict_side *s, struct ng_buf *out)
{
    if (!s->has_breakdown || !(s->epochs_counted > 0))
        return 0;
    struct ng_breakdown_ms m;
    ng_breakdown_per_epoch(&s->breakdown, s->epochs_counted, &m);
    ng_buf_addf(out, "compute %.3f ms, communication %.3f ms (%.3f ms exposed), memory %.3f ms, "
                "idle %.3f ms", m.compute, m.comm, m.exposed, m.memory, m.idle);
    return 1;
}

static void breakdown_line(struct ng_buf *out, const char *label, const struct ng_verdict_side *s)
{
    struct ng_buf t = NG_BUF_INIT;
    if (ng_breakdown_text(s, &t))
        ng_buf_addf(out, "  %s time per epoch: %s\n", label, t.data);
    ng_buf_release(&t);
}

/* A side's stragglers are in order of kind, then id (ng_stragglers
 * appends the devices, then the processes, each sorted): a binary search,
 * since a crafted profile can have as many stragglers as devices. */
static int has_straggler(const struct ng_verdict_side *s, const struct ng_straggler *g)
{
    size_t lo = 0, hi = s->n_stragglers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct ng_straggler *m = &s->stragglers[mid];
        if (m->kind < g->kind || (m->kind == g->kind && m->id < g->id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_stragglers && s->stragglers[lo].kind == g->kind &&
           s->stragglers[lo].id == g->id;
}

/* The current's stragglers, each said new or not against the baseline's
 * (the warnings name them; this says what changed), and the baseline's
 * that are not any more.  At most 5 lines a side. */
static void straggler_lines(struct ng_buf *out, const struct ng_verdict *v)
{
    const struct ng_verdict_side *b = &v->baseline, *c = &v->current;
    for (size_t i = 0; i < c->n_stragglers && i < 5; i++) {
        const struct ng_straggler *g = &c->stragglers[i];
        ng_buf_addf(out, "  current  straggler %s: %s %lld, %.3f ms/epoch against %.3f ms on the "
                    "others\n", has_straggler(b, g) ? "as in the baseline" : "new (not in the "
                    "baseline)", ng_straggler_word(g->kind), (long long)g->id, g->ms_per_epoch,
                    g->others_ms);
    }
    for (size_t i = 0, n = 0; i < b->n_stragglers && n < 5; i++) {
        const struct ng_straggler *g = &b->stragglers[i];
        if (has_straggler(c, g) || !c->has_places)
            continue;
        ng_buf_addf(out, "  baseline straggler %s %lld (%.3f ms/epoch against %.3f ms) is not "
                    "one in the current\n", ng_straggler_word(g->kind), (long long)g->id,
                    g->ms_per_epoch, g->others_ms);
        n++;
    }
}

static void work_lines(struct ng_buf *out, const struct ng_verdict *v)
{
    const struct ng_verdict_side *b = &v->baseline, *c = &v->current;
    breakdown_line(out, "baseline", b);
    breakdown_line(out, "current ", c);
    if (b->has_overlap && c->has_overlap)
        ng_buf_addf(out, "  work running alongside other work, per epoch: baseline %.3f ms, "
                    "current %.3f ms\n", b->overlap_ms_per_epoch, c->overlap_ms_per_epoch);
    if (kinds_counted(b) > 1 || kinds_counted(c) > 1) {
        ng_buf_adds(out, "  work per epoch: baseline ");
        kinds_text(out, b);
        ng_buf_adds(out, "; current ");
        kinds_text(out, c);
        ng_buf_adds(out, "\n");
    }
    places_line(out, "baseline", "device", b->devices, b->n_devices, b->epochs_counted);
    places_line(out, "current ", "device", c->devices, c->n_devices, c->epochs_counted);
    /* one process a device (a rank a GPU) says nothing the devices do not */
    if (b->n_processes != b->n_devices || c->n_processes != c->n_devices) {
        places_line(out, "baseline", "process", b->processes, b->n_processes, b->epochs_counted);
        places_line(out, "current ", "process", c->processes, c->n_processes, c->epochs_counted);
    }
    straggler_lines(out, v);
}


static void name_line(struct ng_buf *out, const char *name)
{
    size_t len = strlen(name);
    ng_text_clean(out, name, len > NAME_SHOWN_MAX ? NAME_SHOWN_MAX : len,
                  NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_adds(out, len > NAME_SHOWN_MAX ? "...\n" : "\n");
}

const char *ng_count_text(char *buf, size_t size, double n)
{
    snprintf(buf, size, "%.3f", n);
    char *end = buf + strlen(buf);
    while (end > buf && end[-1] == '0')
        *--end = '\0';
    if (end > buf && end[-1] == '.')
        *--end = '\0';
    return buf;
}

/* What --kernels / --exclude-kernels left out, per epoch. */
static void excluded_line(struct ng_buf *out, const struct ng_verdict *v)
{
    const struct ng_verdict_side *b = &v->baseline, *c = &v->current;
    if (b->excluded_launches == 0 && c->excluded_launches == 0)
        return;
    char bn[32], cn[32];
    ng_buf_addf(out, "  left out by the kernel filters, per epoch: baseline %.3f ms (%s "
                     "launches), current %.3f ms (%s launches)\n",
                (double)b->excluded_ns / 1e6 / b->epochs_counted,
                ng_count_text(bn, sizeof bn, (double)b->excluded_launches / b->epochs_counted),
                (double)c->excluded_ns / 1e6 / c->epochs_counted,
                ng_count_text(cn, sizeof cn, (double)c->excluded_launches / c->epochs_counted));
}

/* The items the per-kernel gates did not pass. */
static void gated_lines(struct ng_buf *out, const struct ng_verdict *v)
{
    char kthr[32];
    if (v->n_items_failed + v->n_items_inconclusive == 0)
        return;
    ng_fmt_threshold(kthr, sizeof kthr, v->policy ? v->policy->kernel_threshold : 0);
    ng_buf_addf(out, "  per-kernel gates (past %sx and %.3f ms/epoch):\n", kthr,
                v->kernel_floor_ms);
    for (size_t i = 0; i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        if (!k->gated || k->verdict == NG_OUTCOME_PASS)
            continue;
        ng_buf_addf(out, "    %-12s ", ng_outcome_title(k->verdict));
        ng_verdict_text_item_ratio(out, k);
        ng_buf_addf(out, " %+.3f ms/epoch", k->delta_ms_per_epoch);
        if (k->has_p)
            ng_buf_addf(out, " (p=%.3g, Holm-adjusted %.3g)", k->p_value, k->p_adjusted);
        ng_buf_adds(out, "  ");
        name_line(out, k->name);
    }
}

int ng_verdict_text_only_kernels(const struct ng_verdict *v)
{
    for (size_t i = 0; i < v->n_kernels; i++)
        if (v->kernels[i].kind != NG_WORK_KERNEL)
            return 0;
    return 1;
}

const char *ng_kernel_status_shown(const struct ng_kernel_delta *k)
{
    if (k->status == NG_KERNEL_CHANGED && fabs(k->delta_ms_per_epoch) < 0.0005)
        return "unchanged";
    return ng_kernel_status_name(k->status);
}

/* The nested range groups that changed most (the JSON and the page list
 * them all); none when no range is nested in the epochs. */
static void range_lines(struct ng_buf *out, const struct ng_verdict *v)
{
    if (v->n_ranges == 0)
        return;
    ng_buf_adds(out, "  ranges nested in the epochs by contribution to the change, per epoch:\n");
    for (size_t i = 0; i < v->n_ranges && i < NG_RANGES_SHOWN; i++) {
        const struct ng_range_delta *r = &v->ranges[i];
        ng_buf_addf(out, "    %+.3f ms (%5.1f%%) %.3f -> %.3f ms  ", r->delta_ms_per_epoch,
                    r->share * 100.0, r->baseline_ms_per_epoch, r->current_ms_per_epoch);
        name_line(out, r->name);
    }
    if (v->n_ranges > NG_RANGES_SHOWN)
        ng_buf_addf(out, "    ... and %zu more (the JSON lists them)\n",
                    v->n_ranges - NG_RANGES_SHOWN);
}

void ng_verdict_text_test_name(const struct ng_verdict *v, struct ng_buf *out)
{
    if (v->decision.basis == NG_MEANS_RUNS)
        ng_buf_addf(out, "one-sided t test of the run's mean against %zu past runs' means, "
                         "their spread %.1f%%", v->decision.runs, 100 * v->decision.between_cv);
    else
        ng_buf_addf(out, "one-sided Welch t test of the ratio of means%s%s",
                    v->strata > 1 ? " within clusters" : "",
                    v->decision.log_test ? " and of their logs" : "");
}

void ng_verdict_text_details(const struct ng_verdict *v, struct ng_buf *out)
{
    const char *unit = strcmp(v->mode, "nvtx") == 0 ? "epoch" : "run";

    if (v->has_p) {
        ng_buf_addf(out, "  p=%.3g (", v->p_value);
        ng_verdict_text_test_name(v, out);
        if (v->decision.basis != NG_MEANS_RUNS)
            ng_buf_addf(out, ", %zu vs %zu samples", v->baseline.n_samples, v->current.n_samples);
        ng_buf_addf(out, "; Mann-Whitney U p=%.3g)\n", v->u_p_value);
    }
    if (v->decision.basis == NG_MEANS_MIX)
        ng_buf_addf(out, "  at the baseline's mix of epoch kinds: current %.3f ms/epoch (its own "
                         "mean %.3f), ratio %.3fx (raw %.3fx)\n", v->decision.figure[1],
                    v->current.ms_per_epoch, v->ratio, v->decision.raw_ratio);
    /* epochs correlated enough to matter (the warning's threshold) */
    if (v->has_p && v->decision.inflation >= NG_MEANS_INFLATION_SHOWN)
        ng_buf_addf(out, "  epochs correlated: lag-1 autocorrelation %.2f, each mean's variance "
                         "taken %.1fx larger than for independent epochs\n", v->decision.rho,
                    v->decision.inflation);
    if (v->has_ci)
        ng_buf_addf(out, "  ratio %.3fx, 95%% interval %.3fx .. %.3fx\n", v->ratio,
                    v->ratio_ci[0], v->ratio_ci[1]);
    if (strcmp(v->mode, "nvtx") == 0 && !v->has_p && v->total_outcome == NG_OUTCOME_FAIL &&
        (v->baseline.n_samples < 3 || v->current.n_samples < 3)) {
        /* what would decide: the test, which needs 3 epochs a side */
        ng_buf_addf(out, "  no significance test with %zu/%zu epochs: the ratio alone decided; a "
                    "test needs 3 epochs a side", v->baseline.n_samples, v->current.n_samples);
        if (v->epochs_needed > 3) {
            char thr[32];
            ng_fmt_threshold(thr, sizeof thr, v->threshold);
            ng_buf_addf(out, ", about %.0f to tell %sx at this noise", v->epochs_needed, thr);
        }
        ng_buf_adds(out, "\n");
    }
    /* more epochs tell a test that is not significant, not a shift of the
     * mix or a history too short */
    if (v->outcome == NG_OUTCOME_INCONCLUSIVE && v->epochs_needed > 0 &&
        v->call != NG_MEANS_MIX_SHIFTED && v->call != NG_MEANS_FEW_RUNS) {
        char thr[32];
        ng_fmt_threshold(thr, sizeof thr, v->threshold);
        ng_buf_addf(out, "  need about %.0f epochs a side to tell %sx at this noise\n",
                    v->epochs_needed, thr);
    }
    side_line(out, "baseline", &v->baseline, unit);
    side_line(out, "current ", &v->current, unit);
    work_lines(out, v);
    excluded_line(out, v);
    range_lines(out, v);
    if (v->n_kernels == 0)
        return;
    ng_buf_addf(out, "  %s by contribution to the change, per epoch:\n",
                ng_verdict_text_only_kernels(v) ? "kernels" : "work items");
    for (size_t i = 0; i < v->n_top && i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        char bn[32], cn[32];
        ng_buf_addf(out, "    %+.3f ms (%5.1f%%) %-7s %.3f -> %.3f ms, %s -> %s launches  ",
                    k->delta_ms_per_epoch, k->share * 100.0, ng_kernel_status_shown(k),
                    k->baseline_ms_per_epoch, k->current_ms_per_epoch,
                    ng_count_text(bn, sizeof bn, k->baseline_instances_per_epoch),
                    ng_count_text(cn, sizeof cn, k->current_instances_per_epoch));
        name_line(out, k->name);
    }
    gated_lines(out, v);
}

/* "epochs=10"; with sides of different sizes (NVTX mode, or total mode
 * with --baseline-epochs / --current-epochs), both counts ("epochs=9/10"),
 * since the verdict's epochs is the smaller one. */
static void headline_epochs(const struct ng_verdict *v, struct ng_buf *out)
{
    int nvtx = strcmp(v->mode, "nvtx") == 0;
    if (nvtx && v->baseline.n_samples != v->current.n_samples)
        ng_buf_addf(out, "%zu/%zu", v->baseline.n_samples, v->current.n_samples);
    else if (!nvtx && v->baseline.run_epochs != v->current.run_epochs)
        ng_buf_addf(out, "%ld/%ld", v->baseline.run_epochs, v->current.run_epochs);
    else
        ng_buf_addf(out, "%ld", v->epochs);
}

/* A commit as people quote it: its first 7 characters. */
static void short_commit(struct ng_buf *out, const char *commit)
{
    ng_buf_addf(out, "%.7s", commit);
}

/* The change's first bad commit, short, or its line when it has none. */
static void change_at(struct ng_buf *out, const struct ng_verdict_history_change *c)
{
    if (c->commit)
        short_commit(out, c->commit);
    else
        ng_buf_addf(out, "line %zu", c->line);
}

/* " | baseline: last 10 runs of 'resnet50' on main (4f1c2a7..9b2e4d6)":
 * what a history baseline is, after the figures; with a change point
 * that decided it, " | baseline: 10 runs before the change at d62af1e (not
 * acknowledged)" or "..., since the acknowledged change at d62af1e". */
static void headline_history(const struct ng_verdict *v, struct ng_buf *out)
{
    const struct ng_verdict_history *h = &v->history;

    if (!h->on)
        return;
    if (h->before_change.on) {
        ng_buf_addf(out, " | baseline: %zu run%s before the change at ", h->runs,
                    h->runs == 1 ? "" : "s");
        change_at(out, &h->before_change);
        ng_buf_adds(out, h->before_change.expired ? " (acknowledgement expired)"
                                                  : " (not acknowledged)");
        return;
    }
    if (h->held_out) {
        ng_buf_addf(out, " | baseline: %zu run%s before the %zu failing run%s since ", h->runs,
                    h->runs == 1 ? "" : "s", h->held_out, h->held_out == 1 ? "" : "s");
        if (h->held_commit)
            short_commit(out, h->held_commit);
        else
            ng_buf_addf(out, "line %zu", h->held_line);
        return;
    }
    ng_buf_addf(out, " | baseline: last %zu run%s of '%s'", h->runs, h->runs == 1 ? "" : "s",
                h->name);
    if (h->branch)
        ng_buf_addf(out, " on %s", h->branch);
    else if (h->branches > 1)
        ng_buf_addf(out, " on %zu branches", h->branches);
    if (!h->first.commit || !h->last.commit) {
        ng_buf_adds(out, " (commits not recorded)");
    } else {
        ng_buf_adds(out, " (");
        short_commit(out, h->first.commit);
        if (h->runs > 1) {
            ng_buf_adds(out, "..");
            short_commit(out, h->last.commit);
        }
        ng_buf_adds(out, ")");
    }
    if (h->since_change.on) {
        ng_buf_adds(out, h->since_change.magnitude > 1 ? ", since the acknowledged change at "
                                                       : ", since the improvement at ");
        change_at(out, &h->since_change);
    }
}

#define HEADLINE_NAME_MAX 60

/* The first item the per-kernel gates did not pass with this outcome. */
static const struct ng_kernel_delta *first_item(const struct ng_verdict *v, enum ng_outcome o)
{
    for (size_t i = 0; i < v->n_kernels; i++)
        if (v->kernels[i].gated && v->kernels[i].verdict == o)
            return &v->kernels[i];
    return NULL;
}

void ng_verdict_text_item_ratio(struct ng_buf *out, const struct ng_kernel_delta *k)
{
    if (isfinite(k->ratio))
        ng_buf_addf(out, "%.2fx", k->ratio);
    else
        ng_buf_adds(out, "new");
}

static void short_name(struct ng_buf *out, const char *name)
{
    size_t len = strlen(name);
    ng_buf_add(out, name, len > HEADLINE_NAME_MAX ? HEADLINE_NAME_MAX : len);
    if (len > HEADLINE_NAME_MAX)
        ng_buf_adds(out, "...");
}

int ng_verdict_text_top_contributor(const struct ng_verdict *v, struct ng_buf *out)
{
    if (!v->has_figures || v->n_kernels == 0 || !(v->kernels[0].delta_ms_per_epoch > 0))
        return 0;
    const struct ng_kernel_delta *k = &v->kernels[0];
    ng_buf_adds(out, "top contributor: ");
    short_name(out, k->name);
    ng_buf_addf(out, " %+.3f ms/epoch (%.1f%% of the change)", k->delta_ms_per_epoch,
                k->share * 100.0);
    return 1;
}

/* The total within its threshold, a work item not: the headline names it. */
static void items_headline(const struct ng_verdict *v, struct ng_buf *out)
{
    char kthr[32], alpha[32];
    int failed = v->n_items_failed > 0;
    size_t n = failed ? v->n_items_failed : v->n_items_inconclusive;
    const struct ng_kernel_delta *k = first_item(v, failed ? NG_OUTCOME_FAIL
                                                          : NG_OUTCOME_INCONCLUSIVE);

    ng_fmt_threshold(kthr, sizeof kthr, v->policy ? v->policy->kernel_threshold : 0);
    ng_buf_addf(out, "%s: %zu work item%s %s past the %sx kernel threshold", failed ? "FAIL"
                : "INCONCLUSIVE", n, n == 1 ? "" : "s", failed ? "regressed" : "grew", kthr);
    if (!failed)
        ng_buf_adds(out, " but not significantly");
    ng_buf_adds(out, n == 1 ? " (" : " (first: ");
    if (k) {
        short_name(out, k->name);
        ng_buf_adds(out, " ");
        ng_verdict_text_item_ratio(out, k);
        ng_buf_addf(out, ", %+.3f ms/epoch", k->delta_ms_per_epoch);
        if (!failed) {
            ng_fmt_double(alpha, sizeof alpha, v->alpha);
            ng_buf_addf(out, ", adjusted p=%.3g > alpha=%s", k->p_adjusted, alpha);
        }
    }
    ng_buf_adds(out, ")");
}

/* The figures the ratio is made of: the two means, or the current at the
 * baseline's mix of kinds, or the past runs' mean (ng_means); a verdict
 * read back from a history line has its sides' means. */
static double decided_ms(const struct ng_verdict *v, int side)
{
    if (v->decision.basis != NG_MEANS_EPOCHS)
        return v->decision.figure[side];
    return side ? v->current.ms_per_epoch : v->baseline.ms_per_epoch;
}

static int figure_decimals(double a, double b)
{
    double m = isfinite(a) && a > 0 ? a : b;
    if (isfinite(b) && b > 0 && b < m)
        m = b;
    int d = 1;
    while (d < 6 && isfinite(m) && m > 0 && m * pow(10, d) < 99.95)
        d++;
    return d;
}

/* Byte for byte the Python prototype's line for PASS and FAIL, where one
 * decimal shows three significant figures (10 ms and more); below that the
 * figures get the decimals that show three (figure_decimals). */
static void headline(const struct ng_verdict *v, struct ng_buf *out)
{
    char thr[32], alpha[32];

    if (v->outcome == NG_OUTCOME_ERROR) {
        ng_buf_addf(out, "ERROR: %s", v->error);
        return;
    }
    if (v->history.starts && v->outcome == NG_OUTCOME_PASS) {
        double ms = v->current.ms_per_epoch;
        ng_buf_addf(out, "PASS: no baseline yet: this run starts the history of '%s' | "
                    "current=%.*fms/epoch (epochs=", v->history.starts, figure_decimals(ms, ms),
                    ms);
        headline_epochs(v, out);
        ng_buf_adds(out, ")");
        return;
    }
    ng_fmt_threshold(thr, sizeof thr, v->threshold);
    /* the total within its threshold (or not significant), an item not */
    if ((v->n_items_failed || v->n_items_inconclusive) && v->outcome != NG_OUTCOME_PASS &&
        v->total_outcome != NG_OUTCOME_FAIL && v->outcome != v->total_outcome) {
        items_headline(v, out);
    } else if (v->outcome == NG_OUTCOME_PASS && v->under_floor) {
        char floor[32];
        ng_fmt_double(floor, sizeof floor, v->policy ? v->policy->min_delta_ms : 0);
        ng_buf_addf(out, "PASS: per-epoch ratio %.2fx exceeds %sx threshold but the increase, "
                         "%.3f ms/epoch, is within the %s ms floor", v->ratio, thr,
                    decided_ms(v, 1) - decided_ms(v, 0), floor);
    } else if (v->outcome == NG_OUTCOME_PASS) {
        ng_buf_addf(out, "PASS: per-epoch within %sx", thr);
    } else if (v->outcome == NG_OUTCOME_INCONCLUSIVE && v->call == NG_MEANS_MIX_SHIFTED) {
        ng_buf_addf(out, "INCONCLUSIVE: per-epoch ratio %.2fx at the baseline's mix of epoch "
                         "kinds is within %sx, but the mix changed (p=%.3g) and the job's own "
                         "time per epoch changed %.2fx", v->ratio, thr, v->decision.mix_p,
                    v->decision.raw_ratio);
    } else if (v->outcome == NG_OUTCOME_INCONCLUSIVE && v->call == NG_MEANS_FEW_RUNS) {
        ng_buf_addf(out, "INCONCLUSIVE: per-epoch ratio %.2fx exceeds %sx threshold but %zu past "
                         "run%s cannot tell the spread between runs", v->ratio, thr,
                    v->decision.runs, v->decision.runs == 1 ? "" : "s");
    } else if (v->outcome == NG_OUTCOME_INCONCLUSIVE) {
        ng_fmt_double(alpha, sizeof alpha, v->alpha);
        ng_buf_addf(out, "INCONCLUSIVE: per-epoch ratio %.2fx exceeds %sx threshold but is not "
                         "significant (p=%.3g > alpha=%s)", v->ratio, thr, v->p_value, alpha);
    } else {
        ng_buf_addf(out, "FAIL: per-epoch regression %.2fx exceeds %sx threshold", v->ratio, thr);
    }
    int d = figure_decimals(decided_ms(v, 0), decided_ms(v, 1));
    ng_buf_addf(out, " | baseline=%.*fms/epoch current=%.*fms/epoch ratio=%.3fx (epochs=",
                d, decided_ms(v, 0), d, decided_ms(v, 1), v->ratio);
    headline_epochs(v, out);
    ng_buf_adds(out, ")");
    headline_history(v, out);
}

char *ng_verdict_text_headline_string(const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    headline(v, &b);
    return ng_buf_detach(&b);
}

void ng_verdict_text_headline(const struct ng_verdict *v, int clean, struct ng_buf *out)
{
    char *text = ng_verdict_text_headline_string(v);
    ng_text_clean(out, text, strlen(text), clean);
    free(text);
}

const char *ng_outcome_title(enum ng_outcome o)
{
    static const char *const titles[] = {
        [NG_OUTCOME_PASS] = "PASS",
        [NG_OUTCOME_FAIL] = "FAIL",
        [NG_OUTCOME_INCONCLUSIVE] = "INCONCLUSIVE",
        [NG_OUTCOME_ERROR] = "ERROR",
    };
    return titles[o];
}

void ng_verdict_text_batch_line(const struct ng_verdict_batch *b, struct ng_buf *out)
{
    struct ng_verdict_batch_counts c;

    ng_verdict_batch_count(b, &c);
    ng_buf_addf(out, "%s: %zu gate%s: %zu pass, %zu fail, %zu inconclusive, %zu error",
                ng_outcome_title(c.outcome), b->n, b->n == 1 ? "" : "s",
                c.by_outcome[NG_OUTCOME_PASS], c.by_outcome[NG_OUTCOME_FAIL],
                c.by_outcome[NG_OUTCOME_INCONCLUSIVE], c.by_outcome[NG_OUTCOME_ERROR]);
}

void ng_verdict_text_batch_context(const struct ng_verdict_batch *b, struct ng_context *out)
{
    memset(out, 0, sizeof *out);
    if (b->n == 0)
        return;
    const struct ng_context *first = &b->verdicts[0]->context;
    for (size_t k = 0; k < first->n; k++) {
        const struct ng_context_item *it = &first->items[k];
        size_t i = 1;
        for (; i < b->n; i++) {
            const char *v = ng_context_get(&b->verdicts[i]->context, it->key);
            if (!v || strcmp(v, it->value) != 0)
                break;
        }
        if (i == b->n)
            ng_context_set(out, it->key, it->value);
    }
}

