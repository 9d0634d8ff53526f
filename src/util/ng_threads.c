#include "util/ng_threads.h"

#include <pthread.h>
#include <unistd.h>

size_t ng_threads_count(long jobs)
{
    long w = jobs > 0 ? jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (w < 1)
        return 1;
    return w > NG_THREADS_MAX ? NG_THREADS_MAX : (size_t)w;
}

struct pool {
    size_t n, next;
    size_t failed;             /* the lowest item that failed; n while none has */
    int (*fn)(void *ctx, size_t i, struct ng_err *err);
    void *ctx;
    pthread_mutex_t lock;
    struct ng_err err;         /* item failed's error */
};

/* The next item, or n when none is left. */
static size_t take(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    size_t i = p->next < p->n ? p->next++ : p->n;
    pthread_mutex_unlock(&p->lock);
    return i;
}

/* Items fail in any order on several workers: the lowest one's error is
 * kept, so the answer does not depend on which worker was quicker. */
static void note_failure(struct pool *p, size_t i, const struct ng_err *err)
{
    pthread_mutex_lock(&p->lock);
    if (i < p->failed) {
        p->failed = i;
        p->err = *err;
    }
    pthread_mutex_unlock(&p->lock);
}

static void *work(void *arg)
{
    struct pool *p = arg;
    struct ng_err err;

    for (size_t i; (i = take(p)) < p->n;)
        if (p->fn(p->ctx, i, &err) < 0)
            note_failure(p, i, &err);
    return NULL;
}

int ng_threads_run(long jobs, size_t n, int (*fn)(void *ctx, size_t i, struct ng_err *err),
                   void *ctx, struct ng_err *err)
{
    struct pool p = { .n = n, .failed = n, .fn = fn, .ctx = ctx,
                      .lock = PTHREAD_MUTEX_INITIALIZER };
    pthread_t threads[NG_THREADS_MAX];
    size_t want = ng_threads_count(jobs), started = 0;

    if (want > n)
        want = n;
    /* this thread is the last worker; one that cannot start leaves its
     * share to the ones that did (only those are joined) */
    while (started + 1 < want && pthread_create(&threads[started], NULL, work, &p) == 0)
        started++;
    work(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&p.lock);
    if (p.failed < n) {
        *err = p.err;
        return -1;
    }
    return 0;
}
