/* ng_profile_merge: the ranks of one run folded into one profile, as if
 * one capture had held them all.  Pure: loaded rank profiles in, the
 * run's profile out.
 *
 * Epoch k of every rank adds up, as the ranks inside one profile do
 * (ng_nvtx): epochs are matched by key, the text the epoch pattern's
 * first group takes from their name (with its " #k" occurrence; the name
 * itself without a pattern or a group), so "epoch_3-rank_0" and
 * "epoch_3-rank_1" are one epoch; their figures and launches add, their
 * first start and name are the earliest rank's, and they are ordered by
 * it (then by name).  That is the one profile's figure for every metric whose
 * figure is a sum over devices (kernel-sum, gpu-busy, exposed-comm: each
 * rank owns its devices); gpu-span spans the ranks' clocks, and the
 * caller refuses it.  Rows add by kind and name, their epoch cells by the
 * merged epoch; devices add by id (several nodes' device 0 is one id, as
 * in a profile of several nodes), processes never merge across ranks (two
 * nodes' processes may share a pid: one whose rank its profile does not
 * say takes its rank's position when another rank has its pid); the
 * breakdown, nested ranges, left-out and excluded work add up; GPU and
 * driver names are the sorted union; warnings are kept once, in the order
 * of the lowest rank that gave them.  Per rank: the skipped warm-up
 * epochs are the most any rank skipped, the empty epochs the most any rank
 * had (an epoch empty on one rank and not another is an epoch some ranks
 * lack, which the finish says).  Every figure is an exact integer sum, a
 * min, or kept by rank position, so the result does not depend on the
 * order the ranks are folded in; sums past 64 bits are refused.
 *
 * Use: ng_profile_merge_init() on the run's profile (ng_profile_init()'d,
 * nothing loaded), ng_profile_merge_add() for every rank in any order
 * (the caller serialises calls), ng_profile_merge_finish() once, then
 * ng_profile_merge_release().
 *
 * Ownership: the merge borrows the run (which owns what is folded into
 * it) and copies from each rank, which stays the caller's; it owns its
 * indexes and per-rank notes, freed by ng_profile_merge_release(). */
#ifndef NG_PROFILE_MERGE_H
#define NG_PROFILE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_profile.h"
#include "util/ng_err.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

struct ng_profile_merge_rank;
struct ng_profile_merge_warning;

struct ng_profile_merge {
    struct ng_profile *run;
    const struct ng_regex *epoch_re;  /* the ranks' epoch pattern (NULL: by name) */
    double regex_cpu;                 /* its matching time, against its budget */
    size_t ranks;                     /* folded so far */
    struct ng_profile_merge_rank *by_rank;   /* per rank position: what it was */
    size_t cap_ranks;
    struct ng_strmap epoch_index;     /* key -> run->epochs[] (in order of arrival) */
    size_t *epoch_ranks;              /* per epoch: how many ranks had it */
    struct ng_idmap device_index;     /* device -> run->devices[] */
    struct ng_idmap bd_index;         /* device -> run->bd_devices[] */
    struct ng_strmap nested_index;    /* name -> run->nested[] */
    struct ng_strmap excluded_index;  /* kind and name -> run->excluded[] */
    struct ng_strmap warning_index;   /* text -> warnings[] */
    struct ng_profile_merge_warning *warnings;
    size_t n_warnings;
    struct ng_strmap gpu_names, drivers;
    int64_t *process_origin;          /* per run->processes[]: its rank position */
};

/* epoch_re: the pattern the ranks were read with (borrowed), or NULL. */
void ng_profile_merge_init(struct ng_profile_merge *m, struct ng_profile *run,
                           const struct ng_regex *epoch_re);

/* Folds `rank` (loaded) into the run; `position` is its place among the
 * run's ranks (0..n-1, each once), which orders what is kept by rank.
 * -1 when a sum overflows 64 bits. */
int ng_profile_merge_add(struct ng_profile_merge *m, const struct ng_profile *rank,
                         size_t position, struct ng_err *err);

/* Orders the epochs, rows and places, finishes the run's profile
 * (ng_profile_finish()) and warns of epochs some ranks lack.  -1 when
 * two ranks were read in different modes or formats, or say they are one
 * distributed rank, when nothing was folded, or as ng_profile_finish(). */
int ng_profile_merge_finish(struct ng_profile_merge *m, struct ng_err *err);

void ng_profile_merge_release(struct ng_profile_merge *m);

#endif
