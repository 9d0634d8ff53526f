/* ng_straggler: a device (or process) of one side whose counted GPU time
 * per epoch is past a threshold times the median of the others on that
 * side.  Pure: the side's places in, the stragglers out.
 *
 * On a data-parallel job every rank does the same work, so the devices'
 * figures sit together; one past the others by 10% (the default
 * --straggler-threshold) is the rank the step waits for.  The others'
 * median, not the mean of all, so that the straggler does not raise the
 * level it is measured against, and a second slow device does not hide
 * the first.  Devices are checked when there are two or more; processes
 * too when they are not one to one with the devices (several nodes share
 * device ids, so a node's slow device 0 is summed with the others' under
 * one id: its process shows it).
 *
 * Ownership: ng_stragglers() appends to an array the caller frees. */
#ifndef NG_STRAGGLER_H
#define NG_STRAGGLER_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_profile.h"

#define NG_STRAGGLER_DEFAULT 1.10

enum ng_straggler_kind { NG_STRAGGLER_DEVICE = 0, NG_STRAGGLER_PROCESS };

struct ng_straggler {
    enum ng_straggler_kind kind;
    int64_t id;                /* the device id, or the process id */
    int64_t process;           /* a device's only process, or -1 */
    int64_t rank;              /* a process's distributed rank, or -1 */
    double ms_per_epoch;       /* its counted time per epoch */
    double others_ms;          /* the median of the others' */
};

/* Appends the stragglers of places[0..n) (ns over `epochs` epochs, sorted
 * by id, as a profile keeps them) to *out (*n_out of them so far), in
 * that order: those past threshold x the others' median, when that
 * median is above 0.  Nothing when n < 2. */
void ng_stragglers(const struct ng_place *places, size_t n, enum ng_straggler_kind kind,
                   double epochs, double threshold, struct ng_straggler **out, size_t *n_out);

/* The kind's word: "device", "process". */
const char *ng_straggler_word(enum ng_straggler_kind kind);

#endif
