#include "cli/ng_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "cli/ng_outputs.h"
#include "core/ng_context.h"
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

typedef int (*parse_fn)(struct ng_settings *s, const char *value, const char **problem);

struct opt_spec {
    const char *flag;      /* without "--" */
    const char *env;       /* NULL: flag only */
    int takes_value;       /* 0: a switch; 1: a value; or a repeatable one, whose
                              variable holds a list (REPEATABLE_*) */
    parse_fn parse;        /* NULL for value-less switches handled by `set` */
    int *(*field)(struct ng_settings *s);   /* switches: the int to set to 1 */
    const char *meta;
    const char *help;
    enum ng_cli_scope scope;   /* NG_CLI_GATE unless given: may be set per manifest gate */
    enum help_group group;     /* its heading in --help */
};

/* takes_value of a repeatable option, by what separates its variable's values */
#define REPEATABLE_PATHS 2    /* ':' (paths) */
#define REPEATABLE_LINES 3    /* one a line (patterns, which may hold ':') */
#define REPEATABLE_COMMAS 4   /* ',' or a newline (KEY=VALUE pairs, as a YAML block
                                 writes them: a value may hold ':') */

/* Where the output options of ng_outputs go in the table (and in --help). */
#define OUTPUT_OPTIONS { NULL, NULL, 0, NULL, NULL, NULL, NULL, NG_CLI_RUN, NG_HELP_OUTPUTS }

/* ---- value parsers: each returns -1 and a problem text ---- */

/* Digits only: no sign, no spaces, no hex, no exponent. */
static int parse_positive_int(const char *v, long *out, const char **problem)
{
    long n = 0;

    if (!*v) {
        *problem = "is empty";
        return -1;
    }
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9') {
            *problem = "is not a positive integer";
            return -1;
        }
        if (n > (INT_MAX - (*p - '0')) / 10) {
            *problem = "is too large";
            return -1;
        }
        n = n * 10 + (*p - '0');
    }
    if (n < 1) {
        *problem = "must be at least 1";
        return -1;
    }
    *out = n;
    return 0;
}

/* A plain decimal: digits with at most one '.', at least one digit.  No
 * sign, exponent, hex, inf or nan, which strtod would all accept. */
static int is_plain_decimal(const char *s, size_t n)
{
    int digits = 0, dots = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            digits++;
        else if (s[i] == '.' && !dots)
            dots++;
        else
            return 0;
    }
    return digits > 0;
}

/* A bare 20 is a slip for 20% far more often than a wish to allow 20 times
 * the baseline: refuse it and show each reading.  The text lives until the
 * next call on the same thread. */
static int ambiguous_threshold(const char *digits, double v, const char **problem)
{
    static _Thread_local char msg[512];
    char ratio[64];

    snprintf(ratio, sizeof ratio, "%.12g", 1.0 + v / 100.0);
    snprintf(msg, sizeof msg, "is ambiguous: write %s%% (or %s) to fail past a %s%% "
             "slowdown, or %sx to allow %s times the baseline", digits, ratio, digits,
             digits, digits);
    *problem = msg;
    return -1;
}

int ng_cli_parse_threshold(const char *text, double *out, const char **problem)
{
    size_t n = strlen(text);
    int percent = 0;
    char buf[64];
    double v;

    if (n == 0) {
        *problem = "is empty";
        return -1;
    }
    if (text[n - 1] == 'x' || text[n - 1] == 'X') {
        n--;
    } else if (text[n - 1] == '%') {
        n--;
        percent = 1;
    }
    if (n == 0 || n >= sizeof buf || !is_plain_decimal(text, n)) {
        *problem = "is not a number (use a ratio such as 1.2, 1.20x or 20%)";
        return -1;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    v = strtod(buf, NULL);
    if (percent) {
        /* 1 + p/100, rounded through a short decimal so "20%" is exactly
         * the same double as "1.2" */
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.12g", 1.0 + v / 100.0);
        v = strtod(tmp, NULL);
    }
    if (!(v >= 1.0) || v > 1e9) {
        *problem = "must be a ratio of at least 1 (e.g. 1.2, 1.20x or 20%)";
        return -1;
    }
    if (!percent && n == strlen(text) && v >= 2.0)
        return ambiguous_threshold(buf, v, problem);
    *out = v;
    return 0;
}

static int p_epochs(struct ng_settings *s, const char *v, const char **problem)
{
    s->epochs_given = 1;
    return parse_positive_int(v, &s->compare.epochs, problem);
}

static int p_baseline_epochs(struct ng_settings *s, const char *v, const char **problem)
{
    s->epochs_given = 1;
    return parse_positive_int(v, &s->compare.baseline_epochs, problem);
}

static int p_current_epochs(struct ng_settings *s, const char *v, const char **problem)
{
    s->epochs_given = 1;
    return parse_positive_int(v, &s->compare.current_epochs, problem);
}

static int p_threshold(struct ng_settings *s, const char *v, const char **problem)
{
    return ng_cli_parse_threshold(v, &s->compare.threshold, problem);
}

static int p_path(const char *v, const char **out, const char **problem)
{
    if (!*v) {
        *problem = "is empty";
        return -1;
    }
    *out = v;
    return 0;
}

static int p_nsys(struct ng_settings *s, const char *v, const char **problem)
{
    return p_path(v, &s->nsys, problem);
}

static int p_manifest(struct ng_settings *s, const char *v, const char **problem)
{
    return p_path(v, &s->manifest, problem);
}

static int p_jobs(struct ng_settings *s, const char *v, const char **problem)
{
    return parse_positive_int(v, &s->jobs, problem);
}

static int p_name(struct ng_settings *s, const char *v, const char **problem)
{
    for (const char *p = v; *p; p++) {
        if (*p != ' ' && *p != '\t') {
            s->compare.name = v;
            return 0;
        }
    }
    *problem = "is empty";
    return -1;
}

static int p_nsys_timeout(struct ng_settings *s, const char *v, const char **problem)
{
    if (!is_plain_decimal(v, strlen(v)) || strtod(v, NULL) <= 0) {
        *problem = "is not a positive number of seconds";
        return -1;
    }
    s->nsys_timeout = strtod(v, NULL);
    return 0;
}

static int p_bool(int *out, const char *v, const char **problem)
{
    static const char *const yes[] = { "1", "true", "yes", "on", NULL };
    static const char *const no[] = { "0", "false", "no", "off", NULL };
    for (int i = 0; yes[i]; i++)
        if (strcmp(v, yes[i]) == 0)
            return *out = 1, 0;
    for (int i = 0; no[i]; i++)
        if (strcmp(v, no[i]) == 0)
            return *out = 0, 0;
    *problem = "is not a boolean (use 1/0, true/false, yes/no)";
    return -1;
}

static int p_quiet(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->quiet, v, problem);
}

