#include "dashboard/ng_dashboard.h"

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

#include "core/ng_verdict_text.h"
#include "util/ng_file.h"
#include "history/ng_history.h"
#include "html/ng_html.h"
#include "util/ng_oom.h"
#include "history/ng_scan.h"
#include "util/ng_signal.h"
#include "html/ng_svg.h"
#include "util/ng_util.h"
#include "util/ng_version.h"
#include "util/ng_text.h"

#define DEFAULT_DIR "dashboard"
#define DEFAULT_TITLE "nsys-gate dashboard"
#define DEFAULT_DETAILS 20
#define MARKER ".nsys-gate-dashboard"
/* index.html shares about this many points among the gates' charts
 * (between INDEX_MIN and PAGE_POINTS a gate): a point with its link and
 * tooltip is about 250 bytes, so 200 gates of a thousand runs each stay
 * well under 8 MB; a gate's own page draws up to PAGE_POINTS. */
#define INDEX_POINTS 16000
#define INDEX_MIN 40
#define PAGE_POINTS 1000
#define SPARK_RUNS 30
#define TABLE_RUNS 100

/* ---- options ---- */

struct dash_opt {
    const char *flag;          /* without "--" */
    char short_flag;
    const char *env;
    const char *meta;          /* NULL: a switch */
    const char *help;
};

static const struct dash_opt dash_opts[] = {
    { "output", 'o', "NSYS_GATE_DASHBOARD_DIR", "DIR",
      "the site's directory (default " DEFAULT_DIR "), replaced whole" },
    { "title", 0, "NSYS_GATE_DASHBOARD_TITLE", "TEXT", "the pages' title (default " DEFAULT_TITLE ")" },
    { "commit-url", 0, "NSYS_GATE_COMMIT_URL", "URL",
      "where a run without a CI run URL links: {commit} is replaced by its commit" },
    { "details", 0, "NSYS_GATE_DASHBOARD_DETAILS", "N",
      "runs of each gate with a section of their own (default 20)" },
    { "quiet", 0, NULL, NULL, "no summary line on stdout" },
    { "help", 0, NULL, NULL, "this text" },
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
        fprintf(out, "  %-26s %s%s%s%s\n", left + (d->short_flag ? 0 : 1), d->help,
                d->env ? " [" : "", d->env ? d->env : "", d->env ? "]" : "");
    }
}

static int set_value(struct ng_dashboard_opts *o, size_t i, const char *where, const char *v,
                     struct ng_err *err)
{
    char *shown;
    long n = 0;
    const char *p;

    switch (i) {
    case 0: o->out_dir = v; break;
    case 1: o->title = v; break;
    case 2: o->commit_url = v; break;
    case 3:
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
        if (opt == 4)
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

/* ---- thinning ---- */

size_t ng_dashboard_thin(const enum ng_outcome *o, size_t n, size_t budget, unsigned char *keep,
                         size_t *every)
{
    size_t kept = 0;

    if (budget < 4)
        budget = 4;
    *every = 1;
    if (n <= budget) {
        memset(keep, 1, n);
        return n;
    }
    size_t recent = budget / 2, older = n - recent, room = budget - recent;
    size_t k = (older + room - 1) / room, extra = budget / 4;
    *every = k;
    for (size_t i = 0; i < older; i++)
        kept += keep[i] = i % k == 0;
    for (size_t i = older; i-- > 0 && extra > 0;) {
        if (!keep[i] && o[i] != NG_OUTCOME_PASS) {
            keep[i] = 1;
            kept++;
            extra--;
        }
    }
    memset(keep + older, 1, recent);
    return kept + recent;
}

/* ---- what is kept of a run ---- */

struct run {
    time_t ts;
    size_t file, line;         /* line: in its part of the file (for messages: runs
                                  are ordered by offset) */
    unsigned char part;        /* that part, whose first line is line_base[file][part] */
    size_t seq;                /* its number in the gate's series, from 1 */
    enum ng_outcome outcome;
    int has_figures, has_p;
    double ratio, p, threshold, base_ms, cur_ms, lo, hi;
    const char *commit, *run_url;   /* in the site's arena; NULL when unknown */
    /* where its line starts in its file; while it is one of the latest
     * --details runs, its line is read whole from there once every file
     * is read, or for a history that cannot be read again (a pipe) from a
     * copy in text */
    unsigned long long at;
    char *text;
    size_t text_len;
    struct ng_verdict_doc *doc;   /* the whole verdict, for the latest --details runs */
};

struct gate {
    char *name;
    char slug[64];
    struct run *runs;
    size_t n;
    size_t *held;              /* the runs holding their line (at most details; grown) */
    size_t n_held;
};

#define THREADS 2          /* parts a history is read as, and pages written, at once */

struct site {
    const struct ng_dashboard_opts *o;
    struct ng_strmap names;
    struct ng_arena strings;   /* the runs' commits and URLs */
    struct gate *gates;
    size_t n_gates;
    size_t file;               /* the history being read */
    int fds[NG_DASHBOARD_MAX_HISTORIES];   /* each history open, until its latest runs are
                                              read (-1: closed) */
    /* the lines before each part of each history (known once the parts
     * before it are read: a part numbers its lines from 0) */
    size_t line_base[NG_DASHBOARD_MAX_HISTORIES][THREADS];
    size_t runs;
    time_t now;                /* when the site is written, on every page */
    struct ng_dashboard_result *r;
};

static const char *keep_or_null(struct site *s, const char *text)
{
    return text && *text ? ng_arena_strdup(&s->strings, text) : NULL;
}

static int run_later(const struct run *a, const struct run *b)
{
    if (a->ts != b->ts)
        return a->ts > b->ts;
    if (a->file != b->file)
        return a->file > b->file;
    return a->at > b->at;
}

/* Keeps the line of the latest runs only (to be read whole later): a run
 * newer than the oldest held takes its place. */
static void hold(struct site *s, struct gate *g, size_t idx, const struct ng_history_line *l,
                 int again)
{
    size_t slot = g->n_held;

    if (g->n_held == (size_t)s->o->details) {
        slot = 0;
        for (size_t i = 1; i < g->n_held; i++)
            if (run_later(&g->runs[g->held[slot]], &g->runs[g->held[i]]))
                slot = i;
        struct run *oldest = &g->runs[g->held[slot]];
        if (!run_later(&g->runs[idx], oldest))
            return;
        free(oldest->text);
        oldest->text = NULL;
    } else {
        /* grown as runs come, not --details slots for every gate at once */
        g->held = ng_xgrow(g->held, g->n_held, sizeof *g->held);
        g->n_held++;
    }
    g->held[slot] = idx;
    g->runs[idx].text = again ? NULL : ng_xstrndup(l->text, l->len);
    g->runs[idx].text_len = l->len;
}

static void make_slug(struct gate *g)
{
    size_t n = 0;
    int dash = 1;

    for (const unsigned char *p = (const unsigned char *)g->name; *p && n < 40; p++) {
        unsigned char c = *p >= 'A' && *p <= 'Z' ? (unsigned char)(*p + 32) : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.') {
            g->slug[n++] = (char)c;
            dash = 0;
        } else if (!dash) {
            g->slug[n++] = '-';
            dash = 1;
        }
    }
    /* the hash keeps names that clean alike ("a b", "a/b") apart */
    snprintf(g->slug + n, sizeof g->slug - n, "%s%012llx", n && !dash ? "-" : "",
             (unsigned long long)(ng_hash(g->name, strlen(g->name)) & 0xFFFFFFFFFFFFull));
}

static struct gate *gate_of(struct site *s, const char *name)
{
    int added;
    size_t i = ng_strmap_get(&s->names, name, strlen(name), s->n_gates, &added);

