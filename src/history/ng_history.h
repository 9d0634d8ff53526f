/* ng_history: reads a --history file (JSON Lines: one verdict a line, as
 * the json-line reporter appends them) back into verdicts, for whatever
 * looks back over past runs (history baselines, dashboards).  Each line
 * goes through ng_verdict_doc_read() (ng_verdict_doc.c, the one reader
 * of verdict JSON).
 *
 * What real history files hold is tolerated:
 * - a torn or garbage line (a writer killed mid-line, a line glued onto a
 *   fragment, anything that is not one verdict) is skipped with a warning
 *   that names its line number:
 *     'h.jsonl' line 7: not valid JSON (a torn or garbage line); skipped
 * - lines written by older versions of the gate (fewer fields) are read,
 *   and fields this version does not know are ignored;
 * - blank lines are skipped silently; CRLF line ends are read;
 * - a file of any number of lines is streamed: memory is one line at a
 *   time (at most line_max bytes; a longer line is skipped with a
 *   warning) plus whatever the caller keeps.
 * At most NG_HISTORY_WARNINGS_MAX warnings are kept, then one that counts
 * the rest.  ng_history_read() holds a shared lock on the file while it
 * reads, so an append made under the exclusive one (ng_file_append()) is
 * seen whole or not at all.
 *
 * Ownership: struct ng_history owns its warnings and, after
 * ng_history_load(), its entries; ng_history_release() frees them.  The
 * path is borrowed.  With ng_history_read() each entry is the reader's and
 * valid only during the callback: to keep its verdict, copy entry->doc
 * and set entry->doc to all zeros (the reader then releases nothing);
 * release the copy with ng_verdict_doc_release().  With
 * ng_history_read_lines() each line's text is borrowed for the callback. */
#ifndef NG_HISTORY_H
#define NG_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "history/ng_verdict_doc.h"
#include "util/ng_err.h"

#define NG_HISTORY_LINE_MAX ((size_t)16 << 20)
#define NG_HISTORY_WARNINGS_MAX 100

struct ng_history_entry {
    struct ng_verdict_doc doc;   /* the line's verdict */
    size_t line;                 /* its line number, from 1 */
};

struct ng_history {
    size_t line_max;             /* longest line read, in bytes (0 at init:
                                    NG_HISTORY_LINE_MAX); set before reading */
    size_t lines;                /* lines in the file, blank ones included */
    unsigned long long offset;   /* where the next line starts in the file (set with
                                    lines to read a part of a file) */
    size_t verdicts;             /* lines read as verdicts */
    size_t skipped;              /* lines skipped with a warning */
    char **warnings;             /* one line each, without "WARNING: " */
    size_t n_warnings;
    size_t *warning_line;        /* the line each warning names (0: none), for
                                    ng_history_join() */
    struct ng_history_entry *entries;   /* ng_history_load(): every verdict, in file order */
    size_t n_entries;
};

#define NG_HISTORY_INIT { 0, 0, 0, 0, 0, NULL, 0, NULL, NULL, 0 }

/* Called for each verdict, in file order; a non-zero return stops the
 * reading (ng_history_read() then returns 0). */
typedef int (*ng_history_fn)(struct ng_history_entry *entry, void *ctx);

/* Streams the file at path through fn.  Returns 0 (what was skipped is
 * in h->warnings), or -1 with err when the file cannot be opened or read
 * (a missing history is the caller's to judge). */
/* The file at path opened read-only under a shared lock (the one appends
 * wait for): its descriptor, or -1 with err ("unable to open 'PATH': ..."). */
int ng_history_open(const char *path, struct ng_err *err);

int ng_history_read(struct ng_history *h, const char *path, ng_history_fn fn, void *ctx,
                    struct ng_err *err);

/* The same from an open stream; name is the file's, for messages. */
int ng_history_read_stream(struct ng_history *h, FILE *f, const char *name, ng_history_fn fn,
                           void *ctx, struct ng_err *err);

/* One line as it stands in the file, for a caller that reads its lines
 * itself (the dashboard scans most of them, ng_trend_scan.h). */
struct ng_history_line {
    const char *text;            /* without its newline; not NUL-terminated */
    size_t len;
    size_t line;                 /* its line number, from 1 */
    unsigned long long offset;   /* where it starts in the file */
};

/* Called for each line that is not blank (nor too long): 0 when it was
 * read as a verdict, 1 the same and stop reading, or -1 with err when it
 * is not one: it is then skipped with the warning a bad line gets. */
typedef int (*ng_history_line_fn)(const struct ng_history_line *l, void *ctx,
                                  struct ng_err *err);

/* ng_history_read_stream() with the lines handed over as text: the same
 * blank, long, torn and counted lines, the same warnings. */
int ng_history_read_lines(struct ng_history *h, FILE *f, const char *name, ng_history_line_fn fn,
                          void *ctx, struct ng_err *err);

/* ng_history_read_lines() on the file at path, opened as ng_history_read()
 * opens it (read-only, under the shared lock). */
int ng_history_read_path_lines(struct ng_history *h, const char *path, ng_history_line_fn fn,
                               void *ctx, struct ng_err *err);

/* One line read whole as ng_history_read() reads it (fn called with its
 * verdict, as there), for a line callback that reads most lines another
 * way: 0, 1 to stop, or -1/-2 with err for the line's warning. */
int ng_history_verdict_line(const struct ng_history_line *l, ng_history_fn fn, void *ctx,
                            struct ng_err *err);

/* Gives the next bytes of the file: 1 with *chunk and *len (the bytes
 * stay valid until the next call), 0 at the end, -1 with errno. */
typedef int (*ng_history_chunk_fn)(void *ctx, const char **chunk, size_t *len);

/* The same over bytes handed over a chunk at a time (windows of a mapped
 * file, reads of a part of one: the file's bytes from h->offset on); a
 * line split between chunks is put together. */
int ng_history_read_chunks(struct ng_history *h, ng_history_chunk_fn next, void *next_ctx,
                           const char *name, ng_history_line_fn fn, void *ctx,
                           struct ng_err *err);

/* Adds b, the part of the same file that follows a's, to a: b renumbered
 * by a's lines, the counts added, and b's warnings after a's under the
 * one cap (the lines past it counted in one "N more lines skipped" at the
 * end), as reading the whole file at once would give them; b is released.
 * name: the file's, for that count. */
void ng_history_join(struct ng_history *a, struct ng_history *b, const char *name);

/* Reads every verdict of the file at path into h->entries. */
int ng_history_load(struct ng_history *h, const char *path, struct ng_err *err);

void ng_history_release(struct ng_history *h);

#endif
