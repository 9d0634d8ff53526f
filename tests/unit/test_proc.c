/* ng_proc: the one-line tail of what a program printed leaves out its
 * progress bars (nsys redraws them with carriage returns), keeps the rest;
 * the extra environment replaces a variable of the same name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sources/nsysrep/ng_proc.h"

static void tail_of(const char *text, int lines, const char *want)
{
    struct ng_buf in = NG_BUF_INIT, out = NG_BUF_INIT;
    ng_buf_adds(&in, text);
    ng_proc_tail_line(&in, lines, &out);
    assert_string_equal(out.data ? out.data : "", want);
    ng_buf_release(&in);
    ng_buf_release(&out);
}

static void test_tail_drops_progress_bars(void **state)
{
    (void)state;
    tail_of("\rProcessing 7708 events: [=                40%   ]"
            "\rProcessing 7708 events: [==================100%]\n"
            "Exportation error: boom\n", 3, "Exportation error: boom");
    tail_of("Processing [0%          ]\rProcessing [=====50%     ]\r", 2, "");
    tail_of("first\nProcessing [==100%]\nsecond\n", 3, "first | second");
    /* brackets that are not a bar stay */
    tail_of("exit code [2]\n", 1, "exit code [2]");
    tail_of("[QuadDCommon::tag_message*] = database or disk is full\n", 1,
            "[QuadDCommon::tag_message*] = database or disk is full");
}

static void test_env_replaces(void **state)
{
    (void)state;
    setenv("NG_PROC_TEST", "old", 1);
    const char *argv[] = { "/bin/sh", "-c", "echo \"$NG_PROC_TEST\"", NULL };
    const char *env[] = { "NG_PROC_TEST=new", NULL };
    struct ng_proc_opts o = { .env = env, .timeout_s = 10 };
    struct ng_proc_result r;
    struct ng_err err;
    assert_int_equal(ng_proc_run(argv, &o, &r, &err), 0);
    assert_int_equal(r.exited, 1);
    assert_string_equal(r.out_tail.data, "new\n");
    ng_proc_result_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_drops_progress_bars),
        cmocka_unit_test(test_env_replaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
