#include "reporters/ng_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ng_verdict_text.h"
#include "reporters/ng_reporter.h"
#include "util/ng_file.h"
#include "util/ng_util.h"

static const struct ng_reporter *const reporters[] = {
    &ng_reporter_human,
    &ng_reporter_json,
    &ng_reporter_json_line,
    &ng_reporter_history,
    &ng_reporter_benchmark,
    &ng_reporter_junit,
    &ng_reporter_metrics,
    &ng_reporter_github_summary,
    &ng_reporter_github_output,
    &ng_reporter_github_annotations,
    &ng_reporter_html,
    NULL,
};

static const struct ng_reporter *find(const char *name)
{
    for (size_t i = 0; reporters[i]; i++)
        if (strcmp(reporters[i]->name, name) == 0)
            return reporters[i];
    return NULL;
}

int ng_report_known(const char *format)
{
    return find(format) != NULL;
}

int ng_report_render(const char *format, const struct ng_verdict *v, struct ng_buf *out,
                     struct ng_err *err)
{
    const struct ng_reporter *r = find(format);
    if (!r)
        return ng_err_set(err, "no reporter named '%s'", format);
    if (r->render)
        return r->render(v, out, err);
    const struct ng_verdict_batch one = { &v, 1, NULL, v->timestamp, v->elapsed_s };
    return r->render_batch(&one, out, err);
}

int ng_report_render_batch(const char *format, const struct ng_verdict_batch *b, struct ng_buf *out,
                           struct ng_err *err)
{
    const struct ng_reporter *r = find(format);
    if (!r)
        return ng_err_set(err, "no reporter named '%s'", format);
    if (r->render_batch)
        return r->render_batch(b, out, err);
    for (size_t i = 0; i < b->n; i++)
        if (r->render(b->verdicts[i], out, err) < 0)
            return -1;
    return 0;
}

static int deliver(const struct ng_report_request *q, const struct ng_buf *out,
                   struct ng_err *err)
{
    int ret = 0;

    if (out->len == 0)
        return 0;
    switch (q->dest) {
    case NG_DEST_FILE:
    case NG_DEST_APPEND:
        ret = q->dest == NG_DEST_FILE ? ng_write_file_atomic(q->path, out->data, out->len, err)
                                      : ng_file_append(q->path, out->data, out->len, err);
        if (ret < 0 && q->origin)
            ng_err_prefix(err, "%s", q->origin);
        break;
    case NG_DEST_STDOUT:
    case NG_DEST_STDERR: {
        FILE *f = q->dest == NG_DEST_STDOUT ? stdout : stderr;
        if (fwrite(out->data, 1, out->len, f) == out->len && fflush(f) == 0)
            break;
        /* the reader went away (`| head -1`): the end of that stream, not
         * of the run; the rest of the reports are still written */
        if (errno == EPIPE) {
            clearerr(f);
            break;
        }
        ret = ng_err_set(err, "unable to write the %s report to %s", q->format,
                         q->dest == NG_DEST_STDOUT ? "standard output" : "standard error");
        break;
    }
    }
    return ret;
}

/* A batch without a manifest is one gate, rendered as one verdict. */
static int write_one(const struct ng_verdict_batch *b, const struct ng_report_request *q,
                     struct ng_err *err)
{
    struct ng_buf out = NG_BUF_INIT;
    int ret = !b->manifest && b->n == 1 ? ng_report_render(q->format, b->verdicts[0], &out, err)
                                        : ng_report_render_batch(q->format, b, &out, err);

    if (ret == 0)
        ret = deliver(q, &out, err);
    ng_buf_release(&out);
    return ret;
}

/* Files first: a report on disk must not wait behind a write to a pipe
 * whose reader is slow or gone (stdout, stderr, a FIFO, /dev/stdout).
 * Those follow in table order, so what shares a stream keeps its order. */
static int written_first(const struct ng_report_request *q)
{
    struct stat st;

    if (q->dest != NG_DEST_FILE && q->dest != NG_DEST_APPEND)
        return 0;
    if (ng_path_names_stream(q->path))
        return 0;
    return stat(q->path, &st) < 0 || S_ISREG(st.st_mode);
}

size_t ng_report_write_batch(const struct ng_verdict_batch *b, const struct ng_report_request *reqs,
                             size_t n, struct ng_err *errs)
{
    unsigned char failed[NG_REPORT_MAX] = { 0 };
    struct ng_err *one = ng_xcalloc(n ? n : 1, sizeof *one);
    size_t n_failed = 0;

    for (int pass = 1; pass >= 0; pass--)
        for (size_t i = 0; i < n && i < NG_REPORT_MAX; i++)
            if (written_first(&reqs[i]) == pass && write_one(b, &reqs[i], &one[i]) < 0)
                failed[i] = 1;
    /* each failure named, in request order (a full disk fails them all) */
    for (size_t i = 0; i < n && i < NG_REPORT_MAX; i++)
        if (failed[i])
            errs[n_failed++] = one[i];
    free(one);
    return n_failed;
}
