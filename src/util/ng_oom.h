/* ng_oom: running out of memory.  ng_xmalloc() and its kin never return
 * NULL; when memory runs out they call ng_oom_fail(), which
 *   1. gives back a reserve taken at start, so that there is memory left
 *      to write the reports with;
 *   2. calls the emergency writer that main (or a batch gate's process)
 *      registered, with the message "out of memory reading 'big.sqlite'"
 *      (what the failing thread was doing, from ng_oom_doing()): it writes
 *      every requested report with that ERROR and ends the process;
 *   3. exits 2 with that message if there is no writer, or if the writer
 *      itself runs out of memory.
 * Another thread that runs out meanwhile waits for the end.
 *
 * Ownership: ng_oom_doing() copies its text; the writer's context is
 * borrowed. */
#ifndef NG_OOM_H
#define NG_OOM_H

#include <stdarg.h>
#include <stddef.h>

/* Takes the reserve (once; later calls do nothing).  The reserve is
 * allocated but never touched, so it costs address space and commit
 * charge, not resident memory. */
void ng_oom_reserve(size_t bytes);

/* The emergency writer: called at most once, with the message (without
 * "ERROR: "); it should not return. */
void ng_oom_on(void (*writer)(const char *message, void *ctx), void *ctx);

/* What the calling thread is doing now, named in the message after "out
 * of memory ", e.g. ng_oom_doing("reading '%s'", path); NULL: nothing in
 * particular.  Formatted into the thread's own buffer, without
 * allocating. */
void ng_oom_doing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ng_oom_fail(void) __attribute__((noreturn));

#endif
