/* ng_stragglers: the median of the others (odd and even counts, a slow
 * device not lifting its own level), the threshold as a strict bound, a
 * median of 0 naming nobody, fewer than two places, the order kept, and a
 * device's owner carried. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/ng_straggler.h"

/* places of ids 0..n-1 with these ms (over 1 epoch), owner 100+id */
static size_t run(const double *ms, size_t n, double threshold, struct ng_straggler **out)
{
    struct ng_place p[16];
    size_t got = 0;
    for (size_t i = 0; i < n; i++)
        p[i] = (struct ng_place){ (int64_t)i, (int64_t)(ms[i] * 1e6), 1, -1, 100 + (int64_t)i };
    *out = NULL;
    ng_stragglers(p, n, NG_STRAGGLER_DEVICE, 1, threshold, out, &got);
    return got;
}

static void test_one_slow_of_four(void **state)
{
    (void)state;
    static const double ms[] = { 10, 10.2, 13, 9.8 };
    struct ng_straggler *s;
    assert_int_equal(run(ms, 4, 1.10, &s), 1);
    assert_int_equal(s[0].id, 2);
    assert_int_equal(s[0].process, 102);
    assert_int_equal(s[0].rank, -1);
    assert_true(s[0].ms_per_epoch == 13);
    assert_true(s[0].others_ms == 10);   /* the median of 9.8, 10, 10.2: not lifted by 13 */
    free(s);
}

static void test_even_others_and_bound(void **state)
{
    (void)state;
    /* 11's others are 10, 10, 12, 14: median 11, and 11 is not past 1.10 x 11; 12's and
     * 14's others have the median (10 + 11) / 2 = 10.5, and both are past 11.55 */
    static const double ms[] = { 10, 10, 11, 12, 14 };
    struct ng_straggler *s;
    assert_int_equal(run(ms, 5, 1.10, &s), 2);
    assert_int_equal(s[0].id, 3);
    assert_int_equal(s[1].id, 4);
    assert_true(s[0].others_ms == 10.5 && s[1].others_ms == 10.5);
    free(s);
    static const double two[] = { 10, 11 };   /* 11 = 1.10 x 10 exactly: not past it */
    assert_int_equal(run(two, 2, 1.10, &s), 0);
    free(s);
    /* of two, 12 against the other's 10: named (a median of both, 11, would not name it) */
    static const double pair[] = { 10, 12 };
    assert_int_equal(run(pair, 2, 1.10, &s), 1);
    assert_int_equal(s[0].id, 1);
    assert_true(s[0].others_ms == 10);
    free(s);
}

static void test_two_slow_both_named_in_order(void **state)
{
    (void)state;
    static const double ms[] = { 20, 10, 10, 20, 10, 10 };
    struct ng_straggler *s;
    assert_int_equal(run(ms, 6, 1.10, &s), 2);   /* a second slow device hides neither */
    assert_int_equal(s[0].id, 0);
    assert_int_equal(s[1].id, 3);
    free(s);
}

static void test_nobody(void **state)
{
    (void)state;
    static const double idle[] = { 0, 0, 5 };   /* the others' median is 0 */
    static const double one[] = { 5 };
    struct ng_straggler *s;
    assert_int_equal(run(idle, 3, 1.10, &s), 0);
    free(s);
    assert_int_equal(run(one, 1, 1.10, &s), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_slow_of_four),
        cmocka_unit_test(test_even_others_and_bound),
        cmocka_unit_test(test_two_slow_both_named_in_order),
        cmocka_unit_test(test_nobody),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
