/* ng_proc: runs one external program (nsys) without a shell, with a time
 * limit, in its own process group, keeping the tail of what it prints.
 * Where Linux allows it the child also dies with the gate (PR_SET_PDEATHSIG:
 * a gate killed by SIGKILL, whose handler never runs, leaves no nsys
 * behind).  That signal fires when the THREAD that forked exits, so the
 * caller's thread must wait for the child, as ng_proc_run() does.
 *
 * Ownership: argv is borrowed.  The result's buffers belong to the caller
 * and are freed with ng_proc_result_release().  While a child runs, its
 * process group is registered with ng_signal, so a fatal signal to the
 * gate kills the whole group. */
#ifndef NG_PROC_H
#define NG_PROC_H

#include <stddef.h>

#include "util/ng_err.h"
#include "util/ng_util.h"

#define NG_PROC_TAIL_MAX (64 * 1024)

struct ng_proc_result {
    int exited;          /* 1: exited with exit_code; 0: killed by signal term_signal */
    int exit_code;
    int term_signal;
    int timed_out;       /* 1: killed by the gate after the time limit */
    struct ng_buf out_tail;  /* the last NG_PROC_TAIL_MAX bytes of stdout */
    struct ng_buf err_tail;  /* the same for stderr */
};

struct ng_proc_opts {
    const char *const *env;   /* extra "NAME=value" strings, NULL-terminated; may be NULL */
    double timeout_s;         /* <= 0: no limit */
    void (*tick)(void *ctx);  /* called about every 100 ms while the child runs; may be NULL */
    void *ctx;
};

/* Runs argv[0] (a path, or a name looked up on PATH) with stdin from
 * /dev/null and the options o (may be NULL).  Returns -1 only when the
 * program could not be started at all (err says why); otherwise 0 and r
 * tells how it ended. */
int ng_proc_run(const char *const *argv, const struct ng_proc_opts *o,
                struct ng_proc_result *r, struct ng_err *err);

void ng_proc_result_release(struct ng_proc_result *r);

/* The last `max_lines` non-empty lines of a tail, joined with " | " onto
 * one line, control characters escaped: for one-line error messages.
 * Progress bars (nsys's `Processing 7708 events: [====  40%   ]`, redrawn
 * with carriage returns) are not lines: they are left out. */
void ng_proc_tail_line(const struct ng_buf *tail, int max_lines, struct ng_buf *out);

#endif
