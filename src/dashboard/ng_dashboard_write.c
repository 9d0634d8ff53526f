#include "dashboard/ng_dashboard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dashboard/ng_dashboard_changes.h"
#include "dashboard/ng_dashboard_pages.h"
#include "dashboard/ng_dashboard_read.h"
#include "util/ng_file.h"
#include "util/ng_oom.h"
#include "util/ng_signal.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

/* ---- the site on disk ---- */

static int write_error(const char *path, int e, struct ng_err *err)
{
    char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "unable to write '%s': %s", shown, strerror(e));
    free(shown);
    return -1;
}

/* dir/name opened with flags (mode 0666 when created), or -1 with errno. */
static int open_in(const char *dir, const char *name, int flags, char *path, size_t size)
{
    if (snprintf(path, size, "%s/%s", dir, name) >= (int)size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, flags | O_CLOEXEC, 0666);
}

/* A gate's page: g/SLUG.html. */
static void page_name(char *name, size_t size, const struct gate *g)
{
    snprintf(name, size, "%s.html", g->slug);
}

/* Writes b to dir/name and starts putting it on disk without waiting
 * (sync_file_range), so the disk works while the next pages are
 * rendered; sync_file() waits for it once every page is written. */
static int write_file(const char *dir, const char *name, const struct ng_buf *b,
                      struct ng_err *err)
{
    char path[PATH_MAX];
    int fd = open_in(dir, name, O_WRONLY | O_CREAT | O_EXCL, path, sizeof path);
    if (fd < 0 || ng_write_all(fd, b->data ? b->data : "", b->len) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return write_error(path, e, err);
    }
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    if (close(fd) < 0)
        return write_error(path, errno, err);
    return 0;
}

/* dir/name on disk (fsync), before the site is swapped in: a crash never
 * leaves a site whose pages are empty. */
static int sync_file(const char *dir, const char *name, struct ng_err *err)
{
    char path[PATH_MAX];
    int fd = open_in(dir, name, O_RDONLY, path, sizeof path);
    if (fd < 0 || fsync(fd) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return write_error(path, e, err);
    }
    close(fd);
    return 0;
}

/* The index and the gates' pages, rendered and written by the pool's
 * workers (the index first: the longest): each page is its own file, and
 * the failure reported is the first in that order. */
struct pages {
    const struct site *s;
    const char *top, *dir;     /* the site's directory, its g/ */
    pthread_mutex_t lock;      /* for bytes */
    size_t bytes;
};

static int write_page(void *ctx, size_t i, struct ng_err *err)
{
    struct pages *p = ctx;
    struct ng_buf b = NG_BUF_INIT;
    char name[96];
    int ret;

    ng_oom_doing("writing the dashboard's pages");
    if (i == 0) {
        ng_dash_index_page(&b, p->s);
        p->s->r->index_bytes = b.len;
        ret = write_file(p->top, "index.html", &b, err);
    } else {
        ng_dash_gate_page(&b, p->s, &p->s->gates[i - 1]);
        page_name(name, sizeof name, &p->s->gates[i - 1]);
        ret = write_file(p->dir, name, &b, err);
    }
    pthread_mutex_lock(&p->lock);
    p->bytes += b.len;
    pthread_mutex_unlock(&p->lock);
    ng_oom_doing(NULL);
    ng_buf_release(&b);
    return ret;
}

static int write_site(const struct site *s, const char *tmp, struct ng_err *err)
{
    struct ng_buf b = NG_BUF_INIT;
    char dir[PATH_MAX];

    if (snprintf(dir, sizeof dir, "%s/g", tmp) >= (int)sizeof dir || mkdir(dir, 0777) < 0)
        return ng_err_set(err, "unable to create '%s': %s", dir, strerror(errno));
    struct pages p = { .s = s, .top = tmp, .dir = dir, .lock = PTHREAD_MUTEX_INITIALIZER };
    int ret = ng_threads_run(s->o->jobs, s->n_gates + 1, write_page, &p, err);
    s->r->site_bytes = p.bytes;
    ng_buf_addf(&b, "A site written by %s dashboard; the command replaces this directory whole.\n",
                NG_TOOL_NAME);
    if (ret == 0)
        ret = write_file(tmp, MARKER, &b, err);
    ng_buf_release(&b);
    /* then every page on disk, most of them already there */
    if (ret == 0)
        ret = sync_file(tmp, "index.html", err);
    for (size_t i = 0; ret == 0 && i < s->n_gates; i++) {
        char name[96];
        page_name(name, sizeof name, &s->gates[i]);
        ret = sync_file(dir, name, err);
    }
    if (ret == 0)
        ret = sync_file(tmp, MARKER, err);
    return ret;
}

