#include "core/ng_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

void ng_stats_summary(const double *x, size_t n, struct ng_summary *out)
{
    if (n == 0) {
        out->median = out->min = out->max = out->mean = NAN;
        return;
    }
    double *s = ng_xmalloc(n * sizeof *s);
    double sum = 0;

    memcpy(s, x, n * sizeof *s);
    ng_sort(s, n, sizeof *s, ng_cmp_double);
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = sum / (double)n;
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    free(s);
}

struct tagged {
    double v;
    int from_y;
};

static int cmp_tagged(const void *a, const void *b)
{
    return ng_cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* P(U >= u_obs) under H0 with no ties, U = #pairs (x_i, y_j) with y_j > x_i.
 * Counting by where the largest of the m + n values lands: a y above all m
 * x's adds m pairs, an x adds none:
 *   c(m, n, u) = c(m, n - 1, u - m) + c(m - 1, n, u).
 * Kept in doubles: counts up to C(100, 50) lose only relative precision. */
static double exact_upper_tail(size_t m, size_t n, double u_obs)
{
    size_t umax = m * n;
    double *prev = ng_xcalloc((m + 1) * (umax + 1), sizeof *prev);   /* n - 1 */
    double *cur = ng_xcalloc((m + 1) * (umax + 1), sizeof *cur);
#define AT(t, i, u) (t)[(i) * (umax + 1) + (u)]
    for (size_t i = 0; i <= m; i++)
        AT(prev, i, 0) = 1;   /* n = 0: one arrangement, U = 0 */
    for (size_t j = 1; j <= n; j++) {
        memset(cur, 0, (m + 1) * (umax + 1) * sizeof *cur);
        AT(cur, 0, 0) = 1;
        for (size_t i = 1; i <= m; i++)
            for (size_t u = 0; u <= i * j; u++)
                AT(cur, i, u) = (u >= i ? AT(prev, i, u - i) : 0) + AT(cur, i - 1, u);
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double total = 0, tail = 0;
    for (size_t u = 0; u <= umax; u++) {
        total += AT(prev, m, u);
        if ((double)u >= u_obs - 1e-9)
            tail += AT(prev, m, u);
    }
#undef AT
    free(prev);
    free(cur);
    return tail / total;
}

double ng_stats_mwu_greater(const double *x, size_t nx, const double *y, size_t ny, int *exact)
{
    size_t n = nx + ny;
    struct tagged *all = ng_xmalloc(n * sizeof *all);
    double rank_y = 0, tie_term = 0;
    int ties = 0;

    for (size_t i = 0; i < nx; i++)
        all[i] = (struct tagged){ x[i], 0 };
    for (size_t j = 0; j < ny; j++)
        all[nx + j] = (struct tagged){ y[j], 1 };
    ng_sort(all, n, sizeof *all, cmp_tagged);
    /* average ranks over runs of equal values */
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && all[k].v == all[i].v)
            k++;
        double t = (double)(k - i);
        double avg = ((double)i + 1 + (double)k) / 2.0;
        for (size_t q = i; q < k; q++)
            if (all[q].from_y)
                rank_y += avg;
        if (t > 1) {
            ties = 1;
            tie_term += t * t * t - t;
        }
        i = k;
    }
    free(all);
    double m = (double)nx, nn = (double)ny, N = (double)n;
    double u = rank_y - nn * (nn + 1) / 2.0;   /* pairs with y above x (ties count 1/2) */

    if (!ties && nx <= NG_STATS_EXACT_MAX && ny <= NG_STATS_EXACT_MAX) {
        if (exact)
            *exact = 1;
        return exact_upper_tail(nx, ny, u);
    }
    if (exact)
        *exact = 0;
    double var = m * nn / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
    if (var <= 0)
        return 1.0;   /* every value equal: no evidence either way */
    double z = (u - m * nn / 2.0 - 0.5) / sqrt(var);
    double p = 0.5 * erfc(z / sqrt(2.0));
    return p > 1.0 ? 1.0 : p;
}

/* ---- Student's t tail, through the regularized incomplete beta ---- */

/* The continued fraction of the regularized incomplete beta function
 * (Lentz's method, as in Numerical Recipes' betacf). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;

    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b). */
