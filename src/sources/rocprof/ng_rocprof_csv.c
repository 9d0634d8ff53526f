/* The rocprofv3 CSV reader (`rocprofv3 --output-format csv`): a run's
 * files, `<pid>_kernel_trace.csv`, `_memory_copy_trace.csv`,
 * `_marker_api_trace.csv` and `_hip_api_trace.csv`, as generateCSV.cpp
 * writes them, given one by one or as the directory that holds them (one
 * process's: a directory with the files of several pids is refused, each
 * process is its own operand).  Each file is read as a stream of RFC 4180
 * records (quoted fields, doubled quotes, CRLF, a quoted line break), its
 * columns found by their header names, so columns rocprofv3 added over
 * time (Stream_Id, the register counts) and the order of columns do not
 * matter.
 *
 * The process: the file names' `<pid>_`, else the marker or HIP rows'
 * Process_Id, else 0.  A GPU: the number of Agent_Id ("GPU 0", "Agent 4"
 * or an older bare number).  Kernels are named by Kernel_Name (the base
 * name derived from it), copies by Direction, as the nsys reader names
 * them; HIP API rows are the launch calls, marker rows of
 * MARKER_CORE_RANGE_API with an end after their start the ROCTx ranges
 * (Function holds the message). */
#include "sources/rocprof/ng_rocprof_csv.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sources/ng_source_names.h"
#include "sources/rocprof/ng_rocprof_feed.h"
#include "util/ng_file.h"
#include "util/ng_gzip.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

enum table { KERNELS, COPIES, MARKERS, CALLS, TABLES };

/* The files of a run, by the name rocprofv3 ends them with, in the order
 * they are read (the host side first: its rows name the process). */
static const struct {
    enum table table;
    const char *suffix;
    const char *columns[6];    /* those the reader needs */
} tables[] = {
    { MARKERS, "marker_api_trace.csv",
      { "Domain", "Function", "Thread_Id", "Start_Timestamp", "End_Timestamp", NULL } },
    { CALLS, "hip_api_trace.csv",
      { "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp", NULL } },
    { KERNELS, "kernel_trace.csv",
      { "Agent_Id", "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", NULL } },
    { COPIES, "memory_copy_trace.csv",
      { "Direction", "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id",
        "Start_Timestamp", "End_Timestamp" } },
};
#define N_TABLES (sizeof tables / sizeof tables[0])
#define COLUMNS 6

/* The length of name's suffix that names a table (`<prefix>_` + suffix,
 * or the suffix alone), and the table; 0 when it names none. */
static size_t table_of(const char *name, size_t *t)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < N_TABLES; i++) {
        size_t tl = strlen(tables[i].suffix);
        if (len >= tl && strcmp(name + len - tl, tables[i].suffix) == 0 &&
            (len == tl || name[len - tl - 1] == '_')) {
            *t = i;
            return tl;
        }
    }
    return 0;
}

int ng_rocprof_csv_claim(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return 1;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int found = 0;
    size_t t;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = table_of(e->d_name, &t) != 0;
    closedir(d);
    return found;
}

/* ---- RFC 4180 records ---- */

struct csv {
    const char *shown;        /* the file, as messages name it */
    struct ng_err *err;
    struct ng_gzip_input in;
    int64_t line;             /* where the record read last starts */
    int64_t next_line;
    struct ng_buf data;       /* the fields, each NUL-terminated */
    size_t *at;               /* field i starts at data.data + at[i] */
    size_t n, cap;
};

static int csv_bad(struct csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int csv_bad(struct csv *c, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ng_err_set(c->err, "'%s': line %" PRId64 ": %s", c->shown, c->line, what);
}

static void add_field(struct csv *c)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        c->at = ng_xrealloc(c->at, c->cap * sizeof *c->at);
    }
    c->at[c->n++] = c->data.len;
}

/* One record parsed from the window: 1 whole, 0 cut short by the
 * window's end (read more and parse again), -1 an unterminated quote at
 * the end of the file. */
