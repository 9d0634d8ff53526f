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

/* The sorted epochs split at the largest gaps, the small clusters merged
 * into their neighbours or (kinds) not. */
static size_t groups(const double *x, size_t n, struct ng_cluster *out, int merge)
{
    size_t start[NG_CLUSTERS_MAX];

    if (n == 0)
        return 0;
    double *s = ng_xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    ng_sort(s, n, sizeof *s, ng_cmp_double);
    size_t k = cut(s, n, start);
    if (merge)
        k = merge_small(s, n, start, k);
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

size_t ng_means_clusters(const double *x, size_t n, struct ng_cluster *out)
{
    return groups(x, n, out, 1);
}

/* The same without the merging: every run of epochs set apart by a gap
 * past NG_CLUSTER_GAP is a kind, a lone epoch too (what the test weighs
 * when the current has each). */
static size_t kinds_of(const double *x, size_t n, struct ng_cluster *out)
{
    return groups(x, n, out, 0);
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

/* ---- dependence between neighbouring epochs ---- */

/* g(rho, L) = 1 + 2 sum_{k<L} (1 - k/L) rho^k: the variance of the mean
 * of L epochs of an AR(1) series over that of L independent ones. */
static double ar_g(double rho, double L)
{
    double g = 1, pk = 1;
    for (double k = 1; k < L; k++) {
        pk *= rho;
        if (pk < 1e-12)
            break;
        g += 2 * (1 - k / L) * pk;
    }
    return g;
}

/* What the variance of a run's mean, estimated as s^2 / L, must be
 * multiplied by: g for the mean, and (L - 1) / (L - g) since s^2 itself
 * comes out low when neighbours move together. */
static double ar_inflation(double rho, double L)
{
    if (rho <= 0 || L < 2)
        return 1;
    double g = ar_g(rho, L);
    return g * (L - 1) / (L - g);
}

/* The mean length of a side's runs. */
static double run_length(const struct ng_means_side *s)
{
    return s->runs && s->n_runs ? (double)s->n / (double)s->n_runs : (double)s->n;
}

/* Lag-1 sums of a side's residuals (value minus its stratum's mean):
 * pairs within a run and within a stratum (neighbours of two kinds say
 * nothing of how one kind drifts), and the pairs counted. */
static void lag1(const struct ng_means_side *s, const double *resid, const size_t *at,
                 double *num, double *den, double *pairs)
{
    size_t from = 0, runs = s->runs ? s->n_runs : 1;
    for (size_t r = 0; r < runs; r++) {
        size_t len = s->runs ? s->runs[r] : s->n;
        for (size_t i = from; i < from + len; i++) {
            *den += resid[i] * resid[i];
            if (i + 1 < from + len && at[i] == at[i + 1]) {
                *num += resid[i] * resid[i + 1];
                *pairs += 1;
            }
        }
        from += len;
    }
}

/* The lag-1 autocorrelation of both sides' residuals, r, when it is
 * evidence of dependence: past NG_MEANS_AR_Z standard errors (1 / sqrt of
 * the pairs) above what independent epochs show with their mean taken out
 * (-1 / L, L epochs of a kind in a run).  Then taken back to the rho whose
 * series shows r on average: a short series shows far less than its rho
 * (E r = rho - (1 + 4 rho) / L: 0.27 for 0.8 at 8 epochs), so
 * rho = (L r + 1) / (L - 4), in [0, NG_MEANS_RHO_MAX].  Without the
 * evidence, 0: every unchanged pair would pay for the noise of r in a
 * wider interval.  Negative dependence is taken as none: it would only
 * shrink the variance. */
static double autocorrelation(const struct ng_means_side *b, const double *rb, const size_t *ab,
                              const struct ng_means_side *c, const double *rc, const size_t *ac,
                              size_t k)
{
    double num = 0, den = 0, pairs = 0;
    lag1(b, rb, ab, &num, &den, &pairs);
    lag1(c, rc, ac, &num, &den, &pairs);
    /* the epochs of one kind in one run, on average */
    double L = (run_length(b) + run_length(c)) / 2 / (double)k;
    if (!(den > 0) || L < NG_MEANS_AR_EPOCHS || pairs < 3)
        return 0;
    double r = num / den * ((double)(b->n + c->n) / pairs);
    if ((r + 1 / L) * sqrt(pairs) < NG_MEANS_AR_Z)
        return 0;
    double rho = (L * r + 1) / (L - 4);
    return rho < 0 ? 0 : rho > NG_MEANS_RHO_MAX ? NG_MEANS_RHO_MAX : rho;
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

/* Each epoch's stratum (in at[]), the strata's counts, sums and squared
 * deviations, and each epoch's residual from its stratum's mean. */
static void fill(struct stratum *st, size_t k, const struct ng_cluster *c,
                 const struct ng_means_side *s, int side, size_t *at, double *resid)
{
    for (size_t i = 0; i < s->n; i++) {
        at[i] = k > 1 ? stratum_of(s->x[i], c, k) : 0;
        st[at[i]].n[side]++;
        st[at[i]].sum[side] += s->x[i];
    }
    for (size_t i = 0; i < s->n; i++) {
        resid[i] = s->x[i] - st[at[i]].sum[side] / (double)st[at[i]].n[side];
        st[at[i]].dev[side] += resid[i] * resid[i];
    }
}

/* z of one-sided alpha plus z of power 0.8 (the usual sample-size
 * formula's constant), squared. */
static double z_sum_squared(double alpha)
{
    double z = t_quantile_upper(alpha, INFINITY) + t_quantile_upper(0.2, INFINITY);
    return z * z;
}

/* The degrees of freedom of n epochs' variance when dependence makes an
 * epoch worth 1 / f of an independent one. */
static double dof(double n, double f)
{
    return n / f - 1 < 1 ? 1 : n / f - 1;
}

/* The test and the interval of the log ratio from its two parts (each a
 * side's variance of its log figure) and their degrees of freedom. */
static void t_test(struct ng_means *m, const double var[2], const double df[2])
{
    double se2 = var[0] + var[1], den = 0;
    for (int side = 0; side < 2; side++)
        if (var[side] > 0)
            den += var[side] * var[side] / df[side];
    m->has_test = 1;
    m->df = den > 0 ? se2 * se2 / den : INFINITY;
    double se = sqrt(se2), lr = log(m->ratio);
    if (se > 0) {
        m->p_value = ng_stats_t_upper(lr / se, m->df);
        double q = t_quantile_upper(0.025, m->df);
        m->ci_lo = m->ratio * exp(-q * se);
        m->ci_hi = m->ratio * exp(q * se);
    } else {   /* every epoch of a kind took the same time */
        m->p_value = m->ratio > 1 ? 0 : 1;
        m->ci_lo = m->ci_hi = m->ratio;
    }
}

/* The counts of the kinds on the two sides: did the mix change? */
static double mix_test(const struct stratum *st, size_t k)
{
    if (k == 2)
        return ng_stats_fisher_2x2(st[0].n[0], st[1].n[0], st[0].n[1], st[1].n[1]);
    double n[2] = { 0, 0 }, chi2 = 0;
    for (size_t i = 0; i < k; i++)
        for (int side = 0; side < 2; side++)
            n[side] += (double)st[i].n[side];
    for (size_t i = 0; i < k; i++) {
        double kind = (double)(st[i].n[0] + st[i].n[1]);
        for (int side = 0; side < 2; side++) {
            double e = kind * n[side] / (n[0] + n[1]), d = (double)st[i].n[side] - e;
            chi2 += d * d / e;
        }
    }
    return ng_stats_chi2_upper(chi2, (double)(k - 1));
}

static double side_mean(const struct ng_means_side *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->x[i];
    return sum / (double)(s->n ? s->n : 1);
}

void ng_means_compare(const double *x, size_t nx, const double *y, size_t ny, double threshold,
                      double alpha, struct ng_means *out)
{
    struct ng_means_side b = { x, nx, NULL, 0 }, cur = { y, ny, NULL, 0 };
    ng_means_compare_in(&b, &cur, threshold, alpha, out);
}

static void begin(struct ng_means *out, const struct ng_means_side *b,
                  const struct ng_means_side *c)
{
    memset(out, 0, sizeof *out);
    out->figure[0] = side_mean(b);
    out->figure[1] = side_mean(c);
    out->ratio = out->raw_ratio = out->figure[1] / out->figure[0];
    out->ci_lo = out->ci_hi = NAN;
    out->strata = 1;
    out->inflation = 1;
    out->mix_p = NAN;
}

/* The relative variance within the cells of two or more epochs, pooled
 * over the kinds and sides (from each cell's squared deviations dev and
 * mean), and its degrees of freedom: the spread a cell of one epoch is
 * given. */
struct pooled {
    double rv, df;
};

static struct pooled pooled_of(double (*dev)[2], double (*mean)[2],
                               const struct stratum *st, size_t k)
{
    struct pooled p = { 0, 0 };
    for (size_t i = 0; i < k; i++)
        for (int side = 0; side < 2; side++)
            if (st[i].n[side] >= 2 && mean[i][side] != 0) {
                p.rv += dev[i][side] / (mean[i][side] * mean[i][side]);
                p.df += (double)(st[i].n[side] - 1);
            }
    p.rv = p.df > 0 ? p.rv / p.df : 0;
    return p;
}

/* A cell's variance of its mean and that variance's degrees of freedom,
 * dependence allowed for (f). */
static double cell_var(double dev, double n, double mean, struct pooled p, double f, double *df)
{
    if (n >= 2) {
        *df = dof(n, f);
        return dev / (n - 1) / n * f;
    }
    *df = p.df / f < 1 ? 1 : p.df / f;
    return p.rv * mean * mean * f;
}

/* Each side's variance of its weighted figure, the sum over the kinds of
 * w^2 x the cell's variance of its mean (cell_var(), the spread pooled
 * over the cells for a cell of one), and its Welch-Satterthwaite degrees
 * of freedom; f: each side's inflation for dependence.  One mechanism for
 * the means and their logs (mean 1: a log's spread is absolute). */
static void kinds_variance(double (*dev)[2], double (*mean)[2], const struct stratum *st,
                           size_t k, const double *w, const double f[2], double var[2],
                           double df[2])
{
    struct pooled pool = pooled_of(dev, mean, st, k);
    for (int side = 0; side < 2; side++) {
        double v = 0, den = 0;
        for (size_t i = 0; i < k; i++) {
            if (w[i] == 0)
                continue;   /* a kind the current lacks */
            double dfi, part = w[i] * w[i] * cell_var(dev[i][side], (double)st[i].n[side],
                                                      mean[i][side], pool, f[side], &dfi);
            v += part;
            den += part * part / dfi;
        }
        var[side] = v;
        df[side] = den > 0 ? v * v / den : INFINITY;
    }
}

/* The strata the test takes: every kind of the baseline (its epochs split
 * at each gap past 2x, a lone epoch too: with few epochs a kind the
 * baseline has once must not be mixed into its neighbour, where the mix
 * would move inside one stratum), into *kinds.  A kind the current lacks
 * is left out of both figures (w 0: it cannot be weighed; the test of the
 * mix still counts it), and a cell of one epoch takes its spread from
 * the other cells (pooled()).  One stratum when there is one kind, or no
 * cell has the two epochs a spread needs. */
static size_t usable_strata(struct stratum *st, const struct ng_means_side *b,
                            const struct ng_means_side *cur, size_t *at[2], double *resid[2],
                            struct ng_cluster *kinds, double *w)
{
    size_t k = kinds_of(b->x, b->n, kinds);
    for (int tries = 0; tries < 2; tries++, k = 1) {
        memset(st, 0, NG_CLUSTERS_MAX * sizeof *st);
        fill(st, k, kinds, b, 0, at[0], resid[0]);
        fill(st, k, kinds, cur, 1, at[1], resid[1]);
        double kept = 0;
        int spread = 0;
        for (size_t i = 0; i < k; i++)
            if (st[i].n[1] > 0) {
                kept += (double)st[i].n[0];
                spread |= st[i].n[0] >= 2 || st[i].n[1] >= 2;
            }
        if (k > 1 && !spread)
            continue;
        for (size_t i = 0; i < k; i++)
            w[i] = st[i].n[1] > 0 ? (double)st[i].n[0] / kept : 0;
        break;
    }
    return k;
}

/* The standardized third moment of both sides' epochs about each side's
 * own mean, relative to it: about the side's mean, not each kind's, since
 * a lone slow epoch is a kind of its own and would hide the tail. */
static double skewness(const struct ng_means_side *const sides[2])
{
    double m2 = 0, m3 = 0, n = 0;
    for (int side = 0; side < 2; side++) {
        double mean = side_mean(sides[side]);
        for (size_t i = 0; i < sides[side]->n; i++) {
            double e = sides[side]->x[i] / mean - 1;
            m2 += e * e;
            m3 += e * e * e;
            n += 1;
        }
    }
    return m2 > 0 ? (m3 / n) / pow(m2 / n, 1.5) : 0;
}

/* The same test on the logs of the epochs (the kinds weighed as in the
 * comparison): the one-sided p that the current's weighted mean log is
 * larger; 0 (no say) when an epoch is not positive. */
static double log_test(const struct ng_means_side *const sides[2], size_t *const at[2],
                       const struct stratum *st, size_t k, const double *w, const double f[2])
{
    double var[2], df[2], level[2] = { 0, 0 };
    double sum[NG_CLUSTERS_MAX][2] = { { 0 } }, dev[NG_CLUSTERS_MAX][2] = { { 0 } };
    double one[NG_CLUSTERS_MAX][2];
    for (int side = 0; side < 2; side++) {
        const struct ng_means_side *s = sides[side];
        for (size_t i = 0; i < s->n; i++) {
            if (!(s->x[i] > 0))
                return 0;
            sum[at[side][i]][side] += log(s->x[i]);
        }
        for (size_t i = 0; i < s->n; i++) {
            size_t c = at[side][i];
            double d = log(s->x[i]) - sum[c][side] / (double)st[c].n[side];
            dev[c][side] += d * d;
        }
    }
    for (size_t i = 0; i < k; i++) {
        one[i][0] = one[i][1] = 1;   /* logs: the spread is absolute */
        for (int side = 0; side < 2; side++)
            if (w[i] > 0)
                level[side] += w[i] * sum[i][side] / (double)st[i].n[side];
    }
    kinds_variance(dev, one, st, k, w, f, var, df);
    struct ng_means q;
    memset(&q, 0, sizeof q);
    q.ratio = exp(level[1] - level[0]);
    t_test(&q, var, df);
    return q.p_value;
}

/* Both figures with the kinds weighed by w (the baseline's shares of
 * the kinds both sides have), the counts and means per kind, the test of
 * the mix, and what the current's mix adds: its mean less the baseline's
 * at the kinds' change. */
static void weigh_kinds(struct ng_means *out, const struct stratum *st, size_t k,
                        const struct ng_cluster *kinds, const double *w, double mean_b,
                        double mean_c)
{
    out->basis = NG_MEANS_MIX;
    out->figure[0] = out->figure[1] = 0;
    for (size_t i = 0; i < k; i++) {
        out->kind_median[i] = kinds[i].median;
        for (int side = 0; side < 2; side++) {
            out->count[i][side] = st[i].n[side];
            out->kind_ms[i][side] = st[i].n[side] ? st[i].sum[side] / (double)st[i].n[side] : 0;
            out->figure[side] += w[i] * out->kind_ms[i][side];
        }
        out->dropped += w[i] == 0;
    }
    out->ratio = out->figure[1] / out->figure[0];
    out->mix_p = mix_test(st, k);
    out->mix_ms = mean_c - mean_b * out->ratio;
}

void ng_means_compare_in(const struct ng_means_side *b, const struct ng_means_side *cur,
                         double threshold, double alpha, struct ng_means *out)
{
    struct stratum st[NG_CLUSTERS_MAX];
    const struct ng_means_side *sides[2] = { b, cur };

    begin(out, b, cur);
    if (b->n < 2 || cur->n < 2 || !(out->figure[0] > 0) || !(out->figure[1] > 0))
        return;
    size_t *at[2] = { ng_xmalloc(b->n * sizeof *at[0]), ng_xmalloc(cur->n * sizeof *at[1]) };
    double *resid[2] = { ng_xmalloc(b->n * sizeof *resid[0]),
                         ng_xmalloc(cur->n * sizeof *resid[1]) };
    struct ng_cluster kinds[NG_CLUSTERS_MAX] = { { 0 } };
    double w[NG_CLUSTERS_MAX];
    size_t k = usable_strata(st, b, cur, at, resid, kinds, w);
    out->strata = k;
    /* the current's kinds weighed by the baseline's shares: the baseline's
     * figure is its mean (of the kinds both sides have), the current's
     * does not move with its mix */
    if (k > 1)
        weigh_kinds(out, st, k, kinds, w, side_mean(b), side_mean(cur));
    out->rho = autocorrelation(b, resid[0], at[0], cur, resid[1], at[1], k);
    double var[2], df[2], cv2 = 0, dev[NG_CLUSTERS_MAX][2], mean[NG_CLUSTERS_MAX][2];
    for (size_t i = 0; i < k; i++)
        for (int side = 0; side < 2; side++) {
            dev[i][side] = st[i].dev[side];
            mean[i][side] = st[i].n[side] ? st[i].sum[side] / (double)st[i].n[side] : 0;
        }
    double f[2] = { ar_inflation(out->rho, run_length(b)),
                    ar_inflation(out->rho, run_length(cur)) };
    kinds_variance(dev, mean, st, k, w, f, var, df);
    for (int side = 0; side < 2; side++) {
        var[side] /= out->figure[side] * out->figure[side];
        cv2 += (double)sides[side]->n * var[side];
    }
    out->inflation = f[0];
    t_test(out, var, df);
    if (skewness(sides) > NG_MEANS_SKEW) {
        double p = log_test(sides, at, st, k, w, f);
        out->log_test = 1;
        if (p > out->p_value)
            out->p_value = p;
    }
    out->has_p = b->n >= NG_MEANS_MIN_TEST && cur->n >= NG_MEANS_MIN_TEST;
    if (threshold > 1 && alpha > 0 && alpha < 1) {
        double lt = log(threshold);
        out->epochs_needed = ceil(z_sum_squared(alpha) * cv2 / (lt * lt));
        if (out->epochs_needed < 2)
            out->epochs_needed = 2;
    }
    for (int side = 0; side < 2; side++) {
        free(at[side]);
        free(resid[side]);
    }
}

/* ---- runs as the unit ---- */

/* Each run's mean and the variance of that mean within the run (the
 * dependence between its epochs allowed for; 0 for a run of one), runs
 * without epochs left out; returns how many. */
static size_t run_figures(const struct ng_means_side *s, double rho, double *mean,
                          double *within)
{
    size_t at = 0, runs = s->runs ? s->n_runs : 1, k = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t len = s->runs ? s->runs[r] : s->n;
        double sum = 0, dev = 0;
        if (len == 0)
            continue;   /* a run without epochs is no unit */
        for (size_t i = at; i < at + len; i++)
            sum += s->x[i];
        mean[k] = sum / (double)len;
        for (size_t i = at; i < at + len; i++)
            dev += (s->x[i] - mean[k]) * (s->x[i] - mean[k]);
        within[k++] = len > 1 ? dev / (double)(len - 1) / (double)len *
                                ar_inflation(rho, (double)len) : 0;
        at += len;
    }
    return k;
}

/* Residuals from each run's own mean, for the autocorrelation. */
static double *run_residuals(const struct ng_means_side *s)
{
    double *resid = ng_xmalloc((s->n ? s->n : 1) * sizeof *resid);
    size_t at = 0, runs = s->runs ? s->n_runs : 1;
    for (size_t r = 0; r < runs; r++) {
        size_t len = s->runs ? s->runs[r] : s->n;
        double sum = 0;
        for (size_t i = at; i < at + len; i++)
            sum += s->x[i];
        for (size_t i = at; i < at + len; i++)
            resid[i] = s->x[i] - sum / (double)len;
        at += len;
    }
    return resid;
}

void ng_means_compare_runs(const struct ng_means_side *b, const struct ng_means_side *cur,
                           struct ng_means *out)
{
    size_t k = b->runs ? b->n_runs : 1;

    begin(out, b, cur);
    out->basis = NG_MEANS_RUNS;
    out->runs = 0;
    if (k == 0 || b->n == 0 || cur->n == 0)
        return;
    double *rb = run_residuals(b), *rc = run_residuals(cur);
    size_t *ab = ng_xcalloc(b->n + 1, sizeof *ab), *ac = ng_xcalloc(cur->n + 1, sizeof *ac);
    out->rho = autocorrelation(b, rb, ab, cur, rc, ac, 1);
    free(rb);
    free(rc);
    free(ab);
    free(ac);
    double *mean = ng_xmalloc(k * sizeof *mean), *within = ng_xmalloc(k * sizeof *within);
    double cur_mean, cur_within;
    out->runs = k = run_figures(b, out->rho, mean, within);
    struct ng_means_side one = { cur->x, cur->n, NULL, 0 };
    run_figures(&one, out->rho, &cur_mean, &cur_within);
    double rbar = 0, wbar = 0, s2 = 0;
    for (size_t r = 0; r < k; r++) {
        rbar += mean[r] / (double)k;
        wbar += within[r] / (double)k;
    }
    for (size_t r = 0; r < k; r++)
        s2 += (mean[r] - rbar) * (mean[r] - rbar) / (double)(k > 1 ? k - 1 : 1);
    free(mean);
    free(within);
    out->figure[0] = rbar;
    out->figure[1] = cur_mean;
    out->ratio = cur_mean / rbar;
    out->inflation = ar_inflation(out->rho, (double)cur->n);
    if (k < 2 || !(rbar > 0) || !(cur_mean > 0))
        return;
    out->between_cv = sqrt(s2) / rbar;
    /* the past runs' mean is off by s2 / k; the current run differs from
     * any past run by the spread between runs and its own within */
    double between = s2 - wbar > 0 ? s2 - wbar : 0;
    double var[2] = { (s2 / (double)k + between) / (rbar * rbar),
                      cur_within / (cur_mean * cur_mean) };
    double df[2] = { (double)(k - 1), cur->n > 1 ? (double)(cur->n - 1) : 1 };
    t_test(out, var, df);
    out->has_p = k >= NG_MEANS_MIN_TEST;
}

/* ---- the call ---- */

enum ng_means_call ng_means_call(const struct ng_means *m, double threshold, double alpha)
{
    int tests = alpha > 0;   /* alpha 0: the tests are off, the ratio decides */
    if (!(m->ratio > threshold)) {
        /* a shift of the mix is never a silent pass */
        if (tests && m->basis == NG_MEANS_MIX && m->mix_p <= alpha && m->raw_ratio > threshold)
            return NG_MEANS_MIX_SHIFTED;
        return NG_MEANS_WITHIN;
    }
    if (m->basis == NG_MEANS_RUNS && !m->has_p)
        return NG_MEANS_FEW_RUNS;
    if (tests && m->has_p && m->p_value > alpha)
        return NG_MEANS_NOT_SIGNIFICANT;
    return NG_MEANS_PAST;
}

static const char *const call_names[NG_MEANS_CALLS] = {
    [NG_MEANS_WITHIN] = "within",
    [NG_MEANS_NOT_SIGNIFICANT] = "not significant",
    [NG_MEANS_MIX_SHIFTED] = "mix shifted",
    [NG_MEANS_FEW_RUNS] = "few runs",
    [NG_MEANS_PAST] = "past",
};

static const char *const basis_names[] = {
    [NG_MEANS_EPOCHS] = "means",
    [NG_MEANS_MIX] = "mix-adjusted",
    [NG_MEANS_RUNS] = "runs",
};

const char *ng_means_call_name(enum ng_means_call c)
{
    return call_names[c];
}

const char *ng_means_basis_name(enum ng_means_basis b)
{
    return basis_names[b];
}

static int name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

int ng_means_call_parse(const char *name, enum ng_means_call *out)
{
    int i = name_index(call_names, NG_MEANS_CALLS, name);
    if (i >= 0)
        *out = (enum ng_means_call)i;
    return i < 0 ? -1 : 0;
}

int ng_means_basis_parse(const char *name, enum ng_means_basis *out)
{
    int i = name_index(basis_names, sizeof basis_names / sizeof basis_names[0], name);
    if (i >= 0)
        *out = (enum ng_means_basis)i;
    return i < 0 ? -1 : 0;
}

/* ---- warm-up ---- */

size_t ng_means_warmup(const double *x, size_t n)
{
    if (n < 4)
        return 0;
    size_t most = n / 4 ? n / 4 : 1, found = 0;
    /* the largest j whose leading x[0..j) all exceed NG_MEANS_WARMUP times
     * every later epoch: a suffix maximum and a prefix minimum */
    double *after = ng_xmalloc((n + 1) * sizeof *after);
    after[n] = -INFINITY;
    for (size_t i = n; i-- > 0;)
        after[i] = x[i] > after[i + 1] ? x[i] : after[i + 1];
    double least = INFINITY;
    for (size_t j = 1; j <= most && n - j >= 3; j++) {
        least = x[j - 1] < least ? x[j - 1] : least;
        if (after[j] > 0 && least > NG_MEANS_WARMUP * after[j])
            found = j;
    }
    free(after);
    return found;
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