    if (added) {
        s->gates = ng_xgrow(s->gates, s->n_gates, sizeof *s->gates);
        struct gate *g = &s->gates[s->n_gates++];
        memset(g, 0, sizeof *g);
        g->name = ng_xstrdup(name);
        make_slug(g);
    }
    return &s->gates[i];
}

/* again: the line can be read again from the file (else it is copied
 * while the run is one of the latest). */
static void take_run(struct site *s, const struct ng_scan *v, const struct ng_history_line *l,
                     unsigned char part, int again)
{
    struct gate *g = gate_of(s, v->name);

    g->runs = ng_xgrow(g->runs, g->n, sizeof *g->runs);
    struct run *r = &g->runs[g->n];
    *r = (struct run){
        .ts = v->timestamp,
        .file = s->file,
        .line = l->line,
        .part = part,
        .at = l->offset,
        .outcome = v->outcome,
        .has_figures = v->has_figures,
        .has_p = v->has_p,
        .ratio = v->ratio,
        .p = v->p_value,
        .threshold = v->threshold,
        .base_ms = v->baseline_ms,
        .cur_ms = v->current_ms,
        .lo = v->current_min_ms,
        .hi = v->current_max_ms,
        .commit = keep_or_null(s, v->commit),
        .run_url = keep_or_null(s, v->run_url),
    };
    g->n++;
    s->runs++;
    hold(s, g, g->n - 1, l, again);
}

static void add_warning(struct ng_dashboard_result *r, char *w)
{
    ng_strv_push(&r->warnings, &r->n_warnings, w);
}

/* ---- reading, in parallel ----
 *
 * Reading the JSON is most of the time a big history takes, so a file is
 * read as up to THREADS parts at once, each part a run of whole lines,
 * each through ng_history on its own: a part is the file's bytes in
 * place (mapped) or a stream over its byte range.  A part numbers its
 * lines from 0; once the parts before it are read its warnings are
 * renumbered and its line base kept for its runs' messages, so both name
 * the file's own lines without a pass that counts them first.  A line is scanned for its chart's
 * figures (ng_scan), or read whole where the scanner cannot tell; the
 * latest runs of each gate keep their line, read whole once every file
 * is read.  What the parts read is put together under a lock (runs are
 * ordered later, by time, file and line). */

#define READ_BUF ((size_t)1 << 20)
/* A part maps this much of the file at a time: mapped pages count in the
 * process's RSS, so it holds one window, not the file. */
#define WINDOW ((size_t)8 << 20)

/* fn(arg) on THREADS threads at once (this one among them), or on this
 * one alone for fewer than two items or one core; fn takes its items
 * from arg under its own lock until none is left. */
static void on_threads(void *(*fn)(void *), void *arg, size_t items)
{
    pthread_t threads[THREADS];
    size_t n = items > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? THREADS : 1;

    for (size_t i = 1; i < n; i++)
        if (pthread_create(&threads[i], NULL, fn, arg) != 0)
            threads[i] = 0;
    fn(arg);
    for (size_t i = 1; i < n; i++)
        if (threads[i])
            pthread_join(threads[i], NULL);
}
/* Below this a file is read as one part: threads would cost more. */
#define SPLIT_MIN (4u << 20)

struct part {
    int fd;
    unsigned char index;       /* which part of the file */
    int seekable;              /* a regular file (else read as it comes: a pipe, a FIFO) */
    int mapped;                /* read a window at a time in place (else into buf) */
    struct ng_file_window window;   /* the window being read */
    char *buf;
    off_t from;                /* where the part starts */
    off_t at, end;             /* the byte range still to read */
    const char *path;
    struct site *s;
    pthread_mutex_t *lock;
    struct ng_history h;
    struct ng_scan scan;       /* the figures of the line being read */
    struct ng_err err;
    int ret;
};

/* The part's next window, mapped: 1, 0 at its end, -1 (errno) when it
 * cannot be mapped. */
static int next_window(struct part *p, const char **chunk, size_t *len)
{
    ng_file_unmap(&p->window);
    if (p->at >= p->end)
        return 0;
    size_t n = (size_t)(p->end - p->at) < WINDOW ? (size_t)(p->end - p->at) : WINDOW;
    if (ng_file_map(p->fd, (unsigned long long)p->at, n, &p->window) < 0)
        return -1;
    *chunk = p->window.data;
    *len = n;
    p->at += (off_t)n;
    return 1;
}

/* The part's next bytes: a window of the file in place where it can be
 * mapped (every regular file, as a rule), else read into a buffer. */
static int next_chunk(void *ctx, const char **chunk, size_t *len)
{
    struct part *p = ctx;
    if (p->mapped) {
        int got = next_window(p, chunk, len);
        if (got >= 0)
            return got;
        p->mapped = 0;   /* a window that cannot be mapped: the rest is read instead */
    }
    if (!p->buf)
        p->buf = ng_xmalloc(READ_BUF);
    size_t want = (size_t)(p->end - p->at) < READ_BUF ? (size_t)(p->end - p->at) : READ_BUF;
    ssize_t n;
    do
        n = p->seekable ? pread(p->fd, p->buf, want, p->at) : read(p->fd, p->buf, want);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n < 0 ? -1 : 0;
    p->at += n;
    *chunk = p->buf;
    *len = (size_t)n;
    return 1;
}

/* A line's figures, from the scanner or, where it cannot tell, from the
 * whole verdict (whose reader says what is wrong with a bad line). */
static int take_line(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    struct part *p = ctx;

    if (ng_scan_line(&p->scan, l->text, l->len) != 0) {
        struct ng_verdict_doc doc;
        int ret = ng_verdict_doc_read(&doc, l->text, l->len, err);
        if (ret == 0)
            ng_scan_of_verdict(&p->scan, &doc.v);
        ng_verdict_doc_release(&doc);
        if (ret < 0)
            return -1;
    }
    pthread_mutex_lock(p->lock);
    take_run(p->s, &p->scan, l, p->index, p->seekable);
    pthread_mutex_unlock(p->lock);
    return 0;
}

static int got_shorter(const char *path, struct ng_err *err)
{
    char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "the history '%s' got shorter while it was read", shown);
    free(shown);
    return -1;
}

