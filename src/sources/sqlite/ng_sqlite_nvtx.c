/* The NVTX projection's queries of the SQLite backend: the epoch ranges
 * of NVTX_EVENTS and the runtime/driver calls of
 * CUPTI_ACTIVITY_KIND_RUNTIME streamed into the projection (core/ng_nvtx.c
 * holds every rule; this file only reads), and every named range with the
 * kernel time launched inside it, for `nsys-gate ranges`. */
#include "sources/sqlite/ng_sqlite_nvtx.h"

#include <inttypes.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "core/ng_nvtx.h"
#include "core/ng_range_groups.h"
#include "sources/ng_source_opts.h"
#include "sources/sqlite/ng_sqlite_direct.h"
#include "util/ng_regex.h"

/* ---- NVTX epochs ---- */

#define NVTX_RANGE_TYPES "59, 60, 70, 71"   /* push/pop, start/end, and their NVTXT forms */

/* The ranges of NVTX_EVENTS (start, end, thread, text), with their text
 * from StringIds when the export has it: only ranges that begin and end
 * on the same thread count. */
static const char *nvtx_range_sql(int strings)
{
    return strings
        ? "SELECT e.start, e.\"end\", e.globalTid, COALESCE(e.text, s.value)"
          " FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId"
          " WHERE e.eventType IN (" NVTX_RANGE_TYPES ")"
          "   AND (e.endGlobalTid IS NULL OR e.endGlobalTid = e.globalTid)"
        : "SELECT start, \"end\", globalTid, text FROM NVTX_EVENTS"
          " WHERE eventType IN (" NVTX_RANGE_TYPES ")"
          "   AND (endGlobalTid IS NULL OR endGlobalTid = globalTid)";
}

/* fn(start, end, globalTid, text, ctx) for every named range of the
 * export that ended on its own thread (end NG_NVTX_NO_END when it never
 * ended): the one query both the projection and `ranges` read.  0 without
 * an NVTX_EVENTS table (*found 0), -1 with err set. */
typedef void (*range_fn)(int64_t start, int64_t end, int64_t tid, const char *text, void *ctx);

static int each_range(struct ng_sqlite *rd, range_fn fn, void *ctx, int *found,
                      struct ng_err *err)
{
    int nvtx = ng_sqlite_need_table(rd, "NVTX_EVENTS", err);
    int strings = nvtx > 0 ? ng_sqlite_need_table(rd, "StringIds", err) : 0;
    *found = nvtx > 0;
    if (nvtx < 0 || strings < 0)
        return -1;
    if (!nvtx)
        return 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(rd->db, nvtx_range_sql(strings), -1, &st, NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 3);
        if (!text || sqlite3_column_type(st, 2) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 0) != SQLITE_INTEGER)
            continue;   /* unnamed ranges cannot be epochs */
        int64_t end = sqlite3_column_type(st, 1) == SQLITE_INTEGER ? sqlite3_column_int64(st, 1)
                                                                    : NG_NVTX_NO_END;
        fn(sqlite3_column_int64(st, 0), end, sqlite3_column_int64(st, 2), text, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : ng_sqlite_error(rd, err, rc);
}

static void project_range(int64_t start, int64_t end, int64_t tid, const char *text, void *ctx)
{
    ng_nvtx_range(ctx, start, end, tid, text);
}

static int read_ranges(struct ng_sqlite *rd, struct ng_err *err)
{
    int found;

    /* the page reader's walk first: SQL must not count a row twice */
    if (ng_sqlite_direct_check(rd, "NVTX_EVENTS", err) < 0 ||
        each_range(rd, project_range, rd->pj, &found, err) < 0)
        return -1;
    if (!found)
        return ng_err_set(err, "'%s' has no NVTX ranges (no NVTX_EVENTS table); epoch ranges "
                          "need a capture with NVTX tracing (nsys profile -t cuda,nvtx)",
                          rd->shown);
    return 0;
}

/* ---- every NVTX range, for `nsys-gate ranges` ---- */

/* The launch calls with the kernel time each launched (kernels joined to
 * their runtime call in the same process), for ng_range_attribute. */
