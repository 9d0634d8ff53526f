/* ng_comm: which kernels are communication, for the breakdown and
 * --metric exposed-comm.  A kernel is communication when its name (as
 * --kernel-names shows it) matches a row of the table below or one of the
 * user's --comm-kernels patterns (POSIX extended, case-sensitive, run
 * through ng_regex's budget).  The table is documented in
 * docs/breakdown.md; a test checks the two agree.
 *
 * Ownership: a matcher owns its compiled patterns; the user's pattern
 * texts are borrowed from the settings.  ng_comm_release() frees it.
 * Matching is safe from several threads, each with its own CPU account. */
#ifndef NG_COMM_H
#define NG_COMM_H

#include <stddef.h>

#include "util/ng_err.h"
#include "util/ng_regex.h"

#define NG_COMM_MAX 16             /* --comm-kernels patterns */
#define NG_COMM_NAME_MAX 65536     /* a longer name is never communication */

struct ng_comm_pattern {
    const char *library;   /* "NCCL", "RCCL", ... */
    const char *ere;
    const char *example;   /* a kernel name it matches (the table's test) */
};

extern const struct ng_comm_pattern ng_comm_patterns[];
extern const size_t ng_n_comm_patterns;

struct ng_comm {
    struct ng_regex table;             /* the rows, as one alternation */
    struct ng_regex user[NG_COMM_MAX];
    size_t n_user;
};

/* Compiles the table and the user's patterns; -1 with err naming a bad
 * one ("--comm-kernels"). */
int ng_comm_init(struct ng_comm *c, const char *const *user, size_t n_user, struct ng_err *err);
void ng_comm_release(struct ng_comm *c);

/* 1 when a kernel of this name is communication, 0 when not; -1 when
 * *spent (CPU seconds, the caller's account) passed the budget.  A NULL
 * matcher knows no communication. */
int ng_comm_is(const struct ng_comm *c, const char *name, double *spent);

#endif
