/* ng_outputs: every report the gate can write, in one table.  A row names
 * the reporter that renders it, the option and environment variable that
 * ask for it, and the rules of its destination.  Everything else is
 * derived from the table: the output options of the command line and
 * their --help lines and NSYS_GATE_* variables (ng_cli.c), which paths may
 * be "-", the refusal of a path that is an input profile, and the requests
 * main hands to ng_report.  A new report is one reporter file, one row
 * here and one line in the reporter registry (ng_report.c).
 *
 * Ownership: the table is static and constant.  The paths a settings
 * struct holds for its rows (s->outputs[i] for ng_outputs[i]) are
 * borrowed from argv and the environment, as every ng_cli string is; the
 * requests built from them borrow them too. */
#ifndef NG_OUTPUTS_H
#define NG_OUTPUTS_H

#include <stddef.h>

#include "cli/ng_settings.h"
#include "util/ng_err.h"
struct ng_report_request;

enum ng_output_dest {
    NG_OUTPUT_TEXT = 0,   /* the text stream: stdout, or stderr when an output took stdout */
    NG_OUTPUT_FILE,       /* a file, replaced atomically */
    NG_OUTPUT_APPEND,     /* a file appended to, created if missing */
};

/* Rules, or-ed. */
enum {
    NG_OUTPUT_STDOUT_OK = 1 << 0,   /* "-" writes it to stdout; the text stream moves to stderr */
    NG_OUTPUT_GITHUB = 1 << 1,      /* only with the GitHub reporter on (--github) */
    NG_OUTPUT_QUIETED = 1 << 2,     /* left out with --quiet */
    NG_OUTPUT_READ_FIRST = 1 << 3,  /* may be the --baseline-history file: it is read
                                       before anything is appended */
};

struct ng_output {
    const char *reporter;       /* a name in the reporter registry */
    const char *option;         /* "--json"; NULL: no option asks for it */
    const char *env;            /* with an option, its NSYS_GATE_* variable; without one,
                                   the CI runner's variable that names the file */
    enum ng_output_dest dest;
    unsigned rules;
    const char *meta;           /* the option's value in --help, e.g. "PATH" */
    const char *help;
};

extern const struct ng_output ng_outputs[];
extern const size_t ng_n_outputs;

/* The row of an option ("--json") or a runner variable
 * ("GITHUB_STEP_SUMMARY"), or -1. */
int ng_outputs_find(const char *name);


/* Checks a path given for row o; on success *path is set to value.
 * Returns -1 with *problem, e.g. "cannot be standard output (only --json
 * can)". */
int ng_outputs_set(const struct ng_output *o, const char *value, const char **path,
                   const char **problem);

/* Refuses each file s would write or append to (the options' and the CI
 * runner's: $GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT) that would destroy
 * something, and drops it from s, so it is not written even with an
 * error verdict:
 * - the same file as one of the n inputs (NULLs allowed): "--json
 *   './base.sqlite' is the input profile 'base.sqlite'; refusing to
 *   overwrite it";
 * - the same file as an earlier output in table order: "--json 'same'
 *   and --junit 'same' are one file; --junit is not written (give each
 *   report its own file)".
 * "-", stream names (/dev/stdout) and existing FIFOs and devices are
 * written in place and never refused.  ng_cli_parse() applies it to the
 * command line's profiles and manifest; batch mode applies it to every
 * gate's profiles.  Returns -1 with err naming the first refusal. */
int ng_outputs_refuse(struct ng_settings *s, const char *const *inputs, size_t n,
                      struct ng_err *err);

/* The same for the --baseline-history files (NULLs allowed): every
 * output but those whose row may be one (NG_OUTPUT_READ_FIRST: --history
 * appends the run to the file its baseline came from) is refused and
 * dropped: "--json 'h.jsonl' is the --baseline-history file 'h.jsonl';
 * refusing to overwrite it".  Returns -1 with err naming the first. */
int ng_outputs_refuse_histories(struct ng_settings *s, const char *const *histories, size_t n,
                                struct ng_err *err);

/* The requests for every output s asks for, in table order, into q (room
 * for NG_OUTPUTS_MAX); returns how many. */
size_t ng_outputs_requests(const struct ng_settings *s, struct ng_report_request *q);

#endif
