#include "ng_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ng_sha256.h"

#define SUB "exports"

char *ng_cache_default_dir(void)
{
    struct ng_buf b = NG_BUF_INIT;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

    if (xdg && *xdg)
        ng_buf_addf(&b, "%s/nsys-gate", xdg);
    else if (home && *home)
        ng_buf_addf(&b, "%s/.cache/nsys-gate", home);
    else
        return NULL;
    return ng_buf_detach(&b);
}

int ng_cache_key(const char *report, const char *nsys_version, struct ng_buf *key,
                 struct ng_err *err)
{
    char hex[65];

    if (ng_sha256_file(report, hex, NULL, err) < 0)
        return -1;
    ng_buf_adds(key, hex);
    ng_buf_adds(key, "-");
    /* the version goes into a file name: keep only what is safe there */
    for (const char *p = nsys_version; *p; p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
        ng_buf_add(key, ok ? &ch : "_", 1);
    }
    return 0;
}

static int mkdir_p(const char *path, struct ng_err *err)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_adds(&b, path);
    for (char *p = b.data + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(b.data, 0700) < 0 && errno != EEXIST) {
                int e = errno;
                ng_err_set(err, "unable to create the cache directory '%s': %s", b.data,
                           strerror(e));
                ng_buf_release(&b);
                return -1;
            }
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    ng_buf_release(&b);
    return 0;
}

static void entry_paths(const struct ng_cache *c, const char *key, struct ng_buf *db,
                        struct ng_buf *sum)
{
    ng_buf_addf(db, "%s/" SUB "/%s.sqlite", c->dir, key);
    ng_buf_addf(sum, "%s/" SUB "/%s.sum", c->dir, key);
}

static void remove_entry(const char *db, const char *sum)
{
    unlink(db);
    unlink(sum);
}

int ng_cache_lookup(const struct ng_cache *c, const char *key, struct ng_buf *path,
                    struct ng_err *err)
{
    struct ng_buf db = NG_BUF_INIT, sum = NG_BUF_INIT;
    char want[65 + 32] = "", hex[65];
    uint64_t size = 0, want_size = 0;
    int ret = 0;
    FILE *f;

    (void)err;
    entry_paths(c, key, &db, &sum);
    f = fopen(sum.data, "re");
    if (!f)
        goto out;   /* a miss */
    if (fscanf(f, "%" SCNu64 " %64s", &want_size, want) != 2) {
        fclose(f);
        remove_entry(db.data, sum.data);
        goto out;
    }
    fclose(f);
    struct ng_err ignored;
    if (ng_sha256_file(db.data, hex, &size, &ignored) < 0 || size != want_size ||
        strcmp(hex, want) != 0) {
        remove_entry(db.data, sum.data);   /* corrupt or half-replaced: rebuild */
        goto out;
    }
    utimensat(AT_FDCWD, db.data, NULL, 0);   /* "used now", for pruning */
    ng_buf_adds(path, db.data);
    ret = 1;
out:
    ng_buf_release(&db);
    ng_buf_release(&sum);
    return ret;
}

int ng_cache_scratch(const struct ng_cache *c, struct ng_buf *dir, struct ng_err *err)
{
    struct ng_buf root = NG_BUF_INIT;
    ng_buf_addf(&root, "%s/" SUB, c->dir);
    if (mkdir_p(root.data, err) < 0) {
        ng_buf_release(&root);
        return -1;
    }
    ng_buf_addf(dir, "%s/.fill.XXXXXX", root.data);
    ng_buf_release(&root);
    if (!mkdtemp(dir->data))
        return ng_err_set(err, "unable to create a directory in the cache '%s': %s", c->dir,
                          strerror(errno));
    return 0;
}

struct aged {
    char *db;
    time_t used;
    uint64_t size;
};

static int by_age(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* Oldest use first: over the age limit goes, then until under the size cap. */
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
        size_t len = strlen(de->d_name);
        if (len < 8 || strcmp(de->d_name + len - 7, ".sqlite") != 0 || de->d_name[0] == '.')
            continue;
        struct ng_buf p = NG_BUF_INIT;
        struct stat st;
        ng_buf_addf(&p, "%s/%s", root.data, de->d_name);
        if (stat(p.data, &st) == 0) {
            e = ng_xrealloc(e, (n + 1) * sizeof *e);
            e[n++] = (struct aged){ ng_buf_detach(&p), st.st_mtime, (uint64_t)st.st_size };
            total += (uint64_t)st.st_size;
        }
        ng_buf_release(&p);
    }
    if (d)
        closedir(d);
    qsort(e, n, sizeof *e, by_age);
    for (size_t i = 0; i < n; i++) {
        int old = c->max_age_days > 0 && difftime(now, e[i].used) > c->max_age_days * 86400.0;
        int over = c->max_bytes > 0 && total > c->max_bytes;
        if ((old || over) && strcmp(e[i].db, keep) != 0) {
            struct ng_buf sum = NG_BUF_INIT;
            ng_buf_add(&sum, e[i].db, strlen(e[i].db) - 7);
            ng_buf_adds(&sum, ".sum");
            remove_entry(e[i].db, sum.data);
            ng_buf_release(&sum);
            total -= e[i].size;
        }
        free(e[i].db);
    }
    free(e);
    ng_buf_release(&root);
}

int ng_cache_store(const struct ng_cache *c, const char *key, const char *export_path,
                   struct ng_buf *path, struct ng_err *err)
{
    struct ng_buf db = NG_BUF_INIT, sum = NG_BUF_INIT, text = NG_BUF_INIT;
    char hex[65];
    uint64_t size;
    int ret = -1;

    entry_paths(c, key, &db, &sum);
    if (ng_sha256_file(export_path, hex, &size, err) < 0)
        goto out;
    ng_buf_addf(&text, "%" PRIu64 " %s\n", size, hex);
    /* the sum first: a reader that sees the new export with an old sum
     * rebuilds, it never trusts a mismatch */
    if (ng_write_file_atomic(sum.data, text.data, text.len, err) < 0)
        goto out;
    if (rename(export_path, db.data) < 0) {
        ng_err_set(err, "unable to store '%s' in the cache: %s", db.data, strerror(errno));
        unlink(sum.data);
        goto out;
    }
    ng_buf_adds(path, db.data);
    prune(c, db.data);
    ret = 0;
out:
    ng_buf_release(&db);
    ng_buf_release(&sum);
    ng_buf_release(&text);
    return ret;
}
