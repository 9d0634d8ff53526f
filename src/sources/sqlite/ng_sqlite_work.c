/* The work pass of the SQLite backend (ng_sqlite_work.h): every row of
 * every counted table through take_row(), whichever driver read it. */
#include "sources/sqlite/ng_sqlite_work.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/ng_comm.h"
#include "core/ng_nvtx.h"
#include "sources/ng_source_opts.h"
#include "sources/sqlite/ng_sqlite_direct.h"
#include "sources/sqlite/ng_sqlite_names.h"

/* A work row as both drivers hand it over. */
struct ng_sqlite_row {
    int64_t key, start, end, device, gpid, corr;
    int has_corr, in_graph;
};

/* Item indices by key, for keys in [0, DENSE_KEYS): name ids, copy kinds
 * and graph ids are small integers, so most rows find their item by two
 * array reads instead of a hash; pages are allocated as keys appear. */
#define DENSE_PAGE_BITS 12
#define DENSE_KEYS ((int64_t)1 << 24)

/* The work kinds.  A new kind is a row here plus its name rule.  The
 * kernel table's name may be a _Vn successor (see
 * ng_sqlite_work_find_kernel_table). */
const struct ng_sqlite_work_table ng_sqlite_work_tables[NG_SQLITE_WORK_TABLES] = {
    { NG_WORK_KERNEL, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName", ng_sqlite_names_string,
      "kernels" },
    { NG_WORK_GRAPH, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "graphId", ng_sqlite_names_graph,
      "whole-graph launches" },
    { NG_WORK_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", ng_sqlite_names_memcpy,
      "memcpy operations" },
    { NG_WORK_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", NULL, ng_sqlite_names_memset,
      "memset operations" },
};

static const struct ng_sqlite_work_table *table_of_kind(enum ng_work_kind kind)
{
    for (size_t k = 0; k < NG_SQLITE_WORK_TABLES; k++)
        if (ng_sqlite_work_tables[k].kind == kind)
            return &ng_sqlite_work_tables[k];
    return &ng_sqlite_work_tables[0];
}

/* ---- counting one work row ---- */

static void fail_row(struct ng_sqlite *rd, const char *problem)
{
    if (!rd->problem) {
        rd->problem = problem;
        rd->bad_row = rd->rows;
    }
}

/* An item's name as the verdict shows it: by its kind's rule, and with
 * --kernel-names base on an export without shortName, derived from the
 * demangled name by the rule saved text also uses. */
void ng_sqlite_work_item_name(struct ng_sqlite *rd, const struct ng_sqlite_work_item *it,
                              struct ng_buf *out)
{
    struct ng_buf full = NG_BUF_INIT;
    table_of_kind(it->kind)->name(rd, it->key, &full);
    if (rd->derive_base && it->kind == NG_WORK_KERNEL)
        ng_kernel_base_name(full.data ? full.data : "", out);
    else
        ng_buf_add(out, full.data ? full.data : "", full.len);
    ng_buf_release(&full);
}

/* The filter's choice for an item, on its first row: its name is looked
 * up then (a query inside the aggregate's callback, on the same
 * connection, which SQLite allows). */
int ng_sqlite_work_choose(struct ng_sqlite *rd, struct ng_sqlite_work_item *it)
{
    int memory = it->kind == NG_WORK_MEMCPY || it->kind == NG_WORK_MEMSET;
    int classify = it->kind == NG_WORK_KERNEL && rd->opts->comm;

    it->cls = memory ? NG_CLASS_MEMORY : NG_CLASS_COMPUTE;
    if (ng_filter_empty(rd->opts->filter) && !classify) {
        it->state = 1;
        return 0;
    }
    struct ng_buf name = NG_BUF_INIT;
    ng_sqlite_work_item_name(rd, it, &name);
    const char *text = name.data ? name.data : "";
    int sel = ng_filter_empty(rd->opts->filter)
                  ? 1 : ng_filter_selects(rd->opts->filter, text, &rd->account);
    int comm = sel > 0 && classify ? ng_comm_is(rd->opts->comm, text, &rd->comm_cpu) : 0;
    ng_buf_release(&name);
    if (sel < 0) {
        fail_row(rd, "kernel names the --kernels / --exclude-kernels patterns took over their "
                 "CPU budget on");
        return -1;
    }
    if (comm < 0) {
        fail_row(rd, "kernel names the communication kernel patterns took over their CPU "
                 "budget on");
        return -1;
    }
    it->state = sel ? 1 : -1;
    it->cls = comm ? NG_CLASS_COMM : it->cls;
    return 0;
}

