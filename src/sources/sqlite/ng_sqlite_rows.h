/* ng_sqlite_rows: an SQLite database read by a reader of another
 * profiler's format (rocprofv3's rocpd), which never includes <sqlite3.h>:
 * the database opened as the nsys backend opens its exports (read-only,
 * nothing written beside it, under the same budget, errors in the same
 * words), the tables whose names are a stem and a uuid suffix, a query's
 * rows as integers, texts, blobs or NULLs, and a table's integer columns
 * scanned by the page reader (ng_sqlite_direct.h) where it reads the
 * table as SQLite would, by SQL otherwise, with one answer either way
 * (--sqlite-sql-only forces SQL).
 *
 * Ownership: the database is the caller's to close; the suffixes and a
 * row's values belong to the database (a row's texts live until the
 * callback returns). */
#ifndef NG_SQLITE_ROWS_H
#define NG_SQLITE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_err.h"
#include "util/ng_util.h"

struct ng_source_opts;
struct ng_sqlite_rows;

enum ng_sqlite_rows_type {
    NG_SQLITE_ROWS_NULL,
    NG_SQLITE_ROWS_INT,      /* an integer, or a real that holds one */
    NG_SQLITE_ROWS_TEXT,
    NG_SQLITE_ROWS_BLOB,
    NG_SQLITE_ROWS_OTHER     /* a real that holds no integer; a scan's text or blob */
};

struct ng_sqlite_rows_value {
    enum ng_sqlite_rows_type type;
    int64_t i;
    const unsigned char *s;  /* TEXT (NUL-terminated) and BLOB */
    size_t len;
};

/* A row of n values; nonzero stops the read: -1 with err set. */
typedef int (*ng_sqlite_rows_fn)(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                                 struct ng_err *err);

/* Opens path (shown names it in messages) with its schema read; NULL with
 * err when it cannot be read as an SQLite database. */
struct ng_sqlite_rows *ng_sqlite_rows_open(const char *path, const char *shown,
                                           const struct ng_source_opts *opts,
                                           struct ng_err *err);
void ng_sqlite_rows_close(struct ng_sqlite_rows *db);

/* 1 when the database has a real table of that name (a view is not). */
int ng_sqlite_rows_has_table(const struct ng_sqlite_rows *db, const char *name);

/* The suffixes s of the real tables named stem + s, where s is "_" and a
 * UUID with '_' for '-' (8-4-4-4-12 hex digits), in sorted order. */
void ng_sqlite_rows_suffixes(const struct ng_sqlite_rows *db, const char *stem,
                             const char ***out, size_t *n);

/* 1 when the table has the column, 0 not, -1 with err. */
int ng_sqlite_rows_has_column(struct ng_sqlite_rows *db, const char *table, const char *col,
                              struct ng_err *err);

/* "name" quoted as an SQL identifier onto b. */
void ng_sqlite_rows_ident(struct ng_buf *b, const char *name);

/* Every row of the query into fn.  0, or -1 with err (SQLite's error in
 * words, or fn's). */
int ng_sqlite_rows_query(struct ng_sqlite_rows *db, const char *sql, ng_sqlite_rows_fn fn,
                         void *ctx, struct ng_err *err);

/* Every row of table's columns cols[0..n) (at most 8) into fn, in rowid
 * order: INT, NULL or OTHER values only.  0, or -1 with err. */
int ng_sqlite_rows_scan(struct ng_sqlite_rows *db, const char *table, const char *const *cols,
                        size_t n, ng_sqlite_rows_fn fn, void *ctx, struct ng_err *err);

/* The text at path ("$.message") of the JSON text[0..len) into out, by
 * SQLite's own JSON reader (a member another type holds, or none: 0; a
 * text: 1); -1 with err when text is not JSON. */
int ng_sqlite_rows_json(struct ng_sqlite_rows *db, const void *text, size_t len,
                        const char *path, struct ng_buf *out, struct ng_err *err);

/* Whether the last scan was read by the page reader (1) or by SQL (0). */
int ng_sqlite_rows_paged(const struct ng_sqlite_rows *db);

#endif
