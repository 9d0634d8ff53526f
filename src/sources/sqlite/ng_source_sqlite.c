/* The nsys SQLite export backend: the only file that talks to libsqlite3.
 *
 * GPU work comes from one table per kind (the work_tables table below:
 * kernels, whole-graph launches, memcpy, memset).  Each counted table is
 * read in one pass: an application-defined aggregate takes every row
 * inside the single SELECT, so no temporary b-tree is built and no row
 * crosses into C one step at a time; names are resolved afterwards, only
 * for the ids that occur.  gpu-busy needs the work in order of start, so
 * it reads the counted tables side by side in one merged scan instead,
 * and when a table turns out not to be in time order (nsys 2025.6+ does
 * not promise it), once more with each table sorted.
 *
 * NVTX mode reads the epoch ranges and the runtime/driver calls into the
 * projection (ng_nvtx.c, which holds every rule); this file only
 * streams rows into it.
 *
 * Nothing read can run away: every object read must be a real table (a
 * view could compute anything), every query runs under a budget of
 * SQLite VM steps that grows with the file's size, and temporary storage
 * is kept in memory under a heap limit, so no file can fill a disk. */
#include "sources/sqlite/ng_source_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/ng_comm.h"
#include "core/ng_nvtx.h"
#include "core/ng_work_pass.h"
#include "sources/ng_source_opts.h"
#include "sources/sqlite/ng_btree.h"
#include "util/ng_file.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

#define BUSY_TIMEOUT_MS 2000

/* The budget: SQLite's progress handler runs every PROGRESS_OPS VM
 * operations and stops the query past a number of operations, or of CPU
 * seconds (one operation can be a slow function), that grows with the
 * file's size.  A real export costs a few operations per byte for every
 * table the gate reads and well under a second per 100 MB. */
#define PROGRESS_OPS 10000
#define BUDGET_OPS_PER_BYTE 64
#define BUDGET_BASE_OPS 200000000LL
#define BUDGET_BASE_CPU_S 30.0
#define BUDGET_CPU_S_PER_MB 0.1
/* Temporary storage (the sorts of gpu-busy's ordered pass, or whatever a
 * crafted query builds) lives in memory under this limit. */
#define HEAP_LIMIT ((sqlite3_int64)1 << 30)

static const char *const sqlite_exts[] = { ".sqlite", ".sqlite3", ".db", NULL };

/* ---- the reader ---- */

struct reader;

/* One work kind: where its rows are and how its items are named. */
struct work_table {
    enum ng_work_kind kind;
    const char *table;
    const char *key_col;      /* the column that tells items apart; NULL: one item */
    int (*name)(struct reader *rd, int64_t key, struct ng_buf *out);
    const char *what;         /* for messages: "memory operations" */
};

/* One work item being summed: (kind, key) -> these. */
struct item {
    enum ng_work_kind kind;
    int64_t key;
    int64_t total_ns, count;
    int state;               /* the filter's choice: 0 not asked yet, 1 counted, -1 left out */
    enum ng_work_class cls;  /* for the breakdown, chosen with state */
};

/* Where work ran: one (process, device) pair, summed row by row; the
 * device and process lists are built from these at the end.  Rows come
 * in long runs of one pair, so the last one is checked first. */
struct pair {
    int64_t gpid, device;
    int64_t ns, launches;
};

/* Item indices by key, for keys in [0, DENSE_KEYS): name ids, copy kinds
 * and graph ids are small integers, so most rows find their item by two
 * array reads instead of a hash; pages are allocated as keys appear. */
#define DENSE_PAGE_BITS 12
#define DENSE_KEYS ((int64_t)1 << 24)

struct dense_index {
    uint32_t **pages;        /* item index + 1; 0: none yet */
    size_t n_pages;
};

/* A work row as both drivers hand it over. */
struct row {
    int64_t key, start, end, device, gpid, corr;
    int has_corr, in_graph;
};

struct schema_obj {
    char *name;              /* lower case: SQLite names are case-insensitive */
    char *shown;             /* as the schema spells it */
    char *type;
    int is_table;            /* a real table: not a view, not virtual */
    int checked;             /* its columns were checked */
    int computed;            /* it has generated columns */
    int tree_ok;             /* its b-trees passed sql_scan_ok() */
};

struct reader {
    sqlite3 *db;
    const char *shown;
    const struct ng_source_opts *opts;
    unsigned work;
    enum ng_metric metric;
    struct ng_nvtx *pj;              /* NVTX mode */
    struct ng_acc whole;                /* total mode: every metric and the breakdown */
    const struct work_table *cur;       /* the table being read */
    int cur_graph;                      /* it has a graphId column */
    struct ng_idmap item_index;         /* (kind, key) -> item, past the dense range */
    struct dense_index dense[NG_WORK_KINDS];
    struct item *items;
    size_t n_items;
    struct pair *pairs;
    size_t n_pairs, last_pair;
    struct ng_idmap pair_index;         /* (process, device) -> pairs[] */
    int64_t graph_node_kernels;
    int64_t rows;                       /* rows of the current table */
    int64_t rows_seen;                  /* rows of every table, this pass */
    int64_t rows_total;                 /* counted tables' rows */
    const char *problem;                /* first bad row, reported after the query */
    int64_t bad_row;
    struct schema_obj *schema;
    size_t n_schema;
    const char *kernel_table;           /* the one nsys's reports read */
    int64_t ticks, max_ticks;           /* the step budget */
    double cpu_start, max_cpu;          /* the time budget (thread CPU seconds) */
    int over_budget;
    sqlite3_stmt *string_st;            /* StringIds look-up, prepared once */
    const char *kernel_key;             /* demangledName, or shortName (--kernel-names base) */
    int derive_base;                    /* --kernel-names base without a shortName column */
    struct ng_filter_account account;   /* what the kernel filters matched */
    double comm_cpu;                    /* CPU seconds the communication patterns took */
    const char *path;                   /* the file SQLite opened: real */
    char *real;                         /* where the given name leads (owned) */
    const char *beside;                 /* how files beside it are named: shown or real */
    int fd;                             /* the file again, for ng_btree; -1: none */
    struct ng_file_id hold;             /* rd->fd's file, held while SQLite locks it */
    int direct;                         /* 1 fd is SQLite's file, 0 not checked, -1 not */
    int64_t left_rows, left_ns;         /* a left-out table's, from the page reader */
    int left_by_sql;                    /* a value only SQL's arithmetic reads */
    int left_over;                      /* their time overflows 64 bits */
};

static int string_name(struct reader *rd, int64_t key, struct ng_buf *out);
static int graph_name(struct reader *rd, int64_t key, struct ng_buf *out);
static int memcpy_name(struct reader *rd, int64_t key, struct ng_buf *out);
static int memset_name(struct reader *rd, int64_t key, struct ng_buf *out);

/* The work kinds.  A new kind is a row here plus its name rule.  The
 * kernel table's name may be a _Vn successor (see find_kernel_table). */
