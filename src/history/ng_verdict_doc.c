#include "history/ng_verdict_doc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/ng_context.h"
#include "core/ng_work_rates.h"
#include "util/ng_json_scan.h"
#include "util/ng_oom.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

static const char *keep(struct ng_verdict_doc *d, const char *s)
{
    if (!s)
        return NULL;
    d->strings = ng_xrealloc(d->strings, (d->n_strings + 1) * sizeof *d->strings);
    return d->strings[d->n_strings++] = ng_xstrdup(s);
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

static const char *str_or_empty(const cJSON *o, const char *key)
{
    const char *s = get_str(o, key);
    return s ? s : "";
}

/* 1 and *out when the member is a number; 0 when null or missing. */
static int get_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it))
        return 0;
    *out = it->valuedouble;
    return 1;
}

static double num_or_0(const cJSON *o, const char *key)
{
    double v = 0;
    (void)get_num(o, key, &v);
    return v;
}

static enum ng_format format_of(const char *name)
{
    for (int f = NG_FORMAT_UNKNOWN; f <= NG_FORMAT_LAST; f++)
        if (name && strcmp(name, ng_format_name((enum ng_format)f)) == 0)
            return (enum ng_format)f;
    return NG_FORMAT_UNKNOWN;
}

static int outcome_of(const char *name, enum ng_outcome *o)
{
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++) {
        if (name && strcmp(name, ng_outcome_name((enum ng_outcome)k)) == 0) {
            *o = (enum ng_outcome)k;
            return 0;
        }
    }
    return -1;
}

static enum ng_kernel_status status_of(const char *name)
{
    for (int k = NG_KERNEL_CHANGED; k <= NG_KERNEL_GONE; k++)
        if (name && strcmp(name, ng_kernel_status_name((enum ng_kernel_status)k)) == 0)
            return (enum ng_kernel_status)k;
    return NG_KERNEL_CHANGED;
}

/* A JSON number as a whole number, rounded and held in range: a damaged
 * or hostile file (a history line) may say 1e999, and a conversion out of
 * range would be undefined behaviour (found by fuzz_history). */
static int64_t whole(double x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    if (x <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)llround(x);
}

/* Total times were written as ms; the ns they came from are whole. */
static int64_t ns_of(double ms)
{
    return whole(ms * 1e6);
}

static enum ng_work_kind kind_of(const char *name)
{
    for (int k = 0; k <= NG_WORK_OTHERS; k++)
        if (name && strcmp(name, ng_work_kind_name((enum ng_work_kind)k)) == 0)
            return (enum ng_work_kind)k;
    return NG_WORK_KERNEL;   /* lines from before kinds existed */
}

static void read_by_kind(const cJSON *o, int64_t *out, double unit)
{
    for (int k = 0; k < NG_WORK_KINDS; k++)
        out[k] = (int64_t)llround(num_or_0(o, ng_work_kind_name((enum ng_work_kind)k)) * unit);
}

static void read_places(const cJSON *a, const char *id, struct ng_place **out, size_t *n)
{
    const cJSON *it;
    double rank;
    cJSON_ArrayForEach(it, a)
        ng_profile_add_place(out, n, (int64_t)num_or_0(it, id), ns_of(num_or_0(it, "total_ms")),
                             (int64_t)num_or_0(it, "launches"))->rank =
            get_num(it, "rank", &rank) ? whole(rank) : -1;
}

static double *read_samples(const cJSON *a, size_t *n)
{
    double *x = ng_xcalloc((size_t)cJSON_GetArraySize(a), sizeof *x);
    const cJSON *it;

    *n = 0;
    cJSON_ArrayForEach(it, a)
        if (cJSON_IsNumber(it))
            x[(*n)++] = it->valuedouble;
    return x;
}

