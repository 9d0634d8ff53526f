/* The SQLite reader's budget: a file whose reading costs more SQLite work
 * than its budget is stopped with an error naming it (the default budget,
 * which grows with the file's size, reads the same file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace_helper.h"
#include "sources/ng_source.h"
#include "sources/sqlite/ng_source_sqlite.h"

static int make_trace(void **state)
{
    (void)state;
    return trace_make("sqlite", "--kernels 20000 --names 4 --epochs 4");
}

static int read_with(int64_t budget, struct ng_err *err)
{
    struct ng_profile p;
    /* the SQL path: the page reader visits each page once, bounded by the
     * file's size, and needs no budget */
    struct ng_source_opts o = { .sql_budget_ops = budget, .sql_only = 1 };
    ng_profile_init(&p, path);
    int rc = ng_source_sqlite_read(&p, path, "t.sqlite", &o, err);
    ng_profile_release(&p);
    return rc;
}

static void test_budget_stops_the_query(void **state)
{
    struct ng_err err;
    (void)state;
    assert_int_equal(read_with(0, &err), 0);
    assert_int_equal(read_with(20000, &err), -1);
    assert_string_equal(err.msg, "reading 't.sqlite' took more than its budget of SQLite work "
                                 "(which grows with the file's size): a crafted or damaged file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_stops_the_query),
    };
    return cmocka_run_group_tests_name("sqlite", tests, make_trace, trace_remove);
}
