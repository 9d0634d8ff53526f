#include "core/ng_compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_attribution.h"
#include "core/ng_means.h"
#include "core/ng_stats.h"
#include "util/ng_text.h"
#include "util/ng_util.h"


static void side_begin(struct ng_verdict_side *s, const struct ng_profile *p, size_t n)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return;
    s->runs = ng_xcalloc(n, sizeof *s->runs);
    s->n_runs = n;
    s->path = p[0].path;
    s->format = p[0].format;
    s->loaded = 1;
    s->has_places = 1;
    s->has_breakdown = 1;
    for (size_t i = 0; i < n; i++) {
        s->has_places &= p[i].has_places;
        s->has_breakdown &= p[i].has_breakdown;
        if (ng_breakdown_merge(&s->bd_devices, &s->n_bd_devices, p[i].bd_devices,
                               p[i].n_bd_devices) < 0 ||
            ng_breakdown_add(&s->breakdown, &p[i].breakdown) < 0)
            s->has_breakdown = 0;   /* beyond 64 bits over the runs: not shown */
        const struct ng_profile_origin *o = p[i].origin;
        s->runs[i] = (struct ng_verdict_run){ p[i].path, p[i].format, p[i].loaded,
                                              p[i].total_ns, p[i].launches, p[i].rank,
                                              p[i].world_size, o ? o->name : NULL,
                                              o ? o->hash : NULL, o ? o->size : 0 };
        s->loaded &= p[i].loaded;
        s->total_ns += p[i].total_ns;
        s->kernel_count += p[i].launches;
        s->excluded_ns += p[i].excluded_ns;
        s->excluded_launches += p[i].excluded_launches;
        for (int k = 0; k < NG_WORK_KINDS; k++) {
            s->kind_ns[k] += p[i].kind_ns[k];
            s->kind_launches[k] += p[i].kind_launches[k];
            s->left_out_ns[k] += p[i].left_out_ns[k];
            s->left_out_launches[k] += p[i].left_out_launches[k];
        }
        for (size_t d = 0; d < p[i].n_devices; d++)
            ng_place_owner(ng_profile_add_place(&s->devices, &s->n_devices, p[i].devices[d].id,
                                                p[i].devices[d].ns, p[i].devices[d].launches),
                           p[i].devices[d].owner);
        for (size_t d = 0; d < p[i].n_processes; d++)
            ng_profile_add_process(&s->processes, &s->n_processes, p[i].processes[d].id,
                                   p[i].processes[d].rank, p[i].processes[d].ns,
                                   p[i].processes[d].launches);
    }
}

/* Total mode: what one side's runs each divide by (current: 1 for the
 * current side), the side's own count or the shared one. */
static long side_epochs(const struct ng_compare_opts *o, int current)
{
    long own = current ? o->current_epochs : o->baseline_epochs;
    return own > 0 ? own : o->epochs;
}

void ng_compare_begin(struct ng_verdict *v, const struct ng_profile *baseline, size_t nb,
                      const struct ng_profile *current, size_t nc,
                      const struct ng_compare_opts *opts)
{
    memset(v, 0, sizeof *v);
    v->outcome = NG_OUTCOME_ERROR;
    v->name = opts->name;
    v->mode = opts->nvtx ? "nvtx" : "total";
    v->metric = ng_metric_name(opts->metric);
    ng_work_format(opts->work ? opts->work : NG_WORK_DEFAULT, v->work, sizeof v->work);
    v->threshold = opts->threshold;
    v->alpha = opts->alpha;
    v->policy = &opts->policy;
    v->top = opts->top;
    side_begin(&v->baseline, baseline, nb);
    side_begin(&v->current, current, nc);
    if (!opts->nvtx) {
        v->baseline.run_epochs = side_epochs(opts, 0);
        v->current.run_epochs = side_epochs(opts, 1);
        /* as in NVTX mode: the smaller side's count */
        v->epochs = v->baseline.run_epochs < v->current.run_epochs ? v->baseline.run_epochs
                                                                   : v->current.run_epochs;
    }
}

/* ---- samples ---- */

/* A run's leading epochs far above the rest (ng_means_warmup) are warm-up:
 * left out of the samples, with a warning naming them.  Not for a past run
 * of a history (its samples were kept already) nor with fewer epochs than
 * a warm-up can be told in. */