static void read_chunks(void *arg)
{
    struct part *p = arg;
    p->ret = ng_history_read_chunks(&p->h, next_chunk, p, p->path, take_line, p, &p->err);
}

static void *read_part(void *arg)
{
    struct part *p = arg;

    ng_oom_doing("reading the history '%s'", p->path);
    p->h.offset = (unsigned long long)p->at;
    if (ng_file_guarded(read_chunks, p) < 0)
        p->ret = got_shorter(p->path, &p->err);
    ng_file_unmap(&p->window);
    free(p->buf);
    p->buf = NULL;
    ng_oom_doing(NULL);
    return NULL;
}

/* Where the line holding byte `at` ends: the parts split between lines. */
static off_t boundary(int fd, off_t at, off_t size)
{
    char buf[65536];
    while (at < size) {
        ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n <= 0)
            return size;
        char *nl = memchr(buf, '\n', (size_t)n);
        if (nl)
            return at + (nl - buf) + 1;
        at += n;
    }
    return size;
}

/* Where part i of n ends: even shares, since no part counts the lines
 * of another. */
static off_t split_at(off_t size, size_t i, size_t n)
{
    return size / (off_t)n * (off_t)(i + 1);
}

static int read_file(struct site *s, const char *path, struct ng_err *err)
{
    struct part parts[THREADS];
    pthread_t threads[THREADS];
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct stat st;
    /* under the shared lock ng_history_read() takes: appends wait until the
     * latest runs' lines are read again */
    int fd = ng_history_open(path, err);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0) {
        char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(err, "unable to open '%s': %s", shown, strerror(errno));
        free(shown);
        close(fd);
        return -1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = S_ISREG(st.st_mode) && st.st_size >= (off_t)SPLIT_MIN && cpus > 1 ? THREADS : 1;
    off_t from = 0;
    for (size_t i = 0; i < n; i++) {
        off_t to = i + 1 == n ? (S_ISREG(st.st_mode) ? st.st_size : (off_t)1 << 62)
                              : boundary(fd, split_at(st.st_size, i, n), st.st_size);
        parts[i] = (struct part){ .fd = fd, .index = (unsigned char)i,
                                  .seekable = S_ISREG(st.st_mode),
                                  .mapped = S_ISREG(st.st_mode), .from = from, .at = from,
                                  .end = to, .path = path, .s = s, .lock = &lock,
                                  .h = NG_HISTORY_INIT, .scan = NG_SCAN_INIT };
        from = to;
    }
    for (size_t i = 1; i < n; i++)
        if (pthread_create(&threads[i], NULL, read_part, &parts[i]) != 0)
            read_part(&parts[i]), threads[i] = 0;
    read_part(&parts[0]);
    int ret = parts[0].ret;
    if (ret < 0)
        *err = parts[0].err;
    /* each part after the first joins the first, in order: its lines
     * renumbered, its warnings after the ones before it under one cap */
    for (size_t i = 1; i < n; i++) {
        if (threads[i])
            pthread_join(threads[i], NULL);
        s->line_base[s->file][i] = parts[0].h.lines;
        ng_history_join(&parts[0].h, &parts[i].h, path);
        ng_scan_release(&parts[i].scan);
        if (ret == 0 && parts[i].ret < 0) {
            ret = -1;
            *err = parts[i].err;
        }
    }
    struct stat now;   /* a cut inside the last page reads as NULs, not a fault */
    if (ret == 0 && S_ISREG(st.st_mode) && fstat(fd, &now) == 0 && now.st_size < st.st_size)
        ret = got_shorter(path, err);
    size_t verdicts = parts[0].h.verdicts;
    for (size_t k = 0; k < parts[0].h.n_warnings; k++) {
        add_warning(s->r, parts[0].h.warnings[k]);
        parts[0].h.warnings[k] = NULL;
    }
    ng_history_release(&parts[0].h);
    ng_scan_release(&parts[0].scan);
    if (S_ISREG(st.st_mode))
        s->fds[s->file] = fd;   /* kept for the latest runs' lines */
    else
        close(fd);
    if (ret == 0 && verdicts == 0) {
        struct ng_buf b = NG_BUF_INIT;
        char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_addf(&b, "'%s' holds no verdict", shown);
        free(shown);
        add_warning(s->r, ng_buf_detach(&b));
    }
    return ret;
}

