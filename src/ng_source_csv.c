/* The saved `nsys stats` backend: the kernel summary report
 * (cuda_gpu_kern_sum, gpukernsum, cuda_gpu_kern_gb_sum) as CSV or as nsys's
 * human "column" table, with or without the console framing, any nsys
 * version from 2020 to 2026.
 *
 * Only a kernel summary block counts: other reports in the same file
 * (nvtx_sum, cuda_api_sum, ...) are recognised by their header and skipped.
 * Headers are matched against a table of known columns, not by position,
 * so every version's layout is one entry, not one code path. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ng_source_kind.h"
#include "ng_util.h"

static const char *const csv_exts[] = { ".csv", ".txt", NULL };

/* Reports whose rows are kernels (a SKIPPED or ERROR under one of these is
 * the profile's problem, not noise). */
static const char *const kernel_reports[] = {
    "cuda_gpu_kern_sum", "gpukernsum", "cuda_gpu_kern_gb_sum", NULL,
};

/* Columns allowed between "Instances" and "Name" in a kernel summary:
 * 2020 (Average, Minimum, Maximum), 2021 (+StdDev), 2022+ (Avg, Med, Min,
 * Max, StdDev), 2022 gpukernsum and 2023+ _gb_ (GridXYZ, BlockXYZ). */
static const char *const stat_columns[] = {
    "Avg", "Average", "Med", "Median", "Min", "Minimum", "Max", "Maximum",
    "StdDev", "GridXYZ", "BlockXYZ", NULL,
};

