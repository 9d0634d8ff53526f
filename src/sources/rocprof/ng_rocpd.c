/* rocprofv3's rocpd database, one table set at a time, into the event
 * sink (see ng_rocpd.h).  SQLite is reached through
 * sources/sqlite/ng_sqlite_rows.h only: the dispatch table, the big one,
 * is scanned by the page reader in total mode; everything else is a query.
 * Table names are a stem and the set's suffix, whose shape (hex digits
 * and '_', ng_sqlite_rows_suffixes) needs no quoting inside "...". */
#include "sources/rocprof/ng_rocpd.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ng_source_events.h"
#include "sources/ng_source_names.h"
#include "sources/ng_source_opts.h"
#include "sources/rocprof/ng_rocprof_feed.h"
#include "sources/sqlite/ng_sqlite_rows.h"
#include "util/ng_lz4.h"
#include "util/ng_util.h"

/* A range's extdata, inflated, at most (a ROCTx message is a line). */
#define TEXT_MAX ((size_t)64 << 10)

struct rocpd_agent {
    int gpu;
    int64_t index;           /* type_index: the GPU's ordinal, the device id */
};

struct rocpd_track {
    int64_t pid, tid, agent; /* ids of the set's process, thread, agent rows */
};

/* One dispatch or copy, whichever layout it came from. */
struct rocpd_op {
    int64_t id, what, agent, pid, tid, start, end, corr;
    int has_corr;
};

struct rocpd {
    struct ng_source_events ev;
    struct ng_sqlite_rows *db;
    const char *shown;
    struct ng_err *err;
    int epochs;                 /* ranges and calls matter */
    /* the table set being read */
    const char *u;
    int64_t set;
    int v41;                    /* 4.1.0: pid, tid, agent through rocpd_track */
    const char *table;          /* the stem being read, for messages */
    /* (set, id) -> what the set's rows name */
    struct ng_idmap pids, tids, agent_of, track_of, symbol_of, item_of;
    struct rocpd_agent *agents;
    size_t n_agents;
    struct rocpd_track *tracks;
    size_t n_tracks;
    struct ng_buf names;        /* the symbols' names, NUL-terminated */
    struct ng_buf sql, text, name;   /* a query; a range's text or a table name; the scan's table */
    int has_version;
    unsigned char *inflated;
    int64_t cpu_ops;
    /* the last row's process and agent: a table's rows mostly repeat them */
    int64_t last_pid, last_agent;
    uint32_t last_proc;
    const struct rocpd_agent *last_agent_row;
};

/* ---- messages ---- */

static int row_error(struct rocpd *rd, int64_t id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "'X': rocpd_<stem><u> row id N: ..."; returns -1. */
static int row_error(struct rocpd *rd, int64_t id, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ng_err_set(rd->err, "'%s': %s%s row id %" PRId64 ": %s", rd->shown, rd->table, rd->u,
                      id, why);
}

/* Each of v[k] for k in `need` an integer, else the row is refused. */
static int need_ints(struct rocpd *rd, const struct ng_sqlite_rows_value *v, size_t n,
                     const char *const *cols)
{
    for (size_t k = 0; k < n; k++)
        if (cols[k] && v[k].type != NG_SQLITE_ROWS_INT)
            return row_error(rd, v[0].type == NG_SQLITE_ROWS_INT ? v[0].i : -1,
                             "%s is %s, not an integer", cols[k],
                             v[k].type == NG_SQLITE_ROWS_NULL ? "NULL" : "not a number");
    return 0;
}

/* ---- the set's small tables ---- */

/* The column a row of an info table must hold an integer in; the others may be NULL. */
static const char *const id_only[] = { "id" };

/* An info table's row (the query names every column): its reader, or NULL
 * with err set when the row's id is no integer. */
static struct rocpd *info_row(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                              struct ng_err *err)
{
    struct rocpd *rd = ctx;
    (void)n;
    (void)err;
    return need_ints(rd, v, 1, id_only) < 0 ? NULL : rd;
}

/* sql = the text with every '@' replaced by the set's suffix. */
static const char *sql_of(struct rocpd *rd, const char *text)
{
    rd->sql.len = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '@')
            ng_buf_adds(&rd->sql, rd->u);
        else
            ng_buf_add(&rd->sql, p, 1);
    }
    return rd->sql.data;
}

