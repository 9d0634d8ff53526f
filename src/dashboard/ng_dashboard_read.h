/* ng_dashboard_read: the histories of a dashboard read into its site in
 * memory (ng_dashboard_site.h): each gate's runs as a few figures and its
 * context, the latest --details of them whole, every history read in parts
 * at once.  Internal to dashboard/.
 *
 * Ownership: what it reads is the site's; ng_dash_site_release() frees a
 * site whatever was read into it. */
#ifndef NG_DASHBOARD_READ_H
#define NG_DASHBOARD_READ_H

#include "dashboard/ng_dashboard_site.h"
#include "util/ng_err.h"

/* Reads every history of s->o into s: the runs of each gate, the latest
 * --details of them whole.  -1 with err when a history cannot be read. */
int ng_dash_read(struct site *s, struct ng_err *err);
/* Orders each gate's runs (by time, file, line) and numbers them, and the
 * gates by name. */
void ng_dash_order(struct site *s);
void ng_dash_site_release(struct site *s);

#endif
