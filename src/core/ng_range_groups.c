#include "core/ng_range_groups.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

char *ng_range_group_name(const char *text)
{
    struct ng_buf b = NG_BUF_INIT;

    for (const char *s = text; *s;) {
        if (*s >= '0' && *s <= '9') {
            while (*s >= '0' && *s <= '9')
                s++;
            ng_buf_adds(&b, "#");
            continue;
        }
        ng_buf_add(&b, s++, 1);
    }
    return ng_buf_detach(&b);
}

/* One group while it is built: sums for the mean and spread, and the
 * threads seen (a small sorted set: groups run on a few threads). */
struct acc {
    double sum_ms, sum_sq;
    uint64_t *threads;
    size_t n_threads;
};

static void add_thread(struct acc *a, uint64_t t)
{
    size_t lo = 0, hi = a->n_threads;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->threads[mid] == t)
            return;
        if (a->threads[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    a->threads = ng_xrealloc(a->threads, (a->n_threads + 1) * sizeof *a->threads);
    memmove(&a->threads[lo + 1], &a->threads[lo], (a->n_threads - lo) * sizeof *a->threads);
    a->threads[lo] = t;
    a->n_threads++;
}

static int by_size(const void *x, const void *y)
{
    const struct ng_range_group *a = x, *b = y;
    if (a->gpu_ns != b->gpu_ns)
        return a->gpu_ns > b->gpu_ns ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void finish_group(struct ng_range_group *g, struct acc *a, int64_t total_ns)
{
    double n = (double)g->count;
    g->threads = a->n_threads;
    g->mean_ms = a->sum_ms / n;
    double var = a->sum_sq / n - g->mean_ms * g->mean_ms;
    g->cv = g->mean_ms > 0 ? sqrt(var > 0 ? var : 0) / g->mean_ms : 0;
    g->share = total_ns > 0 ? (double)g->gpu_ns / (double)total_ns : 0;
    free(a->threads);
}

struct ng_range_group *ng_range_groups(const struct ng_range_in *ranges, size_t n,
                                       int64_t total_ns, size_t *n_groups)
{
    struct ng_strmap map = NG_STRMAP_INIT;
    struct ng_range_group *g = NULL;
    struct acc *acc = NULL;
    size_t ng = 0;

    for (size_t i = 0; i < n; i++) {
        char *name = ng_range_group_name(ranges[i].text);
        int added;
        size_t at = ng_strmap_get(&map, name, strlen(name), ng, &added);
        if (added) {
            g = ng_xgrow(g, ng, sizeof *g);
            acc = ng_xgrow(acc, ng, sizeof *acc);
            g[ng] = (struct ng_range_group){ .name = name, .example = ng_xstrdup(ranges[i].text),
                                             .min_depth = ranges[i].depth,
                                             .max_depth = ranges[i].depth };
            acc[ng] = (struct acc){ 0, 0, NULL, 0 };
            ng++;
        } else {
            free(name);
        }
        struct ng_range_group *e = &g[at];
        double ms = (double)ranges[i].gpu_ns / 1e6;
        e->count++;
        e->gpu_ns += ranges[i].gpu_ns;
        if (ranges[i].depth < e->min_depth)
            e->min_depth = ranges[i].depth;
        if (ranges[i].depth > e->max_depth)
            e->max_depth = ranges[i].depth;
        acc[at].sum_ms += ms;
        acc[at].sum_sq += ms * ms;
        add_thread(&acc[at], ranges[i].thread);
    }
    for (size_t i = 0; i < ng; i++)
        finish_group(&g[i], &acc[i], total_ns);
    free(acc);
    ng_strmap_release(&map);
    if (ng)
        ng_sort(g, ng, sizeof *g, by_size);
    *n_groups = ng;
    return g;
}

void ng_range_groups_free(struct ng_range_group *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(g[i].name);
        free(g[i].example);
    }
    free(g);
}

long ng_range_groups_step(const struct ng_range_group *g, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        if (g[i].count < NG_RANGE_STEP_MIN || g[i].cv > NG_RANGE_STEP_CV ||
            g[i].share < NG_RANGE_STEP_SHARE)
            continue;
        if (best < 0 || g[i].share > g[best].share)
            best = (long)i;
    }
    return best;
}

char *ng_range_group_pattern(const struct ng_range_group *g)
{
    struct ng_buf b = NG_BUF_INIT;

    ng_buf_adds(&b, "^");
    for (const char *s = g->example; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            while (s[1] >= '0' && s[1] <= '9')
                s++;
            ng_buf_adds(&b, "[0-9]+");
        } else if (strchr("\\^$.|?*+()[]{}", *s))
            ng_buf_addf(&b, "\\%c", *s);
        else
            ng_buf_add(&b, s, 1);
    }
    ng_buf_adds(&b, "$");
    return ng_buf_detach(&b);
}

/* ---- attributing launches to every range that holds them ---- */

struct span {
    uint64_t thread;
    int64_t start, end;
    size_t at;      /* its index in the caller's arrays */
};

static int by_thread_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    /* the outer of two that start together first: it holds the other */
    return x->end > y->end ? -1 : x->end < y->end;
}

static int call_order(const void *a, const void *b)
{
    const struct ng_range_call *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* One sweep a thread: ranges and calls in order of start; the ranges
 * still open (started, not ended before the next start) are the only ones
 * a call or a range can lie in, and they are as many as the nesting is
 * deep. */
void ng_range_attribute(struct ng_range_in *r, const int64_t *start, const int64_t *end,
                        size_t n, struct ng_range_call *calls, size_t n_calls)
{
    struct span *s = ng_xcalloc(n + 1, sizeof *s);
    size_t *open = ng_xcalloc(n + 1, sizeof *open), n_open = 0, c = 0;

    for (size_t i = 0; i < n; i++) {
        s[i] = (struct span){ r[i].thread, start[i], end[i], i };
        r[i].gpu_ns = 0;
        r[i].depth = 0;
    }
    ng_sort(s, n, sizeof *s, by_thread_start);
    ng_sort(calls, n_calls, sizeof *calls, call_order);
    for (size_t i = 0; i <= n; i++) {
        /* the calls before this range starts (or before the thread ends) */
        while (c < n_calls && (i == n || calls[c].thread < s[i].thread ||
                               (calls[c].thread == s[i].thread && calls[c].start < s[i].start))) {
            for (size_t k = 0; k < n_open; k++) {
                const struct span *o = &s[open[k]];
                if (o->thread == calls[c].thread && o->start <= calls[c].start &&
                    calls[c].end <= o->end)
                    r[o->at].gpu_ns += calls[c].ns;
            }
            c++;
        }
        if (i == n)
            break;
        if (i > 0 && s[i].thread != s[i - 1].thread)
            n_open = 0;
        size_t kept = 0;   /* those that ended before this one starts are done */
        for (size_t k = 0; k < n_open; k++)
            if (s[open[k]].end >= s[i].start)
                open[kept++] = open[k];
        n_open = kept;
        for (size_t k = 0; k < n_open; k++)
            if (s[open[k]].end >= s[i].end)
                r[s[i].at].depth++;
        open[n_open++] = i;
    }
    free(open);
    free(s);
}

void ng_range_list_release(struct ng_range_list *l)
{
    free(l->r);
    ng_arena_release(&l->texts);
    memset(l, 0, sizeof *l);
}
