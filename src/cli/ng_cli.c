#include "cli/ng_cli.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ng_outputs.h"
#include "cli/ng_values.h"
#include "core/ng_metric.h"
#include "util/ng_file.h"
#include "util/ng_options.h"
#include "util/ng_text.h"
#include "util/ng_util.h"
#include "util/ng_version.h"

#define DEFAULT_EPOCHS 5
#define DEFAULT_THRESHOLD 1.20
#define DEFAULT_NAME "gpu-time-per-epoch"
#define DEFAULT_NSYS_TIMEOUT 600.0
#define DEFAULT_ALPHA 0.05
#define DEFAULT_TOP 5
#define DEFAULT_CACHE_MAX_MB 10240
#define DEFAULT_CACHE_MAX_DAYS 30
#define DEFAULT_HISTORY_WINDOW 10

/* The headings of --help, in their order there. */
enum help_group {
    NG_HELP_INPUTS, NG_HELP_DECISION, NG_HELP_EPOCHS, NG_HELP_COUNTED, NG_HELP_POLICY,
    NG_HELP_OUTPUTS, NG_HELP_CI, NG_HELP_NSYS, NG_HELP_OTHER, NG_HELP_GROUPS
};
static const char *const help_headings[NG_HELP_GROUPS] = {
    [NG_HELP_INPUTS] = "inputs",
    [NG_HELP_DECISION] = "decision",
    [NG_HELP_EPOCHS] = "epochs",
    [NG_HELP_COUNTED] = "what is counted",
    [NG_HELP_POLICY] = "policy",
    [NG_HELP_OUTPUTS] = "outputs",
    [NG_HELP_CI] = "CI and context",
    [NG_HELP_NSYS] = "nsys and the cache",
    [NG_HELP_OTHER] = "other",
};

/* The member a row's value goes to. */
#define S(member) offsetof(struct ng_settings, member)

/* Where the output options of ng_outputs go in the table (and in --help):
 * a row without a flag. */
#define OUTPUT_OPTIONS { .flag = NULL }

/* A row's scope (struct ng_option's `scope`) is where it may be set:
 * NG_CLI_GATE, the zero, unless given; and, as a bit beside it, whether it
 * changes what is read (NG_CLI_READS) or how (NG_CLI_ACCESS).  The table
 * is in --help's order within each heading. */
