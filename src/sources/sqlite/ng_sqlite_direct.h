/* ng_sqlite_direct: the direct table reads.  A table SQLite would read
 * row by row is read instead by the page reader (ng_btree.h) under
 * SQLite's read lock, when the descriptor is provably SQLite's file and
 * the table is one the page reader reads as SQLite would; otherwise the
 * caller runs SQL, after ng_sqlite_direct_check() has walked the table's
 * b-trees, so that both paths give one answer on a damaged file.
 *
 * Ownership: cursors and statements returned are the caller's to close. */
#ifndef NG_SQLITE_DIRECT_H
#define NG_SQLITE_DIRECT_H

#include <stddef.h>

#include "sources/sqlite/ng_btree.h"
#include "sources/sqlite/ng_sqlite.h"
#include "util/ng_err.h"

struct sqlite3_stmt;
struct sqlite3_value;

/* What a driver selects, in order: a column of the table, or a constant
 * (a column an older export lacks). */
struct ng_sqlite_direct_col {
    const char *name;              /* NULL: konst */
    struct ng_btree_cell konst;
    int unused;                    /* a constant this pass never reads (the page reader
                                      then writes it on no row) */
};

/* Whether the page reader reads the tables: the descriptor is SQLite's
 * file, and not under --sqlite-sql-only. */
int ng_sqlite_direct_ok(struct ng_sqlite *rd, const char *path);

/* Holds SQLite's read lock while the page reader reads the file (the
 * statement is the caller's to finalize); NULL when it cannot. */
struct sqlite3_stmt *ng_sqlite_direct_hold(struct ng_sqlite *rd);

/* A page-reader cursor over the table's columns: 0 with *cur open, 1 the
 * page reader does not apply (the caller runs SQL), -1 with err. */
int ng_sqlite_direct_open(struct ng_sqlite *rd, const char *table,
                          const struct ng_sqlite_direct_col *c, size_t n,
                          struct ng_btree_cursor **cur, struct ng_err *err);

/* Every row of the table's columns into row(): 0 done, 1 the direct path
 * does not apply (the caller runs SQL), -1 with err (a bad row: the
 * caller's rd->problem; a malformed file). */
int ng_sqlite_direct_scan(struct ng_sqlite *rd, const char *table,
                          const struct ng_sqlite_direct_col *c, size_t n,
                          int (*row)(struct ng_sqlite *rd, const struct ng_btree_cell *c,
                                     size_t n),
                          struct ng_err *err);

/* Before SQL scans a table: its b-trees walked by the page reader, once
 * a table.  -1 with err when they are damaged. */
int ng_sqlite_direct_check(struct ng_sqlite *rd, const char *table, struct ng_err *err);

/* "'X' is a corrupt SQLite database: <why>, in <table>"; returns -1. */
int ng_sqlite_direct_corrupt(struct ng_sqlite *rd, const char *table, const struct ng_err *why,
                             struct ng_err *err);

/* A value of SQL as the page reader hands it over (a real that holds an
 * integer is that integer), one or n of them. */
struct ng_btree_cell ng_sqlite_direct_cell(struct sqlite3_value *v);
void ng_sqlite_direct_cells(struct sqlite3_value **v, int n, struct ng_btree_cell *c);

#endif
