#include "core/ng_metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

/* ---- kernel-sum ---- */

static int sum_add(struct ng_acc *a, int64_t device, int64_t start, int64_t end)
{
    (void)device;
    return __builtin_add_overflow(a->sum, end - start, &a->sum) ? -1 : 0;
}

static int64_t sum_value(const struct ng_acc *a)
{
    return a->sum;
}

/* ---- gpu-span ---- */

static int span_add(struct ng_acc *a, int64_t device, int64_t start, int64_t end)
{
    int64_t unused;
    (void)device;
    if (a->launches == 0 || start < a->first)
        a->first = start;
    if (a->launches == 0 || end > a->last)
        a->last = end;
    return __builtin_sub_overflow(a->last, a->first, &unused) ? -1 : 0;
}

static int64_t span_value(const struct ng_acc *a)
{
    return a->launches ? a->last - a->first : 0;
}

/* ---- gpu-busy ---- */

/* The device's state: usually the one used last; a few devices are
 * searched, more (a crafted file) found by an index built then. */
#define BUSY_SEARCH 8

static struct ng_acc_dev *busy_device(struct ng_acc *a, int64_t device)
{
    if (a->last_dev < a->n_dev && a->dev[a->last_dev].device == device)
        return &a->dev[a->last_dev];
    size_t i = 0;
    if (a->n_dev <= BUSY_SEARCH) {
        while (i < a->n_dev && a->dev[i].device != device)
            i++;
    } else {
        if (a->index.cap == 0)   /* past BUSY_SEARCH: every device so far indexed */
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
    a->dev[a->n_dev] = (struct ng_acc_dev){ device, 0, 0, -1 };   /* -1: nothing open yet */
    return &a->dev[a->n_dev++];
}

/* Intervals in order of start: each one either extends the open interval
 * or closes it and opens the next, so memory stays one interval a device. */
static int busy_add(struct ng_acc *a, int64_t device, int64_t start, int64_t end)
{
    struct ng_acc_dev *d = busy_device(a, device);

    if (d->closed < 0) {
        *d = (struct ng_acc_dev){ device, start, end, 0 };
        return 0;
    }
    if (start < d->open_start) {
        a->disordered = 1;   /* the union so far would be wrong: the caller reorders */
        return 0;
    }
    if (start <= d->open_end) {
        if (end > d->open_end)
            d->open_end = end;
        return 0;
    }
    if (__builtin_add_overflow(d->closed, d->open_end - d->open_start, &d->closed))
        return -1;
    d->open_start = start;
    d->open_end = end;
    return 0;
}

static int64_t busy_value(const struct ng_acc *a)
{
    int64_t total = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        if (a->dev[i].closed >= 0)
            total += a->dev[i].closed + (a->dev[i].open_end - a->dev[i].open_start);
    return total;
}

const struct ng_metric_info ng_metrics[] = {
    { NG_METRIC_KERNEL_SUM, "kernel-sum",
      "the sum of the durations of the counted work (default)", 0, sum_add, sum_value },
    { NG_METRIC_GPU_SPAN, "gpu-span",
      "last end minus first start of the epoch's counted work (NVTX mode)",
      NG_METRIC_NEEDS_NVTX, span_add, span_value },
    { NG_METRIC_GPU_BUSY, "gpu-busy",
      "time the GPU had counted work running: the union of the work intervals per device, "
      "summed over devices", NG_METRIC_NEEDS_ORDER, busy_add, busy_value },
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