static const struct ng_option specs[] = {
    { .flag = "epochs", .env = "NSYS_GATE_EPOCHS", .takes = NG_OPTION_VALUE,
      .parse = ng_values_epochs, .field = S(compare.epochs), .meta = "N",
      .help = "epochs both runs made (total mode); default 5", .group = NG_HELP_EPOCHS },
    { .flag = "baseline-epochs", .env = "NSYS_GATE_BASELINE_EPOCHS", .takes = NG_OPTION_VALUE,
      .parse = ng_values_epochs, .field = S(compare.baseline_epochs), .meta = "N",
      .help = "epochs each baseline run made, for captures of different lengths (total mode); "
              "default --epochs", .group = NG_HELP_EPOCHS },
    { .flag = "current-epochs", .env = "NSYS_GATE_CURRENT_EPOCHS", .takes = NG_OPTION_VALUE,
      .parse = ng_values_epochs, .field = S(compare.current_epochs), .meta = "N",
      .help = "epochs each current run made (total mode); default --epochs",
      .group = NG_HELP_EPOCHS },
    { .flag = "threshold", .env = "NSYS_GATE_THRESHOLD", .takes = NG_OPTION_VALUE,
      .parse = ng_values_threshold, .field = S(compare.threshold), .meta = "R",
      .help = "largest allowed current/baseline ratio: 1.2, 1.20x or 20% (a bare 20 is refused: "
              "20%? 20x?); default 1.20", .group = NG_HELP_DECISION },
    OUTPUT_OPTIONS,
    { .flag = "github", .env = "NSYS_GATE_GITHUB", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(github),
      .help = "GitHub Actions step summary, outputs and annotations; default: on when "
              "GITHUB_ACTIONS=true", .scope = NG_CLI_RUN, .group = NG_HELP_CI },
    { .flag = "manifest", .env = "NSYS_GATE_MANIFEST", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(manifest), .meta = "FILE",
      .help = "run every gate of a JSON manifest (batch mode; no operands)",
      .scope = NG_CLI_RUN, .group = NG_HELP_INPUTS },
    { .flag = "jobs", .short_flag = 'j', .env = "NSYS_GATE_JOBS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_positive, .field = S(jobs), .meta = "N",
      .help = ".nsys-rep exports at once, and with --manifest gates at once (also -j N); "
              "default: one per processor", .scope = NG_CLI_RUN, .group = NG_HELP_INPUTS },
    { .flag = "name", .env = "NSYS_GATE_NAME", .takes = NG_OPTION_VALUE,
      .parse = ng_values_name, .field = S(compare.name), .meta = "NAME",
      .help = "test case / metric name; default gpu-time-per-epoch", .group = NG_HELP_CI },
    { .flag = "nsys", .env = "NSYS_GATE_NSYS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(nsys), .meta = "PATH",
      .help = "the nsys executable for .nsys-rep inputs; default nsys on PATH",
      .scope = NG_CLI_GATE_PATH | NG_CLI_ACCESS, .group = NG_HELP_NSYS },
    { .flag = "nsys-timeout", .env = "NSYS_GATE_NSYS_TIMEOUT", .takes = NG_OPTION_VALUE,
      .parse = ng_values_seconds, .field = S(nsys_timeout), .meta = "SECONDS",
      .help = "kill nsys if an export takes longer; default 600", .scope = NG_CLI_ACCESS,
      .group = NG_HELP_NSYS },
    { .flag = "baseline", .env = "NSYS_GATE_BASELINE", .takes = NG_OPTION_PATHS,
      .parse = ng_values_baseline, .meta = "FILE",
      .help = "a baseline profile, repeatable for repeat runs (instead of the operands)",
      .scope = NG_CLI_GATE_PATH, .group = NG_HELP_INPUTS },
    { .flag = "current", .env = "NSYS_GATE_CURRENT", .takes = NG_OPTION_PATHS,
      .parse = ng_values_current, .meta = "FILE",
      .help = "a current profile, repeatable for repeat runs (instead of the operands)",
      .scope = NG_CLI_GATE_PATH, .group = NG_HELP_INPUTS },
    { .flag = "ranks", .env = "NSYS_GATE_RANKS", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(ranks),
      .help = "each side's profiles are the ranks of one run, not repeat runs: their epochs "
              "add up; a profile may be a glob ('rank*.sqlite'), expanded by the gate",
      .group = NG_HELP_INPUTS },
    { .flag = "baseline-history", .env = "NSYS_GATE_BASELINE_HISTORY", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(baseline_history), .meta = "FILE",
      .help = "the baseline is the last runs of this gate (--name) in a --history file, instead "
              "of profiles; a missing or empty FILE starts the history (this run passes)",
      .scope = NG_CLI_GATE_PATH, .group = NG_HELP_INPUTS },
    { .flag = "history-window", .env = "NSYS_GATE_HISTORY_WINDOW", .takes = NG_OPTION_VALUE,
      .parse = ng_values_runs, .field = S(history_window), .meta = "N",
      .help = "--baseline-history: the last N runs (at most 64); default 10",
      .group = NG_HELP_INPUTS },
    { .flag = "history-match", .env = "NSYS_GATE_HISTORY_MATCH", .takes = NG_OPTION_COMMAS,
      .parse = ng_values_history_match, .meta = "KEY=VALUE",
      .help = "--baseline-history: only runs whose context has KEY=VALUE (e.g. branch=main); "
              "repeatable", .group = NG_HELP_INPUTS },
    { .flag = "history-since", .env = "NSYS_GATE_HISTORY_SINCE", .takes = NG_OPTION_VALUE,
      .parse = ng_values_history_since, .meta = "DATE",
      .help = "--baseline-history: only runs from DATE on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, "
              "UTC)", .group = NG_HELP_INPUTS },
    { .flag = "accept", .env = "NSYS_GATE_ACCEPT", .takes = NG_OPTION_COMMAS,
      .parse = ng_values_accept, .meta = "FILE",
      .help = "--baseline-history: acknowledged changes (JSON Lines, as nsys-gate changes reads "
              "them): after an unacknowledged regression the baseline stays the runs before it; "
              "repeatable", .scope = NG_CLI_GATE_PATH, .group = NG_HELP_INPUTS },
    { .flag = "label", .env = "NSYS_GATE_LABELS", .takes = NG_OPTION_COMMAS,
      .parse = ng_values_label, .meta = "KEY=VALUE",
      .help = "add KEY=VALUE to the run context (commit, branch, ... come from the CI's "
              "variables) or override a key; an empty VALUE removes it; repeatable (the "
              "variable: comma- or newline-separated)", .group = NG_HELP_CI },
    /* compiled, and refused if bad, by the NVTX reader */
    { .flag = "epoch-range", .env = "NSYS_GATE_EPOCH_RANGE", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(epoch_range), .meta = "REGEX",
      .help = "per-epoch samples from NVTX ranges matching REGEX (or auto)",
      .scope = NG_CLI_READS, .group = NG_HELP_EPOCHS },
    { .flag = "metric", .env = "NSYS_GATE_METRIC", .takes = NG_OPTION_VALUE,
      .parse = ng_values_metric, .meta = "M",
      .help = "what an epoch's time is: kernel-sum (default), gpu-span (NVTX mode), gpu-busy or "
              "exposed-comm", .scope = NG_CLI_READS, .group = NG_HELP_DECISION },
    { .flag = "work", .env = "NSYS_GATE_WORK", .takes = NG_OPTION_VALUE,
      .parse = ng_values_work, .meta = "LIST",
      .help = "GPU work counted: kernels, graphs, memory (comma-separated) or all; default "
              "kernels,graphs", .scope = NG_CLI_READS, .group = NG_HELP_COUNTED },
    { .flag = "skip-epochs", .env = "NSYS_GATE_SKIP_EPOCHS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_count, .field = S(compare.skip_epochs), .meta = "K",
      .help = "drop the first K epochs of each run (warm-up); default 0", .scope = NG_CLI_READS,
      .group = NG_HELP_EPOCHS },
    { .flag = "alpha", .env = "NSYS_GATE_ALPHA", .takes = NG_OPTION_VALUE,
      .parse = ng_values_alpha, .field = S(compare.alpha), .meta = "A",
      .help = "significance level of the test of the ratio of means (and of the per-kernel "
              "gates, Holm-adjusted); 0 = off; default 0.05", .group = NG_HELP_DECISION },
    { .flag = "fail-inconclusive", .env = "NSYS_GATE_FAIL_INCONCLUSIVE",
      .takes = NG_OPTION_SWITCH, .parse = ng_options_bool, .field = S(fail_inconclusive),
      .help = "exit 1 when a regression is not significant (INCONCLUSIVE)",
      .group = NG_HELP_POLICY },
    { .flag = "kernels", .env = "NSYS_GATE_KERNELS", .takes = NG_OPTION_LINES,
      .parse = ng_values_kernels, .meta = "REGEX",
      .help = "count only work items whose name matches (POSIX extended, case-sensitive; "
              "repeatable)", .scope = NG_CLI_READS, .group = NG_HELP_COUNTED },
    { .flag = "exclude-kernels", .env = "NSYS_GATE_EXCLUDE_KERNELS", .takes = NG_OPTION_LINES,
      .parse = ng_values_exclude_kernels, .meta = "REGEX",
      .help = "leave out work items whose name matches (repeatable), e.g. '^nccl'",
      .scope = NG_CLI_READS, .group = NG_HELP_COUNTED },
    { .flag = "comm-kernels", .env = "NSYS_GATE_COMM_KERNELS", .takes = NG_OPTION_LINES,
      .parse = ng_values_comm_kernels, .meta = "REGEX",
      .help = "kernels whose name matches are communication too, beside the built-in table "
              "(POSIX extended; repeatable)", .scope = NG_CLI_READS, .group = NG_HELP_COUNTED },
    { .flag = "min-delta-ms", .env = "NSYS_GATE_MIN_DELTA_MS", .takes = NG_OPTION_VALUE,
      .parse = ng_values_ms, .field = S(compare.policy.min_delta_ms), .meta = "MS",
      .help = "a FAIL also needs the per-epoch increase to be more than MS; default 0 (no floor)",
      .group = NG_HELP_DECISION },
    { .flag = "straggler-threshold", .env = "NSYS_GATE_STRAGGLER_THRESHOLD",
      .takes = NG_OPTION_VALUE, .parse = ng_values_threshold,
      .field = S(compare.straggler_threshold), .meta = "R",
      .help = "name a device (or process) whose GPU time per epoch is past R x the median of "
              "the others on its side; default 1.10", .group = NG_HELP_POLICY },
    { .flag = "kernel-threshold", .env = "NSYS_GATE_KERNEL_THRESHOLD", .takes = NG_OPTION_VALUE,
      .parse = ng_values_threshold, .field = S(compare.policy.kernel_threshold), .meta = "R",
      .help = "per-kernel gates: any work item that grew past R (and its floor) fails; default "
              "off", .group = NG_HELP_POLICY },
    { .flag = "kernel-min-delta-ms", .env = "NSYS_GATE_KERNEL_MIN_DELTA_MS",
      .takes = NG_OPTION_VALUE, .parse = ng_values_ms,
      .field = S(compare.policy.kernel_min_delta_ms), .meta = "MS",
      .help = "per-kernel floor in ms/epoch; default 1% of the baseline epoch",
      .group = NG_HELP_POLICY },
    { .flag = "fail-on-improvement", .env = "NSYS_GATE_FAIL_ON_IMPROVEMENT",
      .takes = NG_OPTION_SWITCH, .parse = ng_options_bool,
      .field = S(compare.policy.fail_on_improvement),
      .help = "exit 1 when the baseline looks stale (current faster past the threshold)",
      .group = NG_HELP_POLICY },
    { .flag = "kernel-names", .env = "NSYS_GATE_KERNEL_NAMES", .takes = NG_OPTION_VALUE,
      .parse = ng_values_kernel_names, .meta = "full|base",
      .help = "kernel names as demangled (full, default) or without template arguments (base)",
      .scope = NG_CLI_READS, .group = NG_HELP_COUNTED },
    { .flag = "write-summary", .env = "NSYS_GATE_WRITE_SUMMARY", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(write_summary), .meta = "FILE",
      .help = "also write the current run's summary (nsys-gate summarize; gzip when FILE ends "
              "in .gz)", .scope = NG_CLI_GATE_PATH, .group = NG_HELP_OUTPUTS },
    { .flag = "top", .env = "NSYS_GATE_TOP", .takes = NG_OPTION_VALUE,
      .parse = ng_options_count, .field = S(compare.top), .meta = "N",
      .help = "kernels named in the attribution; default 5", .group = NG_HELP_OUTPUTS },
    { .flag = "verbose", .env = "NSYS_GATE_VERBOSE", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(verbose),
      .help = "always print the kernel attribution lines", .group = NG_HELP_OUTPUTS },
    { .flag = "cache-dir", .env = "NSYS_GATE_CACHE_DIR", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = S(cache.dir), .meta = "DIR",
      .help = "keep .nsys-rep exports here; default $XDG_CACHE_HOME/nsys-gate",
      .scope = NG_CLI_RUN | NG_CLI_ACCESS, .group = NG_HELP_NSYS },
    { .flag = "no-cache", .env = "NSYS_GATE_NO_CACHE", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(no_cache),
      .help = "export .nsys-rep inputs afresh every time", .scope = NG_CLI_RUN | NG_CLI_ACCESS,
      .group = NG_HELP_NSYS },
    { .flag = "cache-max-mb", .env = "NSYS_GATE_CACHE_MAX_MB", .takes = NG_OPTION_VALUE,
      .parse = ng_values_cache_mb, .meta = "MB",
      .help = "prune the export cache past this size (0 = no cap); default 10240",
      .scope = NG_CLI_RUN | NG_CLI_ACCESS, .group = NG_HELP_NSYS },
    { .flag = "cache-max-days", .env = "NSYS_GATE_CACHE_MAX_DAYS", .takes = NG_OPTION_VALUE,
      .parse = ng_values_cache_days, .meta = "DAYS",
      .help = "prune exports unused this long (0 = never); default 30",
      .scope = NG_CLI_RUN | NG_CLI_ACCESS, .group = NG_HELP_NSYS },
    { .flag = "sqlite-sql-only", .env = "NSYS_GATE_SQLITE_SQL_ONLY", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(sql_only),
      .help = "read SQLite files through SQL queries only, not the page reader (slower; rules "
              "it out)", .scope = NG_CLI_RUN | NG_CLI_ACCESS, .group = NG_HELP_NSYS },
    { .flag = "quiet", .env = "NSYS_GATE_QUIET", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(quiet),
      .help = "no human line on stdout, no progress on stderr", .scope = NG_CLI_RUN,
      .group = NG_HELP_OUTPUTS },
    { .flag = "print-profile", .takes = NG_OPTION_BARE, .parse = ng_options_bool,
      .field = S(print_profile),
      .help = "print what is read from each operand (kernel rows, total) and exit",
      .scope = NG_CLI_RUN, .group = NG_HELP_OTHER },
    { .flag = "help", .short_flag = 'h', .takes = NG_OPTION_BARE, .parse = ng_options_bool,
      .field = S(show_help), .help = "show this help", .scope = NG_CLI_RUN,
      .group = NG_HELP_OTHER },
    { .flag = "version", .takes = NG_OPTION_BARE, .parse = ng_options_bool,
      .field = S(show_version), .help = "show the version", .scope = NG_CLI_RUN,
      .group = NG_HELP_OTHER },
};

