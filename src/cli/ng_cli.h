/* ng_cli: the command line and NSYS_GATE_* environment into one settings
 * struct.  Precedence: flag, then environment, then default; an empty
 * variable counts as unset; a variable whose option was given as a flag is
 * not read at all.
 *
 * Ownership: the settings point into argv and the environment, so both
 * must outlive them; only the pieces of a list variable (':'-separated
 * paths, comma-separated labels) are copies, freed by ng_cli_release().  This layer never exits or prints:
 * a bad value is returned as an error naming the flag or variable and the
 * value, and main prints it. */
#ifndef NG_CLI_H
#define NG_CLI_H

#include <stdio.h>
#include <time.h>

#include "sources/nsysrep/ng_cache.h"
#include "core/ng_compare.h"
#include "util/ng_err.h"
#include "cli/ng_outputs.h"

#define NG_MAX_RUNS 64

struct ng_window;

struct ng_settings {
    struct ng_compare_opts compare;   /* name, threshold, epochs, statistics */
    const char *nsys;                 /* NULL: "nsys" on PATH */
    double nsys_timeout;              /* seconds */
    int quiet;
    const char *epoch_range;          /* NULL: total mode; "auto" or a regex */
    int fail_inconclusive;
    int verbose;
    /* the profiles of each side: the two operands, or --baseline/--current
     * (repeatable, for repeat runs) */
    const char *baselines[NG_MAX_RUNS];
    size_t n_baselines;
    const char *currents[NG_MAX_RUNS];
    size_t n_currents;
    /* --label KEY=VALUE, in order (a later one wins): the run context's
     * labels (ng_context) */
    const char *labels[NG_MAX_RUNS];
    size_t n_labels;
    /* a history baseline: the baseline is the last history_window runs of
     * this gate in a --history file (ng_window), instead of profiles */
    const char *baseline_history;
    long history_window;
    const char *history_match[NG_MAX_RUNS];   /* KEY=VALUE the runs' context must hold */
    size_t n_history_match;
    int has_history_since;
    time_t history_since;             /* runs from then on (--history-since) */
    const struct ng_window *window;   /* the runs, read by the batch before its gates
                                         start; NULL: the gate reads the file itself */
    /* the .nsys-rep export cache: cache.dir is --cache-dir, else the
     * default under $XDG_CACHE_HOME or $HOME; NULL with --no-cache */
    struct ng_cache cache;
    int no_cache;
    int sql_only;          /* SQLite files through SQL only, not ng_btree */
    char *owned[4 * NG_MAX_RUNS + 1]; /* pieces of list variables, the default cache dir */
    size_t n_owned;
    int print_profile;                /* --print-profile: show what is read, no gate */
    int show_help;
    int show_version;
    /* the reports: outputs[i] is the path of ng_outputs[i] (NULL: not
     * asked for; "-": stdout, where the row allows it) */
    const char *outputs[NG_OUTPUTS_MAX];
    int github;                       /* --github, NSYS_GATE_GITHUB, else GITHUB_ACTIONS=true */
    /* batch mode */
    const char *manifest;             /* --manifest FILE: run every gate in it */
    long jobs;                        /* -j: gates at once; 0 = one per processor */
};

/* Where an option applies, for the manifest reader: a gate option can be
 * set per gate; a run option (outputs, modes) only on the command line. */
enum ng_cli_scope {
    NG_CLI_UNKNOWN = -1,
    NG_CLI_GATE = 0,
    NG_CLI_GATE_PATH,     /* a gate option naming a file: relative to the manifest */
    NG_CLI_RUN,
};

/* Fills s from argv and the environment.  On error s still holds every
 * value that parsed (so main can write the requested reports) and -1 is
 * returned with err set. */
int ng_cli_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err);

void ng_cli_release(struct ng_settings *s);

/* The scope of the option spelled `flag` (without "--"), and what it
 * takes (*values, may be NULL): 0 a switch, 1 one value, 2 repeatable. */
enum ng_cli_scope ng_cli_option_scope(const char *flag, int *values);

/* Forgets every value of the repeatable option `flag` (a manifest gate's
 * list replaces the command line's); no-op for other options. */
void ng_cli_clear_list(struct ng_settings *s, const char *flag);

/* Sets one gate option on s as `--flag=value` would (a repeatable one
 * appends); the value is borrowed.  Returns -1 with *problem, e.g. "is
 * not a positive integer". */
int ng_cli_set_option(struct ng_settings *s, const char *flag, const char *value,
                      const char **problem);

/* The checks between options, once all are set (ng_cli_parse() runs
 * them; the manifest reader runs them on each gate). */
int ng_cli_check_gate(struct ng_settings *s, struct ng_err *err);

void ng_cli_help(FILE *out);

/* Threshold syntax shared with every other place that takes one:
 * "1.2", "1.20x", "20%".  Returns -1 with a message that starts with the
 * problem, e.g. "is not a number". */
int ng_cli_parse_threshold(const char *text, double *out, const char **problem);

#endif
