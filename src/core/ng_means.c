#include "core/ng_means.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_stats.h"
#include "util/ng_util.h"

/* ---- clusters ---- */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}


/* The cut after sorted index i splits two clusters: how far apart, in log. */
static double log_gap(const double *s, size_t i)
{
    return s[i] > 0 && s[i + 1] > 0 ? log(s[i + 1] / s[i]) : 0;
}

/* The largest gaps past NG_CLUSTER_GAP (at most NG_CLUSTERS_MAX - 1), as
 * the sorted index each cluster starts at; returns how many clusters. */
static size_t cut(const double *s, size_t n, size_t *start)
{
    size_t k = 1;
    start[0] = 0;
    for (;;) {
        size_t best = 0;
        double widest = log(NG_CLUSTER_GAP);
        for (size_t i = 0; i + 1 < n; i++) {
            int taken = 0;
            for (size_t c = 0; c < k; c++)
                taken |= start[c] == i + 1;
            if (!taken && log_gap(s, i) > widest) {
                widest = log_gap(s, i);
                best = i + 1;
            }
        }
        if (!best || k == NG_CLUSTERS_MAX)
            break;
        start[k++] = best;
    }
    ng_sort(start, k, sizeof *start, cmp_size);
    return k;
}

/* A cluster too small to be a kind of epoch (under max(2, n/20) epochs:
 * an outlier) joins the neighbour it is nearer to (the smaller gap), the
 * smallest first, until none is. */
static size_t merge_small(const double *s, size_t n, size_t *start, size_t k)
{
    size_t least = n / 20 > 2 ? n / 20 : 2;
    while (k > 1) {
        size_t worst = 0, fewest = SIZE_MAX;
        for (size_t c = 0; c < k; c++) {
            size_t size = (c + 1 < k ? start[c + 1] : n) - start[c];
            if (size < fewest) {
                fewest = size;
                worst = c;
            }
        }
        if (fewest >= least)
            break;
        /* the cut that goes: before it (it joins the left) or after it */
        size_t drop = worst == 0 ? 1 : worst + 1 == k ? worst
                    : log_gap(s, start[worst] - 1) <= log_gap(s, start[worst + 1] - 1) ? worst
                                                                                     : worst + 1;
        memmove(start + drop, start + drop + 1, (k - drop - 1) * sizeof *start);
        k--;
    }
    return k;
}

size_t ng_means_clusters(const double *x, size_t n, struct ng_cluster *out)
{
    size_t start[NG_CLUSTERS_MAX];

    if (n == 0)
        return 0;
    double *s = ng_xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    ng_sort(s, n, sizeof *s, ng_cmp_double);
    size_t k = merge_small(s, n, start, cut(s, n, start));
    for (size_t c = 0; c < k; c++) {
        size_t a = start[c], b = c + 1 < k ? start[c + 1] : n, m = b - a;
        out[c].n = m;
        out[c].min = s[a];
        out[c].max = s[b - 1];
        out[c].median = m % 2 ? s[a + m / 2] : (s[a + m / 2 - 1] + s[a + m / 2]) / 2.0;
    }
    free(s);
    return k;
}

/* ---- distributions ---- */