static size_t new_item(struct ng_sqlite *rd, int64_t key)
{
    rd->items = ng_xgrow(rd->items, rd->n_items, sizeof *rd->items);
    rd->items[rd->n_items] = (struct ng_sqlite_work_item){ rd->cur->kind, key, 0, 0, 0,
                                                      NG_CLASS_COMPUTE };
    return rd->n_items++;
}

/* The item of a key seen before or not: a slot in the dense pages (made
 * on the key's first row), or the index for keys outside them. */
static struct ng_sqlite_work_item *item_found(struct ng_sqlite *rd, int64_t key)
{
    if (key >= 0 && key < DENSE_KEYS) {
        struct ng_sqlite_dense *d = &rd->dense[rd->cur->kind];
        size_t page = (size_t)key >> DENSE_PAGE_BITS;
        if (page >= d->n_pages) {
            d->pages = ng_xrealloc(d->pages, (page + 1) * sizeof *d->pages);
            memset(d->pages + d->n_pages, 0, (page + 1 - d->n_pages) * sizeof *d->pages);
            d->n_pages = page + 1;
        }
        if (!d->pages[page])
            d->pages[page] = ng_xcalloc((size_t)1 << DENSE_PAGE_BITS, sizeof **d->pages);
        uint32_t *slot = &d->pages[page][(size_t)key & (((size_t)1 << DENSE_PAGE_BITS) - 1)];
        if (!*slot)
            *slot = (uint32_t)new_item(rd, key) + 1;
        return &rd->items[*slot - 1];
    }
    int added;
    size_t i = ng_idmap_get(&rd->item_index, rd->cur->kind, key, rd->n_items, &added);
    if (added)
        new_item(rd, key);
    return &rd->items[i];
}

/* A row's item: inline for a dense key seen before (nearly every row). */
static inline struct ng_sqlite_work_item *item_for(struct ng_sqlite *rd, int64_t key)
{
    const struct ng_sqlite_dense *d = &rd->dense[rd->cur->kind];
    size_t page = (size_t)key >> DENSE_PAGE_BITS;
    if (key >= 0 && key < DENSE_KEYS && page < d->n_pages && d->pages[page]) {
        uint32_t slot = d->pages[page][(size_t)key & (((size_t)1 << DENSE_PAGE_BITS) - 1)];
        if (slot)
            return &rd->items[slot - 1];
    }
    return item_found(rd, key);
}

/* The (process, device) pair's figures: the last pair again (the common
 * case), else by the index, so a file with a million distinct devices
 * costs a hash lookup a row, not a search. */
static int add_pair(struct ng_sqlite *rd, int64_t gpid, int64_t device, int64_t dur)
{
    struct ng_sqlite_work_pair *p = rd->n_pairs ? &rd->pairs[rd->last_pair] : NULL;
    if (!p || p->gpid != gpid || p->device != device) {
        int added;
        size_t i = ng_idmap_get(&rd->pair_index, gpid, device, rd->n_pairs, &added);
        if (added) {
            rd->pairs = ng_xgrow(rd->pairs, rd->n_pairs, sizeof *rd->pairs);
            rd->pairs[rd->n_pairs++] = (struct ng_sqlite_work_pair){ gpid, device, 0, 0 };
        }
        rd->last_pair = i;
        p = &rd->pairs[i];
    }
    if (__builtin_add_overflow(p->ns, dur, &p->ns))
        return -1;   /* items of one pair whose sum overflows: each item alone did not */
    p->launches++;
    return 0;
}

