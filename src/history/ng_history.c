#include "history/ng_history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>

#include "util/ng_oom.h"
#include "util/ng_file.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

/* A line buffer this large after a long line is given back: memory
 * follows the lines being read, not the longest one seen. */
#define LINE_KEEP (1u << 20)

struct reader {
    struct ng_history *h;
    char *shown;                 /* the file's name, cleaned for messages */
    ng_history_line_fn fn;
    void *ctx;
    struct ng_buf line;          /* the line being gathered across reads */
    int too_long;                /* it passed line_max: the rest of it is dropped */
    unsigned long long start;    /* where it starts in the file */
    size_t unsaid;               /* warnings past NG_HISTORY_WARNINGS_MAX */
    int stop;
    int document;                /* the file is one JSON document over many lines */
};

static void skip(struct reader *r, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* line: the line the warning names (0: none). */
static void keep_warning(struct ng_history *h, char *text, size_t line)
{
    h->warning_line = ng_xgrow(h->warning_line, h->n_warnings, sizeof *h->warning_line);
    h->warning_line[h->n_warnings] = line;
    ng_strv_push(&h->warnings, &h->n_warnings, text);
}

/* What a line's warning starts with: "'h.jsonl' line 7: ". */
static void line_prefix(struct ng_buf *b, const char *shown, size_t line)
{
    ng_buf_addf(b, "'%s' line %zu: ", shown, line);
}

static void skip(struct reader *r, size_t line, const char *fmt, ...)
{
    struct ng_history *h = r->h;
    struct ng_buf b = NG_BUF_INIT;
    va_list ap;

    h->skipped++;
    if (h->n_warnings >= NG_HISTORY_WARNINGS_MAX) {
        r->unsaid++;
        return;
    }
    line_prefix(&b, r->shown, line);
    va_start(ap, fmt);
    ng_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    keep_warning(h, ng_buf_detach(&b), line);
}

static int blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return 0;
    return 1;
}

/* Whether the file's first line opens a JSON document written over many
 * lines ("{" or "[" alone, or "[{" as a batch report starts): a --json
 * verdict given where a history belongs.  Read as lines, it would be a
 * hundred skipped lines and no runs; it is one clear error instead. */
static int opens_document(const char *p, size_t n)
{
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    return (n == 1 && (p[0] == '{' || p[0] == '[')) || (n == 2 && memcmp(p, "[{", 2) == 0);
}

/* One whole line (without its newline); `torn`: the file ended inside it. */
static void take_line(struct reader *r, const char *p, size_t n, int torn)
{
    struct ng_history *h = r->h;
    size_t line = ++h->lines;

    if (r->too_long) {
        r->too_long = 0;
        skip(r, line, "longer than %zu bytes; skipped", h->line_max);
        return;
    }
    if (blank(p, n))
        return;
    if (r->start == 0 && opens_document(p, n)) {
        r->document = 1;
        r->stop = 1;
        return;
    }
    struct ng_history_line l = { p, n, line, r->start };
    struct ng_err err;
    int ret = r->fn(&l, r->ctx, &err);
    if (ret == -2) {   /* whole, but with a figure no gate writes */
        skip(r, line, "%s; skipped", err.msg);
    } else if (ret < 0) {
        skip(r, line, "%s (%s); skipped", err.msg,
             torn ? "the file ends inside it: a torn line" : "a torn or garbage line");
    } else {
        h->verdicts++;
        r->stop = ret > 0;
    }
}

/* Adds n bytes to the line being gathered, or drops them once it is too
 * long: a line is never held past line_max. */
static void gather(struct reader *r, const char *p, size_t n)
{
    if (r->too_long)
        return;
    if (r->line.len + n > r->h->line_max) {
        r->too_long = 1;
        ng_buf_release(&r->line);
        return;
    }
    ng_buf_add(&r->line, p, n);
}

static void line_done(struct reader *r, int torn)
{
    take_line(r, r->line.data ? r->line.data : "", r->line.len, torn);
    if (r->line.cap > LINE_KEEP)
        ng_buf_release(&r->line);
    r->line.len = 0;
}

/* The bytes that follow what was fed before: whole lines are read where
 * they lie, a line split between two feeds is gathered. */
