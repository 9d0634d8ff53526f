/* The rocpd reader: not built yet (a database is never claimed, so an
 * nsys export is read as before). */
#include "sources/rocprof/ng_rocpd.h"

int ng_rocpd_claim(const char *path)
{
    (void)path;
    return 0;
}

int ng_rocpd_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                  struct ng_err *err)
{
    (void)p;
    (void)opts;
    return ng_err_set(err, "'%s': rocpd reader not built", path);
}
