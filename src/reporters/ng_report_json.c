/* The JSON outputs: the verdict (schemas/verdict.schema.json), the same
 * verdict on one line for --history (JSON Lines), the batch document
 * (schemas/batch.schema.json), github-action-benchmark's
 * customSmallerIsBetter array (--benchmark-json), and the verdict read
 * back from its JSON (how batch children hand their verdicts over).
 * cJSON is used here and, for reading the manifest, in ng_manifest.c only.
 * Every string passes through ng_text_clean() first, so invalid UTF-8 in a
 * path or kernel name still gives valid JSON; cJSON escapes the control
 * characters and always prints '.' decimals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/ng_context.h"
#include "core/ng_verdict_text.h"
#include "core/ng_work_rates.h"
#include "reporters/ng_reporter.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

/* What a JSON rendering may hold.  --json and the batch children's lines
 * hold everything (all 0: no limit); a history line is at most
 * NG_HISTORY_LINE_LIMIT bytes, which the levels below keep (history_render
 * tries them in order). */
struct limits {
    int rows;            /* write the current side's rows (JSON lines) */
    size_t text;         /* JSON bytes of any string: paths, warnings, context, message */
    size_t name;         /* JSON bytes of a kernel or row name (ng_work_rates_name) */
    size_t n_rows;       /* named rows before the others row */
    size_t n_kernels, n_warnings, n_samples, n_runs, n_labels, n_patterns;
    size_t n_ranges;     /* nested range groups */
};

static const struct limits everything = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const struct limits no_rows = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

#define NONE SIZE_MAX   /* a count limit that keeps none (0 keeps all) */

/* Level 0 is every real line; the others only for lines that would not
 * fit (thousands of warnings, 64 runs with long paths, hostile names).
 * Names keep one spelling at every level (NG_WORK_RATES_NAME_MAX, hashed), and
 * the rows, which later baselines are made of, go last: the attribution's
 * kernels and the text give way first. */
static const struct limits line_levels[] = {
    { 1, 2048, NG_WORK_RATES_NAME_MAX, NG_WORK_RATES_CAP, 50, 20, 0, 0, 0, 0, 50 },
    { 1, 256, NG_WORK_RATES_NAME_MAX, NG_WORK_RATES_CAP, 10, 10, 1000, 16, 32, 16, 10 },
    { 1, 128, NG_WORK_RATES_NAME_MAX, NG_WORK_RATES_CAP, 5, 5, 200, 4, 16, 8, 5 },
    { 1, 64, NG_WORK_RATES_NAME_MAX, 20, NONE, 1, 20, 1, 8, 2, NONE },
};

/* at most `cap` of n (0: no limit; NONE: none) */
static size_t upto(size_t n, size_t cap)
{
    if (cap == NONE)
        return 0;
    return cap && n > cap ? cap : n;
}

/* s as a JSON string (null for NULL): cleaned to UTF-8, and within max
 * JSON bytes (0: no limit); names keep a hash of the whole when cut. */
static cJSON *cut_item(const char *s, size_t max, int hashed)
{
    struct ng_buf b = NG_BUF_INIT;

    if (!s)
        return cJSON_CreateNull();
    if (max)
        ng_text_cut(&b, s, max, hashed);
    else
        ng_text_clean(&b, s, strlen(s), NG_TEXT_UTF8_ONLY);
    cJSON *it = cJSON_CreateString(b.data ? b.data : "");
    ng_buf_release(&b);
    return it;
}

static void add_cut(cJSON *obj, const char *key, const char *s, size_t max, int hashed)
{
    cJSON_AddItemToObject(obj, key, cut_item(s, max, hashed));
}

static void add_text(cJSON *obj, const char *key, const char *s)
{
    add_cut(obj, key, s, 0, 0);
}

/* A figure in milliseconds, by its key's name (total_ms, median_ms,
 * ms_per_epoch, current_ms_per_epoch, ...; "value" is the benchmark's
 * ms/epoch). */
static int ms_key(const char *key)
{
    size_t n = strlen(key);
    return (n >= 3 && strcmp(key + n - 3, "_ms") == 0) ||
           (n >= 12 && strcmp(key + n - 12, "ms_per_epoch") == 0) || strcmp(key, "value") == 0;
}

/* Numbers go in as raw text: milliseconds to the nanosecond (ng_fmt_ms),
 * the rest in the shortest form that reads back exactly (cJSON's own
 * printing gives 17 digits of float noise, 97.767081199999993). */
static void add_number_or_null(cJSON *obj, const char *key, int known, double v)
{
    char buf[40];

    if (!known || v != v || v - v != 0) {   /* unknown, NaN or infinite */
        cJSON_AddNullToObject(obj, key);
        return;
    }
    (ms_key(key) ? ng_fmt_ms : ng_fmt_double)(buf, sizeof buf, v);
    cJSON_AddRawToObject(obj, key, buf);
}

/* The samples, or when there are more than `cap` (0: no limit), cap of
 * their order statistics evenly spaced from min to max: the distribution
 * a history baseline pools, in fewer numbers. */
