/* The .nsys-rep / .qdrep backend: exports the report with the user's nsys
 * into a private directory, reads the export with the SQLite backend, and
 * removes the directory when the run is done (ng_exports).  Nothing is
 * written beside the user's file (nsys stats would leave X.sqlite there).
 * No shell: argv only, so any file name is safe.
 *
 * The report is opened once.  The cache key is hashed from that
 * descriptor, and nsys is handed a path that reaches the same open file (a
 * symlink named *.nsys-rep in the private directory, pointing at
 * /proc/<pid>/fd/N): a report replaced under the gate cannot give nsys
 * other bytes than the key was taken from.  A report written to in place
 * changes its mtime or size, which is checked once nsys is done.
 *
 * The cache is filled only with an export that was read successfully; an
 * entry that fails to read is dropped and rebuilt, never reported. */
#include "sources/nsysrep/ng_source_nsysrep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/ng_source_opts.h"
#include "sources/nsysrep/ng_cache.h"
#include "sources/nsysrep/ng_export_slots.h"
#include "sources/nsysrep/ng_exports.h"
#include "sources/nsysrep/ng_proc.h"
#include "sources/sqlite/ng_source_sqlite.h"
#include "util/ng_file.h"
#include "util/ng_progress.h"
#include "util/ng_signal.h"
#include "util/ng_util.h"

#define EXPORT_NAME "export.sqlite"
/* a cache filesystem with less than this free after a failed export is
 * taken to be full: the export is done again outside the cache */
#define CACHE_FULL_BYTES (64ull << 20)

static const char *const rep_exts[] = { ".nsys-rep", ".qdrep", NULL };

/* Finds the executable the way execvp will, so a missing nsys gets a
 * message that says how to point at one. */
static int find_nsys(const char *nsys, const char *input, struct ng_buf *found,
                     struct ng_err *err)
{
    if (strchr(nsys, '/')) {
        if (access(nsys, X_OK) != 0)
            return ng_err_set(err,
                              "nsys '%s' is not an executable file (needed to read '%s'; "
                              "set --nsys or NSYS_GATE_NSYS to the nsys program)",
                              nsys, input);
        ng_buf_adds(found, nsys);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        struct ng_buf cand = NG_BUF_INIT;
        ng_buf_addf(&cand, "%.*s/%s", (int)n, n ? path : ".", nsys);
        struct stat st;
        if (stat(cand.data, &st) == 0 && S_ISREG(st.st_mode) && access(cand.data, X_OK) == 0) {
            ng_buf_adds(found, cand.data);
            ng_buf_release(&cand);
            return 0;
        }
        ng_buf_release(&cand);
        path += n + (colon ? 1 : 0);
    }
    return ng_err_set(err,
                      "'%s' is an nsys report and reading it needs nsys, but '%s' is not on "
                      "PATH; install Nsight Systems, or set --nsys PATH / NSYS_GATE_NSYS (nsys-gate's "
                      "ci/fetch-nsys.sh unpacks one without installing it and prints its path)",
                      input, nsys);
}

/* A private directory under $TMPDIR (mode 0700), for an export kept out
 * of the cache. */
static int make_tmp_dir(struct ng_export *e, struct ng_err *err)
{
    const char *base = getenv("TMPDIR");
    struct ng_buf dir = NG_BUF_INIT;

    if (!base || !*base)
        base = "/tmp";
    ng_buf_addf(&dir, "%s/nsys-gate.XXXXXX", base);
    if (dir.len + sizeof EXPORT_NAME + 32 >= PATH_MAX) {
        ng_buf_release(&dir);
        return ng_err_set(err, "unable to create a temporary directory in '%s': path too long",
                          base);
    }
    if (!mkdtemp(dir.data)) {
        int saved = errno;
        ng_buf_release(&dir);
        return ng_err_set(err, "unable to create a temporary directory in '%s': %s "
                          "(set TMPDIR to a writable directory)", base, strerror(saved));
    }
    /* a signal removes it, wherever the export or its reading is */
    e->tmp_slot = ng_signal_add_tree(dir.data);
    e->tmp_dir = ng_buf_detach(&dir);
    return 0;
}

