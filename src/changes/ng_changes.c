#include "changes/ng_changes.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_changepoint.h"
#include "core/ng_context.h"
#include "core/ng_verdict_text.h"
#include "history/ng_accept.h"
#include "history/ng_history.h"
#include "history/ng_series.h"
#include "history/ng_trend_scan.h"
#include "html/ng_html_escape.h"
#include "util/ng_file.h"
#include "util/ng_options.h"
#include "util/ng_text.h"
#include "util/ng_util.h"
#include "util/ng_version.h"

/* ---- options ---- */

/* A number in [lo, hi], as strtod reads it. */
static int parse_number(const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    return 0;
}

static int set_p(void *target, struct ng_option_value *v)
{
    struct ng_changes_opts *o = target;

    if (parse_number(v->text, 1e-300, 1, &o->p_max) < 0)
        return v->problem = "is not a probability in (0, 1]", -1;
    return 0;
}

/* "5" or "5%": a percentage of the level. */
static int set_min_change(void *target, struct ng_option_value *v)
{
    struct ng_changes_opts *o = target;
    size_t len = strlen(v->text);
    char num[64];
    double d;

    if (len && len < sizeof num && v->text[len - 1] == '%')
        len--;
    snprintf(num, sizeof num, "%.*s", (int)len, v->text);
    if (len >= sizeof num || parse_number(num, 0, 1000, &d) < 0)
        return v->problem = "is not a percentage from 0 to 1000", -1;
    o->min_change = d / 100;
    return 0;
}

static int set_window(void *target, struct ng_option_value *v)
{
    struct ng_changes_opts *o = target;
    double d;

    if (parse_number(v->text, NG_CP_MIN_SIDE, 100000, &d) < 0 || d != floor(d))
        return v->problem = "is not a whole number of runs from 4 to 100000", -1;
    o->window = (long)d;
    return 0;
}

static int set_accept(void *target, struct ng_option_value *v)
{
    struct ng_changes_opts *o = target;

    return ng_options_push(v, o->accept, &o->n_accept, NG_CHANGES_MAX_FILES,
                           "is one file too many (at most 256)");
}

static int set_match(void *target, struct ng_option_value *v)
{
    struct ng_changes_opts *o = target;

    if (!strchr(v->text, '=') || v->text[0] == '=')
        return v->problem = "is not KEY=VALUE", -1;
    return ng_options_push(v, o->match, &o->n_match, NG_CHANGES_MAX_MATCH,
                           "is one pair too many (at most 32)");
}

static int take_history(void *ctx, const char *arg, struct ng_err *err)
{
    struct ng_changes_opts *o = ctx;

    if (o->n_histories == NG_CHANGES_MAX_FILES)
        return ng_err_set(err, "changes: HISTORY: too many (at most %d)", NG_CHANGES_MAX_FILES);
    o->histories[o->n_histories++] = arg;
    return 0;
}

/* The pieces of the list variables. */
static int keep(void *target, char *copy)
{
    struct ng_changes_opts *o = target;

    ng_strv_push(&o->kept, &o->n_kept, copy);
    return 0;
}

#define C(member) offsetof(struct ng_changes_opts, member)

static const struct ng_option rows[] = {
    { .flag = "change-p", .env = "NSYS_GATE_CHANGE_P", .takes = NG_OPTION_VALUE,
      .parse = set_p, .meta = "P", .help = "the significance a change needs (default 0.001)" },
    { .flag = "min-change", .env = "NSYS_GATE_MIN_CHANGE", .takes = NG_OPTION_VALUE,
      .parse = set_min_change, .meta = "PCT", .help = "smallest change reported, % (default 5)" },
    { .flag = "window", .env = "NSYS_GATE_CHANGE_WINDOW", .takes = NG_OPTION_VALUE,
      .parse = set_window, .meta = "N", .help = "runs compared either side (default 50)" },
    { .flag = "json", .env = "NSYS_GATE_CHANGES_JSON", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = C(json), .meta = "FILE", .help = "the changes as JSON" },
    { .flag = "junit", .env = "NSYS_GATE_CHANGES_JUNIT", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = C(junit), .meta = "FILE",
      .help = "a testcase per gate (JUnit)" },
    { .flag = "accept", .env = "NSYS_GATE_ACCEPT", .takes = NG_OPTION_COMMAS,
      .parse = set_accept, .meta = "FILE",
      .help = "acknowledged changes (JSON Lines; repeatable, the variable comma-separated)" },
    { .flag = "history-match", .env = "NSYS_GATE_HISTORY_MATCH", .takes = NG_OPTION_COMMAS,
      .parse = set_match, .meta = "KEY=VALUE",
      .help = "only runs with this context (repeatable, the variable comma-separated)" },
    NG_OPTIONS_HELP(struct ng_changes_opts, show_help),
};

