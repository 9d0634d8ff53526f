/* ng_rocprof_json: rocprofv3's JSON output read into the event sink.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_ROCPROF_JSON_H
#define NG_ROCPROF_JSON_H

#include "core/ng_profile.h"
#include "util/ng_err.h"

struct ng_source_opts;

/* ng_source_kind's load. */
int ng_rocprof_json_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                        struct ng_err *err);

#endif