static int nsys_failed(const char *input, const struct ng_proc_result *r, double timeout,
                       struct ng_err *err)
{
    struct ng_buf tail = NG_BUF_INIT;
    int ret;

    ng_proc_tail_line(r->err_tail.len ? &r->err_tail : &r->out_tail, 3, &tail);
    if (r->timed_out)
        ret = ng_err_set(err, "nsys export of '%s' did not finish in %g s and was killed "
                         "(raise --nsys-timeout)", input, timeout);
    else if (!r->exited)
        ret = ng_err_set(err, "nsys crashed (signal %d) exporting '%s'%s%s", r->term_signal,
                         input, tail.len ? ": " : "", tail.data);
    else
        ret = ng_err_set(err, "nsys export failed for '%s' (exit %d)%s%s", input, r->exit_code,
                         tail.len ? ": " : "", tail.data);
    ng_buf_release(&tail);
    return ret;
}

/* `nsys --version`'s first line: part of the cache key, since another nsys
 * may export the same report differently.  Returns 1 when nsys hung (the
 * export would too: that is the error to report), 0 with the version, -1
 * when there is none (the cache is then skipped). */
static int ask_nsys_version(const char *nsys, double timeout, struct ng_buf *out,
                            struct ng_err *err)
{
    const char *argv[] = { nsys, "--version", NULL };
    struct ng_proc_opts o = { .timeout_s = timeout };
    struct ng_proc_result r;
    struct ng_err ignored;

    if (ng_proc_run(argv, &o, &r, &ignored) < 0)
        return -1;
    int hung = r.timed_out;
    int ok = !hung && r.exited && r.exit_code == 0 && r.out_tail.len > 0;
    if (ok)
        ng_buf_add(out, r.out_tail.data, strcspn(r.out_tail.data, "\r\n"));
    ng_proc_result_release(&r);
    if (hung)
        return ng_err_set(err, "'%s --version' did not finish in %g s and was killed "
                          "(raise --nsys-timeout)", nsys, timeout), 1;
    return ok && out->len ? 0 : -1;
}

/* One `nsys --version` per nsys per run: a pair of reports asks once.  The
 * lock is held while asking, so parallel exports wait for the one answer. */
static int nsys_version(const char *nsys, double timeout, struct ng_buf *out,
                        struct ng_err *err)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct ng_buf memo_nsys = NG_BUF_INIT, memo_version = NG_BUF_INIT;
    int ret = 0;

    pthread_mutex_lock(&lock);
    if (memo_nsys.len && strcmp(memo_nsys.data, nsys) == 0) {
        ng_buf_add(out, memo_version.data, memo_version.len);
    } else if ((ret = ask_nsys_version(nsys, timeout, out, err)) == 0) {
        memo_nsys.len = memo_version.len = 0;
        ng_buf_adds(&memo_nsys, nsys);
        ng_buf_add(&memo_version, out->data, out->len);
    }
    pthread_mutex_unlock(&lock);
    return ret;
}

/* What one export needs, from the claim to the reading. */
struct job {
    struct ng_exports *run;
    struct ng_export *e;
    struct ng_profile *p;
    const char *path;                /* as the user named it */
    const struct ng_source_opts *opts;
    const char *nsys;
    int fd;                          /* the report, open once */
    struct stat st;                  /* what it was when opened */
    const struct ng_cache *cache;    /* NULL: not used for this report */
    struct ng_buf key;
    struct ng_buf version;
};

static int refuse_changed(const char *path, struct ng_err *err)
{
    return ng_err_set(err, "'%s' changed while it was being read (is something still "
                      "writing it?); gate it once it is complete", path);
}