#define NSPECS (sizeof specs / sizeof specs[0])

/* An output option: its member is the path of one row of ng_outputs. */
static int set_output(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    size_t k = (v->opt->field - S(outputs)) / sizeof s->outputs[0];

    return ng_outputs_set(&ng_outputs[k], v->text, &s->outputs[k], &v->problem);
}

/* The pieces of list variables, owned by the settings.  One slot stays
 * free for the default cache directory. */
static int keep(void *target, char *copy)
{
    struct ng_settings *s = target;

    if (s->n_owned + 1 >= sizeof s->owned / sizeof s->owned[0])
        return -1;
    s->owned[s->n_owned++] = copy;
    return 0;
}

struct operands {
    const char *v[2];
    int n;
};

/* BASELINE and CURRENT, each kept in its place even when refused, so the
 * reports name each side right. */
static int take_operand(void *ctx, const char *arg, struct ng_err *err)
{
    struct operands *o = ctx;
    int ret = 0;

    /* "$BASE" of an unset variable: say so, not "unable to open ''" */
    if (!*arg)
        ret = ng_err_set(err, "an operand is empty (expected a profile path)");
    if (o->n < 2) {
        o->v[o->n++] = arg;
    } else if (ret == 0) {
        char *shown = ng_text_cleaned(arg, NG_TEXT_ESCAPE_CONTROLS);
        ret = ng_err_set(err, "too many operands: '%s' (expected BASELINE CURRENT)", shown);
        free(shown);
    }
    return ret;
}

