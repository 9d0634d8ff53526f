#include "run/ng_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ng_nvtx.h"
#include "core/ng_profile_merge.h"
#include "sources/ng_source.h"
#include "sources/nsysrep/ng_export_slots.h"
#include "sources/nsysrep/ng_exports.h"
#include "sources/summary/ng_summary_file.h"
#include "util/ng_digest.h"
#include "util/ng_file.h"
#include "util/ng_gzip.h"
#include "util/ng_oom.h"
#include "util/ng_threads.h"
#include "util/ng_util.h"

/* epoch 3, epoch=3, Epoch_3, EPOCH: 3, epoch-3, Epoch 3/10, epoch_3-rank_1:
 * the number is the group, so the ranks of one epoch add up. */
const char ng_read_auto_epoch_pattern[] =
    "^[[:space:]]*epoch[[:space:]]*[:=_-]?[[:space:]]*([0-9]+)"
    "([[:space:]]*/[[:space:]]*[0-9]+)?"
    "([[:space:]]*[-_,:]?[[:space:]]*rank[[:space:]]*[:=_-]?[[:space:]]*[0-9]+)?[[:space:]]*$";

static int compile_pattern(struct ng_read *r, const char *pattern, struct ng_err *err)
{
    const char *re = strcmp(pattern, "auto") == 0 ? ng_read_auto_epoch_pattern : pattern;
    if (ng_regex_compile(&r->epoch_re, re, REG_ICASE, NG_NVTX_TEXT_MAX, "--epoch-range",
                         err) < 0)
        return -1;
    r->have_re = 1;
    return 0;
}

int ng_read_setup(struct ng_read *r, const struct ng_settings *s, struct ng_err *err)
{
    const struct ng_policy *pol = &s->compare.policy;

    memset(r, 0, sizeof *r);
    if (s->epoch_range && compile_pattern(r, s->epoch_range, err) < 0)
        return -1;
    if (pol->n_kernels || pol->n_exclude) {
        if (ng_filter_init(&r->filter, pol->kernels, pol->n_kernels, pol->exclude,
                           pol->n_exclude, err) < 0)
            return -1;
        r->have_filter = 1;
    }
    if (ng_comm_init(&r->comm, pol->comm, pol->n_comm, err) < 0)
        return -1;
    r->have_comm = 1;
    r->opts = (struct ng_source_opts){
        .nsys = s->nsys,
        .work = s->compare.work,
        .nsys_timeout = s->nsys_timeout,
        .epoch_re = r->have_re ? &r->epoch_re : NULL,
        .epoch_pattern = s->epoch_range,
        .metric = s->compare.metric,
        .skip_epochs = s->compare.skip_epochs,
        .cache = s->cache.dir ? &s->cache : NULL,
        .filter = r->have_filter ? &r->filter : NULL,
        .comm = &r->comm,
        .comm_text = pol->comm,
        .n_comm_text = pol->n_comm,
        .base_names = pol->base_names,
        .item_samples = s->compare.nvtx && pol->kernel_threshold > 0,
        .sql_only = s->sql_only,
    };
    return 0;
}

void ng_read_note_formats(struct ng_profile *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct ng_err ignored;
        if (!p[i].loaded && p[i].format == NG_FORMAT_UNKNOWN)
            (void)ng_source_detect(p[i].path, &p[i].format, &ignored);
    }
}

int ng_read_slots_setup(long jobs, const char *const *paths, size_t n, int shared)
{
    uint64_t largest = 0;
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        enum ng_format f;
        struct ng_err ignored;
        struct stat st;
        if (ng_source_detect(paths[i], &f, &ignored) == 0 && f == NG_FORMAT_NSYS_REP &&
            stat(paths[i], &st) == 0) {
            any = 1;
            if ((uint64_t)st.st_size > largest)
                largest = (uint64_t)st.st_size;
        }
    }
    return any ? ng_export_slots_setup(ng_export_slots_count(jobs, largest), shared) : 0;
}

/* A job is one profile with its own error. */
struct loading {
    struct ng_profile *const *p;
    const struct ng_source_opts *opts;
};

static int load_named(struct ng_profile *p, const struct ng_source_opts *opts,
                      struct ng_err *err)
{
    ng_oom_doing("reading '%s'", p->path);   /* named if memory runs out */
    int rc = ng_source_load(p, opts, err);
    ng_oom_doing(NULL);
    return rc;
}

static int load_one(void *ctx, size_t i, struct ng_err *err)
{
    struct loading *l = ctx;
    return load_named(l->p[i], l->opts, err);
}

/* fn over the n items on the pool, the profiles `paths` (freed here)
 * within the run's export slots and sharing its exports (opts->exports,
 * r's). */
