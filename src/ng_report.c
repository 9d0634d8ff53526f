#include "ng_report.h"

#include <stdio.h>
#include <string.h>

#include "ng_reporter.h"
#include "ng_util.h"

static const struct ng_reporter *const reporters[] = {
    &ng_reporter_human,
    &ng_reporter_json,
    &ng_reporter_junit,
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
    return r->render(v, out, err);
}

static int write_one(const struct ng_verdict *v, const struct ng_report_request *q,
                     struct ng_err *err)
{
    struct ng_buf out = NG_BUF_INIT;
    int ret = ng_report_render(q->format, v, &out, err);

    if (ret == 0 && out.len > 0) {
        switch (q->dest) {
        case NG_DEST_FILE:
            ret = ng_write_file_atomic(q->path, out.data, out.len, err);
            if (ret < 0 && q->origin)
                ng_err_prefix(err, "%s", q->origin);
            break;
        case NG_DEST_STDOUT:
        case NG_DEST_STDERR: {
            FILE *f = q->dest == NG_DEST_STDOUT ? stdout : stderr;
            if (fwrite(out.data, 1, out.len, f) != out.len || fflush(f) != 0)
                ret = ng_err_set(err, "unable to write the %s report to %s", q->format,
                                 q->dest == NG_DEST_STDOUT ? "standard output"
                                                           : "standard error");
            break;
        }
        }
    }
    ng_buf_release(&out);
    return ret;
}

int ng_report_write_all(const struct ng_verdict *v, const struct ng_report_request *reqs,
                        size_t n, struct ng_err *err)
{
    int ret = 0;

    for (size_t i = 0; i < n; i++) {
        struct ng_err one;
        if (write_one(v, &reqs[i], &one) < 0) {
            if (ret == 0)
                *err = one;
            ret = -1;
        }
    }
    return ret;
}
