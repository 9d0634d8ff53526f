/* The direct table reads: the page reader (ng_btree.c) reads a table
 * in storage order under SQLite's read lock, where that gives what SQL
 * would (a rowid table of plain columns whose defaults are integers), and
 * walks the b-trees SQL is about to read, so that a damaged file gets one
 * answer from both. */
#include "sources/sqlite/ng_sqlite_direct.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "sources/ng_source_opts.h"

static const struct ng_btree_cell NULL_CELL = { NG_BTREE_NULL, 0 };

/* ---- values ---- */

/* A value as the b-tree reader hands it over. */
struct ng_btree_cell ng_sqlite_direct_cell(sqlite3_value *v)
{
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        return (struct ng_btree_cell){ NG_BTREE_INT, sqlite3_value_int64(v) };
    case SQLITE_NULL:
        return NULL_CELL;
    case SQLITE_FLOAT: {
        int64_t i;
        if (ng_btree_real_int(sqlite3_value_double(v), &i))
            return (struct ng_btree_cell){ NG_BTREE_INT, i };
        return (struct ng_btree_cell){ NG_BTREE_OTHER, 0 };
    }
    default:
        return (struct ng_btree_cell){ NG_BTREE_OTHER, 0 };
    }
}

void ng_sqlite_direct_cells(sqlite3_value **v, int n, struct ng_btree_cell *c)
{
    for (int i = 0; i < n; i++)
        c[i] = ng_sqlite_direct_cell(v[i]);
}

/* ---- whether the page reader applies ---- */

