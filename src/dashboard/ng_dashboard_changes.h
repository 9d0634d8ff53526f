/* ng_dashboard_changes: the change points of a dashboard's gates, found
 * by the one rule of history/ng_series.h, judged against the
 * acknowledgements of --accept, and drawn: the tables of the pages and the
 * markers of each gate's trend.  Internal to dashboard/.
 *
 * Ownership: the change points are the site's (s->changes); the tables are
 * appended to the caller's buffer; markers and their labels are the
 * caller's to free. */
#ifndef NG_DASHBOARD_CHANGES_H
#define NG_DASHBOARD_CHANGES_H

#include <stddef.h>

#include "dashboard/ng_dashboard_site.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

/* The change points of every gate, once the runs are ordered, judged
 * against the acknowledgements of --accept.  -1 with err when an
 * acknowledgement file cannot be read or names a commit ambiguously. */
int ng_dash_changes(struct site *s, struct ng_err *err);
/* The changes as tables (index: every gate's, newest first, the
 * acknowledged ones in a table of their own; g: that gate's), and a
 * gate's as its trend's markers (*labels: their text, the caller's). */
void ng_dash_changes_tables(struct ng_buf *out, const struct site *s, const struct gate *g);
struct ng_svg_marker;
size_t ng_dash_change_markers(const struct site *s, const struct gate *g,
                              struct ng_svg_marker **markers, char **labels);

#endif
