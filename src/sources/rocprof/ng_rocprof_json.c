/* The rocprofv3 JSON reader: not built yet. */
#include "sources/rocprof/ng_rocprof_json.h"

int ng_rocprof_json_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                        struct ng_err *err)
{
    (void)p;
    (void)opts;
    return ng_err_set(err, "'%s': rocprofv3 JSON reader not built", path);
}