/* The directory the site replaces may be absent, empty or an earlier site. */
static int replaceable(const char *dir, const char *shown, struct ng_err *err)
{
    struct stat st;
    char marker[PATH_MAX];

    if (lstat(dir, &st) < 0)
        return errno == ENOENT ? 0 : ng_err_set(err, "unable to use '%s': %s", shown, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ng_err_set(err, "--output '%s' is not a directory", shown);
    if (snprintf(marker, sizeof marker, "%s/%s", dir, MARKER) < (int)sizeof marker &&
        access(marker, F_OK) == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return ng_err_set(err, "unable to open '%s': %s", shown, strerror(errno));
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    if (!empty)
        return ng_err_set(err, "refusing to replace '%s': it is not empty and not a dashboard "
                               "(no " MARKER " in it)", shown);
    return 0;
}

/* A history inside the directory would go with it. */
static int history_inside(const struct ng_dashboard_opts *o, const char *dir_key,
                          struct ng_err *err)
{
    size_t n = strlen(dir_key);

    for (size_t i = 0; i < o->n_histories; i++) {
        char *k = ng_file_key(o->histories[i]);
        int inside = strncmp(k, dir_key, n) == 0 && (k[n] == '/' || k[n] == '\0');
        free(k);
        if (inside) {
            char *h = ng_text_cleaned(o->histories[i], NG_TEXT_ESCAPE_CONTROLS);
            char *d = ng_text_cleaned(o->out_dir, NG_TEXT_ESCAPE_CONTROLS);
            ng_err_set(err, "the history '%s' is inside --output '%s', which is replaced whole; "
                            "keep the history outside it", h, d);
            free(h);
            free(d);
            return -1;
        }
    }
    return 0;
}

/* The new site takes the old one's place in one step where the
 * filesystem can swap two names; the old one is removed after. */
static int swap_in(const char *tmp, const char *dir, char *old, size_t old_size,
                   struct ng_err *err)
{
    if (rename(tmp, dir) == 0)
        return 0;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return ng_err_set(err, "unable to rename '%s' to '%s': %s", tmp, dir, strerror(errno));
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        snprintf(old, old_size, "%s", tmp);
        return 0;
    }
    if (snprintf(old, old_size, "%s.old", tmp) >= (int)old_size || rename(dir, old) < 0)
        return ng_err_set(err, "unable to move '%s' aside: %s", dir, strerror(errno));
    if (rename(tmp, dir) < 0) {
        int e = errno;
        (void)rename(old, dir);
        return ng_err_set(err, "unable to rename '%s' to '%s': %s", tmp, dir, strerror(e));
    }
    return 0;
}

/* A new site in its temporary directory beside the one it replaces. */
struct pending {
    char *dir;                 /* where it goes (--output, links followed) */
    char tmp[PATH_MAX];        /* where it is written; "" until it exists */
    int slot;                  /* tmp's in the signal cleanup */
    int lock_fd;               /* tmp itself, flocked while this run lives */
};

/* A leftover untouched this long is no run's that is creating it (a run
 * locks its directory right after making it). */
#define STALE_S 60

/* name is "<base>.tmp.XXXXXX" (mkdtemp's six) or that plus ".old" (the
 * old site moved aside, see swap_in()): 0, 1 (the first) or 2 (".old"). */
static int temp_site_name(const char *name, const char *base, size_t n)
{
    if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp.", 5) != 0)
        return 0;
    const char *r = name + n + 5;
    for (int i = 0; i < 6; i++)
        if (!((r[i] >= 'a' && r[i] <= 'z') || (r[i] >= 'A' && r[i] <= 'Z') ||
              (r[i] >= '0' && r[i] <= '9')))
            return 0;
    return r[6] == '\0' ? 1 : strcmp(r + 6, ".old") == 0 ? 2 : 0;
}

/* Whether the leftover at path (its kind from temp_site_name) is a killed
 * run's: ours, a directory, untouched for STALE_S, and no live run holds
 * its lock; an old site set aside only once its new one took its place
 * (no temporary site of that name is left). */
static int stale_site(const char *path, int kind, time_t now)
{
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        difftime(now, st.st_mtime) < STALE_S)
        return 0;
    if (kind == 2) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%.*s", (int)(strlen(path) - 4), path);
        return lstat(tmp, &st) < 0 && errno == ENOENT;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int free_lock = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0)
        close(fd);   /* the lock goes with it; removing takes a moment */
    return free_lock;
}

/* Removes the temporary sites beside dir that killed runs left (SIGKILL
 * runs no handler: a CI timeout, the OOM killer), as the export cache
 * prunes its killed fill directories.  Only this user's, only names of
 * the dashboard's making; nothing here is worth an error. */