static cJSON *number_array(const double *x, size_t n, size_t cap)
{
    cJSON *a = cJSON_CreateArray();
    double *sorted = NULL;
    size_t shown = upto(n, cap);

    if (shown < n) {
        sorted = ng_xmalloc(n * sizeof *sorted);
        memcpy(sorted, x, n * sizeof *sorted);
        ng_sort(sorted, n, sizeof *sorted, ng_cmp_double);
    }
    for (size_t i = 0; i < shown; i++) {
        char buf[40];
        double v = sorted ? sorted[shown > 1 ? i * (n - 1) / (shown - 1) : 0] : x[i];
        ng_fmt_ms(buf, sizeof buf, v);   /* the samples are ms per epoch */
        cJSON_AddItemToArray(a, cJSON_CreateRaw(buf));
    }
    free(sorted);
    return a;
}

static cJSON *run_json(const struct ng_verdict_run *r, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();

    add_cut(o, "path", r->path, lim->text, 0);
    cJSON_AddStringToObject(o, "format", ng_format_name(r->format));
    add_number_or_null(o, "total_gpu_ms", r->loaded, (double)r->total_ns / 1e6);
    add_number_or_null(o, "kernel_count", r->loaded, (double)r->kernel_count);
    if (r->rank >= 0)   /* only profiles of a distributed job say */
        cJSON_AddNumberToObject(o, "rank", (double)r->rank);
    if (r->world_size > 0)
        cJSON_AddNumberToObject(o, "world_size", (double)r->world_size);
    if (r->source_name) {   /* a summary: the profile it was made from */
        cJSON *src = cJSON_CreateObject();
        add_cut(src, "name", r->source_name, lim->text, 0);
        cJSON_AddNumberToObject(src, "size", (double)r->source_size);
        cJSON_AddStringToObject(src, "xxh3_128", r->source_hash ? r->source_hash : "");
        cJSON_AddItemToObject(o, "summary_of", src);
    }
    return o;
}

/* {"kernel": x, "graph": x, "memcpy": x, "memset": x}, each value / unit
 * (1e6: ns as ms; 1: counts) */
static cJSON *by_kind_json(const int64_t *v, int known, double unit)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < NG_WORK_KINDS; k++)
        add_number_or_null(o, ng_work_kind_name((enum ng_work_kind)k), known,
                           (double)v[k] / unit);
    return o;
}

/* [{"id": N, "total_ms": x, "ms_per_epoch": y, "launches": n}] */
static cJSON *places_json(const struct ng_place *p, size_t n, const char *id, double per)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        add_number_or_null(o, id, 1, (double)p[i].id);
        if (p[i].rank >= 0)
            add_number_or_null(o, "rank", 1, (double)p[i].rank);
        add_number_or_null(o, "total_ms", 1, (double)p[i].ns / 1e6);
        add_number_or_null(o, "ms_per_epoch", per > 0, (double)p[i].ns / 1e6 / per);
        add_number_or_null(o, "launches", 1, (double)p[i].launches);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* [{"device": 1, "process": 4000, "rank": null, "ms_per_epoch": ..,
 * "others_median_ms": ..}]: a device straggler names its process when one
 * launched on it; a process straggler has device null.  At most
 * STRAGGLERS_SHOWN of them (a crafted file can have 200,000 devices). */
#define STRAGGLERS_SHOWN 1024
static cJSON *stragglers_json(const struct ng_verdict_side *s)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < upto(s->n_stragglers, STRAGGLERS_SHOWN); i++) {
        const struct ng_straggler *g = &s->stragglers[i];
        int dev = g->kind == NG_STRAGGLER_DEVICE;
        cJSON *o = cJSON_CreateObject();
        add_number_or_null(o, "device", dev, (double)g->id);
        add_number_or_null(o, "process", !dev || g->process >= 0, dev ? (double)g->process
                                                                       : (double)g->id);
        add_number_or_null(o, "rank", g->rank >= 0, (double)g->rank);
        add_number_or_null(o, "ms_per_epoch", 1, g->ms_per_epoch);
        add_number_or_null(o, "others_median_ms", 1, g->others_ms);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void breakdown_fields(cJSON *o, const struct ng_breakdown *b, double per)
{
    struct ng_breakdown_ms m;
    ng_breakdown_per_epoch(b, per, &m);
    add_number_or_null(o, "compute_ms", 1, m.compute);
    add_number_or_null(o, "comm_ms", 1, m.comm);
    add_number_or_null(o, "exposed_comm_ms", 1, m.exposed);
    add_number_or_null(o, "memory_ms", 1, m.memory);
    add_number_or_null(o, "idle_ms", 1, m.idle);
}

/* {"compute_ms": .., ..., "n_devices": 2, "devices": [{"device": 0,
 * "compute_ms": .., ...}]}: per epoch, over devices and per device, the
 * first BREAKDOWN_DEVICES of them (a crafted file's 200,000 devices would
 * add 60 MB to say nothing; a line that must be cut keeps as many as runs) */
#define BREAKDOWN_DEVICES 1024
static cJSON *breakdown_json(const struct ng_verdict_side *s, int figures,
                             const struct limits *lim)
{
    if (!figures || !s->has_breakdown || !(s->epochs_counted > 0))
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *devs = cJSON_CreateArray();
    breakdown_fields(o, &s->breakdown, s->epochs_counted);
    add_number_or_null(o, "n_devices", 1, (double)s->n_bd_devices);
    size_t shown = upto(s->n_bd_devices, lim->n_runs ? lim->n_runs : BREAKDOWN_DEVICES);
    for (size_t i = 0; i < upto(shown, BREAKDOWN_DEVICES); i++) {
        cJSON *d = cJSON_CreateObject();
        add_number_or_null(d, "device", 1, (double)s->bd_devices[i].device);
        breakdown_fields(d, &s->bd_devices[i], s->epochs_counted);
        cJSON_AddItemToArray(devs, d);
    }
    cJSON_AddItemToObject(o, "devices", devs);
    return o;
}

/* The kinds of epoch a side's samples form: one object each, smallest
 * first (one when the epochs are of one kind). */
static cJSON *clusters_json(const struct ng_verdict_side *s)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < s->n_clusters; i++) {
        cJSON *c = cJSON_CreateObject();
        add_number_or_null(c, "epochs", 1, (double)s->clusters[i].n);
        add_number_or_null(c, "median_ms", 1, s->clusters[i].median);
        add_number_or_null(c, "min_ms", 1, s->clusters[i].min);
        add_number_or_null(c, "max_ms", 1, s->clusters[i].max);
        cJSON_AddItemToArray(a, c);
    }
    return a;
}

