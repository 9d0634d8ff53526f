/* ng_cli: the command line and NSYS_GATE_* environment into one settings
 * struct.  Precedence: flag, then environment, then default; an empty
 * variable counts as unset; a variable whose option was given as a flag is
 * not read at all.
 *
 * Ownership: the settings point into argv and the environment, so both
 * must outlive them; only the pieces of a ':'-separated list variable are
 * copies, freed by ng_cli_release().  This layer never exits or prints:
 * a bad value is returned as an error naming the flag or variable and the
 * value, and main prints it. */
#ifndef NG_CLI_H
#define NG_CLI_H

#include <stdio.h>

#include "ng_cache.h"
#include "ng_compare.h"
#include "ng_err.h"

#define NG_MAX_RUNS 64

struct ng_settings {
    struct ng_compare_opts compare;   /* name, threshold, epochs, statistics */
    const char *json_path;            /* NULL: no JSON; "-": stdout */
    const char *junit_path;
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
    /* the .nsys-rep export cache: cache.dir is --cache-dir, else the
     * default under $XDG_CACHE_HOME or $HOME; NULL with --no-cache */
    struct ng_cache cache;
    int no_cache;
    char *owned[2 * NG_MAX_RUNS + 1]; /* pieces of ':'-separated variables, the default cache dir */
    size_t n_owned;
    int print_profile;                /* --print-profile: show what is read, no gate */
    int show_help;
    int show_version;
};

/* Fills s from argv and the environment.  On error s still holds every
 * value that parsed (so main can write the requested reports) and -1 is
 * returned with err set. */
int ng_cli_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err);

void ng_cli_release(struct ng_settings *s);

void ng_cli_help(FILE *out);

/* Threshold syntax shared with every other place that takes one:
 * "1.2", "1.20x", "20%".  Returns -1 with a message that starts with the
 * problem, e.g. "is not a number". */
int ng_cli_parse_threshold(const char *text, double *out, const char **problem);

#endif