/* The latest runs' lines read whole, by THREADS threads at once (each
 * run its own verdict), from their files again or from their copies. */
struct held {
    const struct site *s;
    struct run **runs;
    size_t n;
    pthread_mutex_t lock;
    size_t next;
    int ret;
    struct ng_err err;         /* the first failure */
};

/* Run r's line, again.  It was read once (scanned, which answers only for
 * lines the full reader takes, or read whole), under the shared lock that
 * is still held: the same bytes fail only when the file was changed in
 * place meanwhile (where locks do not work), or cJSON ran out of memory. */
struct line_buf {
    char *data;
    size_t cap;
};

static int read_run(const struct site *s, struct run *r, struct line_buf *b, struct ng_err *err)
{
    const char *text = r->text;

    if (!text) {
        if (b->cap < r->text_len + 1) {
            b->data = ng_xrealloc(b->data, r->text_len + 1);
            b->cap = r->text_len + 1;
        }
        ssize_t n;
        do
            n = pread(s->fds[r->file], b->data, r->text_len, (off_t)r->at);
        while (n < 0 && errno == EINTR);
        text = n == (ssize_t)r->text_len ? b->data : NULL;
    }
    struct ng_verdict_doc *doc = ng_xcalloc(1, sizeof *doc);
    if (text && ng_verdict_doc_read(doc, text, r->text_len, err) == 0) {
        r->doc = doc;
        return 0;
    }
    ng_verdict_doc_release(doc);   /* all zeros, or what a failed read left */
    free(doc);
    char *shown = ng_text_cleaned(s->o->histories[r->file], NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "the history '%s' changed while it was read (line %zu)", shown,
               s->line_base[r->file][r->part] + r->line);
    free(shown);
    return -1;
}

static void *read_held(void *arg)
{
    struct held *h = arg;
    struct line_buf line = { NULL, 0 };

    ng_oom_doing("reading the dashboard's latest runs");
    for (;;) {
        pthread_mutex_lock(&h->lock);
        size_t i = h->next++;
        pthread_mutex_unlock(&h->lock);
        if (i >= h->n)
            break;
        struct ng_err err;
        struct run *r = h->runs[i];
        int ret = read_run(h->s, r, &line, &err);
        free(r->text);
        r->text = NULL;
        pthread_mutex_lock(&h->lock);
        if (ret < 0 && h->ret == 0) {
            h->ret = -1;
            h->err = err;
        }
        pthread_mutex_unlock(&h->lock);
    }
    free(line.data);
    ng_oom_doing(NULL);
    return NULL;
}

static void close_histories(struct site *s)
{
    for (size_t i = 0; i < NG_DASHBOARD_MAX_HISTORIES; i++) {
        if (s->fds[i] >= 0)
            close(s->fds[i]);
        s->fds[i] = -1;
    }
}

static int read_latest(struct site *s, struct ng_err *err)
{
    struct held h = { .s = s, .lock = PTHREAD_MUTEX_INITIALIZER };
    size_t n = 0;

    for (size_t i = 0; i < s->n_gates; i++)
        n += s->gates[i].n_held;
    h.runs = ng_xcalloc(n + 1, sizeof *h.runs);
    for (size_t i = 0; i < s->n_gates; i++)
        for (size_t k = 0; k < s->gates[i].n_held; k++)
            h.runs[h.n++] = &s->gates[i].runs[s->gates[i].held[k]];
    on_threads(read_held, &h, h.n);
    free(h.runs);
    close_histories(s);
    if (h.ret < 0)
        *err = h.err;
    return h.ret;
}

static int read_histories(struct site *s, struct ng_err *err)
{
    for (size_t i = 0; i < s->o->n_histories; i++) {
        s->file = i;
        if (read_file(s, s->o->histories[i], err) < 0)
            return -1;
    }
    return read_latest(s, err);
}

static int run_cmp(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    return run_later(x, y) - run_later(y, x);
}

static int gate_cmp(const void *a, const void *b)
{
    return strcmp(((const struct gate *)a)->name, ((const struct gate *)b)->name);
}

static void order(struct site *s)
{
    if (s->n_gates)   /* no gates: no array to sort (qsort takes no NULL) */
        qsort(s->gates, s->n_gates, sizeof *s->gates, gate_cmp);
    for (size_t i = 0; i < s->n_gates; i++) {
        struct gate *g = &s->gates[i];
        qsort(g->runs, g->n, sizeof *g->runs, run_cmp);
        for (size_t k = 0; k < g->n; k++)
            g->runs[k].seq = k + 1;
    }
}

static void site_release(struct site *s)
{
    for (size_t i = 0; i < s->n_gates; i++) {
        struct gate *g = &s->gates[i];
        for (size_t k = 0; k < g->n; k++) {
            free(g->runs[k].text);
            if (g->runs[k].doc) {
                ng_verdict_doc_release(g->runs[k].doc);
                free(g->runs[k].doc);
            }
        }
        free(g->runs);
        free(g->held);
        free(g->name);
    }
    free(s->gates);
    ng_strmap_release(&s->names);
    ng_arena_release(&s->strings);
    close_histories(s);
}

/* ---- charts ---- */

/* Where a point links, appended to b with its NUL: its CI run (http or
 * https only), else its commit through --commit-url, else its section;
 * 0 when it links nowhere (nothing appended). */
static int point_href(struct ng_buf *b, const struct site *s, const struct gate *g,
                      const struct run *r, int on_index)
{
    const char *at;

    if (ng_html_url_linkable(r->run_url)) {
        ng_buf_adds(b, r->run_url);
    } else if (s->o->commit_url && r->commit && (at = strstr(s->o->commit_url, "{commit}"))) {
        ng_buf_add(b, s->o->commit_url, (size_t)(at - s->o->commit_url));
        ng_buf_adds(b, r->commit);
        ng_buf_adds(b, at + strlen("{commit}"));
    } else if (r->doc) {
        ng_buf_adds(b, on_index ? "g/" : "");
        ng_buf_adds(b, g->slug);
        ng_buf_adds(b, ".html#run-");
        ng_buf_add_uint(b, r->seq);
    } else {
        return 0;
    }
    ng_buf_add(b, "", 1);
    return 1;
}