static int64_t pragma_int(struct ng_sqlite *rd, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* Whether the descriptor is the file SQLite reads, as SQLite sees it: the
 * same inode as the path now, the same page size and schema cookie.  (A
 * database with a -wal file is refused before this; without one, every
 * committed page is in the file.) */
static int same_file(struct ng_sqlite *rd, const char *path)
{
    struct stat a, b;
    uint32_t page_size, cookie;
    struct ng_err e;

    if (rd->direct == 0) {
        rd->direct = -1;
        if (rd->fd >= 0 && fstat(rd->fd, &a) == 0 && stat(path, &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
            ng_btree_header(rd->fd, &page_size, &cookie, &e) == 0 &&
            pragma_int(rd, "PRAGMA page_size") == page_size &&
            pragma_int(rd, "PRAGMA schema_version") == cookie)
            rd->direct = 1;
    }
    return rd->direct > 0;
}

/* Whether the page reader reads the tables: not under --sqlite-sql-only. */
int ng_sqlite_direct_ok(struct ng_sqlite *rd, const char *path)
{
    return !rd->opts->sql_only && same_file(rd, path);
}

/* An integer literal default ("0", "-1"): its value. */
static int int_default(const char *d, int64_t *v)
{
    char *end;
    if (!d || !*d)
        return 0;
    errno = 0;
    long long x = strtoll(d, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

/* Whether a declared type gives TEXT affinity (SQLite's rules, in their
 * order: INT first, then CHAR, CLOB or TEXT).  A record without the
 * field reads as the default with that affinity applied: DEFAULT 3 of a
 * TEXT column is the text '3', which only SQL reads as SQL does. */
static int text_affinity(const char *type)
{
    char *t = ng_sqlite_lower(type ? type : "");
    int text = !strstr(t, "int") && (strstr(t, "char") || strstr(t, "clob") || strstr(t, "text"));
    free(t);
    return text;
}

/* The b-tree query for these columns of a rowid table: 1, or 0 when the
 * direct path cannot read the table as SQLite would (WITHOUT ROWID, a
 * default that is not a plain integer or whose column's affinity is TEXT,
 * a column past the reader's reach),
 * or -1 on an SQLite error. */
static int direct_query(struct ng_sqlite *rd, const char *table,
                        const struct ng_sqlite_direct_col *c, size_t n, struct ng_btree_query *q,
                        struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc, ok = 1;

    memset(q, 0, sizeof *q);
    q->n = n;
    rc = sqlite3_prepare_v2(rd->db, "SELECT rootpage, (SELECT wr FROM pragma_table_list "
                            "WHERE schema = 'main' AND name = ?1 COLLATE NOCASE) FROM "
                            "sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return 0;   /* an SQLite without pragma_table_list: the SQL path */
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t root = sqlite3_column_int64(st, 0);
        ok = root > 0 && root <= UINT32_MAX && sqlite3_column_int64(st, 1) == 0;
        q->root = (uint32_t)root;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 0 : ng_sqlite_error(rd, err, rc);
    for (size_t k = 0; k < n; k++) {
        q->col[k] = c[k].unused ? NG_BTREE_UNUSED : NG_BTREE_CONST;
        q->konst[k] = c[k].konst;
    }
    rc = sqlite3_prepare_v2(rd->db, "SELECT cid, name, type, dflt_value, pk, "
                            "(SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0), "
                            "(SELECT count(*) FROM pragma_index_list(?1) WHERE origin = 'pk') "
                            "FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *type = (const char *)sqlite3_column_text(st, 2);
        const char *dflt = (const char *)sqlite3_column_text(st, 3);
        int64_t cid = sqlite3_column_int64(st, 0), v = 0;
        /* the one INTEGER PRIMARY KEY column is the rowid itself, unless the
         * key has an index of its own (INTEGER PRIMARY KEY DESC, SQLite's
         * exception: then the value is a field of the record) */
        int rowid = sqlite3_column_int64(st, 4) == 1 && sqlite3_column_int64(st, 5) == 1 &&
                    sqlite3_column_int64(st, 6) == 0 && type && strcasecmp(type, "INTEGER") == 0;
        for (size_t k = 0; k < n && name; k++) {
            if (!c[k].name || strcasecmp(c[k].name, name) != 0)
                continue;
            if (cid > 250 || (dflt && (!int_default(dflt, &v) || text_affinity(type))))
                ok = 0;
            q->col[k] = rowid ? NG_BTREE_ROWID : (int)cid;
            q->konst[k] = dflt ? (struct ng_btree_cell){ NG_BTREE_INT, v } : NULL_CELL;
        }
    }
    sqlite3_finalize(st);
    if (ok && rc != SQLITE_DONE)
        return ng_sqlite_error(rd, err, rc);
    for (size_t k = 0; k < n; k++)
        ok &= !c[k].name || q->col[k] != NG_BTREE_CONST;
    return ok;
}

/* Holds SQLite's read lock while ng_btree reads the file: an active
 * statement keeps the read transaction (and a writer's commit out). */
sqlite3_stmt *ng_sqlite_direct_hold(struct ng_sqlite *rd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(rd->db, "SELECT 1 FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int ng_sqlite_direct_corrupt(struct ng_sqlite *rd, const char *table, const struct ng_err *why,
                             struct ng_err *err)
{
    return ng_err_set(err, "'%s' is a corrupt SQLite database: %s, in %s", rd->shown, why->msg,
                      table);
}

/* A page-reader cursor over the table's columns: 0 with *cur open, 1 the
 * page reader does not apply (the caller runs SQL), -1 with err. */
int ng_sqlite_direct_open(struct ng_sqlite *rd, const char *table,
                          const struct ng_sqlite_direct_col *c, size_t n,
                          struct ng_btree_cursor **cur, struct ng_err *err)
{
    struct ng_btree_query q;
    struct ng_err why;

    int ok = direct_query(rd, table, c, n, &q, err);
    if (ok <= 0)
        return ok < 0 ? -1 : 1;
    *cur = ng_btree_open(rd->fd, &q, &why);
    return *cur ? 0 : ng_sqlite_direct_corrupt(rd, table, &why, err);
}

/* Every row of the table's columns into row(): 0 done, 1 the direct path
 * does not apply (the caller runs SQL), -1 with err (a bad row: the
 * caller's rd->problem; a malformed file). */
int ng_sqlite_direct_scan(struct ng_sqlite *rd, const char *table,
                          const struct ng_sqlite_direct_col *c, size_t n,
                          int (*row)(struct ng_sqlite *rd, const struct ng_btree_cell *c,
                                     size_t n),
                          struct ng_err *err)
{
    struct ng_btree_cell cells[NG_BTREE_COLS] = { { 0, 0 } };   /* unused ones stay so */
    struct ng_btree_cursor *cur;
    struct ng_err why;

    if (!ng_sqlite_direct_ok(rd, rd->path))
        return 1;
    sqlite3_stmt *lock = ng_sqlite_direct_hold(rd);
    if (!lock)
        return 1;
    int r = ng_sqlite_direct_open(rd, table, c, n, &cur, err);
    if (r == 0) {
        while ((r = ng_btree_next(cur, cells, &why)) == 1)
            if (row(rd, cells, n) < 0) {
                r = -2;   /* a bad row: rd->problem says why */
                break;
            }
        ng_btree_close(cur);
        r = r == -1 ? ng_sqlite_direct_corrupt(rd, table, &why, err) : r == -2 ? -1 : 0;
    }
    sqlite3_finalize(lock);
    return r;
}

/* Before SQL scans a table: the page reader's walk of its b-tree and of
 * its indexes' (SQLite may scan one instead), every page once.  SQLite's
 * cursor reads a leaf that an interior page lists twice and counts its
 * rows twice, where the page reader refuses the file: both paths must
 * give the same answer.  Once a table; 0 also when the descriptor is not
 * SQLite's file (a replaced file is refused by the caller as changed). */
int ng_sqlite_direct_check(struct ng_sqlite *rd, const char *table, struct ng_err *err)
{
    struct ng_sqlite_object *o = (struct ng_sqlite_object *)ng_sqlite_schema_find(rd, table);
    sqlite3_stmt *st, *lock;
    struct ng_err why;
    int rc, ret = 0;

    if ((o && o->tree_ok) || !same_file(rd, rd->path) || !(lock = ng_sqlite_direct_hold(rd)))
        return 0;
    rc = sqlite3_prepare_v2(rd->db, "SELECT rootpage FROM sqlite_master WHERE tbl_name = ?1 "
                            "COLLATE NOCASE AND type IN ('table', 'index') AND rootpage > 0",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(lock);
        return ng_sqlite_error(rd, err, rc);
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t root = sqlite3_column_int64(st, 0);
        if (root <= UINT32_MAX && ng_btree_check(rd->fd, (uint32_t)root, &why) < 0)
            ret = ng_err_set(err, "'%s' is a corrupt SQLite database: %s, in %s (its b-tree, "
                             "checked before SQL reads it)", rd->shown, why.msg, table);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(lock);
    if (ret == 0 && rc != SQLITE_DONE)
        return ng_sqlite_error(rd, err, rc);
    if (ret == 0 && o)
        o->tree_ok = 1;
    return ret;
}