static void feed(struct reader *r, const char *chunk, size_t n)
{
    struct ng_history *h = r->h;

    for (const char *p = chunk, *end = chunk + n; p < end && !r->stop;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        if (nl && !r->line.len && !r->too_long && len <= h->line_max) {
            take_line(r, p, len, 0);   /* not copied */
        } else {
            gather(r, p, len);
            if (!nl)
                break;
            line_done(r, 0);
        }
        p = nl + 1;
        r->start = h->offset + (unsigned long long)(p - chunk);
    }
    h->offset += n;
}

static void reader_init(struct reader *r, struct ng_history *h, const char *name,
                        ng_history_line_fn fn, void *ctx)
{
    *r = (struct reader){ .h = h, .shown = ng_text_cleaned(name, NG_TEXT_ESCAPE_CONTROLS),
                          .fn = fn, .ctx = ctx, .line = NG_BUF_INIT, .start = h->offset };
    if (!h->line_max)
        h->line_max = NG_HISTORY_LINE_MAX;
}

/* The one warning that counts the skipped lines past the cap (it names
 * no line). */
static void say_unsaid(struct ng_history *h, const char *shown, size_t unsaid)
{
    if (!unsaid)
        return;
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_addf(&b, "'%s': %zu more line%s skipped", shown, unsaid, unsaid == 1 ? "" : "s");
    keep_warning(h, ng_buf_detach(&b), 0);
}

/* The last line (the file ended inside it), the count of warnings left
 * unsaid; r released. */
static void reader_finish(struct reader *r, int ended)
{
    struct ng_history *h = r->h;

    if (ended && !r->stop && (r->line.len > 0 || r->too_long))
        line_done(r, 1);
    say_unsaid(h, r->shown, r->unsaid);
    ng_buf_release(&r->line);
    free(r->shown);
}

int ng_history_read_chunks(struct ng_history *h, ng_history_chunk_fn next, void *next_ctx,
                           const char *name, ng_history_line_fn fn, void *ctx,
                           struct ng_err *err)
{
    struct reader r;
    const char *chunk;
    size_t n;
    int got, ret = 0;

    reader_init(&r, h, name, fn, ctx);
    while (!r.stop && (got = next(next_ctx, &chunk, &n)) > 0)
        feed(&r, chunk, n);
    if (!r.stop && got < 0)
        ret = ng_err_set(err, "unable to read '%s': %s", r.shown, strerror(errno));
    if (r.document)
        ret = ng_err_set(err, "'%s' is not a history: it is one JSON document over many lines "
                              "(a --json verdict?), where a history (--history) holds one "
                              "verdict a line", r.shown);
    reader_finish(&r, ret == 0);
    return ret;
}

/* The chunks of a stream. */
struct stream {
    FILE *f;
    char chunk[65536];
};

static int stream_chunk(void *ctx, const char **chunk, size_t *len)
{
    struct stream *st = ctx;
    size_t n = fread(st->chunk, 1, sizeof st->chunk, st->f);
    if (n == 0)
        return ferror(st->f) ? -1 : 0;
    *chunk = st->chunk;
    *len = n;
    return 1;
}

int ng_history_read_lines(struct ng_history *h, FILE *f, const char *name, ng_history_line_fn fn,
                          void *ctx, struct ng_err *err)
{
    struct stream *st = ng_xmalloc(sizeof *st);
    st->f = f;
    int ret = ng_history_read_chunks(h, stream_chunk, st, name, fn, ctx, err);
    free(st);
    return ret;
}

/* The verdict reader over the line reader: each line read whole. */
struct verdicts {
    ng_history_fn fn;
    void *ctx;
};

static int read_verdict_line(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    const struct verdicts *v = ctx;
    return ng_history_verdict_line(l, v->fn, v->ctx, err);
}

int ng_history_verdict_line(const struct ng_history_line *l, ng_history_fn fn, void *ctx,
                            struct ng_err *err)
{
    struct verdicts vs = { fn, ctx }, *v = &vs;
    struct ng_history_entry e = { .line = l->line };
    int ret = ng_verdict_doc_read(&e.doc, l->text, l->len, err);

    /* a figure no gate writes, where a baseline would compute with it: the
     * line is skipped for every reader of runs (--baseline-history, changes) */
    if (ret == 0 && e.doc.has_out_of_range) {
        *err = e.doc.out_of_range;
        ret = -2;
    } else if (ret == 0 && v->fn) {
        ret = v->fn(&e, v->ctx) != 0;
    }
    ng_verdict_doc_release(&e.doc);
    return ret;
}