static size_t warmup_of(struct ng_verdict *v, const struct ng_profile *p, const double *x,
                        size_t n)
{
    if (p->format == NG_FORMAT_HISTORY)
        return 0;
    size_t w = ng_means_warmup(x, n);
    if (w == 0)
        return 0;
    char count[32] = "";
    if (w > 1)
        snprintf(count, sizeof count, "%zu ", w);
    ng_verdict_warn(v, "the first %sepoch%s of '%s' (%.3f ms%s, over %.0fx every later epoch) "
                    "%s left out of the decision as warm-up; --skip-epochs %zu leaves %s out of "
                    "every figure", count, w == 1 ? "" : "s", p->path, x[0],
                    w > 1 ? " the first" : "", NG_MEANS_WARMUP, w == 1 ? "was" : "were",
                    w + p->skipped_epochs, w == 1 ? "it" : "them");
    return w;
}

/* Total mode: each run's measured time (the metric over its counted work;
 * kernel-sum: the kernel total) per epoch, computed exactly as the
 * prototype did (ns as a double, to ms, divided by the epochs), so the
 * first line matches it to the byte.  NVTX mode: every counted epoch but
 * a run's warm-up. */
static void collect_samples(struct ng_verdict *v, struct ng_verdict_side *s,
                            const struct ng_profile *p, size_t n, const struct ng_compare_opts *o)
{
    size_t count = 0;

    for (size_t i = 0; i < n; i++)
        count += o->nvtx ? p[i].n_epochs : 1;
    s->samples = ng_xcalloc(count ? count : 1, sizeof *s->samples);
    s->run_samples = ng_xcalloc(n ? n : 1, sizeof *s->run_samples);
    for (size_t i = 0; i < n; i++) {
        if (!o->nvtx) {
            s->samples[s->n_samples++] = (double)p[i].measured_ns / 1000000.0 /
                                         (double)s->run_epochs;
            s->run_samples[i] = 1;
            continue;
        }
        double *run = s->samples + s->n_samples;
        for (size_t e = 0; e < p[i].n_epochs; e++)
            run[e] = (double)p[i].epochs[e].ns / 1000000.0;
        size_t w = warmup_of(v, &p[i], run, p[i].n_epochs);
        memmove(run, run + w, (p[i].n_epochs - w) * sizeof *run);
        s->warmup += w;
        s->run_samples[i] = p[i].n_epochs - w;
        s->n_samples += p[i].n_epochs - w;
    }
    struct ng_summary sum;
    ng_stats_summary(s->samples, s->n_samples, &sum);
    /* the mean decides: the median of epochs of two kinds lands between
     * them, or on either, as the count of each tips it */
    s->ms_per_epoch = sum.mean;
    s->median_ms = sum.median;
    s->n_clusters = ng_means_clusters(s->samples, s->n_samples, s->clusters);
    s->min_ms = sum.min;
    s->max_ms = sum.max;
    s->mean_ms = sum.mean;
    /* the kernels and the breakdown count the warm-up the samples leave out */
    s->epochs_counted = o->nvtx ? (double)(s->n_samples + s->warmup)
                                : (double)s->run_epochs * (double)n;
    /* lost overlap is what gpu-busy catches: say how much there was */
    if (o->metric == NG_METRIC_GPU_BUSY && s->n_samples > 0) {
        double work = (double)s->total_ns / 1e6 / s->epochs_counted;
        s->has_overlap = 1;
        s->overlap_ms_per_epoch = work > s->mean_ms ? work - s->mean_ms : 0;
    }
}

/* ---- stragglers ---- */

#define STRAGGLERS_WARNED 5

/* The stragglers of one side, each in a warning: devices, and processes
 * when they are not one to one with the devices (ng_straggler.h). */
static void find_stragglers(struct ng_verdict *v, struct ng_verdict_side *s, const char *side,
                            const struct ng_compare_opts *o)
{
    double limit = o->straggler_threshold > 0 ? o->straggler_threshold : NG_STRAGGLER_DEFAULT;
    if (!s->has_places)
        return;
    ng_stragglers(s->devices, s->n_devices, NG_STRAGGLER_DEVICE, s->epochs_counted, limit,
                  &s->stragglers, &s->n_stragglers);
    if (s->n_processes != s->n_devices)
        ng_stragglers(s->processes, s->n_processes, NG_STRAGGLER_PROCESS, s->epochs_counted,
                      limit, &s->stragglers, &s->n_stragglers);
    for (size_t i = 0; i < s->n_stragglers && i < STRAGGLERS_WARNED; i++) {
        const struct ng_straggler *g = &s->stragglers[i];
        char who[96] = "";
        if (g->process >= 0)
            snprintf(who, sizeof who, " (process %" PRId64 ")", g->process);
        else if (g->rank >= 0)
            snprintf(who, sizeof who, " (rank %" PRId64 ")", g->rank);
        ng_verdict_warn(v, "%s %" PRId64 "%s of the %s is a straggler: %.3f ms/epoch against "
                        "%.3f ms on the others (%.3fx, past --straggler-threshold %.2f)",
                        ng_straggler_word(g->kind), g->id, who, side, g->ms_per_epoch,
                        g->others_ms, g->ms_per_epoch / g->others_ms, limit);
    }
    if (s->n_stragglers > STRAGGLERS_WARNED)
        ng_verdict_warn(v, "... and %zu more stragglers of the %s (the JSON lists them)",
                        s->n_stragglers - STRAGGLERS_WARNED, side);
}

