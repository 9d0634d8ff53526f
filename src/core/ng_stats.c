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