static void read_side(struct ng_verdict_doc *d, struct ng_verdict_side *s, const cJSON *o,
                      const cJSON *samples)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(o, "runs"), *it;
    double ms;

    s->path = keep(d, get_str(o, "path"));
    s->format = format_of(get_str(o, "format"));
    s->loaded = get_num(o, "total_gpu_ms", &ms);
    s->total_ns = s->loaded ? ns_of(ms) : 0;
    s->kernel_count = whole(num_or_0(o, "kernel_count"));
    s->median_ms = num_or_0(o, "median_ms");
    s->ms_per_epoch = s->median_ms;   /* the verdict's own figure follows (read_verdict) */
    s->min_ms = num_or_0(o, "min_ms");
    s->max_ms = num_or_0(o, "max_ms");
    s->mean_ms = num_or_0(o, "mean_ms");
    s->epochs_counted = num_or_0(o, "epochs");
    s->excluded_ns = ns_of(num_or_0(o, "excluded_ms_per_epoch") * s->epochs_counted);
    s->excluded_launches = (int64_t)num_or_0(o, "excluded_launches");
    s->has_overlap = get_num(o, "overlap_ms_per_epoch", &s->overlap_ms_per_epoch);
    read_by_kind(cJSON_GetObjectItemCaseSensitive(o, "work_ms"), s->kind_ns, 1e6);
    read_by_kind(cJSON_GetObjectItemCaseSensitive(o, "work_launches"), s->kind_launches, 1);
    read_by_kind(cJSON_GetObjectItemCaseSensitive(o, "left_out_ms"), s->left_out_ns, 1e6);
    read_by_kind(cJSON_GetObjectItemCaseSensitive(o, "left_out_launches"), s->left_out_launches,
                 1);
    s->has_places = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "devices"));
    read_places(cJSON_GetObjectItemCaseSensitive(o, "devices"), "device", &s->devices,
                &s->n_devices);
    read_places(cJSON_GetObjectItemCaseSensitive(o, "processes"), "pid", &s->processes,
                &s->n_processes);
    s->runs = ng_xcalloc((size_t)cJSON_GetArraySize(runs), sizeof *s->runs);
    cJSON_ArrayForEach(it, runs) {
        struct ng_verdict_run *r = &s->runs[s->n_runs++];
        r->path = keep(d, get_str(it, "path"));
        r->format = format_of(get_str(it, "format"));
        r->loaded = get_num(it, "total_gpu_ms", &ms);
        r->total_ns = r->loaded ? ns_of(ms) : 0;
        r->kernel_count = whole(num_or_0(it, "kernel_count"));
        r->rank = get_num(it, "rank", &ms) ? whole(ms) : -1;
        r->world_size = get_num(it, "world_size", &ms) ? whole(ms) : -1;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(it, "summary_of");
        if (cJSON_IsObject(src)) {
            r->source_name = keep(d, get_str(src, "name"));
            r->source_hash = keep(d, get_str(src, "xxh3_128"));
            r->source_size = whole(num_or_0(src, "size"));
        }
    }
    /* total mode: each run's epochs, for the headline's "epochs=10/9" */
    s->run_epochs = s->n_runs ? (long)whole(s->epochs_counted / (double)s->n_runs) : 0;
    if (cJSON_IsArray(samples))
        s->samples = read_samples(samples, &s->n_samples);
}

