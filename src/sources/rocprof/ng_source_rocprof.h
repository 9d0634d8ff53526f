/* ng_source_rocprof: AMD's rocprofv3 (ROCprofiler-SDK) output, three
 * input kinds (ng_source_kind.h) of one tool: the rocpd SQLite database
 * (ng_rocpd.c), the JSON (ng_rocprof_json.c, plain or gzip) and the CSV
 * files or their directory (ng_rocprof_csv.c).  Each reads its format and
 * hands the events to the event sink (sources/ng_source_events.h), so the
 * three make the same profile of the same run.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_SOURCE_ROCPROF_H
#define NG_SOURCE_ROCPROF_H

#include "sources/ng_source_kind.h"

extern const struct ng_source_kind ng_source_rocprof_rocpd;
extern const struct ng_source_kind ng_source_rocprof_json;
extern const struct ng_source_kind ng_source_rocprof_csv;

#endif
