/* ng_threads: one function on a few threads at once, for work that splits
 * into independent items (a dashboard's pages, the gates' change points).
 * The function takes its items from its argument under its own lock until
 * none is left; nothing here owns anything. */
#ifndef NG_THREADS_H
#define NG_THREADS_H

#include <stddef.h>

#define NG_THREADS 2   /* the machines this runs on have two cores or more */

/* fn(arg) on NG_THREADS threads at once (this one among them), or on this
 * one alone for fewer than two items, one core, or a thread that cannot
 * be made. */
void ng_on_threads(void *(*fn)(void *), void *arg, size_t items);

/* fn(ctx, i) for each i in [0, n), the items taken in turn by
 * ng_on_threads()'s threads: for items that only write their own slot. */
void ng_on_threads_each(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
