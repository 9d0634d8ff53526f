/* ng_reporter: what one output format implements (one file per format:
 * ng_report_human.c, ng_report_json.c (JSON, JSON Lines, benchmark JSON),
 * ng_report_junit.c, ng_report_metrics.c, ng_report_github.c) and the
 * registry in ng_report.c.
 *
 * Ownership: render() reads the verdict and appends bytes to out; it keeps
 * nothing.  A reporter never recomputes a figure: everything it prints is
 * in the verdict. */
#ifndef NG_REPORTER_H
#define NG_REPORTER_H

#include "ng_err.h"
#include "ng_util.h"
#include "ng_verdict.h"

struct ng_batch;

/* Either hook may be NULL, and the dispatcher fills in: a single verdict
 * without render() goes to render_batch() as a batch of one; a batch
 * without render_batch() is each verdict's render(), concatenated. */
struct ng_reporter {
    const char *name;
    int (*render)(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err);
    int (*render_batch)(const struct ng_batch *b, struct ng_buf *out, struct ng_err *err);
};

/* The detail lines under the first human line (significance, samples, the
 * kernels that moved most), each starting with two spaces and ending in a
 * newline; shared by the reporters that show text to a person. */
void ng_report_details(const struct ng_verdict *v, struct ng_buf *out);

/* Whether those lines are shown: on FAIL and INCONCLUSIVE, and on PASS
 * with --verbose. */
int ng_report_wants_details(const struct ng_verdict *v);

/* "PASS", "FAIL", "INCONCLUSIVE", "ERROR": as the human line spells them. */
const char *ng_outcome_title(enum ng_outcome o);

/* A batch in one line, no newline: "FAIL: 3 gates: 1 pass, 1 fail,
 * 0 inconclusive, 1 error". */
void ng_report_batch_line(const struct ng_batch *b, struct ng_buf *out);

extern const struct ng_reporter ng_reporter_human;
extern const struct ng_reporter ng_reporter_json;
extern const struct ng_reporter ng_reporter_json_line;
extern const struct ng_reporter ng_reporter_benchmark;
extern const struct ng_reporter ng_reporter_junit;
extern const struct ng_reporter ng_reporter_metrics;
extern const struct ng_reporter ng_reporter_github_summary;
extern const struct ng_reporter ng_reporter_github_output;
extern const struct ng_reporter ng_reporter_github_annotations;

#endif