static int query(struct rocpd *rd, const char *stem, const char *text, ng_sqlite_rows_fn fn)
{
    rd->table = stem;
    return ng_sqlite_rows_query(rd->db, sql_of(rd, text), fn, rd, rd->err);
}

/* A row id and the OS id it stands for (a process's pid, a thread's tid). */
static int take_os_id(struct rocpd *rd, const struct ng_sqlite_rows_value *v, size_t n,
                      struct ng_idmap *map, const char *col)
{
    const char *const cols[] = { "id", col };
    if (need_ints(rd, v, n, cols) < 0)
        return -1;
    ng_idmap_set(map, rd->set, v[0].i, (size_t)v[1].i);
    return 0;
}

static int take_process(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                        struct ng_err *err)
{
    struct rocpd *rd = ctx;
    (void)err;
    return take_os_id(rd, v, n, &rd->pids, "pid");
}

static int take_thread(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                       struct ng_err *err)
{
    struct rocpd *rd = ctx;
    (void)err;
    return take_os_id(rd, v, n, &rd->tids, "tid");
}

static int take_agent(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                      struct ng_err *err)
{
    struct rocpd *rd = info_row(ctx, v, n, err);
    if (!rd)
        return -1;
    int gpu = v[1].type == NG_SQLITE_ROWS_TEXT && strcmp((const char *)v[1].s, "GPU") == 0;
    rd->agents = ng_xgrow(rd->agents, rd->n_agents, sizeof *rd->agents);
    rd->agents[rd->n_agents] = (struct rocpd_agent){
        gpu, v[2].type == NG_SQLITE_ROWS_INT ? v[2].i : v[0].i };
    ng_idmap_set(&rd->agent_of, rd->set, v[0].i, rd->n_agents++);
    if (gpu && v[3].type == NG_SQLITE_ROWS_TEXT && v[3].len)
        ng_source_events_gpu(&rd->ev, (const char *)v[3].s);
    return 0;
}

static int take_symbol(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                       struct ng_err *err)
{
    struct rocpd *rd = info_row(ctx, v, n, err);
    if (!rd)
        return -1;
    /* the display name (demangled, without ".kd"), else the symbol */
    const struct ng_sqlite_rows_value *name = v[1].type == NG_SQLITE_ROWS_TEXT ? &v[1] : &v[2];
    ng_idmap_set(&rd->symbol_of, rd->set, v[0].i, rd->names.len);
    if (name->type == NG_SQLITE_ROWS_TEXT)
        ng_buf_add(&rd->names, name->s, name->len);
    else
        ng_buf_addf(&rd->names, "kernel %" PRId64, v[0].i);
    ng_buf_add(&rd->names, "", 1);
    return 0;
}

static int take_track(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                      struct ng_err *err)
{
    struct rocpd *rd = info_row(ctx, v, n, err);
    if (!rd)
        return -1;
    rd->tracks = ng_xgrow(rd->tracks, rd->n_tracks, sizeof *rd->tracks);
    rd->tracks[rd->n_tracks] = (struct rocpd_track){
        v[1].type == NG_SQLITE_ROWS_INT ? v[1].i : -1,
        v[2].type == NG_SQLITE_ROWS_INT ? v[2].i : -1,
        v[3].type == NG_SQLITE_ROWS_INT ? v[3].i : -1 };
    ng_idmap_set(&rd->track_of, rd->set, v[0].i, rd->n_tracks++);
    return 0;
}

/* ---- what a row names ---- */

static int process_of(struct rocpd *rd, const struct rocpd_op *o, uint32_t *proc)
{
    if (o->pid == rd->last_pid) {
        *proc = rd->last_proc;
        return 0;
    }
    size_t pid = ng_idmap_find(&rd->pids, rd->set, o->pid);
    if (pid == SIZE_MAX)
        return row_error(rd, o->id, "names process %" PRId64 ", which rocpd_info_process%s "
                         "does not have", o->pid, rd->u);
    *proc = rd->last_proc = ng_source_events_process(&rd->ev, (int64_t)pid);
    rd->last_pid = o->pid;
    return 0;
}