static int p_github(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->github, v, problem);
}

static int p_nonneg_int(const char *v, long *out, const char **problem)
{
    if (strcmp(v, "0") == 0) {
        *out = 0;
        return 0;
    }
    if (parse_positive_int(v, out, problem) == 0)
        return 0;
    if (strcmp(*problem, "must be at least 1") != 0 && strcmp(*problem, "is too large") != 0)
        *problem = "is not a non-negative integer";
    return -1;
}

static int p_skip_epochs(struct ng_settings *s, const char *v, const char **problem)
{
    return p_nonneg_int(v, &s->compare.skip_epochs, problem);
}

static int p_top(struct ng_settings *s, const char *v, const char **problem)
{
    return p_nonneg_int(v, &s->compare.top, problem);
}

/* A significance level: 0 turns the test off, else 0 < alpha < 1. */
static int p_alpha(struct ng_settings *s, const char *v, const char **problem)
{
    double a;
    if (!is_plain_decimal(v, strlen(v)) || (a = strtod(v, NULL)) >= 1.0) {
        *problem = "is not a significance level (0 to turn the test off, or between 0 and 1, "
                   "e.g. 0.05)";
        return -1;
    }
    s->compare.alpha = a;
    return 0;
}

/* The choices are the metric table's names. */
static int p_metric(struct ng_settings *s, const char *v, const char **problem)
{
    static char msg[160];
    const struct ng_metric_info *m = ng_metric_find(v);
    if (m) {
        s->compare.metric = m->id;
        return 0;
    }
    char choices[96];
    ng_metric_choices(choices, sizeof choices);
    snprintf(msg, sizeof msg, "is not a metric (expected one of: %s)", choices);
    *problem = msg;
    return -1;
}

static int p_work(struct ng_settings *s, const char *v, const char **problem)
{
    s->compare.work_given = 1;
    return ng_work_parse(v, &s->compare.work, problem);
}

/* A non-negative decimal number of milliseconds. */
static int p_ms(double *out, const char *v, const char **problem)
{
    if (!is_plain_decimal(v, strlen(v))) {
        *problem = "is not a number of milliseconds (e.g. 0.5)";
        return -1;
    }
    *out = strtod(v, NULL);
    return 0;
}

static int p_pattern(const char *v, const char **list, size_t *n, const char **problem)
{
    if (!*v) {
        *problem = "is empty";
        return -1;
    }
    if (*n == NG_POLICY_PATTERNS) {
        *problem = "is one pattern too many (at most 16)";
        return -1;
    }
    list[(*n)++] = v;   /* compiled, and refused if bad, by the gate */
    return 0;
}

static int p_kernels(struct ng_settings *s, const char *v, const char **problem)
{
    return p_pattern(v, s->compare.policy.kernels, &s->compare.policy.n_kernels, problem);
}

static int p_exclude_kernels(struct ng_settings *s, const char *v, const char **problem)
{
    return p_pattern(v, s->compare.policy.exclude, &s->compare.policy.n_exclude, problem);
}

static int p_comm_kernels(struct ng_settings *s, const char *v, const char **problem)
{
    return p_pattern(v, s->compare.policy.comm, &s->compare.policy.n_comm, problem);
}

static int p_min_delta(struct ng_settings *s, const char *v, const char **problem)
{
    return p_ms(&s->compare.policy.min_delta_ms, v, problem);
}

