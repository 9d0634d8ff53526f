/* ng_verdict: the one result of a gate run, and its life cycle (names,
 * exit codes, warnings, release; ng_verdict.c).  The comparator fills it;
 * every reporter reads it, const, and never recomputes anything.  A batch
 * is the verdicts of one run's gates (one, or a manifest's).
 *
 * Ownership: a verdict borrows the strings it points at (profile paths,
 * kernel names, the gate name, the metric) from the profiles and settings
 * it was made from, which must outlive it.  It owns its arrays (runs,
 * samples, kernels, warnings, rows), its run context (copies) and its error
 * text; ng_verdict_release() frees them.  It holds figures, not sentences: the human headline
 * ("PASS: per-epoch within 1.20x | ...") is rendered from them by
 * ng_verdict_text_headline(). */
#ifndef NG_VERDICT_H
#define NG_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/ng_comparability.h"
#include "core/ng_context.h"
#include "core/ng_means.h"
#include "core/ng_profile.h"
#include "core/ng_straggler.h"
#include "util/ng_err.h"

/* Gate policy: what is gated, and the rules past the threshold.  The
 * pattern texts are borrowed from the settings. */
#define NG_POLICY_PATTERNS 16
#define NG_KERNEL_FLOOR_SHARE 0.01   /* default per-kernel floor: 1% of the baseline epoch */

struct ng_policy {
    const char *kernels[NG_POLICY_PATTERNS];    /* --kernels: count only these */
    size_t n_kernels;
    const char *exclude[NG_POLICY_PATTERNS];    /* --exclude-kernels */
    size_t n_exclude;
    const char *comm[NG_POLICY_PATTERNS];       /* --comm-kernels: communication too */
    size_t n_comm;
    double min_delta_ms;          /* --min-delta-ms: a FAIL also needs this much more; 0: none */
    double kernel_threshold;      /* --kernel-threshold: per-item gates; 0: off */
    double kernel_min_delta_ms;   /* --kernel-min-delta-ms; < 0: NG_KERNEL_FLOOR_SHARE */
    int fail_on_improvement;      /* a stale baseline (much faster current) exits 1 */
    int base_names;               /* --kernel-names base */
};


enum ng_outcome {
    NG_OUTCOME_PASS = 0,
    NG_OUTCOME_FAIL,
    NG_OUTCOME_INCONCLUSIVE,
    NG_OUTCOME_ERROR,
};

/* One profile of a side (a side pools several repeat runs). */
struct ng_verdict_run {
    const char *path;
    enum ng_format format;
    int loaded;                /* 0: total_ns and kernel_count are unknown */
    int64_t total_ns;
    int64_t kernel_count;
    int64_t rank, world_size;  /* a distributed job's, -1 unknown */
    /* read from a summary: the profile it was made from (name, size,
     * XXH3-128); source_name NULL otherwise */
    const char *source_name, *source_hash;
    int64_t source_size;
};

