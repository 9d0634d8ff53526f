/* The nsys SQLite export backend: the only files that talk to libsqlite3
 * are this folder's.  This one reads an export in its order: open it
 * (ng_sqlite.c), find the tables that hold work and what --work
 * leaves out of them, read the NVTX ranges and launch calls when epochs
 * are asked for (ng_sqlite_nvtx.c), read the counted work in one pass
 * (ng_sqlite_work.c, by the page reader where it applies:
 * ng_sqlite_direct.c), then name the items (ng_sqlite_names.c) and fill
 * the profile. */
#include "sources/sqlite/ng_source_sqlite.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/ng_nvtx.h"
#include "core/ng_work_pass.h"
#include "sources/ng_source_opts.h"
#include "sources/sqlite/ng_sqlite_names.h"
#include "sources/sqlite/ng_sqlite_nvtx.h"
#include "sources/sqlite/ng_sqlite.h"
#include "sources/sqlite/ng_sqlite_work.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

static const char *const sqlite_exts[] = { ".sqlite", ".sqlite3", ".db", NULL };

/* ---- the items into the profile ---- */

static int name_items(struct ng_sqlite *rd, struct ng_profile *p, struct ng_err *err)
{
    for (size_t i = 0; i < rd->n_items; i++) {
        struct ng_sqlite_work_item *it = &rd->items[i];
        if (it->count == 0)
            continue;   /* seen only outside the counted epochs */
        if (it->state == 0 && ng_sqlite_work_choose(rd, it) < 0)
            return ng_err_set(err, "the --kernels / --exclude-kernels patterns took more than "
                              "%.0f s of CPU time on the names of '%s'; use simpler patterns",
                              NG_REGEX_CPU_BUDGET, rd->shown);
        struct ng_buf name = NG_BUF_INIT;
        ng_sqlite_work_item_name(rd, it, &name);
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
    struct ng_sqlite *rd;
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

static void attach_cells(struct ng_sqlite *rd, struct ng_profile *p)
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
        ng_sqlite_work_item_name(rd, &rd->items[i], &name);
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

/* ---- the machine and the capture ---- */

/* Distinct values of a one-column query, sorted and ", "-joined into
 * *out (NULL when there are none).  Only a table that is not a table is
 * an error: what the capture says of its machine is optional. */
static int joined(struct ng_sqlite *rd, const char *table, const char *sql, char **out,
                  struct ng_err *err)
{
    sqlite3_stmt *st;
    struct ng_buf b = NG_BUF_INIT;

    *out = NULL;
    int have = ng_sqlite_need_table(rd, table, err);
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

static int read_machine(struct ng_sqlite *rd, struct ng_profile *p, struct ng_err *err)
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

static void reader_release(struct ng_sqlite *rd)
{
    ng_sqlite_names_close(rd);   /* its statement before the connection */
    ng_sqlite_close(rd);
    ng_sqlite_work_release(rd);
}

/* ---- what the profile holds ---- */

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* Nothing counted: say what is there, never "0 ms". */
static int nothing_counted(struct ng_sqlite *rd, const struct ng_profile *p,
                           unsigned present, struct ng_err *err)
{
    struct ng_buf held = NG_BUF_INIT;
    char work[64];

    for (size_t i = 0; i < NG_SQLITE_WORK_TABLES; i++) {
        enum ng_work_kind k = ng_sqlite_work_tables[i].kind;
        if (p->left_out_launches[k] > 0)
            ng_buf_addf(&held, "%s%" PRId64 " %s (%.3f ms)", held.len ? " and " : "",
                        p->left_out_launches[k], ng_sqlite_work_tables[i].what,
                        ms(p->left_out_ns[k]));
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
    const struct ng_sqlite_work_pair *x = a, *y = b;
    return (x->device > y->device) - (x->device < y->device);
}

static int64_t pid_of(int64_t gpid)
{
    return (gpid >> 24) & 0xFFFFFF;
}

static int by_process(const void *a, const void *b)
{
    int64_t x = pid_of(((const struct ng_sqlite_work_pair *)a)->gpid);
    int64_t y = pid_of(((const struct ng_sqlite_work_pair *)b)->gpid);
    return (x > y) - (x < y);
}

/* The pairs into the profile's devices and processes, each added in
 * order, so that even millions of them (a crafted file) add in linear time. */
static void keep_places(struct ng_sqlite *rd, struct ng_profile *p)
{
    p->has_places = 1;   /* the merged pass reads every row (see ng_sqlite_work_read) */
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

int ng_source_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                          const struct ng_source_opts *opts, struct ng_err *err)
{
    static const struct ng_source_opts defaults = { 0 };
    struct ng_sqlite rd;
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
    if (ng_sqlite_open(&rd, db_path, err) < 0 || ng_sqlite_read_schema(&rd, err) < 0 ||
        ng_sqlite_work_find_kernel_table(&rd, p, err) < 0 ||
        ng_sqlite_work_prepare_names(&rd, err) < 0 ||
        ng_sqlite_work_survey(&rd, p, &present, err) < 0)
        goto out;
    /* a profile with nothing countable is an error before anything else */
    if (!(present & rd.work)) {
        nothing_counted(&rd, p, present, err);
        goto out;
    }
    if (rd.opts->list_ranges && ng_sqlite_nvtx_list_ranges(&rd, p, err) < 0)
        goto out;
    if (rd.opts->epoch_re && ng_sqlite_nvtx_prepare(&rd, &pj, p, err) < 0)
        goto out;
    if (rd.pj && rd.opts->item_samples)
        ng_nvtx_track_items(rd.pj);
    if (ng_sqlite_work_read(&rd, present, err) < 0 || name_items(&rd, p, err) < 0)
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
    return ng_source_sqlite_read(p, path, path, opts, err);
}

const struct ng_source_kind ng_source_sqlite = {
    .format = NG_FORMAT_SQLITE,
    .magic = "SQLite format 3",   /* plus the NUL that ends it: 16 bytes */
    .magic_len = 16,
    .extensions = sqlite_exts,
    .load = sqlite_load,
    .reads = "nsys SQLite exports (.sqlite)",
};