static int parse(struct csv *c, size_t *used, int64_t *lines)
{
    const unsigned char *p = c->in.buf + c->in.pos, *end = c->in.buf + c->in.len;
    c->n = 0;
    c->data.len = 0;
    *lines = 0;
    add_field(c);
    while (p < end) {
        if (*p == '"' && c->data.len == c->at[c->n - 1]) {   /* a quoted field */
            for (p++;; p++) {
                if (p >= end)
                    return c->in.eof ? -1 : 0;
                if (*p == '"') {
                    if (p + 1 >= end && !c->in.eof)
                        return 0;
                    if (p + 1 < end && p[1] == '"') {
                        ng_buf_add(&c->data, "\"", 1);
                        p++;
                        continue;
                    }
                    p++;
                    break;
                }
                *lines += *p == '\n';
                ng_buf_add(&c->data, p, 1);
            }
            continue;
        }
        if (*p == ',') {
            ng_buf_add(&c->data, "", 1);
            add_field(c);
            p++;
        } else if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) {
            p += *p == '\r' ? 2 : 1;
            *lines += 1;
            ng_buf_add(&c->data, "", 1);
            *used = (size_t)(p - (c->in.buf + c->in.pos));
            return 1;
        } else if (*p == '\r' && p + 1 >= end && !c->in.eof) {
            return 0;
        } else {
            ng_buf_add(&c->data, p, 1);
            p++;
        }
    }
    if (!c->in.eof)
        return 0;
    ng_buf_add(&c->data, "", 1);   /* the last line, without its line break */
    *used = (size_t)(p - (c->in.buf + c->in.pos));
    return 1;
}

/* The next record into c's fields: 1, 0 at the end of the file, -1 said. */
static int csv_next(struct csv *c)
{
    for (;;) {
        size_t used = 0;
        int64_t lines = 0;
        c->line = c->next_line;
        if (c->in.pos == c->in.len && c->in.eof)
            return 0;
        int r = c->in.pos < c->in.len ? parse(c, &used, &lines) : 0;
        if (r < 0)
            return csv_bad(c, "a quoted field that never ends (the file is cut short?)");
        if (r > 0) {
            c->in.pos += used;
            c->next_line += lines;
            return 1;
        }
        if (ng_gzip_fill(&c->in, c->shown, c->err) < 0)
            return -1;
    }
}

static const char *field(const struct csv *c, size_t i)
{
    return c->data.data + c->at[i];
}

/* A decimal integer from 0 to 2^63 - 1, the whole of s. */
static int parse_int(const char *s, int64_t *v)
{
    uint64_t x = 0;
    size_t n = 0;
    for (; isdigit((unsigned char)s[n]) && x <= (UINT64_MAX - 9) / 10; n++)
        x = x * 10 + (uint64_t)(s[n] - '0');
    if (n == 0 || s[n] || x > INT64_MAX)
        return -1;
    *v = (int64_t)x;
    return 0;
}

static int not_int(struct csv *c, const char *column, const char *s, const char *want)
{
    struct ng_buf shown = NG_BUF_INIT;
    ng_text_cut(&shown, s, 40, 0);
    int r = csv_bad(c, "%s '%s' is not %s", column, shown.data, want);
    ng_buf_release(&shown);
    return r;
}

/* A field that is a count of nanoseconds (or an id). */
static int int_field(struct csv *c, size_t i, const char *column, int64_t *v)
{
    if (parse_int(field(c, i), v) < 0)
        return not_int(c, column, field(c, i), "an integer from 0 to 2^63-1");
    return 0;
}

/* An agent's number: "GPU 0", "Agent 4" or an older bare "1"; *gpu: it
 * does not say CPU. */
static int agent_field(struct csv *c, size_t i, const char *column, int64_t *v, int *gpu)
{
    const char *s = field(c, i), *d = s + strlen(s);
    while (d > s && isdigit((unsigned char)d[-1]))
        d--;
    *gpu = strncmp(s, "CPU", 3) != 0;
    if (parse_int(d, v) < 0)
        return not_int(c, column, s, "an agent (\"GPU 0\", \"Agent 4\" or a number)");
    return 0;
}

/* ---- the run ---- */

struct reader {
    const char *shown;
    struct ng_err *err;
    struct ng_source_events *ev;
    int64_t pid;
    int has_pid;
    uint32_t proc;
    size_t col[COLUMNS];       /* the needed columns' places in the header */
    size_t n_columns;
    int64_t rows[TABLES];
};

/* The header: where each needed column is. */
static int read_header(struct reader *rd, struct csv *c, size_t t)
{
    int r = csv_next(c);
    if (r <= 0)
        return r < 0 ? -1 : ng_err_set(rd->err, "'%s' is empty: no CSV header", c->shown);
    if (c->n && strncmp(field(c, 0), "\xEF\xBB\xBF", 3) == 0)
        memmove(c->data.data + c->at[0], field(c, 0) + 3, strlen(field(c, 0) + 3) + 1);
    rd->n_columns = c->n;
    for (size_t k = 0; k < COLUMNS && tables[t].columns[k]; k++) {
        size_t i = 0;
        while (i < c->n && strcmp(field(c, i), tables[t].columns[k]) != 0)
            i++;
        if (i == c->n)
            return csv_bad(c, "the header has no %s column, which rocprofv3's %s has",
                           tables[t].columns[k], tables[t].suffix);
        rd->col[k] = i;
    }
    return 0;
}

