/* ng_verdict_doc: a verdict read back from the JSON the "json" or
 * "json-line" reporter wrote: the batch runner's children send their
 * verdicts so, and ng_history reads --history files so.  cJSON reads it
 * here; the reporters only write.
 *
 * Everything the JSON holds comes back, the run context and the
 * timestamp too; fields it lacks (an older gate's) stay 0 or NULL, fields
 * it does not know are ignored; verbose, fail_inconclusive and elapsed_s
 * are not in it and stay 0.
 *
 * Ownership: the doc owns the strings its verdict points at (and the
 * policy); a doc memset to 0 is empty and may be released. */
#ifndef NG_VERDICT_READ_H
#define NG_VERDICT_READ_H

#include <stddef.h>

#include "core/ng_verdict.h"
#include "util/ng_err.h"

struct ng_verdict_doc {
    struct ng_verdict v;
    char **strings;
    size_t n_strings;
    struct ng_policy *policy;  /* v.policy points here (allocated: a doc may be moved) */
    /* a total, run, sample, kernel or row time out of range: read, but not
     * a run to compute a baseline with (ng_history skips the line) */
    int has_out_of_range;
    struct ng_err out_of_range;
};

/* The largest figure a verdict writes: a time in ms whose ns fit 64 bits. */
#define NG_VERDICT_FIGURE_MAX 9.2e12

/* Whether x is a figure a gate writes: not negative, not infinite or NaN,
 * at most NG_VERDICT_FIGURE_MAX.  Both readers of a line hold its figures
 * to it (the full reader and the trend scanner). */
int ng_verdict_doc_figure_ok(double x);

/* The text must be one JSON value: -1 with err "not valid JSON", "more
 * than one JSON value" or "not a JSON verdict" (no "name", or a "verdict"
 * that is not pass, fail, inconclusive or error), or a figure out of range
 * (the ratio, threshold, p, ms/epoch, a side's median, min or max): -2,
 * a whole line that is no torn one. */
int ng_verdict_doc_read(struct ng_verdict_doc *d, const char *text, size_t len,
                        struct ng_err *err);
void ng_verdict_doc_release(struct ng_verdict_doc *d);

#endif
