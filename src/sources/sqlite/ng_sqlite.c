/* Opening an nsys SQLite export safely, and what every other file of
 * the backend asks of it: its errors in words, its schema (only real
 * tables are read: a view could compute anything), and the budget every
 * query runs under (SQLite VM steps and CPU time that grow with the
 * file's size; temporary storage in memory under a heap limit, so no
 * file can fill a disk). */
#include "sources/sqlite/ng_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sources/ng_source_opts.h"

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

int ng_sqlite_error(struct ng_sqlite *rd, struct ng_err *err, int rc)
{
    return db_error(err, rd->db, rd->shown, rd->beside ? rd->beside : rd->shown, rc);
}

/* ---- the schema: only real tables are read ---- */

/* "name" with every '"' doubled: a table name from sqlite_master can hold
 * anything. */
void ng_sqlite_add_ident(struct ng_buf *b, const char *name)
{
    ng_buf_adds(b, "\"");
    for (const char *p = name; *p; p++)
        ng_buf_adds(b, *p == '"' ? "\"\"" : (char[]){ *p, 0 });
    ng_buf_adds(b, "\"");
}

char *ng_sqlite_lower(const char *s)
{
    char *l = ng_xstrdup(s);
    for (char *p = l; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return l;
}

int ng_sqlite_read_schema(struct ng_sqlite *rd, struct ng_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(rd->db, "SELECT type, name, sql FROM sqlite_master", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *sql = (const char *)sqlite3_column_text(st, 2);
        if (!type || !name)
            continue;
        rd->schema = ng_xgrow(rd->schema, rd->n_schema, sizeof *rd->schema);
        rd->schema[rd->n_schema++] = (struct ng_sqlite_object){
            ng_sqlite_lower(name), ng_xstrdup(name), ng_xstrdup(type),
            strcmp(type, "table") == 0 && !(sql && strncasecmp(sql, "CREATE VIRTUAL", 14) == 0),
            0, 0, 0,
        };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : ng_sqlite_error(rd, err, rc);
}

const struct ng_sqlite_object *ng_sqlite_schema_find(const struct ng_sqlite *rd,
                                                     const char *name)
{
    char *l = ng_sqlite_lower(name);
    const struct ng_sqlite_object *found = NULL;
    for (size_t i = 0; i < rd->n_schema && !found; i++)
        if (strcmp(rd->schema[i].name, l) == 0 && strcmp(rd->schema[i].type, "index") != 0 &&
            strcmp(rd->schema[i].type, "trigger") != 0)
            found = &rd->schema[i];
    free(l);
    return found;
}

/* 1 when the table has the column. */
int ng_sqlite_has_column(struct ng_sqlite *rd, const char *table, const char *col,
                         struct ng_err *err)
{
    sqlite3_stmt *st;
    int found = 0;

    int rc = sqlite3_prepare_v2(rd->db, "SELECT name FROM pragma_table_info(?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return ng_sqlite_error(rd, err, rc);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (c && strcasecmp(c, col) == 0)
            found = 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? found : ng_sqlite_error(rd, err, rc);
}

/* The name of a generated column of the table (computed on every read: it
 * could run any expression), or NULL; nsys writes none. */
static char *generated_column(struct ng_sqlite *rd, const char *table)
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
int ng_sqlite_need_table(struct ng_sqlite *rd, const char *name, struct ng_err *err)
{
    struct ng_sqlite_object *o = (struct ng_sqlite_object *)ng_sqlite_schema_find(rd, name);
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
    struct ng_sqlite *rd = ctx;
    if (++rd->ticks > rd->max_ticks || ng_thread_cpu() - rd->cpu_start > rd->max_cpu)
        rd->over_budget = 1;
    return rd->over_budget;
}

static void set_budget(struct ng_sqlite *rd, const char *path)
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
 * main file).  A -wal beside a rollback-journal header is refused too.  A
 * hot journal is refused in every mode: immutable would read past it, and
 * a WAL header does not make a stopped writer's pages vanish. */
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

int ng_sqlite_open(struct ng_sqlite *rd, const char *given, struct ng_err *err)
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
        return ng_sqlite_error(rd, err, rc);
    sqlite3_extended_result_codes(rd->db, 1);
    sqlite3_busy_timeout(rd->db, BUSY_TIMEOUT_MS);
    set_budget(rd, path);
    rc = sqlite3_exec(rd->db, "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY", NULL, NULL,
                      NULL);
    return rc == SQLITE_OK ? 0 : ng_sqlite_error(rd, err, rc);
}

void ng_sqlite_close(struct ng_sqlite *rd)
{
    sqlite3_close(rd->db);
    rd->db = NULL;
    free(rd->real);
    ng_file_close(rd->fd);
    ng_file_unhold(&rd->hold);
    for (size_t i = 0; i < rd->n_schema; i++) {
        free(rd->schema[i].name);
        free(rd->schema[i].shown);
        free(rd->schema[i].type);
    }
    free(rd->schema);
}
