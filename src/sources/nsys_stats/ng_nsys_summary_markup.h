/* ng_nsys_summary_markup: the markup layouts of saved `nsys stats` text, json
 * and html (hdoc, htable), one field or cell a line, decoded into cells
 * for ng_nsys_summary.h.
 *
 * Ownership: as in ng_nsys_summary.h; lines are borrowed for the call. */
#ifndef NG_NSYS_SUMMARY_MARKUP_H
#define NG_NSYS_SUMMARY_MARKUP_H

#include "sources/nsys_stats/ng_nsys_summary.h"

/* A json array ("[") or an html table ("<table>") begins: state is
 * NG_SUMMARY_JSON_ARRAY or NG_SUMMARY_HTML_TABLE. */
void ng_nsys_summary_markup_begin(struct ng_nsys_summary *ps, enum ng_nsys_summary_state state);

/* A line inside the array or the table: 0, or -1 with ps->err set. */
int ng_nsys_summary_markup_json_line(struct ng_nsys_summary *ps, const char *line);
int ng_nsys_summary_markup_html_line(struct ng_nsys_summary *ps, const char *line);

#endif
