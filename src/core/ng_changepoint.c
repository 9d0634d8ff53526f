#include "core/ng_changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_stats.h"
#include "util/ng_util.h"

/* Welch's test from each side's count, mean and variance. */
static double welch_p(double n1, double m1, double v1, double n2, double m2, double v2)
{
    double s1 = v1 / n1, s2 = v2 / n2, se2 = s1 + s2;
    if (!(se2 > 0))
        return m1 == m2 ? 1 : 0;
    double t = (m2 - m1) / sqrt(se2);
    double df = se2 * se2 / (s1 * s1 / (n1 - 1) + s2 * s2 / (n2 - 1));
    return 2 * ng_stats_t_upper(fabs(t), df);   /* two-sided */
}

static void mean_var(const double *a, size_t n, double *mean, double *var)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (a[i] - *mean) * (a[i] - *mean);
    *var = ss / (double)(n - 1);
}

double ng_cp_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
    double ma, va, mb, vb;
    if (na < 2 || nb < 2)
        return 1;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    return welch_p((double)na, ma, va, (double)nb, mb, vb);
}

/* ---- the rank test ---- */

struct ranked {
    double v;
    int right;
};

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
    return x < y ? -1 : x > y;
}

double ng_cp_rank_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    if (na < 1 || nb < 1)
        return 1;
    struct ranked *r = ng_xmalloc(n * sizeof *r);
    for (size_t i = 0; i < na; i++)
        r[i] = (struct ranked){ a[i], 0 };
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (struct ranked){ b[i], 1 };
    ng_sort(r, n, sizeof *r, cmp_ranked);
    double rank_b = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        double mid = (double)(i + j + 1) / 2, t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            rank_b += r[k].right ? mid : 0;
        ties += t * t * t - t;
        i = j;
    }
    free(r);
    double n1 = (double)na, n2 = (double)nb, nn = (double)n;
    double u = rank_b - n2 * (n2 + 1) / 2, mu = n1 * n2 / 2;
    double var = n1 * n2 / 12 * ((nn + 1) - ties / (nn * (nn - 1)));
    if (!(var > 0))
        return 1;
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    return z <= 0 ? 1 : erfc(z / sqrt(2));
}

/* ---- the scan ---- */

struct series {
    const double *x;              /* raw */
    double *y;                    /* running median of three */
    const struct ng_cp_opts *o;
};