struct ng_verdict_side {
    const char *path;          /* the first run's path; NULL when none was named */
    enum ng_format format;     /* the first run's format */
    int loaded;                /* every run loaded: the sums below are known */
    int64_t total_ns;          /* sums over the runs */
    int64_t kernel_count;
    struct ng_verdict_run *runs;
    size_t n_runs;
    /* per-epoch samples in ms (total mode: one per run; NVTX mode: one per
     * counted epoch, runs pooled) and their statistics; valid when the
     * verdict has_figures */
    double *samples;
    size_t n_samples;
    size_t *run_samples;       /* samples of each run, in run order (n_runs; owned) */
    size_t warmup;             /* leading epochs left out as warm-up, over the runs */
    double ms_per_epoch;       /* what decides: the mean of the samples (total time in
                                  the counted epochs over their number) */
    double median_ms, min_ms, max_ms, mean_ms;   /* robust companions; mean = ms_per_epoch */
    /* the kinds of epoch the samples form (ng_means_clusters): 1 when one */
    struct ng_cluster clusters[NG_CLUSTERS_MAX];
    size_t n_clusters;
    long run_epochs;           /* total mode: the epochs each run of this side made */
    double epochs_counted;     /* what per-epoch figures divide by: epochs x runs in
                                  total mode, the counted epochs in NVTX mode */
    /* the counted time by kind, and the work --work left out, over the runs */
    int64_t kind_ns[NG_WORK_KINDS];
    int64_t kind_launches[NG_WORK_KINDS];
    int64_t left_out_ns[NG_WORK_KINDS];
    int64_t left_out_launches[NG_WORK_KINDS];
    /* what --kernels / --exclude-kernels left out, over the runs */
    int64_t excluded_ns, excluded_launches;
    /* gpu-busy: the counted work that ran while other counted work did (the
     * sum of its durations minus the busy time), per epoch */
    int has_overlap;
    double overlap_ms_per_epoch;
    /* where the counted time went (ng_breakdown, ns over the runs: per
     * epoch divided by epochs_counted), summed over devices and per device
     * (owned); has_breakdown: every run's source measured it */
    int has_breakdown;
    struct ng_breakdown breakdown;
    struct ng_breakdown *bd_devices;
    size_t n_bd_devices;
    /* where the counted work ran, over the runs (owned); has_places: every
     * run's source measured it */
    int has_places;
    struct ng_place *devices;
    size_t n_devices;
    struct ng_place *processes;
    size_t n_processes;
    /* devices (and processes) past --straggler-threshold x the others'
     * median (owned); has_places says whether they were looked for */
    struct ng_straggler *stragglers;
    size_t n_stragglers;
};

enum ng_kernel_status {
    NG_KERNEL_CHANGED = 0,     /* in both profiles */
    NG_KERNEL_NEW,             /* only in current */
    NG_KERNEL_GONE,            /* only in baseline */
};

/* One work item's part in the change of per-epoch time (a kernel, a graph
 * launch, a memory operation: the JSON calls them all "kernels"). */
struct ng_kernel_delta {
    const char *name;          /* raw bytes: reporters clean them for their format */
    enum ng_work_kind kind;
    enum ng_kernel_status status;
    double baseline_ms_per_epoch;
    double current_ms_per_epoch;
    double delta_ms_per_epoch;         /* current - baseline */
    double share;                      /* delta / total delta (signed); 0 when total is 0 */
    double baseline_instances_per_epoch;
    double current_instances_per_epoch;
    /* per-kernel gates (--kernel-threshold): whether the item was judged,
     * and how; its ratio (infinite when new) and the U test on its
     * per-epoch (total mode: per-run) times */
    int gated;
    enum ng_outcome verdict;
    double ratio;
    int has_p;
    double p_value;
    double p_adjusted;                 /* Holm over the items tested (with has_p) */
};

/* A group of the ranges nested in the epochs (NVTX mode) and its part in
 * the change: the work whose launch's innermost range has that name
 * shape (digits as '#'), per epoch.  The name is owned, raw bytes. */
struct ng_range_delta {
    char *name;
    double baseline_ms_per_epoch;
    double current_ms_per_epoch;
    double delta_ms_per_epoch;         /* current - baseline */
    double share;                      /* delta / the items' total delta (signed), as
                                          ng_kernel_delta's; 0 when that is 0 */
};

/* The groups the details show (the JSON and the page list every one). */
#define NG_RANGES_SHOWN 5

/* One row of the current side's counted work, per epoch (ng_work_rates): what
 * a history line keeps of today's work. */
struct ng_work_rate {
    const char *name;
    enum ng_work_kind kind;            /* NG_WORK_OTHERS: the rows folded together */
    double ms_per_epoch;
    double launches_per_epoch;
};

/* When the baseline is past runs of a --history file (ng_history_baseline): which,
 * for the headline ("baseline: last 10 runs of 'resnet50' on main
 * (4f1c2a7..9b2e4d6)") and the JSON's "baseline_history".  Owns its
 * strings (ng_verdict_history_release()). */
