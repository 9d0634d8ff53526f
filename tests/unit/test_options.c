/* The option parser (util/ng_options.h) on a table of its own: the scan,
 * the environment's place, lists, messages in both styles, --help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/ng_options.h"
#include "util/ng_util.h"

struct toy {
    const char *out;
    long count;
    int quiet;
    int help;
    const char *items[8];
    size_t n_items;
    const char *whole;           /* the REPEAT row's variable, handed over whole */
    const char *operands[4];
    size_t n_operands;
    char **kept;
    size_t n_kept;
};

static int item(void *target, struct ng_option_value *v)
{
    struct toy *t = target;

    if (!*v->text)
        return v->problem = "is empty", -1;
    if (t->n_items == 8)
        return v->problem = "is one item too many (at most 8)", -1;
    t->items[t->n_items++] = v->text;
    return 0;
}

/* From the variable: the whole text; from flags: one item each. */
static int whole(void *target, struct ng_option_value *v)
{
    struct toy *t = target;

    if (v->from_env) {
        t->whole = v->text;
        return 0;
    }
    return item(target, v);
}

static int operand(void *ctx, const char *arg, struct ng_err *err)
{
    struct toy *t = ctx;

    if (t->n_operands == 2)
        return ng_err_set(err, "too many operands: '%s'", arg);
    t->operands[t->n_operands++] = arg;
    return 0;
}

static int keep(void *target, char *copy)
{
    struct toy *t = target;

    if (t->n_kept == 3)
        return -1;
    ng_strv_push(&t->kept, &t->n_kept, copy);
    return 0;
}

#define F(m) offsetof(struct toy, m)

static const struct ng_option rows[] = {
    { .flag = "output", .short_flag = 'o', .env = "NG_TOY_OUTPUT", .takes = NG_OPTION_VALUE,
      .parse = ng_options_text, .field = F(out), .meta = "DIR", .help = "where it goes",
      .group = 1 },
    { .flag = "count", .env = "NG_TOY_COUNT", .takes = NG_OPTION_VALUE,
      .parse = ng_options_positive, .field = F(count), .meta = "N",
      .help = "how many; a help text long enough to be wrapped at a word boundary before the "
              "hundredth column of the terminal", .group = 0 },
    { .flag = "quiet", .short_flag = 'q', .env = "NG_TOY_QUIET", .takes = NG_OPTION_SWITCH,
      .parse = ng_options_bool, .field = F(quiet), .help = "say less", .group = 1 },
    { .flag = "item", .env = "NG_TOY_ITEMS", .takes = NG_OPTION_COMMAS, .parse = item,
      .meta = "X", .help = "an item (repeatable)", .group = 0 },
    { .flag = "path", .env = "NG_TOY_PATHS", .takes = NG_OPTION_PATHS, .parse = item,
      .meta = "P", .help = "a path (repeatable)", .group = 0 },
    { .flag = "whole", .env = "NG_TOY_WHOLE", .takes = NG_OPTION_REPEAT, .parse = whole,
      .meta = "W", .help = "repeatable; the variable whole", .group = 0 },
    { .flag = "help", .short_flag = 'h', .takes = NG_OPTION_BARE, .parse = ng_options_bool,
      .field = F(help), .help = "this text", .group = 1 },
};

static const struct ng_options toy_table = {
    .rows = rows, .n = sizeof rows / sizeof rows[0], .command = "toy", .prefix = "toy: ",
    .operand = operand, .keep = keep,
};

static const char *const headings[] = { "lists", "other" };
static const struct ng_options gate_style = {
    .rows = rows, .n = sizeof rows / sizeof rows[0],
    .style = NG_OPTIONS_SAY_OPTION | NG_OPTIONS_LONG_ONLY,
    .headings = headings, .n_headings = 2, .operand = operand, .keep = keep,
};

static const char *const toy_env[] = { "NG_TOY_OUTPUT", "NG_TOY_COUNT", "NG_TOY_QUIET",
                                       "NG_TOY_ITEMS", "NG_TOY_PATHS", "NG_TOY_WHOLE", NULL };

/* Parses argv (NULL-terminated, after a program name) into *t. */
static int parse(const struct ng_options *table, struct toy *t, const char *const *args,
                 struct ng_err *err)
{
    char *argv[32] = { "toy" };
    int argc = 1;

    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    memset(t, 0, sizeof *t);
    err->msg[0] = '\0';
    return ng_options_parse(table, t, argc, argv, err);
}

static void clear_env(void)
{
    for (int i = 0; toy_env[i]; i++)
        unsetenv(toy_env[i]);
}

