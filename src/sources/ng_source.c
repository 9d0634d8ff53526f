#include "sources/ng_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/kineto/ng_source_kineto.h"
#include "sources/ng_source_kind.h"
#include "sources/nsys_stats/ng_source_nsys_stats.h"
#include "sources/nsysrep/ng_source_nsysrep.h"
#include "sources/rocprof/ng_source_rocprof.h"
#include "sources/sqlite/ng_source_sqlite.h"
#include "sources/summary/ng_source_summary.h"
#include "util/ng_file.h"
#include "util/ng_gzip.h"

/* Order matters: kinds with magic bytes first, then those told by content
 * (sniff); among kinds with the same first bytes, the one whose claim()
 * or sniff tells it apart before the one that takes the rest (a rocpd
 * database before any SQLite, rocprofv3 JSON and nsys-gate summaries before
 * Kineto, which takes any JSON object); the text reader last, as the fallback for anything
 * that is neither. */
static const struct ng_source_kind *const kinds[] = {
    &ng_source_rocprof_rocpd,
    &ng_source_sqlite,
    &ng_source_nsysrep,
    &ng_source_rocprof_json,
    &ng_source_summary,
    &ng_source_kineto,
    &ng_source_rocprof_csv,
    &ng_source_nsys_stats,
    NULL,
};

#define PROBE_LEN 256

/* What pick() looks at: the first bytes as they are, and inflated when
 * the file is gzip (else the same bytes). */
struct head {
    unsigned char raw[PROBE_LEN], text[PROBE_LEN];
    size_t raw_len, text_len;
    int dir;   /* a directory: no bytes */
};

/* A gzip file's inflated head, for the sniffers; when it does not inflate,
 * its raw bytes, and the reader that takes it says what is wrong. */
static void inflated_head(const char *path, struct head *h)
{
    struct ng_err quiet = {0};

    if (h->raw_len < 2 || h->raw[0] != 0x1f || h->raw[1] != 0x8b ||
        ng_gzip_head(path, h->text, PROBE_LEN, &h->text_len, &quiet) < 0 || h->text_len == 0) {
        memcpy(h->text, h->raw, h->raw_len);
        h->text_len = h->raw_len;
    }
}

/* Opens without blocking (a FIFO must not hang the gate) and refuses what is
 * neither a regular file nor a directory before anything reads it.  st is
 * what was opened. */
