#include "sources/nsysrep/ng_exports.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_signal.h"
#include "util/ng_util.h"

struct ng_exports {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct ng_export **e;
    size_t n;
    char **notes;
    size_t n_notes;
};

struct ng_exports *ng_exports_new(void)
{
    struct ng_exports *x = ng_xcalloc(1, sizeof *x);
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->changed, NULL);
    return x;
}

void ng_exports_free(struct ng_exports *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n; i++) {
        struct ng_export *e = x->e[i];
        ng_cache_work_end(&e->work);
        if (e->tmp_dir) {
            ng_signal_remove_tree(e->tmp_dir);
            ng_signal_forget(e->tmp_slot);
            free(e->tmp_dir);
        }
        free(e->db);
        free(e);
    }
    free(x->e);
    for (size_t i = 0; i < x->n_notes; i++)
        free(x->notes[i]);
    free(x->notes);
    pthread_cond_destroy(&x->changed);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

int ng_exports_claim(struct ng_exports *x, dev_t dev, ino_t ino, struct ng_export **out)
{
    pthread_mutex_lock(&x->lock);
    for (size_t i = 0; i < x->n; i++) {
        struct ng_export *e = x->e[i];
        if (e->dev == dev && e->ino == ino) {
            while (!e->done)
                pthread_cond_wait(&x->changed, &x->lock);
            pthread_mutex_unlock(&x->lock);
            *out = e;
            return 0;
        }
    }
    struct ng_export *e = ng_xcalloc(1, sizeof *e);
    e->dev = dev;
    e->ino = ino;
    e->rc = -1;
    e->tmp_slot = -1;
    e->work.lock_fd = e->work.signal_slot = -1;
    x->e = ng_xgrow(x->e, x->n, sizeof *x->e);
    x->e[x->n++] = e;
    pthread_mutex_unlock(&x->lock);
    *out = e;
    return 1;
}

void ng_exports_done(struct ng_exports *x, struct ng_export *e)
{
    pthread_mutex_lock(&x->lock);
    e->done = 1;
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->lock);
}

void ng_exports_note(struct ng_exports *x, const char *note)
{
    pthread_mutex_lock(&x->lock);
    int seen = 0;
    for (size_t i = 0; i < x->n_notes && !seen; i++)
        seen = strcmp(x->notes[i], note) == 0;
    if (!seen) {
        x->notes = ng_xgrow(x->notes, x->n_notes, sizeof *x->notes);
        x->notes[x->n_notes++] = ng_xstrdup(note);
    }
    pthread_mutex_unlock(&x->lock);
}

size_t ng_exports_n_notes(const struct ng_exports *x)
{
    return x ? x->n_notes : 0;
}

const char *ng_exports_note_at(const struct ng_exports *x, size_t i)
{
    return x->notes[i];
}
