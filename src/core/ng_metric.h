/* ng_metric: how the GPU work of an epoch (or, in total mode, of a whole
 * profile) becomes one figure.  One table row per metric: its name, its
 * help, what it needs, and its accumulator; the CLI's choices and the
 * schema's enum are the table's names.
 *
 *   kernel-sum  the sum of the durations of the counted work (what nsys's
 *               nvtx_kern_sum adds up; the prototype's rule in total mode)
 *   gpu-span    last end - first start of the counted work (nsys's
 *               nvtx_gpu_proj_trace projection): NVTX mode only
 *   gpu-busy    the time the GPU had counted work running: per device the
 *               length of the union of the work intervals, summed over
 *               devices, so concurrent work counts once
 *
 * An accumulator (struct ng_acc) takes work intervals one at a time.
 * gpu-busy needs them in order of start per device, and says when they
 * were not (ng_acc.disordered): the reader then feeds them again in order.
 *
 * Ownership: an accumulator owns its per-device array and index;
 * ng_acc_release() frees them.  The table is static. */
#ifndef NG_METRIC_H
#define NG_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_util.h"

enum ng_metric {
    NG_METRIC_KERNEL_SUM = 0,
    NG_METRIC_GPU_SPAN,
    NG_METRIC_GPU_BUSY,
};

#define NG_METRIC_NEEDS_NVTX 1u    /* per epoch only: a whole trace's span gates nothing */
#define NG_METRIC_NEEDS_ORDER 2u   /* intervals in order of start, per device */

/* One device's merged intervals so far (gpu-busy). */
struct ng_acc_dev {
    int64_t device;
    int64_t open_start, open_end;   /* the interval still growing */
    int64_t closed;                 /* the length of the intervals before it */
};

struct ng_acc {
    int64_t sum;              /* kernel-sum */
    int64_t first, last;      /* gpu-span: over every interval added */
    int64_t launches;         /* intervals added */
    struct ng_acc_dev *dev;   /* gpu-busy */
    size_t n_dev, cap_dev, last_dev;
    struct ng_idmap index;    /* device -> dev[], once there are more than a few */
    int disordered;           /* gpu-busy: an interval started before an earlier one */
};

struct ng_metric_info {
    enum ng_metric id;
    const char *name;
    const char *help;
    unsigned needs;
    /* adds [start, end] of `device` (end >= start); -1 when a figure would
     * overflow 64 bits */
    int (*add)(struct ng_acc *a, int64_t device, int64_t start, int64_t end);
    int64_t (*value)(const struct ng_acc *a);
};

/* The table, in the order the CLI lists it; NULL-terminated by count. */
extern const struct ng_metric_info ng_metrics[];
extern const size_t ng_n_metrics;

/* The table is in enum order: a lookup per work interval is an index. */
static inline const struct ng_metric_info *ng_metric_info(enum ng_metric m)
{
    return (size_t)m < ng_n_metrics ? &ng_metrics[m] : &ng_metrics[0];
}

/* NULL when no metric has that name. */
const struct ng_metric_info *ng_metric_find(const char *name);
const char *ng_metric_name(enum ng_metric m);
/* "kernel-sum, gpu-span, gpu-busy" into buf. */
void ng_metric_choices(char *buf, size_t size);

/* Adds an interval under metric m (the counts every metric keeps, and the
 * metric's own figure).  Inline: it runs once a work row. */
static inline int ng_acc_add(struct ng_acc *a, enum ng_metric m, int64_t device, int64_t start,
                             int64_t end)
{
    int ret = ng_metric_info(m)->add(a, device, start, end);
    a->launches++;
    return ret;
}
int64_t ng_acc_value(const struct ng_acc *a, enum ng_metric m);
/* Empties the accumulator for a fresh pass (keeps its allocation). */
void ng_acc_reset(struct ng_acc *a);
void ng_acc_release(struct ng_acc *a);

#endif
