/* The rocprofv3 CSV reader: not built yet. */
#include "sources/rocprof/ng_rocprof_csv.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

/* The files of a run, by the name rocprofv3 ends them with. */
static const char *const tables[] = {
    "kernel_trace.csv", "memory_copy_trace.csv", "marker_api_trace.csv", "hip_api_trace.csv",
};

static int is_table(const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        size_t tl = strlen(tables[i]);
        if (len >= tl && strcmp(name + len - tl, tables[i]) == 0 &&
            (len == tl || name[len - tl - 1] == '_'))
            return 1;
    }
    return 0;
}

int ng_rocprof_csv_claim(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return 1;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = is_table(e->d_name);
    closedir(d);
    return found;
}

int ng_rocprof_csv_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                        struct ng_err *err)
{
    (void)p;
    (void)opts;
    return ng_err_set(err, "'%s': rocprofv3 CSV reader not built", path);
}
