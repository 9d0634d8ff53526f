/* Another profiler's SQLite database, through the nsys backend's opening,
 * budget and page reader: the reader it serves sees rows of values only. */
#include "sources/sqlite/ng_sqlite_rows.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sources/sqlite/ng_sqlite.h"
#include "sources/sqlite/ng_sqlite_direct.h"

#define UUID_LEN 37   /* "_" + 8-4-4-4-12 */

struct ng_sqlite_rows {
    struct ng_sqlite rd;     /* first: the page reader's callback gets &rd */
    ng_sqlite_rows_fn fn;
    void *ctx;
    struct ng_err *row_err;
    int paged;
    const char **suffixes;
    size_t n_suffixes;
    sqlite3_stmt *json;      /* ng_sqlite_rows_json's, prepared once */
};

struct ng_sqlite_rows *ng_sqlite_rows_open(const char *path, const char *shown,
                                           const struct ng_source_opts *opts,
                                           struct ng_err *err)
{
    struct ng_sqlite_rows *db = ng_xcalloc(1, sizeof *db);
    db->rd.shown = shown;
    db->rd.opts = opts;
    db->rd.fd = -1;
    if (ng_sqlite_open(&db->rd, path, err) < 0 || ng_sqlite_read_schema(&db->rd, err) < 0) {
        ng_sqlite_rows_close(db);
        return NULL;
    }
    return db;
}

void ng_sqlite_rows_close(struct ng_sqlite_rows *db)
{
    if (!db)
        return;
    sqlite3_finalize(db->json);
    ng_sqlite_close(&db->rd);
    free(db->suffixes);
    free(db);
}

int ng_sqlite_rows_has_table(const struct ng_sqlite_rows *db, const char *name)
{
    const struct ng_sqlite_object *o = ng_sqlite_schema_find(&db->rd, name);
    return o && o->is_table;
}

/* "_" and a UUID's 32 hex digits in groups of 8-4-4-4-12, '_' between. */
static int uuid_suffix(const char *s)
{
    static const char shape[] = "_xxxxxxxx_xxxx_xxxx_xxxx_xxxxxxxxxxxx";
    if (strlen(s) != UUID_LEN)
        return 0;
    for (size_t k = 0; k < UUID_LEN; k++)
        if (shape[k] == '_' ? s[k] != '_' : !strchr("0123456789abcdef", s[k]))
            return 0;
    return 1;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Schema names are kept in lower case: a UUID's hex digits compare so. */
void ng_sqlite_rows_suffixes(const struct ng_sqlite_rows *db, const char *stem,
                             const char ***out, size_t *n)
{
    struct ng_sqlite_rows *w = (struct ng_sqlite_rows *)db;
    size_t len = strlen(stem);
    w->n_suffixes = 0;
    for (size_t i = 0; i < db->rd.n_schema; i++) {
        const struct ng_sqlite_object *o = &db->rd.schema[i];
        if (!o->is_table || strncmp(o->name, stem, len) != 0 || !uuid_suffix(o->name + len))
            continue;
        w->suffixes = ng_xgrow(w->suffixes, w->n_suffixes, sizeof *w->suffixes);
        w->suffixes[w->n_suffixes++] = o->shown + len;
    }
    if (w->n_suffixes > 1)   /* qsort's array may not be NULL, even of none */
        qsort(w->suffixes, w->n_suffixes, sizeof *w->suffixes, by_text);
    *out = w->suffixes;
    *n = w->n_suffixes;
}

int ng_sqlite_rows_has_column(struct ng_sqlite_rows *db, const char *table, const char *col,
                              struct ng_err *err)
{
    return ng_sqlite_has_column(&db->rd, table, col, err);
}

void ng_sqlite_rows_ident(struct ng_buf *b, const char *name)
{
    ng_sqlite_add_ident(b, name);
}

int ng_sqlite_rows_paged(const struct ng_sqlite_rows *db)
{
    return db->paged;
}

/* ---- values ---- */

static struct ng_sqlite_rows_value of_cell(struct ng_btree_cell c)
{
    static const enum ng_sqlite_rows_type types[] = {
        [NG_BTREE_NULL] = NG_SQLITE_ROWS_NULL,
        [NG_BTREE_INT] = NG_SQLITE_ROWS_INT,
        [NG_BTREE_OTHER] = NG_SQLITE_ROWS_OTHER,
    };
    return (struct ng_sqlite_rows_value){ types[c.type], c.i, NULL, 0 };
}

/* A query's column, texts and blobs included. */
static struct ng_sqlite_rows_value of_column(sqlite3_stmt *st, int k)
{
    struct ng_sqlite_rows_value v = of_cell(ng_sqlite_direct_cell(sqlite3_column_value(st, k)));
    switch (sqlite3_column_type(st, k)) {
    case SQLITE_TEXT:
        v.type = NG_SQLITE_ROWS_TEXT;
        v.s = sqlite3_column_text(st, k);
        v.len = (size_t)sqlite3_column_bytes(st, k);
        break;
    case SQLITE_BLOB:
        v.type = NG_SQLITE_ROWS_BLOB;
        v.s = sqlite3_column_blob(st, k);
        v.len = (size_t)sqlite3_column_bytes(st, k);
        break;
    default:
        break;
    }
    return v;
}

/* ---- reading ---- */

/* Steps st to its end, each row into fn; scan: values as a scan gives
 * them (integers or not), so SQL and the page reader agree. */
static int step_rows(struct ng_sqlite_rows *db, sqlite3_stmt *st, int scan, ng_sqlite_rows_fn fn,
                     void *ctx, struct ng_err *err)
{
    struct ng_sqlite_rows_value v[NG_BTREE_COLS];
    int n = sqlite3_column_count(st), rc;
    if (n > NG_BTREE_COLS)
        n = NG_BTREE_COLS;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int k = 0; k < n; k++) {
            v[k] = scan ? of_cell(ng_sqlite_direct_cell(sqlite3_column_value(st, k)))
                        : of_column(st, k);
        }
        if (fn(ctx, v, (size_t)n, err) < 0)
            return -1;
    }
    return rc == SQLITE_DONE ? 0 : ng_sqlite_error(&db->rd, err, rc);
}