static void read_kernels(struct ng_verdict_doc *d, struct ng_verdict *v, const cJSON *a)
{
    const cJSON *it;

    v->kernels = ng_xcalloc((size_t)cJSON_GetArraySize(a), sizeof *v->kernels);
    cJSON_ArrayForEach(it, a) {
        struct ng_kernel_delta *k = &v->kernels[v->n_kernels++];
        k->name = keep(d, get_str(it, "name"));
        if (!k->name)
            k->name = keep(d, "");
        k->kind = kind_of(get_str(it, "kind"));
        k->status = status_of(get_str(it, "status"));
        k->gated = outcome_of(get_str(it, "verdict"), &k->verdict) == 0;
        k->has_p = get_num(it, "p_value", &k->p_value);
        if (!get_num(it, "p_adjusted", &k->p_adjusted))
            k->p_adjusted = k->p_value;   /* lines from before the adjustment */
        if (!get_num(it, "ratio", &k->ratio))
            k->ratio = k->gated ? INFINITY : 0;   /* a new item's ratio is written as null */
        if (k->gated && k->verdict == NG_OUTCOME_FAIL)
            v->n_items_failed++;
        else if (k->gated && k->verdict == NG_OUTCOME_INCONCLUSIVE)
            v->n_items_inconclusive++;
        k->baseline_ms_per_epoch = num_or_0(it, "baseline_ms_per_epoch");
        k->current_ms_per_epoch = num_or_0(it, "current_ms_per_epoch");
        k->delta_ms_per_epoch = num_or_0(it, "delta_ms_per_epoch");
        k->share = num_or_0(it, "share");
        k->baseline_instances_per_epoch = num_or_0(it, "baseline_instances_per_epoch");
        k->current_instances_per_epoch = num_or_0(it, "current_instances_per_epoch");
    }
}

/* "rows": {"cap": N, "items": [...]} of a history line (null or absent:
 * none, as in the lines of gates before rows were written). */
static void read_rows(struct ng_verdict_doc *d, struct ng_verdict *v, const cJSON *rows)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(rows, "items"), *it;

    if (!cJSON_IsArray(items))
        return;
    v->has_rows = 1;
    v->rows = ng_xcalloc((size_t)cJSON_GetArraySize(items) + 1, sizeof *v->rows);
    cJSON_ArrayForEach(it, items) {
        struct ng_work_rate *r = &v->rows[v->n_rows++];
        const char *name = get_str(it, "name");
        r->name = keep(d, name ? name : "");
        r->kind = kind_of(get_str(it, "kind"));
        r->ms_per_epoch = num_or_0(it, "ms_per_epoch");
        r->launches_per_epoch = num_or_0(it, "launches_per_epoch");
    }
}

/* An object of strings into a context (a run's, or what a history
 * baseline matched on); what is not a string is left out. */
static void read_context(struct ng_context *c, const cJSON *o)
{
    const cJSON *it;

    if (cJSON_IsObject(o))
        cJSON_ArrayForEach(it, o)
            if (cJSON_IsString(it))
                ng_context_set(c, it->string, it->valuestring);
}

static void read_history_run(struct ng_verdict_history_run *r, const cJSON *o)
{
    const char *commit = get_str(o, "commit"), *ts = get_str(o, "timestamp");
    double line = 0;

    (void)get_num(o, "line", &line);
    r->line = line >= 0 && line < 1e15 ? (size_t)line : 0;
    r->commit = commit ? ng_xstrdup(commit) : NULL;
    if (ts)
        (void)ng_parse_utc(ts, &r->timestamp);
}

/* "before_change" or "since_change" (null or absent: none) */
static void read_history_change(struct ng_verdict_history_change *c, const cJSON *o)
{
    const char *commit = get_str(o, "commit");
    double x = 0;

    if (!cJSON_IsObject(o))
        return;
    c->on = 1;
    c->line = get_num(o, "line", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
    c->commit = commit ? ng_xstrdup(commit) : NULL;
    c->magnitude = get_num(o, "magnitude", &x) ? x : NAN;
    c->acknowledged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "acknowledged"));
    c->expired = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ack_expired"));
}

