/* ng_verdict: the one result of a gate run.  The comparator fills it; every
 * reporter reads it, const, and never recomputes anything.
 *
 * Ownership: a verdict borrows the strings it points at (profile paths,
 * the gate name) from the profiles and settings it was made from, which
 * must outlive it; its message and error texts are its own arrays. */
#ifndef NG_VERDICT_H
#define NG_VERDICT_H

#include <stdint.h>
#include <time.h>

#include "ng_err.h"
#include "ng_profile.h"

enum ng_outcome {
    NG_OUTCOME_PASS = 0,
    NG_OUTCOME_FAIL,
    NG_OUTCOME_INCONCLUSIVE,
    NG_OUTCOME_ERROR,
};

struct ng_verdict_side {
    const char *path;          /* NULL when the side was never named */
    enum ng_format format;
    int loaded;                /* 0: the figures below are unknown (null in JSON) */
    int64_t total_ns;
    int64_t kernel_count;
    double ms_per_epoch;       /* valid when the verdict has_figures */
};

struct ng_verdict {
    enum ng_outcome outcome;
    const char *name;          /* test case / metric name */
    const char *mode;          /* "total" */
    double threshold;
    long epochs;
    int has_figures;           /* ms_per_epoch and ratio are known */
    double ratio;
    struct ng_verdict_side baseline, current;
    char message[NG_ERR_MAX + 64];  /* the first human line, e.g. "PASS: ..." */
    char error[NG_ERR_MAX];         /* empty unless outcome is ERROR */
    time_t timestamp;
    double elapsed_s;
};

const char *ng_outcome_name(enum ng_outcome o);   /* "pass", "fail", ... */

/* Exit status for an outcome: 0 pass, 1 fail, 2 error; inconclusive is 0
 * unless fail_inconclusive. */
int ng_outcome_exit_code(enum ng_outcome o, int fail_inconclusive);

#endif
