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
 *   exposed-comm the time a communication kernel ran on a device while no
 *               compute kernel ran on it, summed over devices: an
 *               all-reduce that stops overlapping compute shows here
 *               even when the kernel sum stays
 *
 * An accumulator (struct ng_acc) takes work intervals one at a time, each
 * of a class (compute, communication, memory), and keeps every metric's
 * figure and the breakdown of the time per device (ng_acc_breakdown) in
 * the same pass: the sums by class, the busy union, the exposed
 * communication and the idle time inside the device's span.  It needs the
 * intervals in order of start per device (any metric), and says when they
 * were not (ng_acc.disordered): the reader then feeds them again in order.
 *
 * Exposed communication is settled as the intervals arrive: once an
 * interval starting at t is seen, no later one covers a point before t,
 * so the coverage of both unions before t is final.  A device keeps the
 * last component of its compute union and of its communication union and
 * the point `mark` up to which their difference is counted.
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
    NG_METRIC_EXPOSED_COMM,
};

#define NG_METRIC_NEEDS_NVTX 1u    /* per epoch only: a whole trace's span gates nothing */

/* What a work interval is, for the breakdown. */
enum ng_work_class {
    NG_CLASS_COMPUTE = 0,   /* kernels that are not communication, graph launches */
    NG_CLASS_COMM,          /* communication kernels (ng_comm) */
    NG_CLASS_MEMORY,        /* memcpy, memset */
};
#define NG_CLASSES 3

/* One device's state so far. */
struct ng_acc_dev {
    int64_t device;
    int64_t open_start, open_end;   /* busy: the union's interval still growing */
    int64_t closed;                 /* busy: the length of the intervals before it;
                                       -1: nothing added yet */
    int64_t first, last;            /* the span: first start, last end */
    int64_t k_start, k_end;         /* the compute union's last component (INT64_MIN: none) */
    int64_t c_start, c_end;         /* the communication union's last component */
    int64_t mark;                   /* exposure before it is counted in `exposed` */
    int64_t exposed;
    int64_t ns[NG_CLASSES];         /* the durations by class */
};

/* Where the time of counted work went, in ns: on one device, or summed
 * over devices (and epochs, runs).  The sums by class count concurrent
 * work twice; exposed and idle come from the unions.  idle is the span of
 * the device's counted work minus its busy time. */
struct ng_breakdown {
    int64_t device;         /* in a per-device list */
    int64_t compute, comm, exposed, memory, idle;
};

struct ng_acc {
    int64_t sum;              /* kernel-sum */
    int64_t first, last;      /* gpu-span: over every interval added */
    int64_t launches;         /* intervals added */
    struct ng_acc_dev *dev;   /* per device: busy, breakdown */
    size_t n_dev, cap_dev, last_dev;
    struct ng_idmap index;    /* device -> dev[], once there are more than a few */
    int disordered;           /* an interval started before an earlier one on its device */
};