static cJSON *side_json(const struct ng_verdict_side *s, int figures, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *runs = cJSON_CreateArray();

    add_cut(o, "path", s->path, lim->text, 0);
    if (s->path)
        cJSON_AddStringToObject(o, "format", ng_format_name(s->format));
    else
        cJSON_AddNullToObject(o, "format");
    add_number_or_null(o, "total_gpu_ms", s->loaded, (double)s->total_ns / 1e6);
    add_number_or_null(o, "kernel_count", s->loaded, (double)s->kernel_count);
    add_number_or_null(o, "median_ms", figures, s->median_ms);
    add_number_or_null(o, "min_ms", figures, s->min_ms);
    add_number_or_null(o, "max_ms", figures, s->max_ms);
    add_number_or_null(o, "mean_ms", figures, s->mean_ms);
    cJSON_AddItemToObject(o, "clusters", figures ? clusters_json(s) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "work_ms", by_kind_json(s->kind_ns, s->loaded, 1e6));
    cJSON_AddItemToObject(o, "work_launches", by_kind_json(s->kind_launches, s->loaded, 1));
    cJSON_AddItemToObject(o, "left_out_ms", by_kind_json(s->left_out_ns, s->loaded, 1e6));
    cJSON_AddItemToObject(o, "left_out_launches",
                          by_kind_json(s->left_out_launches, s->loaded, 1));
    add_number_or_null(o, "epochs", figures && s->epochs_counted > 0, s->epochs_counted);
    add_number_or_null(o, "excluded_ms_per_epoch", figures && s->epochs_counted > 0,
                       (double)s->excluded_ns / 1e6 / s->epochs_counted);
    add_number_or_null(o, "excluded_launches", s->loaded, (double)s->excluded_launches);
    add_number_or_null(o, "overlap_ms_per_epoch", figures && s->has_overlap,
                       s->overlap_ms_per_epoch);
    cJSON_AddItemToObject(o, "breakdown", breakdown_json(s, figures, lim));
    double per = figures ? s->epochs_counted : 0;
    if (s->has_places) {
        cJSON_AddItemToObject(o, "devices", places_json(s->devices, s->n_devices, "device", per));
        cJSON_AddItemToObject(o, "processes", places_json(s->processes, s->n_processes, "pid",
                                                          per));
    } else {
        cJSON_AddNullToObject(o, "devices");
        cJSON_AddNullToObject(o, "processes");
    }
    if (s->has_places && figures)
        cJSON_AddItemToObject(o, "stragglers", stragglers_json(s));
    else
        cJSON_AddNullToObject(o, "stragglers");
    for (size_t i = 0; i < upto(s->n_runs, lim->n_runs); i++)
        cJSON_AddItemToArray(runs, run_json(&s->runs[i], lim));
    cJSON_AddItemToObject(o, "runs", runs);
    return o;
}

/* Whether the captures measured the same work (ng_comparability); null
 * before the figures. */
static cJSON *comparability_json(const struct ng_comparability *c, const struct limits *lim)
{
    if (!c->known)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *largest = cJSON_CreateArray();
    add_number_or_null(o, "launch_ratio", c->items_both > 0, c->launch_ratio);
    add_number_or_null(o, "items_both", 1, (double)c->items_both);
    add_number_or_null(o, "one_side_share", 1, c->one_side_share);
    for (size_t i = 0; i < c->n_largest; i++) {
        const struct ng_one_side_item *it = &c->largest[i];
        cJSON *e = cJSON_CreateObject();
        add_cut(e, "name", it->name, lim->name, 1);
        cJSON_AddStringToObject(e, "kind", ng_work_kind_name(it->kind));
        cJSON_AddStringToObject(e, "side", it->current ? "current" : "baseline");
        add_number_or_null(e, "ms_per_epoch", 1, it->ms_per_epoch);
        cJSON_AddItemToArray(largest, e);
    }
    cJSON_AddItemToObject(o, "one_side_largest", largest);
    add_number_or_null(o, "baseline_devices", c->has_places, (double)c->baseline_devices);
    add_number_or_null(o, "current_devices", c->has_places, (double)c->current_devices);
    add_number_or_null(o, "baseline_processes", c->has_places, (double)c->baseline_processes);
    add_number_or_null(o, "current_processes", c->has_places, (double)c->current_processes);
    return o;
}

