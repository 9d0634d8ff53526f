/* ng_sqlite_work: the work pass of the SQLite backend.  GPU work comes
 * from one table per kind (ng_sqlite_work_tables[]: kernels, whole-graph
 * launches, memcpy, memset).  The counted tables are read side by side in
 * one merged scan in order of start (the breakdown's unions need each
 * device's intervals in order, whatever the metric), by the page reader
 * where it applies (ng_sqlite_direct.h), else by SQL; when a table turns
 * out not to be in time order (nsys 2025.6+ does not promise it), once
 * more with each table sorted.  Each row goes to its item (kind, key),
 * its (process, device) pair, and the accumulator or, in NVTX mode, the
 * projection.  What a table holds of kinds --work does not count is
 * measured, not read row by row through the items.
 *
 * Ownership: the items, pairs and the accumulator are the reader's
 * (ng_sqlite.h), freed by ng_sqlite_work_release(). */
#ifndef NG_SQLITE_WORK_H
#define NG_SQLITE_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_profile.h"
#include "sources/sqlite/ng_sqlite.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

/* One work kind: where its rows are and how its items are named. */
struct ng_sqlite_work_table {
    enum ng_work_kind kind;
    const char *table;
    const char *key_col;      /* the column that tells items apart; NULL: one item */
    int (*name)(struct ng_sqlite *rd, int64_t key, struct ng_buf *out);
    const char *what;         /* for messages: "memory operations" */
};

/* The work kinds, a row each (one per kind of enum ng_work_kind, in its
 * order). */
#define NG_SQLITE_WORK_TABLES 4
extern const struct ng_sqlite_work_table ng_sqlite_work_tables[NG_SQLITE_WORK_TABLES];

/* One work item being summed: (kind, key) -> these. */
struct ng_sqlite_work_item {
    enum ng_work_kind kind;
    int64_t key;
    int64_t total_ns, count;
    int state;               /* the filter's choice: 0 not asked yet, 1 counted, -1 left out */
    enum ng_work_class cls;  /* for the breakdown, chosen with state */
};

/* Where work ran: one (process, device) pair, summed row by row; the
 * device and process lists are built from these at the end.  Rows come
 * in long runs of one pair, so the last one is checked first. */
struct ng_sqlite_work_pair {
    int64_t gpid, device;
    int64_t ns, launches;
};

/* The kernel table nsys's own reports read (CUPTI_ACTIVITY_KIND_KERNEL),
 * else the newest _Vn successor (rd->kernel_table; NULL: none).  Every
 * other kernel table is named in a warning of p.  -1 with err set. */
int ng_sqlite_work_find_kernel_table(struct ng_sqlite *rd, struct ng_profile *p,
                                     struct ng_err *err);

/* The names' look-ups (ng_sqlite_names.h), and which column names a
 * kernel: shortName with --kernel-names base where the kernel table has
 * one, else the demangled name (its base derived, with base names). */
int ng_sqlite_work_prepare_names(struct ng_sqlite *rd, struct ng_err *err);

/* Which kinds the profile has tables for (*present, NG_WORK_BIT), and
 * into p how much of each kind --work does not count it holds. */
int ng_sqlite_work_survey(struct ng_sqlite *rd, struct ng_profile *p, unsigned *present,
                          struct ng_err *err);

/* Reads every counted table the profile has (of present): the items,
 * pairs and the accumulator or projection.  -1 with err set. */
int ng_sqlite_work_read(struct ng_sqlite *rd, unsigned present, struct ng_err *err);

/* An item's name as the verdict shows it. */
void ng_sqlite_work_item_name(struct ng_sqlite *rd, const struct ng_sqlite_work_item *it,
                              struct ng_buf *out);

/* The kernel filters' choice for an item, and its class for the
 * breakdown; -1 (rd->problem) when a pattern went over its budget. */
int ng_sqlite_work_choose(struct ng_sqlite *rd, struct ng_sqlite_work_item *it);

void ng_sqlite_work_release(struct ng_sqlite *rd);

#endif
