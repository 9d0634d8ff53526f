#include "sources/nsysrep/ng_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/ng_file.h"
#include "util/ng_signal.h"

#define SUB "exports"
#define SUM_FORMAT "nsys-gate cache entry 2"
#define HASH_HEX 32
#define VERSION_MAX 120
/* what a crash can leave without a lock to tell (a .fill directory before
 * its lock file is in place, a .sum whose export never came, a temporary
 * file): removed once this old */
#define STALE_S 3600

char *ng_cache_default_dir(const char **parent)
{
    struct ng_buf b = NG_BUF_INIT;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

    if (xdg && *xdg) {
        ng_buf_addf(&b, "%s/nsys-gate", xdg);
        *parent = xdg;
    } else if (home && *home) {
        ng_buf_addf(&b, "%s/.cache/nsys-gate", home);
        *parent = home;
    } else {
        return NULL;
    }
    return ng_buf_detach(&b);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int make_dir(const char *path, struct ng_err *why)
{
    if (mkdir(path, 0700) == 0 || (errno == EEXIST && is_dir(path)))
        return 0;
    int e = errno == EEXIST ? ENOTDIR : errno;
    return ng_err_set(why, "export cache not used: unable to create '%s': %s", path,
                      strerror(e));
}

/* The directory c->dir is made in: c->parent, or dir's own parent. */
static void parent_of(const struct ng_cache *c, struct ng_buf *out)
{
    if (c->parent) {
        ng_buf_adds(out, c->parent);
        return;
    }
    size_t n = strlen(c->dir);
    while (n > 1 && c->dir[n - 1] == '/')
        n--;
    while (n > 0 && c->dir[n - 1] != '/')
        n--;
    while (n > 1 && c->dir[n - 1] == '/')
        n--;
    if (n == 0)
        ng_buf_adds(out, ".");
    else
        ng_buf_add(out, c->dir, n);
}

int ng_cache_open(const struct ng_cache *c, struct ng_err *why)
{
    struct ng_buf sub = NG_BUF_INIT, parent = NG_BUF_INIT, part = NG_BUF_INIT;
    int ret = 0;

    ng_buf_addf(&sub, "%s/" SUB, c->dir);
    if (is_dir(sub.data))
        goto out;
    parent_of(c, &parent);
    struct stat st;
    const char *problem = stat(parent.data, &st) < 0 ? strerror(errno)
                          : !S_ISDIR(st.st_mode)     ? "is not a directory"
                                                     : NULL;
    if (problem) {
        if (strcmp(problem, strerror(ENOENT)) == 0)
            problem = "does not exist";
        ret = ng_err_set(why, "export cache not used: '%s' %s, and the cache '%s' is not "
                         "created without it (set --cache-dir or NSYS_GATE_CACHE_DIR, or "
                         "--no-cache)", parent.data, problem, c->dir);
        goto out;
    }
    /* each directory below the parent, then exports/ */
    size_t from = strncmp(c->dir, parent.data, parent.len) == 0 ? parent.len : 0;
    for (size_t i = from + 1; ret == 0 && i <= sub.len; i++) {
        if (i < sub.len && sub.data[i] != '/')
            continue;
        part.len = 0;
        ng_buf_add(&part, sub.data, i);
        if (sub.data[i - 1] != '/')
            ret = make_dir(part.data, why);
    }
out:
    ng_buf_release(&sub);
    ng_buf_release(&parent);
    ng_buf_release(&part);
    return ret;
}

uint64_t ng_cache_free_bytes(const struct ng_cache *c)
{
    struct ng_buf sub = NG_BUF_INIT;
    struct statvfs v;
    uint64_t free_bytes = UINT64_MAX;

    ng_buf_addf(&sub, "%s/" SUB, c->dir);
    if (statvfs(sub.data, &v) == 0)
        free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
    ng_buf_release(&sub);
    return free_bytes;
}

/* XXH3-128 of everything fd holds, from offset 0 (pread: the caller's
 * offset is not moved).  1 MiB at a time: the hash runs at memory speed,
 * so this is the cost of reading the file once. */
static int hash_fd(int fd, const char *shown, char hex[HASH_HEX + 1], uint64_t *size,
                   struct ng_err *err)
{
    enum { CHUNK = 1 << 20 };
    XXH3_state_t *st = XXH3_createState();
    char *buf = ng_xmalloc(CHUNK);
    uint64_t off = 0;
    int ret = 0;

    if (!st) {
        free(buf);
        return ng_err_set(err, "out of memory hashing '%s'", shown);
    }
    XXH3_128bits_reset(st);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (;;) {
        ssize_t n = pread(fd, buf, CHUNK, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ret = ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        XXH3_128bits_update(st, buf, (size_t)n);
        off += (uint64_t)n;
    }
    if (ret == 0) {
        XXH128_canonical_t canon;
        XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(st));
        for (int i = 0; i < 16; i++)
            snprintf(hex + 2 * i, 3, "%02x", canon.digest[i]);
        if (size)
            *size = off;
    }
    XXH3_freeState(st);
    free(buf);
    return ret;
}

static int hash_path(const char *path, char hex[HASH_HEX + 1], uint64_t *size)
{
    struct ng_err ignored;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ret = hash_fd(fd, path, hex, size, &ignored);
    close(fd);
    return ret;
}

int ng_cache_key(int fd, const char *nsys_version, struct ng_buf *key, struct ng_err *err)
{
    char hex[HASH_HEX + 1];

    if (hash_fd(fd, "the report", hex, NULL, err) < 0)
        return -1;
    ng_buf_adds(key, hex);
    ng_buf_adds(key, "-");
    /* the version goes into a file name: keep only what is safe there */
    size_t n = 0;
    for (const char *p = nsys_version; *p && n < VERSION_MAX; p++, n++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
        ng_buf_add(key, ok ? &ch : "_", 1);
    }
    return 0;
}

/* "<32 lower-case hex>-...": a key of this format (the earlier one had 64) */
static int valid_key(const char *name, size_t len)
{
    if (len <= HASH_HEX + 1 || name[HASH_HEX] != '-')
        return 0;
    for (size_t i = 0; i < HASH_HEX; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return 1;
}

static void entry_path(const struct ng_cache *c, const char *key, const char *ext,
                       struct ng_buf *out)
{
    ng_buf_addf(out, "%s/" SUB "/%s%s", c->dir, key, ext);
}

/* ---- the work directory ---- */

int ng_cache_work_begin(const struct ng_cache *c, struct ng_cache_work *w, struct ng_err *err)
{
    struct ng_buf dir = NG_BUF_INIT, tmp = NG_BUF_INIT, lock = NG_BUF_INIT;

    memset(w, 0, sizeof *w);
    w->lock_fd = w->signal_slot = -1;
    ng_buf_addf(&dir, "%s/" SUB "/.fill.XXXXXX", c->dir);
    if (!mkdtemp(dir.data)) {
        ng_err_set(err, "unable to create a directory in the cache '%s': %s", c->dir,
                   strerror(errno));
        ng_buf_release(&dir);
        return -1;
    }
    w->signal_slot = ng_signal_add_tree(dir.data);
    /* The lock is taken before it has its name: a pruner that finds `lock`
     * and can lock it knows the directory's gate is gone. */
    ng_buf_addf(&tmp, "%s/lock.new", dir.data);
    ng_buf_addf(&lock, "%s/lock", dir.data);
    int fd = open(tmp.data, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) < 0 || rename(tmp.data, lock.data) < 0) {
        ng_err_set(err, "unable to lock a directory in the cache '%s': %s", c->dir,
                   strerror(errno));
        if (fd >= 0)
            close(fd);
        ng_signal_remove_tree(dir.data);
        ng_signal_forget(w->signal_slot);
        w->signal_slot = -1;
        ng_buf_release(&dir);
        ng_buf_release(&tmp);
        ng_buf_release(&lock);
        return -1;
    }
    w->lock_fd = fd;
    w->dir = ng_buf_detach(&dir);
    ng_buf_release(&tmp);
    ng_buf_release(&lock);
    return 0;
}

void ng_cache_work_end(struct ng_cache_work *w)
{
    if (!w->dir)
        return;
    ng_signal_remove_tree(w->dir);   /* still holding the lock */
    ng_signal_forget(w->signal_slot);
    close(w->lock_fd);
    free(w->dir);
    memset(w, 0, sizeof *w);
    w->lock_fd = w->signal_slot = -1;
}

/* ---- the .sum ---- */

struct sum {
    uint64_t size;
    long long mtime_ns;
    char hex[HASH_HEX + 1];
    dev_t dev;       /* of the .sum file itself, to remove only that one */
    ino_t ino;
};

static long long mtime_ns(const struct stat *st)
{
    return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int read_sum(const char *path, struct sum *s)
{
    char text[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;

    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    int ok = n > 0 && fstat(fd, &st) == 0;
    close(fd);
    if (!ok)
        return -1;
    text[n] = '\0';
    memset(s, 0, sizeof *s);
    if (sscanf(text, SUM_FORMAT "\nsize %" SCNu64 "\nmtime %lld\nxxh128 %32s\n", &s->size,
               &s->mtime_ns, s->hex) != 3 || strlen(s->hex) != HASH_HEX)
        return -1;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    return 0;
}

static int write_sum(const char *path, uint64_t size, long long mtime, const char *hex,
                     struct ng_err *err)
{
    struct ng_buf text = NG_BUF_INIT;
    ng_buf_addf(&text, SUM_FORMAT "\nsize %" PRIu64 "\nmtime %lld\nxxh128 %s\n", size, mtime,
                hex);
    int ret = ng_write_file_atomic(path, text.data, text.len, err);
    ng_buf_release(&text);
    return ret;
}

/* Unlinks path only if it still is the file (dev, ino): a name that a
 * concurrent fill has meanwhile pointed at a new file stays. */
static void unlink_if_same(const char *path, dev_t dev, ino_t ino)
{
    struct stat st;
    if (stat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
        unlink(path);
}

static void remove_entry(const struct ng_cache *c, const char *key, const struct stat *db,
                         const struct sum *sum)
{
    struct ng_buf p = NG_BUF_INIT;
    entry_path(c, key, ".sqlite", &p);
    if (db)
        unlink_if_same(p.data, db->st_dev, db->st_ino);
    else
        unlink(p.data);
    p.len = 0;
    entry_path(c, key, ".sum", &p);
    if (sum)
        unlink_if_same(p.data, sum->dev, sum->ino);
    else
        unlink(p.data);
    ng_buf_release(&p);
}

/* ---- lookup ---- */

int ng_cache_lookup(const struct ng_cache *c, const struct ng_cache_work *w, const char *key,
                    struct ng_buf *path)
{
    struct ng_buf db = NG_BUF_INIT, sum_path = NG_BUF_INIT, lnk = NG_BUF_INIT;
    struct sum want;
    struct stat st;
    int ret = 0;

    entry_path(c, key, ".sqlite", &db);
    entry_path(c, key, ".sum", &sum_path);
    ng_buf_addf(&lnk, "%s/entry.sqlite", w->dir);
    unlink(lnk.data);
    /* The .sum first, then the link: a pruner unlinks the export before its
     * .sum, so once both are had the pair is whole, and from the link on the
     * file is this reader's. */
    if (read_sum(sum_path.data, &want) < 0)
        goto out;   /* a miss (or no trustworthy sum: the export is never read) */
    if (link(db.data, lnk.data) < 0)
        goto out;   /* pruned, or never stored */
    if (stat(lnk.data, &st) < 0)
        goto corrupt;
    if ((uint64_t)st.st_size != want.size || mtime_ns(&st) != want.mtime_ns) {
        /* written to since, or restored by a CI cache with new times: only
         * the bytes can tell */
        char hex[HASH_HEX + 1];
        uint64_t size = 0;
        struct ng_err ignored;
        if (hash_path(lnk.data, hex, &size) < 0 || size != want.size ||
            strcmp(hex, want.hex) != 0)
            goto corrupt;
        if (write_sum(sum_path.data, want.size, mtime_ns(&st), want.hex, &ignored) < 0)
            goto corrupt;
    } else {
        utimensat(AT_FDCWD, sum_path.data, NULL, 0);   /* "used now", for pruning */
    }
    ng_buf_adds(path, lnk.data);
    ret = 1;
    goto out;
corrupt:
    remove_entry(c, key, &st, &want);
    unlink(lnk.data);
out:
    ng_buf_release(&db);
    ng_buf_release(&sum_path);
    ng_buf_release(&lnk);
    return ret;
}

void ng_cache_drop(const struct ng_cache *c, const char *key, const char *linked)
{
    struct stat st;
    struct sum s;
    struct ng_buf sum_path = NG_BUF_INIT;

    entry_path(c, key, ".sum", &sum_path);
    if (stat(linked, &st) == 0)
        remove_entry(c, key, &st, read_sum(sum_path.data, &s) == 0 ? &s : NULL);
    unlink(linked);
    ng_buf_release(&sum_path);
}

/* ---- the fill lock ---- */

int ng_cache_lock(const struct ng_cache *c, const char *key, double timeout_s)
{
    struct ng_buf p = NG_BUF_INIT;
    entry_path(c, key, ".lock", &p);
    int fd = open(p.data, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    ng_buf_release(&p);
    if (fd < 0)
        return -1;
    double deadline = timeout_s > 0 ? ng_monotonic() + timeout_s : 0;
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) ||
            (deadline > 0 && ng_monotonic() > deadline)) {
            close(fd);
            return -1;
        }
        struct timespec nap = { 0, 50 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
    return fd;
}

void ng_cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* ---- pruning ---- */

struct aged {
    char *key;
    time_t used;
    uint64_t size;
};

static int by_age(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

static int has_ext(const char *name, size_t len, const char *ext)
{
    size_t el = strlen(ext);
    return len > el && strcmp(name + len - el, ext) == 0;
}

/* A .fill directory no live gate holds: its lock can be taken (a killed
 * gate's lock went with it), or it never got one and is old. */
static void prune_fill(const char *root, const char *name, time_t now)
{
    struct ng_buf dir = NG_BUF_INIT, lock = NG_BUF_INIT;
    struct stat st;

    ng_buf_addf(&dir, "%s/%s", root, name);
    ng_buf_addf(&lock, "%s/lock", dir.data);
    int fd = open(lock.data, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            ng_signal_remove_tree(dir.data);
        close(fd);
    } else if (errno == ENOENT && stat(dir.data, &st) == 0 &&
               difftime(now, st.st_mtime) > STALE_S) {
        ng_signal_remove_tree(dir.data);
    }
    ng_buf_release(&dir);
    ng_buf_release(&lock);
}

/* One name in exports/: a fill directory or an old file is dealt with at
 * once; an entry of this format is added to e for the age and size rules. */
static void classify(const struct ng_cache *c, const char *root, const char *name, time_t now,
                     struct aged **e, size_t *n, uint64_t *total)
{
    size_t len = strlen(name);
    struct ng_buf p = NG_BUF_INIT, key = NG_BUF_INIT;
    struct stat st, sum_st;

    ng_buf_addf(&p, "%s/%s", root, name);
    if (strncmp(name, ".fill.", 6) == 0) {
        prune_fill(root, name, now);
    } else if (name[0] == '.') {
        if (stat(p.data, &st) == 0 && S_ISREG(st.st_mode) && difftime(now, st.st_mtime) > STALE_S)
            unlink(p.data);   /* a temporary file of a crashed write */
    } else if (!valid_key(name, len)) {
        if (has_ext(name, len, ".sqlite") || has_ext(name, len, ".sum") ||
            has_ext(name, len, ".lock"))
            unlink(p.data);   /* the earlier format: never read, so never kept */
    } else if (has_ext(name, len, ".sqlite")) {
        ng_buf_add(&key, name, len - 7);
        struct ng_buf sum = NG_BUF_INIT;
        entry_path(c, key.data, ".sum", &sum);
        if (stat(p.data, &st) == 0) {
            if (stat(sum.data, &sum_st) == 0) {
                *e = ng_xgrow(*e, *n, sizeof **e);
                (*e)[(*n)++] = (struct aged){ ng_buf_detach(&key), sum_st.st_mtime,
                                              (uint64_t)st.st_size };
                *total += (uint64_t)st.st_size;
            } else {
                unlink(p.data);   /* no sum: never a hit (a store writes the sum first) */
            }
        }
        ng_buf_release(&sum);
    } else if (has_ext(name, len, ".sum") || has_ext(name, len, ".lock")) {
        int is_sum = has_ext(name, len, ".sum");
        ng_buf_add(&key, name, len - (is_sum ? 4 : 5));
        struct ng_buf db = NG_BUF_INIT;
        entry_path(c, key.data, ".sqlite", &db);
        if (access(db.data, F_OK) != 0) {
            if (is_sum) {
                if (stat(p.data, &st) == 0 && difftime(now, st.st_mtime) > STALE_S)
                    unlink(p.data);   /* its export never came */
            } else {
                int fd = open(p.data, O_RDWR | O_CLOEXEC);
                if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
                    unlink(p.data);   /* nobody is filling it */
                if (fd >= 0)
                    close(fd);
            }
        }
        ng_buf_release(&db);
    }
    ng_buf_release(&p);
    ng_buf_release(&key);
}

/* Stale fill directories and earlier-format entries go; then entries over
 * the age limit, then the least recently used until under the size cap. */
static void prune(const struct ng_cache *c, const char *keep)
{
    struct ng_buf root = NG_BUF_INIT;
    struct aged *e = NULL;
    size_t n = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    DIR *d;
    struct dirent *de;

    ng_buf_addf(&root, "%s/" SUB, c->dir);
    d = opendir(root.data);
    while (d && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            classify(c, root.data, de->d_name, now, &e, &n, &total);
    }
    if (d)
        closedir(d);
    qsort(e, n, sizeof *e, by_age);
    for (size_t i = 0; i < n; i++) {
        int old = c->max_age_days > 0 && difftime(now, e[i].used) > c->max_age_days * 86400.0;
        int over = c->max_bytes > 0 && total > c->max_bytes;
        if ((old || over) && strcmp(e[i].key, keep) != 0) {
            /* the export before its sum (see ng_cache_lookup) */
            remove_entry(c, e[i].key, NULL, NULL);
            total -= e[i].size;
        }
        free(e[i].key);
    }
    free(e);
    ng_buf_release(&root);
}

/* ---- store ---- */

int ng_cache_store(const struct ng_cache *c, const char *key, const char *export_path,
                   struct ng_err *err)
{
    struct ng_buf db = NG_BUF_INIT, sum = NG_BUF_INIT, tmp = NG_BUF_INIT;
    char hex[HASH_HEX + 1];
    uint64_t size = 0;
    struct stat st;
    int ret = -1;

    entry_path(c, key, ".sqlite", &db);
    entry_path(c, key, ".sum", &sum);
    int fd = open(export_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0 || hash_fd(fd, export_path, hex, &size, err) < 0) {
        if (fd >= 0)
            close(fd);
        else
            ng_err_set(err, "unable to open '%s': %s", export_path, strerror(errno));
        goto out;
    }
    close(fd);
    /* the sum first: a reader that sees the new sum with an older export
     * finds them unequal and rebuilds, it never trusts a mismatch */
    if (write_sum(sum.data, size, mtime_ns(&st), hex, err) < 0)
        goto out;
    /* a second name in the work directory, renamed into place: the export
     * keeps its own name there for the run's other readers */
    ng_buf_addf(&tmp, "%s.stored", export_path);
    unlink(tmp.data);
    if (link(export_path, tmp.data) < 0 || rename(tmp.data, db.data) < 0) {
        ng_err_set(err, "unable to store '%s' in the cache: %s", db.data, strerror(errno));
        unlink(tmp.data);
        unlink(sum.data);
        goto out;
    }
    prune(c, key);
    ret = 0;
out:
    ng_buf_release(&db);
    ng_buf_release(&sum);
    ng_buf_release(&tmp);
    return ret;
}