static void prune_killed(const char *dir)
{
    const char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - dir) + (slash == dir) : 1,
             slash ? dir : ".");
    DIR *d = opendir(parent);
    if (!d)
        return;
    size_t n = strlen(base);
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int kind = temp_site_name(e->d_name, base, n);
        char path[PATH_MAX];
        if (!kind || snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path)
            continue;
        if (stale_site(path, kind, now))
            ng_signal_remove_tree(path);
    }
    closedir(d);
}

/* --output without its trailing slashes: "site/" names the directory
 * "site" (the temporary one beside it is "site.tmp.XXXXXX", not inside). */
static char *site_name(const char *out_dir)
{
    size_t n = strlen(out_dir);
    while (n > 1 && out_dir[n - 1] == '/')
        n--;
    char *name = ng_xmalloc(n + 1);
    memcpy(name, out_dir, n);
    name[n] = '\0';
    return name;
}

/* The site written at pd->tmp, removed on a signal until it is swapped in. */
static int stage(const struct site *s, struct pending *pd, struct ng_err *err)
{
    char *name = site_name(s->o->out_dir);
    char *key = ng_file_key(name);
    char *shown = ng_text_cleaned(s->o->out_dir, NG_TEXT_ESCAPE_CONTROLS);
    int ret = -1;

    pd->dir = ng_file_target_checked(name, "unable to resolve --output", err);
    free(name);
    if (!pd->dir)
        goto out;
    if (history_inside(s->o, key, err) < 0 || replaceable(pd->dir, shown, err) < 0)
        goto out;
    if (snprintf(pd->tmp, sizeof pd->tmp, "%s.tmp.XXXXXX", pd->dir) >= (int)sizeof pd->tmp) {
        pd->tmp[0] = '\0';
        ng_err_set(err, "--output '%s' is too long", shown);
        goto out;
    }
    prune_killed(pd->dir);
    if (!mkdtemp(pd->tmp)) {
        pd->tmp[0] = '\0';
        ng_err_set(err, "unable to create a directory beside '%s': %s", shown, strerror(errno));
        goto out;
    }
    pd->slot = ng_signal_add_tree(pd->tmp);
    /* held until the run ends: a later run prunes it only once it is free */
    pd->lock_fd = open(pd->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pd->lock_fd >= 0)
        (void)flock(pd->lock_fd, LOCK_EX | LOCK_NB);
    mode_t mask = umask(0);
    umask(mask);
    (void)chmod(pd->tmp, 0777 & ~mask);
    ret = write_site(s, pd->tmp, err);
out:
    free(shown);
    free(key);
    return ret;
}

/* The staged site swapped in (ok) or removed.  Nothing is left to do
 * after the swap but to report it, so a signal after it finds the run
 * done: the memory of the site is given back before. */
static int settle(struct pending *pd, int ok, struct ng_err *err)
{
    char old[PATH_MAX] = "";
    int ret = ok ? 0 : -1;

    if (pd->tmp[0]) {
        /* no signal between the renames: it would remove the site that is
         * at the temporary name by then */
        sigset_t saved;
        ng_signal_hold(&saved);
        if (ok)
            ret = swap_in(pd->tmp, pd->dir, old, sizeof old, err);
        if (ret < 0 || old[0])
            ng_signal_remove_tree(ret == 0 ? old : pd->tmp);
        ng_signal_forget(pd->slot);
        ng_signal_resume(&saved);
    }
    if (pd->lock_fd >= 0)
        close(pd->lock_fd);
    free(pd->dir);
    return ret;
}

int ng_dashboard_build(const struct ng_dashboard_opts *o, struct ng_dashboard_result *r,
                       struct ng_err *err)
{
    struct site s = { .o = o, .names = NG_STRMAP_INIT, .strings = NG_ARENA_INIT, .r = r,
                      .now = ng_util_report_time() };
    struct pending pd = { .dir = NULL, .tmp = "", .slot = -1, .lock_fd = -1 };

    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < NG_DASHBOARD_MAX_HISTORIES; i++)
        s.fds[i] = -1;
    r->files = o->n_histories;
    int ret = ng_dash_read(&s, err);
    if (ret == 0) {
        ng_dash_order(&s);
        r->gates = s.n_gates;
        r->runs = s.runs;
        ret = ng_dash_changes(&s, err);
    }
    if (ret == 0) {
        r->changes = s.n_changes;
        ret = stage(&s, &pd, err);
    }
    ng_dash_site_release(&s);
    return settle(&pd, ret == 0, err);
}

void ng_dashboard_result_release(struct ng_dashboard_result *r)
{
    ng_strv_free(&r->warnings, &r->n_warnings);
    memset(r, 0, sizeof *r);
}
