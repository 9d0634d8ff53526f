/* ng_sqlite: one nsys SQLite export opened for reading, and the
 * state the backend's files share while they read it.  This module opens
 * the file read-only without writing beside it (no hot journal, no -wal
 * read through), keeps every query under a budget, knows the schema (only
 * real tables are read) and words SQLite's errors.
 *
 * The reader's fields are grouped by the file that owns them:
 * ng_sqlite.c (the connection, the schema, the budget),
 * ng_sqlite_direct.c (whether the page reader may read the file),
 * ng_sqlite_names.c (the names' look-ups), ng_sqlite_work.c (the work
 * pass: items, places, the accumulator) and ng_sqlite_nvtx.c (the
 * projection and the calls).  Everything is released by its owner;
 * ng_source_sqlite.c calls each release. */
#ifndef NG_SQLITE_H
#define NG_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_filter.h"
#include "core/ng_metric.h"
#include "core/ng_profile.h"
#include "util/ng_err.h"
#include "util/ng_file.h"
#include "util/ng_util.h"

struct sqlite3;
struct sqlite3_stmt;
struct ng_nvtx;
struct ng_source_opts;
struct ng_sqlite_work_item;
struct ng_sqlite_work_pair;
struct ng_sqlite_work_table;

/* An object of the schema (sqlite_master). */
struct ng_sqlite_object {
    char *name;              /* lower case: SQLite names are case-insensitive */
    char *shown;             /* as the schema spells it */
    char *type;
    int is_table;            /* a real table: not a view, not virtual */
    int checked;             /* its columns were checked */
    int computed;            /* it has generated columns */
    int tree_ok;             /* its b-trees passed ng_sqlite_direct_check() */
};

/* Item indices by key, for keys in [0, 2^24) (ng_sqlite_work.c): pages
 * allocated as keys appear. */
struct ng_sqlite_dense {
    uint32_t **pages;        /* item index + 1; 0: none yet */
    size_t n_pages;
};

struct ng_sqlite {
    /* the connection (ng_sqlite.c) */
    struct sqlite3 *db;
    const char *shown;
    const struct ng_source_opts *opts;
    const char *path;                   /* the file SQLite opened: real */
    char *real;                         /* where the given name leads (owned) */
    const char *beside;                 /* how files beside it are named: shown or real */
    int fd;                             /* the file again, for ng_btree; -1: none */
    struct ng_file_id hold;             /* rd->fd's file, held while SQLite locks it */
    struct ng_sqlite_object *schema;
    size_t n_schema;
    int64_t ticks, max_ticks;           /* the step budget */
    double cpu_start, max_cpu;          /* the time budget (thread CPU seconds) */
    int over_budget;
    /* the page reader (ng_sqlite_direct.c) */
    int direct;                         /* 1 fd is SQLite's file, 0 not checked, -1 not */
    /* names (ng_sqlite_names.c) */
    struct sqlite3_stmt *string_st;     /* StringIds look-up, prepared once */
    /* the work pass (ng_sqlite_work.c) */
    unsigned work;
    enum ng_metric metric;
    struct ng_acc whole;                /* total mode: every metric and the breakdown */
    const struct ng_sqlite_work_table *cur;   /* the table being read */
    int cur_graph;                      /* it has a graphId column */
    struct ng_idmap item_index;         /* (kind, key) -> item, past the dense range */
    struct ng_sqlite_dense dense[NG_WORK_KINDS];
    struct ng_sqlite_work_item *items;
    size_t n_items;
    struct ng_sqlite_work_pair *pairs;
    size_t n_pairs, last_pair;
    struct ng_idmap pair_index;         /* (process, device) -> pairs[] */
    int64_t graph_node_kernels;
    int64_t rows;                       /* rows of the current table */
    int64_t rows_seen;                  /* rows of every table, this pass */
    int64_t rows_total;                 /* counted tables' rows */
    const char *problem;                /* first bad row, reported after the query */
    int64_t bad_row;
    const char *kernel_table;           /* the one nsys's reports read */
    const char *kernel_key;             /* demangledName, or shortName (--kernel-names base) */
    int derive_base;                    /* --kernel-names base without a shortName column */
    struct ng_filter_account account;   /* what the kernel filters matched */
    double comm_cpu;                    /* CPU seconds the communication patterns took */
    int64_t left_rows, left_ns;         /* a left-out table's, from the page reader */
    int left_by_sql;                    /* a value only SQL's arithmetic reads */
    int left_over;                      /* their time overflows 64 bits */
    /* NVTX mode (ng_sqlite_nvtx.c; the work pass feeds it) */
    struct ng_nvtx *pj;
};

/* Opens the export `given` (rd->shown names it in messages; rd->opts and
 * rd->fd = -1 set): read-only, never writing beside it, under the budget.
 * -1 with err set. */
int ng_sqlite_open(struct ng_sqlite *rd, const char *given, struct ng_err *err);
/* Reads sqlite_master into rd->schema. */
int ng_sqlite_read_schema(struct ng_sqlite *rd, struct ng_err *err);
/* Closes the connection and frees what this module owns (the statements
 * of the others must be finalized first). */
void ng_sqlite_close(struct ng_sqlite *rd);

/* Sets err from an SQLite result code, in words; returns -1. */
int ng_sqlite_error(struct ng_sqlite *rd, struct ng_err *err, int rc);

/* 1 a real table, 0 absent, -1 (err set) something else by that name, or
 * a table with generated columns (refused: they compute on read). */
int ng_sqlite_need_table(struct ng_sqlite *rd, const char *name, struct ng_err *err);
/* 1 when the table has the column, 0 not, -1 with err set. */
int ng_sqlite_has_column(struct ng_sqlite *rd, const char *table, const char *col,
                         struct ng_err *err);
/* The schema's table or view of that name (case-insensitive), or NULL. */
const struct ng_sqlite_object *ng_sqlite_schema_find(const struct ng_sqlite *rd,
                                                     const char *name);

/* "name" with every '"' doubled onto b: a table name from sqlite_master
 * can hold anything. */
void ng_sqlite_add_ident(struct ng_buf *b, const char *name);
/* A lower-case copy (ASCII), to free. */
char *ng_sqlite_lower(const char *s);

#endif
