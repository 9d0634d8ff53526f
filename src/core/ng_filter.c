#include "core/ng_filter.h"

#include <string.h>

static int compile_all(struct ng_regex *re, const char **texts, const char *const *patterns,
                       size_t n, const char *option, struct ng_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (ng_regex_compile(&re[i], patterns[i], 0, NG_FILTER_NAME_MAX, option, err) < 0)
            return -1;
        texts[i] = patterns[i];
    }
    return 0;
}

int ng_filter_init(struct ng_filter *f, const char *const *include, size_t n_include,
                   const char *const *exclude, size_t n_exclude, struct ng_err *err)
{
    memset(f, 0, sizeof *f);
    if (n_include > NG_FILTER_MAX || n_exclude > NG_FILTER_MAX)
        return ng_err_set(err, "at most %d --kernels and %d --exclude-kernels patterns",
                          NG_FILTER_MAX, NG_FILTER_MAX);
    if (compile_all(f->include, f->include_text, include, n_include, "--kernels", err) < 0) {
        ng_filter_release(f);
        return -1;
    }
    f->n_include = n_include;
    if (compile_all(f->exclude, f->exclude_text, exclude, n_exclude, "--exclude-kernels",
                    err) < 0) {
        ng_filter_release(f);
        return -1;
    }
    f->n_exclude = n_exclude;
    return 0;
}

void ng_filter_release(struct ng_filter *f)
{
    for (size_t i = 0; i < NG_FILTER_MAX; i++) {
        ng_regex_release(&f->include[i]);
        ng_regex_release(&f->exclude[i]);
    }
    memset(f, 0, sizeof *f);
}

int ng_filter_empty(const struct ng_filter *f)
{
    return !f || (f->n_include == 0 && f->n_exclude == 0);
}

/* Every pattern is tried (not just until the first match), so that each
 * one's hits are known: a pattern that selects nothing is a mistake the
 * gate names. */
static int match_any(const struct ng_regex *re, size_t n, const char *name, size_t *hits,
                     struct ng_filter_account *a)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        regmatch_t m[1];
        int rc = ng_regex_match(&re[i], name, 1, m, &a->cpu);
        if (rc < 0) {
            a->over_budget = 1;
            return -1;
        }
        if (rc) {
            hits[i]++;
            any = 1;
        }
    }
    return any;
}

int ng_filter_selects(const struct ng_filter *f, const char *name, struct ng_filter_account *a)
{
    if (ng_filter_empty(f))
        return 1;
    int in = f->n_include ? match_any(f->include, f->n_include, name, a->include_hits, a) : 1;
    int out = match_any(f->exclude, f->n_exclude, name, a->exclude_hits, a);
    if (in < 0 || out < 0)
        return -1;
    return in && !out;
}
