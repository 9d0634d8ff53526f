#include "util/ng_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/ng_signal.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

#define MAX_LINKS 40

/* "d/name" -> "d" (a fresh string); "name" -> NULL; "/name" -> "/". */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    return ng_xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* The kernel's rule for sticky directories (fs.protected_symlinks): a
 * link in a sticky, world-writable directory is followed only when this
 * user or the directory's owner owns it.  Else *owner is the link's. */
static int foreign_sticky_link(const char *link, const struct stat *lst, uid_t *owner)
{
    char *dir = dir_of(link);
    struct stat dst;
    int bad = stat(dir ? dir : ".", &dst) == 0 && (dst.st_mode & S_ISVTX) &&
              (dst.st_mode & S_IWOTH) && lst->st_uid != geteuid() &&
              lst->st_uid != dst.st_uid;
    free(dir);
    *owner = lst->st_uid;
    return bad;
}

/* ng_file_target(), and the link it refused to follow: NULL with errno
 * EACCES and *refused (freed by the caller) the link's path. */
static char *resolve(const char *path, char **refused, uid_t *owner)
{
    char *cur = ng_xstrdup(path);

    *refused = NULL;
    for (int hops = 0; hops <= MAX_LINKS; hops++) {
        struct stat st;
        char link[PATH_MAX];
        ssize_t n;

        if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode) ||
            (n = readlink(cur, link, sizeof link - 1)) <= 0)
            return cur;
        if (foreign_sticky_link(cur, &st, owner)) {
            *refused = cur;
            errno = EACCES;
            return NULL;
        }
        link[n] = '\0';
        char *dir = link[0] == '/' ? NULL : dir_of(cur);
        struct ng_buf next = NG_BUF_INIT;
        if (dir)
            ng_buf_addf(&next, "%s/%s", dir, link);
        else
            ng_buf_adds(&next, link);
        free(dir);
        free(cur);
        cur = ng_buf_detach(&next);
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

char *ng_file_target(const char *path)
{
    char *refused;
    uid_t owner;
    char *target = resolve(path, &refused, &owner);
    free(refused);
    return target;
}

char *ng_file_target_checked(const char *path, const char *how, struct ng_err *err)
{
    char *refused;
    uid_t owner;
    char *target = resolve(path, &refused, &owner);
    if (target)
        return target;
    char *shown = ng_text_cleaned(refused ? refused : path, NG_TEXT_ESCAPE_CONTROLS);
    if (refused)
        ng_err_set(err, "refusing to follow '%s': a symlink of another user (uid %u) in a "
                   "sticky, world-writable directory it does not own (the kernel's "
                   "protected_symlinks rule)", shown, (unsigned)owner);
    else
        ng_err_set(err, "%s '%s': %s", how, shown, strerror(errno));
    free(shown);
    free(refused);
    return NULL;
}

char *ng_file_key(const char *path)
{
    char *target = ng_file_target(path);
    if (!target)
        return ng_xstrdup(path);
    char *dir = dir_of(target);
    const char *base = dir ? strrchr(target, '/') + 1 : target;
    char *real = realpath(dir ? dir : ".", NULL);
    struct ng_buf key = NG_BUF_INIT;

    if (real)
        ng_buf_addf(&key, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    else
        ng_buf_adds(&key, target);   /* no such directory: it cannot be written anyway */
    free(real);
    free(dir);
    free(target);
    return ng_buf_detach(&key);
}

/* ---- appending ---- */

/* Opens the file to append to; *created when this call made it.  A
 * regular file is opened for reading too where it allows it, to see its
 * last byte; anything else write-only and without blocking, so a FIFO
 * that nothing reads is ENXIO rather than a hang (read-write, the gate
 * would be its own reader). */
/* target is resolved (ng_file_target()): a link that appears there since
 * is not followed (O_NOFOLLOW), as the kernel would not follow it for us. */
static int open_append(const char *target, int *created)
{
    const int flags = O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
    struct stat st;

    *created = 0;
    for (;;) {
        int regular = stat(target, &st) == 0 && S_ISREG(st.st_mode);
        int fd = open(target, (regular ? O_RDWR : O_WRONLY) | flags);
        if (fd < 0 && regular && errno == EACCES)
            fd = open(target, O_WRONLY | flags);
        if (fd >= 0 || errno != ENOENT)
            return fd;
        fd = open(target, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
                  0666);
        if (fd >= 0) {
            *created = 1;
            return fd;
        }
        if (errno != EEXIST)   /* EEXIST: another writer made it first; open that one */
            return -1;
    }
}

static int append_error(struct ng_err *err, const char *path, int e)
{
    if (e == ENXIO)
        return ng_err_set(err, "unable to append to '%s': a FIFO that nothing reads", path);
    return ng_err_set(err, "unable to append to '%s': %s", path, strerror(e));
}

/* Not a regular file: nothing to lock or cut back; written as it comes.
 * EPIPE on a stream (/dev/stdout whose reader went away) ends it. */
static int append_in_place(int fd, const char *path, const char *data, size_t len,
                           struct ng_err *err)
{
    int flags = fcntl(fd, F_GETFL), e = 0;

    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        ng_write_all(fd, data, len) < 0)
        e = errno;
    close(fd);
    if (e == 0 || (e == EPIPE && ng_path_names_stream(path)))
        return 0;
    return append_error(err, path, e);
}