static int p_kernel_threshold(struct ng_settings *s, const char *v, const char **problem)
{
    return ng_cli_parse_threshold(v, &s->compare.policy.kernel_threshold, problem);
}

static int p_straggler_threshold(struct ng_settings *s, const char *v, const char **problem)
{
    return ng_cli_parse_threshold(v, &s->compare.straggler_threshold, problem);
}

static int p_kernel_min_delta(struct ng_settings *s, const char *v, const char **problem)
{
    return p_ms(&s->compare.policy.kernel_min_delta_ms, v, problem);
}

static int p_fail_on_improvement(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->compare.policy.fail_on_improvement, v, problem);
}

static int p_kernel_names(struct ng_settings *s, const char *v, const char **problem)
{
    if (strcmp(v, "full") != 0 && strcmp(v, "base") != 0) {
        *problem = "is not a kind of kernel name (expected full or base)";
        return -1;
    }
    s->compare.policy.base_names = strcmp(v, "base") == 0;
    return 0;
}

static int p_epoch_range(struct ng_settings *s, const char *v, const char **problem)
{
    if (!*v) {
        *problem = "is empty";
        return -1;
    }
    s->epoch_range = v;   /* compiled, and refused if bad, by the NVTX reader */
    return 0;
}

static int p_fail_inconclusive(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->fail_inconclusive, v, problem);
}

static int p_verbose(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->verbose, v, problem);
}

static int p_run(const char *v, const char **list, size_t *n, const char **problem)
{
    if (!*v) {
        *problem = "is empty";
        return -1;
    }
    if (*n == NG_MAX_RUNS) {
        *problem = "is one run too many (at most 64 per side)";
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}

static int p_baseline(struct ng_settings *s, const char *v, const char **problem)
{
    return p_run(v, s->baselines, &s->n_baselines, problem);
}

static int p_current(struct ng_settings *s, const char *v, const char **problem)
{
    return p_run(v, s->currents, &s->n_currents, problem);
}

static int p_label(struct ng_settings *s, const char *v, const char **problem)
{
    size_t key_len;
    if (ng_context_label_check(v, &key_len, problem) < 0)
        return -1;
    if (s->n_labels == NG_MAX_RUNS) {
        *problem = "is one label too many (at most 64)";
        return -1;
    }
    s->labels[s->n_labels++] = v;
    return 0;
}

static int p_baseline_history(struct ng_settings *s, const char *v, const char **problem)
{
    return p_path(v, &s->baseline_history, problem);
}

/* At most NG_MAX_RUNS: the runs become the baseline's profiles. */
static int p_history_window(struct ng_settings *s, const char *v, const char **problem)
{
    if (parse_positive_int(v, &s->history_window, problem) < 0)
        return -1;
    if (s->history_window > NG_MAX_RUNS) {
        *problem = "is more than 64 runs";
        return -1;
    }
    return 0;
}

static int p_history_match(struct ng_settings *s, const char *v, const char **problem)
{
    size_t key_len;
    if (ng_context_label_check(v, &key_len, problem) < 0)
        return -1;
    if (!v[key_len + 1]) {
        *problem = "has no VALUE to match";
        return -1;
    }
    if (s->n_history_match == NG_MAX_RUNS) {
        *problem = "is one match too many (at most 64)";
        return -1;
    }
    s->history_match[s->n_history_match++] = v;
    return 0;
}

static int p_history_since(struct ng_settings *s, const char *v, const char **problem)
{
    if (ng_parse_utc(v, &s->history_since) < 0) {
        *problem = "is not a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SSZ in UTC)";
        return -1;
    }
    s->has_history_since = 1;
    return 0;
}

static int p_accept(struct ng_settings *s, const char *v, const char **problem)
{
    if (!*v) {
        *problem = "is not a file";
        return -1;
    }
    if (s->n_accept == NG_MAX_RUNS) {
        *problem = "is one file too many (at most 64)";
        return -1;
    }
    s->accept[s->n_accept++] = v;
    return 0;
}

static size_t *c_accept(struct ng_settings *s) { return &s->n_accept; }
static size_t *c_baselines(struct ng_settings *s) { return &s->n_baselines; }
static size_t *c_currents(struct ng_settings *s) { return &s->n_currents; }
static size_t *c_kernels(struct ng_settings *s) { return &s->compare.policy.n_kernels; }
static size_t *c_exclude(struct ng_settings *s) { return &s->compare.policy.n_exclude; }
static size_t *c_comm(struct ng_settings *s) { return &s->compare.policy.n_comm; }

static int p_cache_dir(struct ng_settings *s, const char *v, const char **problem)
{
    return p_path(v, &s->cache.dir, problem);
}

static int p_no_cache(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->no_cache, v, problem);
}

static int p_sql_only(struct ng_settings *s, const char *v, const char **problem)
{
    return p_bool(&s->sql_only, v, problem);
}

static int p_cache_max_mb(struct ng_settings *s, const char *v, const char **problem)
{
    long mb;
    if (p_nonneg_int(v, &mb, problem) < 0)
        return -1;
    s->cache.max_bytes = (uint64_t)mb << 20;
    return 0;
}