/* ng_comparability_warn()'s lines, as the verdict's warnings. */
static void warn_line(void *ctx, const char *text)
{
    ng_verdict_warn(ctx, "%s", text);
}

/* ---- environment ---- */

/* Driver versions: some captures store "470.141.03", others the digits
 * run together as an integer (47014103), some 0.  The digits alone are
 * what both spellings share. */
static void driver_digits(const char *v, char *out, size_t size)
{
    size_t n = 0;
    for (; v && *v && n + 1 < size; v++)
        if (*v >= '0' && *v <= '9')
            out[n++] = *v;
    out[n] = '\0';
}

static int driver_known(const char *v)
{
    char d[64];
    driver_digits(v, d, sizeof d);
    return d[0] && strspn(d, "0") != strlen(d);
}

int ng_driver_same(const char *a, const char *b)
{
    char x[64], y[64];
    driver_digits(a, x, sizeof x);
    driver_digits(b, y, sizeof y);
    return strcmp(x, y) == 0;
}

/* As the user knows it: dotted as stored, or, for the digits-only
 * spelling, the dots put back where NVIDIA's numbering makes them
 * unambiguous (a 3-digit branch, then 2 or 3 digits, then 2). */
void ng_driver_show(const char *v, char *buf, size_t size)
{
    char d[64];
    driver_digits(v, d, sizeof d);
    size_t n = strlen(d);
    if (strchr(v, '.') || n < 5 || n > 8 || n == 6)
        snprintf(buf, size, "%s", v);
    else if (n == 5)
        snprintf(buf, size, "%.3s.%s", d, d + 3);
    else
        snprintf(buf, size, "%.3s.%.*s.%s", d, (int)(n - 5), d + 3, d + n - 2);
}

