/* Fuzz target, differential: the SQLite page reader (ng_btree) against
 * SQLite itself, on mutated exports with a -wal and a -journal beside them.
 *
 * The input: a flags byte, then (when its bits ask for them) a 16-bit
 * length each of a -journal and a -wal, then the database, whose last
 * bytes are the journal's and the WAL's.  Every file goes to a private
 * directory, and the database is read twice in the mode the flags choose
 * (total, gpu-busy, NVTX by kernel sum or gpu-busy; the default --work,
 * which counts the memory tables as left out, or all of it): by the page reader, and with
 * --sqlite-sql-only, where every row comes through SQLite's VM.
 *
 * What must hold, else the target aborts (a crash):
 *   - two figures are the same figures (totals, rows, kinds, left-out
 *     work, epochs, devices and processes);
 *   - a figure on one path and a refusal on the other happens only where
 *     the page reader refuses a file that SQLite's own integrity_check
 *     calls damaged (the page reader may be stricter than SQLite's cursor,
 *     never laxer: a figure that SQLite's scan refuses is a crash);
 *   - nothing is ever written beside the input (no -shm, no new file).
 * Both refused is agreement, whatever the words. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "run/ng_read.h"
#include "core/ng_nvtx.h"
#include "util/ng_regex.h"
#include "sources/ng_source.h"
#include "sources/sqlite/ng_source_sqlite.h"
#include "util/ng_util.h"

#define F_JOURNAL 1
#define F_WAL 2
#define F_MODE(f) (((f) >> 2) & 3)   /* 0 total, 1 NVTX by gpu-busy, 2 gpu-busy, 3 NVTX */
#define F_ALL_WORK 16

static char dir[4096];
static char db_path[4096 + 16], journal_path[4096 + 32], wal_path[4096 + 32];
static struct ng_regex auto_re;

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[8192];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* NG_FUZZ_SQLITE_LOG=1: SQLite's own log on stderr (where it found corruption) */
static void sqlite_log(void *ctx, int code, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "sqlite log (%d): %s\n", code, msg);
}

static void set_up(void)
{
    if (getenv("NG_FUZZ_SQLITE_LOG"))
        sqlite3_config(SQLITE_CONFIG_LOG, sqlite_log, NULL);
    const char *base = getenv("TMPDIR");
    struct ng_err err;

    snprintf(dir, sizeof dir, "%s/ng-fuzz-diff.XXXXXX", base && *base ? base : "/tmp");
    NG_FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(db_path, sizeof db_path, "%s/p.sqlite", dir);
    snprintf(journal_path, sizeof journal_path, "%s-journal", db_path);
    snprintf(wal_path, sizeof wal_path, "%s-wal", db_path);
    atexit(remove_dir);
    NG_FUZZ_CHECK(ng_regex_compile(&auto_re, ng_read_auto_epoch_pattern, REG_ICASE,
                                   NG_NVTX_TEXT_MAX, "--epoch-range", &err) == 0);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    NG_FUZZ_CHECK(f != NULL);
    NG_FUZZ_CHECK(size == 0 || fwrite(data, 1, size, f) == size);
    NG_FUZZ_CHECK(fclose(f) == 0);
}

static size_t files_in_dir(void)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    NG_FUZZ_CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A profile's figures as one string: what the two paths must agree on. */
static void fingerprint(const struct ng_profile *p, struct ng_buf *b)
{
    ng_buf_addf(b, "total %lld launches %lld measured %lld/%d rows %zu\n",
                (long long)p->total_ns, (long long)p->launches, (long long)p->measured_ns,
                p->measured, p->n_rows);
    for (size_t i = 0; i < p->n_rows; i++)
        ng_buf_addf(b, "row %d %s %lld %lld\n", (int)p->rows[i].kind, p->rows[i].name,
                    (long long)p->rows[i].total_ns, (long long)p->rows[i].instances);
    for (int k = 0; k < NG_WORK_KINDS; k++)
        ng_buf_addf(b, "kind %d %lld %lld left out %lld %lld\n", k, (long long)p->kind_ns[k],
                    (long long)p->kind_launches[k], (long long)p->left_out_ns[k],
                    (long long)p->left_out_launches[k]);
    for (size_t i = 0; i < p->n_epochs; i++)
        ng_buf_addf(b, "epoch %s %lld %lld %lld\n", p->epochs[i].name,
                    (long long)p->epochs[i].first_start, (long long)p->epochs[i].ns,
                    (long long)p->epochs[i].kernels);
    for (size_t i = 0; i < p->n_devices; i++)
        ng_buf_addf(b, "device %lld %lld %lld\n", (long long)p->devices[i].id,
                    (long long)p->devices[i].ns, (long long)p->devices[i].launches);
    for (size_t i = 0; i < p->n_processes; i++)
        ng_buf_addf(b, "process %lld %lld %lld\n", (long long)p->processes[i].id,
                    (long long)p->processes[i].ns, (long long)p->processes[i].launches);
    ng_buf_addf(b, "graph nodes %lld skipped %zu empty %zu\n", (long long)p->graph_node_kernels,
                p->skipped_epochs, p->empty_epochs);
}

