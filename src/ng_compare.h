/* ng_compare: the decision.  Pure: two profiles and the options in, one
 * verdict out; no I/O, no clock, no globals.
 *
 * Ownership: the verdict borrows the profiles' paths and opts->name, so
 * both must outlive it. */
#ifndef NG_COMPARE_H
#define NG_COMPARE_H

#include "ng_profile.h"
#include "ng_verdict.h"

struct ng_compare_opts {
    const char *name;
    double threshold;    /* >= 1; FAIL when ratio > threshold */
    long epochs;         /* >= 1 */
};

/* Starts a verdict for these sides: paths, formats, and whatever figures
 * the profiles that loaded already have; outcome ERROR until decided.
 * Either profile may be NULL (never named) or not loaded. */
void ng_verdict_begin(struct ng_verdict *v, const struct ng_profile *baseline,
                      const struct ng_profile *current, const struct ng_compare_opts *opts);

/* Marks the verdict as ERROR with this message (without "ERROR: "). */
void ng_verdict_fail_with(struct ng_verdict *v, const char *error);

/* Decides: both profiles must be loaded.  A zero baseline is an ERROR
 * verdict, not a division by zero. */
void ng_compare(struct ng_verdict *v, const struct ng_profile *baseline,
                const struct ng_profile *current, const struct ng_compare_opts *opts);

#endif
