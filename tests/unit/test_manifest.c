/* The manifest reader: fields through the CLI's own parsers, the command
 * line as defaults, paths relative to the manifest, and one message per
 * bad manifest naming the entry and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/ng_manifest.h"
#include "cli/ng_outputs.h"

static char dir[] = "/tmp/ng-manifest-test.XXXXXX";
static char path[sizeof dir + 32];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/m.json", dir);
    unsetenv("NSYS_GATE_EPOCHS");
    unsetenv("NSYS_GATE_THRESHOLD");
    unsetenv("NSYS_GATE_BASELINE");
    unsetenv("NSYS_GATE_CURRENT");
    unsetenv("NSYS_GATE_EPOCH_RANGE");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static void write_manifest(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The command line: --manifest PATH plus extra arguments. */
static void parse_cli(struct ng_settings *s, const char *extra1, const char *extra2)
{
    char *argv[] = { "nsys-gate", "--manifest", path, (char *)extra1, (char *)extra2, NULL };
    int argc = extra2 ? 5 : extra1 ? 4 : 3;
    struct ng_err err;
    assert_int_equal(ng_cli_parse(s, argc, argv, &err), 0);
}

static void test_fields(void **state)
{
    struct ng_settings cli;
    struct ng_manifest m;
    struct ng_err err;
    (void)state;
    write_manifest(
        "{\"$schema\": \"x\", \"gates\": [\n"
        " {\"name\": \"a\", \"baseline\": \"b.sqlite\", \"current\": [\"c1.csv\", \"/abs/c2.csv\"]},\n"
        " {\"name\": \"b\", \"baseline\": \"sub/b.sqlite\", \"current\": \"c.sqlite\",\n"
        "  \"epochs\": 10, \"threshold\": \"15%\", \"epoch_range\": \"auto\", \"skip_epochs\": 1,\n"
        "  \"fail_inconclusive\": true, \"verbose\": false, \"alpha\": 0, \"nsys\": \"nsys\",\n"
        "  \"top\": null}\n"
        "]}\n");
    parse_cli(&cli, "--threshold=1.5", "--epochs=7");
    assert_int_equal(ng_manifest_load(&m, &cli, &err), 0);
    assert_int_equal(m.n_gates, 2);

    const struct ng_settings *a = &m.gates[0], *b = &m.gates[1];
    char want[sizeof path + 32];
    assert_string_equal(a->compare.name, "a");
    assert_true(a->compare.threshold == 1.5);   /* the command line's */
    assert_int_equal(a->compare.epochs, 7);
    assert_int_equal(a->n_baselines, 1);
    snprintf(want, sizeof want, "%s/b.sqlite", dir);
    assert_string_equal(a->baselines[0], want);
    assert_int_equal(a->n_currents, 2);
    assert_string_equal(a->currents[1], "/abs/c2.csv");
    assert_int_equal(a->compare.nvtx, 0);

    assert_true(b->compare.threshold == 1.15);
    assert_int_equal(b->compare.epochs, 10);
    assert_string_equal(b->epoch_range, "auto");
    assert_int_equal(b->compare.nvtx, 1);
    assert_int_equal(b->compare.skip_epochs, 1);
    assert_int_equal(b->fail_inconclusive, 1);
    assert_int_equal(b->verbose, 0);
    assert_true(b->compare.alpha == 0);
    assert_string_equal(b->nsys, "nsys");   /* a bare name stays a PATH lookup */
    assert_int_equal(b->compare.top, 5);   /* null: the default */
    snprintf(want, sizeof want, "%s/sub/b.sqlite", dir);
    assert_string_equal(b->baselines[0], want);
    ng_manifest_release(&m);
    ng_cli_release(&cli);
}

/* The gate policy fields; a gate's pattern list replaces the command
 * line's rather than adding to it, and a gate without one keeps it. */
