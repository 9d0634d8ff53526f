/* ng_source_kind: what one input backend implements (a folder each:
 * sqlite/, nsysrep/, nsys_stats/, kineto/), and the registry that
 * ng_source.c walks.
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
    /* 1 when the first bytes are this kind's (content a magic cannot
     * tell, e.g. a JSON object); NULL if none */
    int (*sniff)(const unsigned char *head, size_t len);
    const char *const *extensions;      /* NULL-terminated, lower case, with dot */
    int (*load)(struct ng_profile *p, const char *path,
                const struct ng_source_opts *opts, struct ng_err *err);
    /* what the gate reads of this kind, for the refusal of a file that is
     * no profile at all ("nsys SQLite exports (.sqlite)") */
    const char *reads;
};

/* What the fallback reader (saved nsys stats text) returns when a file holds
 * nothing of any kind the gate reads (a README, a log, an image): err holds
 * only what the file is ("text with no nsys report"), and ng_source_load()
 * says that it is not a profile and lists, from the registry, what is read. */
#define NG_SOURCE_NOT_A_PROFILE (-2)

extern const struct ng_source_kind ng_source_sqlite;
extern const struct ng_source_kind ng_source_nsysrep;
extern const struct ng_source_kind ng_source_nsys_stats;
extern const struct ng_source_kind ng_source_kineto;

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

/* A Chrome trace's time (or any decimal JSON number), text[0..n), times
 * 10^scale, rounded to the nearest integer (halves away from zero) into
 * *out, exactly: ts and dur in microseconds with scale 3 are nanoseconds,
 * never through a double.  -1 when the text is not a JSON number or the
 * result does not fit 64 bits.  (The Kineto reader's, exposed for the
 * unit tests.) */
int ng_kineto_time_ns(const char *text, size_t n, int scale, int64_t *out);

#endif
