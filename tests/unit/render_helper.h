/* One rendering helper for the reporter tests: the bytes a reporter makes
 * for a verdict, asserting it succeeded.  The caller frees the result. */
#ifndef TEST_RENDER_HELPER_H
#define TEST_RENDER_HELPER_H

#include "reporters/ng_report.h"

static inline char *render(const char *fmt, const struct ng_verdict *v)
{
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;
    assert_int_equal(ng_report_render(fmt, v, &out, &err), 0);
    return ng_buf_detach(&out);
}

#endif
