/* ng_cache: the export cache for .nsys-rep inputs.  A report used by every
 * CI run (the baseline) is exported by nsys once: the SQLite export is
 * kept under DIR/exports/, keyed by the SHA-256 of the report's bytes and
 * the nsys version that exported it.
 *
 * Each entry is KEY.sqlite plus KEY.sum (the export's size and SHA-256):
 * a hit whose export no longer matches its sum is deleted and rebuilt,
 * never trusted.  Entries are filled under a temporary name in the same
 * directory and renamed, so concurrent gates share the cache safely (the
 * last rename wins, both are complete).  After a fill, entries older than
 * max_age_days or past max_bytes in total (oldest use first) are pruned;
 * a hit refreshes its entry's age.
 *
 * Ownership: the struct is the caller's; paths in it are borrowed. */
#ifndef NG_CACHE_H
#define NG_CACHE_H

#include <stdint.h>

#include "ng_err.h"
#include "ng_util.h"

struct ng_cache {
    const char *dir;            /* the cache root; NULL = no cache */
    double max_age_days;
    uint64_t max_bytes;
};

/* The key of a report for an nsys version ("<sha256>-<version>"). */
int ng_cache_key(const char *report, const char *nsys_version, struct ng_buf *key,
                 struct ng_err *err);

/* 1 and the entry's path in `path` when a verified entry exists; 0 when
 * not (a corrupt entry is removed on the way); -1 on error. */
int ng_cache_lookup(const struct ng_cache *c, const char *key, struct ng_buf *path,
                    struct ng_err *err);

/* A private directory inside the cache to export into (same filesystem as
 * the entries, so storing is a rename). */
int ng_cache_scratch(const struct ng_cache *c, struct ng_buf *dir, struct ng_err *err);

/* Moves a finished export into the cache as key's entry and prunes; the
 * entry's path goes to `path`. */
int ng_cache_store(const struct ng_cache *c, const char *key, const char *export_path,
                   struct ng_buf *path, struct ng_err *err);

/* The default root: $XDG_CACHE_HOME/nsys-gate, else $HOME/.cache/nsys-gate;
 * NULL when neither variable is set. */
char *ng_cache_default_dir(void);

#endif
