/* Another profiler's SQLite database as rows of values: the tables of a
 * stem and a uuid suffix, a query's texts and blobs, and a table scan that
 * gives the same rows by the page reader and by SQL.  The databases are
 * rocpd files written by tests/tools/genrocpd.py from AMD's DDL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sources/ng_source_opts.h"
#include "sources/sqlite/ng_sqlite_rows.h"

static char db3[256], dblz4[256];

static int generate(char *out, size_t cap, const char *name, const char *args)
{
    const char *py = getenv("PYTHON"), *src = getenv("SRCDIR");
    char cmd[2048];
    snprintf(out, cap, "/tmp/ng-test-rows-%s.%d.db", name, (int)getpid());
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/tools/genrocpd.py' %s '%s' >/dev/null",
             py ? py : "python3", src ? src : ".", args, out);
    return system(cmd) == 0 ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    if (generate(db3, sizeof db3, "3", "--processes 2 --steps 3") < 0)
        return -1;
    return generate(dblz4, sizeof dblz4, "lz4", "--schema lz4 --steps 2");
}

static int teardown(void **state)
{
    (void)state;
    unlink(db3);
    unlink(dblz4);
    return 0;
}

struct sum {
    int64_t rows, ns, last_id;
    int ordered;
};

static int add_span(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                    struct ng_err *err)
{
    struct sum *s = ctx;
    (void)err;
    assert_int_equal(n, 3);
    assert_int_equal(v[0].type, NG_SQLITE_ROWS_INT);
    assert_int_equal(v[1].type, NG_SQLITE_ROWS_INT);
    s->ordered &= v[0].i > s->last_id;
    s->last_id = v[0].i;
    s->rows++;
    s->ns += v[2].i - v[1].i;
    return 0;
}

static int one_int(void *ctx, const struct ng_sqlite_rows_value *v, size_t n, struct ng_err *err)
{
    (void)err;
    assert_int_equal(n, 2);
    ((int64_t *)ctx)[0] = v[0].i;
    ((int64_t *)ctx)[1] = v[1].i;
    return 0;
}

static struct ng_sqlite_rows *open_db(const char *path, const struct ng_source_opts *o)
{
    struct ng_err err;
    struct ng_sqlite_rows *db = ng_sqlite_rows_open(path, "t.db", o, &err);
    if (!db)
        fail_msg("%s", err.msg);
    return db;
}

static void test_suffixes(void **state)
{
    struct ng_source_opts o = { 0 };
    struct ng_sqlite_rows *db = open_db(db3, &o);
    const char **s;
    size_t n;
    (void)state;
    ng_sqlite_rows_suffixes(db, "rocpd_kernel_dispatch", &s, &n);
    assert_int_equal(n, 2);
    assert_string_equal(s[0], "_0190c3a2_7b1e_7000_8a5d_00005eed0000");
    assert_string_equal(s[1], "_0190c3a2_7b1e_7001_8a5d_00005eed0001");
    /* a stem that is the start of another table's stem matches none of it */
    ng_sqlite_rows_suffixes(db, "rocpd_info_", &s, &n);
    assert_int_equal(n, 0);
    ng_sqlite_rows_suffixes(db, "rocpd_info_kernel_symbol", &s, &n);
    assert_int_equal(n, 2);
    /* the unsuffixed views are not tables */
    assert_int_equal(ng_sqlite_rows_has_table(db, "rocpd_kernel_dispatch"), 0);
    assert_int_equal(ng_sqlite_rows_has_table(db,
        "rocpd_kernel_dispatch_0190c3a2_7b1e_7000_8a5d_00005eed0000"), 1);
    ng_sqlite_rows_close(db);
}

/* The sum of one table set's dispatches by a scan, and by SQL's own SUM. */
static void scan_both_ways(int sql_only)
{
    static const char *const cols[] = { "id", "start", "end" };
    const char *table = "rocpd_kernel_dispatch_0190c3a2_7b1e_7001_8a5d_00005eed0001";
    struct ng_source_opts o = { .sql_only = sql_only };
    struct ng_sqlite_rows *db = open_db(db3, &o);
    struct sum s = { 0, 0, 0, 1 };
    int64_t want[2];
    struct ng_err err;
    assert_int_equal(ng_sqlite_rows_scan(db, table, cols, 3, add_span, &s, &err), 0);
    assert_int_equal(ng_sqlite_rows_paged(db), !sql_only);
    assert_int_equal(ng_sqlite_rows_query(db, "SELECT COUNT(*), SUM(\"end\" - start) FROM "
        "rocpd_kernel_dispatch_0190c3a2_7b1e_7001_8a5d_00005eed0001", one_int, want, &err), 0);
    assert_true(s.rows > 0);
    assert_int_equal(s.rows, want[0]);
    assert_int_equal(s.ns, want[1]);
    assert_true(s.ordered);
    ng_sqlite_rows_close(db);
}

