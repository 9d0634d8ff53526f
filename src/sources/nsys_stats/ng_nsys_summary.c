#include "sources/nsys_stats/ng_nsys_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ng_source_names.h"
#include "util/ng_text.h"

/* The summaries that count, by the third and the last column of their
 * header; the first two are always "Time (%)" and "Total Time (unit)".
 * openmp_sum and openacc_sum have "Count" and "Name": they are not here. */
static const struct { enum ng_nsys_summary_block kind; const char *count, *name; } shapes[] = {
    { NG_SUMMARY_KERNEL, "Instances", "Name" },       /* every kernel summary, 2019..2026 */
    { NG_SUMMARY_MEMORY, "Count", "Operation" },      /* cuda_gpu_mem_time_sum,
                                                         gpumemtimesum 2022+ */
    { NG_SUMMARY_MEMORY, "Operations", "Operation" }, /* gpumemtimesum 2020.2..2021 */
    { NG_SUMMARY_MEMORY, "Operations", "Name" },      /* before 2020.2 */
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* Columns allowed between the count and the name: 2019/2020 (Average,
 * Minimum, Maximum), 2021 (+StdDev), 2022+ (Avg, Med, Min, Max, StdDev),
 * 2022 gpukernsum and 2023+ _gb_ (GridXYZ, BlockXYZ). */
static const char *const stat_columns[] = {
    "Avg", "Average", "Med", "Median", "Min", "Minimum", "Max", "Maximum",
    "StdDev", "GridXYZ", "BlockXYZ", NULL,
};

/* Units in headers ("Total Time (sec)" with --timeunit sec). */
static const struct { const char *name; int exp10; } units[] = {
    { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { "sec", 9 }, { NULL, 0 },
};

/* ---- small text helpers ---- */

void ng_nsys_summary_trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

void ng_nsys_summary_rtrim(const char *s, size_t *n)
{
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
        (*n)--;
}

void ng_nsys_summary_unquote(const char **s, size_t *n)
{
    if (*n >= 2 && (*s)[0] == '"' && (*s)[*n - 1] == '"')
        (*s)++, *n -= 2;
}

int ng_nsys_summary_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int ng_nsys_summary_field_is(const char *f, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(f, want, n) == 0;
}

int ng_nsys_summary_ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The line without its indentation and trailing blanks, for the markup
 * layouts, whose structure lines are indented. */
int ng_nsys_summary_line_is(const char *line, const char *want)
{
    const char *s = line;
    size_t n = strlen(line);
    ng_nsys_summary_trim(&s, &n);
    return ng_nsys_summary_field_is(s, n, want);
}

void ng_nsys_summary_store_clear(struct ng_nsys_summary_store *st)
{
    st->text.len = 0;
    st->count = 0;
}

void ng_nsys_summary_store_add(struct ng_nsys_summary_store *st, const char *s, size_t n, long line)
{
    if (st->count > NG_SUMMARY_MAX_COLS)
        return;
    if (st->count == NG_SUMMARY_MAX_COLS) {
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

void ng_nsys_summary_store_cells(const struct ng_nsys_summary_store *st,
                                 struct ng_nsys_summary_cells *c)
{
    c->count = st->count;
    c->line = st->line;
    for (int i = 0; i < st->count && i < NG_SUMMARY_MAX_COLS; i++) {
        c->s[i] = st->text.data + st->off[i];
        c->n[i] = st->len[i];
    }
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
        if (ng_nsys_summary_field_is(u, n, units[i].name))
            return units[i].exp10;
    return -1;
}

static int is_stat_column(const char *f, size_t n)
{
    size_t base, ulen;
    const char *unit;

    split_unit(f, n, &base, &unit, &ulen);
    for (int j = 0; stat_columns[j]; j++)
        if (ng_nsys_summary_field_is(f, base, stat_columns[j]))
            return 1;
    return 0;
}

/* The header of a summary this backend counts fills h and returns its kind;
 * any other report's header returns NG_SUMMARY_OTHER.  A "Total Time" without a
 * unit is nsys before 2020.2, which gave the unit in the title above the
 * table (always nanoseconds in the output seen). */
enum ng_nsys_summary_block ng_nsys_summary_match_header(const struct ng_nsys_summary_cells *c,
                                                        int title_exp10,
                                                        struct ng_nsys_summary_header *h)
{
    size_t base, ulen;
    const char *unit;
    int n = c->count;

    if (n < 4 || n > NG_SUMMARY_MAX_COLS)
        return NG_SUMMARY_OTHER;
    if (!ng_nsys_summary_field_is(c->s[0], c->n[0], "Time (%)") &&
        !ng_nsys_summary_field_is(c->s[0], c->n[0], "Time(%)"))
        return NG_SUMMARY_OTHER;
    split_unit(c->s[1], c->n[1], &base, &unit, &ulen);
    if (!ng_nsys_summary_field_is(c->s[1], base, "Total Time") ||
        (unit && unit_exp(unit, ulen) < 0))
        return NG_SUMMARY_OTHER;
    size_t k = 0;
    while (k < N_SHAPES && !(ng_nsys_summary_field_is(c->s[2], c->n[2], shapes[k].count) &&
                             ng_nsys_summary_field_is(c->s[n - 1], c->n[n - 1], shapes[k].name)))
        k++;
    if (k == N_SHAPES)
        return NG_SUMMARY_OTHER;
    for (int i = 3; i < n - 1; i++)
        if (!is_stat_column(c->s[i], c->n[i]))
            return NG_SUMMARY_OTHER;
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
static int parse_ns(const char *s, size_t n, int exp10, struct ng_nsys_summary_numfmt nf,
                    int64_t *out, int *decimals)
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

static int bad_number(struct ng_nsys_summary *ps, const struct ng_nsys_summary_cells *c, int i,
                      const char *what, int rc)
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
struct ng_nsys_summary_numfmt ng_nsys_summary_column_numfmt(const struct ng_nsys_summary_cells *c)
{
    if (memchr(c->s[0], ',', c->n[0]))
        return (struct ng_nsys_summary_numfmt){ ',', '.' };
    return (struct ng_nsys_summary_numfmt){ '.', ',' };
}

/* ---- rows ---- */

/* nsys names memory rows after the operation: "[CUDA memcpy Host-to-Device]",
 * "[CUDA memcpy HtoD]", "[CUDA Unified Memory memcpy DtoH]", "[CUDA memset]". */
static int memory_kind(struct ng_nsys_summary *ps, const char *name, size_t len,
                       enum ng_work_kind *kind)
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
static void note_rounding(struct ng_nsys_summary *ps, int decimals)
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
static int count_row(struct ng_nsys_summary *ps, enum ng_work_kind kind, const char *name,
                     size_t len, int64_t total, int64_t inst)
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
    if (ps->layout == NG_SUMMARY_COLUMN || ps->layout == NG_SUMMARY_TABLE) {
        if (ng_nsys_summary_ends_with(name, len, NG_SUMMARY_ELLIPSIS)) {
            ps->cut_rows++;
            ps->cut_merged += (size_t)merged;
        }
    }
    return 0;
}

int ng_nsys_summary_add_row(struct ng_nsys_summary *ps, const struct ng_nsys_summary_cells *c,
                            struct ng_nsys_summary_numfmt nf)
{
    const struct ng_nsys_summary_header *h = &ps->hdr;
    enum ng_work_kind kind = NG_WORK_KERNEL;
    int64_t total, inst;
    int decimals, rc;

    rc = parse_ns(c->s[1], c->n[1], h->exp10, nf, &total, &decimals);
    if (rc < 0)
        return bad_number(ps, c, 1, "Total Time", rc);
    rc = parse_ns(c->s[2], c->n[2], 0, nf, &inst, NULL);
    if (rc < 0)
        return bad_number(ps, c, 2, h->kind == NG_SUMMARY_KERNEL ? "Instances" : "Count", rc);
    const char *name = c->s[h->ncols - 1];
    size_t len = c->n[h->ncols - 1];
    if (h->kind == NG_SUMMARY_MEMORY) {
        if (memory_kind(ps, name, len, &kind) < 0)
            return -1;
        const char *now = ng_source_names_memcpy(name, len);
        if (now) {
            name = now;
            len = strlen(name);
        }
    }
    if (ps->work & NG_WORK_BIT(kind))
        note_rounding(ps, decimals);
    return count_row(ps, kind, name, len, total, inst);
}

int ng_nsys_summary_cell_count_error(struct ng_nsys_summary *ps, int got)
{
    return ng_err_set(ps->err, "'%s' line %ld: %d columns expected, found %d", ps->path,
                      ps->lineno, ps->hdr.ncols, got);
}

/* ---- blocks ---- */

void ng_nsys_summary_begin_block(struct ng_nsys_summary *ps, enum ng_nsys_summary_layout layout,
                                 enum ng_nsys_summary_state state, enum ng_nsys_summary_block kind)
{
    ps->layout = layout;
    ps->state = state;
    ps->hdr.kind = kind;
    ps->blocks[kind]++;
    ps->title_exp10 = -1;   /* a title belongs to the table right below it */
}

/* The header cells of a one-line header, then the block they begin. */
void ng_nsys_summary_header_block(struct ng_nsys_summary *ps, enum ng_nsys_summary_layout layout,
                                  const struct ng_nsys_summary_cells *c)
{
    enum ng_nsys_summary_block kind = ng_nsys_summary_match_header(c, ps->title_exp10, &ps->hdr);
    ng_nsys_summary_begin_block(ps, layout, NG_SUMMARY_ROWS, kind);
}