/* Every row of every counted table comes through here, whichever driver
 * read it.  Returns -1 on a bad row (rd->problem says why). */
static inline int take_row(struct ng_sqlite *rd, const struct ng_sqlite_row *r)
{
    int64_t dur;

    rd->rows++;
    rd->rows_seen++;
    if (r->end < r->start)
        return fail_row(rd, "a row that ends before it starts"), -1;
    if (__builtin_sub_overflow(r->end, r->start, &dur))
        return fail_row(rd, "a duration that overflows 64 bits"), -1;
    if (r->in_graph)
        rd->graph_node_kernels++;
    struct ng_sqlite_work_item *it = item_for(rd, r->key);
    size_t item = (size_t)(it - rd->items);
    if (it->state == 0 && ng_sqlite_work_choose(rd, it) < 0)
        return -1;
    int counted = it->state > 0;
    /* NVTX mode: only work launched inside a counted epoch (work without a
     * correlation id was launched by no call we know); work the filters
     * leave out is only measured, for the "left out" figure */
    if (rd->pj) {
        int taken = !r->has_corr ? 0
                    : counted ? ng_nvtx_work(rd->pj, r->gpid, r->corr, r->device, r->start,
                                                r->end, item, it->cls)
                              : ng_nvtx_epochs_of(rd->pj, r->gpid, r->corr);
        if (taken < 0)
            return fail_row(rd, "epoch times that overflow 64 bits"), -1;
        if (taken == 0)
            return 0;
    } else if (counted && ng_acc_add(&rd->whole, r->device, r->start, r->end, it->cls) < 0) {
        return fail_row(rd, "GPU busy time that overflows 64 bits"), -1;
    }
    it = &rd->items[item];
    if (__builtin_add_overflow(it->total_ns, dur, &it->total_ns))
        return fail_row(rd, "work time that overflows 64 bits"), -1;
    it->count++;
    if (counted && add_pair(rd, r->gpid, r->device, dur) < 0)
        return fail_row(rd, "work time that overflows 64 bits"), -1;
    return 0;
}

/* The columns every driver selects, in this order: key, start, end,
 * device, process, correlation id, graph id.  A column an older export
 * lacks is a constant. */
enum { COL_KEY, COL_START, COL_END, COL_DEVICE, COL_GPID, COL_CORR, COL_GRAPH, N_COLS };

static const struct ng_btree_cell NULL_CELL = { NG_BTREE_NULL, 0 };
static const struct ng_btree_cell ZERO_CELL = { NG_BTREE_INT, 0 };

static struct ng_sqlite_direct_col col_or(int have, const char *name,
                                          struct ng_btree_cell otherwise)
{
    return have ? (struct ng_sqlite_direct_col){ name, NULL_CELL, 0 }
                : (struct ng_sqlite_direct_col){ NULL, otherwise, 0 };
}

/* The columns as a SELECT list. */
static void sql_list(struct ng_buf *sql, const struct ng_sqlite_direct_col *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            ng_buf_adds(sql, ", ");
        if (c[i].name)
            ng_sqlite_add_ident(sql, c[i].name);
        else if (c[i].konst.type == NG_BTREE_INT)
            ng_buf_addf(sql, "%" PRId64, c[i].konst.i);
        else
            ng_buf_adds(sql, "NULL");
    }
}

