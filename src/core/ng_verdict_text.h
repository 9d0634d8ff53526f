/* ng_verdict_text: a verdict in words, for every output that shows one
 * to a person (the human line, JSON "message", JUnit, GitHub, the HTML
 * pages and the dashboard): the headline, the detail lines, and a
 * batch's line.  Rendered from the verdict's fields only, so a verdict
 * read back from JSON renders the same words.
 *
 * Ownership: the verdict is borrowed; text is appended to the caller's
 * buffer, or returned freshly allocated where said. */
#ifndef NG_VERDICT_TEXT_H
#define NG_VERDICT_TEXT_H

#include "core/ng_context.h"
#include "core/ng_verdict.h"
#include "util/ng_util.h"

/* The first human line (the headline), rendered from the verdict's
 * fields, no newline:
 *   PASS: per-epoch within 1.20x | baseline=427.2ms/epoch current=444.3ms/epoch ratio=1.040x (epochs=5)
 *   FAIL: per-epoch regression 1.39x exceeds 1.20x threshold | baseline=...
 *   PASS: per-epoch within 1.20x | baseline=0.312ms/epoch current=0.322ms/epoch ratio=1.032x (epochs=5)
 *     (one decimal from 10 ms up, as the prototype; below, three significant figures)
 *   PASS: no baseline yet: this run starts the history of 'resnet50' | current=...
 *   INCONCLUSIVE: per-epoch ratio 1.25x exceeds 1.20x threshold but is not significant (p=0.0571 > alpha=0.05) | baseline=...
 *   ERROR: <the verdict's error>
 * Every reporter that shows it (the human line, JSON "message", JUnit,
 * GitHub) renders it here, so a verdict read back from JSON renders the
 * same line.  It may hold user text (an ERROR's path), so it is appended
 * cleaned with the ng_text_clean() flags `clean`. */
void ng_verdict_text_headline(const struct ng_verdict *v, int clean, struct ng_buf *out);
/* The same uncleaned, freshly allocated (the caller frees it), for
 * writers that clean for their own format. */
char *ng_verdict_text_headline_string(const struct ng_verdict *v);

/* The detail lines under the first human line (significance, samples, the
 * kernels that moved most), each starting with two spaces and ending in a
 * newline; shared by the reporters that show text to a person. */
void ng_verdict_text_details(const struct ng_verdict *v, struct ng_buf *out);

/* "compute 1.000 ms, communication 0.500 ms (0.100 ms exposed), memory
 * 0.000 ms, idle 0.200 ms": a side's breakdown per epoch, for the details,
 * the step summary and the page; 0 (nothing written) when the side has
 * none. */
int ng_breakdown_text(const struct ng_verdict_side *s, struct ng_buf *out);

/* Whether those lines are shown: on FAIL and INCONCLUSIVE, and on PASS
 * with --verbose. */
int ng_verdict_text_wants_details(const struct ng_verdict *v);

/* Whether every item in the attribution is a kernel (then they are
 * "kernels"; otherwise "work items", with their kinds). */
int ng_verdict_text_only_kernels(const struct ng_verdict *v);

/* "top contributor: NAME +166.856 ms/epoch (100.0% of the change)": the
 * work item that moved the total most (the first of the attribution),
 * when it grew; the name cut as the headline cuts it, uncleaned.  Returns
 * 0 (nothing written) otherwise. */
int ng_verdict_text_top_contributor(const struct ng_verdict *v, struct ng_buf *out);

/* A work item's ratio as the reports print it: "1.52x", or "new". */
void ng_verdict_text_item_ratio(struct ng_buf *out, const struct ng_kernel_delta *k);

/* "PASS", "FAIL", "INCONCLUSIVE", "ERROR": as the human line spells them. */
const char *ng_outcome_title(enum ng_outcome o);

/* A batch in one line, no newline: "FAIL: 3 gates: 1 pass, 1 fail,
 * 0 inconclusive, 1 error". */
void ng_verdict_text_batch_line(const struct ng_verdict_batch *b, struct ng_buf *out);

/* The run context every gate of the batch shares (the same key with the
 * same value in each), for the reports that show one context for all:
 * out is the caller's to release. */
void ng_verdict_text_batch_context(const struct ng_verdict_batch *b, struct ng_context *out);

/* A count per epoch with the decimals it needs: "200", "12.5", "0.333"
 * (at most three), never "200.0"; written into buf, which is returned. */
const char *ng_count_text(char *buf, size_t size, double n);

/* An item's status in words: "unchanged" for one in both profiles whose
 * time per epoch did not move as shown (to the microsecond), not "changed"
 * with +0.000; else ng_kernel_status_name(). */
const char *ng_kernel_status_shown(const struct ng_kernel_delta *k);

/* The test that decided, as the details and the page name it ("one-sided
 * Welch t test of the ratio of means within clusters"). */
void ng_verdict_text_test_name(const struct ng_verdict *v, struct ng_buf *out);

#endif