static int p_cache_max_days(struct ng_settings *s, const char *v, const char **problem)
{
    long days;
    if (p_nonneg_int(v, &days, problem) < 0)
        return -1;
    s->cache.max_age_days = (double)days;
    return 0;
}

static int *f_help(struct ng_settings *s) { return &s->show_help; }
static int *f_version(struct ng_settings *s) { return &s->show_version; }
static int *f_print_profile(struct ng_settings *s) { return &s->print_profile; }

static const struct opt_spec specs[] = {
    { "epochs", "NSYS_GATE_EPOCHS", 1, p_epochs, NULL, "N",
      "epochs both runs made (total mode); default 5", NG_CLI_GATE, NG_HELP_EPOCHS },
    { "baseline-epochs", "NSYS_GATE_BASELINE_EPOCHS", 1, p_baseline_epochs, NULL, "N",
      "epochs each baseline run made, for captures of different lengths (total mode); "
      "default --epochs", NG_CLI_GATE, NG_HELP_EPOCHS },
    { "current-epochs", "NSYS_GATE_CURRENT_EPOCHS", 1, p_current_epochs, NULL, "N",
      "epochs each current run made (total mode); default --epochs", NG_CLI_GATE,
      NG_HELP_EPOCHS },
    { "threshold", "NSYS_GATE_THRESHOLD", 1, p_threshold, NULL, "R",
      "largest allowed current/baseline ratio: 1.2, 1.20x or 20% (a bare 20 is refused: "
      "20%? 20x?); default 1.20", NG_CLI_GATE, NG_HELP_DECISION },
    OUTPUT_OPTIONS,
    { "github", "NSYS_GATE_GITHUB", 0, p_github, NULL, NULL,
      "GitHub Actions step summary, outputs and annotations; default: on when "
      "GITHUB_ACTIONS=true", NG_CLI_RUN, NG_HELP_CI },
    { "manifest", "NSYS_GATE_MANIFEST", 1, p_manifest, NULL, "FILE",
      "run every gate of a JSON manifest (batch mode; no operands)", NG_CLI_RUN, NG_HELP_INPUTS },
    { "jobs", "NSYS_GATE_JOBS", 1, p_jobs, NULL, "N",
      ".nsys-rep exports at once, and with --manifest gates at once (also -j N); "
      "default: one per processor",
      NG_CLI_RUN, NG_HELP_INPUTS },
    { "name", "NSYS_GATE_NAME", 1, p_name, NULL, "NAME",
      "test case / metric name; default gpu-time-per-epoch", NG_CLI_GATE, NG_HELP_CI },
    { "nsys", "NSYS_GATE_NSYS", 1, p_nsys, NULL, "PATH",
      "the nsys executable for .nsys-rep inputs; default nsys on PATH", NG_CLI_GATE_PATH, NG_HELP_NSYS },
    { "nsys-timeout", "NSYS_GATE_NSYS_TIMEOUT", 1, p_nsys_timeout, NULL, "SECONDS",
      "kill nsys if an export takes longer; default 600", NG_CLI_GATE, NG_HELP_NSYS },
    { "baseline", "NSYS_GATE_BASELINE", REPEATABLE_PATHS, p_baseline, NULL, "FILE",
      "a baseline profile, repeatable for repeat runs (instead of the operands)",
      NG_CLI_GATE_PATH, NG_HELP_INPUTS },
    { "current", "NSYS_GATE_CURRENT", REPEATABLE_PATHS, p_current, NULL, "FILE",
      "a current profile, repeatable for repeat runs (instead of the operands)",
      NG_CLI_GATE_PATH, NG_HELP_INPUTS },
    { "baseline-history", "NSYS_GATE_BASELINE_HISTORY", 1, p_baseline_history, NULL, "FILE",
      "the baseline is the last runs of this gate (--name) in a --history file, instead of "
      "profiles; a missing or empty FILE starts the history (this run passes)",
      NG_CLI_GATE_PATH, NG_HELP_INPUTS },
    { "history-window", "NSYS_GATE_HISTORY_WINDOW", 1, p_history_window, NULL, "N",
      "--baseline-history: the last N runs (at most 64); default 10", NG_CLI_GATE, NG_HELP_INPUTS },
    { "history-match", "NSYS_GATE_HISTORY_MATCH", REPEATABLE_COMMAS, p_history_match, NULL,
      "KEY=VALUE", "--baseline-history: only runs whose context has KEY=VALUE (e.g. "
      "branch=main); repeatable", NG_CLI_GATE, NG_HELP_INPUTS },
    { "history-since", "NSYS_GATE_HISTORY_SINCE", 1, p_history_since, NULL, "DATE",
      "--baseline-history: only runs from DATE on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC)",
      NG_CLI_GATE, NG_HELP_INPUTS },
    { "accept", "NSYS_GATE_ACCEPT", REPEATABLE_COMMAS, p_accept, NULL, "FILE",
      "--baseline-history: acknowledged changes (JSON Lines, as nsys-gate changes reads them): after "
      "an unacknowledged regression the baseline stays the runs before it; repeatable",
      NG_CLI_GATE_PATH, NG_HELP_INPUTS },
    { "label", "NSYS_GATE_LABELS", REPEATABLE_COMMAS, p_label, NULL, "KEY=VALUE",
      "add KEY=VALUE to the run context (commit, branch, ... come from the CI's variables) "
      "or override a key; an empty VALUE removes it; repeatable (the variable: comma- or "
      "newline-separated)", NG_CLI_GATE, NG_HELP_CI },
    { "epoch-range", "NSYS_GATE_EPOCH_RANGE", 1, p_epoch_range, NULL, "REGEX",
      "per-epoch samples from NVTX ranges matching REGEX (or auto)", NG_CLI_GATE, NG_HELP_EPOCHS },
    { "metric", "NSYS_GATE_METRIC", 1, p_metric, NULL, "M",
      "what an epoch's time is: kernel-sum (default), gpu-span (NVTX mode), gpu-busy or "
      "exposed-comm",
      NG_CLI_GATE, NG_HELP_DECISION },
    { "work", "NSYS_GATE_WORK", 1, p_work, NULL, "LIST",
      "GPU work counted: kernels, graphs, memory (comma-separated) or all; default "
      "kernels,graphs", NG_CLI_GATE, NG_HELP_COUNTED },
    { "skip-epochs", "NSYS_GATE_SKIP_EPOCHS", 1, p_skip_epochs, NULL, "K",
      "drop the first K epochs of each run (warm-up); default 0", NG_CLI_GATE, NG_HELP_EPOCHS },
    { "alpha", "NSYS_GATE_ALPHA", 1, p_alpha, NULL, "A",
      "significance level of the test of the ratio of means (and of the per-kernel gates, "
      "Holm-adjusted); 0 = off; default 0.05",
      NG_CLI_GATE, NG_HELP_DECISION },
    { "fail-inconclusive", "NSYS_GATE_FAIL_INCONCLUSIVE", 0, p_fail_inconclusive, NULL, NULL,
      "exit 1 when a regression is not significant (INCONCLUSIVE)", NG_CLI_GATE, NG_HELP_POLICY },
    { "kernels", "NSYS_GATE_KERNELS", REPEATABLE_LINES, p_kernels, NULL, "REGEX",
      "count only work items whose name matches (POSIX extended, case-sensitive; repeatable)",
      NG_CLI_GATE, NG_HELP_COUNTED },
    { "exclude-kernels", "NSYS_GATE_EXCLUDE_KERNELS", REPEATABLE_LINES,
      p_exclude_kernels, NULL, "REGEX",
      "leave out work items whose name matches (repeatable), e.g. '^nccl'", NG_CLI_GATE, NG_HELP_COUNTED },
    { "comm-kernels", "NSYS_GATE_COMM_KERNELS", REPEATABLE_LINES, p_comm_kernels, NULL, "REGEX",
      "kernels whose name matches are communication too, beside the built-in table (POSIX "
      "extended; repeatable)", NG_CLI_GATE, NG_HELP_COUNTED },
    { "min-delta-ms", "NSYS_GATE_MIN_DELTA_MS", 1, p_min_delta, NULL, "MS",
      "a FAIL also needs the per-epoch increase to be more than MS; default 0 (no floor)",
      NG_CLI_GATE, NG_HELP_DECISION },
    { "straggler-threshold", "NSYS_GATE_STRAGGLER_THRESHOLD", 1, p_straggler_threshold, NULL,
      "R", "name a device (or process) whose GPU time per epoch is past R x the median of the "
      "others on its side; default 1.10", NG_CLI_GATE, NG_HELP_POLICY },
    { "kernel-threshold", "NSYS_GATE_KERNEL_THRESHOLD", 1, p_kernel_threshold, NULL, "R",
      "per-kernel gates: any work item that grew past R (and its floor) fails; default off",
      NG_CLI_GATE, NG_HELP_POLICY },
    { "kernel-min-delta-ms", "NSYS_GATE_KERNEL_MIN_DELTA_MS", 1, p_kernel_min_delta, NULL, "MS",
      "per-kernel floor in ms/epoch; default 1% of the baseline epoch", NG_CLI_GATE, NG_HELP_POLICY },
    { "fail-on-improvement", "NSYS_GATE_FAIL_ON_IMPROVEMENT", 0, p_fail_on_improvement, NULL,
      NULL, "exit 1 when the baseline looks stale (current faster past the threshold)",
      NG_CLI_GATE, NG_HELP_POLICY },
    { "kernel-names", "NSYS_GATE_KERNEL_NAMES", 1, p_kernel_names, NULL, "full|base",
      "kernel names as demangled (full, default) or without template arguments (base)",
      NG_CLI_GATE, NG_HELP_COUNTED },
    { "top", "NSYS_GATE_TOP", 1, p_top, NULL, "N", "kernels named in the attribution; default 5",
      NG_CLI_GATE, NG_HELP_OUTPUTS },
    { "verbose", "NSYS_GATE_VERBOSE", 0, p_verbose, NULL, NULL,
      "always print the kernel attribution lines", NG_CLI_GATE, NG_HELP_OUTPUTS },
    { "cache-dir", "NSYS_GATE_CACHE_DIR", 1, p_cache_dir, NULL, "DIR",
      "keep .nsys-rep exports here; default $XDG_CACHE_HOME/nsys-gate", NG_CLI_RUN, NG_HELP_NSYS },
    { "no-cache", "NSYS_GATE_NO_CACHE", 0, p_no_cache, NULL, NULL,
      "export .nsys-rep inputs afresh every time", NG_CLI_RUN, NG_HELP_NSYS },
    { "cache-max-mb", "NSYS_GATE_CACHE_MAX_MB", 1, p_cache_max_mb, NULL, "MB",
      "prune the export cache past this size (0 = no cap); default 10240", NG_CLI_RUN, NG_HELP_NSYS },
    { "cache-max-days", "NSYS_GATE_CACHE_MAX_DAYS", 1, p_cache_max_days, NULL, "DAYS",
      "prune exports unused this long (0 = never); default 30", NG_CLI_RUN, NG_HELP_NSYS },
    { "sqlite-sql-only", "NSYS_GATE_SQLITE_SQL_ONLY", 0, p_sql_only, NULL, NULL,
      "read SQLite files through SQL queries only, not the page reader (slower; rules it out)",
      NG_CLI_RUN, NG_HELP_NSYS },
    { "quiet", "NSYS_GATE_QUIET", 0, p_quiet, NULL, NULL, "no human line on stdout, no progress on stderr",
      NG_CLI_RUN, NG_HELP_OUTPUTS },
    { "print-profile", NULL, 0, NULL, f_print_profile, NULL,
      "print what is read from each operand (kernel rows, total) and exit", NG_CLI_RUN, NG_HELP_OTHER },
    { "help", NULL, 0, NULL, f_help, NULL, "show this help", NG_CLI_RUN, NG_HELP_OTHER },
    { "version", NULL, 0, NULL, f_version, NULL, "show the version", NG_CLI_RUN, NG_HELP_OTHER },
};