static cJSON *kernel_json(const struct ng_kernel_delta *k, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();

    add_cut(o, "name", k->name, lim->name, 1);
    cJSON_AddStringToObject(o, "kind", ng_work_kind_name(k->kind));
    cJSON_AddStringToObject(o, "status", ng_kernel_status_name(k->status));
    add_number_or_null(o, "baseline_ms_per_epoch", 1, k->baseline_ms_per_epoch);
    add_number_or_null(o, "current_ms_per_epoch", 1, k->current_ms_per_epoch);
    add_number_or_null(o, "delta_ms_per_epoch", 1, k->delta_ms_per_epoch);
    add_number_or_null(o, "share", 1, k->share);
    add_number_or_null(o, "baseline_instances_per_epoch", 1, k->baseline_instances_per_epoch);
    add_number_or_null(o, "current_instances_per_epoch", 1, k->current_instances_per_epoch);
    if (k->gated)
        cJSON_AddStringToObject(o, "verdict", ng_outcome_name(k->verdict));
    else
        cJSON_AddNullToObject(o, "verdict");
    add_number_or_null(o, "ratio", k->gated, k->ratio);
    add_number_or_null(o, "p_value", k->has_p, k->p_value);
    add_number_or_null(o, "p_adjusted", k->has_p, k->p_adjusted);
    return o;
}

/* {"name", "baseline_ms_per_epoch", "current_ms_per_epoch",
 * "delta_ms_per_epoch", "share"}: a group of nested ranges. */
static cJSON *range_json(const struct ng_range_delta *r, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();

    add_cut(o, "name", r->name, lim->name, 1);
    add_number_or_null(o, "baseline_ms_per_epoch", 1, r->baseline_ms_per_epoch);
    add_number_or_null(o, "current_ms_per_epoch", 1, r->current_ms_per_epoch);
    add_number_or_null(o, "delta_ms_per_epoch", 1, r->delta_ms_per_epoch);
    add_number_or_null(o, "share", 1, r->share);
    return o;
}

/* Every group (a history line the first 50, fewer where the line is
 * long); null where no source looked for nested ranges (total mode, saved
 * text). */
static cJSON *ranges_json(const struct ng_verdict *v, const struct limits *lim)
{
    if (!v->has_ranges)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < upto(v->n_ranges, lim->n_ranges); i++)
        cJSON_AddItemToArray(a, range_json(&v->ranges[i], lim));
    return a;
}

static cJSON *string_array(const char *const *s, size_t n, const struct limits *lim)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < upto(n, lim->n_patterns); i++)
        cJSON_AddItemToArray(a, cut_item(s[i], lim->text, 0));
    return a;
}

/* What the verdict was decided under, so a dashboard can tell why a run
 * passed: the thresholds, the filters, the floors, the per-kernel gates. */
static cJSON *policy_json(const struct ng_verdict *v, const struct limits *lim)
{
    static const struct ng_policy none = { .kernel_min_delta_ms = -1 };
    const struct ng_policy *p = v->policy ? v->policy : &none;
    cJSON *o = cJSON_CreateObject();

    add_number_or_null(o, "threshold", v->threshold > 0, v->threshold);
    add_number_or_null(o, "alpha", 1, v->alpha);
    cJSON_AddBoolToObject(o, "fail_inconclusive", v->fail_inconclusive);
    cJSON_AddItemToObject(o, "kernels", string_array(p->kernels, p->n_kernels, lim));
    cJSON_AddItemToObject(o, "exclude_kernels", string_array(p->exclude, p->n_exclude, lim));
    cJSON_AddItemToObject(o, "comm_kernels", string_array(p->comm, p->n_comm, lim));
    add_number_or_null(o, "min_delta_ms", 1, p->min_delta_ms);
    add_number_or_null(o, "kernel_threshold", p->kernel_threshold > 0, p->kernel_threshold);
    /* the floor applied (the default is a share of the baseline epoch) */
    add_number_or_null(o, "kernel_min_delta_ms", p->kernel_threshold > 0 && v->has_figures,
                       v->kernel_floor_ms);
    cJSON_AddBoolToObject(o, "fail_on_improvement", p->fail_on_improvement);
    cJSON_AddStringToObject(o, "kernel_names", p->base_names ? "base" : "full");
    /* how the per-kernel gates' p-values are adjusted for their number */
    cJSON_AddStringToObject(o, "kernel_p_adjust", "holm");
    add_number_or_null(o, "top", 1, (double)v->top);
    return o;
}