/* The locked descriptor must still be the file at the path: a writer that
 * created it and failed removes it again, and a writer that opened it
 * before that must not append to the removed file. */
static int still_there(int fd, const char *target)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(target, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino && a.st_nlink > 0;
}

/* Under the lock, fatal signals held: the bytes go in whole, or the file
 * is cut back to `start`.  Returns 0, or the errno of the failure. */
static int append_locked(int fd, const char *data, size_t len, off_t start)
{
    char last = '\n';
    int e = 0;

    if (start > 0 && pread(fd, &last, 1, start - 1) != 1)
        last = '\n';   /* not readable: nothing to tell */
    if (last != '\n' && ng_write_all(fd, "\n", 1) < 0)
        e = errno;
    if (e == 0 && ng_write_all(fd, data, len) < 0)
        e = errno;
    if (e == 0 && fdatasync(fd) < 0 && errno != EINVAL)   /* a late ENOSPC (NFS) */
        e = errno;
    if (e != 0 && ftruncate(fd, start) < 0)
        return -errno;   /* negative: the rollback failed too */
    return e;
}

int ng_file_lock(int fd, int op)
{
    double deadline = ng_monotonic() + NG_FILE_LOCK_WAIT_S;
    long nap_us = 1000;

    /* polled, not a blocking flock() under an alarm: a signal handler of
     * our own would be one more thing every thread has to be ready for */
    for (;;) {
        if (flock(fd, op | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return 0;   /* no locks here (ENOLCK, EINVAL): used as is */
        if (ng_monotonic() >= deadline) {
            errno = EWOULDBLOCK;
            return -1;
        }
        struct timespec nap = { 0, nap_us * 1000 };
        nanosleep(&nap, NULL);
        nap_us = nap_us < 64000 ? nap_us * 2 : nap_us;
    }
}

int ng_file_locked_error(struct ng_err *err, const char *how, const char *path)
{
    char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_set(err, "%s'%s': it is locked by another process (gave up after %d s)", how, shown,
               NG_FILE_LOCK_WAIT_S);
    free(shown);
    return -1;
}

int ng_file_append(const char *path, const char *data, size_t len, struct ng_err *err)
{
    char *target = ng_file_target_checked(path, "unable to append to", err);
    int fd, created, e;
    struct stat st;

    if (!target)
        return -1;
    for (;;) {
        if ((fd = open_append(target, &created)) < 0) {
            e = errno;
            free(target);
            return append_error(err, path, e);
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || ng_path_names_stream(path)) {
            free(target);
            return append_in_place(fd, path, data, len, err);
        }
        if (ng_file_lock(fd, LOCK_EX) < 0) {
            close(fd);
            free(target);
            return ng_file_locked_error(err, "unable to append to ", path);
        }
        if (still_there(fd, target))
            break;
        close(fd);
    }

    sigset_t held;
    ng_signal_hold(&held);
    off_t start = lseek(fd, 0, SEEK_END);
    e = start < 0 ? errno : append_locked(fd, data, len, start);
    if (e != 0 && created && start == 0)
        unlink(target);   /* under the lock: a writer waiting on it opens afresh */
    ng_signal_resume(&held);
    close(fd);   /* the data is on disk (fdatasync): a late close error changes nothing */
    free(target);
    if (e < 0)
        return ng_err_set(err, "unable to append to '%s': %s; it could not be cut back to "
                               "%lld bytes", path, strerror(-e), (long long)start);
    if (e > 0)
        return ng_err_set(err, "unable to append to '%s': %s; the file is left as it was",
                          path, strerror(e));
    return 0;
}

/* ---- reading a file in place ---- */

/* Per thread: where a fault on a map goes (the guarded call running on
 * it), and the window it mapped last, the one such a fault must be in. */
static __thread sigjmp_buf *guard;
static __thread const char *window_lo, *window_hi;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static long page_size;

/* A SIGBUS is the end of a guarded call only when the kernel raised it
 * for a read of this thread's window (BUS_ADRERR: a page past the file's
 * end).  Any other, a kill -BUS among them, is what it would be without
 * this handler: the default action.  A jump from anywhere else could
 * leave a lock or malloc's state half changed. */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
    const char *at = si ? (const char *)si->si_addr : NULL;
    (void)uc;
    if (guard && si && si->si_code == BUS_ADRERR && at >= window_lo && at < window_hi)
        siglongjmp(*guard, 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_guard(void)
{
    struct sigaction sa;
    long p = sysconf(_SC_PAGESIZE);
    page_size = p > 0 ? p : 4096;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

int ng_file_map(int fd, unsigned long long offset, size_t len, struct ng_file_window *w)
{
    pthread_once(&guard_once, install_guard);
    unsigned long long base = offset - offset % (unsigned long long)page_size;
    size_t lead = (size_t)(offset - base);

    memset(w, 0, sizeof *w);
    if (len == 0) {
        errno = EINVAL;
        return -1;
    }
    void *m = mmap(NULL, len + lead, PROT_READ, MAP_SHARED, fd, (off_t)base);
    if (m == MAP_FAILED)
        return -1;
    *w = (struct ng_file_window){ (const char *)m + lead, len, m };
    window_lo = m;
    window_hi = (const char *)m + len + lead;
    return 0;
}

void ng_file_unmap(struct ng_file_window *w)
{
    if (w->base) {
        if (window_lo == w->base)
            window_lo = window_hi = NULL;
        munmap(w->base, w->len + (size_t)(w->data - (const char *)w->base));
    }
    memset(w, 0, sizeof *w);
}

int ng_file_guarded(void (*fn)(void *), void *arg)
{
    sigjmp_buf here;
    sigjmp_buf *outer = guard;   /* a guarded call inside another */

    if (sigsetjmp(here, 1)) {
        guard = outer;
        return -1;
    }
    guard = &here;
    fn(arg);
    guard = outer;
    return 0;
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    (void)fsync(fd);
    close(fd);
    return 0;
}
int ng_write_all(int fd, const void *buf, size_t len)
{
    const char *data = buf;

    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {   /* nothing written and no error: do not spin */
            errno = EIO;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}
/* A FIFO, a terminal, /dev/null: nothing to replace atomically, and a
 * rename over the name would break it for everyone after.  Written in
 * place; O_NONBLOCK on open so a FIFO nobody reads is an error (ENXIO),
 * not a hang.  `extra` is O_APPEND for a stream name (below). */
static int write_in_place(const char *path, const char *data, size_t len, int extra,
                          struct ng_err *err)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | extra);
    int saved;

    if (fd < 0 && errno == ENXIO)
        return ng_err_set(err, "unable to write '%s': a FIFO that nothing reads", path);
    if (fd < 0)
        return ng_err_set(err, "unable to write '%s': %s", path, strerror(errno));
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        ng_write_all(fd, data, len) < 0) {
        saved = errno;
        close(fd);
        /* /dev/stdout whose reader went away: the end of that stream */
        if (saved == EPIPE && (extra & O_APPEND))
            return 0;
        return ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
    }
    close(fd);
    return 0;
}
static int is_stream_name(const char *p)
{
    return strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/stderr") == 0 ||
           strncmp(p, "/dev/fd/", 8) == 0 || (strncmp(p, "/proc/", 6) == 0 && strstr(p, "/fd/"));
}
/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a symlink to
 * one: the name of an open stream, even when that stream is a regular
 * file (a CI log).  Renaming over it would replace the name itself (run
 * as root, /dev/stdout would become a plain file for everyone after). */
int ng_path_names_stream(const char *path)
{
    char target[256];
    ssize_t n = readlink(path, target, sizeof target - 1);

    if (n > 0) {
        target[n] = '\0';
        if (is_stream_name(target))
            return 1;
    }
    return is_stream_name(path);
}
int ng_write_file_atomic(const char *path, const char *data, size_t len,
                         struct ng_err *err)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return ng_err_set(err, "unable to write to standard output: %s",
                              strerror(errno));
        return 0;
    }
    struct stat st;
    if (ng_path_names_stream(path))   /* appended, as to the stream itself */
        return write_in_place(path, data, len, O_APPEND, err);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_in_place(path, data, len, 0, err);
    /* (rename() onto "." says "Device or resource busy") */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return ng_err_set(err, "unable to write '%s': it is a directory (give a file name)",
                          path);

    /* A symlink stays a link: the report replaces its target.  The
     * temporary file lives beside the target so rename() is atomic. */
    char *target = ng_file_target_checked(path, "unable to write", err);
    if (!target)
        return -1;
    const char *slash = strrchr(target, '/');
    char *dir = slash ? ng_xstrndup(target, slash == target ? 1 : (size_t)(slash - target))
                      : ng_xstrdup(".");
    const char *base = slash ? slash + 1 : target;
    struct ng_buf tmp = NG_BUF_INIT;
    int fd, saved, ret = 0;

    if (*base == '\0') {
        free(dir);
        free(target);
        return ng_err_set(err, "unable to write '%s': not a file name", path);
    }
    ng_buf_addf(&tmp, "%s/.%s.tmp.XXXXXX", dir, base);
    /* a fatal signal from here on removes the temporary file: it is
     * registered before a signal can find it unregistered */
    sigset_t held;
    ng_signal_hold(&held);
    fd = mkstemp(tmp.data);
    int slot = fd >= 0 ? ng_signal_add_file(tmp.data) : -1;
    saved = errno;
    ng_signal_resume(&held);
    if (fd < 0) {
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
        goto out;
    }
    /* mkstemp makes 0600; reports are ordinary files that CI uploads */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    if (ng_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
        saved = errno;
        close(fd);
        unlink(tmp.data);
        ng_signal_forget(slot);
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
        goto out;
    }
    ng_signal_hold(&held);   /* renamed and released as one step */
    if (close(fd) < 0 || rename(tmp.data, target) < 0) {
        saved = errno;
        unlink(tmp.data);
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
    }
    ng_signal_forget(slot);
    ng_signal_resume(&held);
    if (ret == 0)
        (void)fsync_dir(dir);
out:
    ng_buf_release(&tmp);
    free(dir);
    free(target);
    return ret;
}

