/* fuzz_check: what the source targets share: what a profile that loaded
 * must look like, what an error must look like, the file an input is
 * written to (the readers read files, not memory), and one load checked.
 *
 * Ownership: the checks only read what they are given; the scratch file
 * and its directory are the target's, removed at exit. */
#ifndef NG_FUZZ_CHECK_H
#define NG_FUZZ_CHECK_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/ng_err.h"
#include "core/ng_profile.h"
#include "sources/ng_source_kind.h"
#include "sources/ng_source_opts.h"

/* A load that succeeded: the totals are the exact sums of the rows (no
 * wrap-around), nothing is negative, rows are sorted as documented. */
static inline void ng_fuzz_check_profile(const struct ng_profile *p)
{
    int64_t total = 0, count = 0;

    NG_FUZZ_CHECK(p->loaded);
    NG_FUZZ_CHECK(p->n_rows > 0);
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct ng_work_row *k = &p->rows[i];
        NG_FUZZ_CHECK(k->name != NULL);
        NG_FUZZ_CHECK(k->total_ns >= 0 && k->instances >= 0);
        NG_FUZZ_CHECK(!__builtin_add_overflow(total, k->total_ns, &total));
        NG_FUZZ_CHECK(!__builtin_add_overflow(count, k->instances, &count));
        if (i > 0)
            NG_FUZZ_CHECK(p->rows[i - 1].total_ns >= k->total_ns);
    }
    NG_FUZZ_CHECK(total == p->total_ns);
    NG_FUZZ_CHECK(count == p->launches);
    for (size_t i = 0; i < p->n_epochs; i++)
        NG_FUZZ_CHECK(p->epochs[i].ns >= 0 && p->epochs[i].kernels >= 0);
}

/* A refusal: a non-empty message, NUL-terminated inside its buffer.  (What
 * it may contain is main's business: it cleans every line it prints.) */
static inline void ng_fuzz_check_error(const struct ng_err *err)
{
    size_t n = strnlen(err->msg, sizeof err->msg);

    NG_FUZZ_CHECK(n > 0 && n < sizeof err->msg);
}

/* After a load: a consistent profile (with epochs when steps were asked
 * for), or a refusal with a message. */
static inline void ng_fuzz_check_load(int rc, const struct ng_profile *p,
                                      const struct ng_err *err, int epochs)
{
    if (rc == 0) {
        ng_fuzz_check_profile(p);
        NG_FUZZ_CHECK(!epochs || (p->nvtx && p->n_epochs > 0));
    } else {
        ng_fuzz_check_error(err);
    }
}

/* The input bytes as the file at path. */
static inline void ng_fuzz_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    NG_FUZZ_CHECK(f != NULL);
    NG_FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    NG_FUZZ_CHECK(fclose(f) == 0);
}

/* path read by kind k with opts, checked by ng_fuzz_check_load(). */
static inline void ng_fuzz_load(const struct ng_source_kind *k, const char *path,
                                const struct ng_source_opts *opts)
{
    struct ng_profile p;
    struct ng_err err;

    ng_profile_init(&p, path);
    err.msg[0] = '\0';
    ng_fuzz_check_load(k->load(&p, path, opts, &err), &p, &err, opts->epoch_re != NULL);
    ng_profile_release(&p);
}

static char ng_fuzz_scratch_dir[4096];
static char ng_fuzz_scratch_path[4096 + 64];

static void ng_fuzz_scratch_remove(void)
{
    unlink(ng_fuzz_scratch_path);
    rmdir(ng_fuzz_scratch_dir);
}

/* The input written to `name` in a private directory under $TMPDIR, made
 * on the first call (its tag names the target); the file's path. */
static inline const char *ng_fuzz_scratch(const char *tag, const char *name,
                                          const uint8_t *data, size_t size)
{
    if (!ng_fuzz_scratch_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(ng_fuzz_scratch_dir, sizeof ng_fuzz_scratch_dir, "%s/ng-fuzz-%s.XXXXXX",
                 base && *base ? base : "/tmp", tag);
        NG_FUZZ_CHECK(mkdtemp(ng_fuzz_scratch_dir) != NULL);
        snprintf(ng_fuzz_scratch_path, sizeof ng_fuzz_scratch_path, "%s/%s",
                 ng_fuzz_scratch_dir, name);
        atexit(ng_fuzz_scratch_remove);
    }
    ng_fuzz_write(ng_fuzz_scratch_path, data, size);
    return ng_fuzz_scratch_path;
}

#endif
