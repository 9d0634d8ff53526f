/* ng_report: renders a finished verdict (or, in batch mode, the verdicts
 * of every gate of a manifest) in every requested format and writes each
 * one where it was asked for.
 *
 * Ownership: requests, verdicts and batches are borrowed.  Each output is
 * rendered whole in memory.  A file is written atomically (complete or
 * absent; an older file stays untouched); an append destination gets the
 * whole text or nothing, under a lock (ng_file_append()), so concurrent
 * writers never interleave and a failed append leaves no torn line.  */
#ifndef NG_REPORT_H
#define NG_REPORT_H

#include <stddef.h>

#include "core/ng_verdict.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

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
 * EPIPE on stdout or stderr ends that stream silently.  Returns how many
 * failed, each described in errs (room for n, at most NG_REPORT_MAX), in
 * request order. */
#define NG_REPORT_MAX 64
size_t ng_report_write_batch(const struct ng_verdict_batch *b, const struct ng_report_request *reqs,
                             size_t n, struct ng_err *errs);

/* Renders one format into out (for tests and callers that want bytes). */
int ng_report_render(const char *format, const struct ng_verdict *v, struct ng_buf *out,
                     struct ng_err *err);
int ng_report_render_batch(const char *format, const struct ng_verdict_batch *b, struct ng_buf *out,
                           struct ng_err *err);

/* 1 if a reporter of that name exists. */
int ng_report_known(const char *format);

#endif
