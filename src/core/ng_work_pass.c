#include "core/ng_work_pass.h"

#include <stdlib.h>

/* The counted epochs, in order, and how many the pattern matched that
 * were skipped or had no work. */
static void add_epochs(struct ng_profile *p, const struct ng_work_pass *w)
{
    size_t n, empty;
    struct ng_nvtx_result *res = ng_nvtx_results(w->pj, &n, &empty);

    for (size_t i = 0; i < n; i++)
        ng_profile_add_epoch(p, res[i].name, res[i].first_start, res[i].ns, res[i].launches);
    free(res);
    p->nvtx = 1;
    p->skipped_epochs = (size_t)w->skip_epochs;
    p->empty_epochs = empty;
}

int ng_work_pass_finish(struct ng_profile *p, const struct ng_work_pass *w, const char *shown,
                        struct ng_err *err)
{
    if (w->pj) {
        add_epochs(p, w);
    } else if (w->metric != NG_METRIC_KERNEL_SUM) {
        p->measured_ns = ng_acc_value(w->whole, w->metric);
        p->measured = 1;
    }
    /* where the counted time went: the whole pass's, or the counted epochs' */
    int r = w->pj ? ng_nvtx_breakdown(w->pj, &p->bd_devices, &p->n_bd_devices, &p->breakdown)
                  : ng_acc_breakdown(w->whole, &p->bd_devices, &p->n_bd_devices, &p->breakdown);
    if (r < 0)
        return ng_err_set(err, "'%s': the breakdown of its GPU time overflows 64 bits", shown);
    p->has_breakdown = 1;
    if (w->pj) {
        ng_nvtx_nested_each(w->pj, ng_profile_add_nested, p);
        p->has_nested = 1;
    }
    return 0;
}
