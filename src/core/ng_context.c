#include "core/ng_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

#define KEY_MAX 64

const char *const ng_context_fields[NG_CONTEXT_FIELDS + 1] = {
    "commit", "branch", "run_url", "run_id", "job", "pipeline", "runner", NULL,
};

/* A fixed field's place in the table; the other keys come after them. */
static size_t rank(const char *key)
{
    size_t i = 0;
    for (; ng_context_fields[i]; i++)
        if (strcmp(ng_context_fields[i], key) == 0)
            break;
    return i;
}

static int before(const char *a, const char *b)
{
    size_t ra = rank(a), rb = rank(b);
    if (ra != rb)
        return ra < rb;
    return ra == NG_CONTEXT_FIELDS && strcmp(a, b) < 0;
}

void ng_context_set(struct ng_context *c, const char *key, const char *value)
{
    size_t at = 0;

    while (at < c->n && before(c->items[at].key, key))
        at++;
    int present = at < c->n && strcmp(c->items[at].key, key) == 0;
    if (!value || !*value) {
        if (present) {
            free(c->items[at].key);
            free(c->items[at].value);
            memmove(&c->items[at], &c->items[at + 1], (c->n - at - 1) * sizeof *c->items);
            c->n--;
        }
        return;
    }
    if (present) {
        free(c->items[at].value);
        c->items[at].value = ng_xstrdup(value);
        return;
    }
    c->items = ng_xrealloc(c->items, (c->n + 1) * sizeof *c->items);
    memmove(&c->items[at + 1], &c->items[at], (c->n - at) * sizeof *c->items);
    c->items[at] = (struct ng_context_item){ ng_xstrdup(key), ng_xstrdup(value) };
    c->n++;
}

const char *ng_context_get(const struct ng_context *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->items[i].key, key) == 0)
            return c->items[i].value;
    return NULL;
}

void ng_context_merge(struct ng_context *to, const struct ng_context *from)
{
    for (size_t i = 0; i < from->n; i++)
        ng_context_set(to, from->items[i].key, from->items[i].value);
}

void ng_context_release(struct ng_context *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].key);
        free(c->items[i].value);
    }
    free(c->items);
    c->items = NULL;
    c->n = 0;
}

/* ---- the CI systems' variables ----
 *
 * Which system: its marker variable.  Then each field from the first of
 * its sources (in table order) whose variables are all set; a source is a
 * template of ${VARIABLE}s and text. */
struct ci_system {
    const char *name;
    const char *markers[2];    /* either set marks the system */
    const char *marker_value;  /* NULL: any value */
};

static const struct ci_system systems[] = {
    { "github", { "GITHUB_ACTIONS", NULL }, "true" },
    { "gitlab", { "GITLAB_CI", NULL }, "true" },
    { "jenkins", { "JENKINS_URL", "JENKINS_HOME" }, NULL },
};

struct ci_source {
    const char *system;
    const char *field;
    const char *source;
};

static const struct ci_source sources[] = {
    { "github", "commit", "${GITHUB_SHA}" },
    { "github", "branch", "${GITHUB_HEAD_REF}" },   /* set on pull requests only */
    { "github", "branch", "${GITHUB_REF_NAME}" },
    { "github", "run_url", "${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}" },
    { "github", "run_id", "${GITHUB_RUN_ID}" },
    { "github", "job", "${GITHUB_JOB}" },
    { "github", "pipeline", "${GITHUB_WORKFLOW}" },
    { "github", "runner", "${RUNNER_NAME}" },
    { "gitlab", "commit", "${CI_COMMIT_SHA}" },
    { "gitlab", "branch", "${CI_COMMIT_REF_NAME}" },
    { "gitlab", "run_url", "${CI_JOB_URL}" },
    { "gitlab", "run_id", "${CI_JOB_ID}" },
    { "gitlab", "job", "${CI_JOB_NAME}" },
    { "gitlab", "pipeline", "${CI_PIPELINE_ID}" },
    { "gitlab", "runner", "${CI_RUNNER_DESCRIPTION}" },
    { "jenkins", "commit", "${GIT_COMMIT}" },
    { "jenkins", "branch", "${BRANCH_NAME}" },
    { "jenkins", "run_url", "${BUILD_URL}" },
    { "jenkins", "run_id", "${BUILD_NUMBER}" },
    { "jenkins", "job", "${STAGE_NAME}" },
    { "jenkins", "pipeline", "${JOB_NAME}" },
    { "jenkins", "runner", "${NODE_NAME}" },
};

static const char *lookup(ng_context_env_fn env, void *ctx, const char *name)
{
    const char *v = env ? env(name, ctx) : getenv(name);
    return v && *v ? v : NULL;
}

const char *ng_context_ci(ng_context_env_fn env, void *ctx)
{
    for (size_t i = 0; i < sizeof systems / sizeof systems[0]; i++) {
        for (size_t k = 0; k < 2 && systems[i].markers[k]; k++) {
            const char *v = lookup(env, ctx, systems[i].markers[k]);
            if (v && (!systems[i].marker_value || strcmp(v, systems[i].marker_value) == 0))
                return systems[i].name;
        }
    }
    return NULL;
}

/* The template with its variables put in; 0 when one is unset. */
static int expand(const char *tmpl, ng_context_env_fn env, void *ctx, struct ng_buf *out)
{
    for (const char *p = tmpl; *p;) {
        const char *var = strstr(p, "${");
        if (!var) {
            ng_buf_adds(out, p);
            break;
        }
        ng_buf_add(out, p, (size_t)(var - p));
        const char *end = strchr(var, '}');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(end - var - 2), var + 2);
        const char *v = lookup(env, ctx, name);
        if (!v)
            return 0;
        ng_buf_adds(out, v);
        p = end + 1;
    }
    return 1;
}

void ng_context_collect(struct ng_context *c, const char *const *labels, size_t n_labels,
                        ng_context_env_fn env, void *ctx)
{
    const char *ci = ng_context_ci(env, ctx);

    for (size_t i = 0; ci && i < sizeof sources / sizeof sources[0]; i++) {
        const struct ci_source *src = &sources[i];
        struct ng_buf v = NG_BUF_INIT;
        if (strcmp(src->system, ci) == 0 && !ng_context_get(c, src->field) &&
            expand(src->source, env, ctx, &v))
            ng_context_set(c, src->field, v.data);
        ng_buf_release(&v);
    }
    for (size_t i = 0; i < n_labels; i++) {
        size_t key_len;
        const char *problem;
        if (ng_context_label_check(labels[i], &key_len, &problem) < 0)
            continue;   /* the option's parser refused it already */
        char *key = ng_xstrndup(labels[i], key_len);
        ng_context_set(c, key, labels[i] + key_len + 1);
        free(key);
    }
}

int ng_context_label_check(const char *text, size_t *key_len, const char **problem)
{
    const char *eq = strchr(text, '=');
    size_t n = eq ? (size_t)(eq - text) : 0;

    if (!eq || n == 0) {
        *problem = "is not KEY=VALUE";
        return -1;
    }
    if (n > KEY_MAX) {
        *problem = "has a key longer than 64 characters";
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char ch = text[i];
        int letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
        if (!letter && (i == 0 || !((ch >= '0' && ch <= '9') || ch == '.' || ch == '-'))) {
            *problem = "has a key that is not a letter or '_' followed by letters, digits, "
                       "'_', '.' or '-'";
            return -1;
        }
    }
    *key_len = n;
    return 0;
}
