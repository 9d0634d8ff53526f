/* ng_file: where a write lands (symlinks followed, spellings of one file
 * give one key), and appends that are all or nothing. */
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/ng_file.h"
#include "util/ng_util.h"

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

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct ng_buf b = NG_BUF_INIT;
    char chunk[4096];
    size_t n;
    if (!f)
        return NULL;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ng_buf_add(&b, chunk, n);
    fclose(f);
    return ng_buf_detach(&b);
}

static void expect_content(const char *path, const char *want)
{
    char *got = slurp(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* A file size limit (RLIMIT_FSIZE) fails a write past it as a full disk
 * would: the append is cut back, a file it created is removed. */
static void test_append_all_or_nothing(void **state)
{
    struct ng_err err;
    struct rlimit old, small = { 4096, 4096 };
    char line[8192];
    (void)state;
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = '\0';

    assert_int_equal(ng_file_append("h.jsonl", "{\"a\": 1}\n", 9, &err), 0);
    assert_int_equal(ng_file_append("h.jsonl", "{\"b\": 2}\n", 9, &err), 0);
    expect_content("h.jsonl", "{\"a\": 1}\n{\"b\": 2}\n");

    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int a = ng_file_append("h.jsonl", line, strlen(line), &err);
    int b = ng_file_append("new.jsonl", line, strlen(line), &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(a, -1);
    assert_int_equal(b, -1);
    assert_string_equal(err.msg, "unable to append to 'new.jsonl': File too large; the file is "
                                 "left as it was");
    expect_content("h.jsonl", "{\"a\": 1}\n{\"b\": 2}\n");
    assert_int_equal(access("new.jsonl", F_OK), -1);   /* no 0-byte file */
}

/* A fragment left by a writer that was killed keeps its own line. */
static void test_append_after_fragment(void **state)
{
    struct ng_err err;
    (void)state;
    FILE *f = fopen("torn.jsonl", "w");
    assert_non_null(f);
    fputs("{\"a\": 1}\n{\"b\"", f);
    fclose(f);
    assert_int_equal(ng_file_append("torn.jsonl", "{\"c\": 3}\n", 9, &err), 0);
    expect_content("torn.jsonl", "{\"a\": 1}\n{\"b\"\n{\"c\": 3}\n");
    /* through a symlink, to its target */
    assert_int_equal(symlink("d/via.jsonl", "via.jsonl"), 0);
    assert_int_equal(ng_file_append("via.jsonl", "x\n", 2, &err), 0);
    expect_content("d/via.jsonl", "x\n");
    /* a FIFO that nothing reads: an error, not a hang */
    assert_int_equal(mkfifo("fifo", 0600), 0);
    assert_int_equal(ng_file_append("fifo", "x\n", 2, &err), -1);
    assert_string_equal(err.msg, "unable to append to 'fifo': a FIFO that nothing reads");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_append_all_or_nothing),
        cmocka_unit_test(test_append_after_fragment),
    };
    return cmocka_run_group_tests_name("file", tests, setup, teardown);
}
