/* ng_changes: `nsys-gate changes [OPTIONS] HISTORY.jsonl...`, the change
 * points of every gate's history (core/ng_changepoint.h says how they are
 * found).
 *
 * A series is one gate (--name) measured one way (mode, metric, work set):
 * its runs' current ms/epoch, in file order (files in the order given),
 * error verdicts and runs without figures left out, and with
 * --history-match KEY=VALUE only runs whose context holds every pair (as
 * --baseline-history matches them).  Histories are read through
 * ng_history (a torn line is skipped with a warning naming it).
 *
 * Each change names its last good and first bad run; a regression's
 * magnitude is above 1 (for these metrics smaller is better).  A gate's
 * latest segment "follows an unacknowledged regression" (a standing
 * regression, exit 1) when the last change of its series is a regression
 * that no acknowledgement in force covers (--accept, history/ng_accept.h);
 * an improvement after it (the fix) ends it.
 *
 * Like ng_cli, this layer never prints: main prints the warnings, the
 * one ERROR line, and the text the result holds.
 *
 * Ownership: options borrow argv and the environment (copies of the list
 * variables they own: ng_changes_opts_release()); a result owns its
 * text and warnings until ng_changes_result_release(). */
#ifndef NG_CHANGES_H
#define NG_CHANGES_H

#include <stddef.h>
#include <stdio.h>

#include "util/ng_err.h"

struct ng_options;

#define NG_CHANGES_MAX_FILES 256
#define NG_CHANGES_MAX_MATCH 32

struct ng_changes_opts {
    double p_max;              /* --change-p */
    double min_change;         /* --min-change, a fraction */
    long window;               /* --window */
    const char *json, *junit;  /* report paths, or NULL */
    const char *accept[NG_CHANGES_MAX_FILES];
    size_t n_accept;
    const char *match[NG_CHANGES_MAX_MATCH];   /* --history-match KEY=VALUE */
    size_t n_match;
    int show_help;
    char **kept;               /* the pieces of the list variables, owned */
    size_t n_kept;
    const char *histories[NG_CHANGES_MAX_FILES];
    size_t n_histories;
};

struct ng_changes_result {
    char *text;                /* the human report, one line a change */
    char **warnings;
    size_t n_warnings;
    size_t gates, changes, standing;   /* standing: unacknowledged regressions */
};

/* The subcommand's arguments (argv[0] is "changes"), through its table
 * and the one option parser (util/ng_options.h): flag, then environment
 * (NSYS_GATE_CHANGE_P, NSYS_GATE_MIN_CHANGE, NSYS_GATE_CHANGE_WINDOW,
 * NSYS_GATE_CHANGES_JSON, NSYS_GATE_CHANGES_JUNIT, NSYS_GATE_ACCEPT,
 * NSYS_GATE_HISTORY_MATCH; the last two comma- or newline-separated),
 * then default.  -1 with err on a usage error. */
int ng_changes_parse(struct ng_changes_opts *o, int argc, char **argv, struct ng_err *err);
void ng_changes_help(FILE *out);
/* The table: --help and the docs test read it. */
const struct ng_options *ng_changes_options(void);
void ng_changes_opts_release(struct ng_changes_opts *o);

/* Reads, detects, writes the reports.  -1 with err when a history or an
 * acknowledgement file cannot be read or a report cannot be written. */
int ng_changes_run(const struct ng_changes_opts *o, struct ng_changes_result *r,
                   struct ng_err *err);

/* 2 for an error, 1 when a regression stands, else 0. */
int ng_changes_exit_code(const struct ng_changes_result *r, int failed);

void ng_changes_result_release(struct ng_changes_result *r);

#endif