static int text_same(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

static int text_known(const char *v)
{
    return v && *v;
}

static void text_show(const char *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s", v);
}

/* Different GPU models or drivers on the two sides make the comparison
 * doubtful: say so, without failing; say nothing when a side does not
 * know. */
static void check_machines(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                           const struct ng_profile *c, size_t nc)
{
    static const struct {
        const char *what;
        size_t off;
        int (*known)(const char *);
        int (*same)(const char *, const char *);
        void (*show)(const char *, char *, size_t);
    } fields[] = {
        { "GPU", offsetof(struct ng_profile, gpu), text_known, text_same, text_show },
        { "NVIDIA driver", offsetof(struct ng_profile, driver), driver_known, ng_driver_same,
          ng_driver_show },
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        const char *bv = *(char *const *)((const char *)&b[0] + fields[f].off);
        if (!bv || !fields[f].known(bv))
            continue;
        for (size_t i = 0; i < nc; i++) {
            const char *cv = *(char *const *)((const char *)&c[i] + fields[f].off);
            if (cv && fields[f].known(cv) && !fields[f].same(bv, cv)) {
                char x[256], y[256];
                fields[f].show(bv, x, sizeof x);
                fields[f].show(cv, y, sizeof y);
                ng_verdict_warn(v, "baseline and current ran on different %s (%s vs %s): the "
                                "comparison may be meaningless", fields[f].what, x, y);
                break;
            }
        }
    }
    (void)nb;
}

/* Profiles of two tracers (an nsys export against a torch.profiler
 * trace) can be gated, but their names and timings need not match one
 * for one: say so. */
static void check_tracers(struct ng_verdict *v, const struct ng_profile *b,
                          const struct ng_profile *c, size_t nc)
{
    const char *bt = ng_format_tracer(b[0].format);
    for (size_t i = 0; bt && i < nc; i++) {
        const char *ct = ng_format_tracer(c[i].format);
        if (ct && strcmp(bt, ct) != 0) {
            ng_verdict_warn(v, "baseline and current were recorded by different tracers (%s vs "
                            "%s): kernel names and timings may not match one for one", bt, ct);
            return;
        }
    }
}

/* ---- what was counted, and what was not ---- */

static const char *const kind_plural[NG_WORK_KINDS] = {
    [NG_WORK_KERNEL] = "kernels",
    [NG_WORK_GRAPH] = "whole-graph launches",
    [NG_WORK_MEMCPY] = "memcpy operations",
    [NG_WORK_MEMSET] = "memset operations",
};

/* "the baseline 'b.sqlite'" or "the baseline (3 profiles)" */
static void side_label(struct ng_buf *b, const char *side, const struct ng_verdict_side *s)
{
    if (s->n_runs == 1)
        ng_buf_addf(b, "the %s '%s'", side, s->path);
    else
        ng_buf_addf(b, "the %s (%zu profiles)", side, s->n_runs);
}

static void check_graphs_counted(struct ng_verdict *v, const char *side,
                                 const struct ng_verdict_side *s)
{
    int64_t n = s->kind_launches[NG_WORK_GRAPH];
    struct ng_buf who = NG_BUF_INIT;

    if (n == 0)
        return;
    side_label(&who, side, s);
    ng_verdict_warn(v, "%s has %" PRId64 " whole CUDA graph launch%s (%.3f ms): %s counted, but "
                    "the kernels inside cannot be attributed; `nsys profile "
                    "--cuda-graph-trace=node` records them one by one", who.data, n,
                    n == 1 ? "" : "es", (double)s->kind_ns[NG_WORK_GRAPH] / 1e6,
                    n == 1 ? "it is" : "they are");
    ng_buf_release(&who);
}

/* The "leaves out" warning is for work the user may not know the default
 * leaves out: not when --work was given (the choice was made), nor when the
 * left-out time is under LEFT_OUT_FLOOR of what is counted (a few small
 * copies would make it an annotation on every pull request).  The JSON
 * side's left_out_ms has the figures either way. */
#define LEFT_OUT_FLOOR 0.01

static void check_left_out(struct ng_verdict *v, const char *side, const struct ng_verdict_side *s,
                           int work_given)
{
    struct ng_buf what = NG_BUF_INIT, who = NG_BUF_INIT;
    int64_t memory = s->left_out_ns[NG_WORK_MEMCPY] + s->left_out_ns[NG_WORK_MEMSET];
    int64_t left_out = 0;

    for (int k = 0; k < NG_WORK_KINDS; k++)
        if (s->left_out_launches[k] > 0) {
            ng_buf_addf(&what, "%s%" PRId64 " %s (%.3f ms)", what.len ? ", " : "",
                        s->left_out_launches[k], kind_plural[k], (double)s->left_out_ns[k] / 1e6);
            left_out += s->left_out_ns[k];
        }
    if (what.len) {
        side_label(&who, side, s);
        if (!work_given && (double)left_out >= LEFT_OUT_FLOOR * (double)s->total_ns)
            ng_verdict_warn(v, "--work %s leaves out GPU work %s has: %s", v->work, who.data,
                            what.data);
        if (memory > s->total_ns)
            ng_verdict_warn(v, "most of the GPU time of %s is memory operations (%.3f ms of "
                            "memcpy/memset against %.3f ms counted), which --work %s does not "
                            "count: add memory to --work to gate it", who.data,
                            (double)memory / 1e6, (double)s->total_ns / 1e6, v->work);
    }
    ng_buf_release(&what);
    ng_buf_release(&who);
}

/* How a side traced CUDA graphs: what its work shows, else what the
 * capture recorded; NULL when it cannot tell. */
static const char *graph_trace(const struct ng_profile *p, size_t n)
{
    int64_t whole = 0, nodes = 0;
    const char *recorded = NULL;
    for (size_t i = 0; i < n; i++) {
        whole += p[i].kind_launches[NG_WORK_GRAPH] + p[i].left_out_launches[NG_WORK_GRAPH];
        nodes += p[i].graph_node_kernels;
        if (!recorded)
            recorded = p[i].graph_mode;
    }
    if (whole && nodes)
        return "both whole graphs and graph nodes";
    if (whole)
        return "whole graphs";
    if (nodes)
        return "graph nodes";
    if (recorded && strcmp(recorded, "Graph") == 0)
        return "whole graphs";
    if (recorded && strcmp(recorded, "Node") == 0)
        return "graph nodes";
    return NULL;
}

static int has_graph_work(const struct ng_profile *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].kind_launches[NG_WORK_GRAPH] || p[i].left_out_launches[NG_WORK_GRAPH] ||
            p[i].graph_node_kernels)
            return 1;
    return 0;
}

