/* ng_dashboard: `nsys-gate dashboard [-o DIR] HISTORY.jsonl...`, a static
 * site made from --history files: no server, no network, readable from
 * file:// and from GitHub or GitLab Pages.
 *
 *   DIR/index.html      the overview table (the latest verdict of every
 *                       gate, failing first, with a sparkline), the
 *                       change points of every gate (newest first; the
 *                       acknowledged ones apart) and one trend chart per
 *                       gate, each change marked on it
 *   DIR/g/<gate>.html   one page per gate: its trend over every run, its
 *                       changes, a table of its latest runs, and a section per run
 *                       (anchors #run-N, N the run's number in the gate's
 *                       series) for the latest --details runs
 *
 * Histories are read through ng_history (torn lines are skipped with a
 * warning naming them), streamed: a run is kept as a few figures and its
 * context, and only the latest --details runs of each gate keep their
 * whole verdict.  Runs of a gate (its --name, from every file) are
 * ordered by their timestamp, then by file and line.
 *
 * The site is built in a temporary directory beside DIR and swapped in
 * with one rename (renameat2 RENAME_EXCHANGE where the filesystem has it,
 * else two renames), so a failed run leaves the previous site as it was
 * and never half a site.  DIR is replaced whole: it must be absent, empty,
 * or a site this command wrote (it holds .nsys-gate-dashboard), and no
 * history may lie inside it.
 *
 * Like ng_cli, this layer never prints: main prints the warnings and the
 * one ERROR line.
 *
 * Ownership: options borrow argv and the environment; a result owns its
 * warnings until ng_dashboard_result_release(). */
#ifndef NG_DASHBOARD_H
#define NG_DASHBOARD_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "core/ng_verdict.h"
#include "util/ng_err.h"

struct ng_options;

#define NG_DASHBOARD_MAX_HISTORIES 256

struct ng_dashboard_opts {
    const char *out_dir;       /* -o, --output; default "dashboard" */
    const char *title;         /* --title */
    const char *commit_url;    /* --commit-url: a URL with {commit}, for runs without a run URL */
    long details;              /* --details: runs a gate keeps whole (their sections) */
    const char *accept[NG_DASHBOARD_MAX_HISTORIES];   /* --accept */
    size_t n_accept;
    const char *accept_list;   /* NSYS_GATE_ACCEPT, comma-separated (without --accept) */
    int quiet;                 /* --quiet: no summary line */
    int show_help;
    const char *histories[NG_DASHBOARD_MAX_HISTORIES];
    size_t n_histories;
    long jobs;                 /* --jobs: the worker threads (ng_threads); 0, one per
                                  processor online */
};

struct ng_dashboard_result {
    char **warnings;           /* one line each, without "WARNING: " */
    size_t n_warnings;
    size_t gates, runs, files;
    size_t changes;            /* change points, every gate's */
    size_t index_bytes;        /* the size of index.html */
    size_t site_bytes;         /* every file of the site */
};

/* The subcommand's arguments (argv[0] is "dashboard"), through its table
 * and the one option parser (util/ng_options.h): flag, then environment
 * (NSYS_GATE_DASHBOARD_DIR, _TITLE, _DETAILS, NSYS_GATE_COMMIT_URL,
 * NSYS_GATE_ACCEPT), then default.  -1 with err on a usage error. */
int ng_dashboard_parse(struct ng_dashboard_opts *o, int argc, char **argv, struct ng_err *err);
void ng_dashboard_help(FILE *out);
/* The table: --help and the docs test read it. */
const struct ng_options *ng_dashboard_options(void);

/* Reads the histories and writes the site.  -1 with err when a history
 * cannot be read or the site cannot be written (the previous site, if
 * any, is then untouched); the warnings are in r either way. */
int ng_dashboard_build(const struct ng_dashboard_opts *o, struct ng_dashboard_result *r,
                       struct ng_err *err);
void ng_dashboard_result_release(struct ng_dashboard_result *r);

/* Which of a gate's n runs (oldest first) a chart draws when it has room
 * for about `budget` points: every run when n <= budget; else the latest
 * budget/2, of the older ones every k-th (from the oldest, so the choice
 * stays put as runs are added; k returned in *every), and up to budget/4
 * more older runs that did not pass (the most recent first).  Sets
 * keep[i] to 0 or 1; returns how many are kept (at most budget * 5 / 4). */
size_t ng_dashboard_thin(const enum ng_outcome *o, size_t n, size_t budget, unsigned char *keep,
                         size_t *every);

#endif
