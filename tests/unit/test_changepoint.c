/* The change-point detector (core/ng_changepoint.c): its tests' p-values
 * against figures computed here from their definitions, simple series,
 * and the evaluation of docs/performance.md: 600 synthetic series of 100
 * nights (noise 1-5%, heavy-tailed outliers, one-night spikes of 1.6x,
 * bimodal nights; a third noise only, a third steps of 5-50% up or down,
 * a third creeps of +1.5% a night for 20 nights), with the targets
 * asserted.  NG_CP_EVAL_SERIES=N runs more and prints the figures (the
 * bench does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include <cmocka.h>

#include "core/ng_changepoint.h"

static const struct ng_cp_opts defaults = { NG_CP_DEFAULT_P, NG_CP_DEFAULT_MIN_CHANGE,
                                            NG_CP_DEFAULT_WINDOW };

/* xorshift64: the same series on every machine */
static uint64_t rng_state;
static double u01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
}

static void test_rank_p(void **state)
{
    /* no ties: a = 1..5, b = 6..10: U = 25, mu 12.5, var 5*5*11/12;
     * z = (12.5 - 0.5) / sqrt(22.9166...) */
    static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
    (void)state;
    double z = 12.0 / sqrt(25.0 * 11 / 12);
    assert_true(fabs(ng_cp_rank_p(a, 5, b, 5) - erfc(z / sqrt(2))) < 1e-12);
    /* all equal: no evidence */
    static const double c[] = { 3, 3, 3, 3 };
    assert_true(ng_cp_rank_p(c, 4, c, 4) == 1);
}

static void test_welch_p(void **state)
{
    /* equal variances and sizes: Welch is Student's t with 2n-2 df; for
     * df = 2 the two-sided tail is 1 - |t| / sqrt(t^2 + 2) exactly */
    static const double a[] = { 0, 2 }, b[] = { 3, 5 };
    (void)state;
    double t = 3 / sqrt(2.0 / 2 + 2.0 / 2);
    assert_true(fabs(ng_cp_welch_p(a, 2, b, 2) - (1 - t / sqrt(t * t + 2))) < 1e-10);
}

static void test_step_and_flat(void **state)
{
    double x[60];
    struct ng_cp cp[20];
    (void)state;
    rng_state = 7;
    for (int i = 0; i < 60; i++)
        x[i] = 100 * (i >= 30 ? 1.2 : 1) * (1 + 0.02 * gauss());
    size_t n = ng_cp_detect(x, 60, &defaults, cp);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].at, 30);
    assert_true(cp[0].magnitude > 1.15 && cp[0].magnitude < 1.25);
    for (int i = 0; i < 60; i++)
        x[i] = 100;
    assert_int_equal(ng_cp_detect(x, 60, &defaults, cp), 0);
    assert_int_equal(ng_cp_detect(x, 7, &defaults, cp), 0);   /* too short to split */
}

static void test_spikes(void **state)
{
    double x[60];
    struct ng_cp cp[20];
    (void)state;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        rng_state = seed;
        for (int i = 0; i < 60; i++)
            x[i] = 100 * (1 + 0.03 * gauss()) * (i == 15 || i == 40 ? 1.6 : 1);
        assert_int_equal(ng_cp_detect(x, 60, &defaults, cp), 0);
    }
}

/* ---- the evaluation ---- */

enum kind { NOISE, STEP, CREEP };

struct eval {
    size_t series, noise_series, noise_with_false;
    size_t hits, misses, false_cps;           /* all changes */
    size_t hits10, misses10, false10;         /* steps >= 10% at 2% noise */
    double delay_sum;
    size_t delays, delay_max;
};

#define NIGHTS 100
#define NEAR 3   /* a change found this close to the true night is that change */

/* The nights after the change until it is reported: the shortest prefix
 * of the series whose changes include it, less the change's night. */
static size_t delay_of(const double *x, size_t at)
{
    struct ng_cp cp[NIGHTS];
    for (size_t m = at + NG_CP_MIN_SIDE; m <= NIGHTS; m++) {
        size_t n = ng_cp_detect(x, m, &defaults, cp);
        for (size_t k = 0; k < n; k++)
            if (cp[k].at + NEAR >= at && cp[k].at <= at + NEAR)
                return m - at;
    }
    return NIGHTS;
}