static int range_calls(struct ng_sqlite *rd, struct ng_range_call **out, size_t *n,
                       struct ng_err *err)
{
    int runtime = ng_sqlite_need_table(rd, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
    *out = NULL;
    *n = 0;
    if (runtime < 0)
        return -1;
    if (!runtime || !rd->kernel_table)
        return 0;   /* nothing launched: every range holds 0 ms */
    struct ng_buf sql = NG_BUF_INIT;
    ng_buf_addf(&sql, "SELECT r.globalTid, r.start, r.\"end\", SUM(k.\"end\" - k.start)"
                      " FROM \"%s\" k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r"
                      " ON r.correlationId = k.correlationId"
                      " AND (r.globalTid & -16777216) = k.globalPid"
                      " GROUP BY r.rowid", rd->kernel_table);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(rd->db, sql.data, -1, &st, NULL);
    ng_buf_release(&sql);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER)
            continue;
        *out = ng_xgrow(*out, *n, sizeof **out);
        (*out)[(*n)++] = (struct ng_range_call){ (uint64_t)sqlite3_column_int64(st, 0),
                                                 sqlite3_column_int64(st, 1),
                                                 sqlite3_column_int64(st, 2),
                                                 sqlite3_column_int64(st, 3) };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : ng_sqlite_error(rd, err, rc);
}

/* The ranges `ranges` lists, with where each started and ended. */
struct listing {
    struct ng_range_list *l;
    int64_t *start, *end;
};

static void list_range(int64_t start, int64_t end, int64_t tid, const char *text, void *ctx)
{
    struct listing *g = ctx;
    struct ng_range_list *l = g->l;

    if (end == NG_NVTX_NO_END)
        return;   /* never ended: no epoch either */
    l->r = ng_xgrow(l->r, l->n, sizeof *l->r);
    g->start = ng_xgrow(g->start, l->n, sizeof *g->start);
    g->end = ng_xgrow(g->end, l->n, sizeof *g->end);
    g->start[l->n] = start;
    g->end[l->n] = end;
    l->r[l->n++] = (struct ng_range_in){ ng_arena_strdup(&l->texts, text), (uint64_t)tid, 0, 0 };
}

/* p->ranges: every named range that ended on its own thread, with its
 * depth and the kernel time launched inside it. */
int ng_sqlite_nvtx_list_ranges(struct ng_sqlite *rd, struct ng_profile *p, struct ng_err *err)
{
    struct listing g = { ng_xcalloc(1, sizeof *g.l), NULL, NULL };
    struct ng_range_call *calls = NULL;
    size_t n_calls = 0;
    int found, ret = -1;

    p->ranges = g.l;
    if (each_range(rd, list_range, &g, &found, err) < 0)
        goto out;
    ret = 0;   /* without NVTX_EVENTS no ranges to list: the command says so */
    if (found && (ret = range_calls(rd, &calls, &n_calls, err)) == 0)
        ng_range_attribute(g.l->r, g.start, g.end, g.l->n, calls, n_calls);
out:
    free(g.start);
    free(g.end);
    free(calls);
    return ret;
}

/* ---- the launch calls ---- */

/* One runtime/driver call (thread, correlation id, start, end) into the
 * projection, from either reader: -1 when it is bad (rd->problem). */
static int call_cells(struct ng_sqlite *rd, const struct ng_btree_cell *c)
{
    if (c[0].type != NG_BTREE_INT || c[1].type != NG_BTREE_INT)
        return 0;   /* no thread or no correlation id: it launched nothing we can tie */
    if (c[2].type != NG_BTREE_INT || c[3].type != NG_BTREE_INT) {
        rd->problem = "a CUDA API call whose start or end is not an integer";
        return -1;
    }
    ng_nvtx_call(rd->pj, c[0].i, c[1].i, c[2].i, c[3].i);
    return 0;
}

static void call_final(sqlite3_context *ctx)
{
    sqlite3_result_null(ctx);
}

static int call_row(struct ng_sqlite *rd, const struct ng_btree_cell *c, size_t n)
{
    (void)n;
    return call_cells(rd, c);
}

/* The same as an aggregate, like the work pass, so the runtime table is
 * read in one SELECT. */
static void call_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct ng_sqlite *rd = sqlite3_user_data(ctx);
    struct ng_btree_cell c[4];
    (void)argc;

    if (rd->problem)
        return;
    ng_sqlite_direct_cells(argv, 4, c);
    if (call_cells(rd, c) < 0)
        sqlite3_result_error(ctx, rd->problem, -1);
}

