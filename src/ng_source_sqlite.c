/* The nsys SQLite export backend: the only file that talks to libsqlite3.
 *
 * One pass over the kernel table: an application-defined aggregate sums
 * durations per name id inside the single SELECT, so no temporary b-tree
 * is built and no row crosses into C one step at a time; names are
 * resolved through StringIds only for the ids that occur.
 *
 * NVTX mode (an epoch pattern is set) projects ranges onto the GPU the way
 * nsys's nvtx_kern_sum / nvtx_gpu_proj_trace define it: a kernel belongs to
 * a range when the runtime or driver call that launched it (same
 * correlationId, same process) starts and ends inside the range, on the
 * range's thread.  Ranges are read first and indexed per thread; one pass
 * over the runtime table maps the correlation ids of calls made inside an
 * epoch to that epoch; the kernel pass then looks each kernel up there. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

struct nvtx;

struct acc {
    struct nvtx *nvtx;    /* NVTX mode: kernels are counted only inside epochs */
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

static int nvtx_take_kernel(struct nvtx *nv, int64_t gpid, int64_t corr, int64_t start,
                            int64_t end);

static void kern_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct acc *a = sqlite3_user_data(ctx);

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
    /* NVTX mode: only kernels launched inside a counted epoch (a kernel
     * without a correlation id was launched by no call we know) */
    if (a->nvtx) {
        int taken = argc >= 5 && sqlite3_value_type(argv[3]) == SQLITE_INTEGER &&
                    sqlite3_value_type(argv[4]) == SQLITE_INTEGER
                    ? nvtx_take_kernel(a->nvtx, sqlite3_value_int64(argv[3]),
                                       sqlite3_value_int64(argv[4]), start, end)
                    : 0;
        if (taken < 0)
            acc_fail(ctx, a, "epoch kernel times that overflow 64 bits");
        if (taken <= 0)
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
    /* a writer died mid-transaction: rolling its journal back would write,
     * and the gate never writes to a profile */
    if (rc == SQLITE_READONLY_ROLLBACK)
        return ng_err_set(err, "'%s' has a hot journal ('%s-journal'): a writer stopped in the "
                          "middle of a transaction, and the gate opens profiles read-only; open "
                          "it once with sqlite3 to roll back, or read a finished copy",
                          shown, shown);
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

static int require_columns(sqlite3 *db, const char *shown, const char *table, int nvtx,
                           struct ng_err *err)
{
    /* the NVTX projection also joins on the launching call */
    static const char *const needed[] = { "start", "end", "demangledName", "globalPid",
                                          "correlationId", NULL };
    int found[5] = { 0, 0, 0, 0, 0 };
    int count = nvtx ? 5 : 3;
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        for (int i = 0; i < count; i++)
            if (col && strcmp(col, needed[i]) == 0)
                found[i] = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_error(err, db, shown, rc);
    for (int i = 0; i < count; i++)
        if (!found[i])
            return ng_err_set(err, "'%s': table %s has no column '%s'", shown, table,
                              needed[i]);
    return 0;
}

/* ---- NVTX epochs ---- */

#define NVTX_RANGE_TYPES "59, 60, 70, 71"   /* push/pop, start/end, and their NVTXT forms */
#define OPEN_END INT64_MAX                  /* an unclosed range lasts to the end */

struct range {
    int64_t start, end;
    int64_t tid;           /* globalTid */
    size_t epoch;          /* index into nvtx.epochs (by key) */
    int64_t ksum, kmin, kmax, kcount;
};

struct epoch_key {
    char *name;            /* the text of its first range */
    int64_t first_start;
    size_t rank;           /* order by first start */
};

struct thread_slice {
    int64_t tid;
    size_t begin, end;     /* into the sorted ranges */
};

struct corr_slot {
    int64_t gpid, corr;
    size_t range;
    int used;
    int extra;       /* a further range of the same launch */
};

/* Correlation ids are dense per process, so a process's calls map to
 * ranges through arrays indexed by the id (2 bytes a call, 0 = no range),
 * not a hash table 16x that size.  The array is paged: a block of 65536
 * ids is allocated when the first call in it lies in a range, so memory
 * follows the launches made inside epochs (10 million take 20 MB), never
 * a doubling overshoot or a copy.  Ids outside [0, 2^32) and range numbers
 * past 65534 go to the hash table instead. */
#define PAGE_BITS 16
#define PAGE_IDS ((size_t)1 << PAGE_BITS)
#define MAX_PAGES ((size_t)1 << (32 - PAGE_BITS))

struct dense_map {
    int64_t gpid;
    uint16_t **pages;    /* pages[id >> PAGE_BITS][id & (PAGE_IDS - 1)] = range index + 1 */
    size_t n_pages;
};

struct nvtx {
    const regex_t *re;
    long skip;
    struct range *r;
    size_t n, cap;
    struct epoch_key *epochs;
    size_t n_epochs;
    struct ng_strmap keys;          /* epoch key -> index */
    struct ng_strmap names;         /* every range text -> index into counts */
    int64_t *counts;
    size_t n_counts;
    struct thread_slice *threads;
    size_t n_threads;
    struct dense_map *dense;
    size_t n_dense;
    struct corr_slot *map;          /* the fallback for sparse ids */
    size_t map_cap, map_used;
    int64_t taken;                  /* kernels counted in epochs */
    /* every counted duration, and the first start and last end over all
     * counted kernels: bounds of every per-range and per-epoch sum and span,
     * so checking these two for overflow covers them all */
    int64_t taken_ns, span_min, span_max;
    const char *problem;            /* a bad runtime row, reported after the query */
};

static void nvtx_release(struct nvtx *nv)
{
    for (size_t i = 0; i < nv->n_epochs; i++)
        free(nv->epochs[i].name);
    free(nv->epochs);
    free(nv->r);
    free(nv->counts);
    free(nv->threads);
    for (size_t i = 0; i < nv->n_dense; i++) {
        for (size_t k = 0; k < nv->dense[i].n_pages; k++)
            free(nv->dense[i].pages[k]);
        free(nv->dense[i].pages);
    }
    free(nv->dense);
    free(nv->map);
    ng_strmap_release(&nv->keys);
    ng_strmap_release(&nv->names);
}

static size_t corr_hash(int64_t gpid, int64_t corr, size_t cap)
{
    uint64_t x = ((uint64_t)gpid >> 24) * 0x9E3779B97F4A7C15u ^ (uint64_t)corr * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(x >> 20) & (cap - 1);
}

/* extra = 0: the launch's range (replacing an earlier one); extra = 1: one
 * more range the same launch lies in (kept beside the others). */
static void corr_put(struct nvtx *nv, int64_t gpid, int64_t corr, size_t range, int extra)
{
    if ((nv->map_used + 1) * 2 > nv->map_cap) {
        size_t ncap = nv->map_cap ? nv->map_cap * 2 : 1024;
        struct corr_slot *nm = ng_xcalloc(ncap, sizeof *nm);
        for (size_t i = 0; i < nv->map_cap; i++) {
            if (!nv->map[i].used)
                continue;
            size_t j = corr_hash(nv->map[i].gpid, nv->map[i].corr, ncap);
            while (nm[j].used)
                j = (j + 1) & (ncap - 1);
            nm[j] = nv->map[i];
        }
        free(nv->map);
        nv->map = nm;
        nv->map_cap = ncap;
    }
    size_t j = corr_hash(gpid, corr, nv->map_cap);
    while (nv->map[j].used && (extra || nv->map[j].extra || nv->map[j].gpid != gpid ||
                               nv->map[j].corr != corr))
        j = (j + 1) & (nv->map_cap - 1);
    if (!nv->map[j].used)
        nv->map_used++;
    nv->map[j] = (struct corr_slot){ gpid, corr, range, 1, extra };
}

/* Every range the hash table holds for a launch; returns how many (at
 * most max). */
static size_t corr_get(const struct nvtx *nv, int64_t gpid, int64_t corr, long *out,
                       size_t max)
{
    size_t n = 0;
    if (!nv->map_cap)
        return 0;
    size_t j = corr_hash(gpid, corr, nv->map_cap);
    while (nv->map[j].used && n < max) {
        if (nv->map[j].gpid == gpid && nv->map[j].corr == corr)
            out[n++] = (long)nv->map[j].range;
        j = (j + 1) & (nv->map_cap - 1);
    }
    return n;
}

static struct dense_map *dense_for(struct nvtx *nv, int64_t gpid, int create)
{
    for (size_t i = 0; i < nv->n_dense; i++)
        if (nv->dense[i].gpid == gpid)
            return &nv->dense[i];
    if (!create)
        return NULL;
    nv->dense = ng_xrealloc(nv->dense, (nv->n_dense + 1) * sizeof *nv->dense);
    nv->dense[nv->n_dense] = (struct dense_map){ gpid, NULL, 0 };
    return &nv->dense[nv->n_dense++];
}

/* Stores in the paged array when the id and the range number fit, else in
 * the hash table. */
static void launch_put(struct nvtx *nv, int64_t gpid, int64_t corr, size_t range)
{
    if (corr < 0 || (uint64_t)corr >= PAGE_IDS * MAX_PAGES || range >= UINT16_MAX) {
        corr_put(nv, gpid, corr, range, 0);
        return;
    }
    struct dense_map *d = dense_for(nv, gpid, 1);
    size_t page = (size_t)corr >> PAGE_BITS;
    if (page >= d->n_pages) {
        d->pages = ng_xrealloc(d->pages, (page + 1) * sizeof *d->pages);
        memset(d->pages + d->n_pages, 0, (page + 1 - d->n_pages) * sizeof *d->pages);
        d->n_pages = page + 1;
    }
    if (!d->pages[page])
        d->pages[page] = ng_xcalloc(PAGE_IDS, sizeof **d->pages);
    d->pages[page][(size_t)corr & (PAGE_IDS - 1)] = (uint16_t)(range + 1);
}

#define MAX_RANGES_PER_LAUNCH 8

/* The ranges whose thread made the launch (gpid, corr) inside them: the
 * array's one, then any the hash table holds; returns how many. */
static size_t launch_get(struct nvtx *nv, int64_t gpid, int64_t corr, long *out)
{
    struct dense_map *d = dense_for(nv, gpid, 0);
    size_t n = 0;
    if (d && corr >= 0 && ((uint64_t)corr >> PAGE_BITS) < d->n_pages) {
        const uint16_t *page = d->pages[(size_t)corr >> PAGE_BITS];
        uint16_t v = page ? page[(size_t)corr & (PAGE_IDS - 1)] : 0;
        if (v)
            out[n++] = (long)v - 1;
    }
    return n + corr_get(nv, gpid, corr, out + n, MAX_RANGES_PER_LAUNCH - n);
}

static int epoch_counted(const struct nvtx *nv, size_t epoch)
{
    return nv->epochs[epoch].rank >= (size_t)nv->skip;
}

/* Called by kern_step: 1 when the kernel falls in a counted epoch, 0 when
 * not, -1 when counting it would overflow 64 bits (hostile timestamps). */
static int nvtx_take_kernel(struct nvtx *nv, int64_t gpid, int64_t corr, int64_t start,
                            int64_t end)
{
    long at[MAX_RANGES_PER_LAUNCH];
    size_t n = launch_get(nv, gpid & ~(int64_t)0xFFFFFF, corr, at);
    int taken = 0;

    /* usually one range; a launch on the boundary of two (a zero-length
     * call where one range ends and the next begins) lies in both, and
     * counts in both, as nsys's nvtx_kern_sum counts it */
    for (size_t i = 0; i < n; i++) {
        struct range *r = &nv->r[at[i]];
        if (!epoch_counted(nv, r->epoch))
            continue;
        int64_t span_min = nv->taken && nv->span_min < start ? nv->span_min : start;
        int64_t span_max = nv->taken && nv->span_max > end ? nv->span_max : end;
        int64_t unused;
        if (__builtin_add_overflow(nv->taken_ns, end - start, &nv->taken_ns) ||
            __builtin_sub_overflow(span_max, span_min, &unused))
            return -1;
        nv->span_min = span_min;
        nv->span_max = span_max;
        if (r->kcount == 0 || start < r->kmin)
            r->kmin = start;
        if (r->kcount == 0 || end > r->kmax)
            r->kmax = end;
        r->ksum += end - start;   /* kern_step checked end >= start */
        r->kcount++;
        nv->taken++;
        taken = 1;
    }
    return taken;
}

/* The epoch key of a matching text: the pattern's first group when it has
 * one (so auto's "epoch_3-rank_0" and "epoch_3-rank_1" are one epoch),
 * else the whole text.  Returns 0 when the text does not match. */
static int epoch_key(const regex_t *re, const char *text, const char **key, size_t *len)
{
    regmatch_t m[2];

    if (regexec(re, text, 2, m, 0) != 0)
        return 0;
    if (re->re_nsub >= 1 && m[1].rm_so >= 0) {
        *key = text + m[1].rm_so;
        *len = (size_t)(m[1].rm_eo - m[1].rm_so);
    } else {
        *key = text;
        *len = strlen(text);
    }
    return 1;
}

static void count_name(struct nvtx *nv, const char *text)
{
    int added;
    size_t i = ng_strmap_get(&nv->names, text, strlen(text), nv->n_counts, &added);
    if (added) {
        nv->counts = ng_xgrow(nv->counts, nv->n_counts, sizeof *nv->counts);
        nv->counts[nv->n_counts++] = 0;
    }
    nv->counts[i]++;
}

static void add_range(struct nvtx *nv, int64_t start, int64_t end, int64_t tid,
                      const char *text, const char *key, size_t key_len)
{
    int added;
    size_t e = ng_strmap_get(&nv->keys, key, key_len, nv->n_epochs, &added);
    if (added) {
        nv->epochs = ng_xgrow(nv->epochs, nv->n_epochs, sizeof *nv->epochs);
        nv->epochs[nv->n_epochs++] = (struct epoch_key){ ng_xstrdup(text), start, 0 };
    } else if (start < nv->epochs[e].first_start) {
        free(nv->epochs[e].name);
        nv->epochs[e].name = ng_xstrdup(text);
        nv->epochs[e].first_start = start;
    }
    if (nv->n == nv->cap) {
        nv->cap = nv->cap ? nv->cap * 2 : 256;
        nv->r = ng_xrealloc(nv->r, nv->cap * sizeof *nv->r);
    }
    nv->r[nv->n++] = (struct range){ start, end, tid, e, 0, 0, 0, 0 };
}

static int table_exists(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int read_ranges(sqlite3 *db, const char *shown, struct nvtx *nv, struct ng_err *err)
{
    const char *sql = table_exists(db, "StringIds")
        ? "SELECT e.start, e.\"end\", e.globalTid, COALESCE(e.text, s.value)"
          " FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId"
          " WHERE e.eventType IN (" NVTX_RANGE_TYPES ")"
          "   AND (e.endGlobalTid IS NULL OR e.endGlobalTid = e.globalTid)"
        : "SELECT start, \"end\", globalTid, text FROM NVTX_EVENTS"
          " WHERE eventType IN (" NVTX_RANGE_TYPES ")"
          "   AND (endGlobalTid IS NULL OR endGlobalTid = globalTid)";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

    if (rc != SQLITE_OK) {
        if (!table_exists(db, "NVTX_EVENTS"))
            return ng_err_set(err, "'%s' has no NVTX ranges (no NVTX_EVENTS table); epoch ranges "
                              "need a capture with NVTX tracing (nsys profile -t cuda,nvtx)",
                              shown);
        return db_error(err, db, shown, rc);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 3);
        const char *key;
        size_t key_len;
        if (!text || sqlite3_column_type(st, 2) != SQLITE_INTEGER)
            continue;   /* unnamed ranges cannot be epochs */
        count_name(nv, text);
        if (!epoch_key(nv->re, text, &key, &key_len))
            continue;
        int64_t start = sqlite3_column_int64(st, 0);
        int64_t end = sqlite3_column_type(st, 1) == SQLITE_NULL ? OPEN_END
                                                                 : sqlite3_column_int64(st, 1);
        if (end < start)
            continue;
        add_range(nv, start, end, sqlite3_column_int64(st, 2), text, key, key_len);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_error(err, db, shown, rc);
    return 0;
}

static int by_tid_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;   /* the outer one first */
}

/* Keeps only the outermost matching ranges of each thread and builds the
 * per-thread slices the runtime pass searches. */
static void index_ranges(struct nvtx *nv)
{
    size_t out = 0;

    qsort(nv->r, nv->n, sizeof *nv->r, by_tid_start);
    for (size_t i = 0; i < nv->n; i++) {
        if (out > 0 && nv->r[out - 1].tid == nv->r[i].tid &&
            nv->r[i].end <= nv->r[out - 1].end)
            continue;   /* nested in a kept range of the same thread */
        nv->r[out++] = nv->r[i];
    }
    nv->n = out;
    for (size_t i = 0; i < nv->n; i++) {
        if (nv->n_threads == 0 || nv->threads[nv->n_threads - 1].tid != nv->r[i].tid) {
            nv->threads = ng_xgrow(nv->threads, nv->n_threads, sizeof *nv->threads);
            nv->threads[nv->n_threads++] = (struct thread_slice){ nv->r[i].tid, i, i };
        }
        nv->threads[nv->n_threads - 1].end = i + 1;
    }
}

static int by_first_start(const void *a, const void *b)
{
    const struct epoch_key *const *x = a, *const *y = b;
    if ((*x)->first_start != (*y)->first_start)
        return (*x)->first_start < (*y)->first_start ? -1 : 1;
    return strcmp((*x)->name, (*y)->name);
}

static void rank_epochs(struct nvtx *nv)
{
    struct epoch_key **order = ng_xcalloc(nv->n_epochs, sizeof *order);
    for (size_t i = 0; i < nv->n_epochs; i++)
        order[i] = &nv->epochs[i];
    qsort(order, nv->n_epochs, sizeof *order, by_first_start);
    for (size_t i = 0; i < nv->n_epochs; i++)
        order[i]->rank = i;
    free(order);
}

/* The range of thread tid that contains [start, end], or -1; *begin gets
 * the first range of that thread.  Kept ranges are not nested, so their
 * ends rise with their starts: only the last range starting at or before
 * the call can contain it, or ranges just before it that end where it
 * does (a zero-length call on a shared boundary). */
static long find_range(const struct nvtx *nv, int64_t tid, int64_t start, int64_t end,
                       size_t *begin)
{
    size_t lo = 0, hi = nv->n_threads;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (nv->threads[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == nv->n_threads || nv->threads[lo].tid != tid)
        return -1;
    /* the last range starting at or before the call */
    size_t a = nv->threads[lo].begin, b = nv->threads[lo].end;
    *begin = a;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (nv->r[mid].start <= start)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == nv->threads[lo].begin)
        return -1;
    const struct range *r = &nv->r[a - 1];
    return end <= r->end ? (long)(a - 1) : -1;
}

/* One runtime/driver call: remembered when it lies inside an epoch range
 * of its thread.  An aggregate, like the kernel pass, so the runtime table
 * is read in one SELECT. */
static void call_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct nvtx *nv = sqlite3_user_data(ctx);
    (void)argc;

    if (nv->problem)
        return;
    if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
        sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
        return;   /* no thread or no correlation id: it launched nothing we can tie */
    if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER ||
        sqlite3_value_type(argv[3]) != SQLITE_INTEGER) {
        nv->problem = "a CUDA API call whose start or end is not an integer";
        sqlite3_result_error(ctx, nv->problem, -1);
        return;
    }
    int64_t tid = sqlite3_value_int64(argv[0]);
    int64_t start = sqlite3_value_int64(argv[2]), end = sqlite3_value_int64(argv[3]);
    int64_t gpid = tid & ~(int64_t)0xFFFFFF, corr = sqlite3_value_int64(argv[1]);
    size_t begin = 0;
    long r = find_range(nv, tid, start, end, &begin);
    if (r < 0)
        return;
    launch_put(nv, gpid, corr, (size_t)r);
    for (long i = r - 1; i >= (long)begin && nv->r[i].end >= end; i--)
        if (nv->r[i].start <= start)
            corr_put(nv, gpid, corr, (size_t)i, 1);
}