static int thread_of(struct rocpd *rd, const struct rocpd_op *o, int64_t *tid)
{
    size_t t = ng_idmap_find(&rd->tids, rd->set, o->tid);
    if (t == SIZE_MAX)
        return row_error(rd, o->id, "names thread %" PRId64 ", which rocpd_info_thread%s "
                         "does not have", o->tid, rd->u);
    *tid = (int64_t)t;
    return 0;
}

static const struct rocpd_agent *agent_of(struct rocpd *rd, const struct rocpd_op *o,
                                          int64_t agent)
{
    if (rd->last_agent_row && agent == rd->last_agent)
        return rd->last_agent_row;
    size_t a = ng_idmap_find(&rd->agent_of, rd->set, agent);
    if (a == SIZE_MAX) {
        row_error(rd, o->id, "names agent %" PRId64 ", which rocpd_info_agent%s does not have",
                  agent, rd->u);
        return NULL;
    }
    rd->last_agent = agent;
    return rd->last_agent_row = &rd->agents[a];
}

/* A 4.1.0 row's track: its process, thread and agent. */
static int resolve_track(struct rocpd *rd, struct rocpd_op *o, int64_t track)
{
    size_t t = ng_idmap_find(&rd->track_of, rd->set, track);
    if (t == SIZE_MAX)
        return row_error(rd, o->id, "names track %" PRId64 ", which rocpd_track%s does not "
                         "have", track, rd->u);
    o->pid = rd->tracks[t].pid;
    o->tid = rd->tracks[t].tid;
    o->agent = rd->tracks[t].agent;
    return 0;
}

/* The sink's item of a dispatch's kernel symbol. */
static int64_t kernel_item(struct rocpd *rd, const struct rocpd_op *o)
{
    size_t known = ng_idmap_find(&rd->item_of, rd->set, o->what);
    if (known != SIZE_MAX)
        return (int64_t)known;
    size_t at = ng_idmap_find(&rd->symbol_of, rd->set, o->what);
    if (at == SIZE_MAX)
        return row_error(rd, o->id, "names kernel %" PRId64 ", which "
                         "rocpd_info_kernel_symbol%s does not have", o->what, rd->u);
    /* the ids themselves as the key: the sink's map takes any bytes */
    const int64_t key[2] = { rd->set, o->what };
    int64_t item = ng_source_events_item(&rd->ev, NG_WORK_KERNEL, key, sizeof key,
                                         rd->names.data + at, NULL);
    if (item >= 0)
        ng_idmap_set(&rd->item_of, rd->set, o->what, (size_t)item);
    return item;
}

/* ---- the GPU work ---- */

/* A GPU operation's times checked and its process found. */
static int span_of(struct rocpd *rd, const struct rocpd_op *o, uint32_t *proc)
{
    if (o->end < o->start)
        return row_error(rd, o->id, "end before start (start %" PRId64 ", end %" PRId64 ")",
                         o->start, o->end);
    return process_of(rd, o, proc);
}

static int take_op(struct rocpd *rd, const struct rocpd_op *o, enum ng_work_kind kind,
                   int64_t item, int64_t device)
{
    uint32_t proc;
    if (span_of(rd, o, &proc) < 0)
        return -1;
    if (!ng_source_events_counts(&rd->ev, kind))
        return ng_source_events_leave_out(&rd->ev, kind, o->end - o->start);
    return ng_source_events_work(&rd->ev, proc, o->has_corr, o->corr, device, o->start, o->end,
                                 (size_t)item);
}

/* An event's stack_id names the API call that made the work: internal
 * correlation ids count from 1, and 0 (or none) is no call. */
static int has_stack(const struct ng_sqlite_rows_value *v)
{
    return v->type == NG_SQLITE_ROWS_INT && v->i > 0;
}

static int take_dispatch(struct rocpd *rd, const struct rocpd_op *o)
{
    const struct rocpd_agent *a = agent_of(rd, o, o->agent);
    if (!a)
        return -1;
    int64_t item = kernel_item(rd, o);
    if (item < 0)
        return -1;
    rd->cpu_ops += !a->gpu;
    return take_op(rd, o, NG_WORK_KERNEL, item, a->index);
}