static int run_loads(struct ng_read *r, const char **paths, size_t n, long jobs,
                     struct ng_source_opts *opts, int (*fn)(void *, size_t, struct ng_err *),
                     void *ctx, struct ng_err *err)
{
    /* a batch's gate finds the batch's slots there already */
    int made_slots = ng_read_slots_setup(jobs, paths, n, 0) == 1;
    free(paths);
    ng_read_drop_exports(r);
    opts->exports = r->exports = ng_exports_new();
    int ret = ng_threads_run(jobs, n, fn, ctx, err);
    if (made_slots)
        ng_export_slots_teardown();
    return ret;
}

int ng_read_profiles(struct ng_read *r, struct ng_profile *const *p, size_t n, long jobs,
                     struct ng_err *err)
{
    const char **paths = ng_xcalloc(n ? n : 1, sizeof *paths);
    struct ng_source_opts opts = r->opts;
    struct loading l = { p, &opts };

    for (size_t i = 0; i < n; i++)
        paths[i] = p[i]->path;
    return run_loads(r, paths, n, jobs, &opts, load_one, &l, err);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* One file's digest; without blocking (a FIFO put in its place must not
 * hang the gate) and only of a regular file. */
static int digest_file(int dirfd, const char *name, const char *shown,
                       char hex[NG_DIGEST_HEX + 1], uint64_t *size, struct ng_err *err)
{
    struct stat st;
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    if (fd < 0)
        return ng_err_set(err, "unable to open '%s': %s", shown, strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ng_err_set(err, "'%s' is not a regular file", shown);
    }
    int ret = ng_digest_fd(fd, shown, hex, size, err);
    close(fd);
    return ret;
}

/* A profile's digest: a file's bytes, or for a directory (rocprofv3's CSV
 * files) each regular file's name and digest in name order, and *size the
 * bytes of them all. */
static int digest_path(const char *path, char hex[NG_DIGEST_HEX + 1], uint64_t *size,
                       struct ng_err *err)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return digest_file(AT_FDCWD, path, path, hex, size, err);

    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0)
        return ng_err_set(err, "unable to read the directory '%s': %s", path, strerror(errno));
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct ng_buf all = NG_BUF_INIT;
    int ret = dirfd < 0 ? ng_err_set(err, "unable to open '%s': %s", path, strerror(errno)) : 0;
    *size = 0;
    for (int i = 0; i < n; i++) {
        struct stat fst;
        const char *name = names[i]->d_name;
        if (ret == 0 && name[0] != '.' &&
            fstatat(dirfd, name, &fst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(fst.st_mode)) {
            char one[NG_DIGEST_HEX + 1];
            struct ng_buf shown = NG_BUF_INIT;
            uint64_t bytes = 0;
            ng_buf_addf(&shown, "%s/%s", path, name);
            ret = digest_file(dirfd, name, shown.data, one, &bytes, err);
            ng_buf_release(&shown);
            *size += bytes;
            ng_buf_add(&all, name, strlen(name) + 1);
            ng_buf_add(&all, one, NG_DIGEST_HEX);
        }
        free(names[i]);
    }
    free(names);
    if (dirfd >= 0)
        close(dirfd);
    if (ret == 0)
        ng_digest_bytes(all.data ? all.data : "", all.len, hex);
    ng_buf_release(&all);
    return ret;
}

/* The file p was read from: its name without directories (a summary
 * says the same wherever it was made), size and XXH3-128. */
static int origin_of(const struct ng_profile *p, struct ng_profile_origin *o, char **owned,
                     struct ng_err *err)
{
    uint64_t size = 0;

    if (p->origin) {
        *o = *p->origin;
        return 0;
    }
    o->name = *owned = ng_xstrdup(base_name(p->path));
    int ret = digest_path(p->path, o->hash, &size, err);
    o->size = (int64_t)size;
    return ret;
}

/* ---- --ranks ---- */

