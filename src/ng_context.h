/* ng_context: the run context of a verdict: which commit, branch and CI
 * run it came from, and the user's labels.  Seven fields have a fixed
 * name (ng_context_fields: commit, branch, run_url, run_id, job,
 * pipeline, runner) and are read from the CI system's own variables; a
 * label (--label KEY=VALUE, NSYS_GATE_LABELS, the manifest's "label")
 * adds a key or overrides one of them.
 *
 * The items are kept in one order, whatever order they were set in: the
 * fixed fields in table order, then the other keys sorted bytewise, so
 * every report that lists them is byte-stable.  A key has at most one
 * value; setting it again replaces it, and setting it to NULL or "" takes
 * it out.
 *
 * Ownership: a context owns copies of its keys and values;
 * ng_context_release() frees them and leaves an empty context.  A
 * context memset to 0 is empty. */
#ifndef NG_CONTEXT_H
#define NG_CONTEXT_H

#include <stddef.h>

#include "ng_err.h"

struct ng_context_item {
    char *key;
    char *value;
};

struct ng_context {
    struct ng_context_item *items;
    size_t n;
};

/* The fixed fields, in the order reports list them; NULL-terminated. */
#define NG_CONTEXT_FIELDS 7
extern const char *const ng_context_fields[NG_CONTEXT_FIELDS + 1];

/* Sets key to value (copied); NULL or "" removes the key. */
void ng_context_set(struct ng_context *c, const char *key, const char *value);

/* The value of key, or NULL. */
const char *ng_context_get(const struct ng_context *c, const char *key);

/* Copies every item of from into to (replacing what to had for those keys). */
void ng_context_merge(struct ng_context *to, const struct ng_context *from);

void ng_context_release(struct ng_context *c);

#endif