/* A point's tooltip, appended to b with its NUL. */
static void point_title(struct ng_buf *b, const struct run *r)
{
    char when[32];

    ng_fmt_utc(when, sizeof when, r->ts, 1);
    ng_buf_adds(b, "run ");
    ng_buf_add_uint(b, r->seq);
    ng_buf_adds(b, ", commit ");
    if (r->commit)
        ng_buf_add(b, r->commit, strlen(r->commit) > 12 ? 12 : strlen(r->commit));
    else
        ng_buf_adds(b, "unknown");
    ng_buf_adds(b, ", ");
    ng_buf_adds(b, when);
    ng_buf_adds(b, ", ");
    ng_buf_adds(b, ng_outcome_title(r->outcome));
    if (r->has_figures) {   /* ", ratio %.3fx, %.3f ms/epoch", without printf */
        ng_buf_adds(b, ", ratio ");
        ng_buf_add_fixed(b, r->ratio, 3);
        ng_buf_adds(b, "x, ");
        ng_buf_add_fixed(b, r->cur_ms, 3);
        ng_buf_adds(b, " ms/epoch");
    } else
        ng_buf_adds(b, ", ratio unknown");
    if (r->has_p)
        ng_buf_addf(b, ", p %.3g", r->p);
    else
        ng_buf_adds(b, ", p n/a");
    ng_buf_add(b, "", 1);
}

/* "st" for 21, "nd" for 2, "th" for 12 */
static const char *ordinal(size_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The chart of a gate's runs, thinned to about `budget` points; says how
 * in the note under it. */
static void trend(struct ng_buf *out, const struct site *s, const struct gate *g, size_t budget,
                  int on_index)
{
    enum ng_outcome *o = ng_xmalloc((g->n ? g->n : 1) * sizeof *o);
    unsigned char *keep = ng_xmalloc(g->n ? g->n : 1);
    size_t every, shown;

    for (size_t i = 0; i < g->n; i++)
        o[i] = g->runs[i].outcome;
    shown = ng_dashboard_thin(o, g->n, budget, keep, &every);
    struct ng_svg_point *p = ng_xcalloc(shown ? shown : 1, sizeof *p);
    char (*labels)[16] = ng_xcalloc(shown ? shown : 1, sizeof *labels);
    /* the points' links and tooltips, one after another in one buffer
     * (offsets while it grows, pointers once it is done) */
    struct ng_buf text = NG_BUF_INIT;
    size_t *at = ng_xmalloc(2 * (shown ? shown : 1) * sizeof *at);
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct run *r = &g->runs[i];
        if (!keep[i])
            continue;
        char when[32];   /* room for the whole time: its date is the label */
        ng_fmt_utc(when, sizeof when, r->ts, 0);
        size_t day = strnlen(when, 10);   /* YYYY-MM-DD */
        memcpy(labels[n], when, day);
        labels[n][day] = '\0';
        size_t href = text.len;
        if (!point_href(&text, s, g, r, on_index))
            href = SIZE_MAX;
        at[2 * n] = href;
        at[2 * n + 1] = text.len;
        point_title(&text, r);
        p[n] = (struct ng_svg_point){
            .x = (double)r->seq,
            .outcome = r->outcome,
            .has_value = r->has_figures,
            .value = r->cur_ms,
            .lo = r->lo,
            .hi = r->hi,
            .has_limit = r->has_figures,
            .limit = r->threshold * r->base_ms,
            .baseline = r->base_ms,
            .x_label = labels[n],
        };
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        p[i].href = at[2 * i] == SIZE_MAX ? NULL : text.data + at[2 * i];
        p[i].title = text.data + at[2 * i + 1];
    }
    struct ng_buf label = NG_BUF_INIT;
    ng_buf_addf(&label, "%s: ms/epoch over %zu runs", g->name, g->n);
    struct ng_svg_trend_opts to = { 760, 200, label.data, g->name, g->n };
    ng_svg_trend(out, p, n, &to);
    ng_buf_release(&label);
    if (shown < g->n)
        ng_buf_addf(out, "\n<p class=\"note thinned\">%zu of %zu runs shown: the latest %zu each, "
                         "of the older runs every %zu%s and up to %zu more that did not pass. "
                         "%s</p>\n",
                    shown, g->n, budget / 2, every, ordinal(every), budget / 4,
                    on_index ? "The gate's page has more." : "");
    else
        ng_buf_adds(out, "\n");
    ng_buf_release(&text);
    free(at);
    free(labels);
    free(p);
    free(keep);
    free(o);
}

/* ---- pages ---- */

static void gate_page_href(struct ng_buf *b, const struct gate *g)
{
    ng_buf_addf(b, "g/%s.html", g->slug);
}

static void footer(struct ng_buf *out, const struct site *s)
{
    char ts[32];

    ng_fmt_utc(ts, sizeof ts, s->now, 1);
    ng_buf_addf(out, "<p class=\"note\">Written by %s %s at %s from ", NG_TOOL_NAME, NG_VERSION, ts);
    for (size_t i = 0; i < s->o->n_histories; i++) {
        ng_buf_adds(out, i ? ", " : "");
        ng_buf_adds(out, "<span class=\"mono\">");
        ng_html_text(out, s->o->histories[i]);
        ng_buf_adds(out, "</span>");
    }
    ng_buf_adds(out, ".</p>\n");
}

static int rank_cmp(const void *a, const void *b, void *ctx)
{
    const struct site *s = ctx;
    const struct gate *x = &s->gates[*(const size_t *)a], *y = &s->gates[*(const size_t *)b];
    int d = ng_html_outcome_rank(x->runs[x->n - 1].outcome) -
            ng_html_outcome_rank(y->runs[y->n - 1].outcome);
    return d ? d : strcmp(x->name, y->name);
}

