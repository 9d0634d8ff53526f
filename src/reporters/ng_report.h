/* ng_report: renders a finished verdict (or, in batch mode, the verdicts
 * of every gate of a manifest) in every requested format and writes each
 * one where it was asked for.
 *
 * Ownership: requests, verdicts and batches are borrowed.  Each output is
 * rendered whole in memory.  A file is written atomically (complete or
 * absent; an older file stays untouched); an append destination gets the
 * whole text or nothing, under a lock (ng_file_append()), so concurrent
 * writers never interleave and a failed append leaves no torn line.  A verdict read back from JSON owns what it
 * points at until ng_verdict_doc_release(). */
#ifndef NG_REPORT_H
#define NG_REPORT_H

#include <stddef.h>

#include "util/ng_err.h"
#include "util/ng_util.h"
#include "core/ng_verdict.h"

enum ng_report_dest {
    NG_DEST_FILE = 0,
    NG_DEST_STDOUT,
    NG_DEST_STDERR,
    NG_DEST_APPEND,            /* appended to path, created if missing */
};

struct ng_report_request {
    const char *format;        /* a reporter name: "human", "json", "junit", ... */
    enum ng_report_dest dest;
    const char *path;          /* NG_DEST_FILE and NG_DEST_APPEND only */
    const char *origin;        /* the option or variable that asked, for messages,
                                  e.g. "--json", "GITHUB_STEP_SUMMARY" */
};

/* Writes every request for the batch, even after one fails: one
 * document, file or line set for all its gates; a batch without a
 * manifest is one gate, written as that verdict alone.  Files are written
 * before the streams (a closed or stalled pipe must not cost a report);
 * EPIPE on stdout or stderr ends that stream silently.  Returns -1 if any
 * failed, with err describing the first failure in request order. */
int ng_report_write_batch(const struct ng_batch *b, const struct ng_report_request *reqs,
                          size_t n, struct ng_err *err);

/* Renders one format into out (for tests and callers that want bytes). */
int ng_report_render(const char *format, const struct ng_verdict *v, struct ng_buf *out,
                     struct ng_err *err);
int ng_report_render_batch(const char *format, const struct ng_batch *b, struct ng_buf *out,
                           struct ng_err *err);

/* A verdict read back from the JSON the "json" or "json-line" reporter
 * wrote (the batch runner's children send their verdicts so; ng_history
 * reads --history files so).  Everything the JSON holds comes back, the
 * run context and the timestamp too; fields it lacks (an older gate's)
 * stay 0 or NULL, fields it does not know are ignored; verbose,
 * fail_inconclusive and elapsed_s are not in it and stay 0.  The text must be one JSON value: -1 with err "not valid JSON", "more
 * than one JSON value" or "not a JSON verdict" (no "name", or a "verdict"
 * that is not pass, fail, inconclusive or error).  The doc owns the
 * strings the verdict points at; a doc memset to 0 is empty and may be
 * released. */
/* The longest --history line, its newline included: under 64 KiB.  The
 * gate's name in it is cut (ng_text_cut, hashed) at NG_HISTORY_NAME_MAX
 * JSON bytes, whatever else the line had to cut. */
#define NG_HISTORY_LINE_LIMIT 65535
#define NG_HISTORY_NAME_MAX 1024

struct ng_verdict_doc {
    struct ng_verdict v;
    char **strings;
    size_t n_strings;
    struct ng_policy *policy;  /* v.policy points here (allocated: a doc may be moved) */
};
int ng_verdict_doc_read(struct ng_verdict_doc *d, const char *text, size_t len,
                        struct ng_err *err);
void ng_verdict_doc_release(struct ng_verdict_doc *d);

/* 1 if a reporter of that name exists. */
int ng_report_known(const char *format);

#endif
