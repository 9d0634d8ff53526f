/* ng_nsys_summary_text: the layouts of saved `nsys stats` text with one row a
 * line (csv, tsv, column, table), each line into cells for
 * ng_nsys_summary.h.  The line machine (ng_source_nsys_stats.c) tells
 * where a block begins and hands each line of it here.
 *
 * Ownership: as in ng_nsys_summary.h; lines are borrowed for the call. */
#ifndef NG_NSYS_SUMMARY_TEXT_H
#define NG_NSYS_SUMMARY_TEXT_H

#include "sources/nsys_stats/ng_nsys_summary.h"

/* What ng_nsys_summary_text_table_line() returns for a line that shows
 * there was no table after all: the machine reads it again, outside any
 * block. */
#define NG_SUMMARY_TEXT_AGAIN 1

/* csv and tsv: 1 when the line is a delimited header ("Time (%),Total
 * Time (ns),..."), whose block it begins; 0 when it is none. */
int ng_nsys_summary_text_try_delimited(struct ng_nsys_summary *ps, const char *line);
int ng_nsys_summary_text_delimited_row(struct ng_nsys_summary *ps, const char *line);

/* column: a line of dash runs under the header (ps->pending) gives the
 * spans of the cells below. */
int ng_nsys_summary_text_is_dash_line(const char *s);
void ng_nsys_summary_text_column_header(struct ng_nsys_summary *ps, const char *dashes);
int ng_nsys_summary_text_column_row(struct ng_nsys_summary *ps, const char *line);

/* table: a border line ("+---+---+") gives the spans; the lines after it
 * are the header, a border, rows and a closing border. */
int ng_nsys_summary_text_is_border(const char *s);
void ng_nsys_summary_text_table_spans(struct ng_nsys_summary *ps, const char *border);
/* 0, -1 with ps->err set, or NG_SUMMARY_TEXT_AGAIN. */
int ng_nsys_summary_text_table_line(struct ng_nsys_summary *ps, const char *line);

#endif