/* "baseline_history" (null or absent: the baseline was profiles) */
static void read_baseline_history(struct ng_verdict_history *h, const cJSON *o)
{
    double x = 0;

    if (!cJSON_IsObject(o))
        return;
    h->on = 1;
    h->path = ng_xstrdup(str_or_empty(o, "path"));
    h->name = ng_xstrdup(str_or_empty(o, "name"));
    h->window = get_num(o, "window", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
    h->runs = get_num(o, "runs", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
    read_context(&h->match, cJSON_GetObjectItemCaseSensitive(o, "match"));
    if (get_str(o, "since"))
        h->has_since = ng_parse_utc(get_str(o, "since"), &h->since) == 0;
    if (get_str(o, "branch"))
        h->branch = ng_xstrdup(get_str(o, "branch"));
    h->branches = get_num(o, "branches", &x) && x >= 0 && x < 1e15 ? (size_t)x : h->branch != NULL;
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "first")))
        read_history_run(&h->first, cJSON_GetObjectItemCaseSensitive(o, "first"));
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "last")))
        read_history_run(&h->last, cJSON_GetObjectItemCaseSensitive(o, "last"));
    read_history_change(&h->before_change, cJSON_GetObjectItemCaseSensitive(o, "before_change"));
    read_history_change(&h->since_change, cJSON_GetObjectItemCaseSensitive(o, "since_change"));
    const cJSON *held = cJSON_GetObjectItemCaseSensitive(o, "held_out");
    if (cJSON_IsObject(held)) {
        h->held_out = get_num(held, "runs", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
        h->held_line = get_num(held, "line", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
        h->held_commit = get_str(held, "commit") ? ng_xstrdup(get_str(held, "commit")) : NULL;
    }
    const cJSON *crept = cJSON_GetObjectItemCaseSensitive(o, "crept");
    if (cJSON_IsObject(crept)) {
        h->crept = 1;
        h->crept_ratio = num_or_0(crept, "ratio");
        h->crept_p = num_or_0(crept, "p_value");
        h->crept_runs = (size_t)whole(num_or_0(crept, "runs"));
        h->crept_line = (size_t)whole(num_or_0(crept, "line"));
        h->crept_commit = get_str(crept, "commit") ? ng_xstrdup(get_str(crept, "commit")) : NULL;
    }
}

/* How the ratio was formed ("decision"): what the reporters show of it (a
 * line from before it has its sides' means). */
static void read_decision(struct ng_verdict *v, const cJSON *o)
{
    struct ng_means *m = &v->decision;
    double x;
    if (!cJSON_IsObject(o) || ng_means_basis_parse(get_str(o, "basis"), &m->basis) < 0)
        return;
    ng_means_call_parse(get_str(o, "call"), &v->call);
    m->figure[0] = num_or_0(o, "baseline_ms_per_epoch");
    m->figure[1] = num_or_0(o, "current_ms_per_epoch");
    m->ratio = v->ratio;
    m->raw_ratio = get_num(o, "raw_ratio", &x) ? x : NAN;
    m->log_test = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "log_test"));
    m->has_test = get_num(o, "autocorrelation", &m->rho);
    m->inflation = get_num(o, "variance_inflation", &x) ? x : 1;
    m->has_p = v->has_p;
    m->p_value = v->p_value;
    m->runs = (size_t)whole(num_or_0(o, "past_runs"));
    m->between_cv = num_or_0(o, "between_runs_cv");
    v->baseline.warmup = (size_t)whole(num_or_0(o, "baseline_warmup_epochs"));
    v->current.warmup = (size_t)whole(num_or_0(o, "current_warmup_epochs"));
    const cJSON *mix = cJSON_GetObjectItemCaseSensitive(o, "mix"), *k;
    m->strata = 1;
    m->mix_p = NAN;
    if (!cJSON_IsObject(mix))
        return;
    m->mix_p = num_or_0(mix, "p_value");
    m->mix_ms = num_or_0(mix, "ms_per_epoch");
    m->strata = 0;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(mix, "kinds")) {
        if (m->strata == NG_CLUSTERS_MAX)
            break;
        m->count[m->strata][0] = (size_t)whole(num_or_0(k, "baseline_epochs"));
        m->count[m->strata][1] = (size_t)whole(num_or_0(k, "current_epochs"));
        m->kind_ms[m->strata][0] = num_or_0(k, "baseline_ms");
        m->kind_ms[m->strata][1] = num_or_0(k, "current_ms");
        m->kind_median[m->strata] = num_or_0(k, "median_ms");
        m->strata++;
    }
}

static void read_patterns(struct ng_verdict_doc *d, const cJSON *a, const char **out,
                          size_t *n)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (cJSON_IsString(it) && *n < NG_POLICY_PATTERNS)
            out[(*n)++] = keep(d, it->valuestring);
}

