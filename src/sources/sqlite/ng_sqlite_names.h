/* ng_sqlite_names: how the SQLite backend names a work item from the id
 * its rows carry: a kernel by its StringIds text, a whole-graph launch by
 * its graph id, a copy by its kind as nsys's cuda_gpu_mem_time_sum names
 * it, a set as "[CUDA memset]".  The rules are the name column of the
 * work tables (ng_sqlite_work.c).
 *
 * Ownership: names are appended to the caller's buffer; the StringIds
 * statement is the reader's, prepared by ng_sqlite_names_open() and
 * finalized by ng_sqlite_names_close(). */
#ifndef NG_SQLITE_NAMES_H
#define NG_SQLITE_NAMES_H

#include <stdint.h>

#include "sources/sqlite/ng_sqlite.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

/* Prepares the StringIds look-up when the export has the table (names
 * are looked up while rows are read, when a kernel filter decides on an
 * item's first row).  -1 with err when StringIds is no real table. */
int ng_sqlite_names_open(struct ng_sqlite *rd, struct ng_err *err);
void ng_sqlite_names_close(struct ng_sqlite *rd);

/* An item's name by its key, appended to out; 0 (a missing name becomes
 * a placeholder naming the id). */
int ng_sqlite_names_string(struct ng_sqlite *rd, int64_t key, struct ng_buf *out);
int ng_sqlite_names_graph(struct ng_sqlite *rd, int64_t key, struct ng_buf *out);
int ng_sqlite_names_memcpy(struct ng_sqlite *rd, int64_t key, struct ng_buf *out);
int ng_sqlite_names_memset(struct ng_sqlite *rd, int64_t key, struct ng_buf *out);

#endif