static int run_sql(struct ng_sqlite_rows *db, const char *sql, int scan, ng_sqlite_rows_fn fn,
                   void *ctx, struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db->rd.db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(&db->rd, err, rc);
    rc = step_rows(db, st, scan, fn, ctx, err);
    sqlite3_finalize(st);
    return rc;
}

int ng_sqlite_rows_query(struct ng_sqlite_rows *db, const char *sql, ng_sqlite_rows_fn fn,
                         void *ctx, struct ng_err *err)
{
    return run_sql(db, sql, 0, fn, ctx, err);
}

/* The page reader's row, handed on as values. */
static int paged_row(struct ng_sqlite *rd, const struct ng_btree_cell *c, size_t n)
{
    struct ng_sqlite_rows *db = (struct ng_sqlite_rows *)rd;
    struct ng_sqlite_rows_value v[NG_BTREE_COLS];
    for (size_t k = 0; k < n; k++)
        v[k] = of_cell(c[k]);
    return db->fn(db->ctx, v, n, db->row_err);
}

int ng_sqlite_rows_scan(struct ng_sqlite_rows *db, const char *table, const char *const *cols,
                        size_t n, ng_sqlite_rows_fn fn, void *ctx, struct ng_err *err)
{
    struct ng_sqlite_direct_col c[NG_BTREE_COLS];
    struct ng_buf sql = NG_BUF_INIT;
    int rc;

    if (n == 0 || n > NG_BTREE_COLS)
        return ng_err_set(err, "'%s': a scan of %zu columns of %s", db->rd.shown, n, table);
    for (size_t k = 0; k < n; k++)
        c[k] = (struct ng_sqlite_direct_col){ cols[k], { NG_BTREE_NULL, 0 }, 0 };
    db->fn = fn;
    db->ctx = ctx;
    db->row_err = err;
    /* a row fn refused ends the scan with err set by fn: the page reader's
     * -1 then is fn's (rd.problem stays NULL) */
    db->paged = 1;
    rc = ng_sqlite_direct_scan(&db->rd, table, c, n, paged_row, err);
    if (rc != 1)
        return rc;
    db->paged = 0;
    if (ng_sqlite_direct_check(&db->rd, table, err) < 0)
        return -1;
    ng_buf_adds(&sql, "SELECT ");
    for (size_t k = 0; k < n; k++) {
        ng_buf_adds(&sql, k ? ", " : "");
        ng_sqlite_add_ident(&sql, cols[k]);
    }
    ng_buf_adds(&sql, " FROM ");
    ng_sqlite_add_ident(&sql, table);
    ng_buf_adds(&sql, " ORDER BY rowid");   /* the page reader's order, not an index's */
    rc = run_sql(db, sql.data, 1, fn, ctx, err);
    ng_buf_release(&sql);
    return rc;
}

int ng_sqlite_rows_json(struct ng_sqlite_rows *db, const void *text, size_t len,
                        const char *path, struct ng_buf *out, struct ng_err *err)
{
    int rc = SQLITE_OK, found = 0;
    if (len > INT32_MAX)
        return ng_err_set(err, "'%s': a JSON text of %zu bytes", db->rd.shown, len);
    if (!db->json)
        rc = sqlite3_prepare_v2(db->rd.db, "SELECT json_extract(?1, ?2)", -1, &db->json, NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(&db->rd, err, rc);
    sqlite3_bind_text(db->json, 1, text, (int)len, SQLITE_STATIC);
    sqlite3_bind_text(db->json, 2, path, -1, SQLITE_STATIC);
    rc = sqlite3_step(db->json);
    if (rc == SQLITE_ROW && sqlite3_column_type(db->json, 0) == SQLITE_TEXT) {
        out->len = 0;
        ng_buf_add(out, sqlite3_column_text(db->json, 0),
                   (size_t)sqlite3_column_bytes(db->json, 0));
        found = 1;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ng_err_set(err, "%s", sqlite3_errmsg(db->rd.db));
    sqlite3_reset(db->json);
    sqlite3_clear_bindings(db->json);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : -1;
}
