/* ng_work_pass: what a reader's pass over timed GPU work leaves in its
 * profile, the same for every reader that sees each operation's start and
 * end (an nsys export, a Chrome trace): in total mode the metric's figure
 * over all counted work, from the accumulator (ng_metric.h); in NVTX mode
 * the counted epochs, from the projection (ng_nvtx.h); in both, where the
 * time went (the breakdown) and, in NVTX mode, by which nested ranges.
 *
 * Ownership: the projection and the accumulator stay the reader's; the
 * profile gets copies of what it keeps. */
#ifndef NG_WORK_PASS_H
#define NG_WORK_PASS_H

#include "core/ng_metric.h"
#include "core/ng_nvtx.h"
#include "core/ng_profile.h"
#include "util/ng_err.h"

struct ng_work_pass {
    const struct ng_nvtx *pj;     /* NVTX mode: the projection; NULL: total mode */
    const struct ng_acc *whole;   /* total mode: every counted interval */
    enum ng_metric metric;
    long skip_epochs;             /* NVTX mode: the warm-up epochs left out */
};

/* The pass's figures into p: the measured figure (total mode, a metric
 * other than the kernel sum), the epochs (NVTX mode), the breakdown and
 * the nested ranges.  -1 when the breakdown overflows 64 bits (err names
 * `shown`). */
int ng_work_pass_finish(struct ng_profile *p, const struct ng_work_pass *w, const char *shown,
                        struct ng_err *err);

#endif