static void release(struct toy *t)
{
    ng_strv_free(&t->kept, &t->n_kept);
}

static void test_scan(void **state)
{
    struct toy t;
    struct ng_err err;
    (void)state;
    clear_env();

    const char *a1[] = { "-o", "d1", "--count=3", "x", "-q", "--item", "i1", "--item=i2", "--",
                         "-y", NULL };
    assert_int_equal(parse(&toy_table, &t, a1, &err), 0);
    assert_string_equal(t.out, "d1");
    assert_int_equal(t.count, 3);
    assert_int_equal(t.quiet, 1);
    assert_int_equal(t.n_items, 2);
    assert_string_equal(t.items[1], "i2");
    assert_int_equal(t.n_operands, 2);
    assert_string_equal(t.operands[1], "-y");   /* after "--", an operand */

    /* -oVALUE; the last flag of a one-value option wins, unparsed before */
    const char *a2[] = { "-od2", "--count", "x", "--count", "4", "--quiet=0", "-", NULL };
    assert_int_equal(parse(&toy_table, &t, a2, &err), 0);
    assert_string_equal(t.out, "d2");
    assert_int_equal(t.count, 4);
    assert_int_equal(t.quiet, 0);
    assert_string_equal(t.operands[0], "-");
    release(&t);
}

static void test_messages(void **state)
{
    struct toy t;
    struct ng_err err;
    (void)state;
    clear_env();

    static const struct { const char *args[4]; const char *toy, *gate; } cases[] = {
        { { "--cuont", "1", NULL },
          "toy: unknown option '--cuont': did you mean '--count'? (see nsys-gate toy --help)",
          "unknown option '--cuont': did you mean '--count'? (see --help)" },
        { { "--xyz", NULL }, "toy: unknown option '--xyz' (see nsys-gate toy --help)",
          "unknown option '--xyz' (see --help)" },
        { { "-x", NULL }, "toy: unknown option '-x' (see nsys-gate toy --help)",
          "unknown option '-x' (see --help)" },
        { { "-qx", NULL }, "toy: unknown option '-qx' (see nsys-gate toy --help)",
          "unknown option '-qx' (see --help)" },
        { { "-o", NULL }, "--output needs a value (DIR)", "option '--output' needs a value (DIR)" },
        { { "--help=1", NULL }, "--help takes no value", "option '--help' takes no value" },
        { { "--count", "0", NULL }, "--count='0' must be at least 1",
          "--count='0' must be at least 1" },
        { { "--quiet=maybe", NULL }, "--quiet='maybe' is not a boolean (use 1/0, true/false, yes/no)",
          "--quiet='maybe' is not a boolean (use 1/0, true/false, yes/no)" },
        { { "--output=", NULL }, "--output='' is empty", "--output='' is empty" },
        { { "--count", "\x1b[2J", NULL }, "--count='\\x1B[2J' is not a positive integer",
          "--count='\\x1B[2J' is not a positive integer" },
        /* the first problem of the scan, before any bad value */
        { { "--count", "0", "--xyz", NULL },
          "toy: unknown option '--xyz' (see nsys-gate toy --help)",
          "unknown option '--xyz' (see --help)" },
        { { "a", "b", "c", NULL }, "too many operands: 'c'", "too many operands: 'c'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        print_message("case %zu\n", i);
        assert_int_equal(parse(&toy_table, &t, cases[i].args, &err), -1);
        assert_string_equal(err.msg, cases[i].toy);
        assert_int_equal(parse(&gate_style, &t, cases[i].args, &err), -1);
        assert_string_equal(err.msg, cases[i].gate);
    }
    release(&t);
}

static void test_environment(void **state)
{
    struct toy t;
    struct ng_err err;
    const char *none[] = { NULL };
    (void)state;
    clear_env();

    setenv("NG_TOY_OUTPUT", "from-env", 1);
    setenv("NG_TOY_COUNT", "", 1);           /* empty: unset */
    setenv("NG_TOY_QUIET", "yes", 1);
    assert_int_equal(parse(&toy_table, &t, none, &err), 0);
    assert_string_equal(t.out, "from-env");
    assert_int_equal(t.count, 0);
    assert_int_equal(t.quiet, 1);

    /* a flag wins, and its variable is not read: a bad one does no harm */
    setenv("NG_TOY_COUNT", "bad", 1);
    const char *a1[] = { "--count", "2", "--output", "flag", NULL };
    assert_int_equal(parse(&toy_table, &t, a1, &err), 0);
    assert_string_equal(t.out, "flag");
    assert_int_equal(t.count, 2);
    assert_int_equal(parse(&toy_table, &t, none, &err), -1);
    assert_string_equal(err.msg, "NG_TOY_COUNT='bad' is not a positive integer");
    clear_env();

    /* lists: commas and newlines, empty pieces skipped; paths keep them */
    setenv("NG_TOY_ITEMS", "a,,b\nc", 1);
    assert_int_equal(parse(&toy_table, &t, none, &err), 0);
    assert_int_equal(t.n_items, 3);
    assert_string_equal(t.items[2], "c");
    assert_int_equal(t.n_kept, 3);
    release(&t);
    unsetenv("NG_TOY_ITEMS");
    setenv("NG_TOY_PATHS", "a::b", 1);
    assert_int_equal(parse(&toy_table, &t, none, &err), -1);
    assert_string_equal(err.msg, "NG_TOY_PATHS='a::b' is empty");
    release(&t);
    setenv("NG_TOY_PATHS", "a:b:c:d", 1);   /* one copy more than keep takes */
    assert_int_equal(parse(&toy_table, &t, none, &err), -1);
    assert_string_equal(err.msg, "NG_TOY_PATHS lists too many values");
    release(&t);
    unsetenv("NG_TOY_PATHS");

    /* a repeatable option whose variable is handed over whole */
    setenv("NG_TOY_WHOLE", "x,y", 1);
    assert_int_equal(parse(&toy_table, &t, none, &err), 0);
    assert_string_equal(t.whole, "x,y");
    const char *a2[] = { "--whole", "w1", "--whole", "w2", NULL };
    assert_int_equal(parse(&toy_table, &t, a2, &err), 0);
    assert_null(t.whole);
    assert_int_equal(t.n_items, 2);
    clear_env();
}

static char *help_of(const struct ng_options *table)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);

    assert_non_null(f);
    ng_options_help(f, table);
    fclose(f);
    return text;
}