/* The policy as the verdict recorded it; a line from before policies has
 * none (the defaults). */
static void read_policy(struct ng_verdict_doc *d, const cJSON *root)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "policy");
    struct ng_policy *p = d->policy = ng_xcalloc(1, sizeof *d->policy);
    struct ng_verdict *v = &d->v;
    double x;

    p->kernel_min_delta_ms = -1;
    v->policy = p;
    v->top = (long)v->n_kernels;
    if (!cJSON_IsObject(o))
        return;
    read_patterns(d, cJSON_GetObjectItemCaseSensitive(o, "kernels"), p->kernels, &p->n_kernels);
    read_patterns(d, cJSON_GetObjectItemCaseSensitive(o, "comm_kernels"), p->comm, &p->n_comm);
    read_patterns(d, cJSON_GetObjectItemCaseSensitive(o, "exclude_kernels"), p->exclude,
                  &p->n_exclude);
    p->min_delta_ms = num_or_0(o, "min_delta_ms");
    p->kernel_threshold = num_or_0(o, "kernel_threshold");
    if (get_num(o, "kernel_min_delta_ms", &x))
        v->kernel_floor_ms = x;
    p->fail_on_improvement = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
                                                                           "fail_on_improvement"));
    p->base_names = str_or_empty(o, "kernel_names")[0] == 'b';
    if (get_num(o, "top", &x))
        v->top = (long)x;
}

/* The comparability object (null or absent: not known, as in lines from
 * before it). */
static void read_comparability(struct ng_verdict_doc *d, struct ng_comparability *c,
                               const cJSON *o)
{
    const cJSON *largest = cJSON_GetObjectItemCaseSensitive(o, "one_side_largest"), *it;
    double x;

    if (!cJSON_IsObject(o))
        return;
    c->known = 1;
    c->launch_ratio = get_num(o, "launch_ratio", &x) ? x : 1.0;
    c->items_both = (size_t)whole(num_or_0(o, "items_both"));
    c->one_side_share = num_or_0(o, "one_side_share");
    c->has_places = get_num(o, "baseline_devices", &x);
    c->baseline_devices = (size_t)whole(num_or_0(o, "baseline_devices"));
    c->current_devices = (size_t)whole(num_or_0(o, "current_devices"));
    c->baseline_processes = (size_t)whole(num_or_0(o, "baseline_processes"));
    c->current_processes = (size_t)whole(num_or_0(o, "current_processes"));
    cJSON_ArrayForEach(it, largest) {
        if (c->n_largest == NG_COMPARABILITY_LARGEST)
            break;
        struct ng_one_side_item *e = &c->largest[c->n_largest++];
        e->name = keep(d, str_or_empty(it, "name"));
        e->kind = kind_of(get_str(it, "kind"));
        e->current = strcmp(str_or_empty(it, "side"), "current") == 0;
        e->ms_per_epoch = num_or_0(it, "ms_per_epoch");
    }
}

/* ratio_ci [lo, hi] and its method (kept as one of the gate's own texts:
 * the verdict borrows static text only). */
static void read_ci(struct ng_verdict *v, const cJSON *ci, const char *method)
{
    static const char *const methods[] = { NG_MEANS_CI_METHOD, NG_MEANS_CI_METHOD_STRATA,
                                           NG_MEANS_CI_METHOD_RUNS };
    if (!cJSON_IsArray(ci) || cJSON_GetArraySize(ci) != 2 ||
        !cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(ci, 1)))
        return;
    v->has_ci = 1;
    v->ratio_ci[0] = cJSON_GetArrayItem(ci, 0)->valuedouble;
    v->ratio_ci[1] = cJSON_GetArrayItem(ci, 1)->valuedouble;
    v->ratio_ci_method = methods[0];
    for (size_t i = 0; method && i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(method, methods[i]) == 0)
            v->ratio_ci_method = methods[i];
    v->strata = v->ratio_ci_method == methods[1] ? 2 : 1;
}

