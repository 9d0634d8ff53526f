#include "ranges/ng_ranges.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/ng_profile.h"
#include "core/ng_range_groups.h"
#include "sources/ng_source.h"
#include "sources/nsysrep/ng_cache.h"
#include "util/ng_file.h"
#include "util/ng_options.h"
#include "util/ng_text.h"
#include "util/ng_util.h"
#include "util/ng_version.h"

#define DEFAULT_TOP 20

/* ---- options ---- */

static int set_top(void *target, struct ng_option_value *v)
{
    struct ng_ranges_opts *o = target;
    char *end;

    errno = 0;
    o->top = strtol(v->text, &end, 10);
    if (!*v->text || *end || errno || o->top < 1 || o->top > 1000000)
        return v->problem = "is not a whole number from 1 to 1000000", -1;
    return 0;
}

static int take_profile(void *ctx, const char *arg, struct ng_err *err)
{
    struct ng_ranges_opts *o = ctx;

    if (o->n_profiles == NG_RANGES_MAX_FILES)
        return ng_err_set(err, "ranges: at most %d profiles", NG_RANGES_MAX_FILES);
    o->profiles[o->n_profiles++] = arg;
    return 0;
}

#define R(member) offsetof(struct ng_ranges_opts, member)

/* --nsys, --cache-dir and --no-cache are the gate's, variables included. */
static const struct ng_option rows[] = {
    { .flag = "json", .env = "NSYS_GATE_RANGES_JSON", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = R(json), .meta = "FILE",
      .help = "the groups of every profile as JSON, written atomically" },
    { .flag = "nsys", .env = "NSYS_GATE_NSYS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = R(nsys), .meta = "PATH",
      .help = "the nsys that exports .nsys-rep reports (default: nsys on PATH)" },
    { .flag = "cache-dir", .env = "NSYS_GATE_CACHE_DIR", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = R(cache_dir), .meta = "DIR",
      .help = "the export cache for .nsys-rep reports, as the gate's" },
    { .flag = "no-cache", .env = "NSYS_GATE_NO_CACHE", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = R(no_cache), .help = "export .nsys-rep reports afresh" },
    { .flag = "top", .takes = NG_OPTION_VALUE, .parse = set_top, .meta = "N",
      .help = "groups listed a profile, biggest first (default 20)" },
    NG_OPTIONS_HELP(struct ng_ranges_opts, show_help),
};

static const struct ng_options table = {
    .rows = rows,
    .n = sizeof rows / sizeof rows[0],
    .command = "ranges",
    .prefix = "ranges: ",
    .usage = "[OPTIONS] PROFILE...",
    .about = "Lists the NVTX ranges of SQLite exports and .nsys-rep reports (and the\n"
             "user_annotation and cpu_op ranges of torch.profiler traces), grouped by name\n"
             "with digits as '#': each group's count, kernel time launched inside, threads\n"
             "and nesting depth, biggest first; then an --epoch-range for the most step-like\n"
             "group (3 or more ranges, similar time each, half the kernel time or more).",
    .operand = take_profile,
};

const struct ng_options *ng_ranges_options(void)
{
    return &table;
}

void ng_ranges_help(FILE *out)
{
    ng_options_help(out, &table);
}

int ng_ranges_parse(struct ng_ranges_opts *o, int argc, char **argv, struct ng_err *err)
{
    memset(o, 0, sizeof *o);
    o->top = DEFAULT_TOP;
    if (ng_options_parse(&table, o, argc, argv, err) < 0)
        return -1;
    if (!o->show_help && o->n_profiles == 0)
        return ng_err_set(err, "ranges: no profile given (%s ranges PROFILE...)", NG_TOOL_NAME);
    return 0;
}

/* ---- one profile ---- */

struct listed {
    const char *path;
    enum ng_format format;
    int listed;                /* the kind lists ranges (an nsys export or report) */
    size_t n_ranges;
    int64_t total_ns;
    struct ng_range_group *groups;
    size_t n_groups;
    long step;                 /* the step-like group, -1: none */
};

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static void text_line(struct ng_buf *b, const char *s, size_t max)
{
    size_t len = strlen(s);
    ng_text_clean(b, s, len > max ? max : len, NG_TEXT_ESCAPE_CONTROLS);
    if (len > max)
        ng_buf_adds(b, "...");
}

/* What a format's ranges are called, what to do when it has none, and
 * how to mark a step in it (a format not listed: NVTX's words). */
#define ROCPROF_NONE                                                                         \
    ": no ROCTx ranges. Gate it in total mode (--epochs N), or mark each training step with " \
    "roctxRangePush(\"step N\") / roctxRangePop() and record with rocprofv3 --marker-trace "   \
    "(and --hip-trace, to attribute each kernel to the step that launched it)\n"