static const struct { const char *name; int exp10; } units[] = {
    { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { NULL, 0 },
};

enum block { OUTSIDE, KERNEL_ROWS, OTHER_ROWS };

struct layout {
    int ncols;
    int total_col, inst_col;   /* name is always the last column */
    int exp10;                 /* unit of Total Time */
    int column_format;         /* human table: fixed spans, thousands separators */
    size_t span_start[24];     /* column format only */
};

struct parser {
    const char *path;
    struct ng_profile *p;
    struct ng_err *err;
    long lineno;
    enum block state;
    struct layout lay;
    char report[64];        /* from the last "Processing [...] with [...]" line */
    int kernel_blocks;
    int rows;
    char *skipped;          /* first SKIPPED/ERROR line seen for a kernel report */
    char *pending_header;   /* column format: the line before the dashes */
};

/* ---- small text helpers ---- */

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

static void unquote(const char **s, size_t *n)
{
    if (*n >= 2 && (*s)[0] == '"' && (*s)[*n - 1] == '"')
        (*s)++, *n -= 2;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_kernel_report(const char *name)
{
    for (int i = 0; kernel_reports[i]; i++)
        if (strcmp(name, kernel_reports[i]) == 0)
            return 1;
    return 0;
}

/* ---- header matching ---- */

/* Splits "Total Time (us)" into base "Total Time" and unit "us". */
static void split_unit(const char *f, size_t n, size_t *base_len, const char **unit,
                       size_t *unit_len)
{
    *unit = NULL;
    *unit_len = 0;
    *base_len = n;
    if (n >= 4 && f[n - 1] == ')') {
        const char *open = memchr(f, '(', n);
        if (open && open > f && open[-1] == ' ') {
            *unit = open + 1;
            *unit_len = (size_t)(f + n - 1 - *unit);
            *base_len = (size_t)(open - 1 - f);
        }
    }
}

static int field_is(const char *f, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(f, want, n) == 0;
}

static int unit_exp(const char *u, size_t n)
{
    for (int i = 0; units[i].name; i++)
        if (field_is(u, n, units[i].name))
            return units[i].exp10;
    return -1;
}

/* fields[i]/lens[i]: the trimmed, unquoted header cells.  Returns 1 for a
 * kernel summary (lay filled), 0 for any other report. */
static int match_kernel_header(const char **fields, const size_t *lens, int n,
                               struct layout *lay)
{
    size_t base;
    const char *unit;
    size_t ulen;

    if (n < 4 || n > 24)
        return 0;
    if (!field_is(fields[0], lens[0], "Time (%)") && !field_is(fields[0], lens[0], "Time(%)"))
        return 0;
    split_unit(fields[1], lens[1], &base, &unit, &ulen);
    if (!field_is(fields[1], base, "Total Time") || !unit || unit_exp(unit, ulen) < 0)
        return 0;
    if (!field_is(fields[2], lens[2], "Instances") || !field_is(fields[n - 1], lens[n - 1], "Name"))
        return 0;
    for (int i = 3; i < n - 1; i++) {
        int ok = 0;
        split_unit(fields[i], lens[i], &base, &unit, &ulen);
        for (int j = 0; stat_columns[j]; j++)
            if (field_is(fields[i], base, stat_columns[j]))
                ok = 1;
        if (!ok)
            return 0;
    }
    split_unit(fields[1], lens[1], &base, &unit, &ulen);
    lay->ncols = n;
    lay->total_col = 1;
    lay->inst_col = 2;
    lay->exp10 = unit_exp(unit, ulen);
    return 1;
}

/* A header as nsys's CSV writes it: cells never contain commas. */
static int split_csv_header(const char *line, const char **fields, size_t *lens, int max)
{
    int n = 0;
    const char *s = line;

    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (n == max)
            return max + 1;
        fields[n] = s;
        lens[n] = len;
        trim(&fields[n], &lens[n]);
        unquote(&fields[n], &lens[n]);
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

/* ---- numbers ---- */

/* Parses a non-negative decimal in units of 10^exp10 ns into integer ns,
 * exactly (no floating point), rounding half up past the nanosecond.
 * Thousands separators only where the format has them. */
static int parse_ns(const char *s, size_t n, int exp10, int seps, int64_t *out)
{
    int64_t v = 0;
    size_t i = 0;
    int digits = 0, frac = 0, round_up = 0, past = 0;

    if (n == 0)
        return -1;
    for (; i < n && s[i] != '.'; i++) {
        if (seps && s[i] == ',' && digits > 0)
            continue;
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v))
            return -2;
        digits++;
    }
    if (i < n) {
        i++;
        if (i == n)
            return -1;
        for (; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            if (frac < exp10) {
                if (__builtin_mul_overflow(v, 10, &v) ||
                    __builtin_add_overflow(v, s[i] - '0', &v))
                    return -2;
                frac++;
            } else if (!past++) {
                round_up = s[i] >= '5';
            }
        }
    }
    if (digits == 0)
        return -1;
    for (; frac < exp10; frac++)
        if (__builtin_mul_overflow(v, 10, &v))
            return -2;
    if (round_up && __builtin_add_overflow(v, 1, &v))
        return -2;
    *out = v;
    return 0;
}

static int bad_number(struct parser *ps, const char *what, const char *s, size_t n, int rc)
{
    struct ng_buf shown = NG_BUF_INIT;
    ng_text_clean(&shown, s, n > 40 ? 40 : n, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(ps->err, "'%s' line %ld: %s '%s' %s", ps->path, ps->lineno, what, shown.data,
               rc == -2 ? "overflows 64 bits" : "is not a non-negative decimal number");
    ng_buf_release(&shown);
    return -1;
}

/* ---- rows ---- */

static int add_row(struct parser *ps, const char **cells, const size_t *lens)
{
    const struct layout *l = &ps->lay;
    int64_t total, inst;
    int rc;

    rc = parse_ns(cells[l->total_col], lens[l->total_col], l->exp10, l->column_format, &total);
    if (rc < 0)
        return bad_number(ps, "Total Time", cells[l->total_col], lens[l->total_col], rc);
    rc = parse_ns(cells[l->inst_col], lens[l->inst_col], 0, l->column_format, &inst);
    if (rc < 0)
        return bad_number(ps, "Instances", cells[l->inst_col], lens[l->inst_col], rc);
    ng_profile_add_row(ps->p, NG_WORK_KERNEL, cells[l->ncols - 1], lens[l->ncols - 1], total, inst);
    ps->rows++;
    return 0;
}

/* nsys's CSV is not RFC 4180: only a cell containing a comma is quoted, and
 * quotes inside are not doubled.  Name is the last column, so the first
 * ncols-1 cells split on commas and the rest of the line is the name. */
static int csv_row(struct parser *ps, const char *line)
{
    const char *cells[24];
    size_t lens[24];
    const char *s = line;
    int n = ps->lay.ncols;

    for (int i = 0; i < n - 1; i++) {
        const char *comma = strchr(s, ',');
        if (!comma)
            return ng_err_set(ps->err, "'%s' line %ld: %d columns expected, found %d",
                              ps->path, ps->lineno, n, i + 1);
        cells[i] = s;
        lens[i] = (size_t)(comma - s);
        trim(&cells[i], &lens[i]);
        unquote(&cells[i], &lens[i]);
        s = comma + 1;
    }
    cells[n - 1] = s;
    lens[n - 1] = strlen(s);
    unquote(&cells[n - 1], &lens[n - 1]);
    return add_row(ps, cells, lens);
}

static int column_row(struct parser *ps, const char *line)
{
    const char *cells[24];
    size_t lens[24];
    size_t len = strlen(line);
    int n = ps->lay.ncols;

    for (int i = 0; i < n; i++) {
        size_t a = ps->lay.span_start[i];
        size_t b = i + 1 < n ? ps->lay.span_start[i + 1] : len;
        if (a > len)
            a = len;
        if (b > len)
            b = len;
        cells[i] = line + a;
        lens[i] = b - a;
        trim(&cells[i], &lens[i]);
    }
    return add_row(ps, cells, lens);
}

/* ---- block starts ---- */

static void begin_block(struct parser *ps, int is_kernel)
{
    ps->state = is_kernel ? KERNEL_ROWS : OTHER_ROWS;
    if (is_kernel)
        ps->kernel_blocks++;
}

static int try_csv_header(struct parser *ps, const char *line)
{
    const char *fields[25];
    size_t lens[25];
    int n;

    if (!starts_with(line, "Time") && !starts_with(line, "\"Time"))
        return 0;
    n = split_csv_header(line, fields, lens, 24);
    ps->lay.column_format = 0;
    begin_block(ps, match_kernel_header(fields, lens, n, &ps->lay));
    return 1;
}

/* The human table: a header line, then a line of dash runs that gives each
 * column's span. */
static int try_column_header(struct parser *ps, const char *dashes)
{
    const char *fields[24];
    size_t lens[24];
    const char *hdr = ps->pending_header;
    size_t hlen = strlen(hdr);
    int n = 0;

    for (size_t i = 0; dashes[i];) {
        if (dashes[i] != '-') {
            i++;
            continue;
        }
        size_t a = i;
        while (dashes[i] == '-')
            i++;
        if (n == 24)
            return 0;
        ps->lay.span_start[n] = a;
        fields[n] = a < hlen ? hdr + a : hdr + hlen;
        lens[n] = a < hlen ? (i < hlen ? i - a : hlen - a) : 0;
        trim(&fields[n], &lens[n]);
        n++;
    }
    ps->lay.column_format = 1;
    begin_block(ps, match_kernel_header(fields, lens, n, &ps->lay));
    return 1;
}

static int is_dash_line(const char *s)
{
    int dashes = 0;
    for (; *s; s++) {
        if (*s == '-')
            dashes++;
        else if (*s != ' ')
            return 0;
    }
    return dashes > 0;
}

/* "Processing [X.sqlite] with [/path/reports/cuda_gpu_kern_sum.py]... " */
static void note_report(struct parser *ps, const char *line)
{
    const char *w = strstr(line, "] with [");
    ps->report[0] = '\0';
    if (!w)
        return;
    const char *end = strstr(w, ".py]");
    if (!end)
        return;
    const char *name = end;
    while (name > w && name[-1] != '/' && name[-1] != '[')
        name--;
    snprintf(ps->report, sizeof ps->report, "%.*s", (int)(end - name), name);
}

static void note_skip(struct parser *ps, const char *line)
{
    if (!ps->skipped && (ps->report[0] == '\0' || is_kernel_report(ps->report)))
        ps->skipped = ng_xstrdup(line);
}

/* ---- the line machine ---- */

static int feed(struct parser *ps, const char *line)
{
    if (ps->state != OUTSIDE) {
        if (*line == '\0') {
            ps->state = OUTSIDE;
            return 0;
        }
        if (!starts_with(line, "Processing [")) {
            if (ps->state == OTHER_ROWS)
                return 0;
            return ps->lay.column_format ? column_row(ps, line) : csv_row(ps, line);
        }
        ps->state = OUTSIDE;
    }
    if (starts_with(line, "Processing [")) {
        note_report(ps, line);
        return 0;
    }
    if (starts_with(line, "SKIPPED:") || starts_with(line, "ERROR:")) {
        note_skip(ps, line);
        return 0;
    }
    if (try_csv_header(ps, line))
        return 0;
    if (ps->pending_header && is_dash_line(line)) {
        try_column_header(ps, line);
        free(ps->pending_header);
        ps->pending_header = NULL;
        return 0;
    }
    free(ps->pending_header);
    ps->pending_header = *line ? ng_xstrdup(line) : NULL;
    return 0;
}

static int finish(struct parser *ps)
{
    if (ps->kernel_blocks > 1)
        return ng_err_set(ps->err,
                          "'%s' holds %d kernel summary reports; save only one "
                          "(e.g. --report cuda_gpu_kern_sum), they would be counted twice",
                          ps->path, ps->kernel_blocks);
    if (ps->kernel_blocks == 0 && ps->skipped) {
        char *shown = ng_text_cleaned(ps->skipped, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(ps->err, "'%s' has no CUDA kernel data: nsys said \"%s\"", ps->path, shown);
        free(shown);
        return -1;
    }
    if (ps->kernel_blocks == 0)
        return ng_err_set(ps->err,
                          "'%s' holds no nsys kernel summary (cuda_gpu_kern_sum) and is "
                          "neither an SQLite export nor an .nsys-rep report", ps->path);
    if (ps->rows == 0)
        return ng_err_set(ps->err, "'%s' has no CUDA kernel data (the kernel summary has no rows)",
                          ps->path);
    return ng_profile_finish(ps->p, ps->err);
}

int ng_csv_parse_stream(struct ng_profile *p, FILE *f, const char *shown, struct ng_err *err)
{
    struct parser ps = { .path = shown, .p = p, .err = err };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int ret = 0;

    while ((n = getline(&line, &cap, f)) >= 0) {
        ps.lineno++;
        if (memchr(line, '\0', (size_t)n)) {
            ret = ng_err_set(err, "'%s' line %ld: binary data, not nsys stats text", shown,
                             ps.lineno);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        char *s = line;
        if (ps.lineno == 1 && starts_with(s, "\xEF\xBB\xBF"))
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
    free(ps.pending_header);
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
    ret = ng_csv_parse_stream(p, f, path, err);
    fclose(f);
    return ret;
}

const struct ng_source_kind ng_source_csv = {
    .format = NG_FORMAT_CSV,
    .magic = NULL,
    .magic_len = 0,
    .extensions = csv_exts,
    .load = csv_load,
};
