/* ng_exports: the .nsys-rep exports of one gate run.  Every operand that
 * names the same report (the same file, by device and inode, whatever the
 * path it is given by) shares one export: the first to claim it exports
 * it, the others wait for it and read the same SQLite file, with or
 * without the cache.  The private directories of the exports live until
 * ng_exports_free(), which removes them.  The run also collects the notes
 * its verdict must carry (e.g. "export cache not used: ..."), once each.
 *
 * Ownership: the run owns its exports, their directories and the notes;
 * a claimed struct ng_export stays valid until ng_exports_free().
 * Thread-safe: the loading threads of a gate share one run. */
#ifndef NG_EXPORTS_H
#define NG_EXPORTS_H

#include <sys/types.h>

#include "sources/nsysrep/ng_cache.h"
#include "util/ng_err.h"

struct ng_export {
    dev_t dev;
    ino_t ino;
    int done;
    int rc;                    /* 0: exported (db is set); -1: err says why */
    struct ng_err err;
    char *db;                  /* the SQLite file to read */
    struct ng_cache_work work; /* its directory in the cache, or */
    char *tmp_dir;             /* its directory under $TMPDIR */
    int tmp_slot;              /* ng_signal registration of tmp_dir */
};

struct ng_exports;

struct ng_exports *ng_exports_new(void);
/* Removes every export's directory and frees the run. */
void ng_exports_free(struct ng_exports *x);

/* The export of the report (dev, ino).  Returns 1 when it is new: the
 * caller exports it, fills *e and calls ng_exports_done(); 0 when another
 * caller has claimed it: waits until that one is done. */
int ng_exports_claim(struct ng_exports *x, dev_t dev, ino_t ino, struct ng_export **e);
void ng_exports_done(struct ng_exports *x, struct ng_export *e);

/* A note for the verdict (copied; a repeat is dropped). */
void ng_exports_note(struct ng_exports *x, const char *note);
size_t ng_exports_n_notes(const struct ng_exports *x);
const char *ng_exports_note_at(const struct ng_exports *x, size_t i);

#endif
