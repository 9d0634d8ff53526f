#include "util/ng_threads.h"

#include <pthread.h>
#include <unistd.h>

void ng_on_threads(void *(*fn)(void *), void *arg, size_t items)
{
    pthread_t threads[NG_THREADS];
    size_t n = items > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? NG_THREADS : 1;

    for (size_t i = 1; i < n; i++)
        if (pthread_create(&threads[i], NULL, fn, arg) != 0)
            threads[i] = 0;
    fn(arg);
    for (size_t i = 1; i < n; i++)
        if (threads[i])
            pthread_join(threads[i], NULL);
}

struct each {
    size_t n, next;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    pthread_mutex_t lock;
};

static void *take_each(void *arg)
{
    struct each *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        size_t i = e->next++;
        pthread_mutex_unlock(&e->lock);
        if (i >= e->n)
            return NULL;
        e->fn(e->ctx, i);
    }
}

void ng_on_threads_each(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
    struct each e = { n, 0, fn, ctx, PTHREAD_MUTEX_INITIALIZER };
    ng_on_threads(take_each, &e, n);
}