static void index_page(struct ng_buf *out, const struct site *s)
{
    struct ng_html_row *rows = ng_xcalloc(s->n_gates ? s->n_gates : 1, sizeof *rows);
    double *spark = ng_xcalloc(s->n_gates * SPARK_RUNS + 1, sizeof *spark);
    struct ng_buf hrefs = NG_BUF_INIT;
    size_t *href_at = ng_xcalloc(s->n_gates + 1, sizeof *href_at);
    size_t budget = s->n_gates ? INDEX_POINTS / s->n_gates : PAGE_POINTS;

    budget = budget < INDEX_MIN ? INDEX_MIN : budget > PAGE_POINTS ? PAGE_POINTS : budget;
    ng_html_begin(out, s->o->title);
    ng_buf_adds(out, "<h1>");
    ng_html_text(out, s->o->title);
    ng_buf_addf(out, "</h1>\n<p>%zu gate%s, %zu run%s.</p>\n", s->n_gates,
                s->n_gates == 1 ? "" : "s", s->runs, s->runs == 1 ? "" : "s");
    for (size_t i = 0; i < s->n_gates; i++) {
        const struct gate *g = &s->gates[i];
        const struct run *last = &g->runs[g->n - 1];
        size_t first = g->n > SPARK_RUNS ? g->n - SPARK_RUNS : 0;
        for (size_t k = first; k < g->n; k++)
            spark[i * SPARK_RUNS + k - first] = g->runs[k].has_figures ? g->runs[k].cur_ms : NAN;
        href_at[i] = hrefs.len;
        gate_page_href(&hrefs, g);
        ng_buf_add(&hrefs, "", 1);
        rows[i] = (struct ng_html_row){ &last->doc->v, NULL, spark + i * SPARK_RUNS,
                                        g->n - first, g->n };
    }
    for (size_t i = 0; i < s->n_gates; i++)
        rows[i].href = hrefs.data + href_at[i];
    if (s->n_gates == 0)
        ng_buf_adds(out, "<p>No runs yet.</p>\n");
    ng_html_filter(out);
    if (s->n_gates)
        ng_html_overview(out, rows, s->n_gates);
    ng_html_legend(out);
    /* the charts in the overview's order: failing first */
    size_t *by_rank = ng_xcalloc(s->n_gates + 1, sizeof *by_rank);
    for (size_t i = 0; i < s->n_gates; i++)
        by_rank[i] = i;
    qsort_r(by_rank, s->n_gates, sizeof *by_rank, rank_cmp, (void *)s);
    for (size_t k = 0; k < s->n_gates; k++) {
        const struct gate *g = &s->gates[by_rank[k]];
        ng_buf_addf(out, "<section class=\"gate\" id=\"g-%s\" data-gate=\"", g->slug);
        ng_html_attr(out, g->name);
        ng_buf_adds(out, "\">\n<h2>");
        ng_html_badge(out, g->runs[g->n - 1].outcome);
        ng_buf_adds(out, " <a href=\"");
        gate_page_href(out, g);
        ng_buf_adds(out, "\">");
        ng_html_text(out, g->name);
        ng_buf_adds(out, "</a></h2>\n");
        trend(out, s, g, budget, 1);
        ng_buf_adds(out, "</section>\n");
    }
    free(by_rank);
    ng_html_warnings(out, s->r->warnings, s->r->n_warnings, 2);
    footer(out, s);
    ng_html_end(out);
    ng_buf_release(&hrefs);
    free(href_at);
    free(spark);
    free(rows);
}

static void runs_table(struct ng_buf *out, const struct gate *g)
{
    size_t first = g->n > TABLE_RUNS ? g->n - TABLE_RUNS : 0;
    char when[32];

    ng_buf_addf(out, "<h2>Latest runs</h2>\n<table class=\"runs\">\n<thead><tr><th scope=\"col\" class=\"n\">run</th>"
                     "<th scope=\"col\">verdict</th><th scope=\"col\" class=\"n\">ratio</th><th scope=\"col\" class=\"n\">current ms/epoch</th>"
                     "<th scope=\"col\" class=\"n\">baseline</th><th scope=\"col\">commit</th><th scope=\"col\">date</th><th scope=\"col\">CI run</th></tr>\n</thead>\n<tbody>\n");
    for (size_t k = g->n; k-- > first;) {
        const struct run *r = &g->runs[k];
        ng_buf_adds(out, "<tr><td class=\"n\">");
        if (r->doc)
            ng_buf_addf(out, "<a href=\"#run-%zu\">%zu</a>", r->seq, r->seq);
        else
            ng_buf_addf(out, "%zu", r->seq);
        ng_buf_adds(out, "</td><td>");
        ng_html_badge(out, r->outcome);
        if (r->has_figures) {
            ng_buf_adds(out, "</td>");
            ng_html_num_cell(out, r->ratio, "x");
            ng_html_num_cell(out, r->cur_ms, "");
            ng_html_num_cell(out, r->base_ms, "");
            ng_buf_adds(out, "<td>");
        } else
            ng_buf_adds(out, "</td><td class=\"n\">-</td><td class=\"n\">-</td>"
                             "<td class=\"n\">-</td><td>");
        ng_html_commit(out, r->commit);
        ng_fmt_utc(when, sizeof when, r->ts, 1);
        ng_buf_addf(out, "</td><td class=\"date\">%s</td><td>", when);
        if (ng_html_url_linkable(r->run_url)) {
            ng_buf_adds(out, "<a href=\"");
            ng_html_url(out, r->run_url);
            ng_buf_adds(out, "\">run</a>");
        } else {
            ng_buf_adds(out, "<span class=\"note\">unknown</span>");
        }
        ng_buf_adds(out, "</td></tr>\n");
    }
    ng_buf_adds(out, "</tbody>\n</table>\n");
}

