#include "util/ng_options.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_text.h"
#include "util/ng_util.h"
#include "util/ng_version.h"

/* ---- the scanner: one argument at a time ---- */

enum arg_kind {
    ARG_OPERAND,
    ARG_END,        /* "--": every later argument is an operand */
    ARG_OPTION,
    ARG_UNKNOWN,
    ARG_NO_VALUE,   /* an option that takes a value, last in argv */
};

struct arg {
    enum arg_kind kind;
    const char *text;             /* the argument as given */
    const struct ng_option *opt;  /* ARG_OPTION, ARG_NO_VALUE */
    const char *value;            /* ARG_OPTION: its value; NULL for a bare switch */
};

struct cursor {
    int at;
    int only_operands;
};

#define CURSOR_INIT { 1, 0 }

static int takes_value(const struct ng_option *o)
{
    return o->takes >= NG_OPTION_VALUE;
}

static int repeatable(const struct ng_option *o)
{
    return o->takes >= NG_OPTION_REPEAT;
}

static const struct ng_option *find(const struct ng_options *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->rows[i].flag) == len && strncmp(t->rows[i].flag, name, len) == 0)
            return &t->rows[i];
    return NULL;
}

const struct ng_option *ng_options_find(const struct ng_options *t, const char *flag)
{
    return find(t, flag, strlen(flag));
}

/* -x, or -xVALUE for an option that takes one (never -x=VALUE: the '=' is
 * the value's).  *attached is the value glued to the letter, or NULL. */
static const struct ng_option *find_short(const struct ng_options *t, const char *arg,
                                          const char **attached)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct ng_option *o = &t->rows[i];
        if (!o->short_flag || arg[1] != o->short_flag || (arg[2] && !takes_value(o)))
            continue;
        *attached = arg[2] ? arg + 2 : NULL;
        return o;
    }
    return NULL;
}

/* The argument at c (and its value, when that is the next one); 0 past
 * the end. */
static int next_arg(const struct ng_options *t, int argc, char **argv, struct cursor *c,
                    struct arg *a)
{
    const char *attached = NULL;

    if (c->at >= argc)
        return 0;
    *a = (struct arg){ .text = argv[c->at++] };
    if (c->only_operands || a->text[0] != '-' || a->text[1] == '\0') {
        a->kind = ARG_OPERAND;
        return 1;
    }
    if (strcmp(a->text, "--") == 0) {
        c->only_operands = 1;
        a->kind = ARG_END;
        return 1;
    }
    if (a->text[1] == '-') {
        const char *name = a->text + 2, *eq = strchr(name, '=');
        a->opt = find(t, name, eq ? (size_t)(eq - name) : strlen(name));
        attached = eq ? eq + 1 : NULL;
    } else {
        a->opt = find_short(t, a->text, &attached);
    }
    if (!a->opt) {
        a->kind = ARG_UNKNOWN;
        return 1;
    }
    a->kind = ARG_OPTION;
    a->value = attached;
    if (takes_value(a->opt) && !attached) {
        if (c->at < argc)
            a->value = argv[c->at++];
        else
            a->kind = ARG_NO_VALUE;
    }
    return 1;
}

/* ---- pass 1: operands and unknown options ---- */

/* "(see --help)", or "(see nsys-gate dashboard --help)". */
static void see_help(const struct ng_options *t, char *buf, size_t size)
{
    snprintf(buf, size, "(see %s%s%s--help)", t->command ? NG_TOOL_NAME " " : "",
             t->command ? t->command : "", t->command ? " " : "");
}

/* The flag nearest a long option that is not one, if one is near. */
static const char *nearest(const struct ng_options *t, const char *arg)
{
    const char *name = arg + 2, *best = NULL;
    size_t len = strcspn(name, "="), best_d = SIZE_MAX;

    if (arg[1] != '-')
        return NULL;
    for (size_t i = 0; i < t->n; i++) {
        size_t d = ng_text_distance(name, len, t->rows[i].flag, 2);
        if (d < best_d) {
            best_d = d;
            best = t->rows[i].flag;
        }
    }
    return best && ng_text_near(best_d, len) ? best : NULL;
}