static const struct ng_options table = {
    .rows = rows,
    .n = sizeof rows / sizeof rows[0],
    .command = "changes",
    .prefix = "changes: ",
    .usage = "[OPTIONS] HISTORY.jsonl...",
    .about = "Finds the change points of every gate's history; exits 1 when a gate's latest\n"
             "runs follow a regression nobody acknowledged.",
    .operand = take_history,
    .keep = keep,
};

const struct ng_options *ng_changes_options(void)
{
    return &table;
}

void ng_changes_help(FILE *out)
{
    ng_options_help(out, &table);
}

void ng_changes_opts_release(struct ng_changes_opts *o)
{
    ng_strv_free(&o->kept, &o->n_kept);
}

int ng_changes_parse(struct ng_changes_opts *o, int argc, char **argv, struct ng_err *err)
{
    memset(o, 0, sizeof *o);
    o->p_max = NG_CP_DEFAULT_P;
    o->min_change = NG_CP_DEFAULT_MIN_CHANGE;
    o->window = NG_CP_DEFAULT_WINDOW;
    if (ng_options_parse(&table, o, argc, argv, err) < 0)
        return -1;
    if (!o->show_help && o->n_histories == 0)
        return ng_err_set(err, "changes: no history file given (nsys-gate changes "
                               "HISTORY.jsonl...)");
    return 0;
}

/* ---- the series ---- */

struct run {
    double ms;
    char *commit, *run_url;
    time_t timestamp;
    size_t position;           /* its line in its file */
    const char *file;
};

struct series {
    char *name;
    char *setup;               /* "mode total, metric kernel-sum, work kernels,graphs" */
    struct run *runs;
    size_t n, cap;
};

struct reading {
    const struct ng_changes_opts *o;
    struct ng_trend_scan scan;
    struct ng_context match;
    struct ng_strmap keys;
    struct series *series;
    size_t n_series;
    const char *file;
};

static const char *or_default(const char *s, const char *d)
{
    return s && *s ? s : d;
}

static int holds_match(const struct reading *rd, const struct ng_verdict *v)
{
    for (size_t i = 0; i < rd->match.n; i++) {
        const char *got = ng_context_get(&v->context, rd->match.items[i].key);
        if (!got || strcmp(got, rd->match.items[i].value) != 0)
            return 0;
    }
    return 1;
}

/* What a series takes of a run, from either reader. */
struct seen {
    const char *name, *mode, *metric, *work, *commit, *run_url;
    double ms;
    time_t timestamp;
    size_t line;
};

/* Both readers give mode, metric and work alike (history/ng_trend_scan.h),
 * so a run lands in the same series whichever read it. */
static void add_run(struct reading *rd, const struct seen *r)
{
    struct ng_buf key = NG_BUF_INIT;
    int added;
    const char *mode = or_default(r->mode, "total"), *metric = or_default(r->metric, "kernel-sum");
    const char *work = or_default(r->work, "kernels,graphs");

    ng_buf_addf(&key, "%s\n%s\n%s\n%s", r->name, mode, metric, work);
    size_t i = ng_strmap_get(&rd->keys, key.data, key.len, rd->n_series, &added);
    if (added) {
        rd->series = ng_xgrow(rd->series, rd->n_series, sizeof *rd->series);
        struct series *s = &rd->series[rd->n_series++];
        memset(s, 0, sizeof *s);
        s->name = ng_xstrdup(r->name);
        struct ng_buf setup = NG_BUF_INIT;
        ng_buf_addf(&setup, "mode %s, metric %s, work %s", mode, metric, work);
        s->setup = ng_buf_detach(&setup);
    }
    ng_buf_release(&key);
    struct series *s = &rd->series[i];
    if (s->n == s->cap)
        s->cap = s->cap ? 2 * s->cap : 64, s->runs = ng_xrealloc(s->runs, s->cap * sizeof *s->runs);
    s->runs[s->n++] = (struct run){ r->ms, r->commit ? ng_xstrdup(r->commit) : NULL,
                                    r->run_url ? ng_xstrdup(r->run_url) : NULL, r->timestamp,
                                    r->line, rd->file };
}