static void test_help(void **state)
{
    (void)state;
    char *text = help_of(&toy_table);
    assert_string_equal(text,
        "  -o, --output DIR        where it goes [NG_TOY_OUTPUT]\n"
        "  --count N               how many; a help text long enough to be wrapped at a word boundary before\n"
        "                          the hundredth column of the terminal [NG_TOY_COUNT]\n"
        "  -q, --quiet             say less [NG_TOY_QUIET]\n"
        "  --item X                an item (repeatable) [NG_TOY_ITEMS]\n"
        "  --path P                a path (repeatable) [NG_TOY_PATHS]\n"
        "  --whole W               repeatable; the variable whole [NG_TOY_WHOLE]\n"
        "  -h, --help              this text\n");
    free(text);
    text = help_of(&gate_style);
    assert_string_equal(text,
        "\nlists:\n"
        "  --count N               how many; a help text long enough to be wrapped at a word boundary before\n"
        "                          the hundredth column of the terminal [NG_TOY_COUNT]\n"
        "  --item X                an item (repeatable) [NG_TOY_ITEMS]\n"
        "  --path P                a path (repeatable) [NG_TOY_PATHS]\n"
        "  --whole W               repeatable; the variable whole [NG_TOY_WHOLE]\n"
        "\nother:\n"
        "  --output DIR            where it goes [NG_TOY_OUTPUT]\n"
        "  --quiet                 say less [NG_TOY_QUIET]\n"
        "  --help                  this text\n");
    free(text);
    assert_ptr_equal(ng_options_find(&toy_table, "quiet"), &rows[2]);
    assert_null(ng_options_find(&toy_table, "quie"));
}

static void test_values(void **state)
{
    long n;
    int b;
    const char *problem = NULL;
    (void)state;

    assert_int_equal(ng_options_parse_positive("2147483647", &n, &problem), 0);
    assert_int_equal(ng_options_parse_positive("2147483648", &n, &problem), -1);
    assert_string_equal(problem, "is too large");
    assert_int_equal(ng_options_parse_count("0", &n, &problem), 0);
    assert_int_equal(n, 0);
    assert_int_equal(ng_options_parse_count("-1", &n, &problem), -1);
    assert_string_equal(problem, "is not a non-negative integer");
    assert_int_equal(ng_options_parse_bool("off", &b, &problem), 0);
    assert_int_equal(b, 0);
    assert_int_equal(ng_options_is_decimal("1.5", 3), 1);
    assert_int_equal(ng_options_is_decimal("1.5.", 4), 0);
    assert_int_equal(ng_options_is_decimal(".", 1), 0);
    assert_int_equal(ng_options_is_decimal("1e3", 3), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