int ng_history_read_stream(struct ng_history *h, FILE *f, const char *name, ng_history_fn fn,
                           void *ctx, struct ng_err *err)
{
    struct verdicts v = { fn, ctx };
    return ng_history_read_lines(h, f, name, read_verdict_line, &v, err);
}

int ng_history_open(const char *path, struct ng_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(err, "unable to open '%s': %s", shown, strerror(errno));
        free(shown);
        return -1;
    }
    /* a shared lock: appends (ng_file_append(), under an exclusive one) are
     * whole when read; where locks do not work the file is read as is; a
     * lock another process keeps is not waited for past a few seconds */
    if (ng_file_lock(fd, LOCK_SH) < 0) {
        close(fd);
        return ng_file_locked_error(err, "", path);
    }
    return fd;
}

int ng_history_read_path_lines(struct ng_history *h, const char *path, ng_history_line_fn fn,
                               void *ctx, struct ng_err *err)
{
    int fd = ng_history_open(path, err);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "rb");
    if (!f)
        ng_oom_fail();   /* fdopen of an open descriptor fails only for memory */
    int ret = ng_history_read_lines(h, f, path, fn, ctx, err);
    fclose(f);
    return ret;
}

int ng_history_read(struct ng_history *h, const char *path, ng_history_fn fn, void *ctx,
                    struct ng_err *err)
{
    struct verdicts v = { fn, ctx };
    return ng_history_read_path_lines(h, path, read_verdict_line, &v, err);
}

/* ng_history_load's callback: every entry moves into the array. */
static int keep_entry(struct ng_history_entry *e, void *ctx)
{
    struct ng_history *h = ctx;

    h->entries = ng_xgrow(h->entries, h->n_entries, sizeof *h->entries);
    h->entries[h->n_entries++] = *e;
    memset(&e->doc, 0, sizeof e->doc);
    return 0;
}

int ng_history_load(struct ng_history *h, const char *path, struct ng_err *err)
{
    return ng_history_read(h, path, keep_entry, h, err);
}

/* A part read before the lines ahead of it were counted (h->lines 0 at
 * its start): base, those lines, added to h->lines and to the line
 * numbers in its warnings. */
static void renumber(struct ng_history *h, size_t base, const char *shown)
{
    h->lines += base;
    for (size_t i = 0; i < h->n_warnings; i++) {
        if (!h->warning_line[i] || !h->warnings[i])
            continue;
        /* the text after the old prefix, behind the new one */
        struct ng_buf old = NG_BUF_INIT, b = NG_BUF_INIT;
        line_prefix(&old, shown, h->warning_line[i]);
        h->warning_line[i] += base;
        line_prefix(&b, shown, h->warning_line[i]);
        ng_buf_adds(&b, h->warnings[i] + old.len);
        ng_buf_release(&old);
        free(h->warnings[i]);
        h->warnings[i] = ng_buf_detach(&b);
    }
}

void ng_history_join(struct ng_history *a, struct ng_history *b, const char *name)
{
    size_t kept = 0;
    char *shown = ng_text_cleaned(name, NG_TEXT_ESCAPE_CONTROLS);

    renumber(b, a->lines, shown);
    /* a's line-numbered warnings, then b's, up to the cap; the rest (and
     * each part's count of them) go into one count at the end */
    for (size_t i = 0; i < a->n_warnings; i++) {
        if (a->warning_line[i]) {
            a->warnings[kept] = a->warnings[i];
            a->warning_line[kept++] = a->warning_line[i];
        } else {
            free(a->warnings[i]);
        }
    }
    a->n_warnings = kept;
    for (size_t i = 0; i < b->n_warnings; i++) {
        if (b->warning_line[i] && a->n_warnings < NG_HISTORY_WARNINGS_MAX) {
            keep_warning(a, b->warnings[i], b->warning_line[i]);
            b->warnings[i] = NULL;
        }
    }
    a->skipped += b->skipped;
    a->verdicts += b->verdicts;
    a->lines = b->lines;
    a->offset = b->offset;
    say_unsaid(a, shown, a->skipped - a->n_warnings);
    free(shown);
    ng_history_release(b);
}

void ng_history_release(struct ng_history *h)
{
    ng_strv_free(&h->warnings, &h->n_warnings);
    free(h->warning_line);
    for (size_t i = 0; i < h->n_entries; i++)
        ng_verdict_doc_release(&h->entries[i].doc);
    free(h->entries);
    memset(h, 0, sizeof *h);
}