/* A row of the dispatch scan (total mode): 3.x id, kernel_id, agent_id,
 * pid, start, end; 4.1.0 id, kernel_id, track_id, start, end. */
static int scanned_dispatch(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                            struct ng_err *err)
{
    static const char *const c3[] = { "id", "kernel_id", "agent_id", "pid", "start", "end" };
    static const char *const c4[] = { "id", "kernel_id", "track_id", "start", "end" };
    struct rocpd *rd = ctx;
    struct rocpd_op o = { 0 };
    (void)err;
    if (need_ints(rd, v, n, rd->v41 ? c4 : c3) < 0)
        return -1;
    o.id = v[0].i;
    o.what = v[1].i;
    if (rd->v41) {
        if (resolve_track(rd, &o, v[2].i) < 0)
            return -1;
        o.start = v[3].i;
        o.end = v[4].i;
    } else {
        o.agent = v[2].i;
        o.pid = v[3].i;
        o.start = v[4].i;
        o.end = v[5].i;
    }
    return take_dispatch(rd, &o);
}

/* A row of the dispatch query (epochs): id, kernel_id, agent, pid, tid,
 * start, end, the event's stack_id (its launch's correlation id). */
static int queried_dispatch(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                            struct ng_err *err)
{
    static const char *const cols[] = { "id", "kernel_id", "agent_id", "pid", NULL, "start",
                                        "end", NULL };
    struct rocpd *rd = ctx;
    (void)err;
    if (need_ints(rd, v, n, cols) < 0)
        return -1;
    struct rocpd_op o = { v[0].i, v[1].i, v[2].i, v[3].i, v[4].i, v[5].i, v[6].i, v[7].i,
                          has_stack(&v[7]) };
    return take_dispatch(rd, &o);
}

static int read_dispatches(struct rocpd *rd)
{
    static const char *const c3[] = { "id", "kernel_id", "agent_id", "pid", "start", "end" };
    static const char *const c4[] = { "id", "kernel_id", "track_id", "start", "end" };
    if (!rd->epochs) {
        rd->name.len = 0;
        ng_buf_addf(&rd->name, "rocpd_kernel_dispatch%s", rd->u);
        rd->table = "rocpd_kernel_dispatch";
        return ng_sqlite_rows_scan(rd->db, rd->name.data, rd->v41 ? c4 : c3, rd->v41 ? 5 : 6,
                                   scanned_dispatch, rd, rd->err);
    }
    return query(rd, "rocpd_kernel_dispatch", rd->v41 ?
        "SELECT K.id, K.kernel_id, T.agent_id, T.pid, T.tid, K.start, K.\"end\", E.stack_id "
        "FROM \"rocpd_kernel_dispatch@\" K LEFT JOIN \"rocpd_track@\" T ON T.id = K.track_id "
        "LEFT JOIN \"rocpd_event@\" E ON E.id = K.event_id" :
        "SELECT K.id, K.kernel_id, K.agent_id, K.pid, K.tid, K.start, K.\"end\", E.stack_id "
        "FROM \"rocpd_kernel_dispatch@\" K LEFT JOIN \"rocpd_event@\" E ON E.id = K.event_id",
        queried_dispatch);
}

/* id, the operation's name, src agent, dst agent, pid, start, end, the
 * event's stack_id. */
static int take_copy(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                     struct ng_err *err)
{
    static const char *const cols[] = { "id", NULL, "src_agent_id", "dst_agent_id", "pid",
                                        "start", "end", NULL };
    struct rocpd *rd = ctx;
    (void)err;
    if (need_ints(rd, v, n, cols) < 0)
        return -1;
    struct rocpd_op o = { v[0].i, 0, 0, v[4].i, 0, v[5].i, v[6].i, v[7].i,
                          rd->epochs && has_stack(&v[7]) };
    const struct rocpd_agent *src = agent_of(rd, &o, v[2].i), *dst = src ? agent_of(rd, &o, v[3].i)
                                                                           : NULL;
    if (!dst)
        return -1;
    uint32_t proc;
    if (span_of(rd, &o, &proc) < 0)
        return -1;
    const char *op = v[1].type == NG_SQLITE_ROWS_TEXT ? (const char *)v[1].s : "";
    return ng_rocprof_feed_copy(&rd->ev, proc, o.corr, dst->gpu ? dst->index : src->index,
                                o.start, o.end,
                                ng_source_names_copy_operation(op, v[2].i != v[3].i));
}

