/* The saved `nsys stats` backend: the kernel summary (cuda_gpu_kern_sum,
 * gpukernsum, cuda_gpu_kern_gb_sum, and the "CUDA Kernel Statistics" of
 * nsys before 2020.2) and the memory summary (cuda_gpu_mem_time_sum,
 * gpumemtimesum, "CUDA Memory Operation Statistics"), in every --format nsys
 * stats writes (column, table, csv, tsv, json, hdoc, htable), with or
 * without the console framing of `nsys stats` or `nsys profile --stats`,
 * any nsys version from 2019 to 2026, any time unit.
 *
 * Only those two summaries count: other reports in the same file
 * (nvtx_sum, cuda_api_sum, ...) are recognised by their header and skipped.
 * Headers are matched against a table of known columns, not by position,
 * so every version's layout is one entry, not one code path.  Each layout
 * turns its lines into cells (ng_nsys_summary_text.c,
 * ng_nsys_summary_markup.c); everything after that (which report, which
 * unit, which kind of work, what is counted) is shared
 * (ng_nsys_summary.c).  This file reads the lines: the console framing,
 * where a block begins, and the end. */
#include "sources/nsys_stats/ng_source_nsys_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ng_source_opts.h"
#include "sources/nsys_stats/ng_nsys_summary_markup.h"
#include "sources/nsys_stats/ng_nsys_summary.h"
#include "sources/nsys_stats/ng_nsys_summary_text.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

static const char *const csv_exts[] = { ".csv", ".tsv", ".txt", ".json", ".html", NULL };

static const char *const block_names[NG_SUMMARY_BLOCKS] = {
    [NG_SUMMARY_OTHER] = "other", [NG_SUMMARY_KERNEL] = "kernel", [NG_SUMMARY_MEMORY] = "memory",
};

/* Reports whose SKIPPED or ERROR line is the profile's problem, not noise:
 * those whose rows this backend counts, as the framing names them. */
static const struct { const char *name; enum ng_nsys_summary_block kind; } reports[] = {
    { "cuda_gpu_kern_sum", NG_SUMMARY_KERNEL },
    { "gpukernsum", NG_SUMMARY_KERNEL },
    { "cuda_gpu_kern_gb_sum", NG_SUMMARY_KERNEL },
    { "cuda_gpu_mem_time_sum", NG_SUMMARY_MEMORY },
    { "gpumemtimesum", NG_SUMMARY_MEMORY },
    { NULL, NG_SUMMARY_OTHER },
};

/* Units in the titles of nsys before 2020.2, whose headers name none
 * ("CUDA Kernel Statistics (nanoseconds)"). */
static const struct { const char *name; int exp10; } title_units[] = {
    { "(nanoseconds)", 0 }, { "(microseconds)", 3 }, { "(milliseconds)", 6 },
    { "(seconds)", 9 }, { NULL, 0 },
};

/* A duration of 10^k ns, for the rounding warning. */
static const char *const granules[] = {
    "1 ns", "10 ns", "100 ns", "1 us", "10 us", "100 us", "1 ms", "10 ms", "100 ms", "1 s",
};

static enum ng_nsys_summary_block report_kind(const char *name)
{
    for (int i = 0; reports[i].name; i++)
        if (strcmp(name, reports[i].name) == 0)
            return reports[i].kind;
    return NG_SUMMARY_OTHER;
}

/* ---- framing ---- */

/* The report a framing line announces:
 *   Processing [X.sqlite] with [/path/reports/cuda_gpu_kern_sum.py]...   (nsys stats 2022+)
 *   Running [/path/reports/gpukernsum.py X.sqlite]...                    (nsys stats 2021)
 *   [6/8] Executing 'cuda_gpu_kern_sum' stats report                     (nsys profile --stats) */