/* The options: specs, with the output options of ng_outputs (every row
 * that has an option) in place of OUTPUT_OPTIONS, so the outputs, their
 * variables and --help cannot drift apart.  Built once, under
 * pthread_once: whichever thread first asks (a test, the manifest reader)
 * never meets a half-built table. */
static struct ng_option rows[NSPECS + NG_OUTPUTS_MAX];
static struct ng_options table = {
    .rows = rows,
    .style = NG_OPTIONS_SAY_OPTION | NG_OPTIONS_LONG_ONLY,
    .headings = help_headings,
    .n_headings = NG_HELP_GROUPS,
    .operand = take_operand,
    .keep = keep,
};
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
    size_t n = 0;

    for (size_t i = 0; i < NSPECS; i++) {
        if (specs[i].flag) {
            rows[n++] = specs[i];
            continue;
        }
        for (size_t k = 0; k < ng_n_outputs; k++) {
            const struct ng_output *o = &ng_outputs[k];
            if (o->option)
                rows[n++] = (struct ng_option){
                    .flag = o->option + 2, .env = o->env, .takes = NG_OPTION_VALUE,
                    .parse = set_output, .field = S(outputs) + k * sizeof(const char *),
                    .meta = o->meta, .help = o->help, .scope = NG_CLI_RUN,
                    .group = NG_HELP_OUTPUTS };
        }
    }
    table.n = n;
}