#define NSPECS (sizeof specs / sizeof specs[0])
#define MAX_OPTIONS (NSPECS + NG_OUTPUTS_MAX)

/* The options: specs, with the output options of ng_outputs (every row
 * that has an option) in place of OUTPUT_OPTIONS, so the outputs, their
 * variables and --help cannot drift apart.  Built on first use. */
static struct opt_spec options_table[MAX_OPTIONS];
static const struct ng_output *options_output[MAX_OPTIONS];   /* the row of an output option */
static size_t n_options;

static void build_options(void)
{
    size_t n = 0;

    for (size_t i = 0; i < NSPECS; i++) {
        if (specs[i].flag) {
            options_table[n++] = specs[i];
            continue;
        }
        for (size_t k = 0; k < ng_n_outputs; k++) {
            const struct ng_output *o = &ng_outputs[k];
            if (!o->option)
                continue;
            options_output[n] = o;
            options_table[n++] = (struct opt_spec){ o->option + 2, o->env, 1, NULL, NULL,
                                                    o->meta, o->help, NG_CLI_RUN,
                                                    NG_HELP_OUTPUTS };
        }
    }
    n_options = n;
}

static const struct opt_spec *options(size_t *n)
{
    if (!n_options)
        build_options();
    *n = n_options;
    return options_table;
}