static int note_report(struct ng_nsys_summary *ps, const char *line)
{
    const char *name = NULL, *end = NULL;

    if (ng_nsys_summary_starts_with(line, "Processing [")) {
        const char *w = strstr(line, "] with [");
        end = w ? strstr(w, ".py]") : NULL;
        name = end;
        while (name && name > w && name[-1] != '/' && name[-1] != '[')
            name--;
    } else if (ng_nsys_summary_starts_with(line, "Running [")) {
        end = strstr(line, ".py ");
        name = end;
        while (name && name > line + 9 && name[-1] != '/' && name[-1] != '[')
            name--;
    } else if (line[0] == '[' && strstr(line, "] Executing '") &&
               ng_nsys_summary_ends_with(line, strlen(line), "' stats report")) {
        name = strstr(line, "] Executing '") + 13;
        end = strchr(name, '\'');
    } else {
        return 0;
    }
    ps->report[0] = '\0';
    ps->framed = 1;
    if (name && end && end > name)
        snprintf(ps->report, sizeof ps->report, "%.*s", (int)(end - name), name);
    ps->title_exp10 = -1;
    return 1;
}

/* An ERROR line under no named report is anyone's (a log, a README quoting
 * the gate): only nsys's SKIPPED wording is taken as nsys's word there. */
static void note_skip(struct ng_nsys_summary *ps, const char *line)
{
    int nsys_said = ng_nsys_summary_starts_with(line, "SKIPPED:") &&
                    strstr(line, " does not contain ");
    char **slot = ps->report[0] != '\0'
                      ? (report_kind(ps->report) != NG_SUMMARY_OTHER ? &ps->skipped : NULL)
                  : nsys_said ? &ps->skipped_unknown : NULL;
    if (slot && !*slot)
        *slot = ng_xstrdup(line);
}

/* "CUDA Kernel Statistics (nanoseconds)": the unit of the table below, in
 * nsys before 2020.2, whose header has none. */
static void note_title(struct ng_nsys_summary *ps, const char *line)
{
    size_t n = strlen(line);
    if (!strstr(line, "Statistics"))
        return;
    ng_nsys_summary_rtrim(line, &n);
    for (int i = 0; title_units[i].name; i++)
        if (ng_nsys_summary_ends_with(line, n, title_units[i].name))
            ps->title_exp10 = title_units[i].exp10;
}

/* ---- the line machine ---- */

static int feed(struct ng_nsys_summary *ps, const char *line);

/* A line of a table; one that shows there was no table after all is read
 * again, outside any block. */
static int table_line(struct ng_nsys_summary *ps, const char *line)
{
    int r = ng_nsys_summary_text_table_line(ps, line);
    return r == NG_SUMMARY_TEXT_AGAIN ? feed(ps, line) : r;
}

static int feed_block(struct ng_nsys_summary *ps, const char *line)
{
    switch (ps->state) {
    case NG_SUMMARY_JSON_ARRAY:
    case NG_SUMMARY_JSON_OBJECT:
        return ng_nsys_summary_markup_json_line(ps, line);
    case NG_SUMMARY_HTML_TABLE:
        return ng_nsys_summary_markup_html_line(ps, line);
    case NG_SUMMARY_TABLE_TOP:
    case NG_SUMMARY_TABLE_HEAD:
        return table_line(ps, line);
    case NG_SUMMARY_ROWS:
        if (ps->layout == NG_SUMMARY_TABLE)
            return table_line(ps, line);
        if (*line == '\0') {
            ps->state = NG_SUMMARY_OUTSIDE;
            return 0;
        }
        if (ps->hdr.kind == NG_SUMMARY_OTHER)
            return 0;
        return ps->layout == NG_SUMMARY_COLUMN ? ng_nsys_summary_text_column_row(ps, line)
                                             : ng_nsys_summary_text_delimited_row(ps, line);
    case NG_SUMMARY_OUTSIDE:
        break;
    }
    return 0;
}