static int probe(const char *path, struct head *h, struct stat *stp, struct ng_err *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    h->dir = 0;
    if (fd < 0)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
    if (fstat(fd, &st) < 0) {
        int e = errno;
        ng_file_close(fd);   /* another thread's SQLite may lock this file */
        return ng_err_set(err, "unable to stat '%s': %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {   /* for the kinds that read one (pick_dir()) */
        ng_file_close(fd);
        h->raw_len = h->text_len = 0;
        h->dir = 1;
        *stp = st;
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        ng_file_close(fd);
        return ng_err_set(err, "'%s' is not a regular file", path);
    }
    if (st.st_size == 0) {
        ng_file_close(fd);
        return ng_err_set(err, "'%s' is empty", path);
    }
    ssize_t n;
    do
        n = read(fd, h->raw, PROBE_LEN);
    while (n < 0 && errno == EINTR);
    int e = errno;
    ng_file_close(fd);
    if (n < 0)
        return ng_err_set(err, "unable to read '%s': %s", path, strerror(e));
    h->raw_len = (size_t)n;
    *stp = st;
    inflated_head(path, h);
    return 0;
}

static int has_extension(const char *path, const char *const *exts)
{
    size_t len = strlen(path);

    for (; exts && *exts; exts++) {
        size_t el = strlen(*exts);
        if (len > el && strcasecmp(path + len - el, *exts) == 0)
            return 1;
    }
    return 0;
}

static int claims(const struct ng_source_kind *k, const char *path)
{
    return !k->claim || k->claim(path);
}

/* A directory: the first kind that reads directories and claims it. */
static const struct ng_source_kind *pick_dir(const char *path, struct ng_err *err)
{
    for (size_t i = 0; kinds[i]; i++)
        if (kinds[i]->dirs && claims(kinds[i], path))
            return kinds[i];
    ng_err_set(err, "'%s' is a directory, not a profile", path);
    return NULL;
}

static const struct ng_source_kind *pick_file(const char *path, const struct head *h)
{
    for (size_t i = 0; kinds[i]; i++) {
        const struct ng_source_kind *k = kinds[i];
        if (k->magic && h->raw_len >= k->magic_len &&
            memcmp(h->raw, k->magic, k->magic_len) == 0 && claims(k, path))
            return k;
    }
    /* the inflated head first (JSON kinds tell themselves apart by their
     * first key), then the raw one (a gzip file no other kind takes) */
    for (size_t i = 0; kinds[i]; i++)
        if (kinds[i]->sniff && kinds[i]->sniff(h->text, h->text_len) && claims(kinds[i], path))
            return kinds[i];
    for (size_t i = 0; kinds[i]; i++)
        if (kinds[i]->sniff && kinds[i]->sniff(h->raw, h->raw_len) && claims(kinds[i], path))
            return kinds[i];
    for (size_t i = 0; kinds[i]; i++)
        if (has_extension(path, kinds[i]->extensions))
            return kinds[i];
    return &ng_source_nsys_stats;
}

/* The kind of what probe() found; NULL with err for a directory no kind
 * reads. */
static const struct ng_source_kind *pick(const char *path, const struct head *h,
                                         struct ng_err *err)
{
    return h->dir ? pick_dir(path, err) : pick_file(path, h);
}

int ng_source_detect(const char *path, enum ng_format *format, struct ng_err *err)
{
    struct head h;
    struct stat st;
    const struct ng_source_kind *k;

    if (probe(path, &h, &st, err) < 0 || !(k = pick(path, &h, err)))
        return -1;
    *format = k->format;
    return 0;
}

/* "'README.md' is not a profile (text with no nsys report): the gate reads
 * nsys SQLite exports (.sqlite), ..., and saved nsys stats text ...": what the
 * file is, from the reader that looked, and what would have been read, from
 * the registry. */
static int refuse_not_a_profile(const char *path, struct ng_err *err)
{
    char what[256], reads[1024];
    size_t used = 0;

    size_t wn = strnlen(err->msg, sizeof what - 1);
    memcpy(what, err->msg, wn);
    what[wn] = '\0';
    reads[0] = '\0';
    size_t listed = 0, n_listed = 0;
    for (size_t i = 0; kinds[i]; i++)
        n_listed += kinds[i]->reads != NULL;
    for (size_t i = 0; kinds[i]; i++) {
        if (!kinds[i]->reads)
            continue;
        listed++;
        const char *sep = listed == 1 ? "" : listed < n_listed ? ", " : " and ";
        int n = snprintf(reads + used, sizeof reads - used, "%s%s", sep, kinds[i]->reads);
        if (n < 0 || (size_t)n >= sizeof reads - used)
            break;
        used += (size_t)n;
    }
    return ng_err_set(err, "'%s' is not a profile (%s): the gate reads %s", path, what, reads);
}

/* A total-mode metric other than the kernel sum that the source could not
 * measure (it has no intervals): its figure would be the kernel sum under
 * another name. */
static int unmeasured(const struct ng_profile *p, const struct ng_source_opts *opts)
{
    return opts && !opts->epoch_re && !opts->list_ranges && opts->metric != NG_METRIC_KERNEL_SUM &&
           !p->measured;
}

int ng_source_load(struct ng_profile *p, const struct ng_source_opts *opts,
                   struct ng_err *err)
{
    struct head h;
    const struct ng_source_kind *k;
    struct stat before, after;

    if (probe(p->path, &h, &before, err) < 0 || !(k = pick(p->path, &h, err)))
        return -1;
    p->format = k->format;
    int ret = k->load(p, p->path, opts, err);
    /* A file replaced or rewritten while it was read can yield a total of
     * neither version (or a misleading error): refuse whatever was read. */
    if (stat(p->path, &after) < 0 || ng_file_stat_changed(&before, &after)) {
        p->loaded = 0;
        return ng_err_set(err, "'%s' changed while it was being read (is something still "
                          "writing it?); gate it once it is complete", p->path);
    }
    if (ret == NG_SOURCE_NOT_A_PROFILE)
        return refuse_not_a_profile(p->path, err);
    if (ret == 0 && unmeasured(p, opts)) {
        p->loaded = 0;
        return ng_err_set(err, "--metric %s needs the work's start and end times, and '%s' is "
                          "saved nsys stats text, which has only totals; gate the export or "
                          "the .nsys-rep it came from, or use --metric kernel-sum",
                          ng_metric_name(opts->metric), p->path);
    }
    return ret;
}