static void test_policy_fields(void **state)
{
    struct ng_settings cli;
    struct ng_manifest m;
    struct ng_err err;
    (void)state;
    write_manifest(
        "{\"gates\": [\n"
        " {\"name\": \"a\", \"baseline\": \"b.sqlite\", \"current\": \"c.sqlite\"},\n"
        " {\"name\": \"b\", \"baseline\": \"b.sqlite\", \"current\": \"c.sqlite\",\n"
        "  \"exclude_kernels\": [\"^ncclKernel\", \"^ncclDev\"], \"kernels\": \"gemm\",\n"
        "  \"min_delta_ms\": 0.5, \"kernel_threshold\": \"50%\", \"kernel_min_delta_ms\": \"0.25\",\n"
        "  \"fail_on_improvement\": true, \"kernel_names\": \"base\"}\n"
        "]}\n");
    parse_cli(&cli, "--exclude-kernels=^nccl", NULL);
    assert_int_equal(ng_manifest_load(&m, &cli, &err), 0);

    const struct ng_policy *a = &m.gates[0].compare.policy, *b = &m.gates[1].compare.policy;
    assert_int_equal(a->n_exclude, 1);
    assert_string_equal(a->exclude[0], "^nccl");
    assert_int_equal(a->n_kernels, 0);
    assert_true(a->kernel_threshold == 0);
    assert_int_equal(b->n_exclude, 2);
    assert_string_equal(b->exclude[0], "^ncclKernel");
    assert_string_equal(b->exclude[1], "^ncclDev");
    assert_int_equal(b->n_kernels, 1);
    assert_string_equal(b->kernels[0], "gemm");
    assert_true(b->min_delta_ms == 0.5);
    assert_true(b->kernel_threshold == 1.5);
    assert_true(b->kernel_min_delta_ms == 0.25);
    assert_int_equal(b->fail_on_improvement, 1);
    assert_int_equal(b->base_names, 1);
    ng_manifest_release(&m);
    ng_cli_release(&cli);
}

struct bad_case {
    const char *json;
    const char *err;     /* after "manifest '<path>': " */
};

static const struct bad_case bad[] = {
    { "[1]", "not a JSON object with a \"gates\" array" },
    { "{\"gates\": []}", "no gates (\"gates\" is empty)" },
    { "{\"gate\": []}", "unknown top-level field \"gate\" (expected \"gates\")" },
    { "{\"gates\": {}}", "no \"gates\" array" },
    { "{\"gates\": [\n{\"name\": \"a\",\n \"baseline\": \"b\" \"current\": \"c\"}]}",
      "not valid JSON (near line 3)" },
    { "{\"gates\": [7]}", "gates[0] (no name): is not an object" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\"},"
      " {\"name\": \"bert\", \"baseline\": \"b\", \"current\": \"c\", \"threshold\": 0.5}]}",
      "gates[1] (name \"bert\"): field \"threshold\": '0.5' must be a ratio of at least 1 "
      "(e.g. 1.2, 1.20x or 20%)" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"thresold\": 2}]}",
      "gates[0] (name \"a\"): field \"thresold\": is not an option (see nsys-gate --help)" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"junit\": \"j\"}]}",
      "gates[0] (name \"a\"): field \"junit\": is not a per-gate option: give --junit on the "
      "command line" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", "
      "\"epoch-range\": \"auto\"}]}",
      "gates[0] (name \"a\"): field \"epoch-range\": is spelled with '_' for '-' in a manifest" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"epochs\": [1]}]}",
      "gates[0] (name \"a\"): field \"epochs\": takes one value, not a list" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"epochs\": true}]}",
      "gates[0] (name \"a\"): field \"epochs\": must be a string or a number" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"verbose\": 1}]}",
      "gates[0] (name \"a\"): field \"verbose\": must be true or false" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", \"epochs\": 2.5}]}",
      "gates[0] (name \"a\"): field \"epochs\": '2.5' is not a positive integer" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": [], \"current\": \"c\"}]}",
      "gates[0] (name \"a\"): field \"baseline\": is an empty list" },
    { "{\"gates\": [{\"name\": \"a\", \"current\": \"c\"}]}",
      "gates[0] (name \"a\"): field \"baseline\": is missing" },
    { "{\"gates\": [{\"baseline\": \"b\", \"current\": \"c\"}]}",
      "gates[0] (no name): field \"name\": is missing" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\"},"
      " {\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\"}]}",
      "gates[1] (name \"a\"): field \"name\": is the name of gates[0] too (JUnit readers keep "
      "only one of them)" },
    { "{\"gates\": [{\"name\": \"a\", \"baseline\": \"b\", \"current\": \"c\", "
      "\"skip_epochs\": 2}]}",
      "gates[0] (name \"a\"): --skip-epochs needs --epoch-range (NVTX epochs)" },
};