static void gate_page(struct ng_buf *out, const struct site *s, const struct gate *g)
{
    struct ng_buf title = NG_BUF_INIT;
    char id[40];

    ng_buf_addf(&title, "%s: %s", g->name, s->o->title);
    ng_html_begin(out, title.data);
    ng_buf_release(&title);
    ng_buf_adds(out, "<p><a href=\"../index.html\">");
    ng_html_text(out, s->o->title);
    ng_buf_adds(out, "</a></p>\n<h1>");
    ng_html_text(out, g->name);
    ng_buf_addf(out, "</h1>\n<p>%zu run%s; the latest %zu have a section below.</p>\n", g->n,
                g->n == 1 ? "" : "s", g->n_held);
    ng_html_legend(out);
    ng_buf_adds(out, "<section class=\"gate\" data-gate=\"");
    ng_html_attr(out, g->name);
    ng_buf_adds(out, "\">\n");
    trend(out, s, g, PAGE_POINTS, 0);
    ng_buf_adds(out, "</section>\n");
    runs_table(out, g);
    for (size_t k = g->n; k-- > 0;) {
        if (!g->runs[k].doc)
            continue;
        snprintf(id, sizeof id, "run-%zu", g->runs[k].seq);
        ng_html_section(out, &g->runs[k].doc->v, id, 2);
    }
    footer(out, s);
    ng_html_end(out);
}

/* ---- the site on disk ---- */

static int write_error(const char *path, int e, struct ng_err *err)
{
    char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "unable to write '%s': %s", shown, strerror(e));
    free(shown);
    return -1;
}

/* dir/name opened with flags (mode 0666 when created), or -1 with errno. */
static int open_in(const char *dir, const char *name, int flags, char *path, size_t size)
{
    if (snprintf(path, size, "%s/%s", dir, name) >= (int)size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, flags | O_CLOEXEC, 0666);
}

/* A gate's page: g/SLUG.html. */
static void page_name(char *name, size_t size, const struct gate *g)
{
    snprintf(name, size, "%s.html", g->slug);
}

/* Writes b to dir/name and starts putting it on disk without waiting
 * (sync_file_range), so the disk works while the next pages are
 * rendered; sync_file() waits for it once every page is written. */
static int write_file(const char *dir, const char *name, const struct ng_buf *b,
                      struct ng_err *err)
{
    char path[PATH_MAX];
    int fd = open_in(dir, name, O_WRONLY | O_CREAT | O_EXCL, path, sizeof path);
    if (fd < 0 || ng_write_all(fd, b->data ? b->data : "", b->len) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return write_error(path, e, err);
    }
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    if (close(fd) < 0)
        return write_error(path, errno, err);
    return 0;
}

/* dir/name on disk (fsync), before the site is swapped in: a crash never
 * leaves a site whose pages are empty. */
static int sync_file(const char *dir, const char *name, struct ng_err *err)
{
    char path[PATH_MAX];
    int fd = open_in(dir, name, O_RDONLY, path, sizeof path);
    if (fd < 0 || fsync(fd) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return write_error(path, e, err);
    }
    close(fd);
    return 0;
}

/* The index and the gates' pages, rendered and written by THREADS threads
 * at once (the index first: the longest): each page is its own file, and
 * the first failure is the one reported. */
struct pages {
    const struct site *s;
    const char *top, *dir;     /* the site's directory, its g/ */
    pthread_mutex_t lock;
    size_t next;
    size_t bytes;
    int ret;
    struct ng_err err;
};

static void *write_pages(void *arg)
{
    struct pages *p = arg;
    struct ng_buf b = NG_BUF_INIT;
    char name[96];
    struct ng_err err;

    ng_oom_doing("writing the dashboard's pages");
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        int stop = p->ret < 0 || i > p->s->n_gates;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            break;
        b.len = 0;
        int ret;
        if (i == 0) {
            index_page(&b, p->s);
            p->s->r->index_bytes = b.len;
            ret = write_file(p->top, "index.html", &b, &err);
        } else {
            gate_page(&b, p->s, &p->s->gates[i - 1]);
            page_name(name, sizeof name, &p->s->gates[i - 1]);
            ret = write_file(p->dir, name, &b, &err);
        }
        pthread_mutex_lock(&p->lock);
        p->bytes += b.len;
        if (ret < 0 && p->ret == 0) {
            p->ret = -1;
            p->err = err;
        }
        pthread_mutex_unlock(&p->lock);
    }
    ng_oom_doing(NULL);
    ng_buf_release(&b);
    return NULL;
}

static int write_site(const struct site *s, const char *tmp, struct ng_err *err)
{
    struct ng_buf b = NG_BUF_INIT;
    char dir[PATH_MAX];

    if (snprintf(dir, sizeof dir, "%s/g", tmp) >= (int)sizeof dir || mkdir(dir, 0777) < 0)
        return ng_err_set(err, "unable to create '%s': %s", dir, strerror(errno));
    struct pages p = { .s = s, .top = tmp, .dir = dir, .lock = PTHREAD_MUTEX_INITIALIZER };
    on_threads(write_pages, &p, s->n_gates + 1);
    s->r->site_bytes = p.bytes;
    int ret = p.ret;
    if (ret < 0)
        *err = p.err;
    ng_buf_addf(&b, "A site written by %s dashboard; the command replaces this directory whole.\n",
                NG_TOOL_NAME);
    if (ret == 0)
        ret = write_file(tmp, MARKER, &b, err);
    ng_buf_release(&b);
    /* then every page on disk, most of them already there */
    if (ret == 0)
        ret = sync_file(tmp, "index.html", err);
    for (size_t i = 0; ret == 0 && i < s->n_gates; i++) {
        char name[96];
        page_name(name, sizeof name, &s->gates[i]);
        ret = sync_file(dir, name, err);
    }
    if (ret == 0)
        ret = sync_file(tmp, MARKER, err);
    return ret;
}

