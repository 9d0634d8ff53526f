/* The nsys SQLite export backend: the only file that talks to libsqlite3.
 *
 * One pass over the kernel table: an application-defined aggregate sums
 * durations per name id inside the single SELECT, so no temporary b-tree
 * is built and no row crosses into C one step at a time; names are
 * resolved through StringIds only for the ids that occur. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ng_source_kind.h"
#include "ng_util.h"

#define BUSY_TIMEOUT_MS 2000

static const char *const sqlite_exts[] = { ".sqlite", ".sqlite3", ".db", NULL };

/* ---- per-name accumulator: open addressing on the StringIds id ---- */

struct acc_slot {
    int64_t id;
    int64_t total_ns;
    int64_t count;
    int used;
};

struct acc {
    struct acc_slot *slots;
    size_t cap;           /* power of two */
    size_t used;
    int64_t rows;
    const char *problem;  /* first bad row, reported after the query */
    int64_t bad_row;
};

static size_t acc_hash(int64_t id, size_t cap)
{
    uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15u;
    return (size_t)(x >> 17) & (cap - 1);
}

static struct acc_slot *acc_find(struct acc *a, int64_t id)
{
    if (a->used * 2 >= a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 256;
        struct acc_slot *ns = ng_xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < a->cap; i++) {
            if (!a->slots[i].used)
                continue;
            size_t j = acc_hash(a->slots[i].id, ncap);
            while (ns[j].used)
                j = (j + 1) & (ncap - 1);
            ns[j] = a->slots[i];
        }
        free(a->slots);
        a->slots = ns;
        a->cap = ncap;
    }
    size_t j = acc_hash(id, a->cap);
    while (a->slots[j].used && a->slots[j].id != id)
        j = (j + 1) & (a->cap - 1);
    if (!a->slots[j].used) {
        a->slots[j].used = 1;
        a->slots[j].id = id;
        a->used++;
    }
    return &a->slots[j];
}

static void acc_fail(sqlite3_context *ctx, struct acc *a, const char *problem)
{
    if (!a->problem) {
        a->problem = problem;
        a->bad_row = a->rows;
    }
    sqlite3_result_error(ctx, problem, -1);
}

static void kern_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct acc *a = sqlite3_user_data(ctx);
    (void)argc;

    a->rows++;
    if (a->problem)
        return;
    if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
        sqlite3_value_type(argv[1]) != SQLITE_INTEGER ||
        sqlite3_value_type(argv[2]) != SQLITE_INTEGER) {
        acc_fail(ctx, a, "a kernel row whose name id, start or end is not an integer");
        return;
    }
    int64_t start = sqlite3_value_int64(argv[1]);
    int64_t end = sqlite3_value_int64(argv[2]);
    int64_t dur;
    if (end < start) {
        acc_fail(ctx, a, "a kernel row that ends before it starts");
        return;
    }
    if (__builtin_sub_overflow(end, start, &dur)) {
        acc_fail(ctx, a, "a kernel duration that overflows 64 bits");
        return;
    }
    struct acc_slot *s = acc_find(a, sqlite3_value_int64(argv[0]));
    if (__builtin_add_overflow(s->total_ns, dur, &s->total_ns)) {
        acc_fail(ctx, a, "kernel time that overflows 64 bits");
        return;
    }
    s->count++;
}

static void kern_final(sqlite3_context *ctx)
{
    sqlite3_result_null(ctx);
}

/* ---- schema look-ups ---- */

static int db_error(struct ng_err *err, sqlite3 *db, const char *shown, int rc)
{
    switch (rc & 0xFF) {
    case SQLITE_NOTADB:
        return ng_err_set(err, "'%s' is not an SQLite database (truncated or corrupt?)", shown);
    case SQLITE_CORRUPT:
        return ng_err_set(err, "'%s' is a corrupt SQLite database: %s", shown,
                          sqlite3_errmsg(db));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return ng_err_set(err, "'%s' is locked by another process (gave up after %d ms)",
                          shown, BUSY_TIMEOUT_MS);
    default:
        return ng_err_set(err, "unable to read '%s': %s", shown,
                          db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    }
}

/* Finds the kernel table: the plain name, or a _Vn successor some exports
 * use.  Returns 1 found, 0 absent, -1 error. */
static int find_kernel_table(sqlite3 *db, const char *shown, char *name, size_t size,
                             struct ng_err *err)
{
    static const char sql[] =
        "SELECT name, type FROM sqlite_master"
        " WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'"
        "    OR name GLOB 'CUPTI_ACTIVITY_KIND_KERNEL_V[0-9]*'"
        " ORDER BY length(name) DESC, name DESC LIMIT 1";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return 0;
    }
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_error(err, db, shown, rc);
    }
    const char *type = (const char *)sqlite3_column_text(st, 1);
    snprintf(name, size, "%s", (const char *)sqlite3_column_text(st, 0));
    if (!type || strcmp(type, "table") != 0) {
        ng_err_set(err, "'%s': %s is a %s, not a table", shown, name, type ? type : "?");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 1;
}

