#include "dashboard/ng_dashboard_read.h"

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

#include "history/ng_history.h"
#include "history/ng_trend_scan.h"
#include "util/ng_file.h"
#include "util/ng_oom.h"
#include "util/ng_text.h"

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

/* The readable slug and 12 hex digits of a hash of the whole name. */
static void add_hash(struct gate *g)
{
    size_t n = strlen(g->slug);
    snprintf(g->slug + n, sizeof g->slug - n, "%s%012llx", n ? "-" : "",
             (unsigned long long)(ng_hash(g->name, strlen(g->name)) & 0xFFFFFFFFFFFFull));
}

/* A gate page's name from the gate's: lower case letters, digits, '_' and
 * '.' (not first), other runs of bytes as one '-', at most 40 (unique_slugs adds a
 * hash where two gates come out alike). */
static void make_slug(struct gate *g)
{
    size_t n = 0;
    int dash = 1;

    for (const unsigned char *p = (const unsigned char *)g->name; *p && n < 40; p++) {
        unsigned char c = *p >= 'A' && *p <= 'Z' ? (unsigned char)(*p + 32) : *p;
        /* no leading '.': a hidden file, or a name a path reads as ".." */
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (c == '.' && n)) {
            g->slug[n++] = (char)c;
            dash = 0;
        } else if (!dash) {
            g->slug[n++] = '-';
            dash = 1;
        }
    }
    while (n > 0 && g->slug[n - 1] == '-')
        n--;
    g->slug[n] = '\0';
    if (n == 0)   /* nothing readable: the hash alone */
        add_hash(g);
}

static int slug_cmp(const void *a, const void *b)
{
    return strcmp((*(struct gate *const *)a)->slug, (*(struct gate *const *)b)->slug);
}

/* Names that clean alike ("a b" and "a/b", "ResNet" and "resnet", two that
 * differ past 40 characters) keep their pages apart with the hash; every
 * other page is named by its gate alone. */
