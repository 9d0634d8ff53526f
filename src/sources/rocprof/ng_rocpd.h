/* ng_rocpd: the rocpd SQLite database rocprofv3 writes by default
 * (`<pid>_results.db`): told from an nsys export by its tables, read
 * into the event sink.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_ROCPD_H
#define NG_ROCPD_H

#include "core/ng_profile.h"
#include "util/ng_err.h"

struct ng_source_opts;

/* 1 when the SQLite file at path is a rocpd database (ng_source_kind's
 * claim). */
int ng_rocpd_claim(const char *path);

/* ng_source_kind's load. */
int ng_rocpd_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                  struct ng_err *err);

#endif
