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
#include "reporters/ng_report.h"
#include "reporters/ng_reporter.h"
#include "core/ng_rows.h"
#include "util/ng_version.h"

/* What a JSON rendering may hold.  --json and the batch children's lines
 * hold everything (all 0: no limit); a history line is at most
 * NG_HISTORY_LINE_LIMIT bytes, which the levels below keep (history_render
 * tries them in order). */
struct limits {
    int rows;            /* write the current side's rows (JSON lines) */
    size_t text;         /* JSON bytes of any string: paths, warnings, context, message */
    size_t name;         /* JSON bytes of a kernel or row name (ng_rows_name) */
    size_t n_rows;       /* named rows before the others row */
    size_t n_kernels, n_warnings, n_samples, n_runs, n_labels, n_patterns;
};

static const struct limits everything = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const struct limits no_rows = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

/* Level 0 is every real line; the others only for lines that would not
 * fit (thousands of warnings, 64 runs with long paths, hostile names).
 * Names keep one spelling at every level (NG_ROWS_NAME_MAX, hashed), and
 * the rows, which later baselines are made of, go last: the attribution's
 * kernels and the text give way first. */
static const struct limits line_levels[] = {
    { 1, 2048, NG_ROWS_NAME_MAX, NG_ROWS_CAP, 50, 20, 0, 0, 0, 0 },
    { 1, 256, NG_ROWS_NAME_MAX, NG_ROWS_CAP, 10, 10, 1000, 16, 32, 16 },
    { 1, 128, NG_ROWS_NAME_MAX, NG_ROWS_CAP, 5, 5, 200, 4, 16, 8 },
    { 1, 64, NG_ROWS_NAME_MAX, 20, 0, 1, 20, 1, 8, 2 },
};

