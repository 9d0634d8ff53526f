/* ng_history_baseline: a history baseline (--baseline-history FILE): the last
 * --history-window runs of a gate in a --history file, turned into the
 * baseline side's profiles.
 *
 * A run counts when its line names the gate (--name), its verdict is not
 * error, it was measured the same way (mode, --metric, --work, the kernel
 * filters and --kernel-names: a run of another metric is another
 * quantity), its context holds every
 * --history-match KEY=VALUE, and it is not older than --history-since.
 * The runs that count are the gate's series, and the window is the last
 * `size` runs (in file order, the order they were appended) of its latest
 * segment that does not follow an unacknowledged regression
 * (history/ng_series.h, the rule `nsys-gate changes` applies, with its
 * default parameters and the acknowledgements of --accept): after a
 * regression nobody acknowledged the baseline stays the runs before it,
 * and after an acknowledged one (or an improvement) it is the runs since.
 * A regression shows as a change point only once enough runs follow it
 * (five or more at the default --change-p); until then its runs failed
 * their own gates, and the runs at the end of the latest segment that
 * failed (fewer than --history-window of them, with runs before them in
 * the segment) are held out of the baseline too.  When the runs taken are
 * not the latest, they are read again in a second pass over the file, so
 * only the window's verdicts are kept.  The file is read once for every gate that uses it
 * (ng_history_baseline_read() with several windows), before anything is appended:
 * a run never counts in its own baseline, even with --history on the same
 * file.
 *
 * Each run becomes one profile (format "history", path "FILE:LINE"): in
 * total mode one sample, the run's current ms/epoch; in NVTX mode the
 * run's current epoch samples (pooled by the comparison); its rows (the
 * history line's rows, or for a line written before rows its kernels
 * and one others row for the rest) as many epochs' worth as today's run
 * counts, so the attribution compares today against the mean of the past
 * runs' rows per epoch.  A line keeps no item's epochs: with per-kernel
 * gates in NVTX mode each of a run's epochs holds the item's mean.
 *
 * Ownership: a window owns the runs it keeps, its counts and messages;
 * ng_history_baseline_release() frees them.  It borrows the strings of the query
 * it was made from (its path among them).  The profiles ng_history_baseline_profiles() fills
 * are the caller's to release. */
#ifndef NG_HISTORY_BASELINE_H
#define NG_HISTORY_BASELINE_H

#include <stddef.h>
#include <time.h>

#include "core/ng_compare.h"
#include "core/ng_context.h"
#include "core/ng_profile.h"
#include "history/ng_series.h"
#include "history/ng_verdict_doc.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

struct ng_history_baseline {
    /* what is looked for */
    const char *path;
    const char *name;          /* --name, as given */
    char *line_name;           /* --name as history lines spell it */
    const char *mode, *metric;
    char work[48];
    const struct ng_policy *policy;   /* its kernel filters and names */
    struct ng_context match;
    int has_since;
    time_t since;
    size_t size;               /* --history-window */
    const char *const *accept; /* --accept files */
    size_t n_accept;
    /* the gate's series: every run that counts, as its figure, commit and line */
    double *ms;
    unsigned char *failed;     /* the run's own verdict was fail */
    char **commits;
    size_t *series_lines;
    size_t n_series;
    size_t from, to;           /* the runs taken: [from, to) of the series */
    int reread;                /* they are not the latest: read them again */
    struct ng_verdict_history_change before_change, since_change;   /* why (owned) */
    size_t held_out;           /* failing runs held out at the end */
    /* the segment crept (ng_series_window()): its rise, over how many
     * runs, from which run (line, commit; owned), and the trend's p */
    int crept;
    double crept_ratio, crept_p;
    size_t crept_runs, crept_line;
    char *crept_commit;
    struct ng_series_window window;   /* the runs taken and why (ng_series_creep_scale()) */
    /* what was kept: the last `size` runs, a ring while reading, oldest
     * first once read */
    struct ng_verdict_doc *runs;
    size_t *lines;
    size_t n_runs, head;
    /* what the file holds, for the message when nothing matched */
    size_t verdicts, errored, other_setup, unmatched, older;
    char setup_example[160];   /* e.g. "metric gpu-busy" */
    char match_example[160];   /* e.g. "branch=dev" */
    struct ng_strmap other_names;   /* the other gates' names -> their index */
    char **other_list;
    size_t *other_counts;
    size_t n_other_names;
    char **warnings;           /* the reader's: torn or garbage lines */
    size_t n_warnings;
    char error[NG_ERR_MAX];    /* the file could not be read; empty if it could */
};

/* What a gate looks for in its --baseline-history file. */
struct ng_history_baseline_query {
    const char *path;          /* --baseline-history */
    const char *name;          /* --name */
    int nvtx;                  /* --epoch-range given: NVTX mode */
    enum ng_metric metric;
    unsigned work;             /* NG_WORK_BIT set; 0: NG_WORK_DEFAULT */
    const struct ng_policy *policy;
    const char *const *match;  /* --history-match KEY=VALUE */
    size_t n_match;
    int has_since;
    time_t since;              /* --history-since */
    long size;                 /* --history-window; <= 0: 10 */
    const char *const *accept; /* --accept */
    size_t n_accept;
};

/* What the query looks for (nothing read yet). */
void ng_history_baseline_init(struct ng_history_baseline *w, const struct ng_history_baseline_query *q);

/* Reads the file of w[0] once for the n windows (all on that file):
 * each keeps its runs.  A file that cannot be read is every window's
 * error (w[i]->error), an --accept file that cannot be read that
 * window's.  Returns 0, or -1 with err when it could not be
 * read. */
int ng_history_baseline_read(struct ng_history_baseline *const *w, size_t n, struct ng_err *err);

/* -1 with err when no run counts: which name and match were looked for,
 * and what the file holds instead:
 *   --baseline-history 'h.jsonl' has no run of 'resnet50' to compare with
 *   (looked for: not error, mode total, metric kernel-sum, work
 *   kernels,graphs, branch=main); the file holds 12 verdicts: 'resnet50' 3
 *   (1 error, 2 without branch=main, e.g. branch=dev), 'bert' 9 */
int ng_history_baseline_check(const struct ng_history_baseline *w, struct ng_err *err);

/* The runs as baseline profiles (p has room for NG_MAX_RUNS; *n set),
 * per epoch of today's comparison (o: --epochs in total mode). */
void ng_history_baseline_profiles(const struct ng_history_baseline *w, struct ng_profile *p, size_t *n,
                        const struct ng_compare_opts *o);

/* Says in v which runs the baseline is (v->history), and what the reader
 * skipped (v's warnings). */
void ng_history_baseline_describe(const struct ng_history_baseline *w, struct ng_verdict *v);

void ng_history_baseline_release(struct ng_history_baseline *w);

#endif
