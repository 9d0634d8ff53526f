/* The batch module: a single gate is a batch of one, a manifest's gates
 * run in child processes and come back in manifest order, a refused
 * manifest is one ERROR gate, a report path that is a gate's profile is
 * refused and dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/ng_batch.h"
#include "cli/ng_outputs.h"

static char dir[] = "/tmp/ng-batch-test.XXXXXX";
static char manifest[sizeof dir + 32], base[sizeof dir + 32], cur[sizeof dir + 32];

/* A saved `nsys stats` kernel summary of one kernel of `ns` in total. */
static void write_summary(const char *path, long long ns)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "Time (%%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
               "StdDev (ns),Name\n100.0,%lld,10,1.0,1.0,1,1,0.0,k\n", ns);
    fclose(f);
}

static void write_manifest(const char *text)
{
    FILE *f = fopen(manifest, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(manifest, sizeof manifest, "%s/m.json", dir);
    snprintf(base, sizeof base, "%s/b.csv", dir);
    snprintf(cur, sizeof cur, "%s/c.csv", dir);
    write_summary(base, 100000000);
    write_summary(cur, 150000000);
    static const char *const vars[] = { "NSYS_GATE_EPOCHS", "NSYS_GATE_THRESHOLD",
                                        "NSYS_GATE_BASELINE", "NSYS_GATE_CURRENT",
                                        "NSYS_GATE_JSON", "NSYS_GATE_JUNIT", "NSYS_GATE_QUIET",
                                        "NSYS_GATE_MANIFEST", NULL };
    for (size_t i = 0; vars[i]; i++)
        unsetenv(vars[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(manifest);
    unlink(base);
    unlink(cur);
    rmdir(dir);
    return 0;
}

static int parse(struct ng_settings *s, int argc, char **argv, struct ng_err *err)
{
    return ng_cli_parse(s, argc, argv, err);
}

static void test_single_gate(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    struct ng_batch_run r;
    char *argv[] = { "nsys-gate", "--epochs", "1", base, cur };
    (void)state;
    assert_int_equal(parse(&s, 5, argv, &err), 0);
    ng_batch_run(&r, &s, NULL, ng_monotonic());
    assert_int_equal(r.batch.n, 1);
    assert_null(r.batch.manifest);   /* rendered as one verdict, not as a batch */
    assert_int_equal(r.batch.verdicts[0]->outcome, NG_OUTCOME_FAIL);
    assert_true(r.batch.verdicts[0]->ratio == 1.5);
    assert_string_equal(r.error, "");
    assert_int_equal(r.exit_code, 1);
    ng_batch_run_release(&r);

    /* a usage error: the run is that ERROR, with the paths it knows */
    ng_batch_run(&r, &s, &(struct ng_err){ "it is broken" }, ng_monotonic());
    assert_int_equal(r.batch.verdicts[0]->outcome, NG_OUTCOME_ERROR);
    assert_string_equal(r.error, "it is broken");
    assert_string_equal(r.batch.verdicts[0]->baseline.path, base);
    assert_int_equal(r.exit_code, 2);
    ng_batch_run_release(&r);
    ng_cli_release(&s);
}

static void test_manifest_gates(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    struct ng_batch_run r;
    char *argv[] = { "nsys-gate", "--manifest", manifest, "-j", "2" };
    (void)state;
    write_manifest("{\"gates\": ["
                   "{\"name\": \"slower\", \"baseline\": \"b.csv\", \"current\": \"c.csv\", \"epochs\": 1},"
                   "{\"name\": \"same\", \"baseline\": \"b.csv\", \"current\": \"b.csv\"},"
                   "{\"name\": \"missing\", \"baseline\": \"b.csv\", \"current\": \"none.csv\"}]}");
    assert_int_equal(parse(&s, 5, argv, &err), 0);
    ng_batch_run(&r, &s, NULL, ng_monotonic());
    assert_int_equal(r.batch.n, 3);
    assert_string_equal(r.batch.manifest, manifest);
    static const char *const names[] = { "slower", "same", "missing" };
    static const enum ng_outcome want[] = { NG_OUTCOME_FAIL, NG_OUTCOME_PASS, NG_OUTCOME_ERROR };
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(r.batch.verdicts[i]->name, names[i]);
        assert_int_equal(r.batch.verdicts[i]->outcome, want[i]);
        assert_true(r.batch.verdicts[i]->timestamp == r.batch.timestamp);
    }
    assert_non_null(strstr(r.batch.verdicts[2]->error, "none.csv"));
    /* a gate's error is the gate's, not the run's */
    assert_string_equal(r.error, "");
    assert_int_equal(r.exit_code, 2);
    ng_batch_run_release(&r);
    ng_cli_release(&s);
}

/* A refused manifest is one ERROR gate, so every report still says why,
 * and its line is not printed twice (once by main, once by the human
 * report). */
static void test_refused_manifest(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    struct ng_batch_run r;
    char *argv[] = { "nsys-gate", "--manifest", manifest };
    (void)state;
    write_manifest("{\"gates\": []}");
    assert_int_equal(parse(&s, 3, argv, &err), 0);
    ng_batch_run(&r, &s, NULL, ng_monotonic());
    assert_int_equal(r.batch.n, 1);
    assert_string_equal(r.batch.verdicts[0]->name, "manifest");
    assert_int_equal(r.batch.verdicts[0]->outcome, NG_OUTCOME_ERROR);
    assert_non_null(strstr(r.error, "no gates"));
    assert_string_equal(r.batch.verdicts[0]->error, r.error);
    assert_int_equal(r.outputs.quiet, 1);
    assert_int_equal(r.exit_code, 2);
    ng_batch_run_release(&r);
    ng_cli_release(&s);
}

/* A report path that is one gate's profile: refused, dropped, exit 2; the
 * gates still run. */
static void test_output_is_a_gate_profile(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    struct ng_batch_run r;
    char *argv[] = { "nsys-gate", "--manifest", manifest, "--junit", cur, "--json", "-" };
    (void)state;
    write_manifest("{\"gates\": [{\"name\": \"a\", \"baseline\": \"b.csv\", \"current\": \"c.csv\"}]}");
    assert_int_equal(parse(&s, 7, argv, &err), 0);
    ng_batch_run(&r, &s, NULL, ng_monotonic());
    assert_non_null(strstr(r.refusal, "--junit '"));
    assert_non_null(strstr(r.refusal, "refusing to overwrite it"));
    assert_null(r.outputs.outputs[ng_outputs_find("--junit")]);
    assert_string_equal(r.outputs.outputs[ng_outputs_find("--json")], "-");
    assert_int_equal(r.batch.verdicts[0]->outcome, NG_OUTCOME_FAIL);
    assert_int_equal(r.exit_code, 2);
    ng_batch_run_release(&r);
    ng_cli_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_gate),
        cmocka_unit_test(test_manifest_gates),
        cmocka_unit_test(test_refused_manifest),
        cmocka_unit_test(test_output_is_a_gate_profile),
    };
    return cmocka_run_group_tests_name("batch", tests, setup, teardown);
}
