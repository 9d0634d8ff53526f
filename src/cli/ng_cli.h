/* ng_cli: the command line and NSYS_GATE_* environment into one settings
 * struct, through the gate's table of options and the one option parser
 * (util/ng_options.h); the values are ng_values'.  Precedence: flag, then
 * environment, then default; an empty variable counts as unset; a
 * variable whose option was given as a flag is not read at all.
 *
 * Ownership: the settings point into argv and the environment, so both
 * must outlive them; only the pieces of a list variable (':'-separated
 * paths, comma-separated labels) are copies, freed by ng_cli_release().  This layer never exits or prints:
 * a bad value is returned as an error naming the flag or variable and the
 * value, and main prints it. */
#ifndef NG_CLI_H
#define NG_CLI_H

#include <stdio.h>

#include "cli/ng_settings.h"
#include "util/ng_err.h"

struct ng_options;

/* Where an option applies, for the manifest reader: a gate option can be
 * set per gate; a run option (outputs, modes) only on the command line. */
enum ng_cli_scope {
    NG_CLI_UNKNOWN = -1,
    NG_CLI_GATE = 0,
    NG_CLI_GATE_PATH,     /* a gate option naming a file: relative to the manifest */
    NG_CLI_RUN,
};

/* Bits of a row's scope beside where it may be set (NG_CLI_WHERE): the
 * option changes what is read (a summary records it, and a gate on a
 * summary must ask the same), or only how it is read (nsys and its
 * cache).  `nsys-gate summarize` takes the rows with either, so its
 * table comes from the gate's and never drifts from it. */
#define NG_CLI_WHERE 0x0f
#define NG_CLI_READS 0x10
#define NG_CLI_ACCESS 0x20

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

/* The gate's options table (util/ng_options.h): --help, the manifest's
 * fields and the docs test read it. */
const struct ng_options *ng_cli_options(void);

/* `nsys-gate summarize` (argv[0] is "summarize"): its options into s
 * (the gate's reading options, -o into s->write_summary), the profile
 * into s->currents[0].  -1 with err on bad usage; s->show_help asks for
 * its --help (ng_options_help() of the table). */
int ng_cli_summarize_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err);

/* summarize's table: --help and the docs test read it. */
const struct ng_options *ng_cli_summarize_options(void);

#endif
