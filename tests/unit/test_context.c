/* The run context: its order whatever the order of setting, the table of
 * CI variables for each system (GitHub Actions on a push and on a pull
 * request, GitLab CI, Jenkins, none), labels over CI fields, and the
 * label syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_verdict_text.h"
#include "core/ng_context.h"
#include "reporters/ng_report.h"
#include "reporters/ng_reporter.h"
#include "util/ng_util.h"

/* A fake environment: NAME=VALUE strings, NULL-terminated. */
static const char *fake_env(const char *name, void *ctx)
{
    const char *const *vars = ctx;
    size_t n = strlen(name);
    for (size_t i = 0; vars[i]; i++)
        if (strncmp(vars[i], name, n) == 0 && vars[i][n] == '=')
            return vars[i] + n + 1;
    return NULL;
}

/* The context as "key=value;key=value;" */
static char *shown(const struct ng_context *c)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_adds(&b, "");
    for (size_t i = 0; i < c->n; i++)
        ng_buf_addf(&b, "%s=%s;", c->items[i].key, c->items[i].value);
    return ng_buf_detach(&b);
}

static void expect(const char *const *env, const char *const *labels, size_t n_labels,
                   const char *want)
{
    struct ng_context c = { NULL, 0 };
    ng_context_collect(&c, labels, n_labels, fake_env, (void *)env);
    char *got = shown(&c);
    assert_string_equal(got, want);
    free(got);
    ng_context_release(&c);
}

static void test_order_and_removal(void **state)
{
    struct ng_context c = { NULL, 0 };
    (void)state;
    ng_context_set(&c, "zeta", "1");
    ng_context_set(&c, "runner", "r");
    ng_context_set(&c, "alpha", "2");
    ng_context_set(&c, "commit", "c");
    ng_context_set(&c, "branch", "b");
    char *s = shown(&c);
    assert_string_equal(s, "commit=c;branch=b;runner=r;alpha=2;zeta=1;");
    free(s);
    ng_context_set(&c, "branch", "other");   /* replaced in place */
    ng_context_set(&c, "alpha", "");         /* removed */
    ng_context_set(&c, "nothing", NULL);     /* nothing to remove */
    s = shown(&c);
    assert_string_equal(s, "commit=c;branch=other;runner=r;zeta=1;");
    free(s);
    assert_string_equal(ng_context_get(&c, "runner"), "r");
    assert_null(ng_context_get(&c, "alpha"));
    ng_context_release(&c);
    assert_int_equal(c.n, 0);
}

static void test_github(void **state)
{
    static const char *const push[] = {
        "GITHUB_ACTIONS=true", "GITHUB_SHA=0123abcd", "GITHUB_REF_NAME=main",
        "GITHUB_HEAD_REF=", "GITHUB_SERVER_URL=https://github.com",
        "GITHUB_REPOSITORY=org/repo", "GITHUB_RUN_ID=4242", "GITHUB_JOB=gate",
        "GITHUB_WORKFLOW=nightly", "RUNNER_NAME=gpu-7",
        /* another system's variables are not read */
        "CI_COMMIT_SHA=ffff", "BUILD_URL=https://jenkins/x", NULL,
    };
    static const char *const pull_request[] = {
        "GITHUB_ACTIONS=true", "GITHUB_SHA=9999", "GITHUB_REF_NAME=17/merge",
        "GITHUB_HEAD_REF=feature/x", "GITHUB_RUN_ID=5", NULL,
    };
    (void)state;
    expect(push, NULL, 0,
           "commit=0123abcd;branch=main;run_url=https://github.com/org/repo/actions/runs/4242;"
           "run_id=4242;job=gate;pipeline=nightly;runner=gpu-7;");
    /* the head branch on a pull request; no run_url without all three parts */
    expect(pull_request, NULL, 0, "commit=9999;branch=feature/x;run_id=5;");
}

static void test_gitlab(void **state)
{
    static const char *const env[] = {
        "GITLAB_CI=true", "CI_COMMIT_SHA=abc123", "CI_COMMIT_REF_NAME=main",
        "CI_JOB_URL=https://gitlab.example/g/p/-/jobs/77", "CI_JOB_ID=77",
        "CI_JOB_NAME=gpu-time", "CI_PIPELINE_ID=900", "CI_RUNNER_DESCRIPTION=a100 box",
        "GITHUB_SHA=not-this", NULL,
    };
    (void)state;
    expect(env, NULL, 0,
           "commit=abc123;branch=main;run_url=https://gitlab.example/g/p/-/jobs/77;run_id=77;"
           "job=gpu-time;pipeline=900;runner=a100 box;");
}