static const struct opt_spec *find_spec(const char *name, size_t len)
{
    size_t n;
    const struct opt_spec *opts = options(&n);

    for (size_t i = 0; i < n; i++)
        if (strlen(opts[i].flag) == len && strncmp(opts[i].flag, name, len) == 0)
            return &opts[i];
    return NULL;
}

/* Whether the option takes a value through a parser (outputs included);
 * the others are switches that only set a field. */
static int has_parser(const struct opt_spec *sp)
{
    return sp->parse || options_output[sp - options_table];
}

static int parse_value(const struct opt_spec *sp, struct ng_settings *s, const char *v,
                       const char **problem)
{
    const struct ng_output *o = options_output[sp - options_table];

    if (o)
        return ng_outputs_set(o, v, &s->outputs[o - ng_outputs], problem);
    return sp->parse(s, v, problem);
}

/* The short options: -h, and -j N or -jN.  *attached is the value glued
 * to the letter, or NULL. */
static const struct opt_spec *find_short(const char *arg, const char **attached)
{
    static const struct { char letter; const char *flag; int takes_value; } shorts[] = {
        { 'h', "help", 0 },
        { 'j', "jobs", 1 },
    };
    if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0')
        return NULL;
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++) {
        if (arg[1] != shorts[i].letter || (arg[2] && !shorts[i].takes_value))
            continue;
        *attached = arg[2] ? arg + 2 : NULL;
        return find_spec(shorts[i].flag, strlen(shorts[i].flag));
    }
    return NULL;
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

/* Values shown in messages are cleaned: a terminal escape in an argument
 * must not reach the terminal raw. */
