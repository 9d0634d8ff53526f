#include "core/ng_work_rates.h"

#include <stdlib.h>
#include <string.h>

#include "util/ng_text.h"
#include "util/ng_util.h"

const char ng_work_rates_others[] = "others";

struct sum {
    const char *name;
    enum ng_work_kind kind;
    int64_t ns, launches;
    const struct ng_epoch_cells *cells;   /* a row's (one profile merged), else NULL */
};

static int by_time(const void *a, const void *b)
{
    const struct sum *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Every row of the profiles merged by kind and name, largest first; an
 * others row (of folded profiles) goes into *others, never into the list. */
static struct sum *merged(const struct ng_profile *p, size_t n, size_t *count,
                          struct sum *others)
{
    struct ng_strmap index = NG_STRMAP_INIT;
    struct ng_buf key = NG_BUF_INIT;   /* one buffer for every row's key */
    struct sum *rows = NULL;

    *count = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < p[i].n_rows; k++) {
            const struct ng_work_row *r = &p[i].rows[k];
            struct sum *to = others;
            if (r->kind != NG_WORK_OTHERS) {
                int added;
                key.len = 0;
                ng_buf_addf(&key, "%c%s", 'a' + (int)r->kind, r->name);
                size_t at = ng_strmap_get(&index, key.data, key.len, *count, &added);
                if (added) {
                    rows = ng_xgrow(rows, *count, sizeof *rows);
                    rows[(*count)++] = (struct sum){ r->name, r->kind, 0, 0, n == 1 ? r->cells
                                                                               : NULL };
                }
                to = &rows[at];
            }
            to->ns += r->total_ns;
            to->launches += r->instances;
        }
    }
    ng_strmap_release(&index);
    ng_buf_release(&key);
    if (*count)
        ng_sort(rows, *count, sizeof *rows, by_time);
    return rows;
}

/* One profile's rows are merged by kind and name already, and in
 * by_time's order: its first NG_WORK_RATES_CAP rows are the list and the rest
 * fold into *others, with no copy of them all (a saved summary of ten
 * million names would double its memory for a list of NG_WORK_RATES_CAP). */
static struct sum *top_of_one(const struct ng_profile *p, size_t *count, struct sum *others,
                              int *folded)
{
    struct sum *rows = ng_xcalloc(NG_WORK_RATES_CAP + 1, sizeof *rows);

    *count = 0;
    for (size_t k = 0; k < p->n_rows; k++) {
        const struct ng_work_row *r = &p->rows[k];
        if (r->kind != NG_WORK_OTHERS && *count < NG_WORK_RATES_CAP) {
            rows[(*count)++] = (struct sum){ r->name, r->kind, r->total_ns, r->instances,
                                             r->cells };
            continue;
        }
        *folded |= r->kind != NG_WORK_OTHERS;
        others->ns += r->total_ns;
        others->launches += r->instances;
    }
    return rows;
}

void ng_work_rates_fill(struct ng_verdict *v, const struct ng_profile *p, size_t n)
{
    struct sum others = { ng_work_rates_others, NG_WORK_OTHERS, 0, 0, NULL };
    size_t count;
    double per = v->current.epochs_counted;

    if (!v->has_figures || !(per > 0))
        return;
    int folded_rows = 0;
    struct sum *rows = n == 1 ? top_of_one(p, &count, &others, &folded_rows)
                              : merged(p, n, &count, &others);
    size_t kept = count < NG_WORK_RATES_CAP ? count : NG_WORK_RATES_CAP;
    int folded = folded_rows || others.launches > 0 || others.ns > 0;
    for (size_t i = kept; i < count; i++, folded = 1) {
        others.ns += rows[i].ns;
        others.launches += rows[i].launches;
    }
    v->rows = ng_xcalloc(kept + 1, sizeof *v->rows);
    for (size_t i = 0; i < kept + (size_t)folded; i++) {
        const struct sum *s = i < kept ? &rows[i] : &others;
        v->rows[i] = (struct ng_work_rate){ s->name, s->kind, (double)s->ns / 1e6 / per,
                                            (double)s->launches / per };
    }
    v->n_rows = kept + (size_t)folded;
    v->has_rows = 1;
    free(rows);
}

void ng_work_rates_name(struct ng_buf *out, const char *name)
{
    ng_text_cut(out, name, NG_WORK_RATES_NAME_MAX, 1);
}

/* Adds a row to p with the epoch cells (per-kernel gates in NVTX mode)
 * it had: rows that merge, merge their cells too. */
static void add_with_cells(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                           size_t len, int64_t ns, int64_t launches,
                           const struct ng_epoch_cells *cells)
{
    ng_profile_add_row(p, kind, name, len, ns, launches);
    if (cells && cells->n)
        ng_profile_add_cells(p, kind, name, cells->epoch, cells->ns, cells->n);
}

void ng_work_rates_fold(struct ng_profile *p)
{
    struct ng_profile named, folded;
    struct sum others = { ng_work_rates_others, NG_WORK_OTHERS, 0, 0, NULL };
    size_t count;

    ng_profile_init(&named, p->path);
    ng_profile_init(&folded, p->path);
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct ng_work_row *r = &p->rows[i];
        struct ng_buf name = NG_BUF_INIT;
        if (r->kind == NG_WORK_OTHERS)
            ng_buf_adds(&name, ng_work_rates_others);
        else
            ng_work_rates_name(&name, r->name);
        add_with_cells(r->kind == NG_WORK_OTHERS ? &folded : &named, r->kind,
                       name.data ? name.data : "", name.len, r->total_ns, r->instances, r->cells);
        ng_buf_release(&name);
    }
    struct sum *rows = merged(&named, 1, &count, &others);
    for (size_t i = 0; i < count; i++) {
        int kept = i < NG_WORK_RATES_CAP;
        add_with_cells(&folded, kept ? rows[i].kind : NG_WORK_OTHERS,
                       kept ? rows[i].name : ng_work_rates_others,
                       strlen(kept ? rows[i].name : ng_work_rates_others), rows[i].ns,
                       rows[i].launches, rows[i].cells);
    }
    free(rows);
    ng_profile_take_rows(p, &folded);
    ng_profile_release(&folded);
    ng_profile_release(&named);
}
