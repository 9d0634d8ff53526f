/* The JSON verdict (schemas/verdict.schema.json): the only file that uses
 * cJSON.  Every string passes through ng_text_clean() first, so invalid
 * UTF-8 in a path or kernel name still gives valid JSON; cJSON escapes the
 * control characters and always prints '.' decimals. */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "ng_reporter.h"
#include "ng_version.h"

static void add_text(cJSON *obj, const char *key, const char *s)
{
    if (!s) {
        cJSON_AddNullToObject(obj, key);
        return;
    }
    char *clean = ng_text_cleaned(s, NG_TEXT_UTF8_ONLY);
    cJSON_AddStringToObject(obj, key, clean);
    free(clean);
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

static cJSON *number_array(const double *x, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        char buf[40];
        ng_fmt_double(buf, sizeof buf, x[i]);
        cJSON_AddItemToArray(a, cJSON_CreateRaw(buf));
    }
    return a;
}

static cJSON *run_json(const struct ng_verdict_run *r)
{
    cJSON *o = cJSON_CreateObject();

    add_text(o, "path", r->path);
    cJSON_AddStringToObject(o, "format", ng_format_name(r->format));
    add_number_or_null(o, "total_gpu_ms", r->loaded, (double)r->total_ns / 1e6);
    add_number_or_null(o, "kernel_count", r->loaded, (double)r->kernel_count);
    return o;
}

static cJSON *side_json(const struct ng_verdict_side *s, int figures)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *runs = cJSON_CreateArray();

    add_text(o, "path", s->path);
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
    for (size_t i = 0; i < s->n_runs; i++)
        cJSON_AddItemToArray(runs, run_json(&s->runs[i]));
    cJSON_AddItemToObject(o, "runs", runs);
    return o;
}

static cJSON *kernel_json(const struct ng_kernel_delta *k)
{
    cJSON *o = cJSON_CreateObject();

    add_text(o, "name", k->name);
    cJSON_AddStringToObject(o, "status", ng_kernel_status_name(k->status));
    add_number_or_null(o, "baseline_ms_per_epoch", 1, k->baseline_ms_per_epoch);
    add_number_or_null(o, "current_ms_per_epoch", 1, k->current_ms_per_epoch);
    add_number_or_null(o, "delta_ms_per_epoch", 1, k->delta_ms_per_epoch);
    add_number_or_null(o, "share", 1, k->share);
    add_number_or_null(o, "baseline_instances_per_epoch", 1, k->baseline_instances_per_epoch);
    add_number_or_null(o, "current_instances_per_epoch", 1, k->current_instances_per_epoch);
    return o;
}

static cJSON *verdict_json(const struct ng_verdict *v)
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
    add_text(root, "name", v->name);
    cJSON_AddStringToObject(root, "verdict", ng_outcome_name(v->outcome));
    cJSON_AddStringToObject(root, "mode", v->mode);
    add_text(root, "metric", v->metric);
    add_number_or_null(root, "baseline_ms_per_epoch", v->has_figures, v->baseline.ms_per_epoch);
    add_number_or_null(root, "current_ms_per_epoch", v->has_figures, v->current.ms_per_epoch);
    add_number_or_null(root, "ratio", v->has_figures, v->ratio);
    add_number_or_null(root, "threshold", v->threshold > 0, v->threshold);
    add_number_or_null(root, "epochs", v->epochs > 0, (double)v->epochs);
    add_number_or_null(root, "p_value", v->has_p, v->p_value);
    add_number_or_null(root, "alpha", 1, v->alpha);
    cJSON_AddItemToObject(root, "baseline", side_json(&v->baseline, v->has_figures));
    cJSON_AddItemToObject(root, "current", side_json(&v->current, v->has_figures));
    if (v->has_figures) {
        cJSON_AddItemToObject(samples, "baseline",
                              number_array(v->baseline.samples, v->baseline.n_samples));
        cJSON_AddItemToObject(samples, "current",
                              number_array(v->current.samples, v->current.n_samples));
        cJSON_AddItemToObject(root, "samples", samples);
    } else {
        cJSON_Delete(samples);
        cJSON_AddNullToObject(root, "samples");
    }
    for (size_t i = 0; i < v->n_kernels; i++)
        cJSON_AddItemToArray(kernels, kernel_json(&v->kernels[i]));
    cJSON_AddItemToObject(root, "kernels", kernels);
    for (size_t i = 0; i < v->n_warnings; i++) {
        char *clean = ng_text_cleaned(v->warnings[i], NG_TEXT_UTF8_ONLY);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(clean));
        free(clean);
    }
    cJSON_AddItemToObject(root, "warnings", warnings);
    add_text(root, "message", v->message);
    add_text(root, "error", v->outcome == NG_OUTCOME_ERROR ? v->error : NULL);
    ng_fmt_utc(ts, sizeof ts, v->timestamp, 1);
    cJSON_AddStringToObject(root, "timestamp", ts);
    return root;
}

static int json_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    cJSON *root = verdict_json(v);
    char *text = cJSON_Print(root);

    cJSON_Delete(root);
    if (!text)
        return ng_err_set(err, "unable to render the JSON verdict: out of memory");
    ng_buf_adds(out, text);
    ng_buf_adds(out, "\n");
    cJSON_free(text);
    return 0;
}

const struct ng_reporter ng_reporter_json = {
    .name = "json",
    .render = json_render,
};