static int bad_value(struct ng_err *err, const char *where, const char *value,
                     const char *problem)
{
    char *shown = ng_text_cleaned(value, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "%s='%s' %s", where, shown, problem);
    free(shown);
    return -1;
}

struct raw {
    const char *value;   /* last flag value; NULL if the flag was not given */
    int given;
    const char *all[NG_MAX_RUNS];   /* every value, for repeatable options */
    size_t n_all;
    int overflow;
};

/* Records the first problem only; scanning goes on so that the report
 * paths after a bad argument are still known. */
static void scan_problem(int *failed, struct ng_err *err, const char *fmt, const char *arg)
{
    if (*failed)
        return;
    char *shown = ng_text_cleaned(arg, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, fmt, shown);
    free(shown);
    *failed = 1;
}

/* "unknown option", with the nearest option's name when one is near. */
static void unknown_option(int *failed, struct ng_err *err, const char *a, const char *name,
                           size_t len)
{
    size_t n, best_d = SIZE_MAX;
    const struct opt_spec *opts = options(&n), *best = NULL;

    for (size_t i = 0; a[1] == '-' && i < n; i++) {
        size_t d = ng_text_distance(name, len, opts[i].flag, 2);
        if (d < best_d) {
            best_d = d;
            best = &opts[i];
        }
    }
    if (!best || !ng_text_near(best_d, len)) {
        scan_problem(failed, err, "unknown option '%s' (see --help)", a);
        return;
    }
    char fmt[128];
    snprintf(fmt, sizeof fmt, "unknown option '%%s': did you mean '--%s'? (see --help)",
             best->flag);
    scan_problem(failed, err, fmt, a);
}

/* Pass 1: argv into raw per-option values and operands. */
static int scan_argv(int argc, char **argv, struct raw *raw, const char **operands,
                     int *noperands, struct ng_err *err)
{
    int only_operands = 0, failed = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_operands || a[0] != '-' || a[1] == '\0') {
            /* "$BASE" of an unset variable: say so, not "unable to open ''"
             * (it keeps its place, so the reports name each side right) */
            if (a[0] == '\0') {
                if (!failed)
                    ng_err_set(err, "an operand is empty (expected a profile path)");
                failed = 1;
            }
            if (*noperands >= 2)
                scan_problem(&failed, err,
                             "too many operands: '%s' (expected BASELINE CURRENT)", a);
            else
                operands[(*noperands)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_operands = 1;
            continue;
        }
        const char *name = a + 2, *attached = NULL;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct opt_spec *sp = strncmp(a, "--", 2) == 0 ? find_spec(name, len)
                                                              : find_short(a, &attached);
        if (!sp) {
            unknown_option(&failed, err, a, name, len);
            continue;
        }
        if (a[1] != '-')
            eq = NULL;   /* a short option's value is never after '=' */
        struct raw *r = &raw[sp - options_table];
        if (sp->takes_value) {
            if (attached) {
                r->value = attached;
            } else if (eq) {
                r->value = eq + 1;
            } else if (i + 1 < argc) {
                r->value = argv[++i];
            } else {
                char flag[64];
                snprintf(flag, sizeof flag, "--%s", sp->flag);
                if (!failed)
                    ng_err_set(err, "option '%s' needs a value (%s)", flag, sp->meta);
                failed = 1;
                continue;
            }
        } else if (eq) {
            r->value = eq + 1;   /* --quiet=0 */
        }
        if (sp->takes_value >= REPEATABLE_PATHS) {
            if (r->n_all == NG_MAX_RUNS)
                r->overflow = 1;
            else
                r->all[r->n_all++] = r->value;
        }
        r->given = 1;
    }
    return failed ? -1 : 0;
}

/* A repeatable option: every flag value, or the variable split at ':'
 * (files), at line ends (patterns) or at commas and line ends (labels). */
static int apply_list(struct ng_settings *s, const struct opt_spec *sp, const struct raw *r,
                      const char *where, const char *env_value, struct ng_err *err, int ret)
{
    const char *problem = NULL;

    if (r->given) {
        if (r->overflow && ret == 0)
            return ng_err_set(err, "--%s is given more than %d times", sp->flag, NG_MAX_RUNS);
        for (size_t k = 0; k < r->n_all; k++)
            if (parse_value(sp, s, r->all[k], &problem) < 0 && ret == 0)
                ret = bad_value(err, where, r->all[k], problem);
        return ret;
    }
    /* the environment's own string must not be split in place: each piece
     * is a copy the settings own.  Labels (commas or newlines, as a YAML
     * block writes them) skip empty pieces. */
    int commas = sp->takes_value == REPEATABLE_COMMAS;
    const char *sep = commas ? ",\n" : sp->takes_value == REPEATABLE_LINES ? "\n" : ":";
    for (const char *p = env_value; ; ) {
        size_t n = strcspn(p, sep);
        const char *end = p[n] ? p + n : NULL;
        if (s->n_owned + 1 >= sizeof s->owned / sizeof s->owned[0])
            return ret == 0 ? ng_err_set(err, "%s lists too many values", where) : ret;
        if (n > 0 || !commas) {
            char *piece = ng_xstrndup(p, n);
            s->owned[s->n_owned++] = piece;
            if (parse_value(sp, s, piece, &problem) < 0 && ret == 0)
                ret = bad_value(err, where, env_value, problem);
        }
        if (!end)
            break;
        p = end + 1;
    }
    return ret;
}

