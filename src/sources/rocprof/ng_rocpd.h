/* ng_rocpd: rocprofv3's rocpd SQLite database (ROCm 7's default output)
 * read into a profile through the event sink (sources/ng_source_events.h),
 * set up as for rocprofv3's other formats (ng_rocprof_feed.h).
 * The file is told by its tables (rocpd_metadata_<uuid>), not its name.
 * A file holds one table set per process, its tables named with a uuid
 * suffix (a merged database holds several); every set is read, its ids
 * keyed by the set (the set's suffix is its guid), never through the
 * unsuffixed views (the lz4 variant's need an SQL function plain SQLite
 * lacks).  Schema 3 and 4 (4.1.0's rocpd_track holds the process, thread
 * and agent) are read, told apart by the dispatch table's columns; another
 * schema_version is refused with its number.
 *
 * Kernels: rocpd_kernel_dispatch, named by rocpd_info_kernel_symbol's
 * display_name (full; base: ng_kernel_base_name of it).  Copies:
 * rocpd_memory_copy, named as the nsys reader names them.  GPUs: the
 * agent's type_index (the device id) and product_name (the machine).
 * Processes: rocpd_info_process.pid.  Steps: ROCTx ranges (regions whose
 * event's category is MARKER_CORE_RANGE_API; their text is the event's
 * extdata "message", an LZ4 frame in the lz4 variant), a dispatch counted
 * in the range that held its HIP launch call on the same thread (the
 * region whose id is the dispatch event's stack_id), or by its GPU start
 * when the file has no API calls (with a warning).
 *
 * Ownership: the profile is the caller's; nothing else outlives a call. */
#ifndef NG_ROCPD_H
#define NG_ROCPD_H

#include "core/ng_profile.h"
#include "util/ng_err.h"

struct ng_source_opts;

/* 1 when path is a rocpd database (an SQLite file with a rocpd_metadata
 * table set and no nsys export's tables), 0 otherwise. */
int ng_rocpd_claim(const char *path);

/* Reads the database into p (finished), or -1 with err. */
int ng_rocpd_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                  struct ng_err *err);

#endif
