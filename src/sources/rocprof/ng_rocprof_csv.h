/* ng_rocprof_csv: rocprofv3's CSV output read into the event sink.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_ROCPROF_CSV_H
#define NG_ROCPROF_CSV_H

#include "core/ng_profile.h"
#include "util/ng_err.h"

struct ng_source_opts;

/* ng_source_kind's claim: a file (its header was sniffed), or a directory
 * holding a rocprofv3 trace CSV (kernel_trace.csv, memory_copy_trace.csv,
 * marker_api_trace.csv, hip_api_trace.csv, each with or without a
 * `<pid>_` prefix). */
int ng_rocprof_csv_claim(const char *path);

/* ng_source_kind's load. */
int ng_rocprof_csv_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                        struct ng_err *err);

#endif