/* {"commit": ..., "branch": ..., ..., "runner": ..., <labels>}: the fixed
 * fields always (null when unknown), then the other keys in order. */
static cJSON *context_json(const struct ng_context *c, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();
    size_t labels = 0;

    for (size_t i = 0; ng_context_fields[i]; i++)
        add_cut(o, ng_context_fields[i], ng_context_get(c, ng_context_fields[i]), lim->text, 0);
    for (size_t i = 0; i < c->n; i++) {
        int fixed = 0;
        for (size_t k = 0; ng_context_fields[k] && !fixed; k++)
            fixed = strcmp(ng_context_fields[k], c->items[i].key) == 0;
        if (!fixed && (!lim->n_labels || labels++ < lim->n_labels))
            add_cut(o, c->items[i].key, c->items[i].value, lim->text, 0);
    }
    return o;
}

/* {"cap": 50, "items": [{"kind", "name", "ms_per_epoch", "launches_per_epoch"}, ...]}:
 * the named rows the limits keep, the rest (and the verdict's own others
 * row) as one others row, last; null when the verdict has none. */
static cJSON *rows_json(const struct ng_verdict *v, const struct limits *lim)
{
    size_t cap = lim->text ? lim->n_rows : NG_WORK_RATES_CAP, kept = 0;
    double ms = 0, launches = 0;
    int folded = 0;

    if (!v->has_rows)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *items = cJSON_CreateArray();
    add_number_or_null(o, "cap", 1, (double)cap);
    for (size_t i = 0; i < v->n_rows; i++) {
        const struct ng_work_rate *r = &v->rows[i];
        if (r->kind == NG_WORK_OTHERS || kept >= cap) {
            ms += r->ms_per_epoch;
            launches += r->launches_per_epoch;
            folded = 1;
            continue;
        }
        cJSON *it = cJSON_CreateObject();
        cJSON_AddStringToObject(it, "kind", ng_work_kind_name(r->kind));
        add_cut(it, "name", r->name, lim->name, 1);
        add_number_or_null(it, "ms_per_epoch", 1, r->ms_per_epoch);
        add_number_or_null(it, "launches_per_epoch", 1, r->launches_per_epoch);
        cJSON_AddItemToArray(items, it);
        kept++;
    }
    if (folded) {
        cJSON *it = cJSON_CreateObject();
        cJSON_AddStringToObject(it, "kind", ng_work_kind_name(NG_WORK_OTHERS));
        cJSON_AddStringToObject(it, "name", ng_work_rates_others);
        add_number_or_null(it, "ms_per_epoch", 1, ms);
        add_number_or_null(it, "launches_per_epoch", 1, launches);
        cJSON_AddItemToArray(items, it);
    }
    cJSON_AddItemToObject(o, "items", items);
    return o;
}

static cJSON *history_run_json(const struct ng_verdict_history_run *r, const struct limits *lim)
{
    cJSON *o = cJSON_CreateObject();
    char ts[32];

    add_number_or_null(o, "line", 1, (double)r->line);
    add_cut(o, "commit", r->commit, lim->text, 0);
    ng_fmt_utc(ts, sizeof ts, r->timestamp, 1);
    cJSON_AddStringToObject(o, "timestamp", ts);
    return o;
}

/* {"line", "commit", "magnitude", "direction", "acknowledged",
 * "ack_expired"}, or null when no change decided the runs. */
static cJSON *history_change_json(const struct ng_verdict_history_change *c,
                                  const struct limits *lim)
{
    if (!c->on)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    add_number_or_null(o, "line", 1, (double)c->line);
    add_cut(o, "commit", c->commit, lim->text, 0);
    add_number_or_null(o, "magnitude", isfinite(c->magnitude), c->magnitude);
    cJSON_AddStringToObject(o, "direction", c->magnitude > 1 ? "regression" : "improvement");
    cJSON_AddBoolToObject(o, "acknowledged", c->acknowledged);
    cJSON_AddBoolToObject(o, "ack_expired", c->expired);
    return o;
}

/* {"path", "name", "window", "runs", "match", "since", "branch", "first",
 * "last", "before_change", "since_change", "held_out"}, or null when the baseline is
 * profiles. */
