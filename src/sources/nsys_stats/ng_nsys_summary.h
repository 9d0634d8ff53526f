/* ng_nsys_summary: what every layout of saved `nsys stats` text shares
 * once its lines are cells (ng_nsys_summary_text.h,
 * ng_nsys_summary_markup.h): the parser's state, which summary a header
 * is and in which unit, the numbers as nsys wrote them, and each row into
 * the profile (or into what --work left out).  Small text helpers for the
 * layouts too.
 *
 * Ownership: the parser borrows the profile, the path and err from
 * ng_nsys_stats_parse_stream(), which frees what it owns; cells point
 * into a line or a store and live as long as they do. */
#ifndef NG_NSYS_SUMMARY_H
#define NG_NSYS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_profile.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

#define NG_SUMMARY_MAX_COLS 24
#define NG_SUMMARY_ELLIPSIS "\xE2\x80\xA6"   /* U+2026: how the column layouts end a cut name */

/* The summaries the gate counts; any other report's block is OTHER. */
enum ng_nsys_summary_block {
    NG_SUMMARY_OTHER = 0, NG_SUMMARY_KERNEL, NG_SUMMARY_MEMORY, NG_SUMMARY_BLOCKS,
};

/* How nsys laid the report out (--format). */
enum ng_nsys_summary_layout {
    NG_SUMMARY_CSV, NG_SUMMARY_TSV, NG_SUMMARY_COLUMN, NG_SUMMARY_TABLE, NG_SUMMARY_JSON,
    NG_SUMMARY_HTML,
};

enum ng_nsys_summary_state {
    NG_SUMMARY_OUTSIDE,
    NG_SUMMARY_ROWS,          /* csv, tsv, column, table: one row a line */
    NG_SUMMARY_TABLE_TOP,     /* table: the border above the header was seen */
    NG_SUMMARY_TABLE_HEAD,    /* table: the header was seen, its lower border comes next */
    NG_SUMMARY_JSON_ARRAY,    /* json: between objects */
    NG_SUMMARY_JSON_OBJECT,   /* json: inside one object, one field a line */
    NG_SUMMARY_HTML_TABLE,    /* hdoc, htable: inside <table>, one cell a line */
};

/* One header or row, whatever the layout: pointers into a line or a store. */
struct ng_nsys_summary_cells {
    const char *s[NG_SUMMARY_MAX_COLS];
    size_t n[NG_SUMMARY_MAX_COLS];
    int count;          /* NG_SUMMARY_MAX_COLS + 1: more than any summary has */
    const long *line;   /* where each cell was, when not all on the current line */
};

/* Cells copied out of their lines, for layouts whose rows span lines. */
struct ng_nsys_summary_store {
    struct ng_buf text;
    size_t off[NG_SUMMARY_MAX_COLS], len[NG_SUMMARY_MAX_COLS];
    long line[NG_SUMMARY_MAX_COLS];   /* where each cell was, for messages */
    int count;
};

/* What the header of the block being read says. */
struct ng_nsys_summary_header {
    enum ng_nsys_summary_block kind;
    int ncols;
    int exp10;             /* unit of Total Time */
    char unit[8];          /* as the header names it ("sec"); "ns" when it names none */
};

/* How numbers are written: the column layouts reformat them for reading,
 * with thousands separators and the locale's decimal mark. */
struct ng_nsys_summary_numfmt {
    char dec, sep;         /* sep 0: none */
};

struct ng_nsys_summary {
    const char *path;
    struct ng_profile *p;
    struct ng_err *err;
    unsigned work;
    int base_names;          /* --kernel-names base: derive each kernel's base name */
    long lineno;
    enum ng_nsys_summary_state state;
    enum ng_nsys_summary_layout layout;
    struct ng_nsys_summary_header hdr;
    size_t span[NG_SUMMARY_MAX_COLS + 1];   /* column, table: where each column starts */
    int nspan;
    struct ng_nsys_summary_store keys;  /* json: the first object's keys; html: the header */
    struct ng_nsys_summary_store vals;  /* json: the object being read; html: the row */
    int header_done;             /* json, html: the block's header is known */
    char report[64];             /* from the last framing line */
    int title_exp10;             /* unit of the last title line, -1 when none */
    int blocks[NG_SUMMARY_BLOCKS]; /* summaries seen, by kind */
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

/* Text: blanks (spaces, tabs) off both ends or the right one; a cell's
 * surrounding quotes off; whole-field and prefix / suffix comparisons. */
void ng_nsys_summary_trim(const char **s, size_t *n);
void ng_nsys_summary_rtrim(const char *s, size_t *n);
void ng_nsys_summary_unquote(const char **s, size_t *n);
int ng_nsys_summary_starts_with(const char *s, const char *prefix);
int ng_nsys_summary_field_is(const char *f, size_t n, const char *want);
int ng_nsys_summary_ends_with(const char *s, size_t n, const char *suffix);
/* The line without its indentation and trailing blanks, for the markup
 * layouts, whose structure lines are indented. */
int ng_nsys_summary_line_is(const char *line, const char *want);

/* A store of cells: emptied, one cell added (past NG_SUMMARY_MAX_COLS only
 * counted), its cells as cells. */
void ng_nsys_summary_store_clear(struct ng_nsys_summary_store *st);
void ng_nsys_summary_store_add(struct ng_nsys_summary_store *st, const char *s, size_t n,
                               long line);
void ng_nsys_summary_store_cells(const struct ng_nsys_summary_store *st,
                                 struct ng_nsys_summary_cells *c);

/* The header of a summary the gate counts fills h and returns its kind;
 * any other report's header returns NG_SUMMARY_OTHER.  title_exp10: the
 * unit a title line above gave (-1: none). */
enum ng_nsys_summary_block ng_nsys_summary_match_header(const struct ng_nsys_summary_cells *c,
                                                        int title_exp10,
                                                        struct ng_nsys_summary_header *h);

/* A block of rows begins (its kind counted), in that layout and state. */
void ng_nsys_summary_begin_block(struct ng_nsys_summary *ps, enum ng_nsys_summary_layout layout,
                                 enum ng_nsys_summary_state state, enum ng_nsys_summary_block kind);
/* The header cells of a one-line header, then the block they begin. */
void ng_nsys_summary_header_block(struct ng_nsys_summary *ps, enum ng_nsys_summary_layout layout,
                                  const struct ng_nsys_summary_cells *c);

/* How the column layouts wrote this row's numbers. */
struct ng_nsys_summary_numfmt ng_nsys_summary_column_numfmt(const struct ng_nsys_summary_cells *c);

/* A row of the block into the profile: -1 with ps->err set. */
int ng_nsys_summary_add_row(struct ng_nsys_summary *ps, const struct ng_nsys_summary_cells *c,
                            struct ng_nsys_summary_numfmt nf);

/* "N columns expected, found got": returns -1. */
int ng_nsys_summary_cell_count_error(struct ng_nsys_summary *ps, int got);

#endif
