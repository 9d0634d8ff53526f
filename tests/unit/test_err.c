/* ng_err: a message too long for its buffer keeps its reason; the path in
 * it is shortened in the middle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/ng_err.h"

static char *repeat(const char *unit, size_t times)
{
    size_t n = strlen(unit);
    char *s = malloc(n * times + 1);
    assert_non_null(s);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * n, unit, n);
    s[n * times] = '\0';
    return s;
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && strcmp(s + a - b, end) == 0;
}

static void test_short_unchanged(void **state)
{
    struct ng_err err;
    (void)state;
    assert_int_equal(ng_err_set(&err, "unable to open '%s': %s", "a.sqlite", "gone"), -1);
    assert_string_equal(err.msg, "unable to open 'a.sqlite': gone");
    ng_err_prefix(&err, "--json");
    assert_string_equal(err.msg, "--json: unable to open 'a.sqlite': gone");
}

/* A 4,000-character path: the reason survives, both ends of the path too. */
static void test_long_path(void **state)
{
    struct ng_err err;
    char *dirs = repeat("/a-directory-name", 235);   /* 3995 characters */
    char path[4100];
    (void)state;
    snprintf(path, sizeof path, "%s/base.sqlite", dirs);
    ng_err_set(&err, "unable to open '%s': %s", path, "No such file or directory");
    assert_true(strlen(err.msg) < NG_ERR_MAX);
    assert_true(strlen(err.msg) > NG_ERR_MAX - 16);   /* shortened only as far as needed */
    assert_true(ends_with(err.msg, "/a-directory-name/base.sqlite': No such file or directory"));
    assert_int_equal(strncmp(err.msg, "unable to open '/a-directory-name/a-dir", 39), 0);
    assert_non_null(strstr(err.msg, "..."));
    /* prefixed again (an option, a manifest): still fits, still the reason */
    ng_err_prefix(&err, "manifest '%s': gates[0]", path);
    assert_true(strlen(err.msg) < NG_ERR_MAX);
    assert_int_equal(strncmp(err.msg, "manifest '/a-directory-name", 27), 0);
    assert_true(ends_with(err.msg, "base.sqlite': No such file or directory"));
    free(dirs);
}

/* Two long subjects: both are shortened, the words between them stay. */
static void test_two_paths(void **state)
{
    struct ng_err err;
    char *a = repeat("x", 3000), *b = repeat("y", 3000);
    (void)state;
    ng_err_set(&err, "--json '%s' is the input profile '%s'; refusing to overwrite it", a, b);
    assert_true(strlen(err.msg) < NG_ERR_MAX);
    assert_int_equal(strncmp(err.msg, "--json 'xxx", 11), 0);
    assert_non_null(strstr(err.msg, "xxx' is the input profile 'yyy"));
    assert_true(ends_with(err.msg, "yyy'; refusing to overwrite it"));
    free(a);
    free(b);
}

/* The cut never splits a UTF-8 sequence. */
static void test_utf8(void **state)
{
    struct ng_err err;
    char *p = repeat("\xC3\xA9", 2000);   /* e-acute, 4000 bytes */
    (void)state;
    ng_err_set(&err, "'%s' is empty", p);
    assert_true(strlen(err.msg) < NG_ERR_MAX);
    assert_true(ends_with(err.msg, "\xC3\xA9' is empty"));
    const char *dots = strstr(err.msg, "...");
    assert_non_null(dots);
    assert_true((unsigned char)dots[-1] == 0xA9 && (unsigned char)dots[3] == 0xC3);
    /* no quoted part to shorten: the end is cut, on a character boundary */
    char *q = repeat("\xC3\xA9", 1500);
    ng_err_set(&err, "%s", q);
    assert_int_equal(strlen(err.msg) % 2, 0);
    free(p);
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_unchanged),
        cmocka_unit_test(test_long_path),
        cmocka_unit_test(test_two_paths),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
