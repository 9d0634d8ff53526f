/* fuzz_check: invariants shared by the source targets: what a profile that
 * loaded must look like, and what an error must look like; and the input
 * written to a file and loaded by one kind, checked so.
 *
 * Ownership: the functions only read what they are given. */
#ifndef NG_FUZZ_CHECK_H
#define NG_FUZZ_CHECK_H

#include <string.h>

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

/* The input bytes as the file at path. */
static inline void ng_fuzz_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    NG_FUZZ_CHECK(f != NULL);
    NG_FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    NG_FUZZ_CHECK(fclose(f) == 0);
}

/* path read by kind k with opts: a consistent profile (with epochs when
 * they were asked for) or a refusal with a message. */
static inline void ng_fuzz_load(const struct ng_source_kind *k, const char *path,
                                const struct ng_source_opts *opts)
{
    struct ng_profile p;
    struct ng_err err;

    ng_profile_init(&p, path);
    err.msg[0] = '\0';
    if (k->load(&p, path, opts, &err) == 0) {
        ng_fuzz_check_profile(&p);
        NG_FUZZ_CHECK(!opts->epoch_re || (p.nvtx && p.n_epochs > 0));
    } else {
        ng_fuzz_check_error(&err);
    }
    ng_profile_release(&p);
}

#endif