static double med3(double a, double b, double c)
{
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

static double median_of(struct series *s, size_t a, size_t b)
{
    struct ng_summary sum;
    ng_stats_summary(s->x + a, b - a, &sum);
    return sum.median;
}

static double sum_abs(const double *y, size_t a, size_t b, double v)
{
    double s = 0;
    for (size_t i = a; i < b; i++)
        s += fabs(y[i] - v);
    return s;
}

/* The test between [l0, t) and [t, r1): 1 when it qualifies, with the
 * figures in *c. */
static int qualifies(struct series *s, size_t l0, size_t t, size_t r1, struct ng_cp *c)
{
    double p = ng_cp_rank_p(s->x + l0, t - l0, s->x + t, r1 - t);
    if (!(p < s->o->p_max))
        return 0;
    double before = median_of(s, l0, t), after = median_of(s, t, r1);
    double mag = before > 0 ? after / before : (after > 0 ? INFINITY : 1);
    double floor = 1 + s->o->min_change;
    if (!(mag >= floor || mag * floor <= 1))
        return 0;
    *c = (struct ng_cp){ t, p, mag, before, after };
    return 1;
}

/* Running sums of the two windows either side of t: Σ|yi-yj| within the
 * left (wl), within the right (wr), across (cr), and Σy, Σy² of each. */
struct windows {
    size_t l0, t, r1;
    double wl, wr, cr;
    double sl, ssl, sr, ssr;
};

static void add_left(const double *y, struct windows *w, size_t i)
{
    w->wl += sum_abs(y, w->l0, w->t, y[i]);
    w->cr += sum_abs(y, w->t, w->r1, y[i]);
    w->sl += y[i], w->ssl += y[i] * y[i];
}

static void add_right(const double *y, struct windows *w, size_t i)
{
    w->wr += sum_abs(y, w->t, w->r1, y[i]);
    w->cr += sum_abs(y, w->l0, w->t, y[i]);
    w->sr += y[i], w->ssr += y[i] * y[i];
}

static double energy(const struct windows *w)
{
    double m1 = (double)(w->t - w->l0), m2 = (double)(w->r1 - w->t);
    double e = 2 * w->cr / (m1 * m2) - w->wl / (m1 * (m1 - 1) / 2) - w->wr / (m2 * (m2 - 1) / 2);
    return m1 * m2 / (m1 + m2) * e;
}

static double window_p(const struct windows *w)
{
    double n1 = (double)(w->t - w->l0), n2 = (double)(w->r1 - w->t);
    double m1 = w->sl / n1, m2 = w->sr / n2;
    double v1 = (w->ssl - n1 * m1 * m1) / (n1 - 1), v2 = (w->ssr - n2 * m2 * m2) / (n2 - 1);
    return welch_p(n1, m1, v1 > 0 ? v1 : 0, n2, m2, v2 > 0 ? v2 : 0);
}

/* Whether the windows' Welch p is below limit.  Student's t has heavier
 * tails than the normal, so its p is never below the normal's: when the
 * normal's p of the same statistic is at or above limit, so is Welch's,
 * and the incomplete beta function (the scan's most expensive step) is
 * not needed for most splits. */
static int window_p_below(const struct windows *w, double limit)
{
    double n1 = (double)(w->t - w->l0), n2 = (double)(w->r1 - w->t);
    double m1 = w->sl / n1, m2 = w->sr / n2;
    double v1 = (w->ssl - n1 * m1 * m1) / (n1 - 1), v2 = (w->ssr - n2 * m2 * m2) / (n2 - 1);
    double se2 = (v1 > 0 ? v1 : 0) / n1 + (v2 > 0 ? v2 : 0) / n2;
    if (se2 > 0 && !(erfc(fabs(m2 - m1) / sqrt(se2) / sqrt(2)) < limit))
        return 0;
    return window_p(w) < limit;
}

/* A split the scan keeps: its score and windows, tested once the scan
 * is done. */
struct candidate {
    double q;
    size_t l0, t, r1;
};

/* Highest score first; among equal scores the earliest split, as a scan
 * that keeps the first strictly better one would take it. */
static int by_score(const void *pa, const void *pb)
{
    const struct candidate *a = pa, *b = pb;
    if (a->q != b->q)
        return a->q > b->q ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* The best qualifying split of [a, b), or 0: the scan scores every split
 * (the prefilter's Welch test is running sums), then the rank test, a
 * sort each, runs on the candidates in score order until one qualifies,
 * which is the split of the largest score that qualifies. */
static int best_split(struct series *s, size_t a, size_t b, struct ng_cp *best)
{
    const size_t k = NG_CP_MIN_SIDE, win = s->o->window;
    const double *y = s->y;
    struct windows w = { a, a, a, 0, 0, 0, 0, 0, 0, 0 };
    struct candidate *cand = NULL;
    size_t n_cand = 0;
    int found = 0;

    if (b - a < 2 * k)
        return 0;
    /* t = a + k: the left window [a, t), the right [t, min(b, t + win)) */
    for (size_t i = a; i < a + k; i++) {
        add_left(y, &w, i);
        w.t = w.r1 = i + 1;
    }
    size_t r_end = a + k + win < b ? a + k + win : b;
    for (size_t i = a + k; i < r_end; i++) {
        add_right(y, &w, i);
        w.r1 = i + 1;
    }
    for (;;) {
        double q;
        if (w.r1 - w.t >= k && (q = energy(&w)) > -1 && window_p_below(&w, 100 * s->o->p_max)) {
            if (!cand)
                cand = ng_xmalloc((b - a) * sizeof *cand);
            cand[n_cand++] = (struct candidate){ q, w.l0, w.t, w.r1 };
        }
        if (w.t + k >= b)
            break;
        /* y[t] moves from the right window to the left */
        size_t t = w.t;
        w.wr -= sum_abs(y, t + 1, w.r1, y[t]);
        w.cr -= sum_abs(y, w.l0, t, y[t]);
        w.sr -= y[t], w.ssr -= y[t] * y[t];
        w.wl += sum_abs(y, w.l0, t, y[t]);
        w.cr += sum_abs(y, t + 1, w.r1, y[t]);
        w.sl += y[t], w.ssl += y[t] * y[t];
        w.t = t + 1;
        if (w.t - w.l0 > win) {   /* the oldest leaves the left */
            size_t o = w.l0++;
            w.wl -= sum_abs(y, w.l0, w.t, y[o]);
            w.cr -= sum_abs(y, w.t, w.r1, y[o]);
            w.sl -= y[o], w.ssl -= y[o] * y[o];
        }
        if (w.r1 < b && w.r1 - w.t < win) {
            size_t i = w.r1;
            add_right(y, &w, i);
            w.r1 = i + 1;
        }
    }
    ng_sort(cand, n_cand, sizeof *cand, by_score);
    for (size_t i = 0; i < n_cand && !found; i++)
        found = qualifies(s, cand[i].l0, cand[i].t, cand[i].r1, best);
    free(cand);
    return found;
}

static void segment(struct series *s, size_t a, size_t b, struct ng_cp *cp, size_t *n)
{
    struct ng_cp c;
    if (!best_split(s, a, b, &c))
        return;
    segment(s, a, c.at, cp, n);
    cp[(*n)++] = c;
    segment(s, c.at, b, cp, n);
}

/* The merge pass: each change against its neighbours, the weakest that no
 * longer qualifies dropped, again until all do. */
static size_t merge(struct series *s, size_t n_points, struct ng_cp *cp, size_t n)
{
    const size_t win = s->o->window;
    for (;;) {
        size_t worst = n;
        double worst_p = -1;
        for (size_t i = 0; i < n; i++) {
            size_t a = i ? cp[i - 1].at : 0, b = i + 1 < n ? cp[i + 1].at : n_points;
            size_t t = cp[i].at;
            size_t l0 = t - a > win ? t - win : a, r1 = b - t > win ? t + win : b;
            struct ng_cp c;
            if (qualifies(s, l0, t, r1, &c)) {
                cp[i] = c;
                continue;
            }
            double p = ng_cp_rank_p(s->x + l0, t - l0, s->x + t, r1 - t);
            if (p > worst_p)
                worst_p = p, worst = i;
        }
        if (worst == n)
            return n;
        memmove(cp + worst, cp + worst + 1, (n - worst - 1) * sizeof *cp);
        n--;
    }
}

size_t ng_cp_detect(const double *x, size_t n, const struct ng_cp_opts *o, struct ng_cp *cp)
{
    struct series s = { x, NULL, o };
    size_t found = 0;

    if (n < 2 * NG_CP_MIN_SIDE)
        return 0;
    s.y = ng_xmalloc(n * sizeof *s.y);
    s.y[0] = x[0];
    s.y[n - 1] = x[n - 1];
    for (size_t i = 1; i + 1 < n; i++)
        s.y[i] = med3(x[i - 1], x[i], x[i + 1]);
    segment(&s, 0, n, cp, &found);
    found = merge(&s, n, cp, found);
    free(s.y);
    return found;
}