/* One read: 0 a figure (its fingerprint in b), -1 refused (the message in b). */
static int read_once(const struct ng_source_opts *opts, struct ng_buf *b)
{
    struct ng_profile p;
    struct ng_err err;
    int r;

    ng_profile_init(&p, db_path);
    err.msg[0] = '\0';
    r = ng_source_sqlite_read(&p, db_path, "p.sqlite", opts, &err);
    if (r == 0) {
        ng_fuzz_check_profile(&p);
        fingerprint(&p, b);
    } else {
        ng_fuzz_check_error(&err);
        ng_buf_adds(b, err.msg);
    }
    ng_profile_release(&p);
    return r;
}

/* SQLite's own verdict on the file: 1 when integrity_check finds damage
 * (or cannot even run), read immutable, so nothing is written beside it. */
static int sqlite_calls_damaged(void)
{
    char uri[8192];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int damaged = 1;

    snprintf(uri, sizeof uri, "file:%s?mode=ro&immutable=1", db_path);
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "PRAGMA integrity_check(1)", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        damaged = !t || strcmp((const char *)t, "ok") != 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return damaged;
}

static void disagree(const char *what, const struct ng_buf *a, const struct ng_buf *b)
{
    fprintf(stderr, "fuzz sqlite_diff: %s\n--- page reader:\n%s\n--- SQL:\n%s\n", what,
            a->data ? a->data : "", b->data ? b->data : "");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        set_up();
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    size_t at = 1, jn = 0, wn = 0;
    if (flags & F_JOURNAL) {
        if (size < at + 2)
            return 0;
        jn = (size_t)data[at] | (size_t)data[at + 1] << 8;
        at += 2;
    }
    if (flags & F_WAL) {
        if (size < at + 2)
            return 0;
        wn = (size_t)data[at] | (size_t)data[at + 1] << 8;
        at += 2;
    }
    if (size - at < jn + wn + 1)
        return 0;
    size_t dbn = size - at - jn - wn;
    remove_dir();
    NG_FUZZ_CHECK(mkdir(dir, 0700) == 0);
    put(db_path, data + at, dbn);
    if (flags & F_JOURNAL)
        put(journal_path, data + at + dbn, jn);
    if (flags & F_WAL)
        put(wal_path, data + at + dbn + jn, wn);
    size_t files = files_in_dir();

    int mode = F_MODE(flags);
    struct ng_source_opts o = {
        .nsys_timeout = 1,
        .work = flags & F_ALL_WORK ? NG_WORK_ALL : 0,
        .metric = mode == 1 || mode == 2 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
        .epoch_re = mode & 1 ? &auto_re : NULL,
        .epoch_pattern = mode & 1 ? "auto" : NULL,
    };
    struct ng_buf a = NG_BUF_INIT, b = NG_BUF_INIT;
    int ra = read_once(&o, &a);
    o.sql_only = 1;
    int rb = read_once(&o, &b);
    NG_FUZZ_CHECK(files_in_dir() == files);   /* nothing written beside the input */

    if (ra == 0 && rb == 0 && strcmp(a.data, b.data) != 0)
        disagree("two different figures", &a, &b);
    if (ra == 0 && rb != 0)
        disagree("a figure from the page reader, a refusal from SQL", &a, &b);
    if (ra != 0 && rb == 0 && !sqlite_calls_damaged())
        disagree("a refusal from the page reader of a file SQLite reads and calls sound", &a,
                 &b);
    ng_buf_release(&a);
    ng_buf_release(&b);
    return 0;
}