static void unique_slugs(struct site *s)
{
    struct gate **by = ng_xcalloc(s->n_gates + 1, sizeof *by);
    size_t n = s->n_gates;

    for (size_t i = 0; i < n; i++)
        by[i] = &s->gates[i];
    ng_sort(by, n, sizeof *by, slug_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(by[j]->slug, by[i]->slug) == 0)
            j++;
        for (size_t k = i; j - i > 1 && k < j; k++)
            add_hash(by[k]);
        i = j;
    }
    free(by);
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
static void take_run(struct site *s, const struct ng_trend_scan *v, const struct ng_history_line *l,
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
 * read as up to PARTS parts at once (one a worker of the pool, ng_threads,
 * of PART_MIN bytes at least), each part a run of whole lines,
 * each through ng_history on its own: a part is the file's bytes in
 * place (mapped) or a stream over its byte range.  A part numbers its
 * lines from 0; once the parts before it are read its warnings are
 * renumbered and its line base kept for its runs' messages, so both name
 * the file's own lines without a pass that counts them first.  A line is scanned for its chart's
 * figures (ng_trend_scan), or read whole where the scanner cannot tell; the
 * latest runs of each gate keep their line, read whole once every file
 * is read.  What the parts read is put together under a lock (runs are
 * ordered later, by time, file and line). */

#define READ_BUF ((size_t)1 << 20)
/* A part maps this much of the file at a time: mapped pages count in the
 * process's RSS, so it holds one window, not the file. */
#define WINDOW ((size_t)8 << 20)

/* A part reads this much at least: below it, threads would cost more. */
#define PART_MIN ((off_t)2 << 20)

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
    struct ng_trend_scan scan;       /* the figures of the line being read */
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

    if (ng_trend_scan_line(&p->scan, l->text, l->len) != 0) {
        struct ng_verdict_doc doc;
        int ret = ng_verdict_doc_read(&doc, l->text, l->len, err);
        if (ret == 0)
            ng_trend_scan_of_verdict(&p->scan, &doc.v);
        ng_verdict_doc_release(&doc);
        if (ret < 0)
            return ret;   /* -2: a figure out of range, said so without "torn" */
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

static int read_part(void *ctx, size_t i, struct ng_err *err)
{
    struct part *p = (struct part *)ctx + i;

    ng_oom_doing("reading the history '%s'", p->path);
    p->h.offset = (unsigned long long)p->at;
    if (ng_file_guarded(read_chunks, p) < 0)
        p->ret = got_shorter(p->path, &p->err);
    ng_file_unmap(&p->window);
    free(p->buf);
    p->buf = NULL;
    ng_oom_doing(NULL);
    if (p->ret < 0)
        *err = p->err;
    return p->ret;
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

/* One part a worker, each of PART_MIN bytes at least; a stream (a pipe,
 * a FIFO) is read as it comes, in one. */
static size_t parts_of(const struct stat *st, long jobs)
{
    if (!S_ISREG(st->st_mode) || st->st_size < 2 * PART_MIN)
        return 1;
    size_t n = ng_threads_count(jobs);
    off_t most = st->st_size / PART_MIN;
    if ((off_t)n > most)
        n = (size_t)most;
    return n < PARTS ? n : PARTS;
}

static int read_file(struct site *s, const char *path, struct ng_err *err)
{
    struct part parts[PARTS];
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
    size_t n = parts_of(&st, s->o->jobs);
    off_t from = 0;
    for (size_t i = 0; i < n; i++) {
        off_t to = i + 1 == n ? (S_ISREG(st.st_mode) ? st.st_size : (off_t)1 << 62)
                              : boundary(fd, split_at(st.st_size, i, n), st.st_size);
        parts[i] = (struct part){ .fd = fd, .index = (unsigned char)i,
                                  .seekable = S_ISREG(st.st_mode),
                                  .mapped = S_ISREG(st.st_mode), .from = from, .at = from,
                                  .end = to, .path = path, .s = s, .lock = &lock,
                                  .h = NG_HISTORY_INIT, .scan = NG_TREND_SCAN_INIT };
        from = to;
    }
    /* the first part's error that has one, as if read in one */
    int ret = ng_threads_run(s->o->jobs, n, read_part, parts, err);
    /* each part after the first joins the first, in order: its lines
     * renumbered, its warnings after the ones before it under one cap */
    for (size_t i = 1; i < n; i++) {
        s->line_base[s->file][i] = parts[0].h.lines;
        ng_history_join(&parts[0].h, &parts[i].h, path);
        ng_trend_scan_release(&parts[i].scan);
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
    ng_trend_scan_release(&parts[0].scan);
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

/* The latest runs' lines read whole, by the pool's workers (each run its
 * own verdict), from their files again or from their copies, in the order
 * of their places in the files: a failure named is the first there. */
struct held {
    const struct site *s;
    struct run **runs;
    size_t n;
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

static int read_held(void *ctx, size_t i, struct ng_err *err)
{
    struct held *h = ctx;
    struct run *r = h->runs[i];
    struct line_buf line = { NULL, 0 };

    ng_oom_doing("reading the dashboard's latest runs");
    int ret = read_run(h->s, r, &line, err);
    free(line.data);
    free(r->text);
    r->text = NULL;
    ng_oom_doing(NULL);
    return ret;
}

static int by_place(const void *a, const void *b)
{
    const struct run *x = *(struct run *const *)a, *y = *(struct run *const *)b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
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
    struct held h = { .s = s };
    size_t n = 0;

    for (size_t i = 0; i < s->n_gates; i++)
        n += s->gates[i].n_held;
    h.runs = ng_xcalloc(n + 1, sizeof *h.runs);
    for (size_t i = 0; i < s->n_gates; i++)
        for (size_t k = 0; k < s->gates[i].n_held; k++)
            h.runs[h.n++] = &s->gates[i].runs[s->gates[i].held[k]];
    ng_sort(h.runs, h.n, sizeof *h.runs, by_place);
    int ret = ng_threads_run(s->o->jobs, h.n, read_held, &h, err);
    free(h.runs);
    close_histories(s);
    return ret;
}

int ng_dash_read(struct site *s, struct ng_err *err)
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

void ng_dash_order(struct site *s)
{
    ng_sort(s->gates, s->n_gates, sizeof *s->gates, gate_cmp);
    unique_slugs(s);
    for (size_t i = 0; i < s->n_gates; i++) {
        struct gate *g = &s->gates[i];
        ng_sort(g->runs, g->n, sizeof *g->runs, run_cmp);
        for (size_t k = 0; k < g->n; k++)
            g->runs[k].seq = k + 1;
    }
}

void ng_dash_site_release(struct site *s)
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
    free(s->changes);
    ng_accept_release(&s->acks);
    ng_strmap_release(&s->names);
    ng_arena_release(&s->strings);
    close_histories(s);
}
