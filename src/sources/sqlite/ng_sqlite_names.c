/* The names of the work items of an nsys SQLite export, looked up only
 * for the ids that occur. */
#include "sources/sqlite/ng_sqlite_names.h"

#include <inttypes.h>

#include <sqlite3.h>

/* NUL bytes cannot travel in C strings: they become a visible \x00. */
static void add_text(struct ng_buf *out, const unsigned char *txt, int n)
{
    for (int i = 0; i < n; i++) {
        if (txt[i] == 0)
            ng_buf_adds(out, "\\x00");
        else
            ng_buf_add(out, &txt[i], 1);
    }
}

/* 1 and the text of a one-column look-up of key, 0 when there is none. */
static int lookup_text(struct ng_sqlite *rd, sqlite3_stmt *st, int64_t key,
                       struct ng_buf *out, struct ng_err *err)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, key);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        add_text(out, sqlite3_column_text(st, 0), sqlite3_column_bytes(st, 0));
        return 1;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return ng_sqlite_error(rd, err, rc);
    return 0;
}

int ng_sqlite_names_string(struct ng_sqlite *rd, int64_t key, struct ng_buf *out)
{
    struct ng_err ignored;
    if (rd->string_st && lookup_text(rd, rd->string_st, key, out, &ignored) == 1)
        return 0;
    /* an export without StringIds (or without this id) still has kernels */
    ng_buf_addf(out, "<unnamed kernel, string id %" PRId64 ">", key);
    return 0;
}

int ng_sqlite_names_graph(struct ng_sqlite *rd, int64_t key, struct ng_buf *out)
{
    (void)rd;
    ng_buf_addf(out, "CUDA graph %" PRId64, key);
    return 0;
}

/* As nsys's cuda_gpu_mem_time_sum names them: "[CUDA memcpy <label>]"
 * from ENUM_CUDA_MEMCPY_OPER; exports from 2020 have the whole name in
 * MemcpyOperationStrings instead.  A copy kind in neither is still
 * counted (nsys's report would drop it). */
int ng_sqlite_names_memcpy(struct ng_sqlite *rd, int64_t key, struct ng_buf *out)
{
    static const struct { const char *table, *sql, *prefix, *suffix; } sources[] = {
        { "ENUM_CUDA_MEMCPY_OPER", "SELECT label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?",
          "[CUDA memcpy ", "]" },
        { "MemcpyOperationStrings", "SELECT name FROM MemcpyOperationStrings WHERE id = ?", "",
          "" },
    };
    struct ng_err ignored;
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        sqlite3_stmt *st;
        if (ng_sqlite_need_table(rd, sources[i].table, &ignored) != 1 ||
            sqlite3_prepare_v2(rd->db, sources[i].sql, -1, &st, NULL) != SQLITE_OK)
            continue;
        struct ng_buf text = NG_BUF_INIT;
        int found = lookup_text(rd, st, key, &text, &ignored) == 1;
        sqlite3_finalize(st);
        if (found)
            ng_buf_addf(out, "%s%s%s", sources[i].prefix, text.data, sources[i].suffix);
        ng_buf_release(&text);
        if (found)
            return 0;
    }
    ng_buf_addf(out, "[CUDA memcpy kind %" PRId64 "]", key);
    return 0;
}

int ng_sqlite_names_memset(struct ng_sqlite *rd, int64_t key, struct ng_buf *out)
{
    (void)rd;
    (void)key;
    ng_buf_adds(out, "[CUDA memset]");
    return 0;
}

int ng_sqlite_names_open(struct ng_sqlite *rd, struct ng_err *err)
{
    int strings = ng_sqlite_need_table(rd, "StringIds", err);
    if (strings < 0)
        return -1;
    if (strings && sqlite3_prepare_v2(rd->db, "SELECT value FROM StringIds WHERE id = ?", -1,
                                      &rd->string_st, NULL) != SQLITE_OK)
        rd->string_st = NULL;
    return 0;
}

void ng_sqlite_names_close(struct ng_sqlite *rd)
{
    sqlite3_finalize(rd->string_st);
    rd->string_st = NULL;
}
