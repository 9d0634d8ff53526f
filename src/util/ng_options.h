/* ng_options: the one option parser of every command (the gate's and each
 * subcommand's), after git's parse-options.  A command describes its
 * options in one table of struct ng_option rows (flag, short flag,
 * environment variable, placeholder, help line, parse function, group);
 * from that table come the scan of argv (--flag VALUE, --flag=VALUE,
 * -x VALUE, -xVALUE; "--" ends the options), the environment fallback,
 * the "unknown option ...: did you mean ...?" message and the option
 * lines of --help.
 *
 * Precedence, for every option of every command: its flag (the last one
 * given, or every one of a repeatable option), else its environment
 * variable, else the default the command set before parsing.  An empty
 * variable counts as unset; a variable whose flag is given is not read at
 * all.  Every option is tried even after one failed (so whatever is
 * valid is set, e.g. the gate's report paths); the first problem is the
 * error.  A value is checked by its row's parse function, which says what
 * is wrong with it ("is not a positive integer"); the message names where
 * the value came from and the value, cleaned of terminal escapes:
 * "--epochs='x' is not a positive integer", "NSYS_GATE_EPOCHS='x' ...".
 *
 * Ownership: tables are constant.  What a parse function stores in its
 * target borrows argv and the environment, except the pieces of a list
 * variable: each is a copy handed to the table's keep function, and the
 * target owns it from then on.  This layer never prints or exits. */
#ifndef NG_OPTIONS_H
#define NG_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "util/ng_err.h"

struct ng_option;

/* One value on its way into a target, for a parse function. */
struct ng_option_value {
    const struct ng_option *opt;   /* its row (opt->field: where it goes) */
    const char *text;              /* a flag's value, or the variable's (or a piece of it) */
    int from_env;                  /* the text came from the environment variable */
    const char *problem;           /* set by a parse function that refuses the text */
};

/* Sets v->text into target (the command's options struct): 0, or -1 with
 * v->problem, which starts with a verb ("is empty", "must be at least
 * 1") and is static text or lives until the next call on the thread. */
typedef int ng_option_parse_fn(void *target, struct ng_option_value *v);

/* What an option takes, and for a repeatable one how its variable holds
 * several values. */
enum ng_option_takes {
    NG_OPTION_SWITCH = 0,   /* nothing, or =VALUE (--quiet=0); given bare, the parser gets "1" */
    NG_OPTION_BARE,         /* nothing at all (--help, not --help=1); the parser gets "1" */
    NG_OPTION_VALUE,        /* one value */
    NG_OPTION_REPEAT,       /* repeatable; the variable is one value, handed over whole */
    NG_OPTION_PATHS,        /* repeatable; the variable ':'-separated (files) */
    NG_OPTION_LINES,        /* repeatable; the variable one value a line (patterns hold ':') */
    NG_OPTION_COMMAS,       /* repeatable; the variable ',' or newline separated (as a YAML
                               block writes it), empty pieces skipped */
};

struct ng_option {
    const char *flag;             /* without "--" */
    char short_flag;              /* -x, or 0 */
    const char *env;              /* the variable read when no flag is given, or NULL */
    enum ng_option_takes takes;
    ng_option_parse_fn *parse;
    size_t field;                 /* offsetof() the member the parse function sets, for the
                                     parsers below that write one member */
    const char *meta;             /* the value in --help ("N"); NULL for a switch */
    const char *help;
    int group;                    /* its heading in --help: an index into headings */
    int scope;                    /* the command's own (the gate: where else it may be set) */
};

/* -h, --help, the same row in every command's table: sets the int member
 * of the command's options struct `type`. */
#define NG_OPTIONS_HELP(type, member)                                                      \
    { .flag = "help", .short_flag = 'h', .takes = NG_OPTION_BARE, .parse = ng_options_bool, \
      .field = offsetof(type, member), .help = "this text" }

/* Table styles, or-ed: the gate's, which its tests and goldens pin. */
enum {
    NG_OPTIONS_SAY_OPTION = 1 << 0,   /* "option '--x' needs a value", not "--x needs ..." */
    NG_OPTIONS_LONG_ONLY = 1 << 1,    /* --help shows long flags only (the help line names
                                         the short one) */
};

