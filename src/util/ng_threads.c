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
