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

#include "util/ng_err.h"

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

/* ---- where a context comes from ---- */

/* Looks a variable up (getenv when NULL); an empty value counts as unset. */
typedef const char *(*ng_context_env_fn)(const char *name, void *ctx);

/* The CI system the environment is in: "github" (GITHUB_ACTIONS=true),
 * "gitlab" (GITLAB_CI=true), "jenkins" (JENKINS_URL or JENKINS_HOME set),
 * or NULL.  Only that system's variables are read. */
const char *ng_context_ci(ng_context_env_fn env, void *ctx);

/* Fills c from the CI system's variables (the table in ng_context.c: each
 * field from the first of its sources whose variables are all set), then
 * applies the labels in order ("KEY=VALUE": a later one wins; an empty
 * VALUE takes the key out). */
void ng_context_collect(struct ng_context *c, const char *const *labels, size_t n_labels,
                        ng_context_env_fn env, void *ctx);

/* Checks "KEY=VALUE": KEY is a letter or '_', then letters, digits, '_',
 * '.' or '-', at most 64 in all.  0 and *key_len, or -1 with *problem. */
int ng_context_label_check(const char *text, size_t *key_len, const char **problem);

#endif
