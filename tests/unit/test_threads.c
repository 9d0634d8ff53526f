/* The pool of worker threads: its size from --jobs or the processors,
 * every item done once whatever the number of workers (one, more than
 * there are items, none that could start), the same slots written, and
 * the error of the first failing item in item order.  pthread_create and
 * pthread_join are wrapped (tests/meson.build links this test with
 * --wrap), so a thread that cannot start is a real refusal, not a guess. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/ng_threads.h"

/* ---- the wrapped thread calls ---- */

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);

static int starts_left = -1;   /* threads that may still start; -1: any number */
static pthread_t started[NG_THREADS_MAX];
static size_t n_started, n_refused, n_joined;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (starts_left == 0) {
        n_refused++;
        return EAGAIN;   /* what a process out of threads or memory gets */
    }
    int rc = __real_pthread_create(t, a, fn, arg);
    if (rc == 0) {
        assert_true(n_started < NG_THREADS_MAX);
        started[n_started++] = *t;
        if (starts_left > 0)
            starts_left--;
    }
    return rc;
}

/* Only a thread that started is ever joined, each once. */
int __wrap_pthread_join(pthread_t t, void **ret)
{
    size_t i = 0;
    while (i < n_started && !pthread_equal(started[i], t))
        i++;
    assert_true(i < n_started);
    started[i] = started[--n_started];
    n_joined++;
    return __real_pthread_join(t, ret);
}

static void reset(int may_start)
{
    starts_left = may_start;
    n_started = n_refused = n_joined = 0;
}

/* ---- items ---- */

#define ITEMS 200

struct items {
    unsigned done[ITEMS];       /* how many times each item ran */
    uint64_t slot[ITEMS];       /* what each item made */
    pthread_t by[ITEMS];        /* the thread that ran it */
    int fail_from;              /* items >= this whose number is odd fail; -1: none */
};

static uint64_t make(size_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

static int item(void *ctx, size_t i, struct ng_err *err)
{
    struct items *it = ctx;
    it->done[i]++;
    it->slot[i] = make(i);
    it->by[i] = pthread_self();
    if (it->fail_from >= 0 && i >= (size_t)it->fail_from && i % 2)
        return ng_err_set(err, "item %zu failed", i);
    return 0;
}

static void assert_all_once(const struct items *it, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(it->done[i], 1);
        assert_true(it->slot[i] == make(i));
    }
    for (size_t i = n; i < ITEMS; i++)
        assert_int_equal(it->done[i], 0);
}

static void test_count(void **state)
{
    (void)state;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t online = cpus < 1 ? 1 : cpus > NG_THREADS_MAX ? NG_THREADS_MAX : (size_t)cpus;

    assert_int_equal(ng_threads_count(1), 1);
    assert_int_equal(ng_threads_count(7), 7);
    assert_int_equal(ng_threads_count(NG_THREADS_MAX), NG_THREADS_MAX);
    assert_int_equal(ng_threads_count(100000), NG_THREADS_MAX);
    assert_int_equal(ng_threads_count(0), online);    /* no --jobs: the processors */
    assert_int_equal(ng_threads_count(-1), online);
}

/* One worker: this thread does every item, in order, and no thread starts. */
static void test_one_worker(void **state)
{
    (void)state;
    struct items it = { .fail_from = -1 };
    struct ng_err err = { "untouched" };

    reset(-1);
    assert_int_equal(ng_threads_run(1, ITEMS, item, &it, &err), 0);
    assert_all_once(&it, ITEMS);
    for (size_t i = 0; i < ITEMS; i++)
        assert_true(pthread_equal(it.by[i], pthread_self()));
    assert_int_equal(n_joined, 0);
    assert_int_equal(n_refused, 0);
    assert_string_equal(err.msg, "untouched");   /* no failure, no message */
}

/* More workers than items: a worker an item at most (this thread one of
 * them), and no item for nothing. */
static void test_more_workers_than_items(void **state)
{
    (void)state;
    struct items it = { .fail_from = -1 };
    struct ng_err err;

    reset(-1);
    assert_int_equal(ng_threads_run(NG_THREADS_MAX, 3, item, &it, &err), 0);
    assert_all_once(&it, 3);
    assert_int_equal(n_joined, 2);   /* two started, two joined */
    assert_int_equal(n_started, 0);

    memset(&it, 0, sizeof it);
    it.fail_from = -1;
    reset(-1);
    assert_int_equal(ng_threads_run(8, 0, item, &it, &err), 0);   /* no item: no thread */
    assert_all_once(&it, 0);
    assert_int_equal(n_joined, 0);
}