/* The columns a work driver reads of table t: all N_COLS. */
static int select_cols(struct ng_sqlite *rd, const struct ng_sqlite_work_table *t,
                       const char *table, struct ng_sqlite_direct_col *c, size_t *n,
                       struct ng_err *err)
{
    static const char *const needed[] = { "start", "end" };
    for (size_t i = 0; i < 2; i++) {
        int h = ng_sqlite_has_column(rd, table, needed[i], err);
        if (h < 0)
            return -1;
        if (!h)
            return ng_err_set(err, "'%s': table %s has no column '%s'", rd->shown, table,
                              needed[i]);
    }
    const char *key_col = t->kind == NG_WORK_KERNEL ? rd->kernel_key : t->key_col;
    int key = key_col ? ng_sqlite_has_column(rd, table, key_col, err) : 0;
    if (key < 0)
        return -1;
    if (key_col && !key)
        return ng_err_set(err, "'%s': table %s has no column '%s'", rd->shown, table, key_col);
    int dev = ng_sqlite_has_column(rd, table, "deviceId", err);
    int gpid = ng_sqlite_has_column(rd, table, "globalPid", err);
    int corr = ng_sqlite_has_column(rd, table, "correlationId", err);
    int graph = t->kind == NG_WORK_KERNEL ? ng_sqlite_has_column(rd, table, "graphId", err) : 0;
    if (dev < 0 || gpid < 0 || corr < 0 || graph < 0)
        return -1;
    rd->cur_graph = graph;
    c[COL_KEY] = col_or(key_col != NULL, key_col, ZERO_CELL);
    c[COL_START] = (struct ng_sqlite_direct_col){ "start", NULL_CELL, 0 };
    c[COL_END] = (struct ng_sqlite_direct_col){ "end", NULL_CELL, 0 };
    if (rd->pj && !corr)
        return ng_err_set(err, "'%s': table %s has no column 'correlationId' to tie its work "
                          "to epoch ranges", rd->shown, table);
    c[COL_DEVICE] = col_or(dev, "deviceId", ZERO_CELL);
    c[COL_GPID] = col_or(gpid, "globalPid", ZERO_CELL);
    /* total mode never reads the correlation id */
    c[COL_CORR] = rd->pj ? col_or(corr, "correlationId", NULL_CELL)
                         : (struct ng_sqlite_direct_col){ NULL, NULL_CELL, 1 };
    c[COL_GRAPH] = col_or(graph, "graphId", NULL_CELL);
    *n = N_COLS;
    return 0;
}

static int select_list(struct ng_sqlite *rd, const struct ng_sqlite_work_table *t,
                       const char *table, struct ng_buf *sql, struct ng_err *err)
{
    struct ng_sqlite_direct_col c[N_COLS];
    size_t n;
    if (select_cols(rd, t, table, c, &n, err) < 0)
        return -1;
    sql_list(sql, c, n);
    return 0;
}

/* A work row's cells as a row; NULL when a type is wrong.  Only what a
 * figure depends on is type-checked (a device or process id that is not
 * an integer reads as 0), and the correlation and graph ids only when the
 * driver selects them: this runs once per row. */
static inline const char *cells_to_row(const struct ng_sqlite *rd,
                                       const struct ng_btree_cell *c, struct ng_sqlite_row *r)
{
    if (c[COL_KEY].type != NG_BTREE_INT || c[COL_START].type != NG_BTREE_INT ||
        c[COL_END].type != NG_BTREE_INT)
        return "a row whose name id, start or end is not an integer";
    r->key = c[COL_KEY].i;
    r->start = c[COL_START].i;
    r->end = c[COL_END].i;
    r->device = c[COL_DEVICE].type == NG_BTREE_INT ? c[COL_DEVICE].i : 0;
    r->gpid = c[COL_GPID].type == NG_BTREE_INT ? c[COL_GPID].i : 0;
    r->has_corr = rd->pj && c[COL_CORR].type == NG_BTREE_INT;
    r->corr = r->has_corr ? c[COL_CORR].i : 0;
    r->in_graph = rd->cur_graph && c[COL_GRAPH].type != NG_BTREE_NULL;
    return NULL;
}

static int table_problem(struct ng_sqlite *rd, const char *table, struct ng_err *err)
{
    return ng_err_set(err, "'%s': %s has %s (row %" PRId64 ")", rd->shown, table, rd->problem,
                      rd->bad_row);
}

/* ---- gpu-busy: every counted table in one scan, in order of start ---- */

