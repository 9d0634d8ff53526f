#include "dashboard/ng_dashboard_site.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "html/ng_html_escape.h"
#include "util/ng_options.h"
#include "util/ng_version.h"

/* ---- options ---- */

/* --commit-url becomes a link's href on every page: only an http(s) URL
 * (as for a run's own URL: a javascript: URL would run in the reader's
 * browser), and one with {commit} in it, else every run links to one
 * place. */
static int set_commit_url(void *target, struct ng_option_value *v)
{
    struct ng_dashboard_opts *o = target;

    if (!*v->text)
        return v->problem = "is empty", -1;
    if (!ng_html_escape_url_linkable(v->text) || !strstr(v->text, "{commit}"))
        return v->problem = "is not an http(s) URL with {commit} in it", -1;
    o->commit_url = v->text;
    return 0;
}

static int set_details(void *target, struct ng_option_value *v)
{
    struct ng_dashboard_opts *o = target;
    const char *p = v->text;
    long n = 0;

    for (; *p >= '0' && *p <= '9' && n < 1000000; p++)
        n = n * 10 + (*p - '0');
    if (!*v->text || *p || n < 1)
        return v->problem = "is not a positive integer (at most 1000000)", -1;
    o->details = n;
    return 0;
}

/* Each --accept a file; the variable a comma-separated list, split when
 * the files are read. */
static int set_accept(void *target, struct ng_option_value *v)
{
    struct ng_dashboard_opts *o = target;

    if (v->from_env) {
        o->accept_list = v->text;
        return 0;
    }
    return ng_options_push(v, o->accept, &o->n_accept, NG_DASHBOARD_MAX_HISTORIES,
                           "is one file too many (at most 256)");
}

static int take_history(void *ctx, const char *arg, struct ng_err *err)
{
    struct ng_dashboard_opts *o = ctx;

    if (o->n_histories == NG_DASHBOARD_MAX_HISTORIES)
        return ng_err_set(err, "more than %d histories", NG_DASHBOARD_MAX_HISTORIES);
    if (!*arg)
        return ng_err_set(err, "a history operand is empty");
    o->histories[o->n_histories++] = arg;
    return 0;
}

#define D(member) offsetof(struct ng_dashboard_opts, member)

static const struct ng_option rows[] = {
    { .flag = "output", .short_flag = 'o', .env = "NSYS_GATE_DASHBOARD_DIR",
      .takes = NG_OPTION_VALUE, .parse = ng_options_text, .field = D(out_dir), .meta = "DIR",
      .help = "the site's directory (default " DEFAULT_DIR "), replaced whole" },
    { .flag = "title", .env = "NSYS_GATE_DASHBOARD_TITLE", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = D(title), .meta = "TEXT",
      .help = "the pages' title (default " DEFAULT_TITLE ")" },
    { .flag = "commit-url", .env = "NSYS_GATE_COMMIT_URL", .takes = NG_OPTION_VALUE,
      .parse = set_commit_url, .meta = "URL",
      .help = "where a run without a CI run URL links: {commit} is replaced by its commit" },
    { .flag = "details", .env = "NSYS_GATE_DASHBOARD_DETAILS", .takes = NG_OPTION_VALUE,
      .parse = set_details, .meta = "N",
      .help = "runs of each gate with a section of their own (default 20)" },
    { .flag = "accept", .env = "NSYS_GATE_ACCEPT", .takes = NG_OPTION_REPEAT,
      .parse = set_accept, .meta = "FILE",
      .help = "acknowledged changes (JSON Lines; repeatable, the variable comma-separated)" },
    { .flag = "jobs", .short_flag = 'j', .env = "NSYS_GATE_JOBS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_positive, .field = D(jobs), .meta = "N",
      .help = "worker threads reading the histories and writing the pages; default: one per "
              "processor" },
    { .flag = "quiet", .takes = NG_OPTION_SWITCH, .parse = ng_options_bool, .field = D(quiet),
      .help = "no summary line on stdout" },
    NG_OPTIONS_HELP(struct ng_dashboard_opts, show_help),
};

static const struct ng_options table = {
    .rows = rows,
    .n = sizeof rows / sizeof rows[0],
    .command = "dashboard",
    .usage = "[OPTIONS] HISTORY.jsonl...",
    .about = "Writes a static site (DIR/index.html and a page per gate) from --history files.",
    .operand = take_history,
};

const struct ng_options *ng_dashboard_options(void)
{
    return &table;
}

void ng_dashboard_help(FILE *out)
{
    ng_options_help(out, &table);
}

int ng_dashboard_parse(struct ng_dashboard_opts *o, int argc, char **argv, struct ng_err *err)
{
    memset(o, 0, sizeof *o);
    o->out_dir = DEFAULT_DIR;
    o->title = DEFAULT_TITLE;
    o->details = DEFAULT_DETAILS;
    if (ng_options_parse(&table, o, argc, argv, err) < 0)
        return -1;
    if (!o->show_help && o->n_histories == 0)
        return ng_err_set(err, "missing operand: expected HISTORY.jsonl... (see %s dashboard --help)",
                          NG_TOOL_NAME);
    return 0;
}
