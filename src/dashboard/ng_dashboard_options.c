#include "dashboard/ng_dashboard_site.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html/ng_html_escape.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

/* ---- options ---- */

struct dash_opt {
    const char *flag;          /* without "--" */
    char short_flag;
    const char *env;
    const char *meta;          /* NULL: a switch */
    const char *help;
};

enum { D_OUTPUT, D_TITLE, D_COMMIT_URL, D_DETAILS, D_ACCEPT, D_QUIET, D_HELP };

static const struct dash_opt dash_opts[] = {
    [D_OUTPUT] = { "output", 'o', "NSYS_GATE_DASHBOARD_DIR", "DIR",
                   "the site's directory (default " DEFAULT_DIR "), replaced whole" },
    [D_TITLE] = { "title", 0, "NSYS_GATE_DASHBOARD_TITLE", "TEXT",
                  "the pages' title (default " DEFAULT_TITLE ")" },
    [D_COMMIT_URL] = { "commit-url", 0, "NSYS_GATE_COMMIT_URL", "URL",
                       "where a run without a CI run URL links: {commit} is replaced by its commit" },
    [D_DETAILS] = { "details", 0, "NSYS_GATE_DASHBOARD_DETAILS", "N",
                    "runs of each gate with a section of their own (default 20)" },
    [D_ACCEPT] = { "accept", 0, "NSYS_GATE_ACCEPT", "FILE",
                   "acknowledged changes (JSON Lines; repeatable, the variable comma-separated)" },
    [D_QUIET] = { "quiet", 0, NULL, NULL, "no summary line on stdout" },
    [D_HELP] = { "help", 0, NULL, NULL, "this text" },
};

#define N_DASH_OPTS (sizeof dash_opts / sizeof dash_opts[0])

void ng_dashboard_help(FILE *out)
{
    fprintf(out, "usage: %s dashboard [OPTIONS] HISTORY.jsonl...\n\n"
                 "Writes a static site (DIR/index.html and a page per gate) from --history files.\n\n",
            NG_TOOL_NAME);
    for (size_t i = 0; i < N_DASH_OPTS; i++) {
        const struct dash_opt *d = &dash_opts[i];
        char left[64];
        snprintf(left, sizeof left, "%s%c%s--%s%s%s", d->short_flag ? "-" : "",
                 d->short_flag ? d->short_flag : ' ', d->short_flag ? ", " : "", d->flag,
                 d->meta ? " " : "", d->meta ? d->meta : "");
        ng_help_option(out, left + (d->short_flag ? 0 : 1), d->help, d->env);
    }
}

/* --commit-url becomes a link's href on every page: only an http(s) URL
 * (as for a run's own URL: a javascript: URL would run in the reader's
 * browser), and one with {commit} in it, else every run links to one
 * place. */
static int commit_url_bad(const char *v, const char *where, struct ng_err *err)
{
    if (ng_html_url_linkable(v) && strstr(v, "{commit}"))
        return 0;
    char *shown = ng_text_cleaned(v, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "%s='%s' is not an http(s) URL with {commit} in it", where, shown);
    free(shown);
    return -1;
}

static int set_value(struct ng_dashboard_opts *o, size_t i, const char *where, const char *v,
                     struct ng_err *err)
{
    char *shown;
    long n = 0;
    const char *p;

