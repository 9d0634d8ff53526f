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

static cJSON *side_json(const struct ng_verdict_side *s)
{
    cJSON *o = cJSON_CreateObject();

    add_text(o, "path", s->path);
    if (s->path)
        cJSON_AddStringToObject(o, "format", ng_format_name(s->format));
    else
        cJSON_AddNullToObject(o, "format");
    add_number_or_null(o, "total_gpu_ms", s->loaded, (double)s->total_ns / 1e6);
    add_number_or_null(o, "kernel_count", s->loaded, (double)s->kernel_count);
    return o;
}

static cJSON *verdict_json(const struct ng_verdict *v)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    char ts[32];

    add_number_or_null(root, "schema_version", 1, NG_SCHEMA_VERSION);
    cJSON_AddStringToObject(tool, "name", NG_TOOL_NAME);
    cJSON_AddStringToObject(tool, "version", NG_VERSION);
    cJSON_AddItemToObject(root, "tool", tool);
    add_text(root, "name", v->name);
    cJSON_AddStringToObject(root, "verdict", ng_outcome_name(v->outcome));
    cJSON_AddStringToObject(root, "mode", v->mode);
    add_number_or_null(root, "baseline_ms_per_epoch", v->has_figures, v->baseline.ms_per_epoch);
    add_number_or_null(root, "current_ms_per_epoch", v->has_figures, v->current.ms_per_epoch);
    add_number_or_null(root, "ratio", v->has_figures, v->ratio);
    add_number_or_null(root, "threshold", v->threshold > 0, v->threshold);
    add_number_or_null(root, "epochs", v->epochs > 0, (double)v->epochs);
    cJSON_AddItemToObject(root, "baseline", side_json(&v->baseline));
    cJSON_AddItemToObject(root, "current", side_json(&v->current));
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