/* at most `cap` of n (0: no limit) */
static size_t upto(size_t n, size_t cap)
{
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

/* Numbers go in as raw text in the shortest form that reads back exactly:
 * cJSON's own printing settles for 15 digits within an epsilon. */
static void add_number_or_null(cJSON *obj, const char *key, int known, double v)
{
    char buf[40];

    if (!known || v != v || v - v != 0) {   /* unknown, NaN or infinite */
        cJSON_AddNullToObject(obj, key);
        return;
    }
    ng_fmt_double(buf, sizeof buf, v);
    cJSON_AddRawToObject(obj, key, buf);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
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
        qsort(sorted, n, sizeof *sorted, by_value);
    }
    for (size_t i = 0; i < shown; i++) {
        char buf[40];
        double v = sorted ? sorted[shown > 1 ? i * (n - 1) / (shown - 1) : 0] : x[i];
        ng_fmt_double(buf, sizeof buf, v);
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
        add_number_or_null(o, "total_ms", 1, (double)p[i].ns / 1e6);
        add_number_or_null(o, "ms_per_epoch", per > 0, (double)p[i].ns / 1e6 / per);
        add_number_or_null(o, "launches", 1, (double)p[i].launches);
        cJSON_AddItemToArray(a, o);
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
    add_number_or_null(o, "median_ms", figures, s->ms_per_epoch);
    add_number_or_null(o, "min_ms", figures, s->min_ms);
    add_number_or_null(o, "max_ms", figures, s->max_ms);
    add_number_or_null(o, "mean_ms", figures, s->mean_ms);
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
    double per = figures ? s->epochs_counted : 0;
    if (s->has_places) {
        cJSON_AddItemToObject(o, "devices", places_json(s->devices, s->n_devices, "device", per));
        cJSON_AddItemToObject(o, "processes", places_json(s->processes, s->n_processes, "pid",
                                                          per));
    } else {
        cJSON_AddNullToObject(o, "devices");
        cJSON_AddNullToObject(o, "processes");
    }
    for (size_t i = 0; i < upto(s->n_runs, lim->n_runs); i++)
        cJSON_AddItemToArray(runs, run_json(&s->runs[i], lim));
    cJSON_AddItemToObject(o, "runs", runs);
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
    return o;
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
    add_number_or_null(o, "min_delta_ms", 1, p->min_delta_ms);
    add_number_or_null(o, "kernel_threshold", p->kernel_threshold > 0, p->kernel_threshold);
    /* the floor applied (the default is a share of the baseline epoch) */
    add_number_or_null(o, "kernel_min_delta_ms", p->kernel_threshold > 0 && v->has_figures,
                       v->kernel_floor_ms);
    cJSON_AddBoolToObject(o, "fail_on_improvement", p->fail_on_improvement);
    cJSON_AddStringToObject(o, "kernel_names", p->base_names ? "base" : "full");
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
    size_t cap = lim->text ? lim->n_rows : NG_ROWS_CAP, kept = 0;
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
        cJSON_AddStringToObject(it, "name", ng_rows_others);
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

/* {"path", "name", "window", "runs", "match", "since", "branch", "first",
 * "last"}, or null when the baseline is profiles. */
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
    add_number_or_null(root, "alpha", 1, v->alpha);
    cJSON_AddItemToObject(root, "policy", policy_json(v, lim));
    cJSON_AddStringToObject(root, "total_verdict",
                            ng_outcome_name(v->has_figures ? v->total_outcome : v->outcome));
    cJSON_AddBoolToObject(root, "under_floor", v->under_floor);
    cJSON_AddBoolToObject(root, "stale_baseline", v->stale_baseline);
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
    for (size_t i = 0; i < upto(v->n_warnings, lim->n_warnings); i++)
        cJSON_AddItemToArray(warnings, cut_item(v->warnings[i], lim->text, 0));
    cJSON_AddItemToObject(root, "warnings", warnings);
    char *message = ng_report_headline_text(v);
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

static cJSON *counts_json(const struct ng_batch_counts *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++)
        add_number_or_null(o, ng_outcome_name((enum ng_outcome)k), 1,
                           (double)c->by_outcome[k]);
    return o;
}

/* --json in batch mode: one document, every gate's verdict in manifest
 * order, and the batch's own outcome. */
static int json_render_batch(const struct ng_batch *b, struct ng_buf *out, struct ng_err *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    cJSON *gates = cJSON_CreateArray();
    struct ng_batch_counts c;
    char ts[32];

    ng_batch_count(b, &c);
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

static int benchmark_render_batch(const struct ng_batch *b, struct ng_buf *out,
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

/* ---- the verdict read back ---- */

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
    for (int f = NG_FORMAT_UNKNOWN; f <= NG_FORMAT_HISTORY; f++)
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
    cJSON_ArrayForEach(it, a)
        ng_profile_add_place(out, n, (int64_t)num_or_0(it, id), ns_of(num_or_0(it, "total_ms")),
                             (int64_t)num_or_0(it, "launches"));
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
    s->ms_per_epoch = num_or_0(o, "median_ms");
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
    }
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

/* "baseline_history" (null or absent: the baseline was profiles) */
static void read_baseline_history(struct ng_verdict_history *h, const cJSON *o)
{
    const cJSON *it;
    double x = 0;

    if (!cJSON_IsObject(o))
        return;
    h->on = 1;
    h->path = ng_xstrdup(str_or_empty(o, "path"));
    h->name = ng_xstrdup(str_or_empty(o, "name"));
    h->window = get_num(o, "window", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
    h->runs = get_num(o, "runs", &x) && x >= 0 && x < 1e15 ? (size_t)x : 0;
    const cJSON *match = cJSON_GetObjectItemCaseSensitive(o, "match");
    if (cJSON_IsObject(match))
        cJSON_ArrayForEach(it, match)
            if (cJSON_IsString(it))
                ng_context_set(&h->match, it->string, it->valuestring);
    if (get_str(o, "since"))
        h->has_since = ng_parse_utc(get_str(o, "since"), &h->since) == 0;
    if (get_str(o, "branch"))
        h->branch = ng_xstrdup(get_str(o, "branch"));
    h->branches = get_num(o, "branches", &x) && x >= 0 && x < 1e15 ? (size_t)x : h->branch != NULL;
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "first")))
        read_history_run(&h->first, cJSON_GetObjectItemCaseSensitive(o, "first"));
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "last")))
        read_history_run(&h->last, cJSON_GetObjectItemCaseSensitive(o, "last"));
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
    cJSON_ArrayForEach(it, warnings)
        if (cJSON_IsString(it))
            ng_verdict_warn(v, "%s", it->valuestring);
    snprintf(v->error, sizeof v->error, "%s", str_or_empty(root, "error"));
    const cJSON *context = cJSON_GetObjectItemCaseSensitive(root, "context");
    if (cJSON_IsObject(context))
        cJSON_ArrayForEach(it, context)
            if (cJSON_IsString(it))
                ng_context_set(&v->context, it->string, it->valuestring);
    if (get_str(root, "timestamp"))
        (void)ng_parse_utc(get_str(root, "timestamp"), &v->timestamp);
    read_rows(d, v, cJSON_GetObjectItemCaseSensitive(root, "rows"));
    read_baseline_history(&v->history, cJSON_GetObjectItemCaseSensitive(root, "baseline_history"));
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

int ng_verdict_doc_read(struct ng_verdict_doc *d, const char *text, size_t len,
                        struct ng_err *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    int ret = 0;

    memset(d, 0, sizeof *d);
    if (!root)
        ret = ng_err_set(err, "not valid JSON");
    else if (!end || !only_space(end, text + len))
        ret = ng_err_set(err, "more than one JSON value");
    else if (!cJSON_IsObject(root) ||
             !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "name")) ||
             outcome_of(get_str(root, "verdict"), &d->v.outcome) < 0)
        ret = ng_err_set(err, "not a JSON verdict");
    else
        read_verdict(d, root);
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
