#include "core/ng_metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

/* ---- the devices ---- */

/* The device's state: usually the one used last; a few devices are
 * searched, more (a crafted file) found by an index built then. */
#define DEV_SEARCH 8

struct ng_acc_dev *ng_acc_other_device(struct ng_acc *a, int64_t device)
{
    size_t i = 0;
    if (a->n_dev <= DEV_SEARCH) {
        while (i < a->n_dev && a->dev[i].device != device)
            i++;
    } else {
        if (a->index.cap == 0)   /* past DEV_SEARCH: every device so far indexed */
            for (size_t k = 0; k < a->n_dev; k++)
                ng_idmap_set(&a->index, a->dev[k].device, 0, k);
        i = ng_idmap_get(&a->index, device, 0, a->n_dev, NULL);
    }
    if (i < a->n_dev) {
        a->last_dev = i;
        return &a->dev[i];
    }
    if (a->n_dev == a->cap_dev) {
        a->cap_dev = a->cap_dev ? 2 * a->cap_dev : 2;
        a->dev = ng_xrealloc(a->dev, a->cap_dev * sizeof *a->dev);
    }
    a->last_dev = a->n_dev;
    a->dev[a->n_dev] = (struct ng_acc_dev){ .device = device, .closed = -1,
                                            .k_start = INT64_MIN, .k_end = INT64_MIN,
                                            .c_start = INT64_MIN, .c_end = INT64_MIN };
    return &a->dev[a->n_dev++];
}

/* The first interval of a device, or one that starts before the last one
 * did: the sum and the span still count it (they need no order), the
 * unions would be wrong, so the caller is told to reorder. */
int ng_acc_add_rare(struct ng_acc *a, struct ng_acc_dev *d, int64_t start, int64_t end,
                    enum ng_work_class cls)
{
    int64_t dur = end - start;

    if (ng_acc_count(a, start, end) < 0)
        return -1;
    if (d->closed >= 0) {
        a->disordered = 1;
        return 0;
    }
    d->open_start = d->first = d->mark = start;
    d->open_end = d->last = end;
    d->closed = 0;
    d->ns[cls] = dur;
    if (cls == NG_CLASS_COMPUTE)
        d->k_start = start, d->k_end = end;
    else if (cls == NG_CLASS_COMM)
        d->c_start = start, d->c_end = end;
    return 0;
}

static int64_t dev_busy(const struct ng_acc_dev *d)
{
    return d->closed < 0 ? 0 : d->closed + (d->open_end - d->open_start);
}

/* Exposure counted so far, and after the mark (nothing more will come). */
static int64_t dev_exposed(const struct ng_acc_dev *d)
{
    return d->exposed + ng_acc_exposed_until(d, INT64_MAX);
}

/* ---- the metrics ---- */

static int64_t sum_value(const struct ng_acc *a)
{
    return a->sum;
}

static int64_t span_value(const struct ng_acc *a)
{
    return a->launches ? a->last - a->first : 0;
}

static int64_t busy_value(const struct ng_acc *a)
{
    int64_t total = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        total += dev_busy(&a->dev[i]);
    return total;
}

static int64_t exposed_value(const struct ng_acc *a)
{
    int64_t total = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        total += dev_exposed(&a->dev[i]);
    return total;
}

const struct ng_metric_info ng_metrics[] = {
    { NG_METRIC_KERNEL_SUM, "kernel-sum",
      "the sum of the durations of the counted work (default)", "kernel time", 0, sum_value },
    { NG_METRIC_GPU_SPAN, "gpu-span",
      "last end minus first start of the epoch's counted work (NVTX mode)", "GPU span",
      NG_METRIC_NEEDS_NVTX, span_value },
    { NG_METRIC_GPU_BUSY, "gpu-busy",
      "time the GPU had counted work running: the union of the work intervals per device, "
      "summed over devices", "GPU busy time", 0, busy_value },
    { NG_METRIC_EXPOSED_COMM, "exposed-comm",
      "time a communication kernel ran on a device while no compute kernel ran on it, summed "
      "over devices", "exposed communication",
      0, exposed_value },
};
const size_t ng_n_metrics = sizeof ng_metrics / sizeof ng_metrics[0];

