/* ng_cache: the export cache for .nsys-rep inputs.  A report used by every
 * CI run (the baseline) is exported by nsys once: the SQLite export is
 * kept under DIR/exports/, keyed by the XXH3-128 of the report's bytes and
 * the nsys version that exported it (another nsys may export differently).
 *
 * What is in DIR/exports/:
 *   KEY.sqlite    an export that the gate READ SUCCESSFULLY before storing it
 *                 (so a 0-byte export of a full disk is never kept);
 *   KEY.sum       what that file must still be: its size, its mtime and the
 *                 XXH3-128 of its bytes.  A hit compares size and mtime (any
 *                 write to the file changes one of them) and hashes the file
 *                 only when they differ (e.g. a restore from a CI cache), so
 *                 a hit does not read the whole export.  The .sum's own mtime
 *                 is the entry's last use, for pruning;
 *   KEY.lock      flock'd by the one gate filling KEY: gates that miss the
 *                 same report at once export it once;
 *   .fill.XXXXXX/ one per export at work: nsys's output, and the private
 *                 hard links of the entries being read.  Its file `lock` is
 *                 flock'd for as long as its gate lives, so a directory whose
 *                 lock is free was left by a killed gate and is pruned.
 *
 * Why readers cannot lose an entry to a pruner: a reader never reads the
 * shared name.  ng_cache_lookup() hard-links the entry into the reader's
 * own .fill directory first (link(2) is atomic: it gets the file or
 * nothing), then checks and reads that link.  A pruner may unlink the
 * shared name at any moment; the reader's link keeps the file until the
 * reader removes its directory.  No lock is needed, so a slow reader never
 * holds up pruning and a dead one holds nothing.
 *
 * Entries of the earlier format (64-hex SHA-256 keys, a .sum without the
 * format line) are never read: they are removed by the next prune.
 *
 * Only what the cache made is ever removed: names of its exact key format,
 * its temporary files and its .fill directories.  An exports/ holding any
 * other name is not pruned at all (a warning says which).  DIR holds a
 * CACHEDIR.TAG, so backup tools skip it.  DIR and DIR/exports are used
 * only when owned by the user and writable by no one else, and entries
 * are opened without following symlinks: no other local user can plant
 * an entry.
 *
 * Ownership: a struct ng_cache is the caller's, and its strings are
 * borrowed.  A struct ng_cache_work owns its directory and lock until
 * ng_cache_work_end(). */
#ifndef NG_CACHE_H
#define NG_CACHE_H

#include <stdint.h>

#include "util/ng_err.h"
#include "util/ng_util.h"

struct ng_cache {
    const char *dir;            /* the cache root; NULL = no cache */
    const char *parent;         /* must exist for the cache to be created; NULL = dir's parent */
    double max_age_days;
    uint64_t max_bytes;
};

/* Makes DIR/exports if needed.  0 when the cache can be used; -1 with the
 * reason in why (for a warning: the gate goes on without the cache).  DIR
 * is created only when its parent exists: a $HOME that does not exist is
 * not created for a cache. */
int ng_cache_open(const struct ng_cache *c, struct ng_err *why);

/* The key of a report for an nsys version ("<32 hex>-<version>"), hashed
 * from an open descriptor of it (from offset 0), so the key is of the very
 * bytes the caller hands on. */
int ng_cache_key(int fd, const char *nsys_version, struct ng_buf *key, struct ng_err *err);

/* A private, locked directory inside the cache (same filesystem as the
 * entries: storing and looking up are links). */
struct ng_cache_work {
    char *dir;
    int lock_fd;
    int signal_slot;      /* a fatal signal removes the directory */
};

int ng_cache_work_begin(const struct ng_cache *c, struct ng_cache_work *w, struct ng_err *err);
/* Removes the directory and releases its lock. */
void ng_cache_work_end(struct ng_cache_work *w);

/* 1 when key has an entry that passes its check: it is linked into w's
 * directory and that private path goes to `path`; 0 when not (an entry
 * that fails its check is removed on the way). */
int ng_cache_lookup(const struct ng_cache *c, const struct ng_cache_work *w, const char *key,
                    struct ng_buf *path);

/* The entry that lookup linked to `linked` could not be read: it is
 * removed (if the shared name still is that file), to be rebuilt. */
void ng_cache_drop(const struct ng_cache *c, const char *key, const char *linked);

/* Waits (up to timeout_s, <= 0: without limit) for the fill lock of key;
 * returns its descriptor, or -1 when it cannot be had (fill anyway). */
int ng_cache_lock(const struct ng_cache *c, const char *key, double timeout_s);
void ng_cache_unlock(int fd);

/* Keeps the export at export_path (inside a work directory; it stays
 * there too) as key's entry, then prunes.  Call it only for an export that
 * was read successfully.  0; 1 stored but not pruned, err says why (for a
 * warning: exports/ holds a file the cache did not make); -1 not stored. */
int ng_cache_store(const struct ng_cache *c, const char *key, const char *export_path,
                   struct ng_err *err);

/* Free space in bytes on the cache's filesystem, or UINT64_MAX when it
 * cannot be told. */
uint64_t ng_cache_free_bytes(const struct ng_cache *c);

/* The default root: $XDG_CACHE_HOME/nsys-gate, else $HOME/.cache/nsys-gate;
 * NULL when neither variable is set.  *parent is set to the directory that
 * must exist ($XDG_CACHE_HOME or $HOME; ~/.cache itself may be created). */
char *ng_cache_default_dir(const char **parent);

#endif