static int require_columns(sqlite3 *db, const char *shown, const char *table,
                           struct ng_err *err)
{
    static const char *const needed[] = { "start", "end", "demangledName", NULL };
    int found[3] = { 0, 0, 0 };
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        for (int i = 0; needed[i]; i++)
            if (col && strcmp(col, needed[i]) == 0)
                found[i] = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_error(err, db, shown, rc);
    for (int i = 0; needed[i]; i++)
        if (!found[i])
            return ng_err_set(err, "'%s': table %s has no column '%s'", shown, table,
                              needed[i]);
    return 0;
}

static int aggregate_kernels(sqlite3 *db, const char *shown, const char *table,
                             struct acc *a, struct ng_err *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    rc = sqlite3_create_function(db, "ng_kern", 3, SQLITE_UTF8 | SQLITE_DIRECTONLY, a,
                                 NULL, kern_step, kern_final);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    snprintf(sql, sizeof sql, "SELECT ng_kern(demangledName, start, \"end\") FROM \"%s\"",
             table);
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (a->problem)
        return ng_err_set(err, "'%s': %s has %s (row %" PRId64 ")", shown, table,
                          a->problem, a->bad_row);
    if (rc != SQLITE_ROW)
        return db_error(err, db, shown, rc);
    return 0;
}

/* NUL bytes cannot travel in C strings: they become a visible \x00. */
static void add_named_kernel(struct ng_profile *p, const unsigned char *txt, int n,
                             const struct acc_slot *s)
{
    if (!memchr(txt, 0, (size_t)n)) {
        ng_profile_add_kernel(p, (const char *)txt, (size_t)n, s->total_ns, s->count);
        return;
    }
    struct ng_buf b = NG_BUF_INIT;
    for (int i = 0; i < n; i++) {
        if (txt[i] == 0)
            ng_buf_adds(&b, "\\x00");
        else
            ng_buf_add(&b, &txt[i], 1);
    }
    ng_profile_add_kernel(p, b.data, b.len, s->total_ns, s->count);
    ng_buf_release(&b);
}

static int resolve_names(sqlite3 *db, const char *shown, struct ng_profile *p,
                         const struct acc *a, struct ng_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT value FROM StringIds WHERE id = ?", -1, &st,
                                NULL);

    /* An export without StringIds still has kernels: name them by id. */
    if (rc != SQLITE_OK)
        st = NULL;
    for (size_t i = 0; i < a->cap; i++) {
        const struct acc_slot *s = &a->slots[i];
        if (!s->used)
            continue;
        if (st) {
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, s->id);
            rc = sqlite3_step(st);
            if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
                const unsigned char *txt = sqlite3_column_text(st, 0);
                add_named_kernel(p, txt, sqlite3_column_bytes(st, 0), s);
                continue;
            }
            if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
                sqlite3_finalize(st);
                return db_error(err, db, shown, rc);
            }
        }
        char name[64];
        int n = snprintf(name, sizeof name, "<unnamed kernel, string id %" PRId64 ">", s->id);
        ng_profile_add_kernel(p, name, (size_t)n, s->total_ns, s->count);
    }
    sqlite3_finalize(st);
    return 0;
}

int ng_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                   struct ng_err *err)
{
    sqlite3 *db = NULL;
    struct acc a = { 0 };
    char table[128];
    struct ng_buf path = NG_BUF_INIT;
    int rc, ret = -1;

    /* A relative name that starts with "file:" would be taken for a URI by
     * builds that enable URIs globally. */
    if (strncmp(db_path, "file:", 5) == 0)
        ng_buf_adds(&path, "./");
    ng_buf_adds(&path, db_path);
    /* Read-only: never a -journal or -wal beside the user's file, never a
     * changed mtime. */
    rc = sqlite3_open_v2(path.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        db_error(err, db, shown, rc);
        goto out;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    rc = sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        db_error(err, db, shown, rc);
        goto out;
    }
    rc = find_kernel_table(db, shown, table, sizeof table, err);
    if (rc < 0)
        goto out;
    if (rc == 0) {
        ng_err_set(err, "'%s' has no CUDA kernel data (no CUPTI_ACTIVITY_KIND_KERNEL table)",
                   shown);
        goto out;
    }
    if (require_columns(db, shown, table, err) < 0 ||
        aggregate_kernels(db, shown, table, &a, err) < 0 ||
        resolve_names(db, shown, p, &a, err) < 0)
        goto out;
    if (a.rows == 0) {
        ng_err_set(err, "'%s' has no CUDA kernel data (%s is empty)", shown, table);
        goto out;
    }
    ret = ng_profile_finish(p, err);
out:
    free(a.slots);
    sqlite3_close(db);
    ng_buf_release(&path);
    return ret;
}

static int sqlite_load(struct ng_profile *p, const char *path,
                       const struct ng_source_opts *opts, struct ng_err *err)
{
    (void)opts;
    return ng_sqlite_read(p, path, path, err);
}

const struct ng_source_kind ng_source_sqlite = {
    .format = NG_FORMAT_SQLITE,
    .magic = "SQLite format 3",   /* plus the NUL that ends it: 16 bytes */
    .magic_len = 16,
    .extensions = sqlite_exts,
    .load = sqlite_load,
};