#define ROCPROF_STEP "a ROCTx range (roctxRangePush(\"step N\"))"
static const struct {
    enum ng_format format;
    const char *ranges, *none, *step;
} range_words[] = {
    { NG_FORMAT_KINETO, "range",
      ": no user_annotation or cpu_op events. Gate it in total mode (--epochs N), or record "
      "with torch.profiler's schedule, whose ProfilerStep#N ranges --epoch-range auto reads\n",
      "torch.profiler's schedule (ProfilerStep#N)" },
    { NG_FORMAT_ROCPD, "ROCTx range", ROCPROF_NONE, ROCPROF_STEP },
    { NG_FORMAT_ROCPROF_JSON, "ROCTx range", ROCPROF_NONE, ROCPROF_STEP },
    { NG_FORMAT_ROCPROF_CSV, "ROCTx range", ROCPROF_NONE, ROCPROF_STEP },
};

/* Word `which` (0 the ranges, 1 none, 2 a step) of a format; NULL: NVTX's. */
static const char *words_of(enum ng_format f, int which)
{
    for (size_t i = 0; i < sizeof range_words / sizeof range_words[0]; i++)
        if (range_words[i].format == f)
            return which == 0 ? range_words[i].ranges
                   : which == 1 ? range_words[i].none : range_words[i].step;
    return NULL;
}

static void list_text(struct ng_buf *b, const struct listed *l, long top)
{
    text_line(b, l->path, 200);
    if (l->listed && l->n_ranges == 0 && words_of(l->format, 1)) {
        ng_buf_adds(b, words_of(l->format, 1));
        return;
    }
    if (!l->listed) {
        ng_buf_adds(b, ": saved nsys stats text has no NVTX ranges. Gate it in total mode "
                       "(--epochs N), or list the export or the .nsys-rep it came from\n");
        return;
    }
    if (l->n_ranges == 0) {
        ng_buf_adds(b, ": no NVTX ranges. Gate it in total mode (--epochs N), or mark each "
                       "training step with torch.cuda.nvtx.range(\"train_step\") and capture "
                       "with nsys profile -t cuda,nvtx\n");
        return;
    }
    const char *ranges = words_of(l->format, 0);
    ng_buf_addf(b, ": %zu %s%s in %zu group%s, %.3f ms of kernel time\n", l->n_ranges,
                ranges ? ranges : "NVTX range", l->n_ranges == 1 ? "" : "s", l->n_groups,
                l->n_groups == 1 ? "" : "s", ms(l->total_ns));
    ng_buf_adds(b, "   ranges   kernel ms   share     ms each     cv  threads  depth  group\n");
    for (size_t i = 0; i < l->n_groups && i < (size_t)top; i++) {
        const struct ng_range_group *g = &l->groups[i];
        char depth[32];
        if (g->min_depth == g->max_depth)
            snprintf(depth, sizeof depth, "%d", g->min_depth);
        else
            snprintf(depth, sizeof depth, "%d-%d", g->min_depth, g->max_depth);
        ng_buf_addf(b, "  %7zu  %10.3f  %5.1f%%  %10.3f  %5.2f  %7zu  %-5s  ", g->count,
                    ms(g->gpu_ns), g->share * 100, g->mean_ms, g->cv, g->threads, depth);
        text_line(b, g->name, 120);
        ng_buf_adds(b, "\n");
    }
    if (l->n_groups > (size_t)top)
        ng_buf_addf(b, "  ... and %zu more groups (--top)\n", l->n_groups - (size_t)top);
    if (l->step < 0) {
        ng_buf_addf(b, "  no group is step-like (%d or more ranges, similar kernel time each, "
                       "%.0f%% of the kernel time or more): gate in total mode, or mark the "
                       "training step with %s\n", NG_RANGE_STEP_MIN,
                    NG_RANGE_STEP_SHARE * 100,
                    words_of(l->format, 2) ? words_of(l->format, 2) : "an NVTX range");
        return;
    }
    const struct ng_range_group *g = &l->groups[l->step];
    char *pattern = ng_range_group_pattern(g);
    ng_buf_adds(b, "  suggested: --epoch-range '");
    text_line(b, pattern, 400);
    ng_buf_addf(b, "'  (%zu ranges, %.1f%% of the kernel time, %.3f ms each)\n", g->count,
                g->share * 100, g->mean_ms);
    free(pattern);
}

static int list_one(const struct ng_source_opts *src, const char *path, struct listed *l,
                    struct ng_err *err)
{
    struct ng_profile p;
    ng_profile_init(&p, path);
    memset(l, 0, sizeof *l);
    l->path = path;
    l->step = -1;
    int ret = ng_source_load(&p, src, err);
    l->format = p.format;
    l->listed = p.ranges != NULL;
    if (ret == 0 && p.listing) {
        /* a summary: the groups listed when it was made, moved here */
        l->listed = p.listing->listed;
        l->n_ranges = p.listing->n_ranges;
        l->total_ns = p.listing->total_ns;
        l->groups = p.listing->groups;
        l->n_groups = p.listing->n_groups;
        p.listing->groups = NULL;
        p.listing->n_groups = 0;
        l->step = ng_range_groups_step(l->groups, l->n_groups);
    } else if (ret == 0 && p.ranges) {
        l->n_ranges = p.ranges->n;
        l->total_ns = p.total_ns;
        l->groups = ng_range_groups(p.ranges->r, p.ranges->n, p.total_ns, &l->n_groups);
        l->step = ng_range_groups_step(l->groups, l->n_groups);
    }
    ng_profile_release(&p);
    return ret;
}

