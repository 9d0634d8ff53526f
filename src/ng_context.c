#include "ng_context.h"

#include <stdlib.h>
#include <string.h>

#include "ng_util.h"

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