static int feed(struct ng_nsys_summary *ps, const char *line)
{
    if (ps->state != NG_SUMMARY_OUTSIDE && !(ps->state == NG_SUMMARY_ROWS && note_report(ps, line)))
        return feed_block(ps, line);
    if (ps->state != NG_SUMMARY_OUTSIDE) {   /* a framing line ends a block of rows */
        ps->state = NG_SUMMARY_OUTSIDE;
        return 0;
    }
    if (note_report(ps, line))
        return 0;
    if (ng_nsys_summary_starts_with(line, "SKIPPED:") ||
        ng_nsys_summary_starts_with(line, "ERROR:")) {
        note_skip(ps, line);
        return 0;
    }
    if (ng_nsys_summary_text_try_delimited(ps, line))
        return 0;
    if (ng_nsys_summary_line_is(line, "[")) {
        ng_nsys_summary_markup_begin(ps, NG_SUMMARY_JSON_ARRAY);
        return 0;
    }
    if (ng_nsys_summary_line_is(line, "<table>")) {
        ng_nsys_summary_markup_begin(ps, NG_SUMMARY_HTML_TABLE);
        return 0;
    }
    if (ng_nsys_summary_text_is_border(line)) {
        ng_nsys_summary_text_table_spans(ps, line);
        ps->layout = NG_SUMMARY_TABLE;
        ps->state = NG_SUMMARY_TABLE_TOP;
        free(ps->pending);
        ps->pending = NULL;
        return 0;
    }
    if (ps->pending && ng_nsys_summary_text_is_dash_line(line)) {
        ng_nsys_summary_text_column_header(ps, line);
        free(ps->pending);
        ps->pending = NULL;
        return 0;
    }
    note_title(ps, line);
    free(ps->pending);
    ps->pending = *line ? ng_xstrdup(line) : NULL;
    return 0;
}

/* ---- the end: refusals, then warnings ---- */

/* Anything of nsys's read so far: a framing line, a summary, its SKIPPED. */
static int nsys_seen(const struct ng_nsys_summary *ps)
{
    return ps->framed || ps->skipped || ps->skipped_unknown || ps->blocks[NG_SUMMARY_OTHER] ||
           ps->blocks[NG_SUMMARY_KERNEL] || ps->blocks[NG_SUMMARY_MEMORY];
}