static int take_run(struct ng_history_entry *e, void *ctx)
{
    struct reading *rd = ctx;
    const struct ng_verdict *v = &e->doc.v;

    if (v->outcome == NG_OUTCOME_ERROR || !v->has_figures || !isfinite(v->current.ms_per_epoch) ||
        !holds_match(rd, v))
        return 0;
    struct seen r = { v->name, v->mode, v->metric, v->work, ng_context_get(&v->context, "commit"),
                      ng_context_get(&v->context, "run_url"), v->current.ms_per_epoch,
                      v->timestamp, e->line };
    add_run(rd, &r);
    return 0;
}

/* A line: the trend scanner's few figures when it can tell (a history of
 * 200 gates x 1000 nights is a gigabyte of lines), else the whole verdict
 * (and always with --history-match, whose keys the scanner does not keep). */
static int take_line(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    struct reading *rd = ctx;
    struct ng_trend_scan *sc = &rd->scan;

    if (rd->match.n > 0 || ng_trend_scan_line(sc, l->text, l->len) != 0)
        return ng_history_verdict_line(l, take_run, rd, err);
    if (sc->outcome == NG_OUTCOME_ERROR || !sc->has_figures || !isfinite(sc->current_ms))
        return 0;
    struct seen r = { sc->name, sc->mode, sc->metric, sc->work, sc->commit, sc->run_url,
                      sc->current_ms, sc->timestamp, l->line };
    add_run(rd, &r);
    return 0;
}

static void series_release(struct series *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->runs[i].commit), free(s->runs[i].run_url);
    free(s->runs);
    free(s->name);
    free(s->setup);
}

/* ---- the changes ---- */

struct change {
    const struct series *s;
    const struct run *good, *bad;
    struct ng_series_change sc;   /* the change point, judged */
    char *top;                    /* a regression's first bad run's top contributor, or NULL */
};

/* The top contributor of each regression's first bad run (what its own
 * verdict's attribution puts first), in a second pass over a file: the
 * scanner keeps no kernels, so only those few lines are read whole.  A
 * file that cannot be read again (a pipe) leaves them unnamed. */
struct tops {
    struct change *ch;
    size_t n;
    const char *file;
};

static int take_top(struct ng_history_entry *e, void *ctx)
{
    char **top = ctx;
    struct ng_buf t = NG_BUF_INIT;
    if (ng_verdict_text_top_contributor(&e->doc.v, &t))
        *top = ng_buf_detach(&t);
    ng_buf_release(&t);
    return 0;
}

static int top_line(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    struct tops *t = ctx;
    for (size_t k = 0; k < t->n; k++) {
        struct change *c = &t->ch[k];
        if (c->sc.regression && !c->top && c->bad->file == t->file && c->bad->position == l->line)
            return ng_history_verdict_line(l, take_top, &c->top, err);
    }
    return 0;
}

static void find_tops(const struct ng_changes_opts *o, struct change *ch, size_t n)
{
    for (size_t i = 0; i < o->n_histories && n > 0; i++) {
        struct ng_history h = NG_HISTORY_INIT;
        struct tops t = { ch, n, o->histories[i] };
        struct ng_err ignored;
        (void)ng_history_read_path_lines(&h, o->histories[i], top_line, &t, &ignored);
        ng_history_release(&h);
    }
}

static int newest_first(const void *pa, const void *pb)
{
    const struct change *a = pa, *b = pb;
    if (a->bad->timestamp != b->bad->timestamp)
        return a->bad->timestamp > b->bad->timestamp ? -1 : 1;
    int c = strcmp(a->s->name, b->s->name);
    if (c)
        return c;
    return a->sc.cp.at > b->sc.cp.at ? -1 : a->sc.cp.at < b->sc.cp.at;
}