const struct ng_options *ng_cli_options(void)
{
    pthread_once(&table_once, build_table);
    return &table;
}

static void defaults(struct ng_settings *s)
{
    memset(s, 0, sizeof *s);
    s->compare.name = DEFAULT_NAME;
    s->compare.threshold = DEFAULT_THRESHOLD;
    s->compare.epochs = DEFAULT_EPOCHS;
    s->nsys_timeout = DEFAULT_NSYS_TIMEOUT;
    s->compare.metric = NG_METRIC_KERNEL_SUM;
    s->compare.straggler_threshold = NG_STRAGGLER_DEFAULT;
    s->compare.work = NG_WORK_DEFAULT;
    s->compare.policy.kernel_min_delta_ms = -1;
    s->compare.alpha = DEFAULT_ALPHA;
    s->compare.top = DEFAULT_TOP;
    s->cache.max_bytes = (uint64_t)DEFAULT_CACHE_MAX_MB << 20;
    s->cache.max_age_days = DEFAULT_CACHE_MAX_DAYS;
    s->history_window = DEFAULT_HISTORY_WINDOW;
    s->github = -1;   /* decided once every option is read */
}

/* GitHub Actions: the reporter is on when asked, else when the runner
 * says so; its files are the runner's (the outputs without an option name
 * their file by the runner's variable).  Decided before any usage error is
 * returned, so even that is reported where the job shows it. */
static void github_environment(struct ng_settings *s)
{
    const char *actions = getenv("GITHUB_ACTIONS");

    if (s->github < 0)
        s->github = actions && strcmp(actions, "true") == 0;
    for (size_t i = 0; i < ng_n_outputs; i++) {
        const struct ng_output *o = &ng_outputs[i];
        const char *path = !o->option && o->env ? getenv(o->env) : NULL;
        if (!o->option)
            s->outputs[i] = path && *path ? path : NULL;
    }
}

/* --write-summary: one run's, never over a profile it gates. */
static int check_write_summary(const struct ng_settings *s, struct ng_err *err)
{
    if (!s->write_summary)
        return 0;
    /* a gate (it has a baseline; summarize has none) prints its line on stdout */
    if (strcmp(s->write_summary, "-") == 0 && (s->n_baselines > 0 || s->baseline_history))
        return ng_err_set(err, "--write-summary -: stdout holds the gate's own line; give a "
                          "file (nsys-gate summarize -o - writes a summary to stdout)");
    if (s->n_currents != 1 && !s->ranks)
        return ng_err_set(err, "--write-summary writes one run's summary, and this gate has %zu "
                          "current runs: summarize each with nsys-gate summarize",
                          s->n_currents);
    int same = 0;
    char *out = strcmp(s->write_summary, "-") == 0 ? NULL : ng_file_key(s->write_summary);
    for (size_t i = 0; out && !same && i < s->n_baselines + s->n_currents; i++) {
        const char *path = i < s->n_baselines ? s->baselines[i] : s->currents[i - s->n_baselines];
        char *in = ng_file_key(path);
        same = in && strcmp(in, out) == 0;
        free(in);
    }
    free(out);
    if (same)
        return ng_err_set(err, "the summary's output '%s' names a profile that is read; write "
                          "the summary to another file", s->write_summary);
    return 0;
}