/* The times of a row (columns k and k + 1), end not before start. */
static int times(struct reader *rd, struct csv *c, size_t k, int64_t *start, int64_t *end)
{
    if (int_field(c, rd->col[k], "Start_Timestamp", start) < 0 ||
        int_field(c, rd->col[k + 1], "End_Timestamp", end) < 0)
        return -1;
    if (*end < *start)
        return csv_bad(c, "a row that ends before it starts (Start_Timestamp %" PRId64
                       ", End_Timestamp %" PRId64 ")", *start, *end);
    return 0;
}

static int take_row(struct reader *rd, struct csv *c, enum table t)
{
    int64_t start, end, tid, corr, device, other;
    int gpu, other_gpu;
    switch (t) {
    case MARKERS:
        if (times(rd, c, 3, &start, &end) < 0 || int_field(c, rd->col[2], "Thread_Id", &tid) < 0)
            return -1;
        if (strcmp(field(c, rd->col[0]), "MARKER_CORE_RANGE_API") != 0 || end <= start)
            return 0;   /* marks, and the marker API's own calls */
        return ng_source_events_range(rd->ev, rd->proc, tid, start, end, field(c, rd->col[1]));
    case CALLS:
        if (times(rd, c, 2, &start, &end) < 0 || int_field(c, rd->col[0], "Thread_Id", &tid) < 0 ||
            int_field(c, rd->col[1], "Correlation_Id", &corr) < 0)
            return -1;
        return ng_source_events_call(rd->ev, rd->proc, tid, corr, start);
    case KERNELS:
        if (times(rd, c, 3, &start, &end) < 0 ||
            agent_field(c, rd->col[0], "Agent_Id", &device, &gpu) < 0 ||
            int_field(c, rd->col[2], "Correlation_Id", &corr) < 0)
            return -1;
        return ng_rocprof_feed_kernel(rd->ev, rd->proc, corr, device, start, end,
                                      field(c, rd->col[1]), NULL);
    default:
        if (times(rd, c, 4, &start, &end) < 0 ||
            agent_field(c, rd->col[1], "Source_Agent_Id", &other, &other_gpu) < 0 ||
            agent_field(c, rd->col[2], "Destination_Agent_Id", &device, &gpu) < 0 ||
            int_field(c, rd->col[3], "Correlation_Id", &corr) < 0)
            return -1;
        const char *dir = field(c, rd->col[0]);
        int to_host = strcmp(dir, "MEMORY_COPY_DEVICE_TO_HOST") == 0;
        return ng_rocprof_feed_copy(rd->ev, rd->proc, corr, to_host ? other : device, start, end,
                                    ng_source_names_copy_operation(dir, other != device));
    }
}

/* The row's process: the file names', else the first host row's
 * Process_Id, else 0 (kernel and copy rows have none). */
static int row_process(struct reader *rd, struct csv *c, size_t pid_col)
{
    if (rd->has_pid)
        return 0;
    if (pid_col != SIZE_MAX && int_field(c, pid_col, "Process_Id", &rd->pid) < 0)
        return -1;
    rd->has_pid = 1;
    rd->proc = ng_source_events_process(rd->ev, rd->pid);
    return 0;
}

/* The rows after the header (whose fields c still holds). */
static int read_rows(struct reader *rd, struct csv *c, size_t t)
{
    size_t pid_col = SIZE_MAX;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(field(c, i), "Process_Id") == 0)
            pid_col = i;
    size_t columns = rd->n_columns;
    int r;
    while ((r = csv_next(c)) > 0) {
        if (c->n == 1 && !field(c, 0)[0])
            continue;   /* an empty line */
        if (c->n != columns)
            return csv_bad(c, "%zu fields, and the header has %zu", c->n, columns);
        if (row_process(rd, c, pid_col) < 0 || take_row(rd, c, tables[t].table) < 0)
            return -1;
        rd->rows[tables[t].table]++;
    }
    return r;
}

static int read_table(struct reader *rd, const char *path, size_t t)
{
    struct csv c;
    memset(&c, 0, sizeof c);
    c.in.fd = -1;
    c.shown = path;
    c.err = rd->err;
    c.next_line = 1;
    struct stat before, after;
    int ret = stat(path, &before) < 0 ? ng_err_set(rd->err, "unable to stat '%s': %s", path,
                                                   strerror(errno))
                                      : ng_gzip_open(&c.in, path, rd->err);
    if (ret == 0)
        ret = read_header(rd, &c, t);
    if (ret == 0)
        ret = read_rows(rd, &c, t);
    /* the registry checks the operand (a directory); each file is checked here */
    if (ret == 0 && (stat(path, &after) < 0 || ng_file_stat_changed(&before, &after)))
        ret = ng_err_set(rd->err, "'%s' changed while it was being read (is something still "
                         "writing it?); gate it once it is complete", path);
    ng_gzip_close(&c.in);
    ng_buf_release(&c.data);
    free(c.at);
    return ret;
}