/* The series as a job of figures and commits (the arrays the caller's). */
static struct ng_series_job series_job(const struct series *s)
{
    double *x = ng_xmalloc((s->n + 1) * sizeof *x);
    const char **commits = ng_xmalloc((s->n + 1) * sizeof *commits);

    for (size_t k = 0; k < s->n; k++) {
        x[k] = s->runs[k].ms;
        commits[k] = s->runs[k].commit;
    }
    return (struct ng_series_job){ s->name, x, commits, s->n, NULL, 0 };
}

/* The series' judged changes appended to *ch; 1 when its latest runs
 * follow an unacknowledged regression.  Frees the job. */
static int take_judged(const struct series *s, struct ng_series_job *j, struct change **ch,
                       size_t *n_ch)
{
    *ch = ng_xrealloc(*ch, (*n_ch + j->n_changes + 1) * sizeof **ch);
    for (size_t k = 0; k < j->n_changes; k++)
        (*ch)[(*n_ch)++] = (struct change){ s, &s->runs[j->changes[k].cp.at - 1],
                                            &s->runs[j->changes[k].cp.at], j->changes[k], NULL };
    int standing = ng_series_standing(j->changes, j->n_changes);
    free(j->changes);
    free(j->x);
    free(j->commits);
    return standing;
}

static void short_commit(char *buf, size_t size, const char *c)
{
    snprintf(buf, size, "%.7s", c ? c : "(no commit)");
}

static void day_of(char *buf, size_t size, time_t t)
{
    if (t > 0) {
        ng_fmt_utc(buf, size, t, 0);
        buf[size > 10 ? 10 : size - 1] = 0;
    } else
        snprintf(buf, size, "(no date)");
}

static void human_line(struct ng_buf *b, const struct change *c)
{
    char bad[16], good[16], day[32];
    short_commit(bad, sizeof bad, c->bad->commit);
    short_commit(good, sizeof good, c->good->commit);
    day_of(day, sizeof day, c->bad->timestamp);
    ng_buf_addf(b, "%s: %s %.2fx at %s (%s, line %zu; last good %s)  %.1f -> %.1f ms/epoch  p=%.1e",
                c->s->name, c->sc.regression ? "regression" : "improvement", c->sc.cp.magnitude,
                bad, day, c->bad->position, good, c->sc.cp.before, c->sc.cp.after, c->sc.cp.p_value);
    if (c->top) {
        ng_buf_adds(b, "  ");
        ng_text_clean(b, c->top, strlen(c->top), NG_TEXT_ESCAPE_CONTROLS);
    }
    if (c->sc.ack)
        ng_buf_addf(b, "  acknowledged by %s until %s: %s", c->sc.ack->author, c->sc.ack->expires,
                    c->sc.ack->reason);
    else if (c->sc.regression)
        ng_buf_addf(b, "  %s%s", c->sc.expired ? "acknowledgement expired; " : "",
                    c->sc.standing ? "STANDING (not acknowledged)" : "not acknowledged");
    ng_buf_adds(b, "\n");
}

static cJSON *run_json(const struct run *r)
{
    cJSON *o = cJSON_CreateObject();
    char ts[32];
    cJSON_AddItemToObject(o, "commit", r->commit ? cJSON_CreateString(r->commit) : cJSON_CreateNull());
    if (r->timestamp > 0) {
        ng_fmt_utc(ts, sizeof ts, r->timestamp, 1);
        cJSON_AddStringToObject(o, "timestamp", ts);
    } else
        cJSON_AddNullToObject(o, "timestamp");
    cJSON_AddItemToObject(o, "run_url", r->run_url ? cJSON_CreateString(r->run_url) : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "file", r->file);
    cJSON_AddNumberToObject(o, "position", (double)r->position);
    return o;
}

/* A figure as the verdict's JSON writes one: ms to the nanosecond, a ratio
 * or p in its shortest exact form, never cJSON's 17 digits of noise. */
static void add_figure(cJSON *o, const char *key, double v, void (*fmt)(char *, size_t, double))
{
    char buf[40];

    if (v != v || v - v != 0) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    fmt(buf, sizeof buf, v);
    cJSON_AddRawToObject(o, key, buf);
}

