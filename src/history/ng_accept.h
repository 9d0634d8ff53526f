/* ng_accept: acknowledgements of changes (--accept FILE), JSON Lines, one
 * a line:
 *   {"gate": "resnet50", "commit": "<first bad commit>", "reason": "...",
 *    "author": "...", "expires": "YYYY-MM-DD"}
 * commit may be a prefix of at least 7 characters; it must name one
 * commit of the gate's runs (ng_accept_find() tells an ambiguous one).
 * An acknowledgement counts through its expiry day (UTC) and no longer
 * after it.  Blank lines are skipped; anything else that is not such an
 * object is an error naming the file and the line.
 *
 * Ownership: a set owns its strings; ng_accept_release() frees them. */
#ifndef NG_ACCEPT_H
#define NG_ACCEPT_H

#include <stddef.h>
#include <time.h>

#include "util/ng_err.h"

#define NG_ACCEPT_PREFIX_MIN 7

struct ng_ack {
    char *gate, *commit, *reason, *author;
    char expires[11];          /* YYYY-MM-DD */
    time_t until;              /* the end of that day, UTC */
    size_t line;               /* its line in the file */
    const char *path;          /* the file (borrowed) */
};

struct ng_accept {
    struct ng_ack *acks;
    size_t n;
    size_t line_no;            /* while reading */
    const char *path;
};

#define NG_ACCEPT_INIT { NULL, 0, 0, NULL }

/* Adds the acknowledgements of the file at path.  -1 with err
 * ("--accept 'a.jsonl' line 3: no \"expires\" (YYYY-MM-DD)"). */
int ng_accept_read(struct ng_accept *a, const char *path, struct ng_err *err);

/* The acknowledgement of gate's change whose first bad run is commit,
 * still in force at now, or NULL.  *expired (may be NULL) is set when
 * one matched but has expired. */
const struct ng_ack *ng_accept_find(const struct ng_accept *a, const char *gate,
                                    const char *commit, time_t now, int *expired);

void ng_accept_release(struct ng_accept *a);

#endif
