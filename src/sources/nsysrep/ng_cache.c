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

#include "util/ng_digest.h"
#include "util/ng_file.h"
#include "util/ng_signal.h"

#define SUB "exports"
#define SUM_FORMAT "nsys-gate cache entry 2"
#define HASH_HEX NG_DIGEST_HEX
#define VERSION_MAX 120
/* what a crash can leave without a lock to tell (a .fill directory before
 * its lock file is in place, a .sum whose export never came, a temporary
 * file): removed once this old */
#define STALE_S 3600
/* the Cache Directory Tagging specification (bford.info/cachedir): backup
 * tools skip a directory holding this file */
#define TAG_NAME "CACHEDIR.TAG"
#define TAG_TEXT "Signature: 8a477f597d28d172789f06886806bc55\n" \
                 "# This file is a cache directory tag created by nsys-gate (its export cache).\n" \
                 "# For information about cache directory tags, see https://bford.info/cachedir/\n"

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

/* A directory only this user can write, as ssh and gpg ask of theirs:
 * another local user who could write it (a cache made first under /tmp,
 * mode 0777) could replace an entry and its .sum, and the gate would read
 * that user's figures.  exports/ must be a directory itself, not a link. */
static int private_dir(const char *path, int follow, struct ng_err *why)
{
    struct stat st;
    if ((follow ? stat(path, &st) : lstat(path, &st)) < 0)
        return ng_err_set(why, "export cache not used: unable to use '%s': %s", path,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ng_err_set(why, "export cache not used: '%s' is not a directory", path);
    if (st.st_uid != geteuid())
        return ng_err_set(why, "export cache not used: '%s' is owned by another user (uid %u)",
                          path, (unsigned)st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return ng_err_set(why, "export cache not used: '%s' is writable by others (mode %04o)",
                          path, (unsigned)(st.st_mode & 07777));
    return 0;
}

/* exports/CACHEDIR.TAG, once: best effort (a cache without it still
 * works).  In exports/, the directory the cache owns, not in DIR: DIR may
 * be a project the user backs up (--cache-dir .). */
static void tag_dir(const struct ng_cache *c)
{
    struct ng_buf tag = NG_BUF_INIT;
    struct ng_err ignored;
    ng_buf_addf(&tag, "%s/" SUB "/" TAG_NAME, c->dir);
    if (access(tag.data, F_OK) != 0)
        (void)ng_write_file_atomic(tag.data, TAG_TEXT, strlen(TAG_TEXT), &ignored);
    ng_buf_release(&tag);
}

static int check_dirs(const struct ng_cache *c, const struct ng_buf *sub, struct ng_err *why)
{
    if (private_dir(c->dir, 1, why) < 0 || private_dir(sub->data, 0, why) < 0)
        return -1;
    tag_dir(c);
    return 0;
}

int ng_cache_open(const struct ng_cache *c, struct ng_err *why)
{
    struct ng_buf sub = NG_BUF_INIT, parent = NG_BUF_INIT, part = NG_BUF_INIT;
    int ret = 0;

    ng_buf_addf(&sub, "%s/" SUB, c->dir);
    if (is_dir(sub.data))
        goto check;
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
check:
    if (ret == 0)
        ret = check_dirs(c, &sub, why);
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

static int hash_path(const char *path, char hex[HASH_HEX + 1], uint64_t *size)
{
    struct ng_err ignored;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    int ret = ng_digest_fd(fd, path, hex, size, &ignored);
    ng_file_close(fd);   /* another thread's SQLite may be reading the entry */
    return ret;
}

static int version_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '-';
}

int ng_cache_key(int fd, const char *nsys_version, struct ng_buf *key, struct ng_err *err)
{
    char hex[HASH_HEX + 1];

    if (ng_digest_fd(fd, "the report", hex, NULL, err) < 0)
        return -1;
    ng_buf_adds(key, hex);
    ng_buf_adds(key, "-");
    /* the version goes into a file name: keep only what is safe there */
    size_t n = 0;
    for (const char *p = nsys_version; *p && n < VERSION_MAX; p++, n++) {
        char ch = *p;
        ng_buf_add(key, version_char(ch) ? &ch : "_", 1);
    }
    return 0;
}

/* name[0..len) is "<hex_len lower-case hex>-<version>", exactly as
 * ng_cache_key() makes one (32 hex digits; the earlier format's had 64). */
static int key_of_format(const char *name, size_t len, size_t hex_len)
{
    if (len <= hex_len + 1 || len > hex_len + 1 + VERSION_MAX || name[hex_len] != '-')
        return 0;
    for (size_t i = 0; i < hex_len; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    for (size_t i = hex_len + 1; i < len; i++)
        if (!version_char(name[i]) && name[i] != '_')   /* '_': what stands for the rest */
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
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;

    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    int ok = n > 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
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
    /* link(2) links a symlink itself: only a regular file is an entry */
    if (lstat(lnk.data, &st) < 0 || !S_ISREG(st.st_mode))
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
    int fd = open(p.data, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
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

/* What the cache makes in exports/, and nothing else is ever removed:
 * KEY.sqlite, KEY.sum and KEY.lock of its key format, the same of the
 * earlier format (never read, so removed), the temporary file of a .sum
 * being written (.KEY.sum.tmp.XXXXXX, .CACHEDIR.TAG.tmp.XXXXXX), its
 * CACHEDIR.TAG, and its .fill.XXXXXX directories. */
enum own { OWN_NONE, OWN_ENTRY, OWN_EARLIER, OWN_TEMP, OWN_FILL, OWN_TAG };

static int random_part(const char *p, size_t n)
{
    if (n != 6)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
              (p[i] >= '0' && p[i] <= '9')))
            return 0;
    return 1;
}

/* The length of name without its entry extension, or 0 when it has none. */
static size_t entry_base(const char *name, size_t len, int *is_sqlite)
{
    static const char *const exts[] = { ".sqlite", ".sum", ".lock" };
    for (size_t i = 0; i < 3; i++)
        if (has_ext(name, len, exts[i])) {
            *is_sqlite = i == 0;
            return len - strlen(exts[i]);
        }
    return 0;
}

static enum own own_name(const char *root, const char *name)
{
    size_t len = strlen(name), base;
    int is_sqlite = 0, want_dir = 0;
    enum own kind = OWN_NONE;
    struct ng_buf p = NG_BUF_INIT;
    struct stat st;

    if (strncmp(name, ".fill.", 6) == 0 && random_part(name + 6, len - 6)) {
        kind = OWN_FILL;
        want_dir = 1;
    } else if (strcmp(name, TAG_NAME) == 0) {
        kind = OWN_TAG;
    } else if (name[0] == '.' && len > 1 + 11 && strncmp(name + len - 11, ".tmp.", 5) == 0 &&
               random_part(name + len - 6, 6) &&
               ((len - 12 == strlen(TAG_NAME) && strncmp(name + 1, TAG_NAME, len - 12) == 0) ||
                (has_ext(name, len - 11, ".sum") &&
                 key_of_format(name + 1, len - 16, HASH_HEX)))) {
        kind = OWN_TEMP;
    } else if ((base = entry_base(name, len, &is_sqlite)) > 0) {
        kind = key_of_format(name, base, HASH_HEX) ? OWN_ENTRY
               : key_of_format(name, base, 64)     ? OWN_EARLIER
                                                   : OWN_NONE;
    }
    /* and of the kind it made: a file, or a fill directory (never a link) */
    ng_buf_addf(&p, "%s/%s", root, name);
    if (kind != OWN_NONE && lstat(p.data, &st) == 0 &&
        (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
        kind = OWN_NONE;   /* (gone meanwhile: nothing to refuse, nothing to do) */
    ng_buf_release(&p);
    return kind;
}

/* An entry of this format: a .sqlite is added to e for the age and size
 * rules; a .sum or .lock without its export is removed once nobody uses it. */
static void classify_entry(const struct ng_cache *c, const char *root, const char *name,
                           time_t now, struct aged **e, size_t *n, uint64_t *total)
{
    size_t len = strlen(name);
    struct ng_buf p = NG_BUF_INIT, key = NG_BUF_INIT;
    struct stat st, sum_st;

    ng_buf_addf(&p, "%s/%s", root, name);
    if (has_ext(name, len, ".sqlite")) {
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
    } else {
        int is_sum = has_ext(name, len, ".sum");
        ng_buf_add(&key, name, len - (is_sum ? 4 : 5));
        struct ng_buf db = NG_BUF_INIT;
        entry_path(c, key.data, ".sqlite", &db);
        if (access(db.data, F_OK) != 0) {
            if (is_sum) {
                if (stat(p.data, &st) == 0 && difftime(now, st.st_mtime) > STALE_S)
                    unlink(p.data);   /* its export never came */
            } else {
                int fd = open(p.data, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
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

static void classify(const struct ng_cache *c, const char *root, const char *name,
                     enum own kind, time_t now, struct aged **e, size_t *n, uint64_t *total)
{
    struct ng_buf p = NG_BUF_INIT;
    struct stat st;

    ng_buf_addf(&p, "%s/%s", root, name);
    if (kind == OWN_FILL)
        prune_fill(root, name, now);
    else if (kind == OWN_TEMP && lstat(p.data, &st) == 0 && difftime(now, st.st_mtime) > STALE_S)
        unlink(p.data);   /* a temporary file of a crashed write */
    else if (kind == OWN_EARLIER)
        unlink(p.data);   /* the earlier format: never read, so never kept */
    else if (kind == OWN_ENTRY)
        classify_entry(c, root, name, now, e, n, total);
    ng_buf_release(&p);
}

/* Stale fill directories and earlier-format entries go; then entries over
 * the age limit, then the least recently used until under the size cap.
 * Nothing at all when exports/ holds a name the cache did not make (it is
 * not only the cache's, e.g. --cache-dir pointed at a project): 1 with
 * why saying which. */
static int prune(const struct ng_cache *c, const char *keep, struct ng_err *why)
{
    struct ng_buf root = NG_BUF_INIT;
    struct aged *e = NULL;
    size_t n = 0, n_names = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    char **names = NULL;
    enum own *kinds = NULL;
    int foreign = 0;
    DIR *d;
    struct dirent *de;

    ng_buf_addf(&root, "%s/" SUB, c->dir);
    d = opendir(root.data);
    while (d && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        enum own kind = own_name(root.data, de->d_name);
        if (kind == OWN_NONE && !foreign) {
            foreign = 1;
            ng_err_set(why, "export cache '%s' not pruned: '%s/%s' was not made by the cache "
                       "(a cache directory holds only what nsys-gate puts there)", c->dir,
                       root.data, de->d_name);
        }
        names = ng_xgrow(names, n_names, sizeof *names);
        kinds = ng_xgrow(kinds, n_names, sizeof *kinds);
        kinds[n_names] = kind;
        names[n_names++] = ng_xstrdup(de->d_name);
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < n_names; i++) {
        if (!foreign)
            classify(c, root.data, names[i], kinds[i], now, &e, &n, &total);
        free(names[i]);
    }
    free(names);
    free(kinds);
    ng_sort(e, n, sizeof *e, by_age);
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
    return foreign;
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
    if (fd < 0 || fstat(fd, &st) < 0 || ng_digest_fd(fd, export_path, hex, &size, err) < 0) {
        if (fd >= 0)
            ng_file_close(fd);
        else
            ng_err_set(err, "unable to open '%s': %s", export_path, strerror(errno));
        goto out;
    }
    ng_file_close(fd);   /* another thread's SQLite may be reading the export */
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
    ret = prune(c, key, err);
out:
    ng_buf_release(&db);
    ng_buf_release(&sum);
    ng_buf_release(&tmp);
    return ret;
}