struct ng_options {
    const struct ng_option *rows;
    size_t n;
    const char *command;          /* "dashboard": "(see nsys-gate dashboard --help)"; NULL:
                                     the gate's "(see --help)" */
    const char *prefix;           /* before "unknown option" ("ranges: "), or NULL */
    const char *usage;            /* --help's first line after "usage: nsys-gate COMMAND",
                                     e.g. "[OPTIONS] PROFILE...", and what the command does
                                     (lines of 80 columns); NULL: the command writes its own */
    const char *about;
    unsigned style;
    const char *const *headings;  /* --help's headings, by group; NULL: one list */
    size_t n_headings;
    /* An operand (an argument that is not an option), in argv order, into
     * the scan's context: -1 with err to refuse it (the scan goes on). */
    int (*operand)(void *ctx, const char *arg, struct ng_err *err);
    /* Takes a copy (a piece of a list variable) that target owns from
     * then on: -1 when it has no room left.  Needed by a table with a
     * PATHS, LINES or COMMAS row. */
    int (*keep)(void *target, char *copy);
};

/* Pass 1: argv (from argv[1]) into operands, handed to t->operand with
 * ctx, and options, only checked: an unknown option ("unknown option
 * '--treshold': did you mean '--threshold'? (see --help)") or one without
 * its value.  Goes to the end; -1 with err naming the first problem. */
int ng_options_scan(const struct ng_options *t, int argc, char **argv, void *ctx,
                    struct ng_err *err);

/* Pass 2: each row, in table order, from its flags, else its variable,
 * into target.  Goes through every row; -1 with err naming the first bad
 * value. */
int ng_options_apply(const struct ng_options *t, void *target, int argc, char **argv,
                     struct ng_err *err);

/* Both passes (operands into target too): the scan's problem first. */
int ng_options_parse(const struct ng_options *t, void *target, int argc, char **argv,
                     struct ng_err *err);

/* The row of the long flag (without "--"), or NULL. */
const struct ng_option *ng_options_find(const struct ng_options *t, const char *flag);

/* --help: the usage and what the command does (when the table has them),
 * then the option lines, "  -o, --output DIR  the help [ENV]", under
 * "\nheading:\n" lines when the table has headings.  The help starts at
 * column 27 and is wrapped at word boundaries so no line passes 100
 * columns; a long left part gets a line of its own. */
void ng_options_help(FILE *out, const struct ng_options *t);

/* ---- value parsers every command may use; each sets the member at
 * v->opt->field ---- */

/* const char *: any text but the empty one. */
int ng_options_text(void *target, struct ng_option_value *v);
/* int: 1/0, true/false, yes/no, on/off. */
int ng_options_bool(void *target, struct ng_option_value *v);
/* long: 1 to INT_MAX, digits only. */
int ng_options_positive(void *target, struct ng_option_value *v);
/* long: 0 to INT_MAX, digits only. */
int ng_options_count(void *target, struct ng_option_value *v);

/* Appends v->text to a list of at most max: -1 with v->problem when the
 * text is empty ("is empty") or the list is full (too_many, e.g. "is one
 * file too many (at most 256)"). */
int ng_options_push(struct ng_option_value *v, const char **list, size_t *n, size_t max,
                    const char *too_many);

/* The same checks, for parsers of a command's own. */
int ng_options_parse_bool(const char *text, int *out, const char **problem);
int ng_options_parse_positive(const char *text, long *out, const char **problem);
int ng_options_parse_count(const char *text, long *out, const char **problem);
/* Whether n bytes are a plain decimal: digits with at most one '.', at
 * least one digit; no sign, exponent, hex, inf or nan (strtod takes them
 * all). */
int ng_options_is_decimal(const char *s, size_t n);

/* The member a value parser sets. */
static inline void *ng_options_field(void *target, const struct ng_option_value *v)
{
    return (char *)target + v->opt->field;
}

#endif
