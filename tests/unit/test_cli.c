/* Option and environment parsing: one table of cases, each a command line,
 * an environment and what must come out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/ng_cli.h"
#include "cli/ng_outputs.h"
#include "cli/ng_values.h"

#define MAXARGS 12

struct cli_case {
    const char *args[MAXARGS];
    const char *env[4];          /* "NAME=value" */
    int rc;
    const char *err;             /* exact message when rc is -1 */
    long epochs;
    double threshold;
    const char *name;
};

static const char *const all_env[] = {
    "NSYS_GATE_EPOCHS", "NSYS_GATE_THRESHOLD", "NSYS_GATE_JSON", "NSYS_GATE_JUNIT",
    "NSYS_GATE_NAME", "NSYS_GATE_NSYS", "NSYS_GATE_QUIET", "NSYS_GATE_NSYS_TIMEOUT", NULL,
};

static const struct cli_case cases[] = {
    /* defaults */
    { { "a", "b" }, { NULL }, 0, NULL, 5, 1.20, "gpu-time-per-epoch" },
    /* threshold spellings all mean the same double */
    { { "--threshold", "1.2", "a", "b" }, { NULL }, 0, NULL, 5, 1.2, NULL },
    { { "--threshold", "1.20x", "a", "b" }, { NULL }, 0, NULL, 5, 1.2, NULL },
    { { "--threshold=20%", "a", "b" }, { NULL }, 0, NULL, 5, 1.2, NULL },
    { { "--threshold", "1.5X", "a", "b" }, { NULL }, 0, NULL, 5, 1.5, NULL },
    { { "--threshold", "7%", "a", "b" }, { NULL }, 0, NULL, 5, 1.07, NULL },
    { { "--threshold", "1", "a", "b" }, { NULL }, 0, NULL, 5, 1.0, NULL },
    /* environment, and flag over environment */
    { { "a", "b" }, { "NSYS_GATE_EPOCHS=7", "NSYS_GATE_THRESHOLD=30%" }, 0, NULL, 7, 1.3, NULL },
    { { "--epochs", "3", "a", "b" }, { "NSYS_GATE_EPOCHS=7" }, 0, NULL, 3, 1.2, NULL },
    /* a flag wins, so a bad variable behind it is never read */
    { { "--epochs", "3", "a", "b" }, { "NSYS_GATE_EPOCHS=abc" }, 0, NULL, 3, 1.2, NULL },
    /* empty variable = unset */
    { { "a", "b" }, { "NSYS_GATE_EPOCHS=", "NSYS_GATE_NAME=" }, 0, NULL, 5, 1.2,
      "gpu-time-per-epoch" },
    { { "--name", "resnet", "a", "b" }, { NULL }, 0, NULL, 5, 1.2, "resnet" },
    { { "a", "b" }, { "NSYS_GATE_NAME=bert" }, 0, NULL, 5, 1.2, "bert" },
    { { "--", "-a", "b" }, { NULL }, 0, NULL, 5, 1.2, NULL },
    /* bad values: one message naming the flag or variable and the value */
    { { "--threshold", "abc", "a", "b" }, { NULL }, -1,
      "--threshold='abc' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "a", "b" }, { "NSYS_GATE_THRESHOLD=abc" }, -1,
      "NSYS_GATE_THRESHOLD='abc' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "1.2.3", "a", "b" }, { NULL }, -1,
      "--threshold='1.2.3' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "1.2xx", "a", "b" }, { NULL }, -1,
      "--threshold='1.2xx' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "inf", "a", "b" }, { NULL }, -1,
      "--threshold='inf' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "nan", "a", "b" }, { NULL }, -1,
      "--threshold='nan' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "-1.5", "a", "b" }, { NULL }, -1,
      "--threshold='-1.5' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "0.9", "a", "b" }, { NULL }, -1,
      "--threshold='0.9' must be a ratio of at least 1 (e.g. 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", "1e3", "a", "b" }, { NULL }, -1,
      "--threshold='1e3' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--threshold", " 1.2", "a", "b" }, { NULL }, -1,
      "--threshold=' 1.2' is not a number (use a ratio such as 1.2, 1.20x or 20%)", 0, 0, NULL },
    { { "--epochs", "0", "a", "b" }, { NULL }, -1, "--epochs='0' must be at least 1", 0, 0, NULL },
    { { "--epochs", "-3", "a", "b" }, { NULL }, -1, "--epochs='-3' is not a positive integer", 0, 0, NULL },
    { { "--epochs", "5x", "a", "b" }, { NULL }, -1, "--epochs='5x' is not a positive integer", 0, 0, NULL },
    { { "--epochs", "2.5", "a", "b" }, { NULL }, -1, "--epochs='2.5' is not a positive integer", 0, 0, NULL },
    { { "--epochs", "99999999999", "a", "b" }, { NULL }, -1, "--epochs='99999999999' is too large", 0, 0, NULL },
    { { "--epochs", "2147483648", "a", "b" }, { NULL }, -1, "--epochs='2147483648' is too large", 0, 0, NULL },
    { { "a", "b" }, { "NSYS_GATE_EPOCHS=0x10" }, -1,
      "NSYS_GATE_EPOCHS='0x10' is not a positive integer", 0, 0, NULL },
    { { "--name", "  ", "a", "b" }, { NULL }, -1, "--name='  ' is empty", 0, 0, NULL },
    { { "--junit", "-", "a", "b" }, { NULL }, -1,
      "--junit='-' cannot be standard output (only --json can)", 0, 0, NULL },
    { { "a", "b" }, { "NSYS_GATE_QUIET=maybe" }, -1,
      "NSYS_GATE_QUIET='maybe' is not a boolean (use 1/0, true/false, yes/no)", 0, 0, NULL },
    { { "--bogus", "a", "b" }, { NULL }, -1, "unknown option '--bogus' (see --help)", 0, 0, NULL },
    { { "-x", "a", "b" }, { NULL }, -1, "unknown option '-x' (see --help)", 0, 0, NULL },
    { { "--treshold", "5%", "a", "b" }, { NULL }, -1,
      "unknown option '--treshold': did you mean '--threshold'? (see --help)", 0, 0, NULL },
    { { "--jsn", "x", "a", "b" }, { NULL }, -1,
      "unknown option '--jsn': did you mean '--json'? (see --help)", 0, 0, NULL },
    { { "a" }, { NULL }, -1, "missing operand: expected BASELINE and CURRENT (see --help)", 0, 0, NULL },
    { { NULL }, { NULL }, -1, "missing operand: expected BASELINE and CURRENT (see --help)", 0, 0, NULL },
    { { "a", "b", "c" }, { NULL }, -1, "too many operands: 'c' (expected BASELINE CURRENT)", 0, 0, NULL },
    { { "a", "b", "--epochs" }, { NULL }, -1, "option '--epochs' needs a value (N)", 0, 0, NULL },
    { { "--help=1", "a", "b" }, { NULL }, -1, "option '--help' takes no value", 0, 0, NULL },
    /* a terminal escape in a value is shown, not sent */
    { { "--epochs", "\x1b[31m", "a", "b" }, { NULL }, -1,
      "--epochs='\\x1B[31m' is not a positive integer", 0, 0, NULL },
};