static void unknown(const struct ng_options *t, const char *arg, struct ng_err *err)
{
    char see[96];
    char *shown = ng_text_cleaned(arg, NG_TEXT_ESCAPE_CONTROLS);
    const char *near = nearest(t, arg), *prefix = t->prefix ? t->prefix : "";

    see_help(t, see, sizeof see);
    if (near)
        ng_err_set(err, "%sunknown option '%s': did you mean '--%s'? %s", prefix, shown, near,
                   see);
    else
        ng_err_set(err, "%sunknown option '%s' %s", prefix, shown, see);
    free(shown);
}

/* "option '--x' needs a value (N)" or "--x needs a value (N)". */
static void flag_problem(const struct ng_options *t, const struct ng_option *o,
                         const char *problem, struct ng_err *err)
{
    if (t->style & NG_OPTIONS_SAY_OPTION)
        ng_err_set(err, "option '--%s' %s", o->flag, problem);
    else
        ng_err_set(err, "--%s %s", o->flag, problem);
}

int ng_options_scan(const struct ng_options *t, int argc, char **argv, void *ctx,
                    struct ng_err *err)
{
    struct cursor c = CURSOR_INIT;
    struct arg a;
    struct ng_err later;   /* problems after the first are not kept */
    int failed = 0;

    while (next_arg(t, argc, argv, &c, &a)) {
        struct ng_err *e = failed ? &later : err;
        if (a.kind == ARG_OPERAND && t->operand) {
            failed |= t->operand(ctx, a.text, e) < 0;
        } else if (a.kind == ARG_UNKNOWN) {
            unknown(t, a.text, e);
            failed = 1;
        } else if (a.kind == ARG_NO_VALUE) {
            char problem[96];
            snprintf(problem, sizeof problem, "needs a value (%s)", a.opt->meta);
            flag_problem(t, a.opt, problem, e);
            failed = 1;
        }
    }
    return failed ? -1 : 0;
}

/* ---- pass 2: values into the target ---- */

/* Values shown in messages are cleaned: a terminal escape in an argument
 * must not reach the terminal raw. */
static int bad_value(struct ng_err *err, const char *where, const char *value,
                     const char *problem)
{
    char *shown = ng_text_cleaned(value, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "%s='%s' %s", where, shown, problem);
    free(shown);
    return -1;
}

/* One value through the row's parser; `shown` is what the message quotes
 * (a list variable's whole value).  ret: the first error so far. */
static int set_value(void *target, const struct ng_option *o, const char *text, int from_env,
                     const char *where, const char *shown, struct ng_err *err, int ret)
{
    struct ng_option_value v = { o, text, from_env, NULL };

    if (o->parse(target, &v) < 0 && ret == 0)
        return bad_value(err, where, shown, v.problem ? v.problem : "is not valid");
    return ret;
}

/* A list variable: each piece a copy the target keeps. */
static int set_env_list(const struct ng_options *t, void *target, const struct ng_option *o,
                        const char *value, struct ng_err *err, int ret)
{
    int commas = o->takes == NG_OPTION_COMMAS;
    const char *sep = commas ? ",\n" : o->takes == NG_OPTION_LINES ? "\n" : ":";

    for (const char *p = value;;) {
        size_t n = strcspn(p, sep);
        if (n > 0 || !commas) {
            char *piece = ng_xstrndup(p, n);
            if (!t->keep || t->keep(target, piece) < 0) {
                free(piece);
                return ret == 0 ? ng_err_set(err, "%s lists too many values", o->env) : ret;
            }
            ret = set_value(target, o, piece, 1, o->env, value, err, ret);
        }
        if (!p[n])
            return ret;
        p += n + 1;
    }
}