struct ng_metric_info {
    enum ng_metric id;
    const char *name;
    const char *help;
    const char *noun;   /* what its figure is, in messages: "kernel time" */
    unsigned needs;
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

/* Adds [start, end] (end >= start) of `device`, of class cls: every
 * metric's figure and the breakdown.  -1 when a figure would overflow 64
 * bits.  Runs once a work row, so it is inline (below); what it meets
 * rarely (a device not the last one, a device's first interval, one out
 * of order) is out of line. */
static inline int ng_acc_add(struct ng_acc *a, int64_t device, int64_t start, int64_t end,
                             enum ng_work_class cls);
struct ng_acc_dev *ng_acc_other_device(struct ng_acc *a, int64_t device);
int ng_acc_add_rare(struct ng_acc *a, struct ng_acc_dev *d, int64_t start, int64_t end,
                    enum ng_work_class cls);
int64_t ng_acc_value(const struct ng_acc *a, enum ng_metric m);
/* Adds each device's breakdown to the list (*devs, *n: sorted by device,
 * merged with what is there) and to *sum.  -1 when a sum would overflow. */
int ng_acc_breakdown(const struct ng_acc *a, struct ng_breakdown **devs, size_t *n,
                     struct ng_breakdown *sum);
/* Merges the list `add` (sorted by device) into *devs (sorted): entries
 * of one device add up.  Linear, so 200,000 devices cost no more than
 * their sort.  -1 when a sum would overflow. */
int ng_breakdown_merge(struct ng_breakdown **devs, size_t *n, const struct ng_breakdown *add,
                       size_t n_add);
/* to += from (not the device); -1 on overflow. */
int ng_breakdown_add(struct ng_breakdown *to, const struct ng_breakdown *from);

/* A breakdown's figures in ms per epoch (ns over `epochs` epochs), as
 * every report shows them. */
struct ng_breakdown_ms {
    double compute, comm, exposed, memory, idle;
};
void ng_breakdown_per_epoch(const struct ng_breakdown *b, double epochs,
                            struct ng_breakdown_ms *out);
/* Empties the accumulator for a fresh pass (keeps its allocation). */
void ng_acc_reset(struct ng_acc *a);
void ng_acc_release(struct ng_acc *a);

/* ---- the hot path, inline ---- */

/* The communication time in [mark, t) with no compute: the coverage there
 * is final once an interval starting at t has come. */
static inline int64_t ng_acc_exposed_until(const struct ng_acc_dev *d, int64_t t)
{
    int64_t lo = d->c_start > d->mark ? d->c_start : d->mark;
    int64_t hi = d->c_end < t ? d->c_end : t;
    if (hi <= lo)
        return 0;
    int64_t hlo = lo > d->k_start ? lo : d->k_start, hhi = hi < d->k_end ? hi : d->k_end;
    return (hi - lo) - (hhi > hlo ? hhi - hlo : 0);
}

/* [start, end] into a union's last component (*s, *e): extends it, or
 * (a gap) replaces it, the old one being wholly before start. */
static inline void ng_acc_extend(int64_t *s, int64_t *e, int64_t start, int64_t end)
{
    if (*e < start) {
        *s = start;
        *e = end;
    } else if (end > *e) {
        *e = end;
    }
}

/* What needs no order, for every interval: the count, the sum and the
 * span, whose ends move only outward. */
static inline int ng_acc_count(struct ng_acc *a, int64_t start, int64_t end)
{
    int64_t unused;
    if (a->launches++ == 0) {
        a->first = start;
        a->last = end;
    }
    if (__builtin_add_overflow(a->sum, end - start, &a->sum))
        return -1;
    if (start < a->first || end > a->last) {
        a->first = start < a->first ? start : a->first;
        a->last = end > a->last ? end : a->last;
        if (__builtin_sub_overflow(a->last, a->first, &unused))
            return -1;
    }
    return 0;
}

/* Intervals come in order of start per device: each one extends the open
 * busy interval or closes it and opens the next, so memory stays one
 * interval a device. */
static inline int ng_acc_add(struct ng_acc *a, int64_t device, int64_t start, int64_t end,
                             enum ng_work_class cls)
{
    int64_t dur = end - start;
    struct ng_acc_dev *d = a->last_dev < a->n_dev && a->dev[a->last_dev].device == device
                               ? &a->dev[a->last_dev] : ng_acc_other_device(a, device);

    if (d->closed < 0 || start < d->open_start)
        return ng_acc_add_rare(a, d, start, end, cls);
    if (ng_acc_count(a, start, end) < 0)
        return -1;
    if (d->c_end > d->mark)
        d->exposed += ng_acc_exposed_until(d, start);
    if (start > d->mark)
        d->mark = start;
    if (end > d->last)
        d->last = end;   /* inside the span above, which did not overflow */
    if (start <= d->open_end) {
        if (end > d->open_end)
            d->open_end = end;
    } else {
        if (__builtin_add_overflow(d->closed, d->open_end - d->open_start, &d->closed))
            return -1;
        d->open_start = start;
        d->open_end = end;
    }
    if (__builtin_add_overflow(d->ns[cls], dur, &d->ns[cls]))
        return -1;
    if (cls == NG_CLASS_COMPUTE)
        ng_acc_extend(&d->k_start, &d->k_end, start, end);
    else if (cls == NG_CLASS_COMM)
        ng_acc_extend(&d->c_start, &d->c_end, start, end);
    return 0;
}

#endif
