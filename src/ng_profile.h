/* ng_profile: what the gate knows about one profile, whatever its format:
 * total GPU kernel time, kernel count, and per-kernel rows.
 *
 * Ownership: a profile owns its path copy, its kernel rows and their names.
 * ng_profile_init() allocates nothing beyond the path copy;
 * ng_profile_release() frees everything and can be called on a profile
 * whose load failed. */
#ifndef NG_PROFILE_H
#define NG_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "ng_err.h"

enum ng_format {
    NG_FORMAT_UNKNOWN = 0,
    NG_FORMAT_SQLITE,
    NG_FORMAT_NSYS_REP,
    NG_FORMAT_CSV,
};

enum ng_metric {
    NG_METRIC_KERNEL_SUM = 0,   /* sum of the durations of the epoch's kernels */
    NG_METRIC_GPU_SPAN,         /* last kernel end - first kernel start, per range */
};

/* One counted epoch of an NVTX-mode profile: every range with this text
 * (several ranks or threads) added up. */
struct ng_epoch {
    char *name;
    int64_t first_start;   /* ns, trace time of the earliest of its ranges */
    int64_t ns;            /* by the metric the profile was read with */
    int64_t kernels;       /* kernel launches counted in it */
};

struct ng_kernel {
    char *name;          /* raw bytes from the profile; may be invalid UTF-8 */
    int64_t total_ns;
    int64_t instances;
};

struct ng_profile {
    char *path;
    enum ng_format format;
    int loaded;          /* 1 once a load succeeded: the figures below are real */
    int64_t total_ns;
    int64_t kernel_count;
    struct ng_kernel *kernels;   /* sorted by total_ns desc, then name; in NVTX
                                    mode only kernels of the counted epochs */
    size_t n_kernels;
    size_t cap_kernels;
    /* NVTX mode: the counted epochs in order of first start (after the
     * skipped warm-up ones), and how many were skipped */
    int nvtx;
    struct ng_epoch *epochs;
    size_t n_epochs;
    size_t skipped_epochs;
    size_t empty_epochs;   /* matching epochs left out: no kernel launched in them */
    /* what the profile says of its machine, NULL when it does not say */
    char *gpu;             /* GPU model names, ", "-joined, sorted */
    char *driver;          /* NVIDIA driver version */
};

void ng_profile_init(struct ng_profile *p, const char *path);

/* Appends a counted epoch (name copied). */
void ng_profile_add_epoch(struct ng_profile *p, const char *name, int64_t first_start,
                          int64_t ns, int64_t kernels);
void ng_profile_release(struct ng_profile *p);

/* Adds one row; rows with the same name are merged by ng_profile_finish(). */
void ng_profile_add_kernel(struct ng_profile *p, const char *name, size_t name_len,
                           int64_t total_ns, int64_t instances);

/* Merges rows of the same name, sorts them, sums the totals (refusing an
 * int64 overflow) and refuses a profile without kernel rows. */
int ng_profile_finish(struct ng_profile *p, struct ng_err *err);

const char *ng_format_name(enum ng_format f);
const char *ng_metric_name(enum ng_metric m);   /* "kernel-sum", "gpu-span" */

#endif
