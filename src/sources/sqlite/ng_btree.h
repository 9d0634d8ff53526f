/* ng_btree: reads the rows of one rowid table of an SQLite database file
 * straight from its pages (the SQLite file format, sqlite.org/fileformat),
 * without SQLite's virtual machine: a row costs a look at its record
 * header (the field offsets of the last record with the same header bytes
 * are reused, which is most rows of a table) and the fields asked for,
 * where a query costs an opcode loop per column.  The SQLite backend uses it for its big scans (the work tables
 * and the runtime calls) once SQLite itself has opened the file, read the
 * schema and checked the table; everything else stays SQLite's.
 *
 * Only what a scan needs is read: the file header (page size, reserved
 * bytes), interior and leaf pages of table b-trees, and overflow chains.
 * Every page is visited at most once (a page reached twice, a page
 * number past the file or the header's page count, a cell outside its
 * page, a chain longer than the file are "malformed"), and what SQLite's
 * own cursor calls corrupt is malformed too (a page below the root with
 * no cells, a tree deeper than 20 pages), so the work is bounded by the file's size and
 * no file can make a scan loop.  Leaves under one interior page that lie
 * side by side in the file are read with one pread.
 *
 * Ownership: a cursor borrows the descriptor and owns its buffers;
 * ng_btree_close() frees them.  Several cursors may read one descriptor
 * (pread only), and cursors may run in different threads at once. */
#ifndef NG_BTREE_H
#define NG_BTREE_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_err.h"

enum ng_btree_type { NG_BTREE_NULL, NG_BTREE_INT, NG_BTREE_OTHER };

/* One field of a row: its type, and its value when an integer (a real
 * whose value is an integer is that integer: ng_btree_real_int). */
struct ng_btree_cell {
    enum ng_btree_type type;
    int64_t i;
};

#define NG_BTREE_COLS 8
#define NG_BTREE_ROWID (-1)    /* col[]: the row's rowid (an INTEGER PRIMARY KEY column) */
#define NG_BTREE_CONST (-2)    /* col[]: always konst[] (a column the table lacks) */
#define NG_BTREE_UNUSED (-3)   /* col[]: a cell the caller never reads: a row leaves it as
                                  it was (or konst[]), so no row pays for it */

/* What to read of each row: cell k is field col[k] of the record (its
 * column's index in the table), the rowid, or a constant.  A record with
 * fewer fields (a column added later by ALTER TABLE) gives konst[k] for
 * the ones it lacks: the column's default. */
struct ng_btree_query {
    uint32_t root;             /* the table's root page */
    size_t n;                  /* cells a row, at most NG_BTREE_COLS */
    int col[NG_BTREE_COLS];
    struct ng_btree_cell konst[NG_BTREE_COLS];
};

struct ng_btree_cursor;

/* A cursor over the table's rows, in rowid order; NULL with err ("page 12
 * of the table: ...") when the root cannot be read. */
struct ng_btree_cursor *ng_btree_open(int fd, const struct ng_btree_query *q,
                                      struct ng_err *err);

/* The next row into cells (q->n of them): 1 a row, 0 the end, -1 with err
 * when the file is malformed or cannot be read (the cursor is done). */
int ng_btree_next(struct ng_btree_cursor *c, struct ng_btree_cell *cells, struct ng_err *err);

void ng_btree_close(struct ng_btree_cursor *c);

/* The shape of the b-tree at root (a table's, or an index's: a WITHOUT
 * ROWID table, an index): its interior pages under the checks a cursor
 * makes, every child visited once; leaves (and pages of no b-tree, where
 * an interior page belongs) are left to SQLite's own checks, no record
 * is read.  0, or -1 with err when it is malformed.
 * What the SQL path runs before SQLite scans a table: SQLite's cursor
 * would read a page that two interior cells list twice. */
int ng_btree_check(int fd, uint32_t root, struct ng_err *err);

/* Whether d is an integer of 64 bits, *v: a REAL column stores an
 * integer-valued real as an integer and SQL reads it back as a real, so
 * both readers take an integer-valued real as that integer (a work row's
 * figures are integers: never a row dropped for its column's type). */
int ng_btree_real_int(double d, int64_t *v);

/* The header fields a caller checks against SQLite's view of the file:
 * the page size and the schema cookie.  -1 with err if it is not an
 * SQLite file this reader can read. */
int ng_btree_header(int fd, uint32_t *page_size, uint32_t *schema_cookie, struct ng_err *err);

#endif