struct stream {
    const struct ng_sqlite_work_table *t;
    const char *table;
    sqlite3_stmt *st;              /* SQL, or */
    struct ng_btree_cursor *cur;   /* the page reader (the unsorted pass) */
    struct ng_sqlite_row head;
    struct ng_btree_cell cells[NG_BTREE_COLS];   /* the page reader's (its unused ones stay 0) */
    int live;
    int64_t last_start;
};

static const char *column_row(const struct ng_sqlite *rd, sqlite3_stmt *st,
                              struct ng_sqlite_row *r)
{
    struct ng_btree_cell c[N_COLS];
    for (int i = 0; i < N_COLS; i++)
        c[i] = ng_sqlite_direct_cell(sqlite3_column_value(st, i));
    return cells_to_row(rd, c, r);
}

/* Steps one stream: 1 a row, 0 the end, -1 an error (err set), 2 the
 * table is not in order of start.  Once a row, so inline in the merge
 * (gcc leaves a function called from two places out of line). */
static inline __attribute__((always_inline)) int stream_next(struct ng_sqlite *rd,
                                                             struct stream *s,
                                                             struct ng_err *err)
{
    const char *bad;
    if (s->cur) {
        struct ng_btree_cell *c = s->cells;
        struct ng_err why;
        int r = ng_btree_next(s->cur, c, &why);
        if (r < 0)
            return ng_sqlite_direct_corrupt(rd, s->table, &why, err);
        if (r == 0) {
            s->live = 0;
            return 0;
        }
        bad = cells_to_row(rd, c, &s->head);
    } else {
        int rc = sqlite3_step(s->st);
        if (rc == SQLITE_DONE) {
            s->live = 0;
            return 0;
        }
        if (rc != SQLITE_ROW)
            return ng_sqlite_error(rd, err, rc);
        bad = column_row(rd, s->st, &s->head);
    }
    if (bad) {
        rd->cur = s->t;
        rd->rows++;   /* rows are numbered from 1 */
        fail_row(rd, bad);
        return table_problem(rd, s->table, err);
    }
    if (s->live && s->head.start < s->last_start)
        return 2;
    s->last_start = s->head.start;
    s->live = 1;
    return 1;
}

/* A page-reader cursor for the stream's table: 0 opened, 1 the page
 * reader does not apply (SQL then), -1 an error (err set). */
static int stream_cursor(struct ng_sqlite *rd, struct stream *s, struct ng_err *err)
{
    struct ng_sqlite_direct_col c[N_COLS];
    size_t n;

    if (select_cols(rd, s->t, s->table, c, &n, err) < 0)
        return -1;
    return ng_sqlite_direct_open(rd, s->table, c, n, &s->cur, err);
}

/* Returns 0, -1 (err set) or 2 (a table was out of order: nothing of this
 * pass may be kept). */
static int merged_scan(struct ng_sqlite *rd, struct stream *s, size_t n, int sorted,
                       struct ng_err *err)
{
    int ret = 0;
    /* the unsorted pass reads rows in storage order, which is what the page
     * reader gives; SQLite's read lock is held across every cursor */
    sqlite3_stmt *lock =
        !sorted && ng_sqlite_direct_ok(rd, rd->path) ? ng_sqlite_direct_hold(rd) : NULL;

