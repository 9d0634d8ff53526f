/* ng_sqlite_nvtx: the NVTX projection queries of the SQLite backend.  In
 * NVTX mode the epoch ranges and the launch calls go into the projection
 * before the work pass (ng_sqlite_work.h) ties each row to its call; for
 * `nsys-gate ranges`, every named range with the kernel time launched
 * inside it.
 *
 * Ownership: the projection is the caller's (rd->pj points at it); the
 * listed ranges are the profile's (p->ranges). */
#ifndef NG_SQLITE_NVTX_H
#define NG_SQLITE_NVTX_H

#include "core/ng_profile.h"
#include "sources/sqlite/ng_sqlite.h"
#include "util/ng_err.h"

struct ng_nvtx;

/* Ranges and launch calls into pj (initialised here with the options'
 * pattern, metric and skip; rd->pj set), before the work is read: -1 with
 * err when the export has no ranges or calls to tie work to epochs, or no
 * range matches --epoch-range.  Warns in p of ranges that never ended. */
int ng_sqlite_nvtx_prepare(struct ng_sqlite *rd, struct ng_nvtx *pj, struct ng_profile *p,
                           struct ng_err *err);

/* p->ranges: every named range that ended on its own thread, with its
 * depth and the kernel time launched inside it (none without NVTX_EVENTS). */
int ng_sqlite_nvtx_list_ranges(struct ng_sqlite *rd, struct ng_profile *p, struct ng_err *err);

#endif
