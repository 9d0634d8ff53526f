/* The layouts of saved `nsys stats` text with one row a line: csv and
 * tsv (cells split on a delimiter), column (spans given by a line of
 * dashes) and table (the column layout in boxes).  Each turns its lines
 * into cells for ng_nsys_summary.h. */
#include "sources/nsys_stats/ng_nsys_summary_text.h"

#include <string.h>

/* ---- csv and tsv: cells split on a delimiter ---- */

/* A header as nsys writes it: cells never contain the delimiter.  *quoted:
 * some cell was quoted, which nsys never does to a header (its cells hold
 * no comma): the file was saved again by a tool that quotes every cell. */
static void split_header(const char *line, char sep, struct ng_nsys_summary_cells *c,
                         int *quoted)
{
    const char *s = line;

    c->count = 0;
    *quoted = 0;
    for (;;) {
        const char *d = strchr(s, sep);
        size_t len = d ? (size_t)(d - s) : strlen(s);
        if (c->count == NG_SUMMARY_MAX_COLS) {
            c->count++;
            return;
        }
        c->s[c->count] = s;
        c->n[c->count] = len;
        ng_nsys_summary_trim(&c->s[c->count], &c->n[c->count]);
        size_t before = c->n[c->count];
        ng_nsys_summary_unquote(&c->s[c->count], &c->n[c->count]);
        *quoted |= c->n[c->count] != before;
        c->count++;
        if (!d)
            return;
        s = d + 1;
    }
}

/* "Time (%),Total Time (ns),..." or the same with tabs.  A line starting
 * with "Time" that has neither is the column header of nsys before 2020.2. */
int ng_nsys_summary_text_try_delimited(struct ng_nsys_summary *ps, const char *line)
{
    struct ng_nsys_summary_cells c = { .count = 0 };

    if (!ng_nsys_summary_starts_with(line, "Time") && !ng_nsys_summary_starts_with(line, "\"Time"))
        return 0;
    char sep = strchr(line, '\t') ? '\t' : strchr(line, ',') ? ',' : 0;
    if (!sep)
        return 0;
    split_header(line, sep, &c, &ps->quotes_all);
    ng_nsys_summary_header_block(ps, sep == '\t' ? NG_SUMMARY_TSV : NG_SUMMARY_CSV, &c);
    return 1;
}

/* nsys's CSV is not RFC 4180: only a cell containing a comma is quoted, and
 * quotes inside are not doubled.  The name is the last column, so the first
 * ncols-1 cells split on the delimiter and the rest of the line is the
 * name; its surrounding quotes are nsys's only when it holds a comma (a
 * kernel may be named "x", quotes included).  TSV never quotes: nsys turns
 * tabs in values into spaces. */
int ng_nsys_summary_text_delimited_row(struct ng_nsys_summary *ps, const char *line)
{
    struct ng_nsys_summary_cells c = { .count = 0 };
    const char *s = line;
    char sep = ps->layout == NG_SUMMARY_TSV ? '\t' : ',';
    int n = ps->hdr.ncols;

    for (int i = 0; i < n - 1; i++) {
        const char *d = strchr(s, sep);
        if (!d)
            return ng_nsys_summary_cell_count_error(ps, i + 1);
        c.s[i] = s;
        c.n[i] = (size_t)(d - s);
        ng_nsys_summary_trim(&c.s[i], &c.n[i]);
        if (sep == ',')
            ng_nsys_summary_unquote(&c.s[i], &c.n[i]);
        s = d + 1;
    }
    c.s[n - 1] = s;
    c.n[n - 1] = strlen(s);
    if (sep == ',' && c.n[n - 1] >= 2 &&
        (ps->quotes_all || memchr(s + 1, ',', c.n[n - 1] - 2)))
        ng_nsys_summary_unquote(&c.s[n - 1], &c.n[n - 1]);
    c.count = n;
    return ng_nsys_summary_add_row(ps, &c, (struct ng_nsys_summary_numfmt){ '.', 0 });
}

/* ---- column: a header, then a line of dash runs that gives the spans ---- */

int ng_nsys_summary_text_is_dash_line(const char *s)
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

void ng_nsys_summary_text_column_header(struct ng_nsys_summary *ps, const char *dashes)
{
    struct ng_nsys_summary_cells c = { .count = 0 };
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
        if (c.count == NG_SUMMARY_MAX_COLS) {
            c.count++;
            break;
        }
        ps->span[c.count] = a;
        c.s[c.count] = a < hlen ? hdr + a : hdr + hlen;
        c.n[c.count] = a < hlen ? (i < hlen ? i - a : hlen - a) : 0;
        ng_nsys_summary_trim(&c.s[c.count], &c.n[c.count]);
        c.count++;
    }
    ps->nspan = c.count;
    ng_nsys_summary_header_block(ps, NG_SUMMARY_COLUMN, &c);
}

