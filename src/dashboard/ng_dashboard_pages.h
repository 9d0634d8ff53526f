/* ng_dashboard_pages: a dashboard's pages rendered from its site in
 * memory: index.html (every gate's latest verdict, its sparkline, the
 * change points, a trend per gate) and one page per gate.  Internal to
 * dashboard/ (ng_dashboard_thin(), which the pages use to choose the
 * points a chart draws, is in ng_dashboard.h for the tests).
 *
 * Ownership: pages are appended to the caller's buffer; the site is
 * borrowed. */
#ifndef NG_DASHBOARD_PAGES_H
#define NG_DASHBOARD_PAGES_H

#include "dashboard/ng_dashboard_site.h"
#include "util/ng_util.h"

void ng_dash_index_page(struct ng_buf *out, const struct site *s);
void ng_dash_gate_page(struct ng_buf *out, const struct site *s, const struct gate *g);

#endif