static void run_case(const struct cli_case *c)
{
    char *argv[MAXARGS + 1] = { "nsys-gate" };
    int argc = 1;
    struct ng_settings s;
    struct ng_err err = { "" };

    for (int i = 0; all_env[i]; i++)
        unsetenv(all_env[i]);
    for (int i = 0; i < 4 && c->env[i]; i++)
        putenv((char *)c->env[i]);
    for (int i = 0; i < MAXARGS && c->args[i]; i++)
        argv[argc++] = (char *)c->args[i];

    int rc = ng_cli_parse(&s, argc, argv, &err);
    assert_int_equal(rc, c->rc);
    if (rc < 0) {
        assert_string_equal(err.msg, c->err);
        ng_cli_release(&s);
        return;
    }
    assert_int_equal(s.compare.epochs, c->epochs);
    assert_true(s.compare.threshold == c->threshold);
    if (c->name)
        assert_string_equal(s.compare.name, c->name);
    ng_cli_release(&s);
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        print_message("case %zu: %s\n", i, cases[i].args[0] ? cases[i].args[0] : "(none)");
        run_case(&cases[i]);
    }
}

/* Report paths survive a bad value elsewhere, so main can still write the
 * requested reports for a usage error. */
static void test_paths_kept_on_error(void **state)
{
    char *argv[] = { "nsys-gate", "--json", "v.json", "--junit", "j.xml", "--epochs", "0", "a",
                     "b" };
    struct ng_settings s;
    struct ng_err err;
    (void)state;
    for (int i = 0; all_env[i]; i++)
        unsetenv(all_env[i]);
    assert_int_equal(ng_cli_parse(&s, 9, argv, &err), -1);
    assert_string_equal(s.outputs[ng_outputs_find("--json")], "v.json");
    assert_string_equal(s.outputs[ng_outputs_find("--junit")], "j.xml");
    assert_string_equal(s.baselines[0], "a");
    ng_cli_release(&s);
}

static void test_switches(void **state)
{
    char *argv[] = { "nsys-gate", "--quiet", "--json=-", "a", "b" };
    struct ng_settings s;
    struct ng_err err;
    (void)state;
    for (int i = 0; all_env[i]; i++)
        unsetenv(all_env[i]);
    assert_int_equal(ng_cli_parse(&s, 5, argv, &err), 0);
    assert_int_equal(s.quiet, 1);
    assert_string_equal(s.outputs[ng_outputs_find("--json")], "-");
    ng_cli_release(&s);

    putenv("NSYS_GATE_QUIET=yes");
    char *argv2[] = { "nsys-gate", "a", "b" };
    assert_int_equal(ng_cli_parse(&s, 3, argv2, &err), 0);
    assert_int_equal(s.quiet, 1);
    ng_cli_release(&s);
    char *argv3[] = { "nsys-gate", "--quiet=0", "a", "b" };
    assert_int_equal(ng_cli_parse(&s, 4, argv3, &err), 0);
    assert_int_equal(s.quiet, 0);
    ng_cli_release(&s);
    unsetenv("NSYS_GATE_QUIET");

    char *argv4[] = { "nsys-gate", "--version" };
    assert_int_equal(ng_cli_parse(&s, 2, argv4, &err), 0);
    assert_int_equal(s.show_version, 1);
    ng_cli_release(&s);
}