static const struct work_table work_tables[] = {
    { NG_WORK_KERNEL, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName", string_name, "kernels" },
    { NG_WORK_GRAPH, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "graphId", graph_name,
      "whole-graph launches" },
    { NG_WORK_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", memcpy_name, "memcpy operations" },
    { NG_WORK_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", NULL, memset_name, "memset operations" },
};
#define N_WORK_TABLES (sizeof work_tables / sizeof work_tables[0])

static const struct work_table *table_of_kind(enum ng_work_kind kind)
{
    for (size_t k = 0; k < N_WORK_TABLES; k++)
        if (work_tables[k].kind == kind)
            return &work_tables[k];
    return &work_tables[0];
}

/* ---- errors ---- */

static int hot_journal_error(struct ng_err *err, const char *shown, const char *beside)
{
    return ng_err_set(err, "'%s' has a hot journal ('%s-journal'): a writer stopped in the "
                      "middle of a transaction, and the gate opens profiles read-only; open "
                      "it once with sqlite3 to roll back, or read a finished copy", shown, beside);
}

static int db_error(struct ng_err *err, sqlite3 *db, const char *shown, const char *beside,
                    int rc)
{
    /* a writer died mid-transaction: rolling its journal back would write,
     * and the gate never writes to a profile */
    if (rc == SQLITE_READONLY_ROLLBACK)
        return hot_journal_error(err, shown, beside);
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
    case SQLITE_INTERRUPT:
        return ng_err_set(err, "reading '%s' took more than its budget of SQLite work (which "
                          "grows with the file's size): a crafted or damaged file", shown);
    case SQLITE_NOMEM:
        return ng_err_set(err, "reading '%s' needed more than %d MiB of SQLite memory "
                          "(temporary storage for a sort or a crafted query)", shown,
                          (int)(HEAP_LIMIT >> 20));
    default:
        return ng_err_set(err, "unable to read '%s': %s", shown,
                          db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    }
}

static int rd_error(struct reader *rd, struct ng_err *err, int rc)
{
    return db_error(err, rd->db, rd->shown, rd->beside ? rd->beside : rd->shown, rc);
}

/* ---- the schema: only real tables are read ---- */

/* "name" with every '"' doubled: a table name from sqlite_master can hold
 * anything. */
static void add_ident(struct ng_buf *b, const char *name)
{
    ng_buf_adds(b, "\"");
    for (const char *p = name; *p; p++)
        ng_buf_adds(b, *p == '"' ? "\"\"" : (char[]){ *p, 0 });
    ng_buf_adds(b, "\"");
}

static char *lower(const char *s)
{
    char *l = ng_xstrdup(s);
    for (char *p = l; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return l;
}

static int read_schema(struct reader *rd, struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(rd->db, "SELECT type, name, sql FROM sqlite_master", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *sql = (const char *)sqlite3_column_text(st, 2);
        if (!type || !name)
            continue;
        rd->schema = ng_xgrow(rd->schema, rd->n_schema, sizeof *rd->schema);
        rd->schema[rd->n_schema++] = (struct schema_obj){
            lower(name), ng_xstrdup(name), ng_xstrdup(type),
            strcmp(type, "table") == 0 && !(sql && strncasecmp(sql, "CREATE VIRTUAL", 14) == 0),
            0, 0, 0,
        };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rd_error(rd, err, rc);
}

static const struct schema_obj *schema_find(const struct reader *rd, const char *name)
{
    char *l = lower(name);
    const struct schema_obj *found = NULL;
    for (size_t i = 0; i < rd->n_schema && !found; i++)
        if (strcmp(rd->schema[i].name, l) == 0 && strcmp(rd->schema[i].type, "index") != 0 &&
            strcmp(rd->schema[i].type, "trigger") != 0)
            found = &rd->schema[i];
    free(l);
    return found;
}

/* 1 when the table has the column. */
static int has_column(struct reader *rd, const char *table, const char *col, struct ng_err *err)
{
    sqlite3_stmt *st;
    int found = 0;

    int rc = sqlite3_prepare_v2(rd->db, "SELECT name FROM pragma_table_info(?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (c && strcasecmp(c, col) == 0)
            found = 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? found : rd_error(rd, err, rc);
}

/* The name of a generated column of the table (computed on every read: it
 * could run any expression), or NULL; nsys writes none. */
static char *generated_column(struct reader *rd, const char *table)
{
    sqlite3_stmt *st;
    char *found = NULL;

    /* hidden 2 and 3: generated columns (virtual, stored) */
    if (sqlite3_prepare_v2(rd->db, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden >= 2",
                           -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        found = ng_xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return found;
}

/* 1 a real table, 0 absent, -1 something else by that name, or a table
 * with computed columns (refused). */
static int need_table(struct reader *rd, const char *name, struct ng_err *err)
{
    struct schema_obj *o = (struct schema_obj *)schema_find(rd, name);
    if (!o)
        return 0;
    if (o->computed)
        return ng_err_set(err, "'%s': %s has generated columns (computed on read), not data; "
                          "refusing to read it", rd->shown, o->shown);
    if (!o->is_table)
        return ng_err_set(err, "'%s': %s is a %s, not a table", rd->shown, name,
                          strcmp(o->type, "table") == 0 ? "virtual table" : o->type);
    if (!o->checked) {
        char *col = generated_column(rd, o->shown);
        o->checked = 1;
        if (col) {
            ng_err_set(err, "'%s': column '%s' of %s is a generated column (computed on "
                       "read), not data; refusing to read it", rd->shown, col, o->shown);
            free(col);
            o->computed = 1;
            return -1;
        }
    }
    return 1;
}

/* ---- the budget ---- */

/* Nonzero interrupts the query (SQLITE_INTERRUPT). */
static int on_progress(void *ctx)
{
    struct reader *rd = ctx;
    if (++rd->ticks > rd->max_ticks || ng_thread_cpu() - rd->cpu_start > rd->max_cpu)
        rd->over_budget = 1;
    return rd->over_budget;
}

static void set_budget(struct reader *rd, const char *path)
{
    struct stat st;
    int64_t bytes = stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
    int64_t ops = BUDGET_BASE_OPS;
    if (bytes > 0 && bytes < INT64_MAX / BUDGET_OPS_PER_BYTE / 2)
        ops += bytes * BUDGET_OPS_PER_BYTE;
    if (rd->opts->sql_budget_ops > 0)
        ops = rd->opts->sql_budget_ops;
    rd->max_ticks = ops / PROGRESS_OPS;
    rd->max_cpu = BUDGET_BASE_CPU_S + BUDGET_CPU_S_PER_MB * (double)bytes / 1e6;
    rd->cpu_start = ng_thread_cpu();
    sqlite3_progress_handler(rd->db, PROGRESS_OPS, on_progress, rd);
}

/* ---- counting one work row ---- */

static void fail_row(struct reader *rd, const char *problem)
{
    if (!rd->problem) {
        rd->problem = problem;
        rd->bad_row = rd->rows;
    }
}

static const struct work_table *table_of_kind(enum ng_work_kind kind);

/* An item's name as the verdict shows it: by its kind's rule, and with
 * --kernel-names base on an export without shortName, derived from the
 * demangled name by the rule saved text also uses. */
static void item_name(struct reader *rd, const struct item *it, struct ng_buf *out)
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
static int choose(struct reader *rd, struct item *it)
{
    int memory = it->kind == NG_WORK_MEMCPY || it->kind == NG_WORK_MEMSET;
    int classify = it->kind == NG_WORK_KERNEL && rd->opts->comm;

    it->cls = memory ? NG_CLASS_MEMORY : NG_CLASS_COMPUTE;
    if (ng_filter_empty(rd->opts->filter) && !classify) {
        it->state = 1;
        return 0;
    }
    struct ng_buf name = NG_BUF_INIT;
    item_name(rd, it, &name);
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

static size_t new_item(struct reader *rd, int64_t key)
{
    rd->items = ng_xgrow(rd->items, rd->n_items, sizeof *rd->items);
    rd->items[rd->n_items] = (struct item){ rd->cur->kind, key, 0, 0, 0, NG_CLASS_COMPUTE };
    return rd->n_items++;
}

/* The item of a key seen before or not: a slot in the dense pages (made
 * on the key's first row), or the index for keys outside them. */
static struct item *item_found(struct reader *rd, int64_t key)
{
    if (key >= 0 && key < DENSE_KEYS) {
        struct dense_index *d = &rd->dense[rd->cur->kind];
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
static inline struct item *item_for(struct reader *rd, int64_t key)
{
    const struct dense_index *d = &rd->dense[rd->cur->kind];
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
static int add_pair(struct reader *rd, int64_t gpid, int64_t device, int64_t dur)
{
    struct pair *p = rd->n_pairs ? &rd->pairs[rd->last_pair] : NULL;
    if (!p || p->gpid != gpid || p->device != device) {
        int added;
        size_t i = ng_idmap_get(&rd->pair_index, gpid, device, rd->n_pairs, &added);
        if (added) {
            rd->pairs = ng_xgrow(rd->pairs, rd->n_pairs, sizeof *rd->pairs);
            rd->pairs[rd->n_pairs++] = (struct pair){ gpid, device, 0, 0 };
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
static inline int take_row(struct reader *rd, const struct row *r)
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
    struct item *it = item_for(rd, r->key);
    size_t item = (size_t)(it - rd->items);
    if (it->state == 0 && choose(rd, it) < 0)
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

/* What a driver selects, in order: a column of the table, or a constant
 * (a column an older export lacks). */
struct col {
    const char *name;              /* NULL: konst */
    struct ng_btree_cell konst;
    int unused;                    /* a constant this pass never reads (the page reader
                                      then writes it on no row) */
};

static const struct ng_btree_cell NULL_CELL = { NG_BTREE_NULL, 0 };
static const struct ng_btree_cell ZERO_CELL = { NG_BTREE_INT, 0 };

static struct col col_or(int have, const char *name, struct ng_btree_cell otherwise)
{
    return have ? (struct col){ name, NULL_CELL, 0 } : (struct col){ NULL, otherwise, 0 };
}

/* The columns as a SELECT list. */
static void sql_list(struct ng_buf *sql, const struct col *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            ng_buf_adds(sql, ", ");
        if (c[i].name)
            add_ident(sql, c[i].name);
        else if (c[i].konst.type == NG_BTREE_INT)
            ng_buf_addf(sql, "%" PRId64, c[i].konst.i);
        else
            ng_buf_adds(sql, "NULL");
    }
}

/* The columns a work driver reads of table t: all N_COLS. */
static int select_cols(struct reader *rd, const struct work_table *t, const char *table,
                       struct col *c, size_t *n, struct ng_err *err)
{
    static const char *const needed[] = { "start", "end" };
    for (size_t i = 0; i < 2; i++) {
        int h = has_column(rd, table, needed[i], err);
        if (h < 0)
            return -1;
        if (!h)
            return ng_err_set(err, "'%s': table %s has no column '%s'", rd->shown, table,
                              needed[i]);
    }
    const char *key_col = t->kind == NG_WORK_KERNEL ? rd->kernel_key : t->key_col;
    int key = key_col ? has_column(rd, table, key_col, err) : 0;
    if (key < 0)
        return -1;
    if (key_col && !key)
        return ng_err_set(err, "'%s': table %s has no column '%s'", rd->shown, table, key_col);
    int dev = has_column(rd, table, "deviceId", err);
    int gpid = has_column(rd, table, "globalPid", err);
    int corr = has_column(rd, table, "correlationId", err);
    int graph = t->kind == NG_WORK_KERNEL ? has_column(rd, table, "graphId", err) : 0;
    if (dev < 0 || gpid < 0 || corr < 0 || graph < 0)
        return -1;
    rd->cur_graph = graph;
    c[COL_KEY] = col_or(key_col != NULL, key_col, ZERO_CELL);
    c[COL_START] = (struct col){ "start", NULL_CELL, 0 };
    c[COL_END] = (struct col){ "end", NULL_CELL, 0 };
    if (rd->pj && !corr)
        return ng_err_set(err, "'%s': table %s has no column 'correlationId' to tie its work "
                          "to epoch ranges", rd->shown, table);
    c[COL_DEVICE] = col_or(dev, "deviceId", ZERO_CELL);
    c[COL_GPID] = col_or(gpid, "globalPid", ZERO_CELL);
    /* total mode never reads the correlation id */
    c[COL_CORR] = rd->pj ? col_or(corr, "correlationId", NULL_CELL)
                         : (struct col){ NULL, NULL_CELL, 1 };
    c[COL_GRAPH] = col_or(graph, "graphId", NULL_CELL);
    *n = N_COLS;
    return 0;
}

static int select_list(struct reader *rd, const struct work_table *t, const char *table,
                       struct ng_buf *sql, struct ng_err *err)
{
    struct col c[N_COLS];
    size_t n;
    if (select_cols(rd, t, table, c, &n, err) < 0)
        return -1;
    sql_list(sql, c, n);
    return 0;
}

/* A value as the b-tree reader hands it over. */
static struct ng_btree_cell value_cell(sqlite3_value *v)
{
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        return (struct ng_btree_cell){ NG_BTREE_INT, sqlite3_value_int64(v) };
    case SQLITE_NULL:
        return NULL_CELL;
    case SQLITE_FLOAT: {
        int64_t i;
        if (ng_btree_real_int(sqlite3_value_double(v), &i))
            return (struct ng_btree_cell){ NG_BTREE_INT, i };
        return (struct ng_btree_cell){ NG_BTREE_OTHER, 0 };
    }
    default:
        return (struct ng_btree_cell){ NG_BTREE_OTHER, 0 };
    }
}

static void value_cells(sqlite3_value **v, int n, struct ng_btree_cell *c)
{
    for (int i = 0; i < n; i++)
        c[i] = value_cell(v[i]);
}

/* A work row's cells as a row; NULL when a type is wrong.  Only what a
 * figure depends on is type-checked (a device or process id that is not
 * an integer reads as 0), and the correlation and graph ids only when the
 * driver selects them: this runs once per row. */
static inline const char *cells_to_row(const struct reader *rd, const struct ng_btree_cell *c,
                                struct row *r)
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

static void work_final(sqlite3_context *ctx)
{
    sqlite3_result_null(ctx);
}

static int table_problem(struct reader *rd, const char *table, struct ng_err *err)
{
    return ng_err_set(err, "'%s': %s has %s (row %" PRId64 ")", rd->shown, table, rd->problem,
                      rd->bad_row);
}

/* ---- the direct path: ng_btree under SQLite's read lock ---- */

static int call_cells(struct reader *rd, const struct ng_btree_cell *c);

static int64_t pragma_int(struct reader *rd, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* Whether the descriptor is the file SQLite reads, as SQLite sees it: the
 * same inode as the path now, the same page size and schema cookie.  (A
 * database with a -wal file is refused before this; without one, every
 * committed page is in the file.) */
static int same_file(struct reader *rd, const char *path)
{
    struct stat a, b;
    uint32_t page_size, cookie;
    struct ng_err e;

    if (rd->direct == 0) {
        rd->direct = -1;
        if (rd->fd >= 0 && fstat(rd->fd, &a) == 0 && stat(path, &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
            ng_btree_header(rd->fd, &page_size, &cookie, &e) == 0 &&
            pragma_int(rd, "PRAGMA page_size") == page_size &&
            pragma_int(rd, "PRAGMA schema_version") == cookie)
            rd->direct = 1;
    }
    return rd->direct > 0;
}

/* Whether the page reader reads the tables: not under --sqlite-sql-only. */
static int direct_ok(struct reader *rd, const char *path)
{
    return !rd->opts->sql_only && same_file(rd, path);
}

/* An integer literal default ("0", "-1"): its value. */
static int int_default(const char *d, int64_t *v)
{
    char *end;
    if (!d || !*d)
        return 0;
    errno = 0;
    long long x = strtoll(d, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

/* Whether a declared type gives TEXT affinity (SQLite's rules, in their
 * order: INT first, then CHAR, CLOB or TEXT).  A record without the
 * field reads as the default with that affinity applied: DEFAULT 3 of a
 * TEXT column is the text '3', which only SQL reads as SQL does. */
static int text_affinity(const char *type)
{
    char *t = lower(type ? type : "");
    int text = !strstr(t, "int") && (strstr(t, "char") || strstr(t, "clob") || strstr(t, "text"));
    free(t);
    return text;
}

/* The b-tree query for these columns of a rowid table: 1, or 0 when the
 * direct path cannot read the table as SQLite would (WITHOUT ROWID, a
 * default that is not a plain integer or whose column's affinity is TEXT,
 * a column past the reader's reach),
 * or -1 on an SQLite error. */
static int direct_query(struct reader *rd, const char *table, const struct col *c, size_t n,
                        struct ng_btree_query *q, struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc, ok = 1;

    memset(q, 0, sizeof *q);
    q->n = n;
    rc = sqlite3_prepare_v2(rd->db, "SELECT rootpage, (SELECT wr FROM pragma_table_list "
                            "WHERE schema = 'main' AND name = ?1 COLLATE NOCASE) FROM "
                            "sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return 0;   /* an SQLite without pragma_table_list: the SQL path */
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t root = sqlite3_column_int64(st, 0);
        ok = root > 0 && root <= UINT32_MAX && sqlite3_column_int64(st, 1) == 0;
        q->root = (uint32_t)root;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 0 : rd_error(rd, err, rc);
    for (size_t k = 0; k < n; k++) {
        q->col[k] = c[k].unused ? NG_BTREE_UNUSED : NG_BTREE_CONST;
        q->konst[k] = c[k].konst;
    }
    rc = sqlite3_prepare_v2(rd->db, "SELECT cid, name, type, dflt_value, pk, "
                            "(SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0), "
                            "(SELECT count(*) FROM pragma_index_list(?1) WHERE origin = 'pk') "
                            "FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *type = (const char *)sqlite3_column_text(st, 2);
        const char *dflt = (const char *)sqlite3_column_text(st, 3);
        int64_t cid = sqlite3_column_int64(st, 0), v = 0;
        /* the one INTEGER PRIMARY KEY column is the rowid itself, unless the
         * key has an index of its own (INTEGER PRIMARY KEY DESC, SQLite's
         * exception: then the value is a field of the record) */
        int rowid = sqlite3_column_int64(st, 4) == 1 && sqlite3_column_int64(st, 5) == 1 &&
                    sqlite3_column_int64(st, 6) == 0 && type && strcasecmp(type, "INTEGER") == 0;
        for (size_t k = 0; k < n && name; k++) {
            if (!c[k].name || strcasecmp(c[k].name, name) != 0)
                continue;
            if (cid > 250 || (dflt && (!int_default(dflt, &v) || text_affinity(type))))
                ok = 0;
            q->col[k] = rowid ? NG_BTREE_ROWID : (int)cid;
            q->konst[k] = dflt ? (struct ng_btree_cell){ NG_BTREE_INT, v } : NULL_CELL;
        }
    }
    sqlite3_finalize(st);
    if (ok && rc != SQLITE_DONE)
        return rd_error(rd, err, rc);
    for (size_t k = 0; k < n; k++)
        ok &= !c[k].name || q->col[k] != NG_BTREE_CONST;
    return ok;
}

/* Holds SQLite's read lock while ng_btree reads the file: an active
 * statement keeps the read transaction (and a writer's commit out). */
static sqlite3_stmt *hold_read(struct reader *rd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(rd->db, "SELECT 1 FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static int corrupt(struct reader *rd, const char *table, const struct ng_err *why,
                   struct ng_err *err)
{
    return ng_err_set(err, "'%s' is a corrupt SQLite database: %s, in %s", rd->shown, why->msg,
                      table);
}

/* A page-reader cursor over the table's columns: 0 with *cur open, 1 the
 * page reader does not apply (the caller runs SQL), -1 with err. */
static int direct_open(struct reader *rd, const char *table, const struct col *c, size_t n,
                       struct ng_btree_cursor **cur, struct ng_err *err)
{
    struct ng_btree_query q;
    struct ng_err why;

    int ok = direct_query(rd, table, c, n, &q, err);
    if (ok <= 0)
        return ok < 0 ? -1 : 1;
    *cur = ng_btree_open(rd->fd, &q, &why);
    return *cur ? 0 : corrupt(rd, table, &why, err);
}

/* Every row of the table's columns into row(): 0 done, 1 the direct path
 * does not apply (the caller runs SQL), -1 with err (a bad row: the
 * caller's rd->problem; a malformed file). */
static int direct_scan(struct reader *rd, const char *table, const struct col *c, size_t n,
                       int (*row)(struct reader *rd, const struct ng_btree_cell *c, size_t n),
                       struct ng_err *err)
{
    struct ng_btree_cell cells[NG_BTREE_COLS] = { { 0, 0 } };   /* unused ones stay so */
    struct ng_btree_cursor *cur;
    struct ng_err why;

    if (!direct_ok(rd, rd->path))
        return 1;
    sqlite3_stmt *lock = hold_read(rd);
    if (!lock)
        return 1;
    int r = direct_open(rd, table, c, n, &cur, err);
    if (r == 0) {
        while ((r = ng_btree_next(cur, cells, &why)) == 1)
            if (row(rd, cells, n) < 0) {
                r = -2;   /* a bad row: rd->problem says why */
                break;
            }
        ng_btree_close(cur);
        r = r == -1 ? corrupt(rd, table, &why, err) : r == -2 ? -1 : 0;
    }
    sqlite3_finalize(lock);
    return r;
}

/* Before SQL scans a table: the page reader's walk of its b-tree and of
 * its indexes' (SQLite may scan one instead), every page once.  SQLite's
 * cursor reads a leaf that an interior page lists twice and counts its
 * rows twice, where the page reader refuses the file: both paths must
 * give the same answer.  Once a table; 0 also when the descriptor is not
 * SQLite's file (a replaced file is refused by the caller as changed). */
static int sql_scan_ok(struct reader *rd, const char *table, struct ng_err *err)
{
    struct schema_obj *o = (struct schema_obj *)schema_find(rd, table);
    sqlite3_stmt *st, *lock;
    struct ng_err why;
    int rc, ret = 0;

    if ((o && o->tree_ok) || !same_file(rd, rd->path) || !(lock = hold_read(rd)))
        return 0;
    rc = sqlite3_prepare_v2(rd->db, "SELECT rootpage FROM sqlite_master WHERE tbl_name = ?1 "
                            "COLLATE NOCASE AND type IN ('table', 'index') AND rootpage > 0",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(lock);
        return rd_error(rd, err, rc);
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t root = sqlite3_column_int64(st, 0);
        if (root <= UINT32_MAX && ng_btree_check(rd->fd, (uint32_t)root, &why) < 0)
            ret = ng_err_set(err, "'%s' is a corrupt SQLite database: %s, in %s (its b-tree, "
                             "checked before SQL reads it)", rd->shown, why.msg, table);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(lock);
    if (ret == 0 && rc != SQLITE_DONE)
        return rd_error(rd, err, rc);
    if (ret == 0 && o)
        o->tree_ok = 1;
    return ret;
}

static int call_row(struct reader *rd, const struct ng_btree_cell *c, size_t n)
{
    (void)n;
    return call_cells(rd, c);
}

/* ---- gpu-busy: every counted table in one scan, in order of start ---- */

struct stream {
    const struct work_table *t;
    const char *table;
    sqlite3_stmt *st;              /* SQL, or */
    struct ng_btree_cursor *cur;   /* the page reader (the unsorted pass) */
    struct row head;
    struct ng_btree_cell cells[NG_BTREE_COLS];   /* the page reader's (its unused ones stay 0) */
    int live;
    int64_t last_start;
};

static const char *column_row(const struct reader *rd, sqlite3_stmt *st, struct row *r)
{
    struct ng_btree_cell c[N_COLS];
    for (int i = 0; i < N_COLS; i++)
        c[i] = value_cell(sqlite3_column_value(st, i));
    return cells_to_row(rd, c, r);
}

/* Steps one stream: 1 a row, 0 the end, -1 an error (err set), 2 the
 * table is not in order of start.  Once a row, so inline in the merge
 * (gcc leaves a function called from two places out of line). */
static inline __attribute__((always_inline)) int stream_next(struct reader *rd,
                                                             struct stream *s,
                                                             struct ng_err *err)
{
    const char *bad;
    if (s->cur) {
        struct ng_btree_cell *c = s->cells;
        struct ng_err why;
        int r = ng_btree_next(s->cur, c, &why);
        if (r < 0)
            return corrupt(rd, s->table, &why, err);
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
            return rd_error(rd, err, rc);
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
static int stream_cursor(struct reader *rd, struct stream *s, struct ng_err *err)
{
    struct col c[N_COLS];
    size_t n;

    if (select_cols(rd, s->t, s->table, c, &n, err) < 0)
        return -1;
    return direct_open(rd, s->table, c, n, &s->cur, err);
}

/* Returns 0, -1 (err set) or 2 (a table was out of order: nothing of this
 * pass may be kept). */
static int merged_scan(struct reader *rd, struct stream *s, size_t n, int sorted,
                       struct ng_err *err)
{
    int ret = 0;
    /* the unsorted pass reads rows in storage order, which is what the page
     * reader gives; SQLite's read lock is held across every cursor */
    sqlite3_stmt *lock = !sorted && direct_ok(rd, rd->path) ? hold_read(rd) : NULL;

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
        add_ident(&sql, s[i].table);
        if (sql_scan_ok(rd, s[i].table, err) < 0) {
            ng_buf_release(&sql);
            ret = -1;
            break;
        }
        if (sorted)
            ng_buf_adds(&sql, " ORDER BY start");
        int rc = sqlite3_prepare_v2(rd->db, sql.data, -1, &s[i].st, NULL);
        ng_buf_release(&sql);
        if (rc != SQLITE_OK)
            ret = rd_error(rd, err, rc);
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

static void release_dense(struct reader *rd)
{
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        for (size_t i = 0; i < rd->dense[k].n_pages; i++)
            free(rd->dense[k].pages[i]);
        free(rd->dense[k].pages);
        rd->dense[k] = (struct dense_index){ NULL, 0 };
    }
}

static void forget_work(struct reader *rd)
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

static int busy_scan(struct reader *rd, struct stream *s, size_t n, struct ng_err *err)
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
static int find_kernel_table(struct reader *rd, struct ng_profile *p, struct ng_err *err)
{
    int plain = need_table(rd, work_tables[0].table, err);
    const struct schema_obj *best = NULL;

    if (plain < 0)
        return -1;
    for (size_t i = 0; i < rd->n_schema; i++) {
        const struct schema_obj *o = &rd->schema[i];
        if (kernel_version(o->name) < 0)
            continue;
        if (!o->is_table)
            return ng_err_set(err, "'%s': %s is a %s, not a table", rd->shown, o->shown, o->type);
        if (!best || kernel_version(o->name) > kernel_version(best->name))
            best = o;
    }
    rd->kernel_table = plain ? work_tables[0].table : best ? best->shown : NULL;
    for (size_t i = 0; i < rd->n_schema; i++) {
        const struct schema_obj *o = &rd->schema[i];
        if (kernel_version(o->name) >= 0 && strcmp(o->shown, rd->kernel_table) != 0)
            ng_profile_warn(p, "'%s' also has a table %s, which nsys's own reports do not "
                            "read; its kernels were left out (%s was read)", rd->shown, o->shown,
                            rd->kernel_table);
    }
    return rd->kernel_table ? 1 : 0;
}

static const char *table_of(const struct reader *rd, const struct work_table *t)
{
    return t->kind == NG_WORK_KERNEL ? rd->kernel_table : t->table;
}

/* One row of a table --work leaves out, from the page reader: counted,
 * and its duration summed exactly, as count(*) and sum("end" - start)
 * would (a NULL start or end is counted, not summed).  -1 on a real or a
 * text (rd->left_by_sql: SQL's arithmetic sums the table), or a sum past
 * 64 bits (rd->left_over). */
static int left_out_row(struct reader *rd, const struct ng_btree_cell *c, size_t n)
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
static int left_out_sql(struct reader *rd, const char *table, struct ng_err *err)
{
    struct ng_buf sql = NG_BUF_INIT;
    sqlite3_stmt *st;

    if (sql_scan_ok(rd, table, err) < 0)
        return -1;
    ng_buf_adds(&sql, "SELECT count(*), sum(\"end\" - start) FROM ");
    add_ident(&sql, table);
    int rc = sqlite3_prepare_v2(rd->db, sql.data, -1, &st, NULL);
    ng_buf_release(&sql);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
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
    return rc == SQLITE_ROW ? 0 : rd_error(rd, err, rc);
}

/* How much work a table holds that --work does not count: by the page
 * reader (a default run on a trace full of memcpy rows must not cost more
 * than counting them), else by SQL; the same figure either way. */
static int count_left_out(struct reader *rd, const char *table, enum ng_work_kind kind,
                          struct ng_profile *p, struct ng_err *err)
{
    static const struct col span[] = { { "start", { NG_BTREE_NULL, 0 }, 0 },
                                       { "end", { NG_BTREE_NULL, 0 }, 0 } };

    rd->left_rows = rd->left_ns = 0;
    rd->left_by_sql = rd->left_over = 0;
    int direct = direct_scan(rd, table, span, 2, left_out_row, err);
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
static int survey_work(struct reader *rd, struct ng_profile *p, unsigned *present,
                       struct ng_err *err)
{
    *present = 0;
    for (size_t i = 0; i < N_WORK_TABLES; i++) {
        const struct work_table *t = &work_tables[i];
        const char *table = table_of(rd, t);
        int have = table ? need_table(rd, table, err) : 0;
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
static int read_work(struct reader *rd, unsigned present, struct ng_err *err)
{
    struct stream s[N_WORK_TABLES];
    size_t n = 0;

    memset(s, 0, sizeof s);
    for (size_t i = 0; i < N_WORK_TABLES; i++) {
        const struct work_table *t = &work_tables[i];
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

/* ---- names ---- */

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
static int lookup_text(struct reader *rd, sqlite3_stmt *st, int64_t key, struct ng_buf *out,
                       struct ng_err *err)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, key);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        add_text(out, sqlite3_column_text(st, 0), sqlite3_column_bytes(st, 0));
        return 1;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rd_error(rd, err, rc);
    return 0;
}

static int string_name(struct reader *rd, int64_t key, struct ng_buf *out)
{
    struct ng_err ignored;
    if (rd->string_st && lookup_text(rd, rd->string_st, key, out, &ignored) == 1)
        return 0;
    /* an export without StringIds (or without this id) still has kernels */
    ng_buf_addf(out, "<unnamed kernel, string id %" PRId64 ">", key);
    return 0;
}

static int graph_name(struct reader *rd, int64_t key, struct ng_buf *out)
{
    (void)rd;
    ng_buf_addf(out, "CUDA graph %" PRId64, key);
    return 0;
}

/* As nsys's cuda_gpu_mem_time_sum names them: "[CUDA memcpy <label>]"
 * from ENUM_CUDA_MEMCPY_OPER; exports from 2020 have the whole name in
 * MemcpyOperationStrings instead.  A copy kind in neither is still
 * counted (nsys's report would drop it). */
static int memcpy_name(struct reader *rd, int64_t key, struct ng_buf *out)
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
        if (need_table(rd, sources[i].table, &ignored) != 1 ||
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

static int memset_name(struct reader *rd, int64_t key, struct ng_buf *out)
{
    (void)rd;
    (void)key;
    ng_buf_adds(out, "[CUDA memset]");
    return 0;
}

/* The StringIds look-up (names are looked up while rows are read, when a
 * kernel filter decides on an item's first row), and which column names a
 * kernel: shortName with --kernel-names base where the table has one. */
static int prepare_names(struct reader *rd, struct ng_err *err)
{
    int strings = need_table(rd, "StringIds", err);
    if (strings < 0)
        return -1;
    if (strings && sqlite3_prepare_v2(rd->db, "SELECT value FROM StringIds WHERE id = ?", -1,
                                      &rd->string_st, NULL) != SQLITE_OK)
        rd->string_st = NULL;
    rd->kernel_key = work_tables[0].key_col;
    if (rd->opts->base_names && rd->kernel_table) {
        int has = has_column(rd, rd->kernel_table, "shortName", err);
        if (has < 0)
            return -1;
        if (has)
            rd->kernel_key = "shortName";
        else
            rd->derive_base = 1;
    }
    return 0;
}

static int name_items(struct reader *rd, struct ng_profile *p, struct ng_err *err)
{
    for (size_t i = 0; i < rd->n_items; i++) {
        struct item *it = &rd->items[i];
        if (it->count == 0)
            continue;   /* seen only outside the counted epochs */
        if (it->state == 0 && choose(rd, it) < 0)
            return ng_err_set(err, "the --kernels / --exclude-kernels patterns took more than "
                              "%.0f s of CPU time on the names of '%s'; use simpler patterns",
                              NG_REGEX_CPU_BUDGET, rd->shown);
        struct ng_buf name = NG_BUF_INIT;
        item_name(rd, it, &name);
        if (it->state > 0)
            ng_profile_add_row(p, it->kind, name.data ? name.data : "", name.len, it->total_ns,
                               it->count);
        else
            ng_profile_add_excluded(p, it->kind, name.data ? name.data : "", it->total_ns,
                                    it->count);
        ng_buf_release(&name);
    }
    ng_profile_set_hits(p, &rd->account);
    return 0;
}

/* Each counted item's time per epoch, for per-kernel gates: the cells of
 * the projection, grouped by item, onto the item's row. */
struct cells_ctx {
    struct reader *rd;
    struct ng_profile *p;
    size_t *item, *position;
    int64_t *ns;
    size_t n;
};

static void collect_cell(void *ctx, size_t item, size_t position, int64_t ns)
{
    struct cells_ctx *c = ctx;
    c->item = ng_xgrow(c->item, c->n, sizeof *c->item);
    c->position = ng_xgrow(c->position, c->n, sizeof *c->position);
    c->ns = ng_xgrow(c->ns, c->n, sizeof *c->ns);
    c->item[c->n] = item;
    c->position[c->n] = position;
    c->ns[c->n++] = ns;
}

static void attach_cells(struct reader *rd, struct ng_profile *p)
{
    struct cells_ctx c = { rd, p, NULL, NULL, NULL, 0 };
    ng_nvtx_item_cells(rd->pj, collect_cell, &c);
    /* one call per item: the cells of an item are gathered first */
    size_t *first = ng_xcalloc(rd->n_items + 1, sizeof *first);
    for (size_t i = 0; i < c.n; i++)
        first[c.item[i] + 1]++;
    for (size_t i = 0; i < rd->n_items; i++)
        first[i + 1] += first[i];
    uint32_t *epochs = ng_xcalloc(c.n ? c.n : 1, sizeof *epochs);
    int64_t *ns = ng_xcalloc(c.n ? c.n : 1, sizeof *ns);
    size_t *fill = ng_xcalloc(rd->n_items + 1, sizeof *fill);
    for (size_t i = 0; i < c.n; i++) {
        size_t at = first[c.item[i]] + fill[c.item[i]]++;
        epochs[at] = (uint32_t)c.position[i];
        ns[at] = c.ns[i];
    }
    for (size_t i = 0; i < rd->n_items; i++) {
        if (first[i + 1] == first[i] || rd->items[i].state <= 0)
            continue;
        struct ng_buf name = NG_BUF_INIT;
        item_name(rd, &rd->items[i], &name);
        ng_profile_add_cells(p, rd->items[i].kind, name.data ? name.data : "", epochs + first[i],
                             ns + first[i], first[i + 1] - first[i]);
        ng_buf_release(&name);
    }
    free(first);
    free(fill);
    free(epochs);
    free(ns);
    free(c.item);
    free(c.position);
    free(c.ns);
}

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

static int read_ranges(struct reader *rd, struct ng_err *err)
{
    int nvtx = need_table(rd, "NVTX_EVENTS", err);
    int strings = nvtx > 0 ? need_table(rd, "StringIds", err) : 0;
    if (nvtx < 0 || strings < 0)
        return -1;
    if (!nvtx)
        return ng_err_set(err, "'%s' has no NVTX ranges (no NVTX_EVENTS table); epoch ranges "
                          "need a capture with NVTX tracing (nsys profile -t cuda,nvtx)",
                          rd->shown);
    const char *sql = nvtx_range_sql(strings);
    sqlite3_stmt *st;
    if (sql_scan_ok(rd, "NVTX_EVENTS", err) < 0)
        return -1;
    int rc = sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 3);
        if (!text || sqlite3_column_type(st, 2) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 0) != SQLITE_INTEGER)
            continue;   /* unnamed ranges cannot be epochs */
        int64_t end = sqlite3_column_type(st, 1) == SQLITE_INTEGER ? sqlite3_column_int64(st, 1)
                                                                    : NG_NVTX_NO_END;
        ng_nvtx_range(rd->pj, sqlite3_column_int64(st, 0), end, sqlite3_column_int64(st, 2),
                         text);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rd_error(rd, err, rc);
}

/* ---- every NVTX range, for `nsys-gate ranges` ---- */

/* The launch calls with the kernel time each launched (kernels joined to
 * their runtime call in the same process), for ng_range_attribute. */
static int range_calls(struct reader *rd, struct ng_range_call **out, size_t *n,
                       struct ng_err *err)
{
    int runtime = need_table(rd, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
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
        return rd_error(rd, err, rc);
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
    return rc == SQLITE_DONE ? 0 : rd_error(rd, err, rc);
}

/* p->ranges: every named range that ended on its own thread, with its
 * depth and the kernel time launched inside it. */
static int list_ranges(struct reader *rd, struct ng_profile *p, struct ng_err *err)
{
    struct ng_range_list *l = ng_xcalloc(1, sizeof *l);
    int64_t *start = NULL, *end = NULL;
    struct ng_range_call *calls = NULL;
    size_t n_calls = 0;
    int ret = -1;

    p->ranges = l;
    int nvtx = need_table(rd, "NVTX_EVENTS", err);
    int strings = nvtx > 0 ? need_table(rd, "StringIds", err) : 0;
    if (nvtx < 0 || strings < 0)
        return -1;
    if (!nvtx)
        return 0;   /* no ranges to list: the command says so */
    const char *sql = nvtx_range_sql(strings);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 3);
        if (!text || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER)
            continue;   /* unnamed, or never ended: no epoch either way */
        l->r = ng_xgrow(l->r, l->n, sizeof *l->r);
        start = ng_xgrow(start, l->n, sizeof *start);
        end = ng_xgrow(end, l->n, sizeof *end);
        start[l->n] = sqlite3_column_int64(st, 0);
        end[l->n] = sqlite3_column_int64(st, 1);
        l->r[l->n++] = (struct ng_range_in){ ng_arena_strdup(&l->texts, text),
                                             (uint64_t)sqlite3_column_int64(st, 2), 0, 0 };
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        rd_error(rd, err, rc);
        goto out;
    }
    if (range_calls(rd, &calls, &n_calls, err) < 0)
        goto out;
    ng_range_attribute(l->r, start, end, l->n, calls, n_calls);
    ret = 0;
out:
    free(start);
    free(end);
    free(calls);
    return ret;
}

/* One runtime/driver call (thread, correlation id, start, end) into the
 * projection, from either reader: -1 when it is bad (rd->problem). */
static int call_cells(struct reader *rd, const struct ng_btree_cell *c)
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

/* The same as an aggregate, like the work pass, so the runtime table is
 * read in one SELECT. */
static void call_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct reader *rd = sqlite3_user_data(ctx);
    struct ng_btree_cell c[4];
    (void)argc;

    if (rd->problem)
        return;
    value_cells(argv, 4, c);
    if (call_cells(rd, c) < 0)
        sqlite3_result_error(ctx, rd->problem, -1);
}

static int map_calls(struct reader *rd, struct ng_err *err)
{
    static const struct col calls[] = { { "globalTid", { NG_BTREE_NULL, 0 }, 0 },
                                        { "correlationId", { NG_BTREE_NULL, 0 }, 0 },
                                        { "start", { NG_BTREE_NULL, 0 }, 0 },
                                        { "end", { NG_BTREE_NULL, 0 }, 0 } };
    const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    sqlite3_stmt *st;
    int have = need_table(rd, table, err), rc = SQLITE_ROW;

    if (have < 0)
        return -1;
    if (!have)
        return ng_err_set(err, "'%s' has no CUDA API calls (no CUPTI_ACTIVITY_KIND_RUNTIME "
                          "table) to tie GPU work to epoch ranges", rd->shown);
    int direct = direct_scan(rd, table, calls, 4, call_row, err);
    if (direct < 0 && !rd->problem)
        return -1;
    if (direct == 1 && sql_scan_ok(rd, table, err) < 0)
        return -1;
    if (direct == 1) {
        rc = sqlite3_create_function(rd->db, "ng_call", 4, SQLITE_UTF8 | SQLITE_DIRECTONLY, rd,
                                     NULL, call_step, work_final);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v2(rd->db, "SELECT ng_call(globalTid, correlationId, start, "
                                    "\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME", -1, &st, NULL);
        if (rc != SQLITE_OK)
            return rd_error(rd, err, rc);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rd->problem) {
        ng_err_set(err, "'%s': CUPTI_ACTIVITY_KIND_RUNTIME has %s", rd->shown, rd->problem);
        rd->problem = NULL;
        return -1;
    }
    return rc == SQLITE_ROW ? 0 : rd_error(rd, err, rc);
}

/* Ranges and launch calls, before the work is read. */
static int nvtx_prepare(struct reader *rd, struct ng_nvtx *pj, struct ng_profile *p,
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

/* ---- the machine and the capture ---- */

/* Distinct values of a one-column query, sorted and ", "-joined into
 * *out (NULL when there are none).  Only a table that is not a table is
 * an error: what the capture says of its machine is optional. */
static int joined(struct reader *rd, const char *table, const char *sql, char **out,
                  struct ng_err *err)
{
    sqlite3_stmt *st;
    struct ng_buf b = NG_BUF_INIT;

    *out = NULL;
    int have = need_table(rd, table, err);
    if (have <= 0)
        return have;
    if (sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        if (!v || !*v)
            continue;
        if (b.len)
            ng_buf_adds(&b, ", ");
        ng_buf_adds(&b, v);
    }
    sqlite3_finalize(st);
    *out = b.len ? ng_buf_detach(&b) : NULL;
    return 0;
}

static int read_machine(struct reader *rd, struct ng_profile *p, struct ng_err *err)
{
    if (joined(rd, "TARGET_INFO_GPU", "SELECT DISTINCT name FROM TARGET_INFO_GPU"
               " WHERE name IS NOT NULL ORDER BY name", &p->gpu, err) < 0 ||
        joined(rd, "TARGET_INFO_SYSTEM_ENV", "SELECT value FROM TARGET_INFO_SYSTEM_ENV"
               " WHERE name = 'NvDriverVersion' AND value <> '' LIMIT 1", &p->driver, err) < 0)
        return -1;
    /* some captures prefix it with PROCESS_n: */
    return joined(rd, "META_DATA_CAPTURE", "SELECT DISTINCT value FROM META_DATA_CAPTURE"
                  " WHERE name = 'CUDA_GRAPH_TRACE_OPTIONS:MODE'"
                  "    OR name GLOB 'PROCESS_*:CUDA_GRAPH_TRACE_OPTIONS:MODE'"
                  " ORDER BY value", &p->graph_mode, err);
}

/* ---- opening ---- */

/* Where the file really is.  SQLite keeps a -wal and a -journal beside the
 * database, so a symlink, /dev/fd/N or /proc/self/fd/N must be followed to
 * the directory that holds them; a name that leads to no file of the same
 * inode (a deleted file, a memfd) leaves nowhere to look, and is refused. */
static int resolve(const char *path, const char *shown, char **real, struct ng_err *err)
{
    struct stat a, b;
    char *r = realpath(path, NULL);

    if (!r || stat(path, &a) < 0 || stat(r, &b) < 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        free(r);
        return ng_err_set(err, "'%s' is not a file in a directory (deleted, or a descriptor "
                          "of no file?): whether a -wal or -journal beside it holds committed "
                          "data cannot be checked; read a copy", shown);
    }
    *real = r;
    return 0;
}

/* A rollback journal SQLite would play back: one that is there, not empty,
 * and not zeroed (journal_mode=PERSIST zeroes the header of a finished one). */
static int hot_journal(const char *real)
{
    struct ng_buf j = NG_BUF_INIT;
    unsigned char first = 0;
    ng_buf_addf(&j, "%s-journal", real);
    int fd = open(j.data, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    ng_buf_release(&j);
    if (fd < 0)
        return errno != ENOENT;   /* there but unreadable: SQLite could not check it either */
    int hot = read(fd, &first, 1) == 1 && first != 0;
    close(fd);
    return hot;
}

static int has_wal(const char *real)
{
    struct ng_buf w = NG_BUF_INIT;
    ng_buf_addf(&w, "%s-wal", real);
    int there = access(w.data, F_OK) == 0;
    ng_buf_release(&w);
    return there;
}

/* How to open the real file without writing anything beside it.  A
 * rollback-journal database (what nsys writes) opens read-only as it is.
 * SQLite reads a database through its WAL when byte 19 of the header (the
 * read version) is 2, and byte 18 (the write version) 2 says a writer means
 * WAL too: either way it would make -shm and -wal files even read-only, so
 * it is opened immutable, and only when no -wal exists (everything is in the
 * main file).  A -wal beside a rollback-journal header is refused too.  A hot journal is refused in every mode: immutable would read
 * past it, and a WAL header does not make a stopped writer's pages vanish. */
static int open_uri(const char *real, const char *shown, const char *beside,
                    struct ng_buf *uri, struct ng_err *err)
{
    unsigned char hdr[20];
    int wal = 0;
    int fd = open(real, O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        wal = read(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr && (hdr[18] == 2 || hdr[19] == 2);
        ng_file_close(fd);   /* another thread's connection may lock this file */
    }
    if (hot_journal(real))
        return hot_journal_error(err, shown, beside);
    if (wal && has_wal(real))
        return ng_err_set(err, "'%s' is an SQLite database in WAL mode with a -wal file "
                          "beside it ('%s-wal': still being written?); checkpoint it or copy "
                          "it first", shown, beside);
    /* SQLite opens a -wal it finds whatever the header says (a crash may
     * leave a header behind its WAL): it would read through it, and make a
     * -shm beside it */
    if (has_wal(real))
        return ng_err_set(err, "'%s' has a -wal file beside it ('%s-wal'): SQLite reads a "
                          "database through its -wal whatever its header says (still being "
                          "written?); checkpoint it or copy it first", shown, beside);
    /* a URI, with every byte that could be read as URI syntax escaped */
    ng_buf_adds(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)real; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7F)
            ng_buf_addf(uri, "%%%02X", *p);
        else
            ng_buf_add(uri, p, 1);
    }
    ng_buf_adds(uri, wal ? "?mode=ro&immutable=1" : "?mode=ro");
    return 0;
}

static int open_db(struct reader *rd, const char *given, struct ng_err *err)
{
    struct ng_buf uri = NG_BUF_INIT;

    if (resolve(given, rd->shown, &rd->real, err) < 0)
        return -1;
    const char *path = rd->path = rd->real;
    struct stat st;
    /* the given name when the files are beside it, else where they are */
    rd->beside = strcmp(given, rd->shown) == 0 && lstat(given, &st) == 0 &&
                 !S_ISLNK(st.st_mode) ? rd->shown : rd->real;
    if (open_uri(path, rd->shown, rd->beside, &uri, err) < 0)
        return -1;
    /* before SQLite opens it: a file swapped in between shows as another inode */
    rd->fd = open(path, O_RDONLY | O_CLOEXEC);
    /* SQLite's lock on the file outlives every close of the gate's own
     * descriptors of it, this reader's and other threads' (ng_file.h) */
    ng_file_hold(rd->fd, &rd->hold);
    /* process-wide and idempotent: SQLite's own memory, not the gate's */
    sqlite3_hard_heap_limit64(HEAP_LIMIT);
    int rc = sqlite3_open_v2(uri.data, &rd->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
                             SQLITE_OPEN_URI, NULL);
    ng_buf_release(&uri);
    if (rc != SQLITE_OK)
        return rd_error(rd, err, rc);
    sqlite3_extended_result_codes(rd->db, 1);
    sqlite3_busy_timeout(rd->db, BUSY_TIMEOUT_MS);
    set_budget(rd, path);
    rc = sqlite3_exec(rd->db, "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY", NULL, NULL,
                      NULL);
    return rc == SQLITE_OK ? 0 : rd_error(rd, err, rc);
}

static void reader_release(struct reader *rd)
{
    sqlite3_finalize(rd->string_st);
    sqlite3_close(rd->db);
    free(rd->real);
    ng_file_close(rd->fd);
    ng_file_unhold(&rd->hold);
    ng_idmap_release(&rd->item_index);
    free(rd->items);
    release_dense(rd);
    free(rd->pairs);
    ng_idmap_release(&rd->pair_index);
    ng_acc_release(&rd->whole);
    for (size_t i = 0; i < rd->n_schema; i++) {
        free(rd->schema[i].name);
        free(rd->schema[i].shown);
        free(rd->schema[i].type);
    }
    free(rd->schema);
}

/* ---- what the profile holds ---- */

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* Nothing counted: say what is there, never "0 ms". */
static int nothing_counted(struct reader *rd, const struct ng_profile *p, unsigned present,
                           struct ng_err *err)
{
    struct ng_buf held = NG_BUF_INIT;
    char work[64];

    for (size_t i = 0; i < N_WORK_TABLES; i++) {
        enum ng_work_kind k = work_tables[i].kind;
        if (p->left_out_launches[k] > 0)
            ng_buf_addf(&held, "%s%" PRId64 " %s (%.3f ms)", held.len ? " and " : "",
                        p->left_out_launches[k], work_tables[i].what, ms(p->left_out_ns[k]));
    }
    ng_work_format(rd->work, work, sizeof work);
    if (held.len) {
        ng_err_set(err, "'%s' has no GPU work that --work %s counts; it holds %s: add them to "
                   "--work (e.g. --work all)", rd->shown, work, held.data);
    } else if (!(present & rd->work)) {
        ng_err_set(err, "'%s' has no CUDA kernel data (no CUPTI_ACTIVITY_KIND_KERNEL table)",
                   rd->shown);
    } else {
        ng_err_set(err, "'%s' has no CUDA kernel data (%s is empty)", rd->shown,
                   present & NG_WORK_BIT(NG_WORK_KERNEL) ? rd->kernel_table
                                                          : "every table of counted work");
    }
    ng_buf_release(&held);
    return -1;
}

static int by_device(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return (x->device > y->device) - (x->device < y->device);
}

static int64_t pid_of(int64_t gpid)
{
    return (gpid >> 24) & 0xFFFFFF;
}

static int by_process(const void *a, const void *b)
{
    int64_t x = pid_of(((const struct pair *)a)->gpid), y = pid_of(((const struct pair *)b)->gpid);
    return (x > y) - (x < y);
}

/* The pairs into the profile's devices and processes, each added in
 * order, so that even millions of them (a crafted file) add in linear time. */
static void keep_places(struct reader *rd, struct ng_profile *p)
{
    p->has_places = 1;   /* the merged pass reads every row (see read_work) */
    if (rd->n_pairs > 0) {
        ng_sort(rd->pairs, rd->n_pairs, sizeof *rd->pairs, by_device);
        for (size_t i = 0; i < rd->n_pairs; i++)
            ng_place_owner(ng_profile_add_place(&p->devices, &p->n_devices, rd->pairs[i].device,
                                                rd->pairs[i].ns, rd->pairs[i].launches),
                           pid_of(rd->pairs[i].gpid));
        ng_sort(rd->pairs, rd->n_pairs, sizeof *rd->pairs, by_process);
        for (size_t i = 0; i < rd->n_pairs; i++)
            ng_profile_add_place(&p->processes, &p->n_processes, pid_of(rd->pairs[i].gpid),
                                 rd->pairs[i].ns, rd->pairs[i].launches);
        ng_idmap_release(&rd->pair_index);   /* the pairs moved */
        rd->last_pair = 0;
    }
    p->graph_node_kernels = rd->graph_node_kernels;
}

int ng_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                   const struct ng_source_opts *opts, struct ng_err *err)
{
    static const struct ng_source_opts defaults = { 0 };
    struct reader rd;
    struct ng_nvtx pj;
    unsigned present = 0;
    int ret = -1;

    memset(&rd, 0, sizeof rd);
    memset(&pj, 0, sizeof pj);
    rd.fd = -1;
    rd.shown = shown;
    rd.opts = opts ? opts : &defaults;
    rd.work = rd.opts->work ? rd.opts->work : NG_WORK_DEFAULT;
    rd.metric = rd.opts->metric;
    if (open_db(&rd, db_path, err) < 0 || read_schema(&rd, err) < 0 ||
        find_kernel_table(&rd, p, err) < 0 || prepare_names(&rd, err) < 0 ||
        survey_work(&rd, p, &present, err) < 0)
        goto out;
    /* a profile with nothing countable is an error before anything else */
    if (!(present & rd.work)) {
        nothing_counted(&rd, p, present, err);
        goto out;
    }
    if (rd.opts->list_ranges && list_ranges(&rd, p, err) < 0)
        goto out;
    if (rd.opts->epoch_re && nvtx_prepare(&rd, &pj, p, err) < 0)
        goto out;
    if (rd.pj && rd.opts->item_samples)
        ng_nvtx_track_items(rd.pj);
    if (read_work(&rd, present, err) < 0 || name_items(&rd, p, err) < 0)
        goto out;
    if (rd.rows_total == 0) {
        nothing_counted(&rd, p, present, err);
        goto out;
    }
    if (rd.pj && ng_nvtx_taken(rd.pj) == 0 && p->n_excluded == 0) {
        ng_err_set(err, "'%s': no counted GPU work was launched inside the %zu epoch range%s "
                   "matching --epoch-range", shown, ng_nvtx_ranges(rd.pj),
                   ng_nvtx_ranges(rd.pj) == 1 ? "" : "s");
        goto out;
    }
    if (rd.pj && rd.opts->item_samples)
        attach_cells(&rd, p);
    keep_places(&rd, p);
    struct ng_work_pass pass = { rd.pj, &rd.whole, rd.metric, rd.opts->skip_epochs };
    if (ng_work_pass_finish(p, &pass, shown, err) == 0 && read_machine(&rd, p, err) == 0)
        ret = ng_profile_finish(p, err);
out:
    if (rd.pj)
        ng_nvtx_release(&pj);
    reader_release(&rd);
    return ret;
}

static int sqlite_load(struct ng_profile *p, const char *path,
                       const struct ng_source_opts *opts, struct ng_err *err)
{
    return ng_sqlite_read(p, path, path, opts, err);
}

const struct ng_source_kind ng_source_sqlite = {
    .format = NG_FORMAT_SQLITE,
    .magic = "SQLite format 3",   /* plus the NUL that ends it: 16 bytes */
    .magic_len = 16,
    .extensions = sqlite_exts,
    .load = sqlite_load,
    .reads = "nsys SQLite exports (.sqlite)",
};