    for (size_t i = 0; i < n && ret == 0; i++) {
        if (lock) {
            int d = stream_cursor(rd, &s[i], err);
            if (d < 0) {
                ret = -1;
                break;
            }
            if (d == 0) {
                ret = stream_next(rd, &s[i], err) < 0 ? -1 : 0;
                continue;
            }
        }
        struct ng_buf sql = NG_BUF_INIT;
        ng_buf_adds(&sql, "SELECT ");
        if (select_list(rd, s[i].t, s[i].table, &sql, err) < 0) {
            ng_buf_release(&sql);
            ret = -1;
            break;
        }
        ng_buf_adds(&sql, " FROM ");
        ng_sqlite_add_ident(&sql, s[i].table);
        if (ng_sqlite_direct_check(rd, s[i].table, err) < 0) {
            ng_buf_release(&sql);
            ret = -1;
            break;
        }
        if (sorted)
            ng_buf_adds(&sql, " ORDER BY start");
        int rc = sqlite3_prepare_v2(rd->db, sql.data, -1, &s[i].st, NULL);
        ng_buf_release(&sql);
        if (rc != SQLITE_OK)
            ret = ng_sqlite_error(rd, err, rc);
        else
            ret = stream_next(rd, &s[i], err) < 0 ? -1 : 0;
    }
    while (ret == 0) {
        struct stream *next = NULL;
        for (size_t i = 0; i < n; i++)
            if (s[i].live && (!next || s[i].head.start < next->head.start))
                next = &s[i];
        if (!next)
            break;
        rd->cur = next->t;
        if (take_row(rd, &next->head) < 0) {
            ret = table_problem(rd, next->table, err);
            break;
        }
        ret = stream_next(rd, next, err);
        ret = ret == 1 || ret == 0 ? 0 : ret;
    }
    for (size_t i = 0; i < n; i++) {
        sqlite3_finalize(s[i].st);
        s[i].st = NULL;
        ng_btree_close(s[i].cur);
        s[i].cur = NULL;
        s[i].live = 0;
    }
    sqlite3_finalize(lock);
    if (ret == 0 && (rd->pj ? ng_nvtx_disordered(rd->pj) : rd->whole.disordered))
        ret = 2;   /* cannot happen with a true merge; never trust it if it does */
    return ret;
}

static void release_dense(struct ng_sqlite *rd)
{
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        for (size_t i = 0; i < rd->dense[k].n_pages; i++)
            free(rd->dense[k].pages[i]);
        free(rd->dense[k].pages);
        rd->dense[k] = (struct ng_sqlite_dense){ NULL, 0 };
    }
}

static void forget_work(struct ng_sqlite *rd)
{
    ng_idmap_release(&rd->item_index);
    free(rd->items);
    rd->items = NULL;
    rd->n_items = 0;
    release_dense(rd);
    free(rd->pairs);
    rd->pairs = NULL;
    rd->n_pairs = rd->last_pair = 0;
    ng_idmap_release(&rd->pair_index);
    rd->graph_node_kernels = 0;
    rd->rows_seen = 0;
    rd->problem = NULL;
    ng_acc_reset(&rd->whole);
    if (rd->pj)
        ng_nvtx_restart_work(rd->pj);
}

static int busy_scan(struct ng_sqlite *rd, struct stream *s, size_t n, struct ng_err *err)
{
    int ret = merged_scan(rd, s, n, 0, err);
    if (ret != 2)
        return ret;
    /* a table out of time order: read them all again, each sorted */
    forget_work(rd);
    ret = merged_scan(rd, s, n, 1, err);
    if (ret == 2)
        return ng_err_set(err, "'%s': work intervals still out of order after sorting", rd->shown);
    return ret;
}

/* ---- which tables hold work ---- */

/* The number n of a CUPTI_ACTIVITY_KIND_KERNEL_Vn table, or -1. */
static long kernel_version(const char *lower_name)
{
    static const char prefix[] = "cupti_activity_kind_kernel_v";
    const char *v = lower_name + sizeof prefix - 1;
    if (strncmp(lower_name, prefix, sizeof prefix - 1) != 0 || !*v ||
        strspn(v, "0123456789") != strlen(v) || strlen(v) > 6)
        return -1;
    return strtol(v, NULL, 10);
}

/* The kernel table nsys's own reports read (CUPTI_ACTIVITY_KIND_KERNEL),
 * else the newest _Vn successor some exports use.  Every other kernel
 * table is named in a warning, since its kernels are left out. */
int ng_sqlite_work_find_kernel_table(struct ng_sqlite *rd, struct ng_profile *p,
                                     struct ng_err *err)
{
    int plain = ng_sqlite_need_table(rd, ng_sqlite_work_tables[0].table, err);
    const struct ng_sqlite_object *best = NULL;

