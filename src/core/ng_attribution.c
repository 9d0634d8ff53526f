#include "core/ng_attribution.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_comparability.h"
#include "core/ng_means.h"
#include "core/ng_stats.h"
#include "util/ng_oom.h"
#include "util/ng_util.h"

/* One item over both sides: its totals, and which sides have it.  Its
 * kind and name are its first row's (borrowed from the profiles: copies
 * would double the memory of a summary with millions of names).  48
 * bytes an item, plus 8 to 16 of index: a saved summary of 10 million
 * distinct names is compared in well under twice its size. */
struct agg {
    const struct ng_work_row *first;
    int64_t ns[2], inst[2];   /* [0] baseline, [1] current */
    unsigned seen;            /* bit 0 baseline, bit 1 current */
};

/* The items, and an open-addressing index of them by kind and name. */
struct aggs {
    struct agg *a;
    size_t n;
    uint32_t *slots;          /* agg index + 1; 0 free */
    size_t cap;               /* a power of two, at least twice n */
    uint64_t *hash_of;        /* each item's hash, for growing the index */
};

static uint64_t row_hash(const struct ng_work_row *r)
{
    return ng_hash(r->name, strlen(r->name)) ^ (uint64_t)r->kind;
}

static void aggs_grow(struct aggs *g)
{
    size_t cap = g->cap ? 2 * g->cap : 64;
    uint32_t *slots = ng_xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < g->n; i++) {
        size_t j = g->hash_of[i] & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(g->slots);
    g->slots = slots;
    g->cap = cap;
}

/* The item of row r (added if new); with add 0, SIZE_MAX when absent. */
static size_t aggs_find(struct aggs *g, const struct ng_work_row *r, int add)
{
    if (add && (g->n + 1) * 2 > g->cap)
        aggs_grow(g);
    uint64_t h = row_hash(r);
    size_t j = h & (g->cap - 1);
    for (; g->slots[j]; j = (j + 1) & (g->cap - 1)) {
        size_t i = g->slots[j] - 1;
        if (g->hash_of[i] != h)   /* the names only when the hashes agree */
            continue;
        const struct ng_work_row *f = g->a[i].first;
        if (f->kind == r->kind && strcmp(f->name, r->name) == 0)
            return i;
    }
    if (!add)
        return SIZE_MAX;
    if (g->n >= UINT32_MAX - 1)
        ng_oom_fail();   /* four billion distinct names: memory ran out long before */
    g->a = ng_xgrow(g->a, g->n, sizeof *g->a);
    g->hash_of = ng_xgrow(g->hash_of, g->n, sizeof *g->hash_of);
    g->a[g->n] = (struct agg){ r, { 0, 0 }, { 0, 0 }, 0 };
    g->hash_of[g->n] = h;
    g->slots[j] = (uint32_t)++g->n;
    return g->n - 1;
}

static void aggregate(struct aggs *g, const struct ng_profile *p, size_t np, int side)
{
    for (size_t i = 0; i < np; i++) {
        for (size_t k = 0; k < p[i].n_rows; k++) {
            const struct ng_work_row *kr = &p[i].rows[k];
            /* one item is a kind and a name: a memcpy and a kernel never merge */
            size_t at = aggs_find(g, kr, 1);   /* may move g->a */
            struct agg *a = &g->a[at];
            a->ns[side] += kr->total_ns;
            a->inst[side] += kr->instances;
            a->seen |= 1u << side;
        }
    }
}

/* Per-kernel gates only: each item's row in each profile (item i, profile
 * k of all nb + nc: rows[i * (nb + nc) + k]), for its own samples. */
