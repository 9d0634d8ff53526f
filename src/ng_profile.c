#include "ng_profile.h"

#include <stdlib.h>
#include <string.h>

#include "ng_util.h"

void ng_profile_init(struct ng_profile *p, const char *path)
{
    memset(p, 0, sizeof *p);
    p->path = ng_xstrdup(path ? path : "");
}

void ng_profile_release(struct ng_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        free(p->kernels[i].name);
    free(p->kernels);
    for (size_t i = 0; i < p->n_epochs; i++)
        free(p->epochs[i].name);
    free(p->epochs);
    free(p->gpu);
    free(p->driver);
    free(p->path);
    memset(p, 0, sizeof *p);
}

void ng_profile_add_kernel(struct ng_profile *p, const char *name, size_t name_len,
                           int64_t total_ns, int64_t instances)
{
    if (p->n_kernels == p->cap_kernels) {
        p->cap_kernels = p->cap_kernels ? p->cap_kernels * 2 : 16;
        p->kernels = ng_xrealloc(p->kernels, p->cap_kernels * sizeof *p->kernels);
    }
    struct ng_kernel *k = &p->kernels[p->n_kernels++];
    k->name = ng_xstrndup(name, name_len);
    k->total_ns = total_ns;
    k->instances = instances;
}

void ng_profile_add_epoch(struct ng_profile *p, const char *name, int64_t first_start,
                          int64_t ns, int64_t kernels)
{
    p->epochs = ng_xgrow(p->epochs, p->n_epochs, sizeof *p->epochs);
    p->epochs[p->n_epochs++] = (struct ng_epoch){ ng_xstrdup(name), first_start, ns, kernels };
}

static int by_name(const void *a, const void *b)
{
    const struct ng_kernel *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static int by_total(const void *a, const void *b)
{
    const struct ng_kernel *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

int ng_profile_finish(struct ng_profile *p, struct ng_err *err)
{
    size_t out = 0;
    int64_t total = 0, count = 0;

    if (p->n_kernels == 0)
        return ng_err_set(err, "'%s' has no CUDA kernel data", p->path);

    /* Rows of one name can arrive several times (grid/block split reports,
     * names that nsys truncated alike): merge them. */
    qsort(p->kernels, p->n_kernels, sizeof *p->kernels, by_name);
    for (size_t i = 0; i < p->n_kernels; i++) {
        struct ng_kernel *k = &p->kernels[i];
        if (out > 0 && strcmp(p->kernels[out - 1].name, k->name) == 0) {
            struct ng_kernel *m = &p->kernels[out - 1];
            if (__builtin_add_overflow(m->total_ns, k->total_ns, &m->total_ns) ||
                __builtin_add_overflow(m->instances, k->instances, &m->instances))
                return ng_err_set(err, "'%s': kernel time overflows 64 bits", p->path);
            free(k->name);
            k->name = NULL;   /* keeps ng_profile_release() safe on error */
            continue;
        }
        if (out != i) {
            p->kernels[out] = *k;
            k->name = NULL;
        }
        out++;
    }
    p->n_kernels = out;
    for (size_t i = 0; i < out; i++) {
        if (__builtin_add_overflow(total, p->kernels[i].total_ns, &total) ||
            __builtin_add_overflow(count, p->kernels[i].instances, &count))
            return ng_err_set(err, "'%s': total kernel time overflows 64 bits", p->path);
    }
    qsort(p->kernels, out, sizeof *p->kernels, by_total);
    p->total_ns = total;
    p->kernel_count = count;
    p->loaded = 1;
    return 0;
}

const char *ng_metric_name(enum ng_metric m)
{
    return m == NG_METRIC_GPU_SPAN ? "gpu-span" : "kernel-sum";
}

const char *ng_format_name(enum ng_format f)
{
    switch (f) {
    case NG_FORMAT_SQLITE: return "sqlite";
    case NG_FORMAT_NSYS_REP: return "nsys-rep";
    case NG_FORMAT_CSV: return "nsys-stats";
    case NG_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}