static int report_changed(struct job *j)
{
    struct stat now;
    return fstat(j->fd, &now) < 0 || ng_file_stat_changed(&j->st, &now);
}

/* A failed read leaves a half-filled profile: start it afresh, keeping
 * its path string itself (the caller's `path` points at it). */
static void reset_profile(struct ng_profile *p)
{
    enum ng_format f = p->format;
    char *path = p->path;
    p->path = NULL;
    ng_profile_release(p);
    ng_profile_init(p, NULL);
    free(p->path);
    p->path = path;
    p->format = f;
}

static void note(struct job *j, const struct ng_err *why)
{
    ng_exports_note(j->run, why->msg);
}

/* The path nsys is given: a symlink in dir, named like a report, to the
 * descriptor the key was hashed from.  Where /proc cannot do that, the
 * user's path (and the checks after the export). */
static void input_for_nsys(struct job *j, const char *dir, struct ng_buf *arg)
{
    struct ng_buf fdpath = NG_BUF_INIT, lnk = NG_BUF_INIT;
    char probe[16];
    const char *ext = ".nsys-rep";
    size_t len = strlen(j->path);

    if (len > 6 && strcasecmp(j->path + len - 6, ".qdrep") == 0)
        ext = ".qdrep";
    ng_buf_addf(&fdpath, "/proc/%ld/fd/%d", (long)getpid(), j->fd);
    ng_buf_addf(&lnk, "%s/report%s", dir, ext);
    if (readlink(fdpath.data, probe, sizeof probe) > 0 && symlink(fdpath.data, lnk.data) == 0) {
        ng_buf_adds(arg, lnk.data);
    } else {
        /* a name starting with '-' must not read as an option */
        if (j->path[0] == '-')
            ng_buf_adds(arg, "./");
        ng_buf_adds(arg, j->path);
    }
    ng_buf_release(&fdpath);
    ng_buf_release(&lnk);
}

static void tick(void *ctx)
{
    ng_progress_tick(*(int *)ctx);
}

/* Runs nsys export into dir/export.sqlite.  0: a non-empty export is
 * there; -1: err says why. */
static int run_export(struct job *j, const char *dir, struct ng_buf *out, struct ng_err *err,
                      struct ng_proc_result *r)
{
    struct ng_buf in_arg = NG_BUF_INIT, tmp_env = NG_BUF_INIT;
    double timeout = j->opts ? j->opts->nsys_timeout : 0;
    int ret = -1;

    ng_buf_addf(out, "%s/" EXPORT_NAME, dir);
    input_for_nsys(j, dir, &in_arg);
    /* nsys's own scratch files land in the private directory too */
    ng_buf_addf(&tmp_env, "TMPDIR=%s", dir);
    const char *argv[] = {
        j->nsys, "export", "--type", "sqlite", "--force-overwrite=true",
        "--output", out->data, in_arg.data, NULL,
    };
    const char *env[] = { tmp_env.data, NULL };
    int slot = ng_export_slots_acquire();
    int h = ng_progress_begin(j->path, j->nsys, j->version.data);
    struct ng_proc_opts o = { env, timeout, tick, &h };
    struct stat st = { 0 };

    memset(r, 0, sizeof *r);
    if (ng_proc_run(argv, &o, r, err) < 0) {
        ng_progress_end(h, 0, 0);
        ng_export_slots_release(slot);
        goto out;
    }
    int ok = !r->timed_out && r->exited && r->exit_code == 0 && stat(out->data, &st) == 0;
    ng_progress_end(h, ok && st.st_size > 0, (uint64_t)st.st_size);
    ng_export_slots_release(slot);
    if (report_changed(j)) {
        refuse_changed(j->path, err);
    } else if (r->timed_out || !r->exited || r->exit_code != 0) {
        nsys_failed(j->path, r, timeout, err);
    } else if (!ok) {
        struct ng_buf tail = NG_BUF_INIT;
        ng_proc_tail_line(&r->err_tail, 3, &tail);
        ng_err_set(err, "nsys export of '%s' exited 0 but wrote no SQLite file%s%s", j->path,
                   tail.len ? ": " : "", tail.data);
        ng_buf_release(&tail);
    } else if (st.st_size == 0) {
        ng_err_set(err, "nsys export of '%s' exited 0 but wrote an empty SQLite file "
                   "(is the disk of '%s' full?)", j->path, dir);
    } else {
        ret = 0;
    }
out:
    ng_buf_release(&in_arg);
    ng_buf_release(&tmp_env);
    return ret;
}

