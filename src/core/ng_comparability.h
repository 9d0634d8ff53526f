/* ng_comparability: whether two captures measured the same work, from the
 * items the comparator aggregated: how many launches an epoch holds on
 * each side (the median over the items both have of current/baseline
 * launches per epoch), the share of the GPU time in items only one side
 * has, and where each side ran.  Pure: the comparator feeds it one item at
 * a time, then it says what it found and warns.
 *
 * Ownership: struct ng_comparability is a value inside the verdict; its
 * names are borrowed from the profiles, as the verdict's kernel names are.
 * The accumulator owns its ratio array until ng_comparability_finish(). */
#ifndef NG_COMPARABILITY_H
#define NG_COMPARABILITY_H

#include <stddef.h>

#include "core/ng_profile.h"

#define NG_COMPARABILITY_LAUNCH_TOLERANCE 0.10   /* launch ratio outside 1 +- this: warn */
#define NG_COMPARABILITY_ONE_SIDE_SHARE 0.05     /* one-side items past this share: warn */
#define NG_COMPARABILITY_LARGEST 3               /* one-side items a warning names */

struct ng_one_side_item {
    const char *name;
    enum ng_work_kind kind;
    int current;               /* 1: only the current side has it; 0: only the baseline */
    double ms_per_epoch;
};

struct ng_comparability {
    int known;                 /* 0 until finished (an error before the figures) */
    size_t items_both;         /* items with launches on both sides */
    double launch_ratio;       /* median current/baseline launches per epoch; 1 when none */
    double one_side_share;     /* of both sides' GPU time per epoch, 0..1 */
    size_t n_largest;
    struct ng_one_side_item largest[NG_COMPARABILITY_LARGEST];   /* biggest first */
    size_t baseline_devices, current_devices;
    size_t baseline_processes, current_processes;
    int has_places;            /* both sides' sources measured devices and processes */
};

struct ng_comparability_acc {
    double *ratios;
    size_t n, cap;
    double both_ms, one_side_ms;
    struct ng_comparability *out;
};

void ng_comparability_begin(struct ng_comparability_acc *acc, struct ng_comparability *out);

/* One item: its time and launches per epoch on each side (0 where the side
 * does not have it; has: bit 0 baseline, bit 1 current). */
void ng_comparability_add(struct ng_comparability_acc *acc, const char *name,
                          enum ng_work_kind kind, unsigned has, double baseline_ms,
                          double current_ms, double baseline_launches,
                          double current_launches);

/* The median and shares into out; frees what acc holds. */
void ng_comparability_finish(struct ng_comparability_acc *acc);

/* The warnings a finished check calls for, each one line into warn(ctx,
 * text): launch counts that differ past the tolerance, one-side items past
 * their share, device or process counts that differ.  nvtx: the epochs are
 * NVTX ranges (the advice differs); baseline, current: the sides' paths. */
void ng_comparability_warn(const struct ng_comparability *c, int nvtx, const char *baseline,
                           const char *current, void (*warn)(void *ctx, const char *text),
                           void *ctx);

#endif