static int set_env(const struct ng_options *t, void *target, const struct ng_option *o,
                   struct ng_err *err, int ret)
{
    const char *value = o->env ? getenv(o->env) : NULL;

    if (!value || !*value)
        return ret;
    if (o->takes >= NG_OPTION_PATHS)
        return set_env_list(t, target, o, value, err, ret);
    return set_value(target, o, value, 1, o->env, value, err, ret);
}

/* One row: every flag of a repeatable option, else the last one, else the
 * variable. */
static int apply_row(const struct ng_options *t, void *target, const struct ng_option *o,
                     int argc, char **argv, struct ng_err *err, int ret)
{
    struct cursor c = CURSOR_INIT;
    struct arg a;
    const char *last = NULL;
    int given = 0;
    char where[80];

    snprintf(where, sizeof where, "--%s", o->flag);
    while (next_arg(t, argc, argv, &c, &a)) {
        if (a.kind != ARG_OPTION || a.opt != o)
            continue;
        given = 1;
        last = a.value;
        if (repeatable(o))
            ret = set_value(target, o, a.value, 0, where, a.value, err, ret);
    }
    if (!given)
        return set_env(t, target, o, err, ret);
    if (repeatable(o))
        return ret;
    if (o->takes == NG_OPTION_BARE && last) {
        if (ret == 0)
            flag_problem(t, o, "takes no value", err);
        return -1;
    }
    last = last ? last : "1";   /* a bare switch */
    return set_value(target, o, last, 0, where, last, err, ret);
}

int ng_options_apply(const struct ng_options *t, void *target, int argc, char **argv,
                     struct ng_err *err)
{
    int ret = 0;

    for (size_t i = 0; i < t->n; i++)
        ret = apply_row(t, target, &t->rows[i], argc, argv, err, ret);
    return ret;
}

int ng_options_parse(const struct ng_options *t, void *target, int argc, char **argv,
                     struct ng_err *err)
{
    struct ng_err applied;

    if (ng_options_scan(t, argc, argv, target, err) < 0)
        return -1;
    if (ng_options_apply(t, target, argc, argv, &applied) < 0)
        return (*err = applied, -1);
    return 0;
}

/* ---- --help ---- */

/* One option: "  LEFT" in a field of HELP_LEFT columns (a longer LEFT
 * gets a line of its own), then the help and " [ENV]" wrapped at word
 * boundaries so no line passes HELP_WIDTH columns.  Every command's help
 * comes through here, so they line up alike. */
#define HELP_LEFT 26
#define HELP_WIDTH 100

/* Writes words from *text until the next would pass `room` columns; moves
 * *text past them and the spaces after.  A word longer than the room is
 * written whole (no line is broken inside a word). */
static void help_words(FILE *out, const char **text, size_t room)
{
    const char *p = *text;
    size_t used = 0;

    while (*p) {
        size_t w = strcspn(p, " ");
        if (used && used + 1 + w > room)
            break;
        fprintf(out, "%s%.*s", used ? " " : "", (int)w, p);
        used += (used ? 1 : 0) + w;
        p += w;
        p += strspn(p, " ");
    }
    *text = p;
}

static void help_line(FILE *out, const char *left, const char *help, const char *env)
{
    char text[1024];   /* a help text is a line or two; a longer one is cut */
    size_t room = HELP_WIDTH - HELP_LEFT;

    snprintf(text, sizeof text, "%s%s%s%s", help, env ? " [" : "", env ? env : "",
             env ? "]" : "");
    if (strlen(left) + 4 > HELP_LEFT)   /* two spaces at least before the help */
        fprintf(out, "  %s\n%*s", left, HELP_LEFT, "");
    else
        fprintf(out, "  %-*s", HELP_LEFT - 2, left);
    const char *p = text;
    help_words(out, &p, room);
    while (*p) {
        fprintf(out, "\n%*s", HELP_LEFT, "");
        help_words(out, &p, room);
    }
    fputc('\n', out);
}

