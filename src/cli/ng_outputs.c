#include "cli/ng_outputs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reporters/ng_report.h"
#include "util/ng_file.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

/* In table order: --help lists the options so, requests are written so
 * (the text stream gets the human line before the annotations), and the
 * first of several failures is the one reported. */
const struct ng_output ng_outputs[] = {
    { .reporter = "human", .dest = NG_OUTPUT_TEXT, .rules = NG_OUTPUT_QUIETED },
    { .reporter = "json", .option = "--json", .env = "NSYS_GATE_JSON", .dest = NG_OUTPUT_FILE,
      .rules = NG_OUTPUT_STDOUT_OK, .meta = "PATH",
      .help = "write the JSON verdict (- = stdout; the human line then goes to stderr)" },
    { .reporter = "junit", .option = "--junit", .env = "NSYS_GATE_JUNIT",
      .dest = NG_OUTPUT_FILE, .meta = "PATH", .help = "write a JUnit XML report" },
    { .reporter = "metrics", .option = "--metrics", .env = "NSYS_GATE_METRICS",
      .dest = NG_OUTPUT_FILE, .meta = "PATH",
      .help = "write OpenMetrics text (Prometheus textfile collector, GitLab metrics report)" },
    { .reporter = "history", .option = "--history", .env = "NSYS_GATE_HISTORY",
      .dest = NG_OUTPUT_APPEND, .rules = NG_OUTPUT_READ_FIRST, .meta = "PATH",
      .help = "append the verdict and today's work rows as one JSON line (JSON Lines), for "
              "dashboards and --baseline-history" },
    { .reporter = "benchmark", .option = "--benchmark-json", .env = "NSYS_GATE_BENCHMARK_JSON",
      .dest = NG_OUTPUT_FILE, .meta = "PATH",
      .help = "write github-action-benchmark customSmallerIsBetter JSON" },
    { .reporter = "html", .option = "--html", .env = "NSYS_GATE_HTML", .dest = NG_OUTPUT_FILE,
      .meta = "PATH", .help = "write a self-contained HTML report page (inline CSS and SVG)" },
    { .reporter = "github-annotations", .dest = NG_OUTPUT_TEXT, .rules = NG_OUTPUT_GITHUB },
    { .reporter = "github-summary", .env = "GITHUB_STEP_SUMMARY", .dest = NG_OUTPUT_APPEND,
      .rules = NG_OUTPUT_GITHUB },
    { .reporter = "github-output", .env = "GITHUB_OUTPUT", .dest = NG_OUTPUT_APPEND,
      .rules = NG_OUTPUT_GITHUB },
};

const size_t ng_n_outputs = sizeof ng_outputs / sizeof ng_outputs[0];

_Static_assert(sizeof ng_outputs / sizeof ng_outputs[0] <= NG_OUTPUTS_MAX,
               "NG_OUTPUTS_MAX is smaller than the outputs table");

int ng_outputs_find(const char *name)
{
    for (size_t i = 0; i < ng_n_outputs; i++) {
        const struct ng_output *o = &ng_outputs[i];
        if ((o->option && strcmp(o->option, name) == 0) ||
            (!o->option && o->env && strcmp(o->env, name) == 0))
            return (int)i;
    }
    return -1;
}

/* The one name that says where a row's path came from, for messages:
 * its option, else its variable. */
static const char *origin_of(const struct ng_output *o)
{
    return o->option ? o->option : o->env;
}

/* "(only --json can)": the options that may be "-", from the table.
 * Written once, under pthread_once, as the option table is built. */
static char stdout_text[256];
static pthread_once_t stdout_once = PTHREAD_ONCE_INIT;

static void write_stdout_problem(void)
{
    struct ng_buf b = NG_BUF_INIT;
    size_t n = 0;

    ng_buf_adds(&b, "cannot be standard output (only ");
    for (size_t i = 0; i < ng_n_outputs; i++) {
        if (!(ng_outputs[i].rules & NG_OUTPUT_STDOUT_OK) || !ng_outputs[i].option)
            continue;
        ng_buf_addf(&b, "%s%s", n++ ? " and " : "", ng_outputs[i].option);
    }
    ng_buf_addf(&b, " can)");
    snprintf(stdout_text, sizeof stdout_text, "%s", b.data);
    ng_buf_release(&b);
}

static const char *stdout_problem(void)
{
    pthread_once(&stdout_once, write_stdout_problem);
    return stdout_text;
}

int ng_outputs_set(const struct ng_output *o, const char *value, const char **path,
                   const char **problem)
{
    if (strcmp(value, "-") == 0 && !(o->rules & NG_OUTPUT_STDOUT_OK)) {
        *problem = stdout_problem();
        return -1;
    }
    if (!*value) {
        *problem = "is empty";
        return -1;
    }
    *path = value;
    return 0;
}

static int is_stdout(const struct ng_output *o, const char *path)
{
    return (o->rules & NG_OUTPUT_STDOUT_OK) && path && strcmp(path, "-") == 0;
}

static int is_input(const struct stat *out, const char *const *inputs, size_t n,
                    const char **which)
{
    struct stat st;

    for (size_t i = 0; i < n; i++) {
        if (inputs[i] && stat(inputs[i], &st) == 0 && st.st_dev == out->st_dev &&
            st.st_ino == out->st_ino) {
            *which = inputs[i];
            return 1;
        }
    }
    return 0;
}