static void check_graph_modes(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                              const struct ng_profile *c, size_t nc)
{
    if (!has_graph_work(b, nb) && !has_graph_work(c, nc))
        return;
    const char *bm = graph_trace(b, nb), *cm = graph_trace(c, nc);
    if (bm && cm && strcmp(bm, cm) != 0)
        ng_verdict_warn(v, "baseline and current traced CUDA graphs differently (baseline: %s, "
                        "current: %s): graph time moves between graph launches and kernels, so "
                        "the comparison may be meaningless", bm, cm);
}

static void check_work(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                       const struct ng_profile *c, size_t nc, const struct ng_compare_opts *o)
{
    check_graphs_counted(v, "baseline", &v->baseline);
    check_graphs_counted(v, "current", &v->current);
    check_left_out(v, "baseline", &v->baseline, o->work_given);
    check_left_out(v, "current", &v->current, o->work_given);
    check_graph_modes(v, b, nb, c, nc);
}

/* Epochs the source left out, and samples too far apart to be one kind of
 * epoch (a pattern that matches different kinds of ranges): the median
 * of such a mix can land anywhere, so say so. */
#define SPREAD_WARN 10.0

/* What the sources noticed, in profile order. */
static void copy_profile_warnings(struct ng_verdict *v, const struct ng_profile *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].n_warnings; k++)
            ng_verdict_warn(v, "%s", p[i].warnings[k]);
}

/* "the baseline's epochs form 2 clusters (16 epochs near 0.31 ms, 16 near
 * 15.73 ms)": what a pattern matching two kinds of range looks like. */
static void warn_clusters(struct ng_verdict *v, const struct ng_verdict_side *s, const char *side)
{
    struct ng_buf b = NG_BUF_INIT;
    for (size_t i = 0; i < s->n_clusters; i++)
        ng_buf_addf(&b, "%s%zu%s near %.2f ms", i ? ", " : "", s->clusters[i].n,
                    i ? "" : " epochs", s->clusters[i].median);
    ng_verdict_warn(v, "the %s epochs form %zu clusters (%s): the pattern matches ranges of "
                    "different kinds (check --epoch-range); the "
                    "test compares each kind with its own", side, s->n_clusters, b.data);
    ng_buf_release(&b);
}

static void check_samples(struct ng_verdict *v, const struct ng_profile *p, size_t n,
                          const struct ng_verdict_side *s, const char *side,
                          const struct ng_compare_opts *o)
{
    int filtered = o->policy.n_kernels + o->policy.n_exclude > 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].empty_epochs)
            ng_verdict_warn(v, "%zu matching epoch%s of '%s' %s and %s left out",
                            p[i].empty_epochs, p[i].empty_epochs == 1 ? "" : "s", p[i].path,
                            filtered ? "had no work the kernel filters select"
                                     : "launched no kernel",
                            p[i].empty_epochs == 1 ? "was" : "were");
    if (s->n_clusters > 1) {
        warn_clusters(v, s, side);
        return;
    }
    if (s->n_samples >= 2 && s->min_ms > 0 && s->max_ms > SPREAD_WARN * s->min_ms)
        ng_verdict_warn(v, "the %s samples range from %.3f to %.3f ms: ranges this different "
                        "may not be comparable epochs (check --epoch-range)", side, s->min_ms,
                        s->max_ms);
}

/* ---- the policy ---- */

/* The largest work items of every profile, counted or left out: what a
 * pattern that selected nothing could have meant. */
