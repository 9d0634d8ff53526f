/* ng_stats_markup: the markup layouts of saved `nsys stats` text, json
 * and html (hdoc, htable), one field or cell a line, decoded into cells
 * for ng_stats_rows.h.
 *
 * Ownership: as in ng_stats_rows.h; lines are borrowed for the call. */
#ifndef NG_STATS_MARKUP_H
#define NG_STATS_MARKUP_H

#include "sources/nsys_stats/ng_stats_rows.h"

/* A json array ("[") or an html table ("<table>") begins: state is
 * NG_STATS_JSON_ARRAY or NG_STATS_HTML_TABLE. */
void ng_stats_markup_begin(struct ng_stats_parser *ps, enum ng_stats_state state);

/* A line inside the array or the table: 0, or -1 with ps->err set. */
int ng_stats_json_line(struct ng_stats_parser *ps, const char *line);
int ng_stats_html_line(struct ng_stats_parser *ps, const char *line);

#endif
