/* ng_reporter: what one output format implements (one file per format:
 * ng_report_human.c, ng_report_json.c (JSON, JSON Lines, benchmark JSON),
 * ng_report_junit.c, ng_report_metrics.c, ng_report_github.c,
 * ng_report_html.c) and the
 * registry in ng_report.c.
 *
 * Ownership: render() reads the verdict and appends bytes to out; it keeps
 * nothing.  A reporter never recomputes a figure: everything it prints is
 * in the verdict. */
#ifndef NG_REPORTER_H
#define NG_REPORTER_H

#include "core/ng_verdict.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

struct ng_verdict_batch;

/* Either hook may be NULL, and the dispatcher fills in: a single verdict
 * without render() goes to render_batch() as a batch of one; a batch
 * without render_batch() is each verdict's render(), concatenated. */
struct ng_reporter {
    const char *name;
    int (*render)(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err);
    int (*render_batch)(const struct ng_verdict_batch *b, struct ng_buf *out, struct ng_err *err);
};

extern const struct ng_reporter ng_reporter_human;
extern const struct ng_reporter ng_reporter_json;
extern const struct ng_reporter ng_reporter_json_line;
extern const struct ng_reporter ng_reporter_history;
extern const struct ng_reporter ng_reporter_benchmark;
extern const struct ng_reporter ng_reporter_junit;
extern const struct ng_reporter ng_reporter_metrics;
extern const struct ng_reporter ng_reporter_github_summary;
extern const struct ng_reporter ng_reporter_github_output;
extern const struct ng_reporter ng_reporter_github_annotations;
extern const struct ng_reporter ng_reporter_html;

#endif