/* The pid a file name's `<pid>_` prefix names (a prefix of its table's
 * suffix_len last bytes), or -1.  base: the name without its directory. */
static int64_t name_pid(const char *base, size_t suffix_len)
{
    size_t n = strlen(base) - suffix_len;
    if (n < 2 || base[n - 1] != '_')
        return -1;
    int64_t pid = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!isdigit((unsigned char)base[i]) || pid > (INT64_MAX - 9) / 10)
            return -1;
        pid = pid * 10 + (base[i] - '0');
    }
    return pid;
}

/* The process a file's `<pid>_` names, when it names one (base: the
 * name without its directory, suffix_len: its table's suffix). */
static void name_process(struct reader *rd, const char *base, size_t suffix_len)
{
    int64_t pid = name_pid(base, suffix_len);
    if (pid < 0)
        return;
    rd->pid = pid;
    rd->has_pid = 1;
    rd->proc = ng_source_events_process(rd->ev, pid);
}

struct entry {
    char *name;
    size_t table, suffix;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The run's files in a directory: one prefix (one process), in table
 * order.  *n files into *out (names owned). */
static int list_dir(struct reader *rd, const char *dir, struct entry **out, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return ng_err_set(rd->err, "unable to list '%s': %s", dir, strerror(errno));
    struct entry *e = NULL;
    size_t k = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t t, len = table_of(de->d_name, &t);
        if (!len)
            continue;
        e = ng_xgrow(e, k, sizeof *e);
        e[k++] = (struct entry){ ng_xstrdup(de->d_name), t, len };
    }
    closedir(d);
    ng_sort(e, k, sizeof *e, by_name);
    *out = e;
    *n = k;
    if (k == 0)
        return ng_err_set(rd->err, "'%s' holds no rocprofv3 CSV file (kernel_trace.csv, "
                          "memory_copy_trace.csv, marker_api_trace.csv, hip_api_trace.csv)", dir);
    struct ng_buf prefixes = NG_BUF_INIT;
    size_t distinct = 0;
    for (size_t i = 0; i < k; i++) {
        size_t pl = strlen(e[i].name) - e[i].suffix;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strlen(e[j].name) - e[j].suffix == pl && memcmp(e[j].name, e[i].name, pl) == 0;
        if (!seen) {
            ng_buf_addf(&prefixes, "%s'%.*s'", distinct ? ", " : "", (int)(pl ? pl - 1 : 0),
                        e[i].name);
            distinct++;
        }
    }
    int ret = 0;
    if (distinct > 1)
        ret = ng_err_set(rd->err, "'%s' holds the CSV files of %zu processes (%s); give each "
                         "process's files as its own operand", dir, distinct, prefixes.data);
    ng_buf_release(&prefixes);
    return ret;
}

static int read_dir(struct reader *rd, const char *dir)
{
    struct entry *e = NULL;
    size_t n = 0;
    int ret = list_dir(rd, dir, &e, &n);
    if (ret == 0 && n)
        name_process(rd, e[0].name, e[0].suffix);
    for (size_t t = 0; ret == 0 && t < N_TABLES; t++)
        for (size_t i = 0; ret == 0 && i < n; i++) {
            if (e[i].table != t)
                continue;
            struct ng_buf path = NG_BUF_INIT;
            ng_buf_addf(&path, "%s/%s", dir, e[i].name);
            ret = read_table(rd, path.data, t);
            ng_buf_release(&path);
        }
    for (size_t i = 0; i < n; i++)
        free(e[i].name);
    free(e);
    return ret;
}

/* One file given as the profile: its table by its name. */
static int read_file(struct reader *rd, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t t, suffix_len = table_of(base, &t);
    if (!suffix_len)
        return ng_err_set(rd->err, "'%s' is not named as rocprofv3 names its CSV files "
                          "([<pid>_]kernel_trace.csv, memory_copy_trace.csv, "
                          "marker_api_trace.csv or hip_api_trace.csv), so which one it is "
                          "cannot be told", path);
    name_process(rd, base, suffix_len);
    return read_table(rd, path, t);
}

int ng_rocprof_csv_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                        struct ng_err *err)
{
    struct reader rd;
    struct ng_source_events ev;
    struct stat st;
    memset(&rd, 0, sizeof rd);
    rd.shown = path;
    rd.err = err;
    rd.ev = &ev;
    int ret = ng_rocprof_feed_init(&ev, p, opts, path, err);
    if (ret == 0)
        ret = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? read_dir(&rd, path)
                                                         : read_file(&rd, path);
    if (ret == 0)
        ret = ng_source_events_finish(&ev);
    ng_source_events_release(&ev);
    return ret;
}