/* The room of a verdict's work set (a longer one read back is cut). */
#define NG_VERDICT_WORK_MAX 48

struct ng_verdict_history_run {
    size_t line;               /* its line in the file, from 1 */
    char *commit;              /* NULL when the run recorded none */
    time_t timestamp;
};

/* A change point of the gate's series that decided which runs are the
 * baseline (history/ng_series.h). */
struct ng_verdict_history_change {
    int on;                    /* 0: none */
    size_t line;               /* its first bad run's line in the file */
    char *commit;              /* that run's commit; NULL when it recorded none */
    double magnitude;          /* median after / median before */
    int acknowledged, expired; /* an acknowledgement in force; one that expired */
};

struct ng_verdict_history {
    int on;                    /* 0: the baseline is profiles */
    char *path;                /* the --baseline-history file */
    char *name;                /* the gate looked for (--name) */
    size_t window;             /* --history-window */
    size_t runs;               /* runs the baseline holds (at most window) */
    struct ng_context match;   /* --history-match */
    int has_since;
    time_t since;              /* --history-since */
    char *branch;              /* the branch every run names; NULL when none or several */
    size_t branches;           /* how many distinct branches the runs name */
    struct ng_verdict_history_run first, last;
    /* before: the unacknowledged regression the baseline stops short of
     * (the runs after it are not the baseline); since: the acknowledged
     * regression or the improvement that opens the baseline's runs */
    struct ng_verdict_history_change before_change, since_change;
    /* the failing runs at the end held out of the baseline (no change
     * point can tell them yet): how many, the first one's line and commit */
    size_t held_out, held_line;
    char *held_commit;
    /* the series crept with no single step: the baseline is the first runs
     * of the segment; its rise (trend line at the end over at the start),
     * over how many runs, from which line and commit, the trend's p */
    int crept;
    double crept_ratio, crept_p;
    size_t crept_runs, crept_line;
    char *crept_commit;
    /* the history had no line yet (a missing or empty file): the gate this
     * run starts the history of; the run was compared with itself */
    char *starts;
};

void ng_verdict_history_release(struct ng_verdict_history *h);

struct ng_verdict {
    enum ng_outcome outcome;
    const char *name;          /* test case / metric name */
    const char *mode;          /* "total" or "nvtx" */
    const char *metric;        /* a name from the metric table */
    char work[NG_VERDICT_WORK_MAX];   /* what was counted, as --work spells it */
    double threshold;
    long epochs;               /* epochs per side actually used (the smaller side's count) */
    int has_figures;           /* ms_per_epoch, samples and ratio are known */
    double ratio;              /* current mean / baseline mean (ms_per_epoch) */
    int has_p;                 /* a significance test ran */
    double p_value;            /* the deciding test's (ng_means: Welch t on the log ratio
                                  of means, within the baseline's clusters) */
    double u_p_value;          /* the Mann-Whitney U test's, with has_p: a companion */
    int has_ci;
    double ratio_ci[2];        /* 95% interval of the ratio */
    const char *ratio_ci_method;   /* static text; NULL without has_ci */
    size_t strata;             /* clusters the test took its variances in (1: none) */
    double epochs_needed;      /* epochs a side to tell the threshold's change; 0: unknown */
    /* everything the decision computed (ng_means): the figures the ratio
     * is made of and how, the raw ratio, the dependence allowed for, the
     * mix of kinds, the past runs; with has_figures */
    struct ng_means decision;
    enum ng_means_call call;   /* what decision said of the threshold */
    double alpha;              /* 0: test off */
    struct ng_verdict_side baseline, current;
    struct ng_comparability comparability;   /* known with the figures */
    /* the attribution, by contribution to the change: the first n_top are
     * the top --top; with per-kernel gates the items JUnit lists follow (the
     * top --top by current time, and every item the gates did not pass) */
    struct ng_kernel_delta *kernels;
    size_t n_kernels;
    size_t n_top;
    long top;                      /* --top */
    /* the change by nested range group, in order of contribution (owned);
     * has_ranges: both sides' sources looked (NVTX mode from intervals) */
    int has_ranges;
    struct ng_range_delta *ranges;
    size_t n_ranges;
    /* the policy it was decided under (borrowed) and what came of it */
    const struct ng_policy *policy;
    enum ng_outcome total_outcome; /* the total's own outcome, before per-kernel gates */
    double kernel_floor_ms;        /* the per-kernel floor applied (ms/epoch) */
    int under_floor;               /* over the threshold, but the increase under --min-delta-ms */
    int stale_baseline;            /* current faster than baseline past the threshold */
    size_t n_items_failed, n_items_inconclusive;
    char **warnings;           /* one line each, e.g. different GPU models */
    size_t n_warnings;
    /* the current side's counted rows per epoch, largest first, at most
     * NG_WORK_RATES_CAP and then the others row (ng_work_rates); has_rows: known */
    int has_rows;
    struct ng_work_rate *rows;
    size_t n_rows;
    int verbose;               /* show the attribution even on PASS (--verbose) */
    int fail_inconclusive;     /* INCONCLUSIVE counts as a failure (--fail-inconclusive) */
    char error[NG_ERR_MAX];    /* empty unless outcome is ERROR */
    /* the run it came from: commit, branch, CI run, labels (ng_context) */
    struct ng_context context;
    struct ng_verdict_history history;   /* the baseline's past runs, when on */
    time_t timestamp;
    double elapsed_s;
};

