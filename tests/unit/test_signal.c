/* The signal registry: a fatal signal removes what was registered, kills
 * the registered groups, and still ends the process with that signal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/ng_signal.h"

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
}

static void test_signal_undoes_everything(void **state)
{
    (void)state;
    char dir[] = "/tmp/ng-signal-test.XXXXXX";
    char file[256], tree[256], nested[256], deep[256], kept[256];
    int ready[2];

    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/report.tmp", dir);
    snprintf(tree, sizeof tree, "%s/export", dir);
    snprintf(nested, sizeof nested, "%s/export/sub", dir);
    snprintf(deep, sizeof deep, "%s/export/sub/export.sqlite", dir);
    snprintf(kept, sizeof kept, "%s/forgotten.tmp", dir);
    assert_int_equal(mkdir(tree, 0700), 0);
    assert_int_equal(mkdir(nested, 0700), 0);
    touch(file);
    touch(deep);
    touch(kept);
    assert_int_equal(pipe(ready), 0);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        ng_signal_init();
        /* a grandchild in its own group, as nsys runs */
        pid_t g = fork();
        if (g == 0) {
            setpgid(0, 0);
            for (;;)
                pause();
        }
        setpgid(g, g);
        ng_signal_add_group(g);
        ng_signal_add_file(file);
        ng_signal_add_tree(tree);
        ng_signal_forget(ng_signal_add_file(kept));
        char pidbuf[32];
        int n = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)g);
        if (write(ready[1], pidbuf, (size_t)n) != n)
            _exit(3);
        for (;;)
            pause();
    }
    close(ready[1]);
    char buf[32] = "";
    ssize_t n = read(ready[0], buf, sizeof buf - 1);
    assert_true(n > 0);
    close(ready[0]);
    pid_t grandchild = (pid_t)atoi(buf);

    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_false(exists(file));
    assert_false(exists(tree));
    assert_true(exists(kept));   /* forgotten: not this registry's any more */
    /* the grandchild's group got SIGKILL: reaped by init, so poll until gone */
    int gone = 0;
    for (int i = 0; i < 200 && !gone; i++) {
        gone = kill(grandchild, 0) < 0 && errno == ESRCH;
        if (!gone)
            usleep(10000);
    }
    assert_true(gone);
    unlink(kept);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_undoes_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