static void test_errors(void **state)
{
    struct ng_settings cli;
    struct ng_manifest m;
    struct ng_err err;
    char want[NG_ERR_MAX];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        print_message("case %zu\n", i);
        write_manifest(bad[i].json);
        parse_cli(&cli, NULL, NULL);
        assert_int_equal(ng_manifest_load(&m, &cli, &err), -1);
        snprintf(want, sizeof want, "manifest '%s': %s", path, bad[i].err);
        assert_string_equal(err.msg, want);
        assert_int_equal(m.n_gates, 0);
        ng_cli_release(&cli);
    }
    unlink(path);
    parse_cli(&cli, NULL, NULL);
    assert_int_equal(ng_manifest_load(&m, &cli, &err), -1);
    snprintf(want, sizeof want, "--manifest: unable to open '%s': No such file or directory",
             path);
    assert_string_equal(err.msg, want);
    ng_cli_release(&cli);
}

/* The command line in batch mode. */
static void test_cli(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    (void)state;
    char *a1[] = { "nsys-gate", "--manifest", "m.json", "-j", "3" };
    assert_int_equal(ng_cli_parse(&s, 5, a1, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.jobs, 3);
    char *a2[] = { "nsys-gate", "--manifest=m.json", "-j12" };
    assert_int_equal(ng_cli_parse(&s, 3, a2, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.jobs, 12);
    char *a3[] = { "nsys-gate", "--manifest", "m.json", "b.sqlite", "c.sqlite" };
    assert_int_equal(ng_cli_parse(&s, 5, a3, &err), -1);
    ng_cli_release(&s);
    assert_string_equal(err.msg, "--manifest takes no profiles on the command line: each gate "
                                 "names its own baseline and current");
    char *a4[] = { "nsys-gate", "--manifest", "m.json", "-j", "0" };
    assert_int_equal(ng_cli_parse(&s, 5, a4, &err), -1);
    ng_cli_release(&s);
    assert_string_equal(err.msg, "--jobs='0' must be at least 1");
    char *a5[] = { "nsys-gate", "--manifest", "m.json", "-jx" };
    assert_int_equal(ng_cli_parse(&s, 4, a5, &err), -1);
    ng_cli_release(&s);
    assert_string_equal(err.msg, "--jobs='x' is not a positive integer");
    char *a6[] = { "nsys-gate", "-hx" };
    assert_int_equal(ng_cli_parse(&s, 2, a6, &err), -1);
    ng_cli_release(&s);
    assert_string_equal(err.msg, "unknown option '-hx' (see --help)");
}

/* GitHub mode: asked for, or the runner's GITHUB_ACTIONS=true. */
static void test_github_switch(void **state)
{
    struct ng_settings s;
    struct ng_err err;
    char *argv[] = { "nsys-gate", "a", "b" };
    char *off[] = { "nsys-gate", "--github=0", "a", "b" };
    (void)state;
    unsetenv("NSYS_GATE_GITHUB");
    setenv("GITHUB_ACTIONS", "", 1);
    assert_int_equal(ng_cli_parse(&s, 3, argv, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.github, 0);
    setenv("GITHUB_ACTIONS", "true", 1);
    setenv("GITHUB_STEP_SUMMARY", "/x/summary", 1);
    setenv("GITHUB_OUTPUT", "", 1);
    assert_int_equal(ng_cli_parse(&s, 3, argv, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.github, 1);
    assert_string_equal(s.outputs[ng_outputs_find("GITHUB_STEP_SUMMARY")], "/x/summary");
    assert_null(s.outputs[ng_outputs_find("GITHUB_OUTPUT")]);   /* empty is unset */
    assert_int_equal(ng_cli_parse(&s, 4, off, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.github, 0);
    setenv("NSYS_GATE_GITHUB", "no", 1);
    assert_int_equal(ng_cli_parse(&s, 3, argv, &err), 0);
    ng_cli_release(&s);
    assert_int_equal(s.github, 0);
    unsetenv("NSYS_GATE_GITHUB");
    unsetenv("GITHUB_ACTIONS");
    unsetenv("GITHUB_STEP_SUMMARY");
    unsetenv("GITHUB_OUTPUT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_policy_fields),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_github_switch),
    };
    return cmocka_run_group_tests_name("manifest", tests, setup, teardown);
}