/* The t (or, df infinite, normal) quantile with upper tail q, by bisection. */
static double t_quantile_upper(double q, double df)
{
    double lo = 0, hi = 1;
    while (ng_stats_t_upper(hi, df) > q && hi < 1e6)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (ng_stats_t_upper(mid, df) > q)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- the comparison ---- */

struct stratum {
    size_t n[2];
    double sum[2], dev[2];   /* sum of values, then of squared deviations */
};

/* The baseline cluster v belongs to: the one it lies in or is nearest to
 * in log (current epochs that grew 3x still belong to their kind). */
static size_t stratum_of(double v, const struct ng_cluster *c, size_t k)
{
    size_t best = 0;
    double nearest = INFINITY;
    for (size_t i = 0; i < k; i++) {
        double d = v <= 0 ? (c[i].min <= 0 ? 0 : INFINITY)
                 : v < c[i].min ? log(c[i].min / v) : v > c[i].max ? log(v / c[i].max) : 0;
        if (d < nearest) {
            nearest = d;
            best = i;
        }
    }
    return best;
}

static void fill(struct stratum *st, size_t k, const struct ng_cluster *c, const double *x,
                 size_t n, int side)
{
    for (size_t i = 0; i < n; i++) {
        struct stratum *s = &st[k > 1 ? stratum_of(x[i], c, k) : 0];
        s->n[side]++;
        s->sum[side] += x[i];
    }
    for (size_t i = 0; i < n; i++) {
        struct stratum *s = &st[k > 1 ? stratum_of(x[i], c, k) : 0];
        double d = x[i] - s->sum[side] / (double)s->n[side];
        s->dev[side] += d * d;
    }
}

/* Per side: the variance of its mean, relative to the mean squared, as the
 * sum of each stratum's part (the stratum's share of the epochs squared
 * times its variance over its count); the parts go into df too. */
static void spread(const struct stratum *st, size_t k, const size_t n[2], const double mean[2],
                   double rel_var[2], double *df_num, double *df_den)
{
    double total = 0, den = 0;
    for (int side = 0; side < 2; side++) {
        rel_var[side] = 0;
        for (size_t i = 0; i < k; i++) {
            double w = (double)st[i].n[side] / (double)n[side];
            double var = st[i].dev[side] / (double)(st[i].n[side] - 1);
            double part = w * w * var / (double)st[i].n[side] / (mean[side] * mean[side]);
            rel_var[side] += part;
            den += part * part / (double)(st[i].n[side] - 1);
        }
        total += rel_var[side];
    }
    *df_num = total * total;
    *df_den = den;
}

/* z of one-sided alpha plus z of power 0.8 (the usual sample-size
 * formula's constant), squared. */
static double z_sum_squared(double alpha)
{
    double z = t_quantile_upper(alpha, INFINITY) + t_quantile_upper(0.2, INFINITY);
    return z * z;
}

void ng_means_compare(const double *x, size_t nx, const double *y, size_t ny, double threshold,
                      double alpha, struct ng_means *out)
{
    struct ng_cluster c[NG_CLUSTERS_MAX];
    size_t k = ng_means_clusters(x, nx, c);
    ng_means_compare_in(x, nx, y, ny, c, k, threshold, alpha, out);
}

void ng_means_compare_in(const double *x, size_t nx, const double *y, size_t ny,
                         const struct ng_cluster *c, size_t k, double threshold, double alpha,
                         struct ng_means *out)
{
    struct stratum st[NG_CLUSTERS_MAX];
    size_t n[2] = { nx, ny };
    double mean[2] = { 0, 0 };

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nx; i++)
        mean[0] += x[i];
    for (size_t i = 0; i < ny; i++)
        mean[1] += y[i];
    mean[0] /= (double)(nx ? nx : 1);
    mean[1] /= (double)(ny ? ny : 1);
    out->ratio = mean[1] / mean[0];
    out->ci_lo = out->ci_hi = NAN;
    out->strata = 1;
    if (nx < 2 || ny < 2 || !(mean[0] > 0) || !(mean[1] > 0))
        return;
    if (k < 1)
        k = 1;
    for (int tries = 0; tries < 2; tries++) {
        memset(st, 0, sizeof st);
        fill(st, k, c, x, nx, 0);
        fill(st, k, c, y, ny, 1);
        int thin = 0;
        for (size_t i = 0; i < k; i++)
            thin |= st[i].n[0] < 2 || st[i].n[1] < 2;
        if (!thin)
            break;
        k = 1;   /* a kind of epoch one side hardly has: no strata */
    }
    double rel_var[2], num, den;
    spread(st, k, n, mean, rel_var, &num, &den);
    out->has_test = 1;
    out->strata = k;
    out->df = den > 0 ? num / den : INFINITY;
    double se = sqrt(rel_var[0] + rel_var[1]), lr = log(out->ratio);
    if (se > 0) {
        out->p_value = ng_stats_t_upper(lr / se, out->df);
        double q = t_quantile_upper(0.025, out->df);
        out->ci_lo = out->ratio * exp(-q * se);
        out->ci_hi = out->ratio * exp(q * se);
    } else {   /* every epoch of a kind took the same time */
        out->p_value = out->ratio > 1 ? 0 : 1;
        out->ci_lo = out->ci_hi = out->ratio;
    }
    if (threshold > 1 && alpha > 0 && alpha < 1) {
        double cv2 = (double)nx * rel_var[0] + (double)ny * rel_var[1];
        double lt = log(threshold);
        out->epochs_needed = ceil(z_sum_squared(alpha) * cv2 / (lt * lt));
        if (out->epochs_needed < 2)
            out->epochs_needed = 2;
    }
}

/* ---- Holm ---- */

struct ranked {
    double p;
    size_t at;
};

static int by_p(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p ? 1 : x->at < y->at ? -1 : x->at > y->at;
}

void ng_means_holm(double *p, size_t n, size_t m)
{
    struct ranked *r = ng_xmalloc((n ? n : 1) * sizeof *r);
    double running = 0;

    if (m < n)
        m = n;
    for (size_t i = 0; i < n; i++)
        r[i] = (struct ranked){ p[i], i };
    ng_sort(r, n, sizeof *r, by_p);
    for (size_t j = 0; j < n; j++) {
        double adj = (double)(m - j) * r[j].p;
        if (adj > 1)
            adj = 1;
        if (adj > running)
            running = adj;
        p[r[j].at] = running;
    }
    free(r);
}