/* Reads an export into p; on failure the error says which nsys made it and
 * what it said (e.g. an older nsys that half-read a newer report). */
static int read_export(struct job *j, const char *db, const struct ng_proc_result *r,
                       struct ng_err *err)
{
    int ret = ng_source_sqlite_read(j->p, db, j->path, j->opts, err);
    if (ret < 0 && r) {
        struct ng_buf tail = NG_BUF_INIT;
        ng_proc_tail_line(&r->err_tail, 2, &tail);
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (in the SQLite file that %s exported%s%s)",
                 j->nsys, tail.len ? "; nsys said: " : "", tail.data);
        ng_buf_release(&tail);
    }
    return ret;
}

/* The cache's filesystem ran out of room under nsys: say so, and export
 * again outside the cache (the cache only ever costs time). */
static int cache_was_full(struct job *j)
{
    if (!j->cache || ng_cache_free_bytes(j->cache) >= CACHE_FULL_BYTES)
        return 0;
    struct ng_err why;
    ng_err_set(&why, "export cache not used: the filesystem of '%s' is full; the report was "
               "exported outside it", j->cache->dir);
    note(j, &why);
    return 1;
}

/* One export and its first reading; a cache directory (j->cache) when the
 * cache is used, else $TMPDIR. */
static int export_into(struct job *j, struct ng_err *err)
{
    struct ng_export *e = j->e;
    struct ng_buf out = NG_BUF_INIT;
    struct ng_proc_result r;
    const char *dir;
    int ret;

    if (j->cache) {
        dir = e->work.dir;
    } else {
        if (make_tmp_dir(e, err) < 0)
            return -1;
        dir = e->tmp_dir;
    }
    ret = run_export(j, dir, &out, err, &r);
    if (ret == 0) {
        e->db = ng_xstrdup(out.data);
        e->rc = 0;
        ret = read_export(j, out.data, &r, err);
    }
    ng_proc_result_release(&r);
    if (ret < 0 && j->cache && cache_was_full(j)) {
        unlink(out.data);
        free(e->db);
        e->db = NULL;
        e->rc = -1;
        j->cache = NULL;
        reset_profile(j->p);
        ng_buf_release(&out);
        return export_into(j, err);
    }
    /* only an export that was read, of bytes that did not change, is kept */
    if (ret == 0 && j->cache && !report_changed(j)) {
        struct ng_err why;
        if (ng_cache_store(j->cache, j->key.data, out.data, &why) == 1)
            note(j, &why);   /* stored, but not pruned */
    }
    ng_buf_release(&out);
    return ret;
}

/* A hit read into p: 1; a miss (or an entry that failed to read, now
 * dropped): 0. */
static int try_hit(struct job *j, struct ng_err *err)
{
    struct ng_buf db = NG_BUF_INIT;
    if (ng_cache_lookup(j->cache, &j->e->work, j->key.data, &db) != 1) {
        ng_buf_release(&db);
        return 0;
    }
    if (read_export(j, db.data, NULL, err) == 0) {
        j->e->db = ng_buf_detach(&db);
        j->e->rc = 0;
        return 1;
    }
    ng_cache_drop(j->cache, j->key.data, db.data);
    reset_profile(j->p);
    ng_buf_release(&db);
    return 0;
}

/* Whether the cache can serve this report: a usable directory, a version
 * to key by, a key of the open report's bytes, a work directory.  -1 only
 * for an error the export would hit too (nsys hung, the report changed). */
