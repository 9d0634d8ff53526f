/* ng_source_opts: what the gate asks of a reader, the options every
 * input kind is loaded with.  Callers fill it for ng_source_load()
 * (ng_source.h); backends read it (ng_source_kind.h), so that they need
 * nothing of the callers' header and the registry in ng_source.c can name
 * them without an arrow back.
 *
 * Ownership: everything it points to is borrowed, for the duration of a
 * load. */
#ifndef NG_SOURCE_OPTS_H
#define NG_SOURCE_OPTS_H

#include <stdint.h>

#include "core/ng_comm.h"
#include "core/ng_filter.h"
#include "core/ng_metric.h"
#include "util/ng_regex.h"

struct ng_cache;
struct ng_exports;

struct ng_source_opts {
    const char *nsys;          /* the nsys executable; NULL means "nsys" on PATH */
    unsigned work;             /* the kinds counted (NG_WORK_BIT); 0 means NG_WORK_DEFAULT */
    double nsys_timeout;       /* seconds before nsys is killed; <= 0 means none */
    /* NVTX mode when epoch_re is set: epochs are the outermost ranges whose
     * text matches it; the first skip_epochs of them are left out */
    const struct ng_regex *epoch_re;
    const char *epoch_pattern; /* as the user gave it, for messages */
    enum ng_metric metric;
    long skip_epochs;
    const struct ng_cache *cache;   /* .nsys-rep exports kept here; NULL = none */
    const struct ng_filter *filter;   /* --kernels / --exclude-kernels; NULL: every item */
    const struct ng_comm *comm;       /* which kernels are communication; NULL: none */
    const char *const *comm_text;     /* --comm-kernels as given (a summary records them) */
    size_t n_comm_text;
    int base_names;            /* --kernel-names base */
    int item_samples;          /* NVTX mode: keep each item's time per epoch (per-kernel
                                  gates test them) */
    int64_t sql_budget_ops;    /* SQLite VM operations a file may cost; 0: the default,
                                  which grows with the file's size */
    int sql_only;              /* read every table through SQL, not ng_btree (tests
                                  compare the two) */
    int list_ranges;           /* also list every NVTX range with the kernel time
                                  launched inside it (p->ranges; `nsys-gate ranges`) */
    /* the run's exports: operands naming one report share its export;
     * NULL = each load on its own */
    struct ng_exports *exports;
};

#endif