/* A file the gate replaces or appends to, and so could destroy: not "-",
 * not a stream name (/dev/stdout), not an existing FIFO or device (those
 * are written in place, nothing is replaced). */
static int names_file(const struct ng_output *o, const char *path)
{
    struct stat st;

    if (o->dest == NG_OUTPUT_TEXT || !path || is_stdout(o, path) || ng_path_names_stream(path))
        return 0;
    return stat(path, &st) < 0 || S_ISREG(st.st_mode);
}

/* A report written over an input would destroy the profile (reports are
 * written even on ERROR, so even a usage error would), and one appended
 * to it would corrupt it.  Same file means same device and inode:
 * "./base.sqlite" or a symlink to it cannot slip past; a path that does
 * not exist yet is no input. */
static int refuse_inputs(struct ng_settings *s, const char *const *inputs, size_t n,
                         unsigned allowed, const char *what, struct ng_err *err)
{
    int ret = 0;

    for (size_t i = 0; i < ng_n_outputs; i++) {
        const struct ng_output *o = &ng_outputs[i];
        const char *path = s->outputs[i], *which;
        struct stat st;
        if ((o->rules & allowed) || !names_file(o, path) || stat(path, &st) < 0 ||
            !is_input(&st, inputs, n, &which))
            continue;
        if (ret == 0) {
            char *out = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
            char *in = ng_text_cleaned(which, NG_TEXT_ESCAPE_CONTROLS);
            ret = ng_err_set(err, "%s '%s' is the %s '%s'; refusing to %s it",
                             origin_of(o), out, what, in,
                             o->dest == NG_OUTPUT_APPEND ? "append to" : "overwrite");
            free(out);
            free(in);
        }
        s->outputs[i] = NULL;
    }
    return ret;
}

/* Two paths that land in one file: the same spelling, another spelling
 * or a symlink (one key), or a hard link (one inode). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ka = ng_file_key(a), *kb = ng_file_key(b);
    int same = strcmp(ka, kb) == 0;
    free(ka);
    free(kb);
    return same;
}

/* Two reports in one file lose one of them (--json x --junit x keeps only
 * the JUnit) or corrupt both (--json x --history x): the first in table
 * order keeps the path, the others are refused and dropped. */
static int refuse_shared(struct ng_settings *s, struct ng_err *err, int ret)
{
    for (size_t i = 0; i < ng_n_outputs; i++) {
        const struct ng_output *o = &ng_outputs[i];
        if (!names_file(o, s->outputs[i]))
            continue;
        for (size_t j = 0; j < i; j++) {
            const struct ng_output *first = &ng_outputs[j];
            if (!names_file(first, s->outputs[j]) || !same_file(s->outputs[j], s->outputs[i]))
                continue;
            if (ret == 0) {
                char *a = ng_text_cleaned(s->outputs[j], NG_TEXT_ESCAPE_CONTROLS);
                char *b = ng_text_cleaned(s->outputs[i], NG_TEXT_ESCAPE_CONTROLS);
                ret = ng_err_set(err, "%s '%s' and %s '%s' are one file; %s is not written "
                                      "(give each report its own file)",
                                 origin_of(first), a, origin_of(o), b,
                                 origin_of(o));
                free(a);
                free(b);
            }
            s->outputs[i] = NULL;
            break;
        }
    }
    return ret;
}

int ng_outputs_refuse(struct ng_settings *s, const char *const *inputs, size_t n,
                      struct ng_err *err)
{
    return refuse_shared(s, err, refuse_inputs(s, inputs, n, 0, "input profile", err));
}

int ng_outputs_refuse_histories(struct ng_settings *s, const char *const *histories, size_t n,
                                struct ng_err *err)
{
    return refuse_inputs(s, histories, n, NG_OUTPUT_READ_FIRST, "--baseline-history file", err);
}

/* Standard output carries the human line, then the GitHub annotations;
 * an output written to "-" takes it, and both move to stderr. */
size_t ng_outputs_requests(const struct ng_settings *s, struct ng_report_request *q)
{
    enum ng_report_dest text = NG_DEST_STDOUT;
    size_t n = 0;

    for (size_t i = 0; i < ng_n_outputs; i++)
        if (is_stdout(&ng_outputs[i], s->outputs[i]))
            text = NG_DEST_STDERR;
    for (size_t i = 0; i < ng_n_outputs; i++) {
        const struct ng_output *o = &ng_outputs[i];
        const char *path = s->outputs[i];
        if (((o->rules & NG_OUTPUT_GITHUB) && !s->github) ||
            ((o->rules & NG_OUTPUT_QUIETED) && s->quiet))
            continue;
        if (o->dest == NG_OUTPUT_TEXT) {
            q[n++] = (struct ng_report_request){ o->reporter, text, NULL, NULL };
            continue;
        }
        if (!path)
            continue;
        enum ng_report_dest d = is_stdout(o, path)             ? NG_DEST_STDOUT
                                : o->dest == NG_OUTPUT_APPEND ? NG_DEST_APPEND
                                                              : NG_DEST_FILE;
        q[n++] = (struct ng_report_request){ o->reporter, d, path, origin_of(o) };
    }
    return n;
}