/* The directory the site replaces may be absent, empty or an earlier site. */
static int replaceable(const char *dir, const char *shown, struct ng_err *err)
{
    struct stat st;
    char marker[PATH_MAX];

    if (lstat(dir, &st) < 0)
        return errno == ENOENT ? 0 : ng_err_set(err, "unable to use '%s': %s", shown, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ng_err_set(err, "--output '%s' is not a directory", shown);
    if (snprintf(marker, sizeof marker, "%s/%s", dir, MARKER) < (int)sizeof marker &&
        access(marker, F_OK) == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return ng_err_set(err, "unable to open '%s': %s", shown, strerror(errno));
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    if (!empty)
        return ng_err_set(err, "refusing to replace '%s': it is not empty and not a dashboard "
                               "(no " MARKER " in it)", shown);
    return 0;
}

/* A history inside the directory would go with it. */
static int history_inside(const struct ng_dashboard_opts *o, const char *dir_key,
                          struct ng_err *err)
{
    size_t n = strlen(dir_key);

    for (size_t i = 0; i < o->n_histories; i++) {
        char *k = ng_file_key(o->histories[i]);
        int inside = strncmp(k, dir_key, n) == 0 && (k[n] == '/' || k[n] == '\0');
        free(k);
        if (inside) {
            char *h = ng_text_cleaned(o->histories[i], NG_TEXT_ESCAPE_CONTROLS);
            char *d = ng_text_cleaned(o->out_dir, NG_TEXT_ESCAPE_CONTROLS);
            ng_err_set(err, "the history '%s' is inside --output '%s', which is replaced whole; "
                            "keep the history outside it", h, d);
            free(h);
            free(d);
            return -1;
        }
    }
    return 0;
}

/* The new site takes the old one's place in one step where the
 * filesystem can swap two names; the old one is removed after. */
static int swap_in(const char *tmp, const char *dir, char *old, size_t old_size,
                   struct ng_err *err)
{
    if (rename(tmp, dir) == 0)
        return 0;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return ng_err_set(err, "unable to rename '%s' to '%s': %s", tmp, dir, strerror(errno));
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        snprintf(old, old_size, "%s", tmp);
        return 0;
    }
    if (snprintf(old, old_size, "%s.old", tmp) >= (int)old_size || rename(dir, old) < 0)
        return ng_err_set(err, "unable to move '%s' aside: %s", dir, strerror(errno));
    if (rename(tmp, dir) < 0) {
        int e = errno;
        (void)rename(old, dir);
        return ng_err_set(err, "unable to rename '%s' to '%s': %s", tmp, dir, strerror(e));
    }
    return 0;
}

/* A new site in its temporary directory beside the one it replaces. */
struct pending {
    char *dir;                 /* where it goes (--output, links followed) */
    char tmp[PATH_MAX];        /* where it is written; "" until it exists */
    int slot;                  /* tmp's in the signal cleanup */
};

/* The site written at pd->tmp, removed on a signal until it is swapped in. */
static int stage(const struct site *s, struct pending *pd, struct ng_err *err)
{
    char *key = ng_file_key(s->o->out_dir);
    char *shown = ng_text_cleaned(s->o->out_dir, NG_TEXT_ESCAPE_CONTROLS);
    int ret = -1;

    pd->dir = ng_file_target(s->o->out_dir);
    if (!pd->dir) {
        ng_err_set(err, "unable to resolve --output '%s': %s", shown, strerror(errno));
        goto out;
    }
    if (history_inside(s->o, key, err) < 0 || replaceable(pd->dir, shown, err) < 0)
        goto out;
    if (snprintf(pd->tmp, sizeof pd->tmp, "%s.tmp.XXXXXX", pd->dir) >= (int)sizeof pd->tmp) {
        pd->tmp[0] = '\0';
        ng_err_set(err, "--output '%s' is too long", shown);
        goto out;
    }
    if (!mkdtemp(pd->tmp)) {
        pd->tmp[0] = '\0';
        ng_err_set(err, "unable to create a directory beside '%s': %s", shown, strerror(errno));
        goto out;
    }
    pd->slot = ng_signal_add_tree(pd->tmp);
    mode_t mask = umask(0);
    umask(mask);
    (void)chmod(pd->tmp, 0777 & ~mask);
    ret = write_site(s, pd->tmp, err);
out:
    free(shown);
    free(key);
    return ret;
}

/* The staged site swapped in (ok) or removed.  Nothing is left to do
 * after the swap but to report it, so a signal after it finds the run
 * done: the memory of the site is given back before. */
static int settle(struct pending *pd, int ok, struct ng_err *err)
{
    char old[PATH_MAX] = "";
    int ret = ok ? 0 : -1;

    if (pd->tmp[0]) {
        /* no signal between the renames: it would remove the site that is
         * at the temporary name by then */
        sigset_t saved;
        ng_signal_hold(&saved);
        if (ok)
            ret = swap_in(pd->tmp, pd->dir, old, sizeof old, err);
        if (ret < 0 || old[0])
            ng_signal_remove_tree(ret == 0 ? old : pd->tmp);
        ng_signal_forget(pd->slot);
        ng_signal_resume(&saved);
    }
    free(pd->dir);
    return ret;
}

int ng_dashboard_build(const struct ng_dashboard_opts *o, struct ng_dashboard_result *r,
                       struct ng_err *err)
{
    struct site s = { .o = o, .names = NG_STRMAP_INIT, .strings = NG_ARENA_INIT, .r = r,
                      .now = ng_report_time() };
    struct pending pd = { .dir = NULL, .tmp = "", .slot = -1 };

    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < NG_DASHBOARD_MAX_HISTORIES; i++)
        s.fds[i] = -1;
    r->files = o->n_histories;
    int ret = read_histories(&s, err);
    if (ret == 0) {
        order(&s);
        r->gates = s.n_gates;
        r->runs = s.runs;
        ret = stage(&s, &pd, err);
    }
    site_release(&s);
    return settle(&pd, ret == 0, err);
}

void ng_dashboard_result_release(struct ng_dashboard_result *r)
{
    ng_strv_free(&r->warnings, &r->n_warnings);
    memset(r, 0, sizeof *r);
}