/* Cells by span; numbers are right-justified, names left-justified (a name
 * keeps its own leading blanks) and run to the end of the line. */
static void span_cells(const struct ng_nsys_summary *ps, const char *line, size_t len,
                       struct ng_nsys_summary_cells *c)
{
    int n = ps->hdr.ncols;

    for (int i = 0; i < n; i++) {
        size_t a = ps->span[i];
        size_t b = i + 1 < n ? ps->span[i + 1] - (ps->layout == NG_SUMMARY_TABLE ? 2 : 0) : len;
        if (a > len)
            a = len;
        if (b > len)
            b = len;
        if (b < a)
            b = a;
        c->s[i] = line + a;
        c->n[i] = b - a;
        if (i + 1 < n)
            ng_nsys_summary_trim(&c->s[i], &c->n[i]);
        else
            ng_nsys_summary_rtrim(c->s[i], &c->n[i]);
    }
    c->count = n;
}

int ng_nsys_summary_text_column_row(struct ng_nsys_summary *ps, const char *line)
{
    struct ng_nsys_summary_cells c = { .count = 0 };
    span_cells(ps, line, strlen(line), &c);
    return ng_nsys_summary_add_row(ps, &c, ng_nsys_summary_column_numfmt(&c));
}

/* ---- table: the column layout in boxes ----
 *   +----------+-----------------+-----+------+
 *   | Time (%) | Total Time (ns) | ... | Name |
 *   +----------+-----------------+-----+------+
 *   |    100.0 |         1831281 | ... | k    |
 *   +----------+-----------------+-----+------+     */

int ng_nsys_summary_text_is_border(const char *s)
{
    if (*s != '+')
        return 0;
    for (; *s; s++)
        if (*s != '+' && *s != '-')
            return 0;
    return 1;
}

/* Each cell starts after a '+' of the border, past the space that pads it. */
void ng_nsys_summary_text_table_spans(struct ng_nsys_summary *ps, const char *border)
{
    ps->nspan = 0;
    for (size_t i = 0; border[i + 1]; i++)
        if (border[i] == '+' && ps->nspan < NG_SUMMARY_MAX_COLS + 1)
            ps->span[ps->nspan++] = i + 2;
}

/* The last cell runs to the end of the line (a name of several-byte
 * characters moves the closing '|'): drop that '|' and the pad. */
static void table_cells(struct ng_nsys_summary *ps, const char *line,
                        struct ng_nsys_summary_cells *c)
{
    size_t len = strlen(line);
    ng_nsys_summary_rtrim(line, &len);
    if (len && line[len - 1] == '|')
        len--;
    span_cells(ps, line, len, c);
}

static int table_header(struct ng_nsys_summary *ps, const char *line)
{
    struct ng_nsys_summary_cells c = { .count = 0 };

    if (ps->nspan > NG_SUMMARY_MAX_COLS) {   /* more columns than any summary: not one */
        ps->hdr.kind = NG_SUMMARY_OTHER;
        return 0;
    }
    ps->hdr.ncols = ps->nspan;
    table_cells(ps, line, &c);
    for (int i = 0; i < c.count; i++)
        ng_nsys_summary_trim(&c.s[i], &c.n[i]);
    ps->hdr.kind = ng_nsys_summary_match_header(&c, ps->title_exp10, &ps->hdr);
    return 0;
}

int ng_nsys_summary_text_table_line(struct ng_nsys_summary *ps, const char *line)
{
    struct ng_nsys_summary_cells c = { .count = 0 };

    if (ps->state == NG_SUMMARY_TABLE_TOP) {
        if (*line != '|' || ps->nspan < 2) {   /* not a table after all */
            ps->state = NG_SUMMARY_OUTSIDE;
            return NG_SUMMARY_TEXT_AGAIN;
        }
        ps->state = NG_SUMMARY_TABLE_HEAD;
        return table_header(ps, line);
    }
    if (ps->state == NG_SUMMARY_TABLE_HEAD) {
        if (!ng_nsys_summary_text_is_border(line)) {
            ps->state = NG_SUMMARY_OUTSIDE;
            return NG_SUMMARY_TEXT_AGAIN;
        }
        ng_nsys_summary_begin_block(ps, NG_SUMMARY_TABLE, NG_SUMMARY_ROWS, ps->hdr.kind);
        return 0;
    }
    /* the closing border ends the table */
    if (ng_nsys_summary_text_is_border(line) || *line == '\0') {
        ps->state = NG_SUMMARY_OUTSIDE;
        return 0;
    }
    if (ps->hdr.kind == NG_SUMMARY_OTHER)
        return 0;
    if (*line != '|')
        return ng_err_set(ps->err, "'%s' line %ld: a row of nsys's table layout must start "
                          "with '|'", ps->path, ps->lineno);
    table_cells(ps, line, &c);
    return ng_nsys_summary_add_row(ps, &c, ng_nsys_summary_column_numfmt(&c));
}