static void test_scan_paged(void **state)
{
    (void)state;
    scan_both_ways(0);
}

static void test_scan_sql(void **state)
{
    (void)state;
    scan_both_ways(1);
}

static int blob_head(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                     struct ng_err *err)
{
    (void)err;
    assert_int_equal(n, 2);
    assert_int_equal(v[0].type, NG_SQLITE_ROWS_TEXT);
    assert_int_equal(v[1].type, NG_SQLITE_ROWS_BLOB);
    assert_true(v[1].len > 8);
    memcpy(ctx, v[1].s, 4);
    return 0;
}

static void test_query_values(void **state)
{
    struct ng_source_opts o = { 0 };
    struct ng_sqlite_rows *db = open_db(dblz4, &o);
    struct ng_err err;
    char magic[5] = { 0 };
    (void)state;
    struct ng_buf sql = NG_BUF_INIT;
    /* a text and a blob: the lz4 variant's extdata (the name quoted) */
    ng_buf_adds(&sql, "SELECT 'x', extdata FROM ");
    ng_sqlite_rows_ident(&sql, "rocpd_event_0190c3a2_7b1e_7000_8a5d_00005eed0000");
    ng_buf_adds(&sql, " LIMIT 1");
    assert_string_equal(sql.data, "SELECT 'x', extdata FROM "
                        "\"rocpd_event_0190c3a2_7b1e_7000_8a5d_00005eed0000\" LIMIT 1");
    assert_int_equal(ng_sqlite_rows_query(db, sql.data, blob_head, magic, &err), 0);
    ng_buf_release(&sql);
    assert_string_equal(magic, "LZ4F");
    assert_int_equal(ng_sqlite_rows_has_column(db,
        "rocpd_kernel_dispatch_0190c3a2_7b1e_7000_8a5d_00005eed0000", "kernel_id", &err), 1);
    assert_int_equal(ng_sqlite_rows_has_column(db,
        "rocpd_kernel_dispatch_0190c3a2_7b1e_7000_8a5d_00005eed0000", "track_id", &err), 0);
    /* SQL's errors come back in words, naming the file */
    assert_int_equal(ng_sqlite_rows_query(db, "SELECT nope FROM rocpd_string", blob_head,
                                          magic, &err), -1);
    assert_non_null(strstr(err.msg, "'t.db'"));
    ng_sqlite_rows_close(db);
}

static int refuse(void *ctx, const struct ng_sqlite_rows_value *v, size_t n, struct ng_err *err)
{
    (void)v;
    (void)n;
    ++*(int *)ctx;
    return ng_err_set(err, "row refused");
}

/* A row the callback refuses ends the scan with the callback's error, on
 * both paths. */
static void test_scan_refused(void **state)
{
    static const char *const cols[] = { "id", "start", "end" };
    (void)state;
    for (int sql_only = 0; sql_only < 2; sql_only++) {
        struct ng_source_opts o = { .sql_only = sql_only };
        struct ng_sqlite_rows *db = open_db(db3, &o);
        struct ng_err err;
        int calls = 0;
        assert_int_equal(ng_sqlite_rows_scan(db,
            "rocpd_kernel_dispatch_0190c3a2_7b1e_7000_8a5d_00005eed0000", cols, 3, refuse,
            &calls, &err), -1);
        assert_int_equal(calls, 1);
        assert_string_equal(err.msg, "row refused");
        ng_sqlite_rows_close(db);
    }
}

/* A JSON member by SQLite's own reader: a text, none, not JSON. */
static void test_json(void **state)
{
    struct ng_source_opts o = { 0 };
    struct ng_sqlite_rows *db = open_db(db3, &o);
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;
    static const char a[] = "{\"message\": \"step \\u0031\"}";
    (void)state;
    assert_int_equal(ng_sqlite_rows_json(db, a, sizeof a - 1, "$.message", &out, &err), 1);
    assert_string_equal(out.data, "step 1");
    assert_int_equal(ng_sqlite_rows_json(db, "{\"message\": 3}", 14, "$.message", &out, &err),
                     0);
    assert_int_equal(ng_sqlite_rows_json(db, "{}", 2, "$.message", &out, &err), 0);
    assert_int_equal(ng_sqlite_rows_json(db, "{\"message\": ", 12, "$.message", &out, &err),
                     -1);
    assert_non_null(strstr(err.msg, "JSON"));
    ng_buf_release(&out);
    ng_sqlite_rows_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suffixes),
        cmocka_unit_test(test_scan_paged),
        cmocka_unit_test(test_scan_sql),
        cmocka_unit_test(test_query_values),
        cmocka_unit_test(test_scan_refused),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests_name("sqlite_rows", tests, setup, teardown);
}
