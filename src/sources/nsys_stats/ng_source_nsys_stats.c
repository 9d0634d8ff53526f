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
 * turns its lines into cells; everything after that (which report, which
 * unit, which kind of work, what is counted) is shared. */
#include "sources/nsys_stats/ng_source_nsys_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ng_source_names.h"
#include "sources/ng_source_opts.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

static const char *const csv_exts[] = { ".csv", ".tsv", ".txt", ".json", ".html", NULL };

#define MAX_COLS 24
#define ELLIPSIS "\xE2\x80\xA6"   /* U+2026: how the column layouts end a cut name */

enum block_kind { BLOCK_OTHER = 0, BLOCK_KERNEL, BLOCK_MEMORY, BLOCK_KINDS };

static const char *const block_names[BLOCK_KINDS] = {
    [BLOCK_OTHER] = "other", [BLOCK_KERNEL] = "kernel", [BLOCK_MEMORY] = "memory",
};

/* Reports whose SKIPPED or ERROR line is the profile's problem, not noise:
 * those whose rows this backend counts, as the framing names them. */
static const struct { const char *name; enum block_kind kind; } reports[] = {
    { "cuda_gpu_kern_sum", BLOCK_KERNEL },
    { "gpukernsum", BLOCK_KERNEL },
    { "cuda_gpu_kern_gb_sum", BLOCK_KERNEL },
    { "cuda_gpu_mem_time_sum", BLOCK_MEMORY },
    { "gpumemtimesum", BLOCK_MEMORY },
    { NULL, BLOCK_OTHER },
};

/* The summaries that count, by the third and the last column of their
 * header; the first two are always "Time (%)" and "Total Time (unit)".
 * openmp_sum and openacc_sum have "Count" and "Name": they are not here. */