static void one_series(struct eval *e, double noise_fixed)
{
    enum kind kind = (enum kind)(e->series++ % 3);
    double noise = noise_fixed > 0 ? noise_fixed : 0.01 + 0.04 * u01();
    double step = 0.05 + 0.45 * u01();
    if (u01() < 0.3)
        step = -step / (1 + step);   /* an improvement of the same ratio */
    size_t at = 30 + (size_t)(u01() * 50);
    int spikes = u01() < 0.5, heavy = u01() < 0.3, bimodal = u01() < 0.2;
    double x[NIGHTS];
    struct ng_cp cp[NIGHTS];

    for (size_t i = 0; i < NIGHTS; i++) {
        double level = 1;
        if (kind == STEP && i >= at)
            level = 1 + step;
        if (kind == CREEP && i > at)
            level = 1 + 0.015 * (double)(i - at < 20 ? i - at : 20);
        double eps = gauss() * noise;
        if (heavy && u01() < 0.03)
            eps *= 6;   /* a heavy tail: a 6-sigma night now and then */
        if (bimodal && u01() < 0.3)
            eps += 2 * noise;   /* nights on a second, slower mode */
        x[i] = 100 * level * (1 + eps) * (spikes && u01() < 0.03 ? 1.6 : 1);
    }
    size_t n = ng_cp_detect(x, NIGHTS, &defaults, cp);
    if (kind == NOISE) {
        e->noise_series++;
        e->noise_with_false += n > 0;
        e->false_cps += n;
        return;
    }
    int hit = 0, big = kind == STEP && fabs(step) >= 0.0999 && noise_fixed == 0.02;
    size_t span = kind == CREEP ? 20 + NEAR : NEAR;
    for (size_t k = 0; k < n; k++) {
        int near = cp[k].at + NEAR >= at && cp[k].at <= at + span;
        if (near && !hit)
            hit = 1;
        else if (!near || kind == STEP) {
            e->false_cps++;
            e->false10 += big;
        }
    }
    e->hits += hit, e->misses += !hit;
    if (big) {
        e->hits10 += hit, e->misses10 += !hit;
        if (hit) {
            size_t d = delay_of(x, at);
            e->delay_sum += (double)d, e->delays++;
            e->delay_max = d > e->delay_max ? d : e->delay_max;
        }
    }
}

static void test_evaluation(void **state)
{
    struct eval mixed = { 0 }, at2 = { 0 };
    const char *env = getenv("NG_CP_EVAL_SERIES");
    size_t n = env ? (size_t)atol(env) : 600;
    (void)state;
    rng_state = 42;
    for (size_t i = 0; i < n; i++)
        one_series(&mixed, 0);
    rng_state = 43;
    for (size_t i = 0; i < n; i++)
        one_series(&at2, 0.02);
    double recall10 = (double)at2.hits10 / (double)(at2.hits10 + at2.misses10);
    double precision10 = (double)at2.hits10 / (double)(at2.hits10 + at2.false10);
    double recall = (double)mixed.hits / (double)(mixed.hits + mixed.misses);
    double precision = (double)mixed.hits / (double)(mixed.hits + mixed.false_cps);
    double false_rate = (double)mixed.noise_with_false / (double)mixed.noise_series;
    double delay = at2.delay_sum / (double)at2.delays;
    printf("evaluation: %zu + %zu series of %d nights\n", mixed.series, at2.series, NIGHTS);
    printf("  steps >= 10%% at 2%% noise: recall %.3f precision %.3f (%zu steps), "
           "delay mean %.2f max %zu nights\n",
           recall10, precision10, at2.hits10 + at2.misses10, delay, at2.delay_max);
    printf("  mixed (noise 1-5%%, steps 5-50%% and creeps): recall %.3f precision %.3f\n",
           recall, precision);
    printf("  noise only: false change points in %zu of %zu series (%.2f%%)\n",
           mixed.noise_with_false, mixed.noise_series, 100 * false_rate);
    assert_true(recall10 >= 0.95);
    assert_true(precision10 >= 0.95);
    assert_true(false_rate <= 0.01);
    assert_true(delay <= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_p),
        cmocka_unit_test(test_welch_p),
        cmocka_unit_test(test_step_and_flat),
        cmocka_unit_test(test_spikes),
        cmocka_unit_test(test_evaluation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
