/* ng_settings: one gate's settings, as the command line, the environment
 * and a manifest set them (ng_cli.c, ng_manifest.c) and everything above
 * reads them.  Data only: no functions, so whatever needs the struct
 * (the outputs table, the batch) includes this and not the parser.
 *
 * Ownership: as ng_cli.h says: the strings point into argv and the
 * environment; owned[] holds the copies ng_cli_release() frees. */
#ifndef NG_SETTINGS_H
#define NG_SETTINGS_H

#include <stddef.h>
#include <time.h>

#include "core/ng_compare.h"
#include "core/ng_profile.h"
#include "sources/nsysrep/ng_cache.h"

/* Rows of the outputs table (ng_outputs.c) beyond this do not fit a
 * settings struct: the build checks it. */
#define NG_OUTPUTS_MAX 16

struct ng_history_baseline;

struct ng_settings {
    struct ng_compare_opts compare;   /* name, threshold, epochs, statistics */
    const char *nsys;                 /* NULL: "nsys" on PATH */
    double nsys_timeout;              /* seconds */
    int quiet;
    const char *epoch_range;          /* NULL: total mode; "auto" or a regex */
    int epochs_given;                 /* --epochs or a side's count was set (NVTX mode
                                         says they are not used: the ranges are the
                                         epochs; a manifest's total-mode gates may
                                         share them with its NVTX ones) */
    int fail_inconclusive;
    int verbose;
    /* the profiles of each side: the two operands, or --baseline/--current
     * (repeatable, for repeat runs) */
    const char *baselines[NG_MAX_RUNS];
    size_t n_baselines;
    const char *currents[NG_MAX_RUNS];
    size_t n_currents;
    int ranks;                        /* --ranks: each side's profiles (globs expanded) are
                                         the ranks of one run, folded into one profile */
    const char **operands;            /* summarize: every PROFILE operand, past
                                         NG_MAX_RUNS too (--ranks; freed by ng_cli_release) */
    size_t n_operands;
    /* --label KEY=VALUE, in order (a later one wins): the run context's
     * labels (ng_context) */
    const char *labels[NG_MAX_RUNS];
    size_t n_labels;
    /* a history baseline: the baseline is the last history_window runs of
     * this gate in a --history file (ng_history_baseline), instead of profiles */
    const char *baseline_history;
    long history_window;
    const char *history_match[NG_MAX_RUNS];   /* KEY=VALUE the runs' context must hold */
    size_t n_history_match;
    int has_history_since;
    time_t history_since;             /* runs from then on (--history-since) */
    const char *accept[NG_MAX_RUNS];  /* --accept: acknowledged changes (ng_accept) */
    size_t n_accept;
    const struct ng_history_baseline *window;   /* the runs, read by the batch before its gates
                                         start; NULL: the gate reads the file itself */
    /* the .nsys-rep export cache: cache.dir is --cache-dir, else the
     * default under $XDG_CACHE_HOME or $HOME; NULL with --no-cache */
    struct ng_cache cache;
    int no_cache;
    int sql_only;          /* SQLite files through SQL only, not ng_btree */
    char *owned[4 * NG_MAX_RUNS + 1]; /* pieces of list variables, the default cache dir */
    size_t n_owned;
    int print_profile;                /* --print-profile: show what is read, no gate */
    const char *write_summary;        /* --write-summary (summarize: -o): the current run's
                                         summary goes there; "-" stdout; NULL none */
    int range_groups;                 /* summarize --range-groups: keep what `ranges` lists */
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

#endif