int ng_cli_check_gate(struct ng_settings *s, struct ng_err *err)
{
    s->compare.nvtx = s->epoch_range != NULL;
    if (!s->compare.nvtx && (ng_metric_info(s->compare.metric)->needs & NG_METRIC_NEEDS_NVTX))
        return ng_err_set(err, "--metric %s needs --epoch-range (NVTX epochs)",
                          ng_metric_name(s->compare.metric));
    if (!s->compare.nvtx && s->compare.skip_epochs > 0)
        return ng_err_set(err, "--skip-epochs needs --epoch-range (NVTX epochs)");
    if (s->compare.policy.kernel_min_delta_ms >= 0 && s->compare.policy.kernel_threshold == 0)
        return ng_err_set(err, "--kernel-min-delta-ms needs --kernel-threshold (per-kernel "
                               "gates)");
    if (s->ranks && s->compare.metric == NG_METRIC_GPU_SPAN)
        return ng_err_set(err, "--metric gpu-span cannot add up --ranks: each rank's span is "
                               "on its own clock; use gpu-busy or kernel-sum");
    if (s->baseline_history && s->n_baselines > 0)
        return ng_err_set(err, "--baseline-history is the baseline: give no baseline profile "
                               "with it");
    return check_write_summary(s, err);
}

enum ng_cli_scope ng_cli_option_scope(const char *flag, int *values)
{
    const struct ng_option *o = ng_options_find(ng_cli_options(), flag);

    if (!o)
        return NG_CLI_UNKNOWN;
    if (values)   /* 0 a switch, 1 one value, 2 a list */
        *values = o->takes >= NG_OPTION_REPEAT ? 2 : o->takes == NG_OPTION_VALUE;
    if (o->takes == NG_OPTION_BARE)
        return NG_CLI_RUN;
    return (enum ng_cli_scope)(o->scope & NG_CLI_WHERE);
}

/* The repeatable options' value counts, by parser. */
static const struct {
    ng_option_parse_fn *parse;
    size_t count;
} list_counts[] = {
    { ng_values_baseline, S(n_baselines) },
    { ng_values_current, S(n_currents) },
    { ng_values_kernels, S(compare.policy.n_kernels) },
    { ng_values_exclude_kernels, S(compare.policy.n_exclude) },
    { ng_values_comm_kernels, S(compare.policy.n_comm) },
    { ng_values_accept, S(n_accept) },
};

void ng_cli_clear_list(struct ng_settings *s, const char *flag)
{
    const struct ng_option *o = ng_options_find(ng_cli_options(), flag);

    for (size_t i = 0; o && i < sizeof list_counts / sizeof list_counts[0]; i++)
        if (list_counts[i].parse == o->parse)
            *(size_t *)((char *)s + list_counts[i].count) = 0;
}

int ng_cli_set_option(struct ng_settings *s, const char *flag, const char *value,
                      const char **problem)
{
    const struct ng_option *o = ng_options_find(ng_cli_options(), flag);
    struct ng_option_value v = { o, value, 0, NULL };

    if (!o || o->takes == NG_OPTION_BARE) {
        *problem = "is not an option";
        return -1;
    }
    if (o->parse(s, &v) < 0)
        return *problem = v.problem, -1;
    return 0;
}

/* The command line's own inputs: the profiles of both sides, the manifest. */
static int check_outputs(struct ng_settings *s, struct ng_err *err)
{
    const char *inputs[2 * NG_MAX_RUNS + 1];
    size_t n = 0;

    for (size_t i = 0; i < s->n_baselines; i++)
        inputs[n++] = s->baselines[i];
    for (size_t i = 0; i < s->n_currents; i++)
        inputs[n++] = s->currents[i];
    if (s->manifest)
        inputs[n++] = s->manifest;
    int ret = ng_outputs_refuse(s, inputs, n, err);
    struct ng_err history_err;
    if (ng_outputs_refuse_histories(s, &s->baseline_history, 1, &history_err) < 0 && ret == 0)
        ret = (*err = history_err, -1);
    return ret;
}

/* With --baseline-history the operand (or --current) is the current side only. */
static int check_history_sides(struct ng_settings *s, int noperands, int lists,
                               struct ng_err *err)
{
    if (noperands > 1 || s->n_baselines > 0)
        return ng_err_set(err, "--baseline-history is the baseline: give only the current "
                               "profile (CURRENT or --current), no BASELINE or --baseline");
    if (lists && noperands > 0)
        return ng_err_set(err, "use either the CURRENT operand or --current, not both");
    if (s->n_currents == 0)
        return ng_err_set(err, "missing operand: expected CURRENT (the baseline is "
                               "--baseline-history)");
    return ng_cli_check_gate(s, err);
}

/* --no-cache, or the export cache's directory when none was given. */
static void cache_default(struct ng_settings *s)
{
    if (s->no_cache) {
        s->cache.dir = NULL;
    } else if (!s->cache.dir && (s->cache.dir = ng_cache_default_dir(&s->cache.parent)) != NULL) {
        s->owned[s->n_owned++] = (char *)s->cache.dir;
    }
}

