/* ng_progress: what the gate tells a person while long work runs (nsys
 * exports), on stderr only, never stdout: stdout carries the verdict and
 * must be the same with and without it.  nsys's own output (its progress
 * bars) is never passed on: ng_proc keeps it for error messages.
 *
 *   off    --quiet, and the default for code that never chose (tests,
 *          fuzzers);
 *   lines  stderr is not a terminal (CI logs): one line once an export has
 *          run for 2 s, and one when it ends; quicker exports say nothing;
 *   live   stderr is a terminal: one line redrawn in place with the
 *          elapsed seconds of every running export, and the end line of
 *          each export that took over 2 s.
 * A batch's gates (child processes sharing one stderr) use lines, each
 * naming its gate: `nsys-gate: resnet50: exported 'b.nsys-rep' in ...`.
 *
 * Ownership: the module copies what it is given.  Thread-safe. */
#ifndef NG_PROGRESS_H
#define NG_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

enum ng_progress_mode {
    NG_PROGRESS_OFF = 0,
    NG_PROGRESS_LINES,
    NG_PROGRESS_LIVE,
};

/* off with quiet; else live on a terminal, lines otherwise */
enum ng_progress_mode ng_progress_choose(int quiet);
void ng_progress_set_mode(enum ng_progress_mode m);
enum ng_progress_mode ng_progress_mode(void);
/* Words after "nsys-gate: " on every line ("resnet50: "), for a batch's
 * gates; NULL = none. */
void ng_progress_set_prefix(const char *prefix);

/* An export starts: which report, which nsys (path and `--version` line,
 * either may be NULL).  Returns a handle for the calls below (-1: not
 * shown; the calls accept it). */
int ng_progress_begin(const char *report, const char *nsys, const char *version);
/* Called while it runs (about every 100 ms). */
void ng_progress_tick(int h);
/* It ended: ok, and the size of the export written. */
void ng_progress_end(int h, int ok, uint64_t export_bytes);

/* A batch's gate has finished (done of total): one line, unless off:
 * "[12/40] resnet50: PASS: ... (3.2 s)".  headline is already cleaned. */
void ng_progress_gate_done(size_t done, size_t total, const char *name, const char *headline,
                           double elapsed_s);

/* How long before an export is announced outside a terminal. */
#define NG_PROGRESS_QUIET_S 2.0

#endif