static void read_verdict(struct ng_verdict_doc *d, const cJSON *root)
{
    struct ng_verdict *v = &d->v;
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(root, "samples");
    const cJSON *warnings = cJSON_GetObjectItemCaseSensitive(root, "warnings"), *it;
    double x;

    v->name = keep(d, get_str(root, "name"));
    v->mode = keep(d, get_str(root, "mode") ? get_str(root, "mode") : "total");
    v->metric = keep(d, get_str(root, "metric"));
    snprintf(v->work, sizeof v->work, "%s", str_or_empty(root, "work"));
    v->has_figures = get_num(root, "ratio", &v->ratio);
    v->threshold = num_or_0(root, "threshold");
    v->epochs = (long)whole(num_or_0(root, "epochs"));
    v->has_p = get_num(root, "p_value", &v->p_value);
    if (!get_num(root, "u_p_value", &v->u_p_value))
        v->u_p_value = v->p_value;   /* lines from when the U test decided */
    read_ci(v, cJSON_GetObjectItemCaseSensitive(root, "ratio_ci"),
            get_str(root, "ratio_ci_method"));
    get_num(root, "epochs_needed", &v->epochs_needed);
    v->alpha = num_or_0(root, "alpha");
    read_side(d, &v->baseline, cJSON_GetObjectItemCaseSensitive(root, "baseline"),
              cJSON_GetObjectItemCaseSensitive(samples, "baseline"));
    read_side(d, &v->current, cJSON_GetObjectItemCaseSensitive(root, "current"),
              cJSON_GetObjectItemCaseSensitive(samples, "current"));
    if (get_num(root, "baseline_ms_per_epoch", &x))
        v->baseline.ms_per_epoch = x;
    if (get_num(root, "current_ms_per_epoch", &x))
        v->current.ms_per_epoch = x;
    read_kernels(d, v, cJSON_GetObjectItemCaseSensitive(root, "kernels"));
    read_policy(d, root);
    v->n_top = v->top >= 0 && (size_t)v->top < v->n_kernels ? (size_t)v->top : v->n_kernels;
    v->under_floor = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "under_floor"));
    if (outcome_of(get_str(root, "total_verdict"), &v->total_outcome) < 0)
        v->total_outcome = v->outcome;   /* lines from before per-kernel gates */
    v->stale_baseline = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "stale_baseline"));
    read_comparability(d, &v->comparability, cJSON_GetObjectItemCaseSensitive(root,
                                                                             "comparability"));
    read_decision(v, cJSON_GetObjectItemCaseSensitive(root, "decision"));
    cJSON_ArrayForEach(it, warnings)
        if (cJSON_IsString(it))
            ng_verdict_warn(v, "%s", it->valuestring);
    snprintf(v->error, sizeof v->error, "%s", str_or_empty(root, "error"));
    read_context(&v->context, cJSON_GetObjectItemCaseSensitive(root, "context"));
    if (get_str(root, "timestamp"))
        (void)ng_parse_utc(get_str(root, "timestamp"), &v->timestamp);
    read_rows(d, v, cJSON_GetObjectItemCaseSensitive(root, "rows"));
    read_baseline_history(&v->history, cJSON_GetObjectItemCaseSensitive(root, "baseline_history"));
}

/* ---- figures in range ---- */

int ng_verdict_doc_figure_ok(double x)
{
    return x >= 0 && x <= NG_VERDICT_FIGURE_MAX;   /* NaN fails both */
}

/* The member key of o, when a number out of range: its name into why. */
static int member_bad(const cJSON *o, const char *where, const char *key, struct ng_err *why)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it) || ng_verdict_doc_figure_ok(it->valuedouble))
        return 0;
    ng_err_set(why, "%s%s%s is %g, not a figure a gate writes (negative, infinite or past "
               "64 bits of ns)", where, *where ? "." : "", key, it->valuedouble);
    return 1;
}