static void help_row(FILE *out, const struct ng_options *t, const struct ng_option *o)
{
    char left[64];
    const char *meta = o->meta ? o->meta : "";

    if (o->short_flag && !(t->style & NG_OPTIONS_LONG_ONLY))
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_flag, o->flag, *meta ? " " : "",
                 meta);
    else
        snprintf(left, sizeof left, "--%s%s%s", o->flag, *meta ? " " : "", meta);
    help_line(out, left, o->help, o->env);
}

void ng_options_help(FILE *out, const struct ng_options *t)
{
    if (t->usage)
        fprintf(out, "usage: %s %s %s\n\n%s\n\n", NG_TOOL_NAME, t->command, t->usage, t->about);
    if (!t->headings) {
        for (size_t i = 0; i < t->n; i++)
            help_row(out, t, &t->rows[i]);
        return;
    }
    /* a heading without rows (a table made of another's rows) is left out */
    for (size_t g = 0; g < t->n_headings; g++) {
        int first = 1;
        for (size_t i = 0; i < t->n; i++) {
            if (t->rows[i].group != (int)g)
                continue;
            if (first)
                fprintf(out, "\n%s:\n", t->headings[g]);
            first = 0;
            help_row(out, t, &t->rows[i]);
        }
    }
}

/* ---- value parsers ---- */

int ng_options_parse_positive(const char *text, long *out, const char **problem)
{
    long n = 0;

    if (!*text) {
        *problem = "is empty";
        return -1;
    }
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9') {
            *problem = "is not a positive integer";
            return -1;
        }
        if (n > (INT_MAX - (*p - '0')) / 10) {
            *problem = "is too large";
            return -1;
        }
        n = n * 10 + (*p - '0');
    }
    if (n < 1) {
        *problem = "must be at least 1";
        return -1;
    }
    *out = n;
    return 0;
}

int ng_options_parse_count(const char *text, long *out, const char **problem)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return 0;
    }
    if (ng_options_parse_positive(text, out, problem) == 0)
        return 0;
    if (strcmp(*problem, "must be at least 1") != 0 && strcmp(*problem, "is too large") != 0)
        *problem = "is not a non-negative integer";
    return -1;
}

int ng_options_parse_bool(const char *text, int *out, const char **problem)
{
    static const char *const yes[] = { "1", "true", "yes", "on", NULL };
    static const char *const no[] = { "0", "false", "no", "off", NULL };

    for (int i = 0; yes[i]; i++)
        if (strcmp(text, yes[i]) == 0)
            return *out = 1, 0;
    for (int i = 0; no[i]; i++)
        if (strcmp(text, no[i]) == 0)
            return *out = 0, 0;
    *problem = "is not a boolean (use 1/0, true/false, yes/no)";
    return -1;
}

int ng_options_is_decimal(const char *s, size_t n)
{
    int digits = 0, dots = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            digits++;
        else if (s[i] == '.' && !dots)
            dots++;
        else
            return 0;
    }
    return digits > 0;
}

int ng_options_push(struct ng_option_value *v, const char **list, size_t *n, size_t max,
                    const char *too_many)
{
    if (!*v->text)
        return v->problem = "is empty", -1;
    if (*n == max)
        return v->problem = too_many, -1;
    list[(*n)++] = v->text;
    return 0;
}

int ng_options_text(void *target, struct ng_option_value *v)
{
    if (!*v->text) {
        v->problem = "is empty";
        return -1;
    }
    *(const char **)ng_options_field(target, v) = v->text;
    return 0;
}

int ng_options_bool(void *target, struct ng_option_value *v)
{
    return ng_options_parse_bool(v->text, ng_options_field(target, v), &v->problem);
}

int ng_options_positive(void *target, struct ng_option_value *v)
{
    return ng_options_parse_positive(v->text, ng_options_field(target, v), &v->problem);
}

int ng_options_count(void *target, struct ng_option_value *v)
{
    return ng_options_parse_count(v->text, ng_options_field(target, v), &v->problem);
}
