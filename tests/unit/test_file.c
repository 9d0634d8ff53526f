/* ng_file: where a write lands (symlinks followed, spellings of one file
 * give one key). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ng_file.h"
#include "ng_util.h"

static char dir[] = "/tmp/ng-file-test.XXXXXX";

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir) || chdir(dir) < 0)
        return -1;
    return mkdir("d", 0700) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[sizeof dir + 16];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect_target(const char *path, const char *want)
{
    char *got = ng_file_target(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_target(void **state)
{
    (void)state;
    expect_target("plain.json", "plain.json");   /* nothing there yet */
    assert_int_equal(symlink("d/real.json", "link.json"), 0);
    expect_target("link.json", "d/real.json");   /* dangling: the file it will create */
    assert_int_equal(symlink("../d/real.json", "d/up.json"), 0);
    expect_target("d/up.json", "d/../d/real.json");   /* relative to the link's directory */
    assert_int_equal(symlink("link.json", "chain.json"), 0);
    expect_target("chain.json", "d/real.json");
    assert_int_equal(symlink("/abs/elsewhere", "abs.json"), 0);
    expect_target("abs.json", "/abs/elsewhere");
    assert_int_equal(symlink("loop2", "loop1"), 0);
    assert_int_equal(symlink("loop1", "loop2"), 0);
    errno = 0;
    assert_null(ng_file_target("loop1"));
    assert_int_equal(errno, ELOOP);
}

/* Every spelling of one file gives one key; other files other keys. */
static void test_key(void **state)
{
    static const char *const same[] = { "d/k.json", "./d/k.json", "d/../d/k.json", "d//k.json",
                                        "klink.json" };
    (void)state;
    assert_int_equal(symlink("d/k.json", "klink.json"), 0);
    char *want = ng_file_key(same[0]);
    char here[4096];
    assert_non_null(getcwd(here, sizeof here));
    assert_int_equal(strncmp(want, here, strlen(here)), 0);   /* absolute */
    for (size_t i = 1; i < sizeof same / sizeof same[0]; i++) {
        char *k = ng_file_key(same[i]);
        assert_string_equal(k, want);
        free(k);
    }
    char *other = ng_file_key("d/other.json");
    assert_string_not_equal(other, want);
    free(other);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_key),
    };
    return cmocka_run_group_tests_name("file", tests, setup, teardown);
}
