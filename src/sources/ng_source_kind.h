/* ng_source_kind: what one input backend implements.  Each kind is a
 * folder (sqlite/, nsysrep/, nsys_stats/, kineto/) whose header declares
 * its struct ng_source_kind (rocprof/ declares three, for one tool's
 * three formats), and a row of the registry that ng_source.c walks.
 *
 * Ownership: as in ng_source.h.  Backends fill the profile they are given
 * and finish it with ng_profile_finish(). */
#ifndef NG_SOURCE_KIND_H
#define NG_SOURCE_KIND_H

#include <stddef.h>

#include "core/ng_profile.h"
#include "util/ng_err.h"

/* The options a kind is loaded with (ng_source_opts.h). */
struct ng_source_opts;

struct ng_source_kind {
    enum ng_format format;
    const char *magic;                  /* leading bytes, NULL if none */
    size_t magic_len;
    /* 1 when the first bytes are this kind's (content a magic cannot
     * tell, e.g. a JSON object); NULL if none.  A gzip file's head is
     * given inflated (when it inflates), so JSON kinds tell themselves
     * apart by their first key whether or not they are compressed. */
    int (*sniff)(const unsigned char *head, size_t len);
    /* When the magic or the sniff matched: 1 when the file is this kind's
     * and not another kind's with the same first bytes (a rocpd database
     * and an nsys export are both SQLite), told by what is inside.  It may
     * open the file, only for that; a file it cannot read is not claimed,
     * so the kind after it says what is wrong.  NULL: the match is enough. */
    int (*claim)(const char *path);
    /* 1: a directory may be this kind's (files that belong together, as
     * rocprofv3's CSV files); claim() is given it and decides.  A
     * directory no such kind claims is refused. */
    int dirs;
    const char *const *extensions;      /* NULL-terminated, lower case, with dot */
    int (*load)(struct ng_profile *p, const char *path,
                const struct ng_source_opts *opts, struct ng_err *err);
    /* what the gate reads of this kind, for the refusal of a file that is
     * no profile at all ("nsys SQLite exports (.sqlite)"); NULL: not
     * listed there (summaries, which nsys-gate writes itself) */
    const char *reads;
};

/* What the fallback reader (saved nsys stats text) returns when a file holds
 * nothing of any kind the gate reads (a README, a log, an image): err holds
 * only what the file is ("text with no nsys report"), and ng_source_load()
 * says that it is not a profile and lists, from the registry, what is read. */
#define NG_SOURCE_NOT_A_PROFILE (-2)

#endif