static cJSON *baseline_history_json(const struct ng_verdict_history *h, const struct limits *lim)
{
    char ts[32];

    if (!h->on)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *match = cJSON_CreateObject();
    add_cut(o, "path", h->path, lim->text, 0);
    add_cut(o, "name", h->name, lim->text ? NG_HISTORY_NAME_MAX : 0, 1);
    add_number_or_null(o, "window", 1, (double)h->window);
    add_number_or_null(o, "runs", 1, (double)h->runs);
    for (size_t i = 0; i < h->match.n; i++)
        add_cut(match, h->match.items[i].key, h->match.items[i].value, lim->text, 0);
    cJSON_AddItemToObject(o, "match", match);
    ng_fmt_utc(ts, sizeof ts, h->since, 1);
    add_text(o, "since", h->has_since ? ts : NULL);
    add_cut(o, "branch", h->branch, lim->text, 0);
    add_number_or_null(o, "branches", 1, (double)h->branches);
    if (h->runs) {
        cJSON_AddItemToObject(o, "first", history_run_json(&h->first, lim));
        cJSON_AddItemToObject(o, "last", history_run_json(&h->last, lim));
    } else {
        cJSON_AddNullToObject(o, "first");
        cJSON_AddNullToObject(o, "last");
    }
    cJSON_AddItemToObject(o, "before_change", history_change_json(&h->before_change, lim));
    cJSON_AddItemToObject(o, "since_change", history_change_json(&h->since_change, lim));
    if (h->held_out) {
        cJSON *held = cJSON_CreateObject();
        add_number_or_null(held, "runs", 1, (double)h->held_out);
        add_number_or_null(held, "line", 1, (double)h->held_line);
        add_cut(held, "commit", h->held_commit, lim->text, 0);
        cJSON_AddItemToObject(o, "held_out", held);
    } else {
        cJSON_AddNullToObject(o, "held_out");
    }
    if (h->crept) {
        cJSON *crept = cJSON_CreateObject();
        add_number_or_null(crept, "ratio", 1, h->crept_ratio);
        add_number_or_null(crept, "runs", 1, (double)h->crept_runs);
        add_number_or_null(crept, "line", 1, (double)h->crept_line);
        add_cut(crept, "commit", h->crept_commit, lim->text, 0);
        add_number_or_null(crept, "p_value", 1, h->crept_p);
        cJSON_AddItemToObject(o, "crept", crept);
    } else {
        cJSON_AddNullToObject(o, "crept");
    }
    return o;
}

/* The mix of kinds the decision compared (strata > 1): each kind's
 * median and its epochs on each side, the test of the counts and what
 * the change of mix adds. */
static cJSON *mix_json(const struct ng_means *m)
{
    if (m->basis != NG_MEANS_MIX)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *kinds = cJSON_CreateArray();
    for (size_t i = 0; i < m->strata; i++) {
        cJSON *k = cJSON_CreateObject();
        add_number_or_null(k, "median_ms", 1, m->kind_median[i]);
        add_number_or_null(k, "baseline_epochs", 1, (double)m->count[i][0]);
        add_number_or_null(k, "current_epochs", 1, (double)m->count[i][1]);
        add_number_or_null(k, "baseline_ms", 1, m->kind_ms[i][0]);
        add_number_or_null(k, "current_ms", 1, m->kind_ms[i][1]);
        cJSON_AddItemToArray(kinds, k);
    }
    cJSON_AddItemToObject(o, "kinds", kinds);
    add_number_or_null(o, "p_value", 1, m->mix_p);
    add_number_or_null(o, "ms_per_epoch", 1, m->mix_ms);
    return o;
}

/* How the ratio was formed and what the test allowed for
 * (docs/statistics.md); null without figures. */
static cJSON *decision_json(const struct ng_verdict *v)
{
    const struct ng_means *m = &v->decision;
    if (!v->has_figures)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "basis", ng_means_basis_name(m->basis));
    cJSON_AddStringToObject(o, "call", ng_means_call_name(v->call));
    add_number_or_null(o, "baseline_ms_per_epoch", 1, m->figure[0]);
    add_number_or_null(o, "current_ms_per_epoch", 1, m->figure[1]);
    add_number_or_null(o, "raw_ratio", isfinite(m->raw_ratio), m->raw_ratio);
    cJSON_AddBoolToObject(o, "log_test", m->log_test);
    add_number_or_null(o, "autocorrelation", m->has_test, m->rho);
    add_number_or_null(o, "variance_inflation", m->has_test, m->inflation);
    cJSON_AddItemToObject(o, "mix", mix_json(m));
    add_number_or_null(o, "past_runs", m->basis == NG_MEANS_RUNS, (double)m->runs);
    add_number_or_null(o, "between_runs_cv", m->basis == NG_MEANS_RUNS && m->has_test,
                       m->between_cv);
    add_number_or_null(o, "baseline_warmup_epochs", 1, (double)v->baseline.warmup);
    add_number_or_null(o, "current_warmup_epochs", 1, (double)v->current.warmup);
    return o;
}