static double beta_reg(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    /* lgamma_r: lgamma() writes the global signgam, and change points are
     * judged on two threads at once */
    int sign;
    double front = exp(lgamma_r(a + b, &sign) - lgamma_r(a, &sign) - lgamma_r(b, &sign) +
                       a * log(x) + b * log1p(-x));
    return x < (a + 1) / (a + b + 2) ? front * beta_cf(a, b, x) / a
                                     : 1 - front * beta_cf(b, a, 1 - x) / b;
}

double ng_stats_t_upper(double t, double df)
{
    if (isnan(t))
        return NAN;
    if (!(df < 1e7))   /* the normal distribution, to double precision */
        return 0.5 * erfc(t / sqrt(2.0));
    double tail = 0.5 * beta_reg(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? tail : 1 - tail;
}

/* ---- chi-square, through the regularized incomplete gamma ---- */

/* Q(a, x) = 1 - P(a, x): the series for x < a + 1, else the continued
 * fraction (Lentz), as in Numerical Recipes' gammq. */
static double gamma_q(double a, double x)
{
    int sign;
    if (x <= 0)
        return 1;
    double front = exp(-x + a * log(x) - lgamma_r(a, &sign));
    if (x < a + 1) {
        double ap = a, sum = 1 / a, del = sum;
        for (int n = 0; n < 1000 && fabs(del) > fabs(sum) * 1e-16; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
        }
        return 1 - sum * front;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 1000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = b + an / c;
        c = fabs(c) < tiny ? tiny : c;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return front * h;
}

double ng_stats_chi2_upper(double x, double df)
{
    return isnan(x) ? NAN : gamma_q(df / 2, x / 2);
}

/* ---- Fisher's exact test ---- */

static double log_choose(double n, double k)
{
    int sign;
    return lgamma_r(n + 1, &sign) - lgamma_r(k + 1, &sign) - lgamma_r(n - k + 1, &sign);
}

double ng_stats_fisher_2x2(size_t a, size_t b, size_t c, size_t d)
{
    double row = (double)(a + b), col = (double)(a + c), n = (double)(a + b + c + d);
    double lo = row + col > n ? row + col - n : 0, hi = row < col ? row : col;
    double all = log_choose(n, row);
#define LOGP(x) (log_choose(col, (x)) + log_choose(n - col, row - (x)) - all)
    double observed = LOGP((double)a), p = 0;
    /* scipy's relative tolerance: tables as likely as this one, to
     * rounding, count as no more likely */
    for (double x = lo; x <= hi; x++)
        if (LOGP(x) <= observed + 1e-7)
            p += exp(LOGP(x));
#undef LOGP
    return p > 1 ? 1 : p;
}

/* ---- Mann-Kendall and Theil-Sen ---- */

static double median_of(double *v, size_t n)
{
    ng_sort(v, n, sizeof *v, ng_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* n (n - 1) (2n + 5) for the Mann-Kendall variance, less each run of ties'
 * share */
static double mk_variance(const double *x, size_t n)
{
    double *s = ng_xmalloc(n * sizeof *s), var = (double)n * (double)(n - 1) * (2.0 * (double)n + 5);
    memcpy(s, x, n * sizeof *s);
    ng_sort(s, n, sizeof *s, ng_cmp_double);
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && s[k] == s[i])
            k++;
        double t = (double)(k - i);
        var -= t * (t - 1) * (2 * t + 5);
        i = k;
    }
    free(s);
    return var / 18;
}

void ng_stats_trend(const double *x, size_t n, struct ng_trend *out)
{
    memset(out, 0, sizeof *out);
    out->p_value = 1;
    if (n < 3)
        return;
    size_t pairs = n * (n - 1) / 2, k = 0;
    double *slopes = ng_xmalloc(pairs * sizeof *slopes);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            out->s += (x[j] > x[i]) - (x[j] < x[i]);
            slopes[k++] = (x[j] - x[i]) / (double)(j - i);
        }
    out->slope = median_of(slopes, pairs);
    free(slopes);
    double *rest = ng_xmalloc(n * sizeof *rest);
    for (size_t i = 0; i < n; i++)
        rest[i] = x[i] - out->slope * (double)i;
    out->intercept = median_of(rest, n);
    free(rest);
    double var = mk_variance(x, n);
    if (var > 0) {
        double z = (out->s - (out->s > 0) + (out->s < 0)) / sqrt(var);
        out->p_value = 0.5 * erfc(z / sqrt(2.0));
    }
}