static void largest_items(const struct ng_profile *b, size_t nb, const struct ng_profile *c,
                          size_t nc, struct ng_buf *out)
{
    const struct ng_work_row *top[5] = { NULL };
    for (size_t i = 0; i < nb + nc; i++) {
        const struct ng_profile *p = i < nb ? &b[i] : &c[i - nb];
        for (size_t k = 0; k < p->n_rows + p->n_excluded; k++) {
            const struct ng_work_row *r = k < p->n_rows ? &p->rows[k]
                                                        : &p->excluded[k - p->n_rows];
            int dup = 0;
            for (size_t t = 0; t < 5 && top[t] && !dup; t++)
                dup = strcmp(top[t]->name, r->name) == 0;
            for (size_t t = 0; t < 5 && !dup; t++) {
                if (!top[t] || r->total_ns > top[t]->total_ns) {
                    memmove(&top[t + 1], &top[t], (4 - t) * sizeof top[0]);
                    top[t] = r;
                    break;
                }
            }
        }
    }
    for (size_t t = 0; t < 5 && top[t]; t++) {
        size_t len = strlen(top[t]->name);
        ng_buf_addf(out, "%s'", t ? ", " : "");
        ng_text_clean(out, top[t]->name, len > 80 ? 80 : len, NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_addf(out, "%s'", len > 80 ? "..." : "");
    }
    if (!top[0])
        ng_buf_adds(out, "none");
}

/* A pattern that selects nothing in any profile is a mistake (a typo, a
 * name from another library version): an error that names it. */
static int check_patterns(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                          const struct ng_profile *c, size_t nc, const struct ng_compare_opts *o)
{
    const struct ng_policy *pol = &o->policy;
    for (int excl = 0; excl < 2; excl++) {
        size_t n = excl ? pol->n_exclude : pol->n_kernels;
        for (size_t i = 0; i < n; i++) {
            size_t hits = 0;
            for (size_t k = 0; k < nb + nc; k++) {
                const struct ng_profile *p = k < nb ? &b[k] : &c[k - nb];
                hits += excl ? p->exclude_hits[i] : p->include_hits[i];
            }
            if (hits)
                continue;
            struct ng_buf names = NG_BUF_INIT, msg = NG_BUF_INIT;
            largest_items(b, nb, c, nc, &names);
            char *pat = ng_text_cleaned(excl ? pol->exclude[i] : pol->kernels[i],
                                        NG_TEXT_ESCAPE_CONTROLS);
            ng_buf_addf(&msg, "%s '%s' matches no work item of the baseline or current "
                        "profiles, so it selects nothing; the largest items are: %s",
                        excl ? "--exclude-kernels" : "--kernels", pat, names.data);
            free(pat);
            ng_verdict_fail_with(v, msg.data);
            ng_buf_release(&names);
            ng_buf_release(&msg);
            return -1;
        }
    }
    return 0;
}

/* ---- the decision ---- */

/* The baseline is past runs of a history: each run is one unit. */
static int runs_are_units(const struct ng_verdict_side *b)
{
    return b->n_runs > 0 && b->format == NG_FORMAT_HISTORY;
}

static const char *ci_method(const struct ng_means *m)
{
    return m->basis == NG_MEANS_RUNS ? NG_MEANS_CI_METHOD_RUNS
         : m->strata > 1 ? NG_MEANS_CI_METHOD_STRATA : NG_MEANS_CI_METHOD;
}

/* The test, the interval and the epochs it would need (ng_means), and the
 * U test beside them. */
static void decide_figures(struct ng_verdict *v, const struct ng_compare_opts *o)
{
    const struct ng_verdict_side *b = &v->baseline, *c = &v->current;
    struct ng_means *m = &v->decision;
    struct ng_means_side bs = { b->samples, b->n_samples, b->run_samples, b->n_runs };
    struct ng_means_side cs = { c->samples, c->n_samples, c->run_samples, c->n_runs };

    if (runs_are_units(b)) {
        ng_means_compare_runs(&bs, &cs, m);
    } else {
        ng_means_compare_in(&bs, &cs, o->threshold, o->alpha, m);
        /* the means as the sides' summaries added them up (in sorted
         * order), so every report rounds the one figure */
        if (!m->dropped)
            m->figure[0] = b->ms_per_epoch;
        if (m->basis == NG_MEANS_EPOCHS)
            m->figure[1] = c->ms_per_epoch;
        m->ratio = m->figure[1] / m->figure[0];
        m->raw_ratio = c->ms_per_epoch / b->ms_per_epoch;
    }
    v->ratio = m->ratio;
    v->strata = m->strata;
    if (m->has_test) {
        v->has_ci = 1;
        v->ratio_ci[0] = m->ci_lo;
        v->ratio_ci[1] = m->ci_hi;
        v->ratio_ci_method = ci_method(m);
        v->epochs_needed = m->epochs_needed;
    }
    if (o->alpha > 0 && m->has_test && m->has_p) {
        v->has_p = 1;
        v->p_value = m->p_value;
        v->u_p_value = ng_stats_mwu_greater(b->samples, b->n_samples, c->samples, c->n_samples,
                                            NULL);
    }
}

/* "epochs near 15.73 ms: 30% of the baseline's epochs, 70% of the
 * current's" for each kind, and what the change adds. */
static void warn_mix(struct ng_verdict *v, const struct ng_means *m)
{
    struct ng_buf b = NG_BUF_INIT;
    double n[2] = { 0, 0 };
    for (size_t i = 0; i < m->strata; i++)
        for (int side = 0; side < 2; side++)
            n[side] += (double)m->count[i][side];
    for (size_t i = 0; i < m->strata; i++)
        ng_buf_addf(&b, "%sepochs near %.2f ms: %.0f%% of the baseline's, %.0f%% of the current's",
                    i ? "; " : "", m->kind_median[i],
                    100.0 * (double)m->count[i][0] / n[0], 100.0 * (double)m->count[i][1] / n[1]);
    ng_verdict_warn(v, "the mix of epoch kinds changed (p=%.3g): %s: %+.3f ms/epoch; the ratio "
                    "%.3fx compares each kind at the baseline's mix, the job's own time per "
                    "epoch changed %.3fx", m->mix_p, b.data, m->mix_ms, m->ratio, m->raw_ratio);
    ng_buf_release(&b);
}

/* What the verdict says of the decision's figures: a shift of the mix,
 * epochs that move together, past runs. */
static void warn_decision(struct ng_verdict *v, const struct ng_compare_opts *o)
{
    const struct ng_means *m = &v->decision;
    if (!(o->alpha > 0))
        return;   /* the tests are off: the ratio alone decides */
    if (m->basis == NG_MEANS_MIX && m->mix_p <= o->alpha)
        warn_mix(v, m);
    if (m->inflation >= NG_MEANS_INFLATION_SHOWN)
        ng_verdict_warn(v, "neighbouring epochs move together (lag-1 autocorrelation %.2f): the "
                        "variance of each mean is taken %.1fx larger than for independent "
                        "epochs", m->rho, m->inflation);
}

/* The total's own outcome: over the threshold, over the floor, and (when a
 * test ran) significant.  Exactly at the threshold or the floor passes. */
static void decide_total(struct ng_verdict *v, const struct ng_compare_opts *o)
{
    const struct ng_means *m = &v->decision;
    enum ng_means_call call = ng_means_call(m, o->threshold, o->alpha);
    char alpha[32];

    v->call = call;
    ng_fmt_double(alpha, sizeof alpha, o->alpha);
    if (call == NG_MEANS_WITHIN) {
        v->total_outcome = NG_OUTCOME_PASS;
    } else if (call == NG_MEANS_MIX_SHIFTED) {
        v->total_outcome = NG_OUTCOME_INCONCLUSIVE;   /* warn_mix() said why */
    } else if (o->policy.min_delta_ms > 0 && m->figure[1] - m->figure[0] <= o->policy.min_delta_ms) {
        v->total_outcome = NG_OUTCOME_PASS;
        v->under_floor = 1;
    } else if (call == NG_MEANS_FEW_RUNS) {
        v->total_outcome = NG_OUTCOME_INCONCLUSIVE;
        ng_verdict_warn(v, "the baseline has %zu past run%s: the spread between runs is not "
                        "known until %d, so a ratio past the threshold is inconclusive",
                        m->runs, m->runs == 1 ? "" : "s", NG_MEANS_MIN_TEST);
    } else if (call == NG_MEANS_NOT_SIGNIFICANT) {
        v->total_outcome = NG_OUTCOME_INCONCLUSIVE;
        ng_verdict_warn(v, "the regression is not statistically significant (p=%.3g > "
                        "alpha=%s): more epochs or runs would tell", v->p_value, alpha);
    } else {
        v->total_outcome = NG_OUTCOME_FAIL;
        size_t nb = v->baseline.n_samples, nc = v->current.n_samples;
        char sides[64];
        snprintf(sides, sizeof sides, nb == nc ? "%zu epochs a side" : "%zu/%zu epochs", nb, nc);
        if (o->nvtx && !v->has_p && o->alpha > 0)   /* too few epochs for the test */
            ng_verdict_warn(v, "%s: no significance test; this FAIL rests on the ratio alone "
                            "(a test needs %d epochs a side)", sides, NG_MEANS_MIN_TEST);
    }
}

/* Current much faster than the baseline: the baseline has gone stale,
 * and a later regression would be measured from the old level. */
static void check_stale(struct ng_verdict *v, const struct ng_compare_opts *o)
{
    if (!(v->ratio * o->threshold < 1))
        return;
    double p = -1;
    if (v->has_p) {   /* the same test, the other way */
        p = 1 - v->p_value;
        if (p > o->alpha)
            return;
    }
    char thr[32], sig[64] = "";
    ng_fmt_threshold(thr, sizeof thr, o->threshold);
    if (p >= 0)
        snprintf(sig, sizeof sig, ", p=%.3g", p);
    v->stale_baseline = 1;
    ng_verdict_warn(v, NG_STALE_WARNING ": current is %.2fx faster (%.3f -> %.3f "
                    "ms/epoch%s), past the %sx threshold; a later regression will be measured "
                    "from the old level: refresh the baseline%s, unless the two are swapped "
                    "(the baseline comes first: nsys-gate BASELINE CURRENT)", 1 / v->ratio,
                    v->baseline.ms_per_epoch, v->current.ms_per_epoch, sig, thr,
                    o->policy.fail_on_improvement ? " (--fail-on-improvement: exit 1)" : "");
}

void ng_compare(struct ng_verdict *v, const struct ng_profile *baseline, size_t nb,
                const struct ng_profile *current, size_t nc, const struct ng_compare_opts *opts)
{
    ng_compare_begin(v, baseline, nb, current, nc, opts);
    if (nb == 0 || nc == 0) {
        ng_verdict_fail_with(v, nb == 0 ? "no baseline profile to compare"
                                        : "no current profile to compare");
        return;
    }
    copy_profile_warnings(v, baseline, nb);
    copy_profile_warnings(v, current, nc);
    check_machines(v, baseline, nb, current, nc);
    check_tracers(v, baseline, current, nc);
    check_work(v, baseline, nb, current, nc, opts);
    /* before the samples: a pattern that selects nothing empties every
     * epoch, and the error says why better than a warning per epoch */
    if (check_patterns(v, baseline, nb, current, nc, opts) < 0)
        return;
    collect_samples(v, &v->baseline, baseline, nb, opts);
    collect_samples(v, &v->current, current, nc, opts);
    if (opts->nvtx) {
        v->epochs = (long)(v->baseline.n_samples < v->current.n_samples
                               ? v->baseline.n_samples : v->current.n_samples);
        check_samples(v, baseline, nb, &v->baseline, "baseline", opts);
        check_samples(v, current, nc, &v->current, "current", opts);
    }
    for (int side = 0; side < 2; side++) {
        const struct ng_verdict_side *sd = side ? &v->current : &v->baseline;
        if (sd->n_samples > 0)
            continue;
        char msg[NG_ERR_MAX];
        snprintf(msg, sizeof msg, "%s '%s' has no epoch with counted GPU work%s",
                 side ? "current" : "baseline", sd->path,
                 sd->excluded_ns > 0 ? " (the kernel filters left out all of it)" : "");
        ng_verdict_fail_with(v, msg);
        return;
    }
    if (v->baseline.ms_per_epoch == 0) {
        char msg[NG_ERR_MAX];
        snprintf(msg, sizeof msg,
                 "baseline '%s' has 0 ns of %s per epoch%s; no ratio can be formed",
                 v->baseline.path, ng_metric_info(opts->metric)->noun,
                 v->baseline.excluded_ns > 0 && v->baseline.total_ns == 0
                                   ? " (the kernel filters left out all of it)" : "");
        ng_verdict_fail_with(v, msg);
        return;
    }
    v->has_figures = 1;
    find_stragglers(v, &v->baseline, "baseline", opts);
    find_stragglers(v, &v->current, "current", opts);
    decide_figures(v, opts);
    warn_decision(v, opts);
    v->kernel_floor_ms = opts->policy.kernel_min_delta_ms >= 0
                         ? opts->policy.kernel_min_delta_ms
                         : NG_KERNEL_FLOOR_SHARE * v->baseline.ms_per_epoch;
    const struct ng_attribution_opts attr = { opts->nvtx, opts->top, opts->alpha,
                                              opts->policy.kernel_threshold };
    ng_attribution_fill(v, baseline, nb, current, nc, &attr);
    ng_comparability_warn(&v->comparability, opts->nvtx, v->baseline.path, v->current.path,
                          warn_line, v);
    /* the human headline is the reporters' (ng_verdict_text_headline), from these fields */
    decide_total(v, opts);
    check_stale(v, opts);
    v->outcome = v->total_outcome;
    if (v->n_items_failed)
        v->outcome = NG_OUTCOME_FAIL;
    else if (v->n_items_inconclusive && v->outcome == NG_OUTCOME_PASS)
        v->outcome = NG_OUTCOME_INCONCLUSIVE;
}