int ng_file_stat_changed(const struct stat *a, const struct stat *b)
{
    return a->st_dev != b->st_dev || a->st_ino != b->st_ino || a->st_size != b->st_size ||
           a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec ||
           a->st_ctim.tv_sec != b->st_ctim.tv_sec || a->st_ctim.tv_nsec != b->st_ctim.tv_nsec;
}

void ng_file_guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        /* open() takes the lowest free number: fd itself, since the ones
         * below it are open by now.  Kept open for the whole run. */
        (void)open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    }
}

/* ---- descriptors kept while SQLite locks their file ---- */

struct held_file {
    dev_t dev;
    ino_t ino;
    size_t holds;
    int *fds;          /* closes put off until holds is 0 */
    size_t n_fds;
};

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held_file *held;
static size_t n_held;

static struct held_file *held_find(dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < n_held; i++)
        if (held[i].dev == dev && held[i].ino == ino)
            return &held[i];
    return NULL;
}

void ng_file_hold(int fd, struct ng_file_id *id)
{
    struct stat st;

    id->held = fd >= 0 && fstat(fd, &st) == 0;
    if (!id->held)
        return;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    pthread_mutex_lock(&held_lock);
    struct held_file *h = held_find(id->dev, id->ino);
    if (!h) {
        held = ng_xrealloc(held, (n_held + 1) * sizeof *held);
        h = &held[n_held++];
        memset(h, 0, sizeof *h);
        h->dev = id->dev;
        h->ino = id->ino;
    }
    h->holds++;
    pthread_mutex_unlock(&held_lock);
}

void ng_file_unhold(struct ng_file_id *id)
{
    int *fds = NULL;
    size_t n = 0;

    if (!id->held)
        return;
    id->held = 0;
    pthread_mutex_lock(&held_lock);
    struct held_file *h = held_find(id->dev, id->ino);
    if (h && --h->holds == 0) {
        fds = h->fds;
        n = h->n_fds;
        *h = held[--n_held];
        if (n_held == 0) {
            free(held);
            held = NULL;
        }
    }
    pthread_mutex_unlock(&held_lock);
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    free(fds);
}

void ng_file_close(int fd)
{
    struct stat st;

    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0) {
        pthread_mutex_lock(&held_lock);
        struct held_file *h = held_find(st.st_dev, st.st_ino);
        if (h) {
            h->fds = ng_xgrow(h->fds, h->n_fds, sizeof *h->fds);
            h->fds[h->n_fds++] = fd;
        }
        pthread_mutex_unlock(&held_lock);
        if (h)
            return;
    }
    close(fd);
}