/* Batch mode's check: a report path that is one of the gates' profiles is
 * refused and dropped; the other report paths stay. */
static void test_refuse_outputs(void **state)
{
    char dir[] = "/tmp/ng-test-cli.XXXXXX";
    char profile[64], link[64];
    struct ng_settings s;
    struct ng_err err;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(profile, sizeof profile, "%s/b.sqlite", dir);
    snprintf(link, sizeof link, "%s/report.xml", dir);
    FILE *f = fopen(profile, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(symlink("b.sqlite", link), 0);
    for (int i = 0; all_env[i]; i++)
        unsetenv(all_env[i]);
    char *argv[] = { "nsys-gate", "--manifest", "m.json", "--json", "new.json", "--junit", link };
    assert_int_equal(ng_cli_parse(&s, 7, argv, &err), 0);

    const char *others[] = { NULL, "/nonexistent/x.sqlite", "m.json" };
    assert_int_equal(ng_outputs_refuse(&s, others, 3, &err), 0);
    assert_string_equal(s.outputs[ng_outputs_find("--junit")], link);

    const char *inputs[] = { "/nonexistent/x.sqlite", profile };
    assert_int_equal(ng_outputs_refuse(&s, inputs, 2, &err), -1);
    assert_null(s.outputs[ng_outputs_find("--junit")]);
    assert_string_equal(s.outputs[ng_outputs_find("--json")], "new.json");
    assert_non_null(strstr(err.msg, "--junit '"));
    assert_non_null(strstr(err.msg, "refusing to overwrite it"));
    ng_cli_release(&s);

    /* the CI runner's files too; and two outputs on one file keep the first */
    setenv("GITHUB_STEP_SUMMARY", profile, 1);
    char *argv2[] = { "nsys-gate", "--github", "--json", "x.json", "--metrics", "./x.json",
                      "--history", "/dev/null", "--junit", "/dev/null", profile, "b" };
    assert_int_equal(ng_cli_parse(&s, 12, argv2, &err), -1);
    assert_non_null(strstr(err.msg, "GITHUB_STEP_SUMMARY '"));
    assert_non_null(strstr(err.msg, "refusing to append to it"));
    assert_null(s.outputs[ng_outputs_find("GITHUB_STEP_SUMMARY")]);
    assert_string_equal(s.outputs[ng_outputs_find("--json")], "x.json");
    assert_null(s.outputs[ng_outputs_find("--metrics")]);
    /* written in place, not replaced: /dev/null may take several */
    assert_string_equal(s.outputs[ng_outputs_find("--history")], "/dev/null");
    assert_string_equal(s.outputs[ng_outputs_find("--junit")], "/dev/null");
    ng_cli_release(&s);
    unsetenv("GITHUB_STEP_SUMMARY");
    unlink(link);
    unlink(profile);
    rmdir(dir);
}

static void test_threshold_parser(void **state)
{
    static const struct { const char *in; double out; } ok[] = {
        { "1.2", 1.2 }, { "1.20x", 1.2 }, { "20%", 1.2 }, { "20.0%", 1.2 }, { "0%", 1.0 },
        { "1", 1.0 }, { "3x", 3.0 }, { "12.5%", 1.125 }, { "100%", 2.0 }, { ".5%", 1.005 },
        { "1.99", 1.99 }, { "20x", 20.0 }, { "2x", 2.0 }, { "2.0x", 2.0 },
    };
    static const char *const bad[] = { "", "x", "%", "1.2 ", "+1.2", "1,2", "0x1p0", "1e0",
                                       "infinity", "NaN", "0.99", "-20%", "20%%", "1.2%x",
                                       "2", "20", "2.0", "150" };
    const char *problem;
    double v;
    (void)state;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(ng_values_parse_threshold(ok[i].in, &v, &problem), 0);
        assert_true(v == ok[i].out);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ng_values_parse_threshold(bad[i], &v, &problem), -1);
    /* a bare 20: each reading named, the percentage's ratio worked out */
    assert_int_equal(ng_values_parse_threshold("20", &v, &problem), -1);
    assert_string_equal(problem, "is ambiguous: write 20% (or 1.2) to fail past a 20% slowdown, "
                                 "or 20x to allow 20 times the baseline");
    assert_int_equal(ng_values_parse_threshold("2.5", &v, &problem), -1);
    assert_string_equal(problem, "is ambiguous: write 2.5% (or 1.025) to fail past a 2.5% "
                                 "slowdown, or 2.5x to allow 2.5 times the baseline");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_paths_kept_on_error),
        cmocka_unit_test(test_switches),
        cmocka_unit_test(test_refuse_outputs),
        cmocka_unit_test(test_threshold_parser),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