static int map_calls(struct ng_sqlite *rd, struct ng_err *err)
{
    static const struct ng_sqlite_direct_col calls[] = { { "globalTid", { NG_BTREE_NULL, 0 }, 0 },
                                        { "correlationId", { NG_BTREE_NULL, 0 }, 0 },
                                        { "start", { NG_BTREE_NULL, 0 }, 0 },
                                        { "end", { NG_BTREE_NULL, 0 }, 0 } };
    const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    sqlite3_stmt *st;
    int have = ng_sqlite_need_table(rd, table, err), rc = SQLITE_ROW;

    if (have < 0)
        return -1;
    if (!have)
        return ng_err_set(err, "'%s' has no CUDA API calls (no CUPTI_ACTIVITY_KIND_RUNTIME "
                          "table) to tie GPU work to epoch ranges", rd->shown);
    int direct = ng_sqlite_direct_scan(rd, table, calls, 4, call_row, err);
    if (direct < 0 && !rd->problem)
        return -1;
    if (direct == 1 && ng_sqlite_direct_check(rd, table, err) < 0)
        return -1;
    if (direct == 1) {
        rc = sqlite3_create_function(rd->db, "ng_call", 4, SQLITE_UTF8 | SQLITE_DIRECTONLY, rd,
                                     NULL, call_step, call_final);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v2(rd->db, "SELECT ng_call(globalTid, correlationId, start, "
                                    "\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME", -1, &st, NULL);
        if (rc != SQLITE_OK)
            return ng_sqlite_error(rd, err, rc);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rd->problem) {
        ng_err_set(err, "'%s': CUPTI_ACTIVITY_KIND_RUNTIME has %s", rd->shown, rd->problem);
        rd->problem = NULL;
        return -1;
    }
    return rc == SQLITE_ROW ? 0 : ng_sqlite_error(rd, err, rc);
}

/* Ranges and launch calls, before the work is read. */
int ng_sqlite_nvtx_prepare(struct ng_sqlite *rd, struct ng_nvtx *pj, struct ng_profile *p,
                           struct ng_err *err)
{
    const struct ng_source_opts *o = rd->opts;
    const char *pattern = o->epoch_pattern ? o->epoch_pattern : "?";

    ng_nvtx_init(pj, o->epoch_re, o->metric, o->skip_epochs);
    rd->pj = pj;
    if (read_ranges(rd, err) < 0)
        return -1;
    if (ng_nvtx_over_budget(pj))
        return ng_err_set(err, "--epoch-range '%s' took more than %.0f s of CPU time matching "
                          "the NVTX range names of '%s'; use a simpler pattern", pattern,
                          NG_REGEX_CPU_BUDGET, rd->shown);
    const char *unclosed_names;
    int64_t unclosed = ng_nvtx_unclosed(pj, &unclosed_names);
    if (unclosed > 0)
        ng_profile_warn(p, "%" PRId64 " epoch range%s of '%s' never ended (%s%s) and %s left "
                        "out: a range without an end would swallow every later epoch",
                        unclosed, unclosed == 1 ? "" : "s", rd->shown, unclosed_names,
                        unclosed > 3 ? ", ..." : "", unclosed == 1 ? "was" : "were");
    if (ng_nvtx_index(pj) == 0) {
        if (ng_nvtx_texts(pj) == 0)
            return ng_err_set(err, "'%s' has no named NVTX ranges, so no epochs for "
                              "--epoch-range '%s'", rd->shown, pattern);
        struct ng_buf list = NG_BUF_INIT;
        ng_nvtx_frequent(pj, 5, &list);
        ng_err_set(err, "no NVTX range in '%s' matches --epoch-range '%s'; the most frequent "
                   "ranges are: %s", rd->shown, pattern, list.data);
        ng_buf_release(&list);
        return -1;
    }
    size_t n = ng_nvtx_epochs(pj);
    if ((size_t)o->skip_epochs >= n)
        return ng_err_set(err, "'%s' has %zu epoch%s matching --epoch-range, and "
                          "--skip-epochs %ld leaves none", rd->shown, n, n == 1 ? "" : "s",
                          o->skip_epochs);
    return map_calls(rd, err);
}