static int refuse_empty(struct ng_nsys_summary *ps)
{
    const char *said = ps->skipped ? ps->skipped : ps->skipped_unknown;

    if (ng_profile_no_counted_work(ps->p, ps->work, ps->err) < 0)
        return -1;
    if (!ps->blocks[NG_SUMMARY_KERNEL] && said) {
        char *shown = ng_text_cleaned(said, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(ps->err, "'%s' has no CUDA kernel data: nsys said \"%s\"", ps->path, shown);
        free(shown);
        return -1;
    }
    if (!ps->blocks[NG_SUMMARY_KERNEL] && !ps->blocks[NG_SUMMARY_MEMORY]) {
        ng_err_set(ps->err, ps->framed || ps->blocks[NG_SUMMARY_OTHER]
                                ? "nsys stats text with no kernel or memory summary"
                                : "text with no nsys report");
        return NG_SOURCE_NOT_A_PROFILE;
    }
    return ng_err_set(ps->err, "'%s' has no CUDA kernel data (the %s summary has no rows)",
                      ps->path, block_names[ps->blocks[NG_SUMMARY_KERNEL] ? NG_SUMMARY_KERNEL
                                                                     : NG_SUMMARY_MEMORY]);
}

static void warn_rounding(struct ng_nsys_summary *ps)
{
    int64_t total = ps->p->total_ns, bound = ps->round_ns;

    if (ps->round_exp <= 0 || (total > 0 && bound <= total / 1000))
        return;   /* within 0.1%: nothing a threshold could notice */
    int64_t us = bound / 1000 + (bound % 1000 >= 500);
    char share[48];
    if (total > 0)
        snprintf(share, sizeof share, "%.2f%%", (double)bound * 100.0 / (double)total);
    else
        snprintf(share, sizeof share, "the total reads as 0 ms");
    ng_profile_warn(ps->p, "'%s': nsys rounded its times to %s (Total Time in %s with %d "
                    "decimals), so the total may be off by up to %" PRId64 ".%03" PRId64
                    " ms (%s); save the summary in ns, the default --timeunit, for exact "
                    "figures", ps->path, granules[ps->round_exp < 10 ? ps->round_exp : 9],
                    ps->round_unit, ps->round_decimals, us / 1000, us % 1000, share);
}

static int finish(struct ng_nsys_summary *ps)
{
    if (ps->state == NG_SUMMARY_JSON_ARRAY || ps->state == NG_SUMMARY_JSON_OBJECT)
        return ng_err_set(ps->err, "'%s' ends inside a json report (no closing ']'): "
                          "is it complete?", ps->path);
    if (ps->state == NG_SUMMARY_HTML_TABLE)
        return ng_err_set(ps->err, "'%s' ends inside an html table (no closing </table>): "
                          "is it complete?", ps->path);
    if (ps->blocks[NG_SUMMARY_KERNEL] > 1)
        return ng_err_set(ps->err,
                          "'%s' holds %d kernel summary reports; save only one "
                          "(e.g. --report cuda_gpu_kern_sum), they would be counted twice",
                          ps->path, ps->blocks[NG_SUMMARY_KERNEL]);
    if (ps->blocks[NG_SUMMARY_MEMORY] > 1)
        return ng_err_set(ps->err,
                          "'%s' holds %d memory summary reports; save only one "
                          "(e.g. --report cuda_gpu_mem_time_sum), they would be counted twice",
                          ps->path, ps->blocks[NG_SUMMARY_MEMORY]);
    if (ps->p->n_rows == 0)
        return refuse_empty(ps);
    if (ng_profile_finish(ps->p, ps->err) < 0)
        return -1;
    warn_rounding(ps);
    if (ps->cut_merged)
        ng_profile_warn(ps->p, "'%s': nsys cut %zu names to fit its column width (they end in "
                        "'" NG_SUMMARY_ELLIPSIS "'), and %zu of those rows merged into another "
                        "row with the same cut name: the totals are exact, but different "
                        "kernels may now be one row; save the summary with --format csv for "
                        "whole names",
                        ps->path, ps->cut_rows, ps->cut_merged);
    return 0;
}

int ng_nsys_stats_parse_stream(struct ng_profile *p, FILE *f, const char *shown,
                               const struct ng_source_opts *opts, struct ng_err *err)
{
    struct ng_nsys_summary ps = { .path = shown, .p = p, .err = err, .title_exp10 = -1 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int ret = 0;

    ps.work = opts && opts->work ? opts->work : NG_WORK_DEFAULT;
    ps.base_names = opts && opts->base_names;
    while ((n = getline(&line, &cap, f)) >= 0) {
        ps.lineno++;
        if (memchr(line, '\0', (size_t)n)) {
            if (!nsys_seen(&ps)) {
                ng_err_set(err, "binary data, not text");
                ret = NG_SOURCE_NOT_A_PROFILE;
                break;
            }
            ret = ng_err_set(err, "'%s' line %ld: binary data, not nsys stats text", shown,
                             ps.lineno);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        char *s = line;
        if (ps.lineno == 1 && ng_nsys_summary_starts_with(s, "\xEF\xBB\xBF"))
            s += 3;
        if (feed(&ps, s) < 0) {
            ret = -1;
            break;
        }
    }
    if (ret == 0 && ferror(f))
        ret = ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
    if (ret == 0)
        ret = finish(&ps);
    free(line);
    free(ps.skipped);
    free(ps.skipped_unknown);
    free(ps.pending);
    ng_buf_release(&ps.keys.text);
    ng_buf_release(&ps.vals.text);
    return ret;
}

static int csv_load(struct ng_profile *p, const char *path,
                    const struct ng_source_opts *opts, struct ng_err *err)
{
    FILE *f;
    int ret;

    if (opts && opts->epoch_re)
        return ng_err_set(err, "'%s' is a saved nsys stats summary, which has no NVTX ranges; "
                          "--epoch-range needs an SQLite export or an .nsys-rep report", path);
    f = fopen(path, "re");
    if (!f)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
    ret = ng_nsys_stats_parse_stream(p, f, path, opts, err);
    fclose(f);
    /* the kernel filters: a summary's rows are its items, so after the fact */
    struct ng_filter_account account = { { 0 }, { 0 }, 0, 0 };
    if (ret == 0 && opts && opts->filter)
        ret = ng_profile_filter(p, opts->filter, &account, err);
    return ret;
}

const struct ng_source_kind ng_source_nsys_stats = {
    .format = NG_FORMAT_CSV,
    .magic = NULL,
    .magic_len = 0,
    .extensions = csv_exts,
    .load = csv_load,
    .reads = "saved nsys stats text with a kernel summary (cuda_gpu_kern_sum; csv, table, json or html)",
};
