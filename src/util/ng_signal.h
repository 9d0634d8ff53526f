/* ng_signal: what a fatal signal (SIGINT, SIGTERM, SIGHUP) must undo
 * before the gate dies: child processes to stop, temporary files and
 * directories to remove.  One process-wide registry, so every part of the
 * gate (the nsys runner, the export cache, the report writer, the batch
 * runner) registers what it leaves behind in one place, and one handler
 * undoes all of it, whenever the signal arrives.
 *
 * The handler then restores the default action and raises the signal
 * again, so the gate still ends "killed by SIGTERM" for whoever waits on
 * it.
 *
 * Ownership: the registry copies each path into fixed storage (the
 * handler may not allocate); a slot is released with ng_signal_forget().
 * Registration is safe from several threads at once and against the
 * handler running in between.  Everything the handler calls is
 * async-signal-safe (kill, unlink, rmdir, open, getdents64, close). */
#ifndef NG_SIGNAL_H
#define NG_SIGNAL_H

#include <signal.h>
#include <sys/types.h>

/* Installs the handlers (once; later calls do nothing), and ignores
 * SIGPIPE: a closed stdout or stderr is then an EPIPE from write(), which
 * the report writer takes for the end of that stream, not of the run
 * (children that exec, nsys, get the default back).  main calls it first
 * thing; tests that fork may too. */
void ng_signal_init(void);

/* Each returns a slot number for ng_signal_forget(), or -1 when the
 * registry is full (then nothing will be undone for it: the caller goes
 * on, as before the registry existed). */
int ng_signal_add_file(const char *path);   /* unlink(path) */
int ng_signal_add_tree(const char *path);   /* remove the directory and what is in it */
int ng_signal_add_group(pid_t pgid);        /* kill(-pgid, SIGKILL): a child's whole group */
int ng_signal_add_child(pid_t pid);         /* kill(pid, <the same signal>): a child that
                                               cleans up after itself (a batch gate) */

/* Holds off the fatal signals in this thread until ng_signal_resume(),
 * which delivers one that came meanwhile: for a step that must not be cut
 * in the middle (an append; a temporary file between its creation and
 * its registration, or its rename and its release). */
void ng_signal_hold(sigset_t *saved);
void ng_signal_resume(const sigset_t *saved);

/* Releases a slot (a negative slot is ignored). */
void ng_signal_forget(int slot);

/* Removes a directory and what is in it (files and directories, up to a
 * few levels deep), the way the handler does: without allocating, so it
 * serves the handler and ordinary code alike. */
void ng_signal_remove_tree(const char *path);

/* In a freshly forked child: forget everything the parent registered
 * (its other children and files are not this process's to undo). */
void ng_signal_forget_all(void);

#endif