static const struct ng_work_row **item_rows(struct aggs *g, const struct ng_profile *b,
                                            size_t nb, const struct ng_profile *c, size_t nc)
{
    size_t np = nb + nc;
    size_t cells = g->n * np;
    const struct ng_work_row **rows = ng_xcalloc(cells ? cells : 1, sizeof *rows);
    for (size_t k = 0; k < np; k++) {
        const struct ng_profile *p = k < nb ? &b[k] : &c[k - nb];
        for (size_t r = 0; r < p->n_rows; r++)
            rows[aggs_find(g, &p->rows[r], 0) * np + k] = &p->rows[r];
    }
    return rows;
}

static int by_contribution(const void *a, const void *b, void *grows_first)
{
    const struct ng_kernel_delta *x = a, *y = b;
    if (x->delta_ms_per_epoch != y->delta_ms_per_epoch) {
        int x_first = x->delta_ms_per_epoch > y->delta_ms_per_epoch;
        return (*(const int *)grows_first ? x_first : !x_first) ? -1 : 1;
    }
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* An item's samples on one side, in ms: NVTX mode one per counted epoch of
 * every run (0 where it did not run), total mode one per run, over the
 * epochs each of the side's runs made (run_epochs).  rows: its row in each
 * profile of the side (NULL where it has none). */
static double *item_samples(const struct ng_work_row *const *rows, const struct ng_profile *p,
                            size_t np, int nvtx, long run_epochs, size_t *n)
{
    size_t count = 0;
    for (size_t i = 0; i < np; i++)
        count += nvtx ? p[i].n_epochs : 1;
    double *x = ng_xcalloc(count ? count : 1, sizeof *x);
    size_t at = 0;
    for (size_t i = 0; i < np; i++) {
        const struct ng_work_row *r = rows[i];
        if (!nvtx) {
            x[at++] = r ? (double)r->total_ns / 1e6 / (double)run_epochs : 0;
            continue;
        }
        for (size_t c = 0; r && r->cells && c < r->cells->n; c++)
            if (r->cells->epoch[c] < p[i].n_epochs)
                x[at + r->cells->epoch[c]] += (double)r->cells->ns[c] / 1e6;
        at += p[i].n_epochs;
    }
    *n = count;
    return x;
}

/* Per-kernel gates: an item that grew past --kernel-threshold and by more
 * than its floor fails (at either edge it passes, as the total does),
 * unless the U test on its own samples finds it not significant (then
 * INCONCLUSIVE).  rows: its row in each of the nb + nc profiles. */
static void gate_item(struct ng_verdict *v, struct ng_kernel_delta *d,
                      const struct ng_work_row *const *rows, const struct ng_profile *b,
                      size_t nb, const struct ng_profile *c, size_t nc,
                      const struct ng_attribution_opts *o)
{
    double base = d->baseline_ms_per_epoch, cur = d->current_ms_per_epoch;

    d->gated = 1;
    d->verdict = NG_OUTCOME_PASS;
    d->ratio = base > 0 ? cur / base : cur > 0 ? INFINITY : 1;
    if (!(d->ratio > o->kernel_threshold) || cur - base <= v->kernel_floor_ms)
        return;
    size_t nx, ny;
    double *x = item_samples(rows, b, nb, o->nvtx, v->baseline.run_epochs, &nx);
    double *y = item_samples(rows + nb, c, nc, o->nvtx, v->current.run_epochs, &ny);
    if (o->alpha > 0 && nx >= NG_MEANS_MIN_TEST && ny >= NG_MEANS_MIN_TEST) {
        d->has_p = 1;
        d->p_value = ng_stats_mwu_greater(x, nx, y, ny, NULL);
    }
    free(x);
    free(y);
    /* for now: holm_items decides, once every p of the family is known */
    d->verdict = d->has_p && d->p_value > o->alpha ? NG_OUTCOME_INCONCLUSIVE : NG_OUTCOME_FAIL;
}

/* The per-kernel gates as one family: Holm's adjustment over every item
 * that could be tested (family: each of them; the items under the ratio
 * screen were not tested and count as the largest p-values, which only
 * makes the adjustment stricter).  A tested item fails only when its
 * adjusted p is within alpha: 200 unchanged kernels no longer give a few
 * FAILs by chance.  Every tested item is kept (none passed), so the kept
 * list holds the whole family's p-values. */
static void holm_items(struct ng_verdict *v, size_t family, const struct ng_attribution_opts *o)
{
    double *p = ng_xcalloc(v->n_kernels + 1, sizeof *p);
    size_t n = 0;

    for (size_t i = 0; i < v->n_kernels; i++)
        if (v->kernels[i].gated && v->kernels[i].has_p)
            p[n++] = v->kernels[i].p_value;
    ng_means_holm(p, n, family);
    n = 0;
    for (size_t i = 0; i < v->n_kernels; i++) {
        struct ng_kernel_delta *d = &v->kernels[i];
        if (!d->gated || d->verdict == NG_OUTCOME_PASS)
            continue;
        if (d->has_p) {
            d->p_adjusted = p[n++];
            d->verdict = d->p_adjusted > o->alpha ? NG_OUTCOME_INCONCLUSIVE : NG_OUTCOME_FAIL;
        }
        if (d->verdict == NG_OUTCOME_FAIL)
            v->n_items_failed++;
        else
            v->n_items_inconclusive++;
    }
    free(p);
}

/* The items the verdict keeps, chosen as they are made (a summary may
 * have millions): the top --top by contribution; with per-kernel gates
 * also the top --top by current time (JUnit lists them) and every item
 * the gates did not pass. */
struct keep {
    struct ng_kernel_delta *best;      /* top by contribution, in order */
    struct ng_kernel_delta *busiest;   /* top by current time, in order */
    size_t n_best, n_busiest, top;
    struct ng_kernel_delta *flagged;   /* gated, not passed */
    size_t n_flagged;
    int grows_first;
};

/* Inserts d into the ordered list (at most keep->top long) if it ranks. */
static void keep_ranked(struct ng_kernel_delta *list, size_t *n, size_t top,
                        const struct ng_kernel_delta *d, int (*before)(const struct ng_kernel_delta *,
                        const struct ng_kernel_delta *, int), int grows_first)
{
    if (top == 0 || (*n == top && !before(d, &list[top - 1], grows_first)))
        return;
    size_t at = *n < top ? (*n)++ : top - 1;
    while (at > 0 && before(d, &list[at - 1], grows_first)) {
        list[at] = list[at - 1];
        at--;
    }
    list[at] = *d;
}

static int contributes_more(const struct ng_kernel_delta *x, const struct ng_kernel_delta *y,
                            int grows_first)
{
    return by_contribution(x, y, &grows_first) < 0;
}

/* More current time first; ties by contribution (the order they had in
 * the verdict's list, where JUnit sorts them the same way). */
static int busier(const struct ng_kernel_delta *x, const struct ng_kernel_delta *y,
                  int grows_first)
{
    if (x->current_ms_per_epoch != y->current_ms_per_epoch)
        return x->current_ms_per_epoch > y->current_ms_per_epoch;
    return by_contribution(x, y, &grows_first) < 0;
}

static void keep_item(struct keep *k, const struct ng_kernel_delta *d, int gates)
{
    keep_ranked(k->best, &k->n_best, k->top, d, contributes_more, k->grows_first);
    if (!gates)
        return;
    keep_ranked(k->busiest, &k->n_busiest, k->top, d, busier, k->grows_first);
    if (d->verdict != NG_OUTCOME_PASS) {
        k->flagged = ng_xgrow(k->flagged, k->n_flagged, sizeof *k->flagged);
        k->flagged[k->n_flagged++] = *d;
    }
}

static int same_item(const struct ng_kernel_delta *x, const struct ng_kernel_delta *y)
{
    return x->kind == y->kind && strcmp(x->name, y->name) == 0;
}

/* The kept items, each once, in contribution order. */
static struct ng_kernel_delta *kept_items(struct keep *k, size_t *n)
{
    struct ng_kernel_delta *all[3] = { k->best, k->busiest, k->flagged };
    size_t count[3] = { k->n_best, k->n_busiest, k->n_flagged };
    struct ng_kernel_delta *out = ng_xcalloc(k->n_best + k->n_busiest + k->n_flagged + 1,
                                             sizeof *out);
    size_t m = 0;
    /* each item came to keep_item once, so a list holds it at most once:
     * only the earlier lists (at most 2 x top items) are searched, never
     * the flagged ones among themselves, however many fail */
    for (int l = 0; l < 3; l++) {
        size_t earlier = m;
        for (size_t i = 0; i < count[l]; i++) {
            size_t j = 0;
            while (j < earlier && !same_item(&out[j], &all[l][i]))
                j++;
            if (j == earlier)
                out[m++] = all[l][i];
        }
    }
    qsort_r(out, m, sizeof *out, by_contribution, &k->grows_first);
    *n = m;
    return out;
}

static void item_delta(struct ng_kernel_delta *d, const struct agg *a, const double div[2])
{
    memset(d, 0, sizeof *d);
    d->name = a->first->name;
    d->kind = a->first->kind;
    d->status = !(a->seen & 1) ? NG_KERNEL_NEW : !(a->seen & 2) ? NG_KERNEL_GONE
                                                                : NG_KERNEL_CHANGED;
    d->baseline_ms_per_epoch = (double)a->ns[0] / 1e6 / div[0];
    d->current_ms_per_epoch = (double)a->ns[1] / 1e6 / div[1];
    d->delta_ms_per_epoch = d->current_ms_per_epoch - d->baseline_ms_per_epoch;
    d->baseline_instances_per_epoch = (double)a->inst[0] / div[0];
    d->current_instances_per_epoch = (double)a->inst[1] / div[1];
}

static void places_compared(struct ng_comparability *c, const struct ng_verdict_side *b,
                            const struct ng_verdict_side *cur)
{
    c->has_places = b->has_places && cur->has_places;
    c->baseline_devices = b->n_devices;
    c->current_devices = cur->n_devices;
    c->baseline_processes = b->n_processes;
    c->current_processes = cur->n_processes;
}

/* The nested range groups of both sides by name: their time per epoch,
 * the change, its share of the items' total change, ordered as the items
 * are (most contribution to the change's direction first, then name). */
static int ranges_first(const void *pa, const void *pb, void *grows_first)
{
    const struct ng_range_delta *a = pa, *b = pb;
    double x = *(const int *)grows_first ? a->delta_ms_per_epoch : -a->delta_ms_per_epoch;
    double y = *(const int *)grows_first ? b->delta_ms_per_epoch : -b->delta_ms_per_epoch;
    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void add_nested(struct ng_verdict *v, struct ng_strmap *index, int64_t (**ns)[2],
                       const struct ng_profile *p, size_t np, int side)
{
    for (size_t i = 0; i < np; i++)
        for (size_t k = 0; k < p[i].n_nested; k++) {
            const struct ng_nested_range *r = &p[i].nested[k];
            int added;
            size_t at = ng_strmap_get(index, r->name, strlen(r->name), v->n_ranges, &added);
            if (added) {
                v->ranges = ng_xgrow(v->ranges, v->n_ranges, sizeof *v->ranges);
                *ns = ng_xgrow(*ns, v->n_ranges, sizeof **ns);
                v->ranges[at] = (struct ng_range_delta){ .name = ng_xstrdup(r->name) };
                (*ns)[at][0] = (*ns)[at][1] = 0;
                v->n_ranges++;
            }
            if (__builtin_add_overflow((*ns)[at][side], r->ns, &(*ns)[at][side]))
                (*ns)[at][side] = INT64_MAX;   /* over the runs of a side: shown as the most */
        }
}

static void attribute_ranges(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                             const struct ng_profile *c, size_t nc, const double div[2],
                             double total_delta)
{
    struct ng_strmap index = NG_STRMAP_INIT;
    int64_t (*ns)[2] = NULL;

    v->has_ranges = nb > 0 && nc > 0;
    for (size_t i = 0; i < nb; i++)
        v->has_ranges &= b[i].has_nested;
    for (size_t i = 0; i < nc; i++)
        v->has_ranges &= c[i].has_nested;
    if (!v->has_ranges)
        return;
    add_nested(v, &index, &ns, b, nb, 0);
    add_nested(v, &index, &ns, c, nc, 1);
    for (size_t i = 0; i < v->n_ranges; i++) {
        struct ng_range_delta *r = &v->ranges[i];
        r->baseline_ms_per_epoch = (double)ns[i][0] / 1e6 / div[0];
        r->current_ms_per_epoch = (double)ns[i][1] / 1e6 / div[1];
        r->delta_ms_per_epoch = r->current_ms_per_epoch - r->baseline_ms_per_epoch;
        r->share = total_delta != 0 ? r->delta_ms_per_epoch / total_delta : 0;
    }
    int grows_first = total_delta >= 0;
    if (v->n_ranges > 1)
        qsort_r(v->ranges, v->n_ranges, sizeof *v->ranges, ranges_first, &grows_first);
    free(ns);
    ng_strmap_release(&index);
}

/* Per-epoch figures divide by the epochs each side counted: total mode
 * --epochs per run, NVTX mode the counted epochs of all runs.  Two passes
 * over the items: the total change (for the shares and the order), then
 * each item's delta, gated and kept or dropped. */
void ng_attribution_fill(struct ng_verdict *v, const struct ng_profile *b, size_t nb,
                         const struct ng_profile *c, size_t nc,
                         const struct ng_attribution_opts *o)
{
    struct aggs g = { NULL, 0, NULL, 0, NULL };
    double div[2] = { v->baseline.epochs_counted, v->current.epochs_counted };
    int gates = o->kernel_threshold > 0;
    struct ng_kernel_delta d;

    aggregate(&g, b, nb, 0);
    aggregate(&g, c, nc, 1);
    const struct ng_work_row **rows = gates ? item_rows(&g, b, nb, c, nc) : NULL;
    free(g.slots);
    free(g.hash_of);

    double total_delta = 0;
    for (size_t i = 0; i < g.n; i++) {
        item_delta(&d, &g.a[i], div);
        total_delta += d.delta_ms_per_epoch;
    }
    struct ng_comparability_acc cmp;
    ng_comparability_begin(&cmp, &v->comparability);
    size_t top = (size_t)o->top;
    struct keep k = { ng_xcalloc(top + 1, sizeof *k.best), ng_xcalloc(top + 1, sizeof *k.busiest),
                      0, 0, top, NULL, 0, total_delta >= 0 };
    for (size_t i = 0; i < g.n; i++) {
        item_delta(&d, &g.a[i], div);
        d.share = total_delta != 0 ? d.delta_ms_per_epoch / total_delta : 0;
        ng_comparability_add(&cmp, d.name, d.kind, g.a[i].seen, d.baseline_ms_per_epoch,
                             d.current_ms_per_epoch, d.baseline_instances_per_epoch,
                             d.current_instances_per_epoch);
        if (gates)
            gate_item(v, &d, rows + i * (nb + nc), b, nb, c, nc, o);
        keep_item(&k, &d, gates);
    }
    ng_comparability_finish(&cmp);
    attribute_ranges(v, b, nb, c, nc, div, total_delta);
    places_compared(&v->comparability, &v->baseline, &v->current);
    v->n_top = g.n < top ? g.n : top;
    v->kernels = kept_items(&k, &v->n_kernels);
    if (gates)
        holm_items(v, g.n, o);
    free(k.best);
    free(k.busiest);
    free(k.flagged);
    free(rows);
    free(g.a);
}