void ng_read_side_init(struct ng_profile *run, const char *const *operands, size_t n)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_adds(&b, n ? operands[0] : "");
    if (n > 1)
        ng_buf_addf(&b, " (+%zu more)", n - 1);
    ng_profile_init(run, b.data);
    ng_buf_release(&b);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One operand's files: its glob's matches, or the operand itself when it
 * has no glob characters (a missing file is then the reader's to name). */
static int expand_one(const char *op, const char *side, char ***paths, size_t *n,
                      struct ng_err *err)
{
    glob_t g;

    if (!strpbrk(op, "*?[")) {
        *paths = ng_xgrow(*paths, *n, sizeof **paths);
        (*paths)[(*n)++] = ng_xstrdup(op);
        return 0;
    }
    int rc = glob(op, GLOB_NOSORT | GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH)
        return ng_err_set(err, "--ranks: the %s's '%s' matches no file", side, op);
    if (rc != 0) {
        globfree(&g);
        return ng_err_set(err, "--ranks: the %s's '%s' cannot be expanded (%s)", side, op,
                          rc == GLOB_ABORTED ? "a directory it names cannot be read"
                                             : "out of memory");
    }
    for (size_t i = 0; i < g.gl_pathc && *n <= NG_READ_MAX_RANKS; i++) {
        *paths = ng_xgrow(*paths, *n, sizeof **paths);
        (*paths)[(*n)++] = ng_xstrdup(g.gl_pathv[i]);
    }
    globfree(&g);
    return 0;
}

int ng_read_expand(const char *const *operands, size_t n, const char *side, char ***paths,
                   size_t *n_paths, struct ng_err *err)
{
    int ret = 0;

    *paths = NULL;
    *n_paths = 0;
    for (size_t i = 0; i < n && ret == 0; i++)
        ret = expand_one(operands[i], side, paths, n_paths, err);
    if (ret == 0 && *n_paths > NG_READ_MAX_RANKS)
        ret = ng_err_set(err, "--ranks: the %s has more than %d rank files", side,
                         NG_READ_MAX_RANKS);
    ng_sort(*paths, *n_paths, sizeof **paths, by_path);
    for (size_t i = 1; i < *n_paths && ret == 0; i++)
        if (strcmp((*paths)[i - 1], (*paths)[i]) == 0)
            ret = ng_err_set(err, "--ranks: '%s' is given twice as a rank of the %s",
                             (*paths)[i], side);
    if (ret < 0) {
        ng_strv_free(paths, n_paths);
        return -1;
    }
    return 0;
}

/* The ranks of every side as one list of items, each folded into its
 * side's run under the run's lock. */
struct folding {
    const struct ng_read_side *sides;
    size_t n_sides;
    const struct ng_source_opts *opts;
    struct ng_profile_merge *merges;
    struct ng_profile_origin **origins;   /* per side asking: per rank (its slot) */
    pthread_mutex_t lock;
};

/* A rank's origin, a copy into its own slot. */
static int keep_origin(const struct ng_profile *p, struct ng_profile_origin *slot,
                       struct ng_err *err)
{
    struct ng_profile_origin o;
    char *owned = NULL;
    int ret = origin_of(p, &o, &owned, err);
    if (ret == 0) {
        *slot = o;
        slot->name = ng_xstrdup(o.name);
    }
    free(owned);
    return ret;
}

/* The run's origin: its ranks' (name, size, hash) lines hashed together,
 * named by its first and last rank files (sorted: however the operands
 * named them). */
static void run_origin(const struct ng_read_side *side, const struct ng_profile_origin *o)
{
    struct ng_profile *run = side->run;
    struct ng_buf lines = NG_BUF_INIT, name = NG_BUF_INIT;
    size_t n = side->n;
    int64_t size = 0;

    for (size_t i = 0; i < n; i++) {
        ng_buf_addf(&lines, "%s %lld %s\n", o[i].hash, (long long)o[i].size, o[i].name);
        size += o[i].size;
    }
    if (n > 1)
        ng_buf_addf(&name, "%s .. %s (%zu ranks)", base_name(side->paths[0]),
                    base_name(side->paths[n - 1]), n);
    else
        ng_buf_addf(&name, "%s (1 rank)", n ? base_name(side->paths[0]) : "");
    run->origin = ng_xcalloc(1, sizeof *run->origin);
    run->origin->name = ng_buf_detach(&name);
    run->origin->size = size;
    ng_digest_bytes(lines.data ? lines.data : "", lines.len, run->origin->hash);
    ng_buf_release(&lines);
}

static int fold_one(void *ctx, size_t i, struct ng_err *err)
{
    struct folding *f = ctx;
    size_t s = 0;
    while (i >= f->sides[s].n)
        i -= f->sides[s++].n;
    struct ng_profile p;
    ng_profile_init(&p, f->sides[s].paths[i]);
    int rc = load_named(&p, f->opts, err);
    if (rc == 0 && f->origins[s])
        rc = keep_origin(&p, &f->origins[s][i], err);
    if (rc == 0) {
        pthread_mutex_lock(&f->lock);
        rc = ng_profile_merge_add(&f->merges[s], &p, i, err);
        pthread_mutex_unlock(&f->lock);
    }
    ng_profile_release(&p);
    return rc;
}

int ng_read_ranks(struct ng_read *r, const struct ng_read_side *sides, size_t n_sides, long jobs,
                  struct ng_err *err)
{
    struct ng_source_opts opts = r->opts;
    struct folding f = { sides, n_sides, &opts, ng_xcalloc(n_sides ? n_sides : 1,
                                                           sizeof *f.merges),
                         NULL, PTHREAD_MUTEX_INITIALIZER };
    size_t n = 0;

    f.origins = ng_xcalloc(n_sides ? n_sides : 1, sizeof *f.origins);
    for (size_t s = 0; s < n_sides; s++) {
        struct ng_err ignored;
        ng_profile_merge_init(&f.merges[s], sides[s].run, r->opts.epoch_re);
        if (sides[s].origin)
            f.origins[s] = ng_xcalloc(sides[s].n ? sides[s].n : 1, sizeof *f.origins[s]);
        if (sides[s].n)   /* the run's kind, should a rank fail */
            (void)ng_source_detect(sides[s].paths[0], &sides[s].run->format, &ignored);
        n += sides[s].n;
    }
    const char **paths = ng_xcalloc(n ? n : 1, sizeof *paths);
    for (size_t s = 0, k = 0; s < n_sides; s++)
        for (size_t i = 0; i < sides[s].n; i++)
            paths[k++] = sides[s].paths[i];
    int ret = run_loads(r, paths, n, jobs, &opts, fold_one, &f, err);
    for (size_t s = 0; s < n_sides; s++) {
        if (ret == 0)
            ret = ng_profile_merge_finish(&f.merges[s], err);
        if (ret == 0 && f.origins[s])
            run_origin(&sides[s], f.origins[s]);
        ng_profile_merge_release(&f.merges[s]);
        for (size_t i = 0; f.origins[s] && i < sides[s].n; i++)
            free(f.origins[s][i].name);
        free(f.origins[s]);
    }
    free(f.origins);
    free(f.merges);
    pthread_mutex_destroy(&f.lock);
    return ret;
}

size_t ng_read_n_notes(const struct ng_read *r)
{
    return ng_exports_n_notes(r->exports);
}

const char *ng_read_note_at(const struct ng_read *r, size_t i)
{
    return ng_exports_note_at(r->exports, i);
}

void ng_read_drop_exports(struct ng_read *r)
{
    ng_exports_free(r->exports);
    r->exports = NULL;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

/* What `nsys-gate ranges` lists of p, read as it reads it (total mode,
 * every option but the access ones at its default), or p's own (a
 * summary's); NULL when that reading fails: the summary then has none. */
static struct ng_profile_listing *listing_of(const struct ng_read *r, const struct ng_profile *p)
{
    if (p->listing)
        return NULL;
    struct ng_source_opts o = { .nsys = r->opts.nsys, .nsys_timeout = r->opts.nsys_timeout,
                                .cache = r->opts.cache, .sql_only = r->opts.sql_only,
                                .list_ranges = 1, .exports = r->exports };
    struct ng_profile q;
    struct ng_err ignored;
    struct ng_profile_listing *l = NULL;
    ng_profile_init(&q, p->path);
    if (ng_source_load(&q, &o, &ignored) == 0) {
        l = ng_xcalloc(1, sizeof *l);
        l->listed = q.ranges != NULL;
        if (q.ranges) {
            l->n_ranges = q.ranges->n;
            l->total_ns = q.total_ns;
            l->groups = ng_range_groups(q.ranges->r, q.ranges->n, q.total_ns, &l->n_groups);
        }
    }
    ng_profile_release(&q);
    return l;
}

int ng_read_summary_write(const struct ng_read *r, const struct ng_profile *p, const char *path,
                          int range_groups, size_t *bytes, struct ng_err *err)
{
    struct ng_profile_origin o;
    struct ng_buf text = NG_BUF_INIT, gz = NG_BUF_INIT;
    char *owned = NULL;

    if (origin_of(p, &o, &owned, err) < 0) {
        free(owned);
        return -1;
    }
    struct ng_profile_listing *own = range_groups ? listing_of(r, p) : NULL;
    ng_summary_file_write(p, &r->opts, &o, range_groups && p->listing ? p->listing : own, &text);
    if (own)
        ng_range_groups_free(own->groups, own->n_groups);
    free(own);
    free(owned);
    const struct ng_buf *out = &text;
    if (ends_with(path, ".gz")) {
        ng_gzip_deflate(text.data, text.len, &gz);
        out = &gz;
    }
    int ret = ng_write_file_atomic(path, out->data, out->len, err);
    if (bytes)
        *bytes = out->len;
    ng_buf_release(&text);
    ng_buf_release(&gz);
    return ret;
}

void ng_read_release(struct ng_read *r)
{
    ng_read_drop_exports(r);
    if (r->have_re)
        ng_regex_release(&r->epoch_re);
    if (r->have_filter)
        ng_filter_release(&r->filter);
    if (r->have_comm)
        ng_comm_release(&r->comm);
    memset(r, 0, sizeof *r);
}