static cJSON *verdict_json(const struct ng_verdict *v, const struct limits *lim)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    cJSON *samples = cJSON_CreateObject();
    cJSON *kernels = cJSON_CreateArray();
    cJSON *warnings = cJSON_CreateArray();
    char ts[32];

    add_number_or_null(root, "schema_version", 1, NG_SCHEMA_VERSION);
    cJSON_AddStringToObject(tool, "name", NG_TOOL_NAME);
    cJSON_AddStringToObject(tool, "version", NG_VERSION);
    cJSON_AddItemToObject(root, "tool", tool);
    /* the gate's name is what a history baseline looks for: one rule at every level */
    add_cut(root, "name", v->name, lim->text ? NG_HISTORY_NAME_MAX : 0, 1);
    cJSON_AddStringToObject(root, "verdict", ng_outcome_name(v->outcome));
    cJSON_AddStringToObject(root, "mode", v->mode);
    add_text(root, "metric", v->metric);
    add_text(root, "work", v->work[0] ? v->work : NULL);
    add_number_or_null(root, "baseline_ms_per_epoch", v->has_figures, v->baseline.ms_per_epoch);
    add_number_or_null(root, "current_ms_per_epoch", v->has_figures, v->current.ms_per_epoch);
    add_number_or_null(root, "ratio", v->has_figures, v->ratio);
    add_number_or_null(root, "threshold", v->threshold > 0, v->threshold);
    add_number_or_null(root, "epochs", v->epochs > 0, (double)v->epochs);
    add_number_or_null(root, "p_value", v->has_p, v->p_value);
    add_number_or_null(root, "u_p_value", v->has_p, v->u_p_value);
    if (v->has_ci) {
        cJSON *ci = cJSON_AddArrayToObject(root, "ratio_ci");
        for (int i = 0; i < 2; i++) {
            char buf[40];
            ng_fmt_double(buf, sizeof buf, v->ratio_ci[i]);
            cJSON_AddItemToArray(ci, cJSON_CreateRaw(buf));
        }
        cJSON_AddStringToObject(root, "ratio_ci_method", v->ratio_ci_method);
    } else {
        cJSON_AddNullToObject(root, "ratio_ci");
        cJSON_AddNullToObject(root, "ratio_ci_method");
    }
    add_number_or_null(root, "epochs_needed", v->epochs_needed > 0, v->epochs_needed);
    cJSON_AddItemToObject(root, "decision", decision_json(v));
    add_number_or_null(root, "alpha", 1, v->alpha);
    cJSON_AddItemToObject(root, "policy", policy_json(v, lim));
    cJSON_AddStringToObject(root, "total_verdict",
                            ng_outcome_name(v->has_figures ? v->total_outcome : v->outcome));
    cJSON_AddBoolToObject(root, "under_floor", v->under_floor);
    cJSON_AddBoolToObject(root, "stale_baseline", v->stale_baseline);
    cJSON_AddItemToObject(root, "comparability", comparability_json(&v->comparability, lim));
    cJSON_AddItemToObject(root, "baseline", side_json(&v->baseline, v->has_figures, lim));
    cJSON_AddItemToObject(root, "baseline_history", baseline_history_json(&v->history, lim));
    cJSON_AddItemToObject(root, "current", side_json(&v->current, v->has_figures, lim));
    if (v->has_figures) {
        cJSON_AddItemToObject(samples, "baseline", number_array(v->baseline.samples,
                                                                v->baseline.n_samples,
                                                                lim->n_samples));
        cJSON_AddItemToObject(samples, "current", number_array(v->current.samples,
                                                               v->current.n_samples,
                                                               lim->n_samples));
        cJSON_AddItemToObject(root, "samples", samples);
    } else {
        cJSON_Delete(samples);
        cJSON_AddNullToObject(root, "samples");
    }
    for (size_t i = 0; i < upto(v->n_kernels, lim->n_kernels); i++)
        cJSON_AddItemToArray(kernels, kernel_json(&v->kernels[i], lim));
    cJSON_AddItemToObject(root, "kernels", kernels);
    cJSON_AddItemToObject(root, "ranges", ranges_json(v, lim));
    for (size_t i = 0; i < upto(v->n_warnings, lim->n_warnings); i++)
        cJSON_AddItemToArray(warnings, cut_item(v->warnings[i], lim->text, 0));
    cJSON_AddItemToObject(root, "warnings", warnings);
    char *message = ng_verdict_text_headline_string(v);
    add_cut(root, "message", message, lim->text, 0);
    free(message);
    add_cut(root, "error", v->outcome == NG_OUTCOME_ERROR ? v->error : NULL, lim->text, 0);
    cJSON_AddItemToObject(root, "context", context_json(&v->context, lim));
    ng_fmt_utc(ts, sizeof ts, v->timestamp, 1);
    cJSON_AddStringToObject(root, "timestamp", ts);
    if (lim->rows)
        cJSON_AddItemToObject(root, "rows", rows_json(v, lim));
    return root;
}

/* cJSON escapes only the C0 controls; DEL and the C1 controls (U+0080 to
 * U+009F, some terminals take U+009B for ESC [) are escaped here too, so
 * `--json -` cannot drive a terminal.  They occur only inside strings: the
 * JSON syntax itself is ASCII. */
static void add_escaped(struct ng_buf *out, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; p++) {
        if (*p == 0x7F) {
            ng_buf_adds(out, "\\u007f");
        } else if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            ng_buf_addf(out, "\\u%04x", p[1]);
            p++;
        } else {
            ng_buf_add(out, p, 1);
        }
    }
}

/* Prints and frees root: formatted (tabs, as --json always was) or on
 * one line. */
static int print_json(cJSON *root, int compact, const char *what, struct ng_buf *out,
                      struct ng_err *err)
{
    char *text = compact ? cJSON_PrintUnformatted(root) : cJSON_Print(root);

    cJSON_Delete(root);
    if (!text)
        return ng_err_set(err, "unable to render the %s: out of memory", what);
    add_escaped(out, text);
    ng_buf_adds(out, "\n");
    cJSON_free(text);
    return 0;
}