    if (plain < 0)
        return -1;
    for (size_t i = 0; i < rd->n_schema; i++) {
        const struct ng_sqlite_object *o = &rd->schema[i];
        if (kernel_version(o->name) < 0)
            continue;
        if (!o->is_table)
            return ng_err_set(err, "'%s': %s is a %s, not a table", rd->shown, o->shown, o->type);
        if (!best || kernel_version(o->name) > kernel_version(best->name))
            best = o;
    }
    rd->kernel_table = plain ? ng_sqlite_work_tables[0].table : best ? best->shown : NULL;
    for (size_t i = 0; i < rd->n_schema; i++) {
        const struct ng_sqlite_object *o = &rd->schema[i];
        if (kernel_version(o->name) >= 0 && strcmp(o->shown, rd->kernel_table) != 0)
            ng_profile_warn(p, "'%s' also has a table %s, which nsys's own reports do not "
                            "read; its kernels were left out (%s was read)", rd->shown, o->shown,
                            rd->kernel_table);
    }
    return rd->kernel_table ? 1 : 0;
}

static const char *table_of(const struct ng_sqlite *rd, const struct ng_sqlite_work_table *t)
{
    return t->kind == NG_WORK_KERNEL ? rd->kernel_table : t->table;
}

/* One row of a table --work leaves out, from the page reader: counted,
 * and its duration summed exactly, as count(*) and sum("end" - start)
 * would (a NULL start or end is counted, not summed).  -1 on a real or a
 * text (rd->left_by_sql: SQL's arithmetic sums the table), or a sum past
 * 64 bits (rd->left_over). */
static int left_out_row(struct ng_sqlite *rd, const struct ng_btree_cell *c, size_t n)
{
    int64_t d;
    (void)n;
    rd->left_rows++;
    if (c[0].type == NG_BTREE_NULL || c[1].type == NG_BTREE_NULL)
        return 0;
    if (c[0].type != NG_BTREE_INT || c[1].type != NG_BTREE_INT) {
        rd->left_by_sql = 1;
        return -1;
    }
    if (__builtin_sub_overflow(c[1].i, c[0].i, &d) ||
        __builtin_add_overflow(rd->left_ns, d, &rd->left_ns)) {
        rd->left_over = 1;
        return -1;
    }
    return 0;
}

/* The same sum by SQL: exact over integers (SQLite's sum() stops with
 * "integer overflow" past 64 bits), a double once a real is in it. */
static int left_out_sql(struct ng_sqlite *rd, const char *table, struct ng_err *err)
{
    struct ng_buf sql = NG_BUF_INIT;
    sqlite3_stmt *st;

    if (ng_sqlite_direct_check(rd, table, err) < 0)
        return -1;
    ng_buf_adds(&sql, "SELECT count(*), sum(\"end\" - start) FROM ");
    ng_sqlite_add_ident(&sql, table);
    int rc = sqlite3_prepare_v2(rd->db, sql.data, -1, &st, NULL);
    ng_buf_release(&sql);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        double v = sqlite3_column_double(st, 1);
        rd->left_rows = sqlite3_column_int64(st, 0);
        if (sqlite3_column_type(st, 1) == SQLITE_INTEGER)
            rd->left_ns = sqlite3_column_int64(st, 1);
        else if (v > -9.2e18 && v < 9.2e18)   /* NULL (no duration) reads as 0 */
            rd->left_ns = (int64_t)v;
        else
            rd->left_over = 1;
    } else if (strstr(sqlite3_errmsg(rd->db), "integer overflow")) {
        rd->left_over = 1;
        rc = SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : ng_sqlite_error(rd, err, rc);
}

/* How much work a table holds that --work does not count: by the page
 * reader (a default run on a trace full of memcpy rows must not cost more
 * than counting them), else by SQL; the same figure either way. */
