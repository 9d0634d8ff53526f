/* ng_threads: the one pool of worker threads, for work that splits into
 * independent items (a gate's profiles, a history's parts and its latest
 * runs, a dashboard's pages, the gates' change points).  Its size is the
 * caller's to give: a gate's --jobs, or where there is none one worker per
 * processor online.
 *
 * Items are numbered 0 to n-1 and handed out in that order, one at a time,
 * to whichever worker is free.  The calling thread is one of the workers,
 * so every item is done even where no other thread can start (by fewer
 * workers, then).  An item writes only what is its own (its slot of the
 * caller's arrays) or takes the caller's lock for what it shares, so what
 * the items make is the same whatever the number of workers.  A failing
 * item stops no other; the error returned is the first in item order, the
 * one a loop would give.
 *
 * Ownership: nothing here owns anything; the caller's context outlives the
 * run. */
#ifndef NG_THREADS_H
#define NG_THREADS_H

#include <stddef.h>

#include "util/ng_err.h"

#define NG_THREADS_MAX 64   /* workers at most, whatever is asked */

/* The workers for `jobs`: jobs when positive, else one per processor
 * online; between 1 and NG_THREADS_MAX. */
size_t ng_threads_count(long jobs);

/* fn(ctx, i, err) for each i in [0, n), on ng_threads_count(jobs)
 * workers at most (and never more than n), this thread among them.  fn
 * returns 0, or -1 after ng_err_set(err).  0 when every item returned 0;
 * else -1 with the error of the lowest-numbered item that failed. */
int ng_threads_run(long jobs, size_t n, int (*fn)(void *ctx, size_t i, struct ng_err *err),
                   void *ctx, struct ng_err *err);

#endif
