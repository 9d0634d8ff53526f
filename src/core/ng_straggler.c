#include "core/ng_straggler.h"

#include <stdlib.h>

#include "util/ng_util.h"

/* The median of sorted[0..n) without the element at `skip` (one of the
 * values equal to the place's own: which one is left out does not
 * matter). */
static double median_without(const double *sorted, size_t n, size_t skip)
{
    size_t m = n - 1;
#define AT(k) sorted[(k) < skip ? (k) : (k) + 1]
    return m % 2 ? AT(m / 2) : (AT(m / 2 - 1) + AT(m / 2)) / 2;
#undef AT
}

static size_t index_of(const double *sorted, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ng_stragglers(const struct ng_place *places, size_t n, enum ng_straggler_kind kind,
                   double epochs, double threshold, struct ng_straggler **out, size_t *n_out)
{
    if (n < 2 || !(epochs > 0) || !(threshold > 0))
        return;
    double *sorted = ng_xcalloc(n, sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (double)places[i].ns / 1e6 / epochs;
    ng_sort(sorted, n, sizeof *sorted, ng_cmp_double);
    for (size_t i = 0; i < n; i++) {
        double ms = (double)places[i].ns / 1e6 / epochs;
        double others = median_without(sorted, n, index_of(sorted, n, ms));
        if (!(others > 0) || !(ms > threshold * others))
            continue;
        *out = ng_xgrow(*out, *n_out, sizeof **out);
        (*out)[(*n_out)++] = (struct ng_straggler){
            kind, places[i].id, kind == NG_STRAGGLER_DEVICE ? places[i].owner : -1,
            kind == NG_STRAGGLER_PROCESS ? places[i].rank : -1, ms, others };
    }
    free(sorted);
}

const char *ng_straggler_word(enum ng_straggler_kind kind)
{
    return kind == NG_STRAGGLER_PROCESS ? "process" : "device";
}
