/* ng_source_kind: what one input backend implements (one file each:
 * ng_source_sqlite.c, ng_source_nsysrep.c, ng_source_nsys_stats.c), and the
 * registry that ng_source.c walks.
 *
 * Ownership: as in ng_source.h.  Backends fill the profile they are given
 * and finish it with ng_profile_finish(). */
#ifndef NG_SOURCE_KIND_H
#define NG_SOURCE_KIND_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "core/ng_profile.h"
#include "util/ng_err.h"

/* Callers' options (ng_source.h): a backend includes both headers. */
struct ng_source_opts;

struct ng_source_kind {
    enum ng_format format;
    const char *magic;                  /* leading bytes, NULL if none */
    size_t magic_len;
    const char *const *extensions;      /* NULL-terminated, lower case, with dot */
    int (*load)(struct ng_profile *p, const char *path,
                const struct ng_source_opts *opts, struct ng_err *err);
};

extern const struct ng_source_kind ng_source_sqlite;
extern const struct ng_source_kind ng_source_nsysrep;
extern const struct ng_source_kind ng_source_nsys_stats;

/* Reads an nsys SQLite export at db_path into p (the nsys-rep backend
 * calls this on its temporary export).  `shown` names the file in
 * messages. */
int ng_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                   const struct ng_source_opts *opts, struct ng_err *err);

/* Parses saved `nsys stats` text from an open stream (the CSV backend's
 * core, exposed for the unit tests, which feed it from memory).  Of opts
 * only `work` is read (NULL: the default kinds). */
int ng_nsys_stats_parse_stream(struct ng_profile *p, FILE *f, const char *shown,
                        const struct ng_source_opts *opts, struct ng_err *err);

#endif