static void test_jenkins(void **state)
{
    static const char *const env[] = {
        "JENKINS_URL=https://jenkins.example/", "GIT_COMMIT=feedbeef", "BRANCH_NAME=release",
        "BUILD_URL=https://jenkins.example/job/nightly/12/", "BUILD_NUMBER=12",
        "JOB_NAME=nightly", "NODE_NAME=gpu-node", "STAGE_NAME=gate", NULL,
    };
    static const char *const home_only[] = { "JENKINS_HOME=/var/jenkins", "GIT_COMMIT=aa", NULL };
    (void)state;
    expect(env, NULL, 0,
           "commit=feedbeef;branch=release;run_url=https://jenkins.example/job/nightly/12/;"
           "run_id=12;job=gate;pipeline=nightly;runner=gpu-node;");
    expect(home_only, NULL, 0, "commit=aa;");
}

/* Outside a CI system (no marker, or GITHUB_ACTIONS that is not "true"),
 * nothing is read: a stray GIT_COMMIT is not trusted. */
static void test_no_ci(void **state)
{
    static const char *const env[] = { "GIT_COMMIT=aa", "GITHUB_ACTIONS=false",
                                       "GITHUB_SHA=bb", "GITLAB_CI=", NULL };
    (void)state;
    expect(env, NULL, 0, "");
    assert_null(ng_context_ci(fake_env, (void *)env));
}

static void test_labels(void **state)
{
    static const char *const env[] = { "GITLAB_CI=true", "CI_COMMIT_SHA=abc",
                                       "CI_COMMIT_REF_NAME=main",
                                       "CI_RUNNER_DESCRIPTION=shared", NULL };
    static const char *const labels[] = { "model=resnet50", "branch=release-1", "gpu=h100",
                                          "runner=", "gpu=a100", "url=https://x/y?a=b" };
    (void)state;
    /* a label overrides a CI field, an empty one removes it, the last wins,
     * and a value may hold '=' */
    expect(env, labels, 6, "commit=abc;branch=release-1;gpu=a100;model=resnet50;url=https://x/y?a=b;");
}

static void test_label_syntax(void **state)
{
    static const struct {
        const char *text;
        int ok;
        size_t key_len;
    } cases[] = {
        { "model=resnet", 1, 5 },
        { "_a.b-c9=", 1, 7 },
        { "x==y", 1, 1 },
        { "model", 0, 0 },
        { "=value", 0, 0 },
        { "9lives=x", 0, 0 },
        { "a b=x", 0, 0 },
        { "k\033=x", 0, 0 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=x", 1, 64 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=x", 0, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        const char *problem = NULL;
        int rc = ng_context_label_check(cases[i].text, &n, &problem);
        assert_int_equal(rc, cases[i].ok ? 0 : -1);
        if (cases[i].ok)
            assert_int_equal(n, cases[i].key_len);
        else
            assert_non_null(problem);
    }
}

/* A batch's shared context: the items every gate has with one value. */
static void test_batch_shared(void **state)
{
    struct ng_verdict a, b;
    struct ng_context shared;
    (void)state;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ng_context_set(&a.context, "commit", "c1");
    ng_context_set(&a.context, "model", "resnet");
    ng_context_set(&a.context, "gpu", "h100");
    ng_context_set(&b.context, "commit", "c1");
    ng_context_set(&b.context, "model", "bert");
    ng_context_set(&b.context, "gpu", "h100");
    const struct ng_verdict *vs[] = { &a, &b };
    struct ng_verdict_batch batch = { vs, 2, "m.json", 0, 0 };
    ng_verdict_text_batch_context(&batch, &shared);
    char *s = shown(&shared);
    assert_string_equal(s, "commit=c1;gpu=h100;");
    free(s);
    ng_context_release(&shared);
    ng_context_release(&a.context);
    ng_context_release(&b.context);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_removal),
        cmocka_unit_test(test_github),
        cmocka_unit_test(test_gitlab),
        cmocka_unit_test(test_jenkins),
        cmocka_unit_test(test_no_ci),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_label_syntax),
        cmocka_unit_test(test_batch_shared),
    };
    return cmocka_run_group_tests_name("context", tests, NULL, NULL);
}
