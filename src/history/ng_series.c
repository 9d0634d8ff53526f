#include "history/ng_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_threads.h"
#include "util/ng_util.h"

int ng_series_check_acks(const struct ng_accept *a, const char *gate,
                         const char *const *commits, size_t n, struct ng_err *err)
{
    for (size_t k = 0; k < a->n; k++) {
        const struct ng_ack *ack = &a->acks[k];
        size_t len = strlen(ack->commit);
        const char *first = NULL;
        if (strcmp(ack->gate, gate) != 0)
            continue;
        for (size_t r = 0; r < n; r++) {
            const char *c = commits[r];
            if (!c || strncmp(c, ack->commit, len) != 0)
                continue;
            if (first && strcmp(first, c) != 0)
                return ng_err_set(err, "--accept '%s' line %zu: commit '%s' names more than one "
                                       "commit of '%s' (%.12s, %.12s); give more of it",
                                  ack->path, ack->line, ack->commit, gate, first, c);
            first = c;
        }
    }
    return 0;
}

int ng_series_judge(const char *gate, const double *x, const char *const *commits, size_t n,
                    const struct ng_cp_opts *o, const struct ng_accept *a, time_t now,
                    struct ng_series_change **out, size_t *n_out, struct ng_err *err)
{
    *out = NULL;
    *n_out = 0;
    if (ng_series_check_acks(a, gate, commits, n, err) < 0)
        return -1;
    struct ng_cp *cp = ng_xmalloc((n / NG_CP_MIN_SIDE + 2) * sizeof *cp);
    size_t found = ng_cp_detect(x, n, o, cp);
    struct ng_series_change *c = found ? ng_xcalloc(found, sizeof *c) : NULL;

    for (size_t k = 0; k < found; k++) {
        c[k].cp = cp[k];
        c[k].regression = cp[k].magnitude > 1;
        c[k].ack = ng_accept_find(a, gate, commits[cp[k].at], now, &c[k].expired);
    }
    if (found && c[found - 1].regression && !c[found - 1].ack)
        c[found - 1].standing = 1;
    free(cp);
    *out = c;
    *n_out = found;
    return 0;
}

struct judging {
    struct ng_series_job *jobs;
    const struct ng_cp_opts *o;
    const struct ng_accept *a;
    time_t now;
};

static int judge_job(void *ctx, size_t i, struct ng_err *err)
{
    struct judging *jg = ctx;
    struct ng_series_job *j = &jg->jobs[i];
    return ng_series_judge(j->gate, j->x, j->commits, j->n, jg->o, jg->a, jg->now, &j->changes,
                           &j->n_changes, err);
}

int ng_series_judge_all(struct ng_series_job *jobs, size_t n, long workers,
                        const struct ng_cp_opts *o, const struct ng_accept *a, time_t now,
                        struct ng_err *err)
{
    struct judging jg = { jobs, o, a, now };
    return ng_threads_run(workers, n, judge_job, &jg, err);
}

int ng_series_standing(const struct ng_series_change *c, size_t n_c)
{
    return n_c > 0 && c[n_c - 1].standing;
}

static int unacknowledged_regression(const struct ng_series_change *c)
{
    return c->regression && !c->ack;
}

size_t ng_series_baseline(const struct ng_series_change *c, size_t n_c, size_t n, size_t *from,
                          size_t *to)
{
    size_t j = n_c;   /* the segment opened by c[j - 1]; 0: the first */

    while (j > 0 && unacknowledged_regression(&c[j - 1]))
        j--;
    *from = j > 0 ? c[j - 1].cp.at : 0;
    *to = j < n_c ? c[j].cp.at : n;
    return j;
}

/* The failing runs at the end of [from, to), which a change point cannot
 * tell yet: fewer than the window, with runs before them in the segment
 * (after an acknowledged change whose runs all failed, those runs are what
 * was acknowledged). */
static size_t held_out(const unsigned char *failed, size_t from, size_t to, size_t size)
{
    size_t k = 0;
    while (to - k > from && failed[to - k - 1])
        k++;
    return k < size && to - k > from ? k : 0;
}

static void hinge(const double *x, size_t n, struct ng_series_window *out);

/* Theil-Sen and Mann-Kendall cost the square of the runs: a segment longer
 * than this is judged on its latest runs. */
#define CREEP_RUNS_MAX 2000

void ng_series_window(const struct ng_series_change *c, size_t n_c, const double *x,
                      const unsigned char *failed, size_t n, size_t size,
                      struct ng_series_window *out)
{
    size_t from, to;
    memset(out, 0, sizeof *out);
    out->ends = ng_series_baseline(c, n_c, n, &from, &to);
    out->segment_from = from;
    out->segment_to = to;
    if (to == n)
        to -= out->held_out = held_out(failed, from, to, size);
    out->to = to;
    out->from = to - from > size ? to - size : from;
    if (to - from <= size)
        return;   /* the whole segment is the window: anchored already */
    size_t first = out->segment_to - out->segment_from > CREEP_RUNS_MAX
                   ? out->segment_to - CREEP_RUNS_MAX : out->segment_from;
    ng_stats_trend(x + first, out->segment_to - first, &out->trend);
    out->trend_from = first;
    if (out->trend.p_value <= NG_SERIES_CREEP_P && out->trend.slope > 0) {
        out->crept = 1;
        out->from = first;
        out->to = first + size;
        hinge(x + first, out->segment_to - first, out);
    }
}

/* The least-squares fit of level + rise x max(0, t - bend) to x[0..n), the
 * bend where the sum of squares is least (the first of equals): where a
 * creep began, whether after steady runs or with the first. */
static void hinge(const double *x, size_t n, struct ng_series_window *out)
{
    double best = INFINITY, mean_x = 0;
    for (size_t t = 0; t < n; t++)
        mean_x += x[t] / (double)n;
    out->level = mean_x;
    out->rise = 0;
    out->bend = 0;
    for (size_t bend = 0; bend + 2 < n; bend++) {
        double mean_h = 0, shh = 0, shx = 0, sse = 0;
        for (size_t t = bend + 1; t < n; t++)
            mean_h += (double)(t - bend) / (double)n;
        for (size_t t = 0; t < n; t++) {
            double h = t > bend ? (double)(t - bend) - mean_h : -mean_h;
            shh += h * h;
            shx += h * (x[t] - mean_x);
        }
        double rise = shh > 0 ? shx / shh : 0, level = mean_x - rise * mean_h;
        for (size_t t = 0; t < n; t++) {
            double e = x[t] - level - rise * (t > bend ? (double)(t - bend) : 0);
            sse += e * e;
        }
        if (sse < best) {
            best = sse;
            out->level = level;
            out->rise = rise;
            out->bend = bend;
        }
    }
}

double ng_series_creep_scale(const struct ng_series_window *w, size_t run)
{
    if (!w->crept || run < w->trend_from)
        return 1;
    size_t t = run - w->trend_from;
    double at = w->level + w->rise * (t > w->bend ? (double)(t - w->bend) : 0);
    return w->level > 0 && at > 0 && w->rise > 0 ? w->level / at : 1;
}

double ng_series_crept_ratio(const struct ng_series_window *w)
{
    double last = (double)(w->segment_to - w->trend_from - 1);
    double start = w->trend.intercept;
    return start > 0 ? (start + w->trend.slope * last) / start : NAN;
}