static int read_copies(struct rocpd *rd)
{
    return query(rd, "rocpd_memory_copy", rd->v41 ?
        "SELECT M.id, S.string, M.src_agent_id, M.dst_agent_id, T.pid, M.start, M.\"end\", "
        "E.stack_id FROM \"rocpd_memory_copy@\" M LEFT JOIN \"rocpd_track@\" T ON "
        "T.id = M.track_id LEFT JOIN \"rocpd_string@\" S ON S.id = M.name_id LEFT JOIN "
        "\"rocpd_event@\" E ON E.id = M.event_id" :
        "SELECT M.id, S.string, M.src_agent_id, M.dst_agent_id, M.pid, M.start, M.\"end\", "
        "E.stack_id FROM \"rocpd_memory_copy@\" M LEFT JOIN \"rocpd_string@\" S ON "
        "S.id = M.name_id LEFT JOIN \"rocpd_event@\" E ON E.id = M.event_id", take_copy);
}

/* ---- ranges and launch calls ---- */

/* A ROCTx range's text: extdata's "message", an "LZ4F" blob inflated
 * first (4 bytes, the text's length as u32le, an LZ4 frame).  1 a text,
 * 0 none, -1 with err. */
static int range_text(struct rocpd *rd, int64_t id, const struct ng_sqlite_rows_value *ext)
{
    const unsigned char *json = ext->s;
    size_t len = ext->len, got = 0;
    struct ng_err why;
    if (ext->type != NG_SQLITE_ROWS_TEXT && ext->type != NG_SQLITE_ROWS_BLOB)
        return 0;
    if (len >= 8 && memcmp(json, "LZ4F", 4) == 0) {
        size_t want = (size_t)json[4] | (size_t)json[5] << 8 | (size_t)json[6] << 16 |
                      (size_t)json[7] << 24;
        if (want > TEXT_MAX)
            return row_error(rd, id, "its event's extdata inflates to %zu bytes, more than "
                             "%zu", want, TEXT_MAX);
        if (!rd->inflated)
            rd->inflated = ng_xmalloc(TEXT_MAX);
        if (ng_lz4_frame(json + 8, len - 8, rd->inflated, want, &got, &why) < 0)
            return row_error(rd, id, "its event's extdata is a damaged LZ4 blob (%s)", why.msg);
        if (got != want)
            return row_error(rd, id, "its event's extdata inflates to %zu bytes, not the %zu "
                             "its LZ4F header says", got, want);
        json = rd->inflated;
        len = got;
    }
    int rc = ng_sqlite_rows_json(rd->db, json, len, "$.message", &rd->text, &why);
    if (rc < 0)
        return row_error(rd, id, "its event's extdata is not JSON (%s)", why.msg);
    return rc;
}

/* id, pid, tid, start, end, the event's category, its extdata. */
static int take_region(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                       struct ng_err *err)
{
    static const char *const cols[] = { "id", "pid", "tid", "start", "end", NULL, NULL };
    struct rocpd *rd = ctx;
    (void)err;
    if (need_ints(rd, v, n, cols) < 0)
        return -1;
    struct rocpd_op o = { v[0].i, 0, 0, v[1].i, v[2].i, v[3].i, v[4].i, v[0].i, 1 };
    uint32_t proc = 0;
    int64_t tid = 0;
    if (o.end < o.start)
        return row_error(rd, o.id, "end before start (start %" PRId64 ", end %" PRId64 ")",
                         o.start, o.end);
    if (process_of(rd, &o, &proc) < 0 || thread_of(rd, &o, &tid) < 0)
        return -1;
    if (v[5].type != NG_SQLITE_ROWS_TEXT || strcmp((const char *)v[5].s, "MARKER_CORE_RANGE_API"))
        return ng_source_events_call(&rd->ev, proc, tid, o.corr, o.start);
    int rc = range_text(rd, o.id, &v[6]);
    if (rc <= 0)
        return rc;   /* a range without a message names no step */
    return ng_source_events_range(&rd->ev, proc, tid, o.start, o.end, rd->text.data);
}

