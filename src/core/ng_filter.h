/* ng_filter: which work items a gate counts (--kernels, --exclude-kernels).
 * An item is selected when its name matches one of the --kernels patterns
 * (or there are none) and none of the --exclude-kernels patterns.  The
 * patterns apply to the names of every kind (kernels, "CUDA graph 3",
 * "[CUDA memcpy Host-to-Device]"), as --kernel-names shows them; they are
 * POSIX extended, case-sensitive, run through ng_regex's budget (a name
 * longer than NG_FILTER_NAME_MAX bytes matches no pattern).
 *
 * Ownership: a filter owns its compiled patterns; the pattern texts are
 * borrowed from the settings.  Matching is safe from several threads, each
 * with its own ng_filter_account. */
#ifndef NG_FILTER_H
#define NG_FILTER_H

#include <stddef.h>

#include "util/ng_err.h"
#include "util/ng_regex.h"

#define NG_FILTER_MAX 16
#define NG_FILTER_NAME_MAX 65536

struct ng_filter {
    struct ng_regex include[NG_FILTER_MAX], exclude[NG_FILTER_MAX];
    const char *include_text[NG_FILTER_MAX], *exclude_text[NG_FILTER_MAX];
    size_t n_include, n_exclude;
};

/* What one reader matched: which patterns selected something (a pattern
 * that selects nothing anywhere is an error), and the CPU time spent. */
struct ng_filter_account {
    size_t include_hits[NG_FILTER_MAX], exclude_hits[NG_FILTER_MAX];
    double cpu;
    int over_budget;
};

/* Compiles the patterns; -1 with err naming the bad one. */
int ng_filter_init(struct ng_filter *f, const char *const *include, size_t n_include,
                   const char *const *exclude, size_t n_exclude, struct ng_err *err);
void ng_filter_release(struct ng_filter *f);

/* 1 when the filter selects nothing away (no patterns). */
int ng_filter_empty(const struct ng_filter *f);

/* 1 when the item named `name` is counted, 0 when it is left out;
 * -1 when the account is over the CPU budget (the caller stops). */
int ng_filter_selects(const struct ng_filter *f, const char *name, struct ng_filter_account *a);

#endif
