/* One file read by two readers at once (the same operand twice, one report
 * in two gates of a batch): POSIX record locks belong to the process and
 * the file, so any close() of a descriptor of the file drops the lock the
 * other reader's SQLite connection reads under.  ng_file_hold/ng_file_close
 * keep the gate's own descriptors open while a connection holds the file;
 * these tests look at the lock from another process, as a writer would. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "trace_helper.h"
#include "core/ng_profile.h"
#include "sources/ng_source.h"
#include "util/ng_file.h"

/* SQLite's unix VFS takes a reader's SHARED lock as a read lock on these
 * bytes (SHARED_FIRST = PENDING_BYTE + 2, SHARED_SIZE) */
#define SHARED_FIRST 0x40000002
#define SHARED_SIZE 510

static int make_trace(void **state)
{
    (void)state;
    return trace_make("locks", "--kernels 2000 --names 4");
}

/* 1 when another process sees a read lock on SQLite's shared bytes (a
 * writer would wait), 0 when it could write now. */
static int read_locked(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
                            .l_start = SHARED_FIRST, .l_len = SHARED_SIZE };
        int fd = open(path, O_RDWR);
        if (fd < 0 || fcntl(fd, F_GETLK, &fl) < 0)
            _exit(2);
        _exit(fl.l_type == F_UNLCK ? 0 : 1);
    }
    int st = 0;
    assert_true(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    assert_true(WEXITSTATUS(st) <= 1);
    return WEXITSTATUS(st);
}

/* The other reader: a connection inside a read transaction, its file held
 * as the gate's SQLite backend holds it. */
struct other {
    sqlite3 *db;
    int fd;
    struct ng_file_id id;
};

static void other_begin(struct other *o, int hold)
{
    char uri[300];
    snprintf(uri, sizeof uri, "file:%s?mode=ro", path);
    o->fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(o->fd >= 0);
    memset(&o->id, 0, sizeof o->id);
    if (hold)
        ng_file_hold(o->fd, &o->id);
    assert_int_equal(sqlite3_open_v2(uri, &o->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_exec(o->db, "BEGIN; SELECT count(*) FROM sqlite_master", NULL,
                                  NULL, NULL), SQLITE_OK);
    assert_int_equal(read_locked(), 1);
}

static void other_end(struct other *o)
{
    sqlite3_exec(o->db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(o->db);
    ng_file_close(o->fd);
    ng_file_unhold(&o->id);
}

/* What the tests below guard against, shown: a plain close() of another
 * descriptor of the file ends the connection's lock. */
static void test_plain_close_drops_the_lock(void **state)
{
    struct other o;
    (void)state;
    other_begin(&o, 0);
    close(open(path, O_RDONLY));
    assert_int_equal(read_locked(), 0);
    other_end(&o);
}

/* ng_file_close() of a held file keeps the descriptor until the last hold
 * ends, and then closes it. */
static void test_held_close_keeps_the_lock(void **state)
{
    struct other o;
    (void)state;
    other_begin(&o, 1);
    int fd = open(path, O_RDONLY);
    ng_file_close(fd);
    assert_int_equal(read_locked(), 1);
    assert_true(fcntl(fd, F_GETFD) >= 0);   /* put off, not closed */
    other_end(&o);
    assert_true(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
    assert_int_equal(read_locked(), 0);
}

/* The whole loading path (probe, header, page reader, SQL, release) while
 * another reader is inside its transaction: the lock is still there, in
 * both of the backend's ways of reading. */
static void test_load_keeps_the_lock(void **state)
{
    (void)state;
    for (int sql_only = 0; sql_only <= 1; sql_only++) {
        struct other o;
        struct ng_profile p;
        struct ng_err err;
        struct ng_source_opts opts = { .sql_only = sql_only };
        other_begin(&o, 1);
        ng_profile_init(&p, path);
        assert_int_equal(ng_source_load(&p, &opts, &err), 0);
        assert_int_equal(p.launches, 2000);
        ng_profile_release(&p);
        if (read_locked() != 1)
            fail_msg("reading the file %s dropped the other reader's lock",
                     sql_only ? "through SQL" : "with the page reader");
        other_end(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_close_drops_the_lock),
        cmocka_unit_test(test_held_close_keeps_the_lock),
        cmocka_unit_test(test_load_keeps_the_lock),
    };
    return cmocka_run_group_tests(tests, make_trace, trace_remove);
}