/* How the stale-baseline warning starts (reporters that show it as a
 * notice, not a warning, know it by this). */
#define NG_STALE_WARNING "the baseline looks stale"

/* qsort order of `const struct ng_kernel_delta *` pointers: most current
 * time first, ties in array order (stable output). */
int ng_kernel_delta_by_current(const void *a, const void *b);

const char *ng_outcome_name(enum ng_outcome o);   /* "pass", "fail", ... */
const char *ng_kernel_status_name(enum ng_kernel_status s);   /* "changed", "new", "gone" */

/* Exit status for an outcome: 0 pass, 1 fail, 2 error; inconclusive is 0
 * unless fail_inconclusive. */
int ng_outcome_exit_code(enum ng_outcome o, int fail_inconclusive);

/* A verdict's exit status: its outcome's, and 1 for a stale baseline with
 * --fail-on-improvement (the outcome stays pass). */
int ng_verdict_exit_code(const struct ng_verdict *v);

/* Adds a warning line (copied). */
void ng_verdict_warn(struct ng_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Marks the verdict as ERROR with this message (without "ERROR: "). */
void ng_verdict_fail_with(struct ng_verdict *v, const char *error);

void ng_verdict_release(struct ng_verdict *v);

/* The gates of one run, in manifest order: a manifest's (--manifest), or
 * the one gate of the command line (manifest NULL). */
struct ng_verdict_batch {
    const struct ng_verdict *const *verdicts;
    size_t n;
    const char *manifest;      /* the manifest's path as given; NULL: one gate, no
                                  manifest (a single verdict rendered as a batch) */
    time_t timestamp;
    double elapsed_s;
};

/* How many gates ended in each outcome, and the batch's own outcome:
 * ERROR if any gate errored, else FAIL if any gate fails the job (FAIL,
 * or INCONCLUSIVE with --fail-inconclusive), else INCONCLUSIVE if any
 * was, else PASS. */
struct ng_verdict_batch_counts {
    size_t by_outcome[NG_OUTCOME_ERROR + 1];
    enum ng_outcome outcome;
    int exit_code;             /* 0, 1 or 2, as for one gate */
};
void ng_verdict_batch_count(const struct ng_verdict_batch *b, struct ng_verdict_batch_counts *c);

#endif