static int map_launches(sqlite3 *db, const char *shown, struct nvtx *nv, struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc;

    if (!table_exists(db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        return ng_err_set(err, "'%s' has no CUDA API calls (no CUPTI_ACTIVITY_KIND_RUNTIME "
                          "table) to tie kernels to epoch ranges", shown);
    rc = sqlite3_create_function(db, "ng_call", 4, SQLITE_UTF8 | SQLITE_DIRECTONLY, nv, NULL,
                                 call_step, kern_final);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT ng_call(globalTid, correlationId, start, \"end\")"
                                " FROM CUPTI_ACTIVITY_KIND_RUNTIME", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (nv->problem)
        return ng_err_set(err, "'%s': CUPTI_ACTIVITY_KIND_RUNTIME has %s", shown, nv->problem);
    if (rc != SQLITE_ROW)
        return db_error(err, db, shown, rc);
    return 0;
}

static int by_count(const void *a, const void *b, void *ctx)
{
    const int64_t *counts = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (counts[x] != counts[y])
        return counts[x] > counts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* "no range matches": name the most frequent ranges so the pattern can be
 * fixed without opening the trace. */
static int no_match_error(const struct nvtx *nv, const char *shown, const char *pattern,
                          struct ng_err *err)
{
    struct ng_buf list = NG_BUF_INIT;
    size_t *idx = ng_xcalloc(nv->n_counts, sizeof *idx);
    const char **name_of = ng_xcalloc(nv->n_counts, sizeof *name_of);

    for (size_t i = 0; i < nv->names.cap; i++)
        if (nv->names.keys[i])
            name_of[nv->names.vals[i]] = nv->names.keys[i];
    for (size_t i = 0; i < nv->n_counts; i++)
        idx[i] = i;
    qsort_r(idx, nv->n_counts, sizeof *idx, by_count, nv->counts);
    for (size_t i = 0; i < nv->n_counts && i < 5; i++) {
        const char *n = name_of[idx[i]];
        ng_buf_addf(&list, "%s'", i ? ", " : "");
        ng_text_clean(&list, n, strlen(n) > 60 ? 60 : strlen(n), NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_addf(&list, "%s' (%" PRId64 ")", strlen(n) > 60 ? "..." : "", nv->counts[idx[i]]);
    }
    if (nv->n_counts == 0)
        ng_err_set(err, "'%s' has no named NVTX ranges, so no epochs for --epoch-range '%s'",
                   shown, pattern);
    else
        ng_err_set(err, "no NVTX range in '%s' matches --epoch-range '%s'; the most frequent "
                   "ranges are: %s", shown, pattern, list.data);
    ng_buf_release(&list);
    free(idx);
    free(name_of);
    return -1;
}

/* Per epoch, by the metric: kernel-sum adds the durations of its kernels
 * over all its ranges (ranks and threads add up); gpu-span is the last end
 * minus the first start over those same kernels, i.e. the GPU wall time of
 * the epoch, however many ranks ran it side by side. */
static void emit_epochs(const struct nvtx *nv, enum ng_metric metric, struct ng_profile *p)
{
    int64_t *sum = ng_xcalloc(nv->n_epochs, sizeof *sum);
    int64_t *first = ng_xcalloc(nv->n_epochs, sizeof *first);
    int64_t *last = ng_xcalloc(nv->n_epochs, sizeof *last);
    int64_t *kernels = ng_xcalloc(nv->n_epochs, sizeof *kernels);
    struct epoch_key **order = ng_xcalloc(nv->n_epochs, sizeof *order);

    for (size_t i = 0; i < nv->n; i++) {
        const struct range *r = &nv->r[i];
        size_t e = r->epoch;
        if (r->kcount == 0)
            continue;
        if (kernels[e] == 0 || r->kmin < first[e])
            first[e] = r->kmin;
        if (kernels[e] == 0 || r->kmax > last[e])
            last[e] = r->kmax;
        sum[e] += r->ksum;
        kernels[e] += r->kcount;
    }
    for (size_t i = 0; i < nv->n_epochs; i++)
        order[nv->epochs[i].rank] = &nv->epochs[i];
    for (size_t k = (size_t)nv->skip; k < nv->n_epochs; k++) {
        size_t e = (size_t)(order[k] - nv->epochs);
        if (kernels[e] == 0) {
            /* no GPU work to measure (often a range cut off by the capture
             * window): a 0 ms sample would only drag the median */
            p->empty_epochs++;
            continue;
        }
        int64_t ns = metric == NG_METRIC_GPU_SPAN ? last[e] - first[e] : sum[e];
        ng_profile_add_epoch(p, order[k]->name, order[k]->first_start, ns, kernels[e]);
    }
    p->nvtx = 1;
    p->skipped_epochs = (size_t)nv->skip;
    free(sum);
    free(first);
    free(last);
    free(kernels);
    free(order);
}

/* Ranges and launch calls, before the kernel pass. */
static int nvtx_prepare(sqlite3 *db, const char *shown, const struct ng_source_opts *o,
                        struct nvtx *nv, struct ng_err *err)
{
    nv->re = o->epoch_re;
    nv->skip = o->skip_epochs;
    if (read_ranges(db, shown, nv, err) < 0)
        return -1;
    if (nv->n == 0)
        return no_match_error(nv, shown, o->epoch_pattern ? o->epoch_pattern : "?", err);
    index_ranges(nv);
    rank_epochs(nv);
    if ((size_t)nv->skip >= nv->n_epochs)
        return ng_err_set(err, "'%s' has %zu epoch%s matching --epoch-range, and "
                          "--skip-epochs %ld leaves none", shown, nv->n_epochs,
                          nv->n_epochs == 1 ? "" : "s", nv->skip);
    return map_launches(db, shown, nv, err);
}

static int aggregate_kernels(sqlite3 *db, const char *shown, const char *table,
                             struct acc *a, struct ng_err *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    rc = sqlite3_create_function(db, "ng_kern", a->nvtx ? 5 : 3,
                                 SQLITE_UTF8 | SQLITE_DIRECTONLY, a, NULL, kern_step, kern_final);
    if (rc != SQLITE_OK)
        return db_error(err, db, shown, rc);
    snprintf(sql, sizeof sql,
             a->nvtx ? "SELECT ng_kern(demangledName, start, \"end\", globalPid, correlationId)"
                       " FROM \"%s\""
                     : "SELECT ng_kern(demangledName, start, \"end\") FROM \"%s\"",
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
        ng_profile_add_row(p, NG_WORK_KERNEL, (const char *)txt, (size_t)n, s->total_ns, s->count);
        return;
    }
    struct ng_buf b = NG_BUF_INIT;
    for (int i = 0; i < n; i++) {
        if (txt[i] == 0)
            ng_buf_adds(&b, "\\x00");
        else
            ng_buf_add(&b, &txt[i], 1);
    }
    ng_profile_add_row(p, NG_WORK_KERNEL, b.data, b.len, s->total_ns, s->count);
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
        ng_profile_add_row(p, NG_WORK_KERNEL, name, (size_t)n, s->total_ns, s->count);
    }
    sqlite3_finalize(st);
    return 0;
}

/* Distinct GPU model names, sorted and joined, from TARGET_INFO_GPU. */
static char *read_gpus(sqlite3 *db)
{
    sqlite3_stmt *st;
    struct ng_buf b = NG_BUF_INIT;

    if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL"
                           " ORDER BY name", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (b.len)
            ng_buf_adds(&b, ", ");
        ng_buf_adds(&b, (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return b.len ? ng_buf_detach(&b) : NULL;
}

static char *read_driver(sqlite3 *db)
{
    sqlite3_stmt *st;
    char *v = NULL;

    if (sqlite3_prepare_v2(db, "SELECT value FROM TARGET_INFO_SYSTEM_ENV"
                           " WHERE name = 'NvDriverVersion' AND value <> '' LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = ng_xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

/* How to open the file without writing anything beside it.  A rollback-
 * journal database (what nsys writes) opens read-only as it is.  A WAL
 * database would get -shm and -wal files even read-only, so it is opened
 * immutable when no -wal exists (everything is in the main file), and
 * refused while one exists (a writer may be at work). */
static int open_uri(const char *path, const char *shown, struct ng_buf *uri,
                    struct ng_err *err)
{
    unsigned char hdr[20];
    int wal = 0;
    FILE *f = fopen(path, "rb");

    if (f) {
        wal = fread(hdr, 1, sizeof hdr, f) == sizeof hdr && hdr[18] == 2 && hdr[19] == 2;
        fclose(f);
    }
    if (wal) {
        struct ng_buf w = NG_BUF_INIT;
        ng_buf_addf(&w, "%s-wal", path);
        int pending = access(w.data, F_OK) == 0;
        ng_buf_release(&w);
        if (pending)
            return ng_err_set(err, "'%s' is an SQLite database in WAL mode with a -wal file "
                              "beside it (still being written?); checkpoint it or copy it first",
                              shown);
    }
    /* a URI, with every byte that could be read as URI syntax escaped */
    ng_buf_adds(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7F)
            ng_buf_addf(uri, "%%%02X", *p);
        else
            ng_buf_add(uri, p, 1);
    }
    ng_buf_adds(uri, wal ? "?mode=ro&immutable=1" : "?mode=ro");
    return 0;
}

int ng_sqlite_read(struct ng_profile *p, const char *db_path, const char *shown,
                   const struct ng_source_opts *opts, struct ng_err *err)
{
    sqlite3 *db = NULL;
    struct acc a = { 0 };
    struct nvtx nv;
    char table[128];
    struct ng_buf uri = NG_BUF_INIT;
    int rc, ret = -1;
    int nvtx = opts && opts->epoch_re;

    memset(&nv, 0, sizeof nv);
    if (open_uri(db_path, shown, &uri, err) < 0)
        goto out;
    rc = sqlite3_open_v2(uri.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
                         SQLITE_OPEN_URI, NULL);
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
    if (require_columns(db, shown, table, nvtx, err) < 0)
        goto out;
    if (nvtx) {
        if (nvtx_prepare(db, shown, opts, &nv, err) < 0)
            goto out;
        a.nvtx = &nv;
    }
    if (aggregate_kernels(db, shown, table, &a, err) < 0 ||
        resolve_names(db, shown, p, &a, err) < 0)
        goto out;
    if (a.rows == 0) {
        ng_err_set(err, "'%s' has no CUDA kernel data (%s is empty)", shown, table);
        goto out;
    }
    if (nvtx && nv.taken == 0) {
        ng_err_set(err, "'%s': no kernel was launched inside the %zu epoch range%s matching "
                   "--epoch-range", shown, nv.n, nv.n == 1 ? "" : "s");
        goto out;
    }
    if (nvtx)
        emit_epochs(&nv, opts->metric, p);
    p->gpu = read_gpus(db);
    p->driver = read_driver(db);
    ret = ng_profile_finish(p, err);
out:
    nvtx_release(&nv);
    free(a.slots);
    sqlite3_close(db);
    ng_buf_release(&uri);
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
};
