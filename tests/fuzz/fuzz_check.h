/* fuzz_check: invariants shared by the source targets: what a profile that
 * loaded must look like, and what an error must look like.
 *
 * Ownership: both functions only read what they are given. */
#ifndef NG_FUZZ_CHECK_H
#define NG_FUZZ_CHECK_H

#include <string.h>

#include "fuzz.h"
#include "util/ng_err.h"
#include "core/ng_profile.h"

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

#endif