    switch (i) {
    case D_OUTPUT: o->out_dir = v; break;
    case D_TITLE: o->title = v; break;
    case D_ACCEPT:
        if (strcmp(where, dash_opts[D_ACCEPT].env) == 0) {
            o->accept_list = v;   /* split when read */
            break;
        }
        if (o->n_accept == NG_DASHBOARD_MAX_HISTORIES)
            return ng_err_set(err, "%s: more than %d files", where, NG_DASHBOARD_MAX_HISTORIES);
        o->accept[o->n_accept++] = v;
        break;
    case D_COMMIT_URL:
        if (*v && commit_url_bad(v, where, err))
            return -1;
        o->commit_url = v;
        break;
    case D_DETAILS:
        for (p = v; *p >= '0' && *p <= '9' && n < 1000000; p++)
            n = n * 10 + (*p - '0');
        if (*v && !*p && n >= 1) {
            o->details = n;
            break;
        }
        shown = ng_text_cleaned(v, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(err, "%s='%s' is not a positive integer (at most 1000000)", where, shown);
        free(shown);
        return -1;
    }
    if (!*v) {
        ng_err_set(err, "%s is empty", where);
        return -1;
    }
    return 0;
}

static int find_opt(const char *a, size_t len, char short_flag)
{
    for (size_t i = 0; i < N_DASH_OPTS; i++)
        if (short_flag ? dash_opts[i].short_flag == short_flag
                       : strlen(dash_opts[i].flag) == len && strncmp(dash_opts[i].flag, a, len) == 0)
            return (int)i;
    return -1;
}

static int unknown(struct ng_err *err, const char *a)
{
    char *shown = ng_text_cleaned(a, NG_TEXT_ESCAPE_CONTROLS);
    const char *name = a + strspn(a, "-"), *near = NULL;
    size_t len = strcspn(name, "="), best = SIZE_MAX;

    for (size_t i = 0; a[1] == '-' && i < N_DASH_OPTS; i++) {
        size_t d = ng_text_distance(name, len, dash_opts[i].flag, 2);
        if (d < best) {
            best = d;
            near = dash_opts[i].flag;
        }
    }
    if (near && ng_text_near(best, len))
        ng_err_set(err, "unknown option '%s': did you mean '--%s'? (see %s dashboard --help)",
                   shown, near, NG_TOOL_NAME);
    else
        ng_err_set(err, "unknown option '%s' (see %s dashboard --help)", shown, NG_TOOL_NAME);
    free(shown);
    return -1;
}

/* One argument (and maybe the next, its value); returns how many were used. */
static int take_option(struct ng_dashboard_opts *o, int argc, char **argv, int i, int *given,
                       struct ng_err *err)
{
    const char *a = argv[i], *value = NULL;
    char where[64];
    int opt;

    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        opt = find_opt(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), 0);
        if (opt >= 0 && eq)
            value = eq + 1;
        if (opt >= 0 && eq && !dash_opts[opt].meta)
            return unknown(err, a);
    } else {
        opt = a[2] == '\0' || a[1] == 'o' ? find_opt(NULL, 0, a[1]) : -1;
        if (opt >= 0 && a[2])
            value = a + 2;
    }
    if (opt < 0)
        return unknown(err, a);
    snprintf(where, sizeof where, "--%s", dash_opts[opt].flag);
    if (!dash_opts[opt].meta) {
        if (opt == D_QUIET)
            o->quiet = 1;
        else
            o->show_help = 1;
        return 1;
    }
    int used = 1;
    if (!value) {
        if (i + 1 >= argc)
            return ng_err_set(err, "%s needs a value (%s)", where, dash_opts[opt].meta);
        value = argv[i + 1];
        used = 2;
    }
    given[opt] = 1;
    return set_value(o, (size_t)opt, where, value, err) < 0 ? -1 : used;
}

int ng_dashboard_parse(struct ng_dashboard_opts *o, int argc, char **argv, struct ng_err *err)
{
    int given[N_DASH_OPTS] = { 0 }, only_operands = 0;

    memset(o, 0, sizeof *o);
    o->out_dir = DEFAULT_DIR;
    o->title = DEFAULT_TITLE;
    o->details = DEFAULT_DETAILS;
    for (int i = 1; i < argc;) {
        const char *a = argv[i];
        if (!only_operands && strcmp(a, "--") == 0) {
            only_operands = 1;
            i++;
            continue;
        }
        if (only_operands || a[0] != '-' || a[1] == '\0') {
            if (o->n_histories == NG_DASHBOARD_MAX_HISTORIES)
                return ng_err_set(err, "more than %d histories", NG_DASHBOARD_MAX_HISTORIES);
            if (!*a)
                return ng_err_set(err, "a history operand is empty");
            o->histories[o->n_histories++] = a;
            i++;
            continue;
        }
        int used = take_option(o, argc, argv, i, given, err);
        if (used < 0)
            return -1;
        i += used;
    }
    if (o->show_help)
        return 0;
    for (size_t i = 0; i < N_DASH_OPTS; i++) {
        const char *v = dash_opts[i].env ? getenv(dash_opts[i].env) : NULL;
        if (!given[i] && v && *v && set_value(o, i, dash_opts[i].env, v, err) < 0)
            return -1;
    }
    if (o->n_histories == 0)
        return ng_err_set(err, "missing operand: expected HISTORY.jsonl... (see %s dashboard --help)",
                          NG_TOOL_NAME);
    return 0;
}
