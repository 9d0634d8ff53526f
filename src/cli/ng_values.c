#include "cli/ng_values.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ng_settings.h"
#include "core/ng_context.h"
#include "core/ng_metric.h"
#include "core/ng_profile.h"
#include "util/ng_text.h"

/* ---- thresholds ---- */

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

int ng_values_parse_threshold(const char *text, double *out, const char **problem)
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
    if (n == 0 || n >= sizeof buf || !ng_options_is_decimal(text, n)) {
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

int ng_values_threshold(void *target, struct ng_option_value *v)
{
    return ng_values_parse_threshold(v->text, ng_options_field(target, v), &v->problem);
}

/* ---- numbers ---- */

int ng_values_epochs(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;

    s->epochs_given = 1;
    return ng_options_parse_positive(v->text, ng_options_field(target, v), &v->problem);
}

/* A non-negative decimal number of milliseconds. */
int ng_values_ms(void *target, struct ng_option_value *v)
{
    if (!ng_options_is_decimal(v->text, strlen(v->text))) {
        v->problem = "is not a number of milliseconds (e.g. 0.5)";
        return -1;
    }
    *(double *)ng_options_field(target, v) = strtod(v->text, NULL);
    return 0;
}

int ng_values_seconds(void *target, struct ng_option_value *v)
{
    if (!ng_options_is_decimal(v->text, strlen(v->text)) || strtod(v->text, NULL) <= 0) {
        v->problem = "is not a positive number of seconds";
        return -1;
    }
    *(double *)ng_options_field(target, v) = strtod(v->text, NULL);
    return 0;
}

/* A significance level: 0 turns the test off, else 0 < alpha < 1. */
int ng_values_alpha(void *target, struct ng_option_value *v)
{
    double a;

    if (!ng_options_is_decimal(v->text, strlen(v->text)) || (a = strtod(v->text, NULL)) >= 1.0) {
        v->problem = "is not a significance level (0 to turn the test off, or between 0 and 1, "
                     "e.g. 0.05)";
        return -1;
    }
    *(double *)ng_options_field(target, v) = a;
    return 0;
}

/* At most NG_MAX_RUNS: the runs become the baseline's profiles. */
int ng_values_runs(void *target, struct ng_option_value *v)
{
    long *runs = ng_options_field(target, v);

    if (ng_options_parse_positive(v->text, runs, &v->problem) < 0)
        return -1;
    if (*runs > NG_MAX_RUNS) {
        v->problem = "is more than 64 runs";
        return -1;
    }
    return 0;
}

int ng_values_cache_mb(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    long mb;

    if (ng_options_parse_count(v->text, &mb, &v->problem) < 0)
        return -1;
    s->cache.max_bytes = (uint64_t)mb << 20;
    return 0;
}

int ng_values_cache_days(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    long days;

    if (ng_options_parse_count(v->text, &days, &v->problem) < 0)
        return -1;
    s->cache.max_age_days = (double)days;
    return 0;
}

/* ---- words ---- */

int ng_values_name(void *target, struct ng_option_value *v)
{
    for (const char *p = v->text; *p; p++) {
        if (*p != ' ' && *p != '\t') {
            *(const char **)ng_options_field(target, v) = v->text;
            return 0;
        }
    }
    v->problem = "is empty";
    return -1;
}

/* The choices are the metric table's names. */
int ng_values_metric(void *target, struct ng_option_value *v)
{
    static _Thread_local char msg[160];
    struct ng_settings *s = target;
    const struct ng_metric_info *m = ng_metric_find(v->text);
    char choices[96];

    if (m) {
        s->compare.metric = m->id;
        return 0;
    }
    ng_metric_choices(choices, sizeof choices);
    snprintf(msg, sizeof msg, "is not a metric (expected one of: %s)", choices);
    v->problem = msg;
    return -1;
}

int ng_values_work(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;

    s->compare.work_given = 1;
    return ng_work_parse(v->text, &s->compare.work, &v->problem);
}

int ng_values_kernel_names(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;

    if (strcmp(v->text, "full") != 0 && strcmp(v->text, "base") != 0) {
        v->problem = "is not a kind of kernel name (expected full or base)";
        return -1;
    }
    s->compare.policy.base_names = strcmp(v->text, "base") == 0;
    return 0;
}

int ng_values_history_since(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;

    if (ng_parse_utc(v->text, &s->history_since) < 0) {
        v->problem = "is not a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SSZ in UTC)";
        return -1;
    }
    s->has_history_since = 1;
    return 0;
}

/* ---- lists ---- */

int ng_values_baseline(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    return ng_options_push(v, s->baselines, &s->n_baselines, NG_MAX_RUNS,
                           "is one run too many (at most 64 per side)");
}

int ng_values_current(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    return ng_options_push(v, s->currents, &s->n_currents, NG_MAX_RUNS,
                           "is one run too many (at most 64 per side)");
}

/* Patterns are compiled, and refused if bad, by the gate. */
#define PATTERNS_FULL "is one pattern too many (at most 16)"

int ng_values_kernels(void *target, struct ng_option_value *v)
{
    struct ng_policy *p = &((struct ng_settings *)target)->compare.policy;
    return ng_options_push(v, p->kernels, &p->n_kernels, NG_POLICY_PATTERNS, PATTERNS_FULL);
}

int ng_values_exclude_kernels(void *target, struct ng_option_value *v)
{
    struct ng_policy *p = &((struct ng_settings *)target)->compare.policy;
    return ng_options_push(v, p->exclude, &p->n_exclude, NG_POLICY_PATTERNS, PATTERNS_FULL);
}

int ng_values_comm_kernels(void *target, struct ng_option_value *v)
{
    struct ng_policy *p = &((struct ng_settings *)target)->compare.policy;
    return ng_options_push(v, p->comm, &p->n_comm, NG_POLICY_PATTERNS, PATTERNS_FULL);
}

int ng_values_label(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    size_t key_len;

    if (ng_context_label_check(v->text, &key_len, &v->problem) < 0)
        return -1;
    return ng_options_push(v, s->labels, &s->n_labels, NG_MAX_RUNS,
                           "is one label too many (at most 64)");
}

int ng_values_history_match(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;
    size_t key_len;

    if (ng_context_label_check(v->text, &key_len, &v->problem) < 0)
        return -1;
    if (!v->text[key_len + 1])
        return v->problem = "has no VALUE to match", -1;
    return ng_options_push(v, s->history_match, &s->n_history_match, NG_MAX_RUNS,
                           "is one match too many (at most 64)");
}

int ng_values_accept(void *target, struct ng_option_value *v)
{
    struct ng_settings *s = target;

    if (!*v->text)
        return v->problem = "is not a file", -1;
    return ng_options_push(v, s->accept, &s->n_accept, NG_MAX_RUNS,
                           "is one file too many (at most 64)");
}