static char *json_report(const struct change *c, size_t n, const struct series *s, size_t n_series,
                         const int *standing)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "changes");
    cJSON_AddStringToObject(root, "tool", NG_TOOL_NAME);
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gate", c[i].s->name);
        cJSON_AddStringToObject(o, "setup", c[i].s->setup);
        cJSON_AddItemToObject(o, "last_good", run_json(c[i].good));
        cJSON_AddItemToObject(o, "first_bad", run_json(c[i].bad));
        cJSON_AddStringToObject(o, "direction", c[i].sc.regression ? "regression" : "improvement");
        add_figure(o, "magnitude", c[i].sc.cp.magnitude, ng_fmt_double);
        add_figure(o, "before_ms", c[i].sc.cp.before, ng_fmt_ms);
        add_figure(o, "after_ms", c[i].sc.cp.after, ng_fmt_ms);
        add_figure(o, "p_value", c[i].sc.cp.p_value, ng_fmt_double);
        cJSON_AddBoolToObject(o, "acknowledged", c[i].sc.ack != NULL);
        if (c[i].sc.ack) {
            cJSON_AddStringToObject(o, "reason", c[i].sc.ack->reason);
            cJSON_AddStringToObject(o, "author", c[i].sc.ack->author);
            cJSON_AddStringToObject(o, "expires", c[i].sc.ack->expires);
        }
        cJSON_AddBoolToObject(o, "ack_expired", c[i].sc.expired && !c[i].sc.ack);
        cJSON_AddBoolToObject(o, "standing", c[i].sc.standing);
        cJSON_AddItemToArray(arr, o);
    }
    cJSON *gates = cJSON_AddArrayToObject(root, "gates");
    for (size_t i = 0; i < n_series; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gate", s[i].name);
        cJSON_AddStringToObject(o, "setup", s[i].setup);
        cJSON_AddNumberToObject(o, "runs", (double)s[i].n);
        cJSON_AddBoolToObject(o, "standing_regression", standing[i]);
        cJSON_AddItemToArray(gates, o);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

static char *junit_report(const struct change *c, size_t n, const struct series *s,
                          size_t n_series, const int *standing)
{
    struct ng_buf b = NG_BUF_INIT;
    size_t failures = 0;
    for (size_t i = 0; i < n_series; i++)
        failures += standing[i] != 0;
    char ts[32];
    ng_fmt_utc(ts, sizeof ts, ng_util_report_time(), 0);
    ng_buf_addf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"nsys-gate changes\" "
                    "timestamp=\"%s\" hostname=\"localhost\" tests=\"%zu\" failures=\"%zu\" "
                    "errors=\"0\" skipped=\"0\" time=\"0.000\">\n  <properties/>\n",
                ts, n_series, failures);
    for (size_t i = 0; i < n_series; i++) {
        ng_buf_adds(&b, "  <testcase classname=\"nsys-gate.changes\" name=\"");
        ng_html_escape_attr(&b, s[i].name);
        ng_buf_adds(&b, "\"");
        if (!standing[i]) {
            ng_buf_adds(&b, " time=\"0.000\"/>\n");
            continue;
        }
        ng_buf_adds(&b, " time=\"0.000\">\n    <failure type=\"regression\" message=\"");
        for (size_t k = 0; k < n; k++)
            if (c[k].s == &s[i] && c[k].sc.standing) {
                struct ng_buf line = NG_BUF_INIT;
                human_line(&line, &c[k]);
                line.data[line.len - 1] = 0;
                ng_html_escape_attr(&b, line.data);
                ng_buf_release(&line);
            }
        ng_buf_adds(&b, "\"/>\n  </testcase>\n");
    }
    ng_buf_adds(&b, "  <system-out/>\n  <system-err/>\n</testsuite>\n");
    return ng_buf_detach(&b);
}