static int json_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    return print_json(verdict_json(v, &no_rows), 0, "JSON verdict", out, err);
}

static cJSON *counts_json(const struct ng_verdict_batch_counts *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++)
        add_number_or_null(o, ng_outcome_name((enum ng_outcome)k), 1,
                           (double)c->by_outcome[k]);
    return o;
}

/* --json in batch mode: one document, every gate's verdict in manifest
 * order, and the batch's own outcome. */
static int json_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                             struct ng_err *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    cJSON *gates = cJSON_CreateArray();
    struct ng_verdict_batch_counts c;
    char ts[32];

    ng_verdict_batch_count(b, &c);
    add_number_or_null(root, "schema_version", 1, NG_SCHEMA_VERSION);
    cJSON_AddStringToObject(tool, "name", NG_TOOL_NAME);
    cJSON_AddStringToObject(tool, "version", NG_VERSION);
    cJSON_AddItemToObject(root, "tool", tool);
    add_text(root, "manifest", b->manifest);
    cJSON_AddStringToObject(root, "verdict", ng_outcome_name(c.outcome));
    cJSON_AddItemToObject(root, "counts", counts_json(&c));
    for (size_t i = 0; i < b->n; i++)
        cJSON_AddItemToArray(gates, verdict_json(b->verdicts[i], &no_rows));
    cJSON_AddItemToObject(root, "gates", gates);
    ng_fmt_utc(ts, sizeof ts, b->timestamp, 1);
    cJSON_AddStringToObject(root, "timestamp", ts);
    return print_json(root, 0, "JSON document", out, err);
}

const struct ng_reporter ng_reporter_json = {
    .name = "json",
    .render = json_render,
    .render_batch = json_render_batch,
};

/* The verdict on one line, everything in it (the current side's rows
 * too): how a batch's gate hands its verdict to the batch.  cJSON escapes
 * every control character inside strings, so the only newline is the last
 * byte. */
static int json_line_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    return print_json(verdict_json(v, &everything), 1, "JSON line", out, err);
}

const struct ng_reporter ng_reporter_json_line = {
    .name = "json-line",
    .render = json_line_render,
};

/* --history: the verdict on one line with its rows, within
 * NG_HISTORY_LINE_LIMIT bytes: the first level of limits under which it
 * fits (the last always does: a few KB); "trimmed" says whether it took
 * more than level 0.  A batch is one line per gate (the dispatcher
 * concatenates). */
static int history_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    size_t n = sizeof line_levels / sizeof line_levels[0];

    for (size_t level = 0; level < n; level++) {
        struct ng_buf line = NG_BUF_INIT;
        cJSON *root = verdict_json(v, &line_levels[level]);
        cJSON_AddBoolToObject(root, "trimmed", level > 0);
        if (print_json(root, 1, "history line", &line, err) < 0)
            return -1;
        if (line.len <= NG_HISTORY_LINE_LIMIT || level + 1 == n) {
            ng_buf_add(out, line.data, line.len);
            ng_buf_release(&line);
            return 0;
        }
        ng_buf_release(&line);
    }
    return 0;
}

const struct ng_reporter ng_reporter_history = {
    .name = "history",
    .render = history_render,
};

/* ---- github-action-benchmark, customSmallerIsBetter ---- */

/* Text for people, so fixed short formats, unlike the exact "value". */
static char *benchmark_extra(const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    char threshold[32];

    ng_fmt_threshold(threshold, sizeof threshold, v->threshold);
    ng_buf_addf(&b, "verdict %s; baseline %.3f ms/epoch; ratio %.3fx (threshold %sx)",
                ng_outcome_name(v->outcome), v->baseline.ms_per_epoch, v->ratio, threshold);
    if (v->has_p)
        ng_buf_addf(&b, "; p=%.3g", v->p_value);
    if (v->epochs > 0)
        ng_buf_addf(&b, "; epochs %ld", v->epochs);
    ng_buf_addf(&b, "; %s mode", v->mode);
    return ng_buf_detach(&b);
}

/* One entry per gate with figures: a gate that errored has no value to
 * chart, and a made-up one would draw a false point. */
static cJSON *benchmark_entry(const struct ng_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    char range[96];
    char *extra = benchmark_extra(v);

    add_text(o, "name", v->name);
    cJSON_AddStringToObject(o, "unit", "ms");
    add_number_or_null(o, "value", 1, v->current.ms_per_epoch);
    snprintf(range, sizeof range, "%.3f..%.3f", v->current.min_ms, v->current.max_ms);
    cJSON_AddStringToObject(o, "range", range);
    add_text(o, "extra", extra);
    free(extra);
    return o;
}

static int benchmark_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                                  struct ng_err *err)
{
    cJSON *root = cJSON_CreateArray();

    for (size_t i = 0; i < b->n; i++)
        if (b->verdicts[i]->has_figures)
            cJSON_AddItemToArray(root, benchmark_entry(b->verdicts[i]));
    return print_json(root, 0, "benchmark JSON", out, err);
}

const struct ng_reporter ng_reporter_benchmark = {
    .name = "benchmark",
    .render_batch = benchmark_render_batch,
};