int ng_cli_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err)
{
    const struct ng_options *t = ng_cli_options();
    struct operands ops = { { NULL, NULL }, 0 };
    struct ng_err scan_err;
    int scanned, applied;

    defaults(s);
    scanned = ng_options_scan(t, argc, argv, &ops, &scan_err);
    applied = ng_options_apply(t, s, argc, argv, err);
    github_environment(s);
    const char *const *operands = ops.v;
    int noperands = ops.n;
    int lists = s->n_baselines > 0 || s->n_currents > 0;
    int from_history = s->baseline_history && !s->print_profile;   /* one operand: CURRENT */
    if (!lists || s->print_profile) {
        for (int i = 0; i < noperands; i++) {
            if (i == 0 && !from_history && s->n_baselines < NG_MAX_RUNS)
                s->baselines[s->n_baselines++] = operands[0];
            else if (i == (from_history ? 0 : 1) && s->n_currents < NG_MAX_RUNS)
                s->currents[s->n_currents++] = operands[i];
        }
    }
    /* before any other error: a usage error still writes the reports */
    if (check_outputs(s, err) < 0)
        return -1;
    if (scanned < 0) {
        *err = scan_err;
        return -1;
    }
    if (applied < 0)
        return -1;
    cache_default(s);
    if (s->show_help || s->show_version)
        return 0;
    if (s->manifest && s->print_profile)
        return ng_err_set(err, "--print-profile cannot be combined with --manifest");
    if (s->manifest && (lists || noperands > 0))
        return ng_err_set(err, "--manifest takes no profiles on the command line: each gate "
                               "names its own baseline and current");
    if (s->manifest)
        return 0;   /* each gate is checked when the manifest is read */
    if (s->print_profile) {
        if (s->ranks)
            return ng_err_set(err, "--print-profile shows each profile on its own: --ranks "
                                   "folds ranks for a gate");
        if (s->write_summary)
            return ng_err_set(err, "--print-profile cannot be combined with --write-summary");
        if (noperands == 0 && !lists)
            return ng_err_set(err, "missing operand: --print-profile needs a profile");
        return 0;
    }
    if (from_history)
        return check_history_sides(s, noperands, lists, err);
    if (lists && noperands > 0)
        return ng_err_set(err, "use either the BASELINE CURRENT operands or --baseline/--current, "
                               "not both");
    if (lists && (s->n_baselines == 0 || s->n_currents == 0))
        return ng_err_set(err, "missing %s: give at least one --baseline and one --current",
                          s->n_baselines == 0 ? "--baseline" : "--current");
    if (!lists && noperands < 2)
        return ng_err_set(err, "missing operand: expected BASELINE and CURRENT (see --help)");
    return ng_cli_check_gate(s, err);
}

void ng_cli_release(struct ng_settings *s)
{
    for (size_t i = 0; i < s->n_owned; i++)
        free(s->owned[i]);
    s->n_owned = 0;
    free(s->operands);
    s->operands = NULL;
    s->n_operands = 0;
}

/* The usage lines: a new command or form is one row. */
static const char *const help_usage[] = {
    "[OPTIONS] BASELINE CURRENT",
    "[OPTIONS] --baseline FILE... --current FILE...",
    "[OPTIONS] --baseline-history HISTORY.jsonl CURRENT",
    "[OPTIONS] --manifest FILE.json [-j N]",
    "dashboard [OPTIONS] HISTORY.jsonl...   (see dashboard --help)",
    "changes [OPTIONS] HISTORY.jsonl...     (see changes --help)",
    "ranges [OPTIONS] PROFILE...            (see ranges --help)",
    "summarize [OPTIONS] [--ranks] -o OUT PROFILE...  (see summarize --help)",
};

/* Three examples, a command and what it does. */
static const char *const help_examples[][2] = {
    { "nsys-gate --epochs 10 main.sqlite pr.sqlite",
      "total mode: both profiles ran 10 epochs; fail past 1.20x" },
    { "nsys-gate --epoch-range auto --threshold 5% --junit gate.xml main.nsys-rep pr.nsys-rep",
      "per-epoch samples from NVTX ranges, a test of the ratio of means, a JUnit report" },
    { "nsys-gate --baseline-history runs.jsonl --history runs.jsonl --epoch-range auto pr.sqlite",
      "a nightly against the last 10 runs, appending tonight's (night 1 starts the file)" },
};

void ng_cli_help(FILE *out)
{
    for (size_t i = 0; i < sizeof help_usage / sizeof help_usage[0]; i++)
        fprintf(out, "%s %s %s\n", i ? "      " : "usage:", NG_TOOL_NAME, help_usage[i]);
    fprintf(out, "\n"
                 "Compares GPU time per epoch of two NVIDIA Nsight Systems profiles (SQLite\n"
                 "exports, .nsys-rep reports, saved `nsys stats` summaries) or torch.profiler\n"
                 "traces, and fails when CURRENT regressed past the threshold.  Each option is\n"
                 "also read from the environment variable in brackets; a flag wins.\n");
    ng_options_help(out, ng_cli_options());
    fprintf(out, "\nexit status: 0 pass, 1 fail (regression), 2 error (bad usage, bad input,\n"
                 "nsys failure); with --manifest, the worst of its gates\n\nexamples:\n");
    for (size_t i = 0; i < sizeof help_examples / sizeof help_examples[0]; i++)
        fprintf(out, "  %s\n      %s\n", help_examples[i][0], help_examples[i][1]);
}

