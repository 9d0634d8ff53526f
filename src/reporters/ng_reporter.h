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

#include "util/ng_err.h"
#include "util/ng_util.h"
#include "core/ng_verdict.h"

struct ng_batch;

/* Either hook may be NULL, and the dispatcher fills in: a single verdict
 * without render() goes to render_batch() as a batch of one; a batch
 * without render_batch() is each verdict's render(), concatenated. */
struct ng_reporter {
    const char *name;
    int (*render)(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err);
    int (*render_batch)(const struct ng_batch *b, struct ng_buf *out, struct ng_err *err);
};

/* The first human line (the headline), rendered from the verdict's
 * fields, no newline:
 *   PASS: per-epoch within 1.20x | baseline=427.2ms/epoch current=444.3ms/epoch ratio=1.040x (epochs=5)
 *   FAIL: per-epoch regression 1.39x exceeds 1.20x threshold | baseline=...
 *   INCONCLUSIVE: per-epoch ratio 1.25x exceeds 1.20x threshold but is not significant (p=0.0571 > alpha=0.05) | baseline=...
 *   ERROR: <the verdict's error>
 * Every reporter that shows it (the human line, JSON "message", JUnit,
 * GitHub) renders it here, so a verdict read back from JSON renders the
 * same line.  It may hold user text (an ERROR's path), so it is appended
 * cleaned with the ng_text_clean() flags `clean`. */
void ng_report_headline(const struct ng_verdict *v, int clean, struct ng_buf *out);
/* The same uncleaned, freshly allocated (the caller frees it), for
 * writers that clean for their own format. */
char *ng_report_headline_text(const struct ng_verdict *v);

/* The detail lines under the first human line (significance, samples, the
 * kernels that moved most), each starting with two spaces and ending in a
 * newline; shared by the reporters that show text to a person. */
void ng_report_details(const struct ng_verdict *v, struct ng_buf *out);

/* Whether those lines are shown: on FAIL and INCONCLUSIVE, and on PASS
 * with --verbose. */
int ng_report_wants_details(const struct ng_verdict *v);

/* Whether every item in the attribution is a kernel (then they are
 * "kernels"; otherwise "work items", with their kinds). */
int ng_report_only_kernels(const struct ng_verdict *v);

/* A work item's ratio as the reports print it: "1.52x", or "new". */
void ng_report_item_ratio(struct ng_buf *out, const struct ng_kernel_delta *k);

/* "PASS", "FAIL", "INCONCLUSIVE", "ERROR": as the human line spells them. */
const char *ng_outcome_title(enum ng_outcome o);

/* A batch in one line, no newline: "FAIL: 3 gates: 1 pass, 1 fail,
 * 0 inconclusive, 1 error". */
void ng_report_batch_line(const struct ng_batch *b, struct ng_buf *out);

/* The run context every gate of the batch shares (the same key with the
 * same value in each), for the reports that show one context for all:
 * out is the caller's to release. */
void ng_report_batch_context(const struct ng_batch *b, struct ng_context *out);

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