/* Pass 2: each option from its flag, else its variable, else the default.
 * Every option is tried even after a failure, so the report paths are set
 * whenever they themselves are valid. */
static int apply(struct ng_settings *s, const struct raw *raw, struct ng_err *err)
{
    int ret = 0;
    size_t n;
    const struct opt_spec *opts = options(&n);

    for (size_t i = 0; i < n; i++) {
        const struct opt_spec *sp = &opts[i];
        const char *value = NULL, *problem = NULL;
        char where[80];

        if (raw[i].given) {
            if (!has_parser(sp)) {
                if (raw[i].value) {
                    if (ret == 0)
                        ret = ng_err_set(err, "option '--%s' takes no value", sp->flag);
                    continue;
                }
                *sp->field(s) = 1;
                continue;
            }
            value = raw[i].value ? raw[i].value : "1";   /* bare switch */
            snprintf(where, sizeof where, "--%s", sp->flag);
        } else if (sp->env && getenv(sp->env) && *getenv(sp->env)) {
            value = getenv(sp->env);
            snprintf(where, sizeof where, "%s", sp->env);
        } else {
            continue;
        }
        if (sp->takes_value >= REPEATABLE_PATHS) {
            ret = apply_list(s, sp, &raw[i], where, value, err, ret);
            continue;
        }
        if (parse_value(sp, s, value, &problem) < 0 && ret == 0)
            ret = bad_value(err, where, value, problem);
    }
    return ret;
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
    if (s->baseline_history && s->n_baselines > 0)
        return ng_err_set(err, "--baseline-history is the baseline: give no baseline profile "
                               "with it");
    return 0;
}

enum ng_cli_scope ng_cli_option_scope(const char *flag, int *values)
{
    const struct opt_spec *sp = find_spec(flag, strlen(flag));

    if (!sp)
        return NG_CLI_UNKNOWN;
    if (values)
        *values = sp->takes_value > 2 ? 2 : sp->takes_value;   /* a list either way */
    return has_parser(sp) ? sp->scope : NG_CLI_RUN;
}

/* The repeatable options' value counts, by parser. */
static const struct {
    parse_fn parse;
    size_t *(*count)(struct ng_settings *s);
} list_counts[] = {
    { p_baseline, c_baselines },
    { p_current, c_currents },
    { p_kernels, c_kernels },
    { p_exclude_kernels, c_exclude },
    { p_comm_kernels, c_comm },
    { p_accept, c_accept },
};

void ng_cli_clear_list(struct ng_settings *s, const char *flag)
{
    const struct opt_spec *sp = find_spec(flag, strlen(flag));

    for (size_t i = 0; sp && i < sizeof list_counts / sizeof list_counts[0]; i++)
        if (list_counts[i].parse == sp->parse)
            *list_counts[i].count(s) = 0;
}

int ng_cli_set_option(struct ng_settings *s, const char *flag, const char *value,
                      const char **problem)
{
    const struct opt_spec *sp = find_spec(flag, strlen(flag));

    if (!sp || !has_parser(sp)) {
        *problem = "is not an option";
        return -1;
    }
    return parse_value(sp, s, value, problem);
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

int ng_cli_parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err)
{
    struct raw raw[MAX_OPTIONS];
    const char *operands[2] = { NULL, NULL };
    int noperands = 0;
    struct ng_err scan_err;
    int scanned, applied;

    defaults(s);
    memset(raw, 0, sizeof raw);
    scanned = scan_argv(argc, argv, raw, operands, &noperands, &scan_err);
    applied = apply(s, raw, err);
    github_environment(s);
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
    if (s->no_cache) {
        s->cache.dir = NULL;
    } else if (!s->cache.dir && (s->cache.dir = ng_cache_default_dir(&s->cache.parent)) != NULL) {
        s->owned[s->n_owned++] = (char *)s->cache.dir;
    }
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
    size_t n;
    const struct opt_spec *opts = options(&n);
    for (int g = 0; g < NG_HELP_GROUPS; g++) {
        fprintf(out, "\n%s:\n", help_headings[g]);
        for (size_t i = 0; i < n; i++) {
            if (opts[i].group != (enum help_group)g)
                continue;
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", opts[i].flag, opts[i].meta ? " " : "",
                     opts[i].meta ? opts[i].meta : "");
            ng_help_option(out, left, opts[i].help, opts[i].env);
        }
    }
    fprintf(out, "\nexit status: 0 pass, 1 fail (regression), 2 error (bad usage, bad input,\n"
                 "nsys failure); with --manifest, the worst of its gates\n\nexamples:\n");
    for (size_t i = 0; i < sizeof help_examples / sizeof help_examples[0]; i++)
        fprintf(out, "  %s\n      %s\n", help_examples[i][0], help_examples[i][1]);
}