/* The figures the trend scanner reads too (ng_trend_scan.c checks the
 * same ones, so both readers refuse the same lines). */
static int scanned_bad(const cJSON *root, struct ng_err *why)
{
    static const char *const top[] = { "ratio", "p_value", "threshold", "baseline_ms_per_epoch",
                                       "current_ms_per_epoch" };
    static const char *const side[] = { "median_ms", "min_ms", "max_ms" };
    static const char *const sides[] = { "baseline", "current" };

    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        if (member_bad(root, "", top[i], why))
            return 1;
    for (size_t k = 0; k < 2; k++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, sides[k]);
        for (size_t i = 0; cJSON_IsObject(o) && i < sizeof side / sizeof *side; i++)
            if (member_bad(o, sides[k], side[i], why))
                return 1;
    }
    return 0;
}

static int each_bad(const cJSON *a, const char *where, const char *key, struct ng_err *why)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a) {
        if (key ? member_bad(it, where, key, why)
                : cJSON_IsNumber(it) && !ng_verdict_doc_figure_ok(it->valuedouble) &&
                      ng_err_set(why, "a sample of %s is %g, not a figure a gate writes", where,
                                 it->valuedouble) < 0)
            return 1;
    }
    return 0;
}

/* The rest, which a baseline from history computes with: totals, runs,
 * samples, per-kernel and per-row times. */
static int deep_bad(const cJSON *root, struct ng_err *why)
{
    static const char *const sides[] = { "baseline", "current" };
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(root, "samples");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");

    for (size_t k = 0; k < 2; k++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, sides[k]);
        if (cJSON_IsObject(o) &&
            (member_bad(o, sides[k], "total_gpu_ms", why) ||
             member_bad(o, sides[k], "mean_ms", why) ||
             each_bad(cJSON_GetObjectItemCaseSensitive(o, "runs"), "run", "total_gpu_ms", why)))
            return 1;
        if (each_bad(cJSON_GetObjectItemCaseSensitive(samples, sides[k]), sides[k], NULL, why))
            return 1;
    }
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
    return each_bad(kernels, "kernel", "baseline_ms_per_epoch", why) ||
           each_bad(kernels, "kernel", "current_ms_per_epoch", why) ||
           each_bad(cJSON_GetObjectItemCaseSensitive(rows, "items"), "row", "ms_per_epoch", why);
}

/* Only whitespace after the value: two verdicts glued on one line (a
 * writer that lost its newline) are not one verdict. */
static int only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return 0;
    return 1;
}

/* -2 (a whole line no gate writes, skipped with the reason): a string
 * with a NUL in it would be read cut short (a run URL, a commit). */
static int nul_refused(struct ng_err *err)
{
    ng_err_set(err, "a string holds a NUL (\\u0000), which would cut it");
    return -2;
}

int ng_verdict_doc_read(struct ng_verdict_doc *d, const char *text, size_t len,
                        struct ng_err *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    int ret = 0;

    memset(d, 0, sizeof *d);
    if (!root)
        ret = ng_err_set(err, "not valid JSON");
    else if (ng_json_nul_escape(text, len))
        ret = nul_refused(err);
    else if (!end || !only_space(end, text + len))
        ret = ng_err_set(err, "more than one JSON value");
    else if (!cJSON_IsObject(root) ||
             !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "name")) ||
             outcome_of(get_str(root, "verdict"), &d->v.outcome) < 0)
        ret = ng_err_set(err, "not a JSON verdict");
    else if (scanned_bad(root, err))
        ret = -2;
    else
        read_verdict(d, root);
    if (ret == 0 && deep_bad(root, &d->out_of_range))
        d->has_out_of_range = 1;
    cJSON_Delete(root);
    return ret;
}

void ng_verdict_doc_release(struct ng_verdict_doc *d)
{
    ng_verdict_release(&d->v);
    for (size_t i = 0; i < d->n_strings; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->policy);
    d->strings = NULL;
    d->n_strings = 0;
    d->policy = NULL;
    d->v.policy = NULL;
}
