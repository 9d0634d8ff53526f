/* ng_report: renders a finished verdict in every requested format and
 * writes each one where it was asked for.
 *
 * Ownership: requests and the verdict are borrowed.  Each file is rendered
 * whole in memory and written atomically, so a report file is either
 * complete or absent (an older file stays untouched). */
#ifndef NG_REPORT_H
#define NG_REPORT_H

#include <stddef.h>

#include "ng_err.h"
#include "ng_util.h"
#include "ng_verdict.h"

enum ng_report_dest {
    NG_DEST_FILE = 0,
    NG_DEST_STDOUT,
    NG_DEST_STDERR,
};

struct ng_report_request {
    const char *format;        /* a reporter name: "human", "json", "junit" */
    enum ng_report_dest dest;
    const char *path;          /* NG_DEST_FILE only */
    const char *origin;        /* the option that asked, for messages, e.g. "--json" */
};

/* Writes every request, even after one fails; returns -1 if any failed,
 * with err describing the first failure. */
int ng_report_write_all(const struct ng_verdict *v, const struct ng_report_request *reqs,
                        size_t n, struct ng_err *err);

/* Renders one format into out (for tests and callers that want bytes). */
int ng_report_render(const char *format, const struct ng_verdict *v, struct ng_buf *out,
                     struct ng_err *err);

/* 1 if a reporter of that name exists. */
int ng_report_known(const char *format);

#endif