/* ---- nsys-gate summarize: the gate's rows that change what is read or
 * how (NG_CLI_READS, NG_CLI_ACCESS), so the two never drift, and -o ---- */

static const struct ng_option summarize_own[] = {
    { .flag = "ranks", .env = "NSYS_GATE_RANKS", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(ranks),
      .help = "the PROFILEs are the ranks of one run (globs allowed, expanded by nsys-gate): "
              "one summary of the run, their epochs added up", .group = NG_HELP_INPUTS },
    { .flag = "jobs", .short_flag = 'j', .env = "NSYS_GATE_JOBS", .takes = NG_OPTION_VALUE,
      .parse = ng_options_positive, .field = S(jobs), .meta = "N",
      .help = "--ranks: ranks read at once (also -j N); default: one per processor",
      .group = NG_HELP_INPUTS },
    { .flag = "output", .short_flag = 'o', .takes = NG_OPTION_VALUE, .parse = ng_options_text,
      .field = S(write_summary), .meta = "OUT",
      .help = "where the summary goes (gzip when OUT ends in .gz; - for stdout)",
      .group = NG_HELP_OUTPUTS },
    { .flag = "range-groups", .takes = NG_OPTION_SWITCH, .parse = ng_options_bool,
      .field = S(range_groups),
      .help = "also keep the NVTX range groups nsys-gate ranges lists (a second reading of the "
              "profile, several times slower than the first)", .group = NG_HELP_OUTPUTS },
    { .flag = "quiet", .env = "NSYS_GATE_QUIET", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = S(quiet),
      .help = "no line on stdout saying what was written", .group = NG_HELP_OUTPUTS },
    { .flag = "help", .short_flag = 'h', .takes = NG_OPTION_BARE, .parse = ng_options_bool,
      .field = S(show_help), .help = "this text", .group = NG_HELP_OTHER },
};
#define N_SUMMARIZE_OWN (sizeof summarize_own / sizeof summarize_own[0])

static struct ng_option summarize_rows[NSPECS + N_SUMMARIZE_OWN];

static int take_profile(void *ctx, const char *arg, struct ng_err *err)
{
    struct ng_settings *s = ctx;

    if (!*arg)
        return ng_err_set(err, "an operand is empty (expected a profile path)");
    if (s->n_currents < NG_MAX_RUNS)
        s->currents[s->n_currents] = arg;
    s->n_currents++;   /* counted past the room: the check says how many */
    s->operands = ng_xgrow(s->operands, s->n_operands, sizeof *s->operands);
    s->operands[s->n_operands++] = arg;   /* --ranks: every one */
    return 0;
}

static struct ng_options summarize_table = {
    .rows = summarize_rows,
    .command = "summarize",
    .prefix = "summarize: ",
    .usage = "[OPTIONS] -o OUT PROFILE, or [OPTIONS] --ranks -o OUT RANK...",
    .about = "Writes what the gate reads of PROFILE (any input kind, a summary too) as a "
             "summary: a small\nversioned file that loads back as an input and gives the "
             "profile's verdict.  Give the\nreading options the gates on it will give; a gate "
             "that asks for others refuses it.",
    .style = NG_OPTIONS_SAY_OPTION,
    .headings = help_headings,
    .n_headings = NG_HELP_GROUPS,
    .operand = take_profile,
    .keep = keep,
};
static pthread_once_t summarize_once = PTHREAD_ONCE_INIT;

static void build_summarize(void)
{
    size_t n = 0;

    for (size_t i = 0; i < NSPECS; i++)
        if (specs[i].flag && (specs[i].scope & (NG_CLI_READS | NG_CLI_ACCESS)))
            summarize_rows[n++] = specs[i];
    for (size_t i = 0; i < N_SUMMARIZE_OWN; i++)
        summarize_rows[n++] = summarize_own[i];
    summarize_table.n = n;
}

const struct ng_options *ng_cli_summarize_options(void)
{
    pthread_once(&summarize_once, build_summarize);
    return &summarize_table;
}

int ng_cli_summarize_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err)
{
    defaults(s);
    if (ng_options_parse(ng_cli_summarize_options(), s, argc, argv, err) < 0)
        return -1;
    cache_default(s);
    if (s->show_help)
        return 0;
    if (s->n_currents == 0)
        return ng_err_set(err, "summarize: missing operand: expected the PROFILE to summarize");
    if (s->ranks && s->range_groups)
        return ng_err_set(err, "summarize: --range-groups lists one profile's NVTX ranges, and "
                          "the ranks' groups do not add up: summarize a rank with it");
    if (s->n_currents > 1 && !s->ranks)
        return ng_err_set(err, "summarize: %zu profiles given, and a summary holds one run: "
                          "give --ranks when they are the ranks of one run, or summarize each "
                          "run on its own", s->n_currents);
    if (!s->write_summary)
        return ng_err_set(err, "summarize: missing -o OUT: where the summary goes (- for "
                          "stdout)");
    return ng_cli_check_gate(s, err);
}