static int prepare_cache(struct job *j, struct ng_err *err)
{
    const struct ng_cache *c = j->opts ? j->opts->cache : NULL;
    struct ng_err why;

    if (!c || !c->dir)
        return 0;
    if (ng_cache_open(c, &why) < 0) {
        note(j, &why);
        return 0;
    }
    double t = j->opts->nsys_timeout > 0 ? j->opts->nsys_timeout : 120;
    int v = nsys_version(j->nsys, t, &j->version, err);
    if (v == 1)
        return -1;
    if (v < 0 || ng_cache_key(j->fd, j->version.data, &j->key, &why) < 0)
        return 0;
    if (report_changed(j))
        return refuse_changed(j->path, err);
    if (ng_cache_work_begin(c, &j->e->work, &why) < 0) {
        note(j, &why);
        return 0;
    }
    j->cache = c;
    return 0;
}

/* The owner's part: everything from opening the report to the first read. */
static int export_report(struct job *j, struct ng_err *err)
{
    struct ng_buf nsys = NG_BUF_INIT;
    int ret = -1, key_lock = -1;

    j->fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (j->fd < 0) {
        ng_err_set(err, "unable to open '%s': %s", j->path, strerror(errno));
        goto out;
    }
    if (fstat(j->fd, &j->st) < 0 || j->st.st_dev != j->e->dev || j->st.st_ino != j->e->ino) {
        refuse_changed(j->path, err);
        goto out;
    }
    if (find_nsys(j->opts && j->opts->nsys ? j->opts->nsys : "nsys", j->path, &nsys, err) < 0)
        goto out;
    j->nsys = nsys.data;
    if (prepare_cache(j, err) < 0)
        goto out;
    if (j->cache) {
        if (try_hit(j, err) == 1) {
            ret = 0;
            goto out;
        }
        /* gates that miss the same report at once: one exports, the others
         * wait for its lock and then hit */
        key_lock = ng_cache_lock(j->cache, j->key.data, j->opts->nsys_timeout);
        if (key_lock >= 0 && try_hit(j, err) == 1) {
            ret = 0;
            goto out;
        }
    }
    ret = export_into(j, err);
out:
    /* an export that failed fails every operand naming the report */
    if (j->e->rc < 0)
        j->e->err = *err;
    ng_cache_unlock(key_lock);
    if (j->fd >= 0)
        close(j->fd);
    ng_buf_release(&nsys);
    return ret;
}

static int nsysrep_load(struct ng_profile *p, const char *path,
                        const struct ng_source_opts *opts, struct ng_err *err)
{
    struct ng_exports *own = NULL, *run = opts ? opts->exports : NULL;
    struct ng_export *e;
    struct stat st;
    int ret;

    if (stat(path, &st) < 0)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
    if (!run)
        run = own = ng_exports_new();
    if (ng_exports_claim(run, st.st_dev, st.st_ino, &e)) {
        struct job j = { .run = run, .e = e, .p = p, .path = path, .opts = opts, .fd = -1 };
        ret = export_report(&j, err);
        ng_buf_release(&j.key);
        ng_buf_release(&j.version);
        ng_exports_done(run, e);
    } else if (e->rc < 0) {
        *err = e->err;
        ret = -1;
    } else {
        struct job j = { .run = run, .e = e, .p = p, .path = path, .opts = opts, .fd = -1,
                         .nsys = opts && opts->nsys ? opts->nsys : "nsys" };
        ret = read_export(&j, e->db, NULL, err);
    }
    ng_exports_free(own);
    return ret;
}

const struct ng_source_kind ng_source_nsysrep = {
    .format = NG_FORMAT_NSYS_REP,
    .magic = "NVIDIA Tegra Profiler Report",
    .magic_len = 28,
    .extensions = rep_exts,
    .load = nsysrep_load,
    .reads = ".nsys-rep reports (exported through nsys)",
};
