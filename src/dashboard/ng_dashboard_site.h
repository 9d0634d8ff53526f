/* ng_dashboard_site: the site in memory, what the dashboard's files share:
 * the runs kept of each gate, its change points, the gates, and the limits
 * of the pages.  Internal to dashboard/.  ng_dashboard_read.c fills it,
 * ng_dashboard_changes.c adds the change points, ng_dashboard_pages.c
 * renders it and ng_dashboard_write.c writes it to disk; the options and
 * their help (ng_dashboard_options.c) take its defaults.
 *
 * Ownership: a site owns its gates, their runs and the arena their
 * commits and URLs live in; ng_dash_site_release() (ng_dashboard_read.h)
 * frees them.  It borrows the options and the result it reports into. */
#ifndef NG_DASHBOARD_SITE_H
#define NG_DASHBOARD_SITE_H

#include <stddef.h>
#include <time.h>

#include "dashboard/ng_dashboard.h"
#include "history/ng_accept.h"
#include "history/ng_series.h"
#include "history/ng_verdict_doc.h"
#include "util/ng_threads.h"
#include "util/ng_util.h"

#define DEFAULT_DIR "dashboard"
#define DEFAULT_TITLE "nsys-gate dashboard"
#define DEFAULT_DETAILS 20
#define MARKER ".nsys-gate-dashboard"
/* index.html shares about this many points among the gates' charts
 * (between INDEX_MIN and PAGE_POINTS a gate): a point with its link and
 * tooltip is about 250 bytes, so 200 gates of a thousand runs each stay
 * well under 8 MB; a gate's own page draws up to PAGE_POINTS. */
#define INDEX_POINTS 16000
#define INDEX_MIN 40
#define PAGE_POINTS 1000
#define SPARK_RUNS 30
#define TABLE_RUNS 100

struct run {
    time_t ts;
    size_t file, line;         /* line: in its part of the file (for messages: runs
                                  are ordered by offset) */
    unsigned char part;        /* that part, whose first line is line_base[file][part] */
    size_t seq;                /* its number in the gate's series, from 1 */
    enum ng_outcome outcome;
    int has_figures, has_p;
    double ratio, p, threshold, base_ms, cur_ms, lo, hi;
    const char *commit, *run_url;   /* in the site's arena; NULL when unknown */
    /* where its line starts in its file; while it is one of the latest
     * --details runs, its line is read whole from there once every file
     * is read, or for a history that cannot be read again (a pipe) from a
     * copy in text */
    unsigned long long at;
    char *text;
    size_t text_len;
    struct ng_verdict_doc *doc;   /* the whole verdict, for the latest --details runs */
};

struct gate {
    char *name;
    char slug[64];
    struct run *runs;
    size_t n;
    size_t *held;              /* the runs holding their line (at most details; grown) */
    size_t n_held;
    size_t change0, n_changes; /* its change points: s->changes[change0 ..], oldest first */
};

/* A change point of a gate's series (its runs with figures, in order). */
struct change {
    size_t gate;               /* in s->gates */
    size_t good, bad;          /* the last good and first bad run, in the gate's runs */
    struct ng_series_change sc;   /* its ack points into s->acks */
};

#define PARTS 16   /* parts a history is read as at once, at most */

struct site {
    const struct ng_dashboard_opts *o;
    struct ng_strmap names;
    struct ng_arena strings;   /* the runs' commits and URLs */
    struct gate *gates;
    size_t n_gates;
    size_t file;               /* the history being read */
    int fds[NG_DASHBOARD_MAX_HISTORIES];   /* each history open, until its latest runs are
                                              read (-1: closed) */
    /* the lines before each part of each history (known once the parts
     * before it are read: a part numbers its lines from 0) */
    size_t line_base[NG_DASHBOARD_MAX_HISTORIES][PARTS];
    size_t runs;
    time_t now;                /* when the site is written, on every page */
    struct ng_accept acks;     /* --accept */
    struct change *changes;    /* every gate's, gate by gate */
    size_t n_changes;
    struct ng_dashboard_result *r;
};

#endif