static int read_regions(struct rocpd *rd)
{
    return query(rd, "rocpd_region", rd->v41 ?
        "SELECT R.id, T.pid, T.tid, R.start, R.\"end\", C.name, E.extdata FROM "
        "\"rocpd_region@\" R LEFT JOIN \"rocpd_track@\" T ON T.id = R.track_id LEFT JOIN "
        "\"rocpd_event@\" E ON E.id = R.event_id LEFT JOIN \"rocpd_info_category@\" C ON "
        "C.id = E.category_id" :
        "SELECT R.id, R.pid, R.tid, R.start, R.\"end\", C.string, E.extdata FROM "
        "\"rocpd_region@\" R LEFT JOIN \"rocpd_event@\" E ON E.id = R.event_id LEFT JOIN "
        "\"rocpd_string@\" C ON C.id = E.category_id", take_region);
}

/* ---- a table set ---- */

static int has(struct rocpd *rd, const char *stem)
{
    rd->text.len = 0;
    ng_buf_addf(&rd->text, "%s%s", stem, rd->u);
    return ng_sqlite_rows_has_table(rd->db, rd->text.data);
}

static int need(struct rocpd *rd, const char *stem)
{
    if (has(rd, stem))
        return 0;
    return ng_err_set(rd->err, "'%s' is a rocpd database without its %s%s table (the table "
                      "set of rocpd_metadata%s): written by a rocprofv3 that stopped early, "
                      "or edited", rd->shown, stem, rd->u, rd->u);
}

static int take_version(void *ctx, const struct ng_sqlite_rows_value *v, size_t n,
                        struct ng_err *err)
{
    struct rocpd *rd = ctx;
    const char *s = v[0].type == NG_SQLITE_ROWS_TEXT ? (const char *)v[0].s : "";
    char *end;
    (void)n;
    long major = strtol(s, &end, 10);
    if (end == s || (*end && *end != '.') || (major != 3 && major != 4))
        return ng_err_set(err, "'%s' is a rocpd database of schema version %s, which the gate "
                          "does not read (it reads 3 and 4)", rd->shown, *s ? s : "(none)");
    rd->has_version = 1;
    return 0;
}

static int read_version(struct rocpd *rd)
{
    rd->has_version = 0;
    if (query(rd, "rocpd_metadata", "SELECT value FROM \"rocpd_metadata@\" WHERE tag = "
              "'schema_version' LIMIT 1", take_version) < 0)
        return -1;
    if (!rd->has_version)
        return ng_err_set(rd->err, "'%s': rocpd_metadata%s has no schema_version", rd->shown,
                          rd->u);
    return 0;
}

/* The set's processes, threads, agents, symbols (and 4.1.0's tracks). */
static int read_infos(struct rocpd *rd)
{
    if (query(rd, "rocpd_info_process", "SELECT id, pid FROM \"rocpd_info_process@\"",
              take_process) < 0 ||
        query(rd, "rocpd_info_agent", "SELECT id, type, type_index, product_name FROM "
              "\"rocpd_info_agent@\"", take_agent) < 0 ||
        query(rd, "rocpd_info_kernel_symbol", "SELECT id, display_name, kernel_name FROM "
              "\"rocpd_info_kernel_symbol@\"", take_symbol) < 0)
        return -1;
    if (has(rd, "rocpd_info_thread") &&
        query(rd, "rocpd_info_thread", "SELECT id, tid FROM \"rocpd_info_thread@\"",
              take_thread) < 0)
        return -1;
    if (rd->v41 && query(rd, "rocpd_track", "SELECT id, pid, tid, agent_id FROM "
                         "\"rocpd_track@\"", take_track) < 0)
        return -1;
    return 0;
}