static int write_reports(const struct ng_changes_opts *o, const struct change *c, size_t n,
                         const struct series *s, size_t n_series, const int *standing,
                         struct ng_err *err)
{
    int ret = 0;
    if (o->json) {
        char *t = json_report(c, n, s, n_series, standing);
        struct ng_buf b = NG_BUF_INIT;
        ng_buf_adds(&b, t);
        ng_buf_adds(&b, "\n");
        free(t);
        ret |= ng_write_file_atomic(o->json, b.data, b.len, err);
        ng_buf_release(&b);
    }
    if (o->junit) {
        char *t = junit_report(c, n, s, n_series, standing);
        struct ng_err e2;
        if (ng_write_file_atomic(o->junit, t, strlen(t), ret ? &e2 : err) < 0)
            ret = -1;
        free(t);
    }
    return ret < 0 ? -1 : 0;
}

int ng_changes_run(const struct ng_changes_opts *o, struct ng_changes_result *r,
                   struct ng_err *err)
{
    struct reading rd = { o, NG_TREND_SCAN_INIT, { NULL, 0 }, NG_STRMAP_INIT, NULL, 0, NULL };
    struct ng_accept acc = NG_ACCEPT_INIT;
    struct change *ch = NULL;
    size_t n_ch = 0;
    int *standing = NULL;
    int ret = 0;
    struct ng_cp_opts co = { o->p_max, o->min_change, (size_t)o->window };
    time_t now = ng_util_report_time();

    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < o->n_match; i++) {
        const char *eq = strchr(o->match[i], '=');
        char *key = ng_xstrndup(o->match[i], (size_t)(eq - o->match[i]));
        ng_context_set(&rd.match, key, eq + 1);
        free(key);
    }
    for (size_t i = 0; ret == 0 && i < o->n_accept; i++)
        ret = ng_accept_read(&acc, o->accept[i], err);
    for (size_t i = 0; ret == 0 && i < o->n_histories; i++) {
        struct ng_history h = NG_HISTORY_INIT;
        rd.file = o->histories[i];
        ret = ng_history_read_path_lines(&h, o->histories[i], take_line, &rd, err);
        for (size_t k = 0; k < h.n_warnings; k++)
            ng_strv_push(&r->warnings, &r->n_warnings, ng_xstrdup(h.warnings[k]));
        ng_history_release(&h);
    }
    standing = ng_xcalloc(rd.n_series + 1, sizeof *standing);
    if (ret == 0) {
        struct ng_series_job *jobs = ng_xcalloc(rd.n_series + 1, sizeof *jobs);
        for (size_t i = 0; i < rd.n_series; i++)
            jobs[i] = series_job(&rd.series[i]);
        ret = ng_series_judge_all(jobs, rd.n_series, 0, &co, &acc, now, err);
        for (size_t i = 0; i < rd.n_series; i++) {
            standing[i] = take_judged(&rd.series[i], &jobs[i], &ch, &n_ch);
            r->standing += standing[i] != 0;
        }
        free(jobs);
    }
    if (ret == 0) {
        struct ng_buf b = NG_BUF_INIT;
        ng_sort(ch, n_ch, sizeof *ch, newest_first);
        find_tops(o, ch, n_ch);
        for (size_t k = 0; k < n_ch; k++)
            human_line(&b, &ch[k]);
        ng_buf_addf(&b, "%zu change%s in %zu gate%s; %zu standing regression%s\n", n_ch,
                    n_ch == 1 ? "" : "s", rd.n_series, rd.n_series == 1 ? "" : "s", r->standing,
                    r->standing == 1 ? "" : "s");
        r->text = ng_buf_detach(&b);
        r->gates = rd.n_series;
        r->changes = n_ch;
        ret = write_reports(o, ch, n_ch, rd.series, rd.n_series, standing, err);
    }
    for (size_t k = 0; k < n_ch; k++)
        free(ch[k].top);
    free(ch);
    free(standing);
    for (size_t i = 0; i < rd.n_series; i++)
        series_release(&rd.series[i]);
    free(rd.series);
    ng_strmap_release(&rd.keys);
    ng_context_release(&rd.match);
    ng_trend_scan_release(&rd.scan);
    ng_accept_release(&acc);
    return ret;
}

int ng_changes_exit_code(const struct ng_changes_result *r, int failed)
{
    return failed ? 2 : r->standing ? 1 : 0;
}

void ng_changes_result_release(struct ng_changes_result *r)
{
    free(r->text);
    ng_strv_free(&r->warnings, &r->n_warnings);
    r->text = NULL;
}
