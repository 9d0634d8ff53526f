#include "ng_err.h"

#include <stdio.h>
#include <string.h>

int ng_err_set(struct ng_err *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int ng_err_prefix(struct ng_err *err, const char *fmt, ...)
{
    char old[NG_ERR_MAX];
    size_t n;
    va_list ap;

    memcpy(old, err->msg, sizeof old);
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, ": %s", old);
    return -1;
}