const struct ng_metric_info *ng_metric_find(const char *name)
{
    for (size_t i = 0; i < ng_n_metrics; i++)
        if (strcmp(ng_metrics[i].name, name) == 0)
            return &ng_metrics[i];
    return NULL;
}

const char *ng_metric_name(enum ng_metric m)
{
    return ng_metric_info(m)->name;
}

void ng_metric_choices(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ng_n_metrics; i++) {
        int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", ng_metrics[i].name);
        if (n < 0 || (size_t)n >= size - len)
            return;
        len += (size_t)n;
    }
}

int64_t ng_acc_value(const struct ng_acc *a, enum ng_metric m)
{
    return ng_metric_info(m)->value(a);
}

void ng_breakdown_per_epoch(const struct ng_breakdown *b, double epochs,
                            struct ng_breakdown_ms *out)
{
    double per = epochs * 1e6;
    *out = (struct ng_breakdown_ms){ (double)b->compute / per, (double)b->comm / per,
                                     (double)b->exposed / per, (double)b->memory / per,
                                     (double)b->idle / per };
}

int ng_breakdown_add(struct ng_breakdown *to, const struct ng_breakdown *from)
{
    return __builtin_add_overflow(to->compute, from->compute, &to->compute) ||
                   __builtin_add_overflow(to->comm, from->comm, &to->comm) ||
                   __builtin_add_overflow(to->exposed, from->exposed, &to->exposed) ||
                   __builtin_add_overflow(to->memory, from->memory, &to->memory) ||
                   __builtin_add_overflow(to->idle, from->idle, &to->idle)
               ? -1 : 0;
}

int ng_breakdown_merge(struct ng_breakdown **devs, size_t *n, const struct ng_breakdown *add,
                       size_t n_add)
{
    struct ng_breakdown *out = ng_xcalloc(*n + n_add + 1, sizeof *out);
    size_t i = 0, j = 0, k = 0;
    int ret = 0;

    while (i < *n || j < n_add) {
        if (j == n_add || (i < *n && (*devs)[i].device < add[j].device)) {
            out[k++] = (*devs)[i++];
        } else if (i == *n || add[j].device < (*devs)[i].device) {
            out[k++] = add[j++];
        } else {
            out[k] = (*devs)[i++];
            if (ng_breakdown_add(&out[k++], &add[j++]) < 0)
                ret = -1;
        }
    }
    free(*devs);
    *devs = out;
    *n = k;
    return ret;
}

static int by_device(const void *a, const void *b)
{
    const struct ng_breakdown *x = a, *y = b;
    return (x->device > y->device) - (x->device < y->device);
}

int ng_acc_breakdown(const struct ng_acc *a, struct ng_breakdown **devs, size_t *n,
                     struct ng_breakdown *sum)
{
    struct ng_breakdown *mine = ng_xcalloc(a->n_dev + 1, sizeof *mine);
    size_t m = 0;
    int ret = 0;

    for (size_t i = 0; i < a->n_dev; i++) {
        const struct ng_acc_dev *d = &a->dev[i];
        if (d->closed < 0)
            continue;
        mine[m] = (struct ng_breakdown){ d->device, d->ns[NG_CLASS_COMPUTE],
                                         d->ns[NG_CLASS_COMM], dev_exposed(d),
                                         d->ns[NG_CLASS_MEMORY],
                                         (d->last - d->first) - dev_busy(d) };
        if (ng_breakdown_add(sum, &mine[m++]) < 0)
            ret = -1;
    }
    ng_sort(mine, m, sizeof *mine, by_device);   /* a device is one entry of an accumulator */
    if (ng_breakdown_merge(devs, n, mine, m) < 0)
        ret = -1;
    free(mine);
    return ret;
}

void ng_acc_reset(struct ng_acc *a)
{
    struct ng_acc_dev *dev = a->dev;
    size_t cap = a->cap_dev;
    ng_idmap_release(&a->index);   /* the devices are forgotten, so is their index */
    memset(a, 0, sizeof *a);
    a->dev = dev;
    a->cap_dev = cap;
}

void ng_acc_release(struct ng_acc *a)
{
    free(a->dev);
    ng_idmap_release(&a->index);
    memset(a, 0, sizeof *a);
}
