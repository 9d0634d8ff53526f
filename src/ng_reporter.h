/* ng_reporter: what one output format implements (one file each:
 * ng_report_human.c, ng_report_json.c, ng_report_junit.c) and the registry
 * in ng_report.c.
 *
 * Ownership: render() reads the verdict and appends bytes to out; it keeps
 * nothing.  A reporter never recomputes a figure: everything it prints is
 * in the verdict. */
#ifndef NG_REPORTER_H
#define NG_REPORTER_H

#include "ng_err.h"
#include "ng_util.h"
#include "ng_verdict.h"

struct ng_reporter {
    const char *name;
    int (*render)(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err);
};

/* The detail lines under the first human line (significance, samples, the
 * kernels that moved most), each starting with two spaces and ending in a
 * newline; shared by the reporters that show text to a person. */
void ng_report_details(const struct ng_verdict *v, struct ng_buf *out);

/* Whether those lines are shown: on FAIL and INCONCLUSIVE, and on PASS
 * with --verbose. */
int ng_report_wants_details(const struct ng_verdict *v);

extern const struct ng_reporter ng_reporter_human;
extern const struct ng_reporter ng_reporter_json;
extern const struct ng_reporter ng_reporter_junit;

#endif
