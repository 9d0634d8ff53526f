/* Export slots: the memory bound's arithmetic, slots counted in memory
 * (threads wait for a free one), and shared slots that hold across forked
 * processes (a batch's gates). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sources/nsysrep/ng_export_slots.h"
#include "util/ng_util.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void test_fit(void **state)
{
    (void)state;
    /* unknown memory: jobs alone */
    assert_int_equal(ng_export_slots_fit(8, 10 * GIB, 0), 8);
    /* 24 GiB available: 18 GiB usable; a small report costs ~256 MiB */
    assert_int_equal(ng_export_slots_fit(8, 1 * MIB, 24 * GIB), 8);
    /* a 1.5 GiB report: 256 MiB + 6 GiB each, 18 / 6.25 = 2 */
    assert_int_equal(ng_export_slots_fit(8, 3 * GIB / 2, 24 * GIB), 2);
    /* too little for one: still one (the export is tried, one at a time) */
    assert_int_equal(ng_export_slots_fit(8, 100 * GIB, 4 * GIB), 1);
    assert_int_equal(ng_export_slots_fit(1, 1 * MIB, 24 * GIB), 1);
    assert_true(ng_export_slots_fit(0, 1 * MIB, 24 * GIB) >= 1);   /* one per processor */
}

struct waiter {
    double got_at;
};

static void *take_one(void *arg)
{
    struct waiter *w = arg;
    int h = ng_export_slots_acquire();
    w->got_at = ng_monotonic();
    ng_export_slots_release(h);
    return NULL;
}

static void test_local_slots_wait(void **state)
{
    (void)state;
    assert_int_equal(ng_export_slots_setup(1, 0), 1);
    assert_int_equal(ng_export_slots_setup(5, 0), 0);   /* already there */
    int h = ng_export_slots_acquire();
    assert_true(h != -1);
    struct waiter w = { 0 };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, take_one, &w), 0);
    struct timespec nap = { 0, 200 * 1000 * 1000 };
    nanosleep(&nap, NULL);
    double released = ng_monotonic();
    ng_export_slots_release(h);
    pthread_join(t, NULL);
    assert_true(w.got_at >= released);   /* it waited for the release */
    ng_export_slots_teardown();
    assert_int_equal(ng_export_slots_acquire(), -1);   /* no slots: no limit */
}

static void test_shared_slots_hold_across_fork(void **state)
{
    (void)state;
    char dir[] = "/tmp/ng-slots-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);
    assert_int_equal(ng_export_slots_setup(1, 1), 1);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* a gate: inherits the slots, holds the one slot for 300 ms */
        int h = ng_export_slots_acquire();
        char c = h >= 0 ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1)
            _exit(2);
        struct timespec nap = { 0, 300 * 1000 * 1000 };
        nanosleep(&nap, NULL);
        ng_export_slots_teardown();   /* not the owner: does nothing */
        _exit(0);
    }
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(c, 'y');
    double t0 = ng_monotonic();
    int h = ng_export_slots_acquire();   /* waits for the child to exit */
    double waited = ng_monotonic() - t0;
    assert_true(h >= 0);
    assert_true(waited > 0.2);
    ng_export_slots_release(h);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ng_export_slots_teardown();
    assert_int_equal(rmdir(dir), 0);   /* the owner removed its run directory */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_local_slots_wait),
        cmocka_unit_test(test_shared_slots_hold_across_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
