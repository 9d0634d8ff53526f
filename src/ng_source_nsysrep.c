/* The .nsys-rep / .qdrep backend: exports the report with the user's nsys
 * into a private temporary directory, reads the export with the SQLite
 * backend, and removes the directory.  Nothing is written beside the
 * user's file (nsys stats would leave X.sqlite there).  No shell: argv
 * only, so any file name is safe. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ng_cache.h"
#include "ng_proc.h"
#include "ng_signal.h"
#include "ng_source_kind.h"
#include "ng_util.h"

#define EXPORT_NAME "export.sqlite"

static const char *const rep_exts[] = { ".nsys-rep", ".qdrep", NULL };

/* The private directory of the export in progress (one at a time). */
static char tmp_dir[PATH_MAX];
static char tmp_file[PATH_MAX + sizeof EXPORT_NAME + 1];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

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
                      "PATH; install Nsight Systems or set --nsys PATH / NSYS_GATE_NSYS",
                      input, nsys);
}

/* The private directory nsys exports into: under $TMPDIR, or inside the
 * cache (scratch, non-NULL) so the export can be renamed into it. */
static int make_tmp_dir(const char *scratch, struct ng_err *err)
{
    if (scratch) {
        snprintf(tmp_dir, sizeof tmp_dir, "%s", scratch);
        snprintf(tmp_file, sizeof tmp_file, "%s/%s", tmp_dir, EXPORT_NAME);
        return 0;
    }
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int n = snprintf(tmp_dir, sizeof tmp_dir, "%s/nsys-gate.XXXXXX", base);
    if (n < 0 || (size_t)n >= sizeof tmp_dir - sizeof EXPORT_NAME - 1) {
        tmp_dir[0] = '\0';
        return ng_err_set(err, "unable to create a temporary directory in '%s': path too long",
                          base);
    }
    if (!mkdtemp(tmp_dir)) {   /* mode 0700 */
        int e = errno;
        tmp_dir[0] = '\0';
        return ng_err_set(err, "unable to create a temporary directory in '%s': %s "
                          "(set TMPDIR to a writable directory)", base, strerror(e));
    }
    snprintf(tmp_file, sizeof tmp_file, "%s/%s", tmp_dir, EXPORT_NAME);
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

/* Where to keep the export: the cache entry for key, or nowhere. */
struct keep {
    const struct ng_cache *cache;
    const char *key;
};

static int export_and_read(struct ng_profile *p, const char *nsys, const char *input,
                           const struct ng_source_opts *opts, const struct keep *keep,
                           struct ng_err *err)
{
    struct ng_buf in_arg = NG_BUF_INIT, tmp_env = NG_BUF_INIT;
    struct ng_proc_result r;
    int ret = -1;

    /* a name starting with '-' must not read as an option */
    if (input[0] == '-')
        ng_buf_adds(&in_arg, "./");
    ng_buf_adds(&in_arg, input);
    /* nsys's own scratch files land in the private directory too */
    ng_buf_addf(&tmp_env, "TMPDIR=%s", tmp_dir);
    const char *argv[] = {
        nsys, "export", "--type", "sqlite", "--force-overwrite=true",
        "--output", tmp_file, in_arg.data, NULL,
    };
    const char *env[] = { tmp_env.data, NULL };

    double timeout = opts ? opts->nsys_timeout : 0;

    if (ng_proc_run(argv, env, timeout, &r, err) < 0)
        goto out;
    if (r.timed_out || !r.exited || r.exit_code != 0) {
        nsys_failed(input, &r, timeout, err);
        ng_proc_result_release(&r);
        goto out;
    }
    if (access(tmp_file, R_OK) != 0) {
        struct ng_buf tail = NG_BUF_INIT;
        ng_proc_tail_line(&r.err_tail, 3, &tail);
        ng_err_set(err, "nsys export of '%s' exited 0 but wrote no SQLite file%s%s", input,
                   tail.len ? ": " : "", tail.data);
        ng_buf_release(&tail);
        ng_proc_result_release(&r);
        goto out;
    }
    struct ng_buf stored = NG_BUF_INIT;
    struct ng_err ignored;
    const char *db = tmp_file;
    /* a cache that cannot take the export costs speed, not the verdict */
    if (keep && ng_cache_store(keep->cache, keep->key, tmp_file, &stored, &ignored) == 0)
        db = stored.data;
    ret = ng_sqlite_read(p, db, input, opts, err);
    ng_buf_release(&stored);
    if (ret < 0) {
        /* e.g. an older nsys that half-read a newer report: its words explain */
        struct ng_buf tail = NG_BUF_INIT;
        ng_proc_tail_line(&r.err_tail, 2, &tail);
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (in the SQLite file that %s exported%s%s)",
                 nsys, tail.len ? "; nsys said: " : "", tail.data);
        ng_buf_release(&tail);
    }
    ng_proc_result_release(&r);
out:
    ng_buf_release(&in_arg);
    ng_buf_release(&tmp_env);
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
    struct ng_proc_result r;
    struct ng_err ignored;

    if (ng_proc_run(argv, NULL, timeout, &r, &ignored) < 0)
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

/* One `nsys --version` per nsys per run: a pair of reports asks once.
 * Only called with one_export held, so the memo needs no lock of its own. */
static int nsys_version(const char *nsys, double timeout, struct ng_buf *out,
                        struct ng_err *err)
{
    static struct ng_buf memo_nsys = NG_BUF_INIT, memo_version = NG_BUF_INIT;

    if (memo_nsys.len && strcmp(memo_nsys.data, nsys) == 0) {
        ng_buf_add(out, memo_version.data, memo_version.len);
        return 0;
    }
    int ret = ask_nsys_version(nsys, timeout, out, err);
    if (ret == 0) {
        memo_nsys.len = memo_version.len = 0;
        ng_buf_adds(&memo_nsys, nsys);
        ng_buf_add(&memo_version, out->data, out->len);
    }
    return ret;
}

/* The cache entry for this report, if the cache is on and has it; else
 * a scratch directory in the cache to export into (scratch left empty
 * when the cache cannot be used). */
static int try_cache(struct ng_profile *p, const char *nsys, const char *path,
                     const struct ng_source_opts *opts, struct ng_buf *key,
                     struct ng_buf *scratch, struct ng_err *err)
{
    struct ng_buf version = NG_BUF_INIT, entry = NG_BUF_INIT;
    struct ng_err ignored;
    int hit = 0;
    int v = nsys_version(nsys, opts->nsys_timeout > 0 ? opts->nsys_timeout : 120, &version, err);

    if (v == 1) {
        ng_buf_release(&version);
        return -1;
    }
    if (v == 0 && ng_cache_key(path, version.data, key, &ignored) == 0) {
        if (ng_cache_lookup(opts->cache, key->data, &entry, &ignored) == 1) {
            hit = 1;
        } else if (ng_cache_scratch(opts->cache, scratch, &ignored) < 0) {
            ng_buf_release(scratch);
        }
    }
    ng_buf_release(&version);
    if (!hit) {
        ng_buf_release(&entry);
        return 0;
    }
    int ret = ng_sqlite_read(p, entry.data, path, opts, err);
    ng_buf_release(&entry);
    return ret < 0 ? -1 : 1;
}

/* One export at a time: the temporary directory the signal handler
 * removes is process-wide, and two nsys exports of big reports at once
 * would only fight over memory. */
static pthread_mutex_t one_export = PTHREAD_MUTEX_INITIALIZER;

static int nsysrep_load_locked(struct ng_profile *p, const char *path,
                               const struct ng_source_opts *opts, struct ng_err *err);

static int nsysrep_load(struct ng_profile *p, const char *path,
                        const struct ng_source_opts *opts, struct ng_err *err)
{
    pthread_mutex_lock(&one_export);
    int ret = nsysrep_load_locked(p, path, opts, err);
    pthread_mutex_unlock(&one_export);
    return ret;
}

static int nsysrep_load_locked(struct ng_profile *p, const char *path,
                               const struct ng_source_opts *opts, struct ng_err *err)
{
    struct ng_buf nsys = NG_BUF_INIT, key = NG_BUF_INIT, scratch = NG_BUF_INIT;
    int ret;

    if (find_nsys(opts && opts->nsys ? opts->nsys : "nsys", path, &nsys, err) < 0) {
        ng_buf_release(&nsys);
        return -1;
    }
    if (opts && opts->cache && opts->cache->dir) {
        ret = try_cache(p, nsys.data, path, opts, &key, &scratch, err);
        if (ret != 0) {
            ng_buf_release(&nsys);
            ng_buf_release(&key);
            return ret < 0 ? -1 : 0;
        }
    }
    if (make_tmp_dir(scratch.len ? scratch.data : NULL, err) < 0) {
        ng_buf_release(&nsys);
        ng_buf_release(&key);
        return -1;
    }
    struct keep keep = { opts ? opts->cache : NULL, key.data };
    /* a signal removes it, wherever the export or its reading is */
    int slot = ng_signal_add_tree(tmp_dir);
    ret = export_and_read(p, nsys.data, path, opts, scratch.len ? &keep : NULL, err);
    remove_tree(tmp_dir);
    ng_signal_forget(slot);
    tmp_dir[0] = tmp_file[0] = '\0';
    ng_buf_release(&nsys);
    ng_buf_release(&key);
    ng_buf_release(&scratch);
    return ret;
}

const struct ng_source_kind ng_source_nsysrep = {
    .format = NG_FORMAT_NSYS_REP,
    .magic = "NVIDIA Tegra Profiler Report",
    .magic_len = 28,
    .extensions = rep_exts,
    .load = nsysrep_load,
};
