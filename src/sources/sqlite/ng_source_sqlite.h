/* ng_source_sqlite: the nsys SQLite export backend (ng_source_kind.h),
 * and its reader for the .nsys-rep backend, which reads the export nsys
 * made of a report.
 *
 * Ownership: as in ng_source.h; the profile is the caller's. */
#ifndef NG_SOURCE_SQLITE_H
#define NG_SOURCE_SQLITE_H

#include "core/ng_profile.h"
#include "sources/ng_source_kind.h"
#include "util/ng_err.h"

extern const struct ng_source_kind ng_source_sqlite;

/* Reads an nsys SQLite export at db_path into p (the nsys-rep backend
 * calls this on its temporary export).  `shown` names the file in
 * messages. */
int ng_source_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                          const struct ng_source_opts *opts, struct ng_err *err);

#endif