/* Two items that wait for each other: they meet only if they run at once,
 * on two workers. */
struct meeting {
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    int here;
    int met[2];
};

static int meet(void *ctx, size_t i, struct ng_err *err)
{
    struct meeting *m = ctx;
    struct timespec until;
    (void)err;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&m->lock);
    m->here++;
    pthread_cond_broadcast(&m->arrived);
    while (m->here < 2 && pthread_cond_timedwait(&m->arrived, &m->lock, &until) == 0)
        ;
    m->met[i] = m->here == 2;
    pthread_mutex_unlock(&m->lock);
    return 0;
}

static void test_workers_at_once(void **state)
{
    (void)state;
    struct meeting m = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, { 0, 0 } };
    struct ng_err err;

    reset(-1);
    assert_int_equal(ng_threads_run(2, 2, meet, &m, &err), 0);
    assert_true(m.met[0] && m.met[1]);
    assert_int_equal(n_joined, 1);
}

/* Failing items stop no other; the error is the lowest-numbered one's,
 * whichever worker got there first, on one worker as on many. */
static void test_failing_items(void **state)
{
    (void)state;
    long jobs[] = { 1, 2, 3, 8, NG_THREADS_MAX };

    for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++) {
        for (int round = 0; round < 20; round++) {
            struct items it = { .fail_from = 37 };
            struct ng_err err;
            reset(-1);
            assert_int_equal(ng_threads_run(jobs[k], ITEMS, item, &it, &err), -1);
            assert_string_equal(err.msg, "item 37 failed");
            assert_all_once(&it, ITEMS);
            assert_int_equal(n_started, 0);   /* every thread joined */
        }
    }
    struct items last = { .fail_from = ITEMS - 1 };
    struct ng_err err;
    reset(-1);
    assert_int_equal(ng_threads_run(4, ITEMS, item, &last, &err), -1);
    assert_string_equal(err.msg, "item 199 failed");
}

/* A thread that cannot start: its share goes to the workers that did
 * (none at all: this thread alone), every item is still done once, only
 * the threads that started are joined, and a failure is still the first. */
static void test_thread_cannot_start(void **state)
{
    (void)state;
    int may_start[] = { 0, 1, 3 };

    for (size_t k = 0; k < sizeof may_start / sizeof *may_start; k++) {
        struct items it = { .fail_from = -1 };
        struct ng_err err;
        reset(may_start[k]);
        assert_int_equal(ng_threads_run(8, ITEMS, item, &it, &err), 0);
        assert_all_once(&it, ITEMS);
        assert_int_equal(n_refused, 1);   /* tried once, not for every worker left */
        assert_int_equal(n_joined, (size_t)may_start[k]);
        assert_int_equal(n_started, 0);
        if (may_start[k] == 0)
            for (size_t i = 0; i < ITEMS; i++)
                assert_true(pthread_equal(it.by[i], pthread_self()));

        struct items bad = { .fail_from = 11 };
        reset(may_start[k]);
        assert_int_equal(ng_threads_run(8, ITEMS, item, &bad, &err), -1);
        assert_string_equal(err.msg, "item 11 failed");
        assert_all_once(&bad, ITEMS);
    }
    reset(-1);
}

/* What the items make is the same, byte for byte, on any number of
 * workers. */
static void test_same_slots(void **state)
{
    (void)state;
    static struct items one, many;
    struct ng_err err;

    one.fail_from = many.fail_from = -1;
    reset(-1);
    assert_int_equal(ng_threads_run(1, ITEMS, item, &one, &err), 0);
    assert_int_equal(ng_threads_run(NG_THREADS_MAX, ITEMS, item, &many, &err), 0);
    assert_memory_equal(one.slot, many.slot, sizeof one.slot);
    assert_memory_equal(one.done, many.done, sizeof one.done);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_one_worker),
        cmocka_unit_test(test_more_workers_than_items),
        cmocka_unit_test(test_workers_at_once),
        cmocka_unit_test(test_failing_items),
        cmocka_unit_test(test_thread_cannot_start),
        cmocka_unit_test(test_same_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