static int count_left_out(struct ng_sqlite *rd, const char *table, enum ng_work_kind kind,
                          struct ng_profile *p, struct ng_err *err)
{
    static const struct ng_sqlite_direct_col span[] = { { "start", { NG_BTREE_NULL, 0 }, 0 },
                                       { "end", { NG_BTREE_NULL, 0 }, 0 } };

    rd->left_rows = rd->left_ns = 0;
    rd->left_by_sql = rd->left_over = 0;
    int direct = ng_sqlite_direct_scan(rd, table, span, 2, left_out_row, err);
    if (direct < 0 && !rd->left_by_sql && !rd->left_over)
        return -1;   /* a malformed file */
    if (direct == 1 || rd->left_by_sql) {
        rd->left_rows = rd->left_ns = 0;
        if (left_out_sql(rd, table, err) < 0)
            return -1;
    }
    if (rd->left_over)
        return ng_err_set(err, "'%s': %s has left-out work whose time overflows 64 bits",
                          rd->shown, table);
    p->left_out_launches[kind] = rd->left_rows;
    p->left_out_ns[kind] = rd->left_ns;
    return 0;
}

/* Which kinds the profile has tables for (*present), and how much of
 * each kind --work does not count it holds. */
int ng_sqlite_work_survey(struct ng_sqlite *rd, struct ng_profile *p, unsigned *present,
                          struct ng_err *err)
{
    *present = 0;
    for (size_t i = 0; i < NG_SQLITE_WORK_TABLES; i++) {
        const struct ng_sqlite_work_table *t = &ng_sqlite_work_tables[i];
        const char *table = table_of(rd, t);
        int have = table ? ng_sqlite_need_table(rd, table, err) : 0;
        if (have < 0)
            return -1;
        if (!have)
            continue;
        *present |= NG_WORK_BIT(t->kind);
        if (!(rd->work & NG_WORK_BIT(t->kind)) &&
            count_left_out(rd, table, t->kind, p, err) < 0)
            return -1;
    }
    return 0;
}

/* Reads every counted table the profile has. */
int ng_sqlite_work_read(struct ng_sqlite *rd, unsigned present, struct ng_err *err)
{
    struct stream s[NG_SQLITE_WORK_TABLES];
    size_t n = 0;

    memset(s, 0, sizeof s);
    for (size_t i = 0; i < NG_SQLITE_WORK_TABLES; i++) {
        const struct ng_sqlite_work_table *t = &ng_sqlite_work_tables[i];
        if (!(present & rd->work & NG_WORK_BIT(t->kind)))
            continue;
        /* every table at once, merged in order of start: the breakdown's
         * unions need a device's intervals in order, whatever the metric */
        s[n++] = (struct stream){ .t = t, .table = table_of(rd, t) };
    }
    if (n == 0)
        return 0;
    int ret = busy_scan(rd, s, n, err);
    rd->rows_total = ret == 0 ? rd->rows_seen : rd->rows_total;
    return ret;
}

/* The StringIds look-up (names are looked up while rows are read, when a
 * kernel filter decides on an item's first row), and which column names a
 * kernel: shortName with --kernel-names base where the table has one. */
int ng_sqlite_work_prepare_names(struct ng_sqlite *rd, struct ng_err *err)
{
    if (ng_sqlite_names_open(rd, err) < 0)
        return -1;
    rd->kernel_key = ng_sqlite_work_tables[0].key_col;
    if (rd->opts->base_names && rd->kernel_table) {
        int has = ng_sqlite_has_column(rd, rd->kernel_table, "shortName", err);
        if (has < 0)
            return -1;
        if (has)
            rd->kernel_key = "shortName";
        else
            rd->derive_base = 1;
    }
    return 0;
}

void ng_sqlite_work_release(struct ng_sqlite *rd)
{
    ng_idmap_release(&rd->item_index);
    free(rd->items);
    release_dense(rd);
    free(rd->pairs);
    ng_idmap_release(&rd->pair_index);
    ng_acc_release(&rd->whole);
}