static const struct { enum block_kind kind; const char *count, *name; } shapes[] = {
    { BLOCK_KERNEL, "Instances", "Name" },       /* every kernel summary, 2019..2026 */
    { BLOCK_MEMORY, "Count", "Operation" },      /* cuda_gpu_mem_time_sum, gpumemtimesum 2022+ */
    { BLOCK_MEMORY, "Operations", "Operation" }, /* gpumemtimesum 2020.2..2021 */
    { BLOCK_MEMORY, "Operations", "Name" },      /* before 2020.2 */
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* Columns allowed between the count and the name: 2019/2020 (Average,
 * Minimum, Maximum), 2021 (+StdDev), 2022+ (Avg, Med, Min, Max, StdDev),
 * 2022 gpukernsum and 2023+ _gb_ (GridXYZ, BlockXYZ). */
static const char *const stat_columns[] = {
    "Avg", "Average", "Med", "Median", "Min", "Minimum", "Max", "Maximum",
    "StdDev", "GridXYZ", "BlockXYZ", NULL,
};

/* Units in headers ("Total Time (sec)" with --timeunit sec), and in the
 * titles of nsys before 2020.2, whose headers name none ("CUDA Kernel
 * Statistics (nanoseconds)"). */
static const struct { const char *name; int exp10; } units[] = {
    { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { "sec", 9 }, { NULL, 0 },
};
static const struct { const char *name; int exp10; } title_units[] = {
    { "(nanoseconds)", 0 }, { "(microseconds)", 3 }, { "(milliseconds)", 6 },
    { "(seconds)", 9 }, { NULL, 0 },
};

/* A duration of 10^k ns, for the rounding warning. */
static const char *const granules[] = {
    "1 ns", "10 ns", "100 ns", "1 us", "10 us", "100 us", "1 ms", "10 ms", "100 ms", "1 s",
};

/* How nsys laid the report out (--format). */
enum layout { LAY_CSV, LAY_TSV, LAY_COLUMN, LAY_TABLE, LAY_JSON, LAY_HTML };

enum state {
    OUTSIDE,
    ROWS,          /* csv, tsv, column, table: one row a line */
    TABLE_TOP,     /* table: the border above the header was seen */
    TABLE_HEAD,    /* table: the header was seen, its lower border comes next */
    JSON_ARRAY,    /* json: between objects */
    JSON_OBJECT,   /* json: inside one object, one field a line */
    HTML_TABLE,    /* hdoc, htable: inside <table>, one cell a line */
};

/* One header or row, whatever the layout: pointers into a line or a store. */
struct cells {
    const char *s[MAX_COLS];
    size_t n[MAX_COLS];
    int count;          /* MAX_COLS + 1: more than any summary has */
    const long *line;   /* where each cell was, when not all on the current line */
};

/* Cells copied out of their lines, for layouts whose rows span lines. */
struct store {
    struct ng_buf text;
    size_t off[MAX_COLS], len[MAX_COLS];
    long line[MAX_COLS];   /* where each cell was, for messages */
    int count;
};

/* What the header of the block being read says. */
struct header {
    enum block_kind kind;
    int ncols;
    int exp10;             /* unit of Total Time */
    char unit[8];          /* as the header names it ("sec"); "ns" when it names none */
};

/* How numbers are written: the column layouts reformat them for reading,
 * with thousands separators and the locale's decimal mark. */
struct numfmt {
    char dec, sep;         /* sep 0: none */
};

struct parser {
    const char *path;
    struct ng_profile *p;
    struct ng_err *err;
    unsigned work;
    int base_names;          /* --kernel-names base: derive each kernel's base name */
    long lineno;
    enum state state;
    enum layout layout;
    struct header hdr;
    size_t span[MAX_COLS + 1];   /* column, table: where each column starts */
    int nspan;
    struct store keys;           /* json: the first object's keys; html: the header */
    struct store vals;           /* json: the object being read; html: the row */
    int header_done;             /* json, html: the block's header is known */
    char report[64];             /* from the last framing line */
    int title_exp10;             /* unit of the last title line, -1 when none */
    int blocks[BLOCK_KINDS];     /* summaries seen, by kind */
    char *skipped;               /* first SKIPPED/ERROR under a counted report */
    char *skipped_unknown;       /* ... or a SKIPPED line under no named report */
    int framed;                  /* a framing line was seen: this is nsys's output */
    char *pending;               /* column: the line before a dash line */
    int quotes_all;              /* csv: the header's cells were quoted */
    /* what the warnings need */
    int64_t round_ns;            /* how far nsys's rounding may move the total */
    int round_exp;               /* the coarsest rounding seen, 10^round_exp ns; 0 none */
    int round_decimals;
    char round_unit[8];
    size_t cut_rows, cut_merged;
    long raw_quote_line;         /* json: a name with an unescaped quote, 0 none */
    long backslash_line;         /* json: a string with a backslash, 0 none */
};

/* ---- small text helpers ---- */

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

static void rtrim(const char *s, size_t *n)
{
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
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

static int field_is(const char *f, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(f, want, n) == 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The line without its indentation and trailing blanks, for the markup
 * layouts, whose structure lines are indented. */
static int line_is(const char *line, const char *want)
{
    const char *s = line;
    size_t n = strlen(line);
    trim(&s, &n);
    return field_is(s, n, want);
}

static void store_clear(struct store *st)
{
    st->text.len = 0;
    st->count = 0;
}

static void store_add(struct store *st, const char *s, size_t n, long line)
{
    if (st->count > MAX_COLS)
        return;
    if (st->count == MAX_COLS) {
        st->count++;
        return;
    }
    st->off[st->count] = st->text.len;
    st->len[st->count] = n;
    st->line[st->count] = line;
    st->count++;
    ng_buf_add(&st->text, s, n);
    ng_buf_add(&st->text, "", 1);
}

static void store_cells(const struct store *st, struct cells *c)
{
    c->count = st->count;
    c->line = st->line;
    for (int i = 0; i < st->count && i < MAX_COLS; i++) {
        c->s[i] = st->text.data + st->off[i];
        c->n[i] = st->len[i];
    }
}

static enum block_kind report_kind(const char *name)
{
    for (int i = 0; reports[i].name; i++)
        if (strcmp(name, reports[i].name) == 0)
            return reports[i].kind;
    return BLOCK_OTHER;
}

/* ---- what a header says ---- */

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

static int unit_exp(const char *u, size_t n)
{
    for (int i = 0; units[i].name; i++)
        if (field_is(u, n, units[i].name))
            return units[i].exp10;
    return -1;
}

static int is_stat_column(const char *f, size_t n)
{
    size_t base, ulen;
    const char *unit;

    split_unit(f, n, &base, &unit, &ulen);
    for (int j = 0; stat_columns[j]; j++)
        if (field_is(f, base, stat_columns[j]))
            return 1;
    return 0;
}

/* The header of a summary this backend counts fills h and returns its kind;
 * any other report's header returns BLOCK_OTHER.  A "Total Time" without a
 * unit is nsys before 2020.2, which gave the unit in the title above the
 * table (always nanoseconds in the output seen). */
static enum block_kind match_header(const struct cells *c, int title_exp10, struct header *h)
{
    size_t base, ulen;
    const char *unit;
    int n = c->count;

    if (n < 4 || n > MAX_COLS)
        return BLOCK_OTHER;
    if (!field_is(c->s[0], c->n[0], "Time (%)") && !field_is(c->s[0], c->n[0], "Time(%)"))
        return BLOCK_OTHER;
    split_unit(c->s[1], c->n[1], &base, &unit, &ulen);
    if (!field_is(c->s[1], base, "Total Time") || (unit && unit_exp(unit, ulen) < 0))
        return BLOCK_OTHER;
    size_t k = 0;
    while (k < N_SHAPES && !(field_is(c->s[2], c->n[2], shapes[k].count) &&
                             field_is(c->s[n - 1], c->n[n - 1], shapes[k].name)))
        k++;
    if (k == N_SHAPES)
        return BLOCK_OTHER;
    for (int i = 3; i < n - 1; i++)
        if (!is_stat_column(c->s[i], c->n[i]))
            return BLOCK_OTHER;
    h->kind = shapes[k].kind;
    h->ncols = n;
    h->exp10 = unit ? unit_exp(unit, ulen) : title_exp10 >= 0 ? title_exp10 : 0;
    snprintf(h->unit, sizeof h->unit, "%.*s", unit ? (int)ulen : 2, unit ? unit : "ns");
    return h->kind;
}

/* ---- numbers ---- */

/* Parses a non-negative decimal in units of 10^exp10 ns into integer ns,
 * exactly (no floating point), rounding half up past the nanosecond.
 * *decimals: the digits given after the decimal mark (how finely nsys
 * rounded it). */
static int parse_ns(const char *s, size_t n, int exp10, struct numfmt nf, int64_t *out,
                    int *decimals)
{
    int64_t v = 0;
    size_t i = 0;
    int digits = 0, frac = 0, given = 0, round_up = 0;

    if (n == 0)
        return -1;
    for (; i < n && s[i] != nf.dec; i++) {
        if (nf.sep && s[i] == nf.sep && digits > 0)
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
        for (; i < n; i++, given++) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            if (frac < exp10) {
                if (__builtin_mul_overflow(v, 10, &v) ||
                    __builtin_add_overflow(v, s[i] - '0', &v))
                    return -2;
                frac++;
            } else if (given == exp10) {
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
    if (decimals)
        *decimals = given;
    return 0;
}

static int bad_number(struct parser *ps, const struct cells *c, int i, const char *what, int rc)
{
    struct ng_buf shown = NG_BUF_INIT;
    ng_text_clean(&shown, c->s[i], c->n[i] > 40 ? 40 : c->n[i], NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(ps->err, "'%s' line %ld: %s '%s' %s", ps->path, c->line ? c->line[i] : ps->lineno,
               what, shown.data,
               rc == -2 ? "overflows 64 bits" : "is not a non-negative decimal number");
    ng_buf_release(&shown);
    return -1;
}

/* The column layouts write numbers as the locale does: "1,234.5", or
 * "1.234,5" where the decimal mark is a comma.  Time (%) never reaches a
 * thousand, so a comma in it can only be the decimal mark. */
static struct numfmt column_numfmt(const struct cells *c)
{
    if (memchr(c->s[0], ',', c->n[0]))
        return (struct numfmt){ ',', '.' };
    return (struct numfmt){ '.', ',' };
}

/* ---- rows ---- */

/* nsys names memory rows after the operation: "[CUDA memcpy Host-to-Device]",
 * "[CUDA memcpy HtoD]", "[CUDA Unified Memory memcpy DtoH]", "[CUDA memset]". */
static int memory_kind(struct parser *ps, const char *name, size_t len, enum ng_work_kind *kind)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), name);
    if (strstr(buf, "memset")) {
        *kind = NG_WORK_MEMSET;
        return 0;
    }
    *kind = NG_WORK_MEMCPY;
    if (strstr(buf, "memcpy") || !(ps->work & NG_WORK_BIT(NG_WORK_MEMCPY)))
        return 0;   /* left out: its kind only sorts the "left out" figures */
    char *shown = ng_text_cleaned(buf, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(ps->err, "'%s' line %ld: memory operation '%s' is neither a memcpy nor a memset",
               ps->path, ps->lineno, shown);
    free(shown);
    return -1;
}

/* How far nsys's own rounding may have moved this row: half of the last
 * digit it printed, when that digit is coarser than a nanosecond. */
static void note_rounding(struct parser *ps, int decimals)
{
    int exp = ps->hdr.exp10 - decimals;
    if (exp <= 0)
        return;
    int64_t half = 5;
    for (int i = 1; i < exp; i++)
        half *= 10;
    if (__builtin_add_overflow(ps->round_ns, half, &ps->round_ns))
        ps->round_ns = INT64_MAX;
    if (exp > ps->round_exp) {
        ps->round_exp = exp;
        ps->round_decimals = decimals;
        snprintf(ps->round_unit, sizeof ps->round_unit, "%s", ps->hdr.unit);
    }
}

/* A row of a kind --work counts becomes a profile row; any other kind only
 * adds to what the profile says it left out. */
static int count_row(struct parser *ps, enum ng_work_kind kind, const char *name, size_t len,
                     int64_t total, int64_t inst)
{
    struct ng_profile *p = ps->p;

    if (!(ps->work & NG_WORK_BIT(kind))) {
        if (__builtin_add_overflow(p->left_out_ns[kind], total, &p->left_out_ns[kind]) ||
            __builtin_add_overflow(p->left_out_launches[kind], inst, &p->left_out_launches[kind]))
            return ng_err_set(ps->err, "'%s': %s time overflows 64 bits", ps->path,
                              ng_work_kind_name(kind));
        return 0;
    }
    int merged;
    if (ps->base_names && kind == NG_WORK_KERNEL) {
        /* saved text has no short name: the same rule as nsys's shortName */
        struct ng_buf full = NG_BUF_INIT, base = NG_BUF_INIT;
        ng_buf_add(&full, name, len);
        ng_kernel_base_name(full.data, &base);
        merged = ng_profile_add_row(p, kind, base.data, base.len, total, inst);
        ng_buf_release(&full);
        ng_buf_release(&base);
    } else {
        merged = ng_profile_add_row(p, kind, name, len, total, inst);
    }
    if (ps->layout == LAY_COLUMN || ps->layout == LAY_TABLE) {
        if (ends_with(name, len, ELLIPSIS)) {
            ps->cut_rows++;
            ps->cut_merged += (size_t)merged;
        }
    }
    return 0;
}

static int add_row(struct parser *ps, const struct cells *c, struct numfmt nf)
{
    const struct header *h = &ps->hdr;
    enum ng_work_kind kind = NG_WORK_KERNEL;
    int64_t total, inst;
    int decimals, rc;

    rc = parse_ns(c->s[1], c->n[1], h->exp10, nf, &total, &decimals);
    if (rc < 0)
        return bad_number(ps, c, 1, "Total Time", rc);
    rc = parse_ns(c->s[2], c->n[2], 0, nf, &inst, NULL);
    if (rc < 0)
        return bad_number(ps, c, 2, h->kind == BLOCK_KERNEL ? "Instances" : "Count", rc);
    const char *name = c->s[h->ncols - 1];
    size_t len = c->n[h->ncols - 1];
    if (h->kind == BLOCK_MEMORY) {
        if (memory_kind(ps, name, len, &kind) < 0)
            return -1;
        const char *now = ng_source_memcpy_name(name, len);
        if (now) {
            name = now;
            len = strlen(name);
        }
    }
    if (ps->work & NG_WORK_BIT(kind))
        note_rounding(ps, decimals);
    return count_row(ps, kind, name, len, total, inst);
}

static int cell_count_error(struct parser *ps, int got)
{
    return ng_err_set(ps->err, "'%s' line %ld: %d columns expected, found %d", ps->path,
                      ps->lineno, ps->hdr.ncols, got);
}

/* ---- blocks ---- */

static void begin_block(struct parser *ps, enum layout layout, enum state state,
                        enum block_kind kind)
{
    ps->layout = layout;
    ps->state = state;
    ps->hdr.kind = kind;
    ps->blocks[kind]++;
    ps->title_exp10 = -1;   /* a title belongs to the table right below it */
}

/* The header cells of a one-line header, then the block they begin. */
static void header_block(struct parser *ps, enum layout layout, const struct cells *c)
{
    enum block_kind kind = match_header(c, ps->title_exp10, &ps->hdr);
    begin_block(ps, layout, ROWS, kind);
}

/* ---- csv and tsv: cells split on a delimiter ---- */

/* A header as nsys writes it: cells never contain the delimiter.  *quoted:
 * some cell was quoted, which nsys never does to a header (its cells hold
 * no comma): the file was saved again by a tool that quotes every cell. */
static void split_header(const char *line, char sep, struct cells *c, int *quoted)
{
    const char *s = line;

    c->count = 0;
    *quoted = 0;
    for (;;) {
        const char *d = strchr(s, sep);
        size_t len = d ? (size_t)(d - s) : strlen(s);
        if (c->count == MAX_COLS) {
            c->count++;
            return;
        }
        c->s[c->count] = s;
        c->n[c->count] = len;
        trim(&c->s[c->count], &c->n[c->count]);
        size_t before = c->n[c->count];
        unquote(&c->s[c->count], &c->n[c->count]);
        *quoted |= c->n[c->count] != before;
        c->count++;
        if (!d)
            return;
        s = d + 1;
    }
}

/* "Time (%),Total Time (ns),..." or the same with tabs.  A line starting
 * with "Time" that has neither is the column header of nsys before 2020.2. */
static int try_delimited_header(struct parser *ps, const char *line)
{
    struct cells c = { .count = 0 };

    if (!starts_with(line, "Time") && !starts_with(line, "\"Time"))
        return 0;
    char sep = strchr(line, '\t') ? '\t' : strchr(line, ',') ? ',' : 0;
    if (!sep)
        return 0;
    split_header(line, sep, &c, &ps->quotes_all);
    header_block(ps, sep == '\t' ? LAY_TSV : LAY_CSV, &c);
    return 1;
}

/* nsys's CSV is not RFC 4180: only a cell containing a comma is quoted, and
 * quotes inside are not doubled.  The name is the last column, so the first
 * ncols-1 cells split on the delimiter and the rest of the line is the
 * name; its surrounding quotes are nsys's only when it holds a comma (a
 * kernel may be named "x", quotes included).  TSV never quotes: nsys turns
 * tabs in values into spaces. */
static int delimited_row(struct parser *ps, const char *line)
{
    struct cells c = { .count = 0 };
    const char *s = line;
    char sep = ps->layout == LAY_TSV ? '\t' : ',';
    int n = ps->hdr.ncols;

    for (int i = 0; i < n - 1; i++) {
        const char *d = strchr(s, sep);
        if (!d)
            return cell_count_error(ps, i + 1);
        c.s[i] = s;
        c.n[i] = (size_t)(d - s);
        trim(&c.s[i], &c.n[i]);
        if (sep == ',')
            unquote(&c.s[i], &c.n[i]);
        s = d + 1;
    }
    c.s[n - 1] = s;
    c.n[n - 1] = strlen(s);
    if (sep == ',' && c.n[n - 1] >= 2 &&
        (ps->quotes_all || memchr(s + 1, ',', c.n[n - 1] - 2)))
        unquote(&c.s[n - 1], &c.n[n - 1]);
    c.count = n;
    return add_row(ps, &c, (struct numfmt){ '.', 0 });
}

/* ---- column: a header, then a line of dash runs that gives the spans ---- */

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

static void column_header(struct parser *ps, const char *dashes)
{
    struct cells c = { .count = 0 };
    const char *hdr = ps->pending;
    size_t hlen = strlen(hdr);

    for (size_t i = 0; dashes[i];) {
        if (dashes[i] != '-') {
            i++;
            continue;
        }
        size_t a = i;
        while (dashes[i] == '-')
            i++;
        if (c.count == MAX_COLS) {
            c.count++;
            break;
        }
        ps->span[c.count] = a;
        c.s[c.count] = a < hlen ? hdr + a : hdr + hlen;
        c.n[c.count] = a < hlen ? (i < hlen ? i - a : hlen - a) : 0;
        trim(&c.s[c.count], &c.n[c.count]);
        c.count++;
    }
    ps->nspan = c.count;
    header_block(ps, LAY_COLUMN, &c);
}

/* Cells by span; numbers are right-justified, names left-justified (a name
 * keeps its own leading blanks) and run to the end of the line. */
static void span_cells(const struct parser *ps, const char *line, size_t len, struct cells *c)
{
    int n = ps->hdr.ncols;

    for (int i = 0; i < n; i++) {
        size_t a = ps->span[i];
        size_t b = i + 1 < n ? ps->span[i + 1] - (ps->layout == LAY_TABLE ? 2 : 0) : len;
        if (a > len)
            a = len;
        if (b > len)
            b = len;
        if (b < a)
            b = a;
        c->s[i] = line + a;
        c->n[i] = b - a;
        if (i + 1 < n)
            trim(&c->s[i], &c->n[i]);
        else
            rtrim(c->s[i], &c->n[i]);
    }
    c->count = n;
}

static int column_row(struct parser *ps, const char *line)
{
    struct cells c = { .count = 0 };
    span_cells(ps, line, strlen(line), &c);
    return add_row(ps, &c, column_numfmt(&c));
}

/* ---- table: the column layout in boxes ----
 *   +----------+-----------------+-----+------+
 *   | Time (%) | Total Time (ns) | ... | Name |
 *   +----------+-----------------+-----+------+
 *   |    100.0 |         1831281 | ... | k    |
 *   +----------+-----------------+-----+------+     */

static int is_border(const char *s)
{
    if (*s != '+')
        return 0;
    for (; *s; s++)
        if (*s != '+' && *s != '-')
            return 0;
    return 1;
}

/* Each cell starts after a '+' of the border, past the space that pads it. */
static void table_spans(struct parser *ps, const char *border)
{
    ps->nspan = 0;
    for (size_t i = 0; border[i + 1]; i++)
        if (border[i] == '+' && ps->nspan < MAX_COLS + 1)
            ps->span[ps->nspan++] = i + 2;
}

/* The last cell runs to the end of the line (a name of several-byte
 * characters moves the closing '|'): drop that '|' and the pad. */
static void table_cells(struct parser *ps, const char *line, struct cells *c)
{
    size_t len = strlen(line);
    rtrim(line, &len);
    if (len && line[len - 1] == '|')
        len--;
    span_cells(ps, line, len, c);
}

static int table_header(struct parser *ps, const char *line)
{
    struct cells c = { .count = 0 };

    if (ps->nspan > MAX_COLS) {   /* more columns than any summary: not one */
        ps->hdr.kind = BLOCK_OTHER;
        return 0;
    }
    ps->hdr.ncols = ps->nspan;
    table_cells(ps, line, &c);
    for (int i = 0; i < c.count; i++)
        trim(&c.s[i], &c.n[i]);
    ps->hdr.kind = match_header(&c, ps->title_exp10, &ps->hdr);
    return 0;
}

static int feed(struct parser *ps, const char *line);

static int table_line(struct parser *ps, const char *line)
{
    struct cells c = { .count = 0 };

    if (ps->state == TABLE_TOP) {
        if (*line != '|' || ps->nspan < 2) {   /* not a table after all */
            ps->state = OUTSIDE;
            return feed(ps, line);
        }
        ps->state = TABLE_HEAD;
        return table_header(ps, line);
    }
    if (ps->state == TABLE_HEAD) {
        if (!is_border(line)) {
            ps->state = OUTSIDE;
            return feed(ps, line);
        }
        begin_block(ps, LAY_TABLE, ROWS, ps->hdr.kind);
        return 0;
    }
    if (is_border(line) || *line == '\0') {   /* the closing border ends the table */
        ps->state = OUTSIDE;
        return 0;
    }
    if (ps->hdr.kind == BLOCK_OTHER)
        return 0;
    if (*line != '|')
        return ng_err_set(ps->err, "'%s' line %ld: a row of nsys's table layout must start "
                          "with '|'", ps->path, ps->lineno);
    table_cells(ps, line, &c);
    return add_row(ps, &c, column_numfmt(&c));
}

/* ---- json: an array of objects, one "key": value a line ----
 * nsys's writer has escaped '"' and '\' in every version tried (2022.4,
 * 2023.4), but its documentation says it does not; it writes control
 * characters raw, and a value that looks like a number or a JSON keyword
 * (a kernel named 12345 or null) bare.  A value is read as it stands on
 * its line, so an unescaped quote still has one reading -- unless the file
 * also holds a backslash, which such a writer would not have escaped. */

static int not_json(struct parser *ps)
{
    return ng_err_set(ps->err, "'%s' line %ld: not nsys stats json (one \"key\": value a line, "
                      "as --format json writes it); a name with a line break cannot be read "
                      "back from any nsys stats text: read the SQLite export instead",
                      ps->path, ps->lineno);
}

/* A "key": value line: the key, and the value as it stands (its trailing
 * comma, if any, is dropped once the object's last field is known). */
static int json_field(struct parser *ps, const char *line)
{
    const char *s = line;
    size_t n = strlen(line);

    trim(&s, &n);
    if (n < 4 || s[0] != '"')
        return not_json(ps);
    const char *q = memchr(s + 1, '"', n - 1);
    if (!q || (size_t)(q - s) + 2 > n || q[1] != ':')
        return not_json(ps);
    const char *key = s + 1;
    size_t klen = (size_t)(q - key);
    const char *v = q + 2;
    size_t vlen = n - (size_t)(v - s);
    trim(&v, &vlen);
    if (vlen == 0)
        return not_json(ps);
    if (!ps->header_done) {
        store_add(&ps->keys, key, klen, ps->lineno);
    } else if (ps->hdr.kind != BLOCK_OTHER) {
        int i = ps->vals.count;
        if (i >= ps->keys.count || !field_is(key, klen, ps->keys.text.data + ps->keys.off[i]))
            return ng_err_set(ps->err, "'%s' line %ld: json object whose fields differ from "
                              "the first object's", ps->path, ps->lineno);
    }
    store_add(&ps->vals, v, vlen, ps->lineno);
    return 0;
}

static void add_utf8(struct ng_buf *b, unsigned cp)
{
    unsigned char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (unsigned char)(0xC0 | cp >> 6), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (unsigned char)(0xE0 | cp >> 12), u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (unsigned char)(0xF0 | cp >> 18), u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)),
        n = 4;
    ng_buf_add(b, u, n);
}

/* \uXXXX, with a surrogate pair as one code point; 0 on a bad escape. */
static size_t json_unicode(const char *s, size_t n, struct ng_buf *out)
{
    long first = n >= 6 ? ng_hex4(s + 2) : -1, second;
    if (first <= 0)
        return 0;
    unsigned cp = (unsigned)first, lo;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        second = n >= 12 && s[6] == '\\' && s[7] == 'u' ? ng_hex4(s + 8) : -1;
        if (second < 0xDC00 || second > 0xDFFF)
            return 0;
        lo = (unsigned)second;
        add_utf8(out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
        return 12;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return 0;
    add_utf8(out, cp);
    return 6;
}

/* The content of a JSON string (without its quotes) decoded into out;
 * 1 when it holds a quote no backslash escapes (then out is meaningless),
 * -1 on a malformed escape. */
static int json_unescape(const char *s, size_t n, struct ng_buf *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

    for (size_t i = 0; i < n;) {
        if (s[i] == '"')
            return 1;
        if (s[i] != '\\') {
            ng_buf_add(out, &s[i++], 1);
            continue;
        }
        if (i + 1 == n)
            return -1;
        const char *e = s[i + 1] ? strchr(from, s[i + 1]) : NULL;
        if (e) {
            ng_buf_add(out, &to[e - from], 1);
            i += 2;
            continue;
        }
        size_t used = s[i + 1] == 'u' ? json_unicode(s + i, n - i, out) : 0;
        if (!used)
            return -1;
        i += used;
    }
    return 0;
}

/* One stored value into its text: strings decoded, bare numbers and
 * keywords as they stand. */
static int json_value(struct parser *ps, const char *v, size_t n, struct ng_buf *out)
{
    if (n == 0 || v[0] != '"') {
        ng_buf_add(out, v, n);
        return 0;
    }
    if (n < 2 || v[n - 1] != '"')
        return not_json(ps);
    if (memchr(v, '\\', n) && !ps->backslash_line)
        ps->backslash_line = ps->lineno;
    int rc = json_unescape(v + 1, n - 2, out);
    if (rc < 0)
        return ng_err_set(ps->err, "'%s' line %ld: a json string with a malformed escape",
                          ps->path, ps->lineno);
    if (rc == 1) {
        out->len = 0;
        ng_buf_add(out, v + 1, n - 2);   /* as nsys wrote it: the quotes are the name's */
        if (!ps->raw_quote_line)
            ps->raw_quote_line = ps->lineno;
    }
    if (ps->raw_quote_line && ps->backslash_line)
        return ng_err_set(ps->err, "'%s' line %ld: a name in this json holds a quote that nsys "
                          "did not escape, and its strings hold backslashes (line %ld), which "
                          "such a writer leaves unescaped too: the names cannot be read back "
                          "without guessing; save the summary with --format csv",
                          ps->path, ps->raw_quote_line, ps->backslash_line);
    return 0;
}

/* The object is complete: every field but the last ends with a comma. */
static int json_object_end(struct parser *ps)
{
    struct store *st = &ps->vals;
    struct store decoded = { .text = NG_BUF_INIT };
    struct cells c = { .count = 0 };
    int ret = 0;

    if (!ps->header_done) {
        store_cells(&ps->keys, &c);
        ps->hdr.kind = match_header(&c, ps->title_exp10, &ps->hdr);
        begin_block(ps, LAY_JSON, JSON_ARRAY, ps->hdr.kind);
        ps->header_done = 1;
    }
    ps->state = JSON_ARRAY;
    if (ps->hdr.kind == BLOCK_OTHER)
        return 0;
    if (st->count != ps->keys.count)
        return ng_err_set(ps->err, "'%s' line %ld: json object whose fields differ from the "
                          "first object's", ps->path, ps->lineno);
    for (int i = 0; i < st->count && ret == 0; i++) {
        const char *v = st->text.data + st->off[i];
        size_t n = st->len[i];
        if (i + 1 < st->count) {
            if (n == 0 || v[n - 1] != ',') {
                ret = not_json(ps);
                break;
            }
            n--;
        }
        struct ng_buf b = NG_BUF_INIT;
        long at = ps->lineno;
        ps->lineno = st->line[i];   /* messages name the field's line */
        ret = json_value(ps, v, n, &b);
        ps->lineno = at;
        store_add(&decoded, b.data ? b.data : "", b.len, st->line[i]);
        ng_buf_release(&b);
    }
    if (ret == 0) {
        store_cells(&decoded, &c);
        long at = ps->lineno;
        ps->lineno = st->line[ps->hdr.ncols - 1];   /* where the name is */
        ret = add_row(ps, &c, (struct numfmt){ '.', 0 });
        ps->lineno = at;
    }
    ng_buf_release(&decoded.text);
    return ret;
}

static int json_line(struct parser *ps, const char *line)
{
    if (ps->header_done && ps->hdr.kind == BLOCK_OTHER) {   /* not ours: find its end */
        if (line_is(line, "]"))
            ps->state = OUTSIDE;
        return 0;
    }
    if (ps->state == JSON_ARRAY) {
        if (line_is(line, "]")) {
            ps->state = OUTSIDE;
            return 0;
        }
        if (!line_is(line, "{"))
            return not_json(ps);
        store_clear(&ps->vals);
        ps->state = JSON_OBJECT;
        return 0;
    }
    if (line_is(line, "}") || line_is(line, "},"))
        return json_object_end(ps);
    return json_field(ps, line);
}

/* ---- hdoc and htable: one <th> or <td> cell a line, HTML-escaped ---- */

static const struct { const char *name; const char *text; } entities[] = {
    { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" },
    { "&apos;", "'" }, { NULL, NULL },
};

/* "&#252;" or "&#xFC;" (len bytes, ';' included): its code point, 0 if it
 * is not one. */
static unsigned long char_ref(const char *s, size_t len)
{
    int hex = len > 3 && (s[2] == 'x' || s[2] == 'X');
    unsigned long cp = 0;
    size_t i = 2 + (size_t)hex;

    if (len < 4 || s[1] != '#' || i + 1 >= len)
        return 0;
    for (; i + 1 < len; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0 || cp > 0x10FFFF)
            return 0;
        cp = cp * (hex ? 16 : 10) + (unsigned long)d;
    }
    return cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : cp;
}

static int html_decode(struct parser *ps, const char *s, size_t n, struct ng_buf *out)
{
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            ng_buf_add(out, &s[i++], 1);
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i);
        size_t len = semi ? (size_t)(semi - (s + i)) + 1 : 0;
        int e = 0;
        while (entities[e].name && !(len && field_is(s + i, len, entities[e].name)))
            e++;
        if (entities[e].name) {
            ng_buf_adds(out, entities[e].text);
            i += len;
            continue;
        }
        unsigned long cp = len ? char_ref(s + i, len) : 0;
        if (cp == 0) {
            struct ng_buf shown = NG_BUF_INIT;
            ng_text_clean(&shown, s + i, len ? len : (n - i > 12 ? 12 : n - i),
                          NG_TEXT_ESCAPE_CONTROLS);
            ng_err_set(ps->err, "'%s' line %ld: '%s' is not an HTML character reference "
                       "nsys writes", ps->path, ps->lineno, shown.data);
            ng_buf_release(&shown);
            return -1;
        }
        add_utf8(out, (unsigned)cp);
        i += len;
    }
    return 0;
}

static int not_html(struct parser *ps)
{
    return ng_err_set(ps->err, "'%s' line %ld: not nsys stats html (one <th> or <td> cell a "
                      "line, as --format hdoc and htable write it); a name with a line break "
                      "cannot be read back from any nsys stats text: read the SQLite export "
                      "instead", ps->path, ps->lineno);
}

static int html_row_end(struct parser *ps)
{
    struct store decoded = { .text = NG_BUF_INIT };
    struct store *src = ps->header_done ? &ps->vals : &ps->keys;
    struct cells c = { .count = 0 };
    int ret = 0;

    if (!ps->header_done && ps->keys.count == 0)
        return 0;
    long at = ps->lineno;
    for (int i = 0; i < src->count && i < MAX_COLS && ret == 0; i++) {
        struct ng_buf b = NG_BUF_INIT;
        ps->lineno = src->line[i];   /* messages name the cell's line */
        ret = html_decode(ps, src->text.data + src->off[i], src->len[i], &b);
        store_add(&decoded, b.data ? b.data : "", b.len, src->line[i]);
        ng_buf_release(&b);
    }
    ps->lineno = at;
    if (src->count > MAX_COLS)
        decoded.count = src->count;
    store_cells(&decoded, &c);
    if (ret == 0 && !ps->header_done) {
        ps->hdr.kind = match_header(&c, ps->title_exp10, &ps->hdr);
        begin_block(ps, LAY_HTML, HTML_TABLE, ps->hdr.kind);
        ps->header_done = 1;
    } else if (ret == 0 && ps->hdr.kind != BLOCK_OTHER) {
        if (c.count != ps->hdr.ncols) {
            ret = cell_count_error(ps, c.count);
        } else {
            ps->lineno = src->line[ps->hdr.ncols - 1];   /* where the name is */
            ret = add_row(ps, &c, (struct numfmt){ '.', 0 });
            ps->lineno = at;
        }
    }
    store_clear(&ps->vals);
    ng_buf_release(&decoded.text);
    return ret;
}

static int html_line(struct parser *ps, const char *line)
{
    static const char *const ignored[] = { "<thead>", "</thead>", "<tbody>", "</tbody>", NULL };
    const char *s = line;
    size_t n = strlen(line);

    trim(&s, &n);
    if (field_is(s, n, "</table>")) {
        ps->state = OUTSIDE;
        return 0;
    }
    if (ps->header_done && ps->hdr.kind == BLOCK_OTHER)   /* not ours: find its end */
        return 0;
    if (field_is(s, n, "<tr>")) {
        store_clear(&ps->vals);
        return 0;
    }
    if (field_is(s, n, "</tr>"))
        return html_row_end(ps);
    for (int i = 0; ignored[i]; i++)
        if (field_is(s, n, ignored[i]))
            return 0;
    int th = starts_with(s, "<th>") && ends_with(s, n, "</th>");
    int td = starts_with(s, "<td>") && ends_with(s, n, "</td>");
    if ((!th && !td) || n < 9)
        return not_html(ps);
    if (th != !ps->header_done)
        return not_html(ps);
    store_add(th ? &ps->keys : &ps->vals, s + 4, n - 9, ps->lineno);
    return 0;
}

static void markup_begin(struct parser *ps, enum state state)
{
    ps->state = state;
    ps->header_done = 0;
    store_clear(&ps->keys);
    store_clear(&ps->vals);
}

/* ---- framing ---- */

/* The report a framing line announces:
 *   Processing [X.sqlite] with [/path/reports/cuda_gpu_kern_sum.py]...   (nsys stats 2022+)
 *   Running [/path/reports/gpukernsum.py X.sqlite]...                    (nsys stats 2021)
 *   [6/8] Executing 'cuda_gpu_kern_sum' stats report                     (nsys profile --stats) */
static int note_report(struct parser *ps, const char *line)
{
    const char *name = NULL, *end = NULL;

    if (starts_with(line, "Processing [")) {
        const char *w = strstr(line, "] with [");
        end = w ? strstr(w, ".py]") : NULL;
        name = end;
        while (name && name > w && name[-1] != '/' && name[-1] != '[')
            name--;
    } else if (starts_with(line, "Running [")) {
        end = strstr(line, ".py ");
        name = end;
        while (name && name > line + 9 && name[-1] != '/' && name[-1] != '[')
            name--;
    } else if (line[0] == '[' && strstr(line, "] Executing '") &&
               ends_with(line, strlen(line), "' stats report")) {
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
static void note_skip(struct parser *ps, const char *line)
{
    char **slot = ps->report[0] != '\0'
                      ? (report_kind(ps->report) != BLOCK_OTHER ? &ps->skipped : NULL)
                  : starts_with(line, "SKIPPED:") && strstr(line, " does not contain ")
                      ? &ps->skipped_unknown : NULL;
    if (slot && !*slot)
        *slot = ng_xstrdup(line);
}

/* "CUDA Kernel Statistics (nanoseconds)": the unit of the table below, in
 * nsys before 2020.2, whose header has none. */
static void note_title(struct parser *ps, const char *line)
{
    size_t n = strlen(line);
    if (!strstr(line, "Statistics"))
        return;
    rtrim(line, &n);
    for (int i = 0; title_units[i].name; i++)
        if (ends_with(line, n, title_units[i].name))
            ps->title_exp10 = title_units[i].exp10;
}

/* ---- the line machine ---- */

static int feed_block(struct parser *ps, const char *line)
{
    switch (ps->state) {
    case JSON_ARRAY:
    case JSON_OBJECT:
        return json_line(ps, line);
    case HTML_TABLE:
        return html_line(ps, line);
    case TABLE_TOP:
    case TABLE_HEAD:
        return table_line(ps, line);
    case ROWS:
        if (ps->layout == LAY_TABLE)
            return table_line(ps, line);
        if (*line == '\0') {
            ps->state = OUTSIDE;
            return 0;
        }
        if (ps->hdr.kind == BLOCK_OTHER)
            return 0;
        return ps->layout == LAY_COLUMN ? column_row(ps, line) : delimited_row(ps, line);
    case OUTSIDE:
        break;
    }
    return 0;
}

static int feed(struct parser *ps, const char *line)
{
    if (ps->state != OUTSIDE && !(ps->state == ROWS && note_report(ps, line)))
        return feed_block(ps, line);
    if (ps->state != OUTSIDE) {   /* a framing line ends a block of rows */
        ps->state = OUTSIDE;
        return 0;
    }
    if (note_report(ps, line))
        return 0;
    if (starts_with(line, "SKIPPED:") || starts_with(line, "ERROR:")) {
        note_skip(ps, line);
        return 0;
    }
    if (try_delimited_header(ps, line))
        return 0;
    if (line_is(line, "[")) {
        markup_begin(ps, JSON_ARRAY);
        return 0;
    }
    if (line_is(line, "<table>")) {
        markup_begin(ps, HTML_TABLE);
        return 0;
    }
    if (is_border(line)) {
        table_spans(ps, line);
        ps->layout = LAY_TABLE;
        ps->state = TABLE_TOP;
        free(ps->pending);
        ps->pending = NULL;
        return 0;
    }
    if (ps->pending && is_dash_line(line)) {
        column_header(ps, line);
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
static int nsys_seen(const struct parser *ps)
{
    return ps->framed || ps->skipped || ps->skipped_unknown || ps->blocks[BLOCK_OTHER] ||
           ps->blocks[BLOCK_KERNEL] || ps->blocks[BLOCK_MEMORY];
}

static int refuse_empty(struct parser *ps)
{
    const char *said = ps->skipped ? ps->skipped : ps->skipped_unknown;

    if (ng_profile_no_counted_work(ps->p, ps->work, ps->err) < 0)
        return -1;
    if (!ps->blocks[BLOCK_KERNEL] && said) {
        char *shown = ng_text_cleaned(said, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(ps->err, "'%s' has no CUDA kernel data: nsys said \"%s\"", ps->path, shown);
        free(shown);
        return -1;
    }
    if (!ps->blocks[BLOCK_KERNEL] && !ps->blocks[BLOCK_MEMORY]) {
        ng_err_set(ps->err, ps->framed || ps->blocks[BLOCK_OTHER]
                                ? "nsys stats text with no kernel or memory summary"
                                : "text with no nsys report");
        return NG_SOURCE_NOT_A_PROFILE;
    }
    return ng_err_set(ps->err, "'%s' has no CUDA kernel data (the %s summary has no rows)",
                      ps->path, block_names[ps->blocks[BLOCK_KERNEL] ? BLOCK_KERNEL
                                                                     : BLOCK_MEMORY]);
}

static void warn_rounding(struct parser *ps)
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

static int finish(struct parser *ps)
{
    if (ps->state == JSON_ARRAY || ps->state == JSON_OBJECT)
        return ng_err_set(ps->err, "'%s' ends inside a json report (no closing ']'): "
                          "is it complete?", ps->path);
    if (ps->state == HTML_TABLE)
        return ng_err_set(ps->err, "'%s' ends inside an html table (no closing </table>): "
                          "is it complete?", ps->path);
    if (ps->blocks[BLOCK_KERNEL] > 1)
        return ng_err_set(ps->err,
                          "'%s' holds %d kernel summary reports; save only one "
                          "(e.g. --report cuda_gpu_kern_sum), they would be counted twice",
                          ps->path, ps->blocks[BLOCK_KERNEL]);
    if (ps->blocks[BLOCK_MEMORY] > 1)
        return ng_err_set(ps->err,
                          "'%s' holds %d memory summary reports; save only one "
                          "(e.g. --report cuda_gpu_mem_time_sum), they would be counted twice",
                          ps->path, ps->blocks[BLOCK_MEMORY]);
    if (ps->p->n_rows == 0)
        return refuse_empty(ps);
    if (ng_profile_finish(ps->p, ps->err) < 0)
        return -1;
    warn_rounding(ps);
    if (ps->cut_merged)
        ng_profile_warn(ps->p, "'%s': nsys cut %zu names to fit its column width (they end in "
                        "'" ELLIPSIS "'), and %zu of those rows merged into another row with "
                        "the same cut name: the totals are exact, but different kernels may now "
                        "be one row; save the summary with --format csv for whole names",
                        ps->path, ps->cut_rows, ps->cut_merged);
    return 0;
}

int ng_nsys_stats_parse_stream(struct ng_profile *p, FILE *f, const char *shown,
                        const struct ng_source_opts *opts, struct ng_err *err)
{
    struct parser ps = { .path = shown, .p = p, .err = err, .title_exp10 = -1 };
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