/* ---- JSON ---- */

static void add_num(cJSON *o, const char *key, double v, int is_ms)
{
    char buf[40];
    (is_ms ? ng_fmt_ms : ng_fmt_double)(buf, sizeof buf, v);
    cJSON_AddRawToObject(o, key, buf);
}

static void add_text(cJSON *o, const char *key, const char *s)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_text_clean(&b, s, strlen(s), NG_TEXT_UTF8_ONLY);
    cJSON_AddStringToObject(o, key, b.data ? b.data : "");
    ng_buf_release(&b);
}

static cJSON *profile_json(const struct listed *l)
{
    cJSON *o = cJSON_CreateObject(), *groups = cJSON_CreateArray();
    add_text(o, "path", l->path);
    cJSON_AddStringToObject(o, "format", ng_format_name(l->format));
    add_num(o, "ranges", (double)l->n_ranges, 0);
    add_num(o, "kernel_ms", ms(l->total_ns), 1);
    for (size_t i = 0; i < l->n_groups; i++) {
        const struct ng_range_group *g = &l->groups[i];
        cJSON *j = cJSON_CreateObject();
        add_text(j, "group", g->name);
        add_text(j, "example", g->example);
        add_num(j, "ranges", (double)g->count, 0);
        add_num(j, "kernel_ms", ms(g->gpu_ns), 1);
        add_num(j, "share", g->share, 0);
        add_num(j, "mean_ms", g->mean_ms, 1);
        add_num(j, "cv", g->cv, 0);
        add_num(j, "threads", (double)g->threads, 0);
        add_num(j, "min_depth", g->min_depth, 0);
        add_num(j, "max_depth", g->max_depth, 0);
        cJSON_AddItemToArray(groups, j);
    }
    cJSON_AddItemToObject(o, "groups", groups);
    if (l->step >= 0) {
        char *pattern = ng_range_group_pattern(&l->groups[l->step]);
        add_text(o, "suggested_epoch_range", pattern);
        free(pattern);
    } else {
        cJSON_AddNullToObject(o, "suggested_epoch_range");
    }
    return o;
}

static int write_json(const char *path, const struct listed *l, size_t n, struct ng_err *err)
{
    cJSON *root = cJSON_CreateObject(), *profiles = cJSON_CreateArray();
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "name", NG_TOOL_NAME);
    cJSON_AddStringToObject(tool, "version", NG_VERSION);
    cJSON_AddItemToObject(root, "tool", tool);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(profiles, profile_json(&l[i]));
    cJSON_AddItemToObject(root, "profiles", profiles);
    char *text = cJSON_Print(root);
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_adds(&b, text);
    ng_buf_adds(&b, "\n");
    int ret = ng_write_file_atomic(path, b.data, b.len, err);
    if (ret < 0)
        ng_err_prefix(err, "--json");
    ng_buf_release(&b);
    cJSON_free(text);
    cJSON_Delete(root);
    return ret;
}

int ng_ranges_run(const struct ng_ranges_opts *o, struct ng_ranges_result *r, struct ng_err *err)
{
    struct ng_cache cache = { 0 };
    char *default_dir = NULL;
    struct ng_buf text = NG_BUF_INIT;
    struct listed *l = ng_xcalloc(o->n_profiles + 1, sizeof *l);
    int ret = 0;

    memset(r, 0, sizeof *r);
    if (!o->no_cache)
        cache.dir = o->cache_dir ? o->cache_dir
                                 : (default_dir = ng_cache_default_dir(&cache.parent));
    struct ng_source_opts src = { .nsys = o->nsys, .cache = cache.dir ? &cache : NULL,
                                  .list_ranges = 1 };
    size_t n = 0;
    for (; n < o->n_profiles; n++) {
        if (list_one(&src, o->profiles[n], &l[n], err) < 0) {
            ret = -1;
            break;
        }
        list_text(&text, &l[n], o->top);
    }
    if (o->json) {
        struct ng_err jerr;
        if (write_json(o->json, l, n, &jerr) < 0 && ret == 0) {
            *err = jerr;
            ret = -1;
        }
    }
    for (size_t i = 0; i < o->n_profiles; i++)
        ng_range_groups_free(l[i].groups, l[i].n_groups);
    free(l);
    free(default_dir);
    r->text = ng_buf_detach(&text);
    return ret;
}

void ng_ranges_result_release(struct ng_ranges_result *r)
{
    free(r->text);
    r->text = NULL;
}