static int read_set(struct rocpd *rd, int64_t set, const char *u)
{
    static const char *const tables[] = { "rocpd_kernel_dispatch", "rocpd_info_kernel_symbol",
                                          "rocpd_info_agent", "rocpd_info_process" };
    rd->u = u;
    rd->set = set;
    rd->last_pid = -1;            /* ids of another set: nothing cached applies */
    rd->last_agent_row = NULL;
    if (read_version(rd) < 0)
        return -1;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (need(rd, tables[i]) < 0)
            return -1;
    has(rd, "rocpd_kernel_dispatch");
    int v41 = ng_sqlite_rows_has_column(rd->db, rd->text.data, "track_id", rd->err);
    if (v41 < 0 || (v41 && need(rd, "rocpd_track") < 0))
        return -1;
    rd->v41 = v41;
    if (read_infos(rd) < 0)
        return -1;
    if (rd->epochs && has(rd, "rocpd_region") && (need(rd, "rocpd_event") < 0 ||
        need(rd, rd->v41 ? "rocpd_info_category" : "rocpd_string") < 0 ||
        read_regions(rd) < 0))
        return -1;
    if (read_dispatches(rd) < 0)
        return -1;
    if (has(rd, "rocpd_memory_copy") && (need(rd, "rocpd_string") < 0 || read_copies(rd) < 0))
        return -1;
    return 0;
}

/* ---- the file ---- */

static void rocpd_release(struct rocpd *rd)
{
    ng_source_events_release(&rd->ev);
    ng_sqlite_rows_close(rd->db);
    ng_idmap_release(&rd->pids);
    ng_idmap_release(&rd->tids);
    ng_idmap_release(&rd->agent_of);
    ng_idmap_release(&rd->track_of);
    ng_idmap_release(&rd->symbol_of);
    ng_idmap_release(&rd->item_of);
    free(rd->agents);
    free(rd->tracks);
    ng_buf_release(&rd->names);
    ng_buf_release(&rd->sql);
    ng_buf_release(&rd->text);
    ng_buf_release(&rd->name);
    free(rd->inflated);
}

static int read_sets(struct rocpd *rd)
{
    const char **found;
    size_t n;
    ng_sqlite_rows_suffixes(rd->db, "rocpd_metadata", &found, &n);
    if (n == 0)
        return ng_err_set(rd->err, "'%s' has no rocpd_metadata_<uuid> table: not a rocpd "
                          "database", rd->shown);
    /* the list is the database's until its next call */
    const char **sets = ng_xmalloc(n * sizeof *sets);
    memcpy(sets, found, n * sizeof *sets);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = read_set(rd, (int64_t)i, sets[i]);
    free(sets);
    return rc;
}

static int load_once(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                     int keep_all, int *out_of_order, struct ng_err *err)
{
    struct rocpd rd;

    memset(&rd, 0, sizeof rd);
    rd.shown = path;
    rd.err = err;
    int rc = ng_rocprof_feed_init_window(&rd.ev, p, opts, path, keep_all, err);
    if (rc == 0)
        rc = (rd.db = ng_sqlite_rows_open(path, path, opts, err)) ? 0 : -1;
    rd.epochs = ng_source_events_wants_ranges(&rd.ev);
    if (rc == 0)
        rc = read_sets(&rd);
    if (rc == 0 && rd.cpu_ops)
        ng_profile_warn(p, "%" PRId64 " kernel dispatch%s of '%s' ran on a CPU agent; counted "
                        "with the GPU work", rd.cpu_ops, rd.cpu_ops == 1 ? "" : "es", path);
    if (rc == 0)
        rc = ng_source_events_finish(&rd.ev);
    *out_of_order = ng_source_events_out_of_order(&rd.ev);
    rocpd_release(&rd);
    return rc;
}

/* Total mode through the sink's window; a merged file, whose table sets
 * each start their times over, is read again keeping every operation. */
int ng_rocpd_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                  struct ng_err *err)
{
    return ng_source_events_load(p, path, opts, load_once, err);
}

int ng_rocpd_claim(const char *path)
{
    static const struct ng_source_opts opts = { 0 };
    struct ng_err err;
    const char **sets;
    size_t n = 0;
    struct ng_sqlite_rows *db = ng_sqlite_rows_open(path, path, &opts, &err);
    if (!db)
        return 0;
    ng_sqlite_rows_suffixes(db, "rocpd_metadata", &sets, &n);
    /* an nsys export with a stray rocpd table stays nsys's */
    int mine = n > 0 && !ng_sqlite_rows_has_table(db, "StringIds");
    ng_sqlite_rows_close(db);
    return mine;
}
