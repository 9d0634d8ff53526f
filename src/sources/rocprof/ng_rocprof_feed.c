#include "sources/rocprof/ng_rocprof_feed.h"

#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

/* What the sink says of a rocprofv3 profile. */
static const struct ng_source_events_words words = {
    /* rocprofv3 has no step marker of its own: "step N" ROCTx ranges, the
     * number as key, as a training loop would push them */
    .auto_pattern = "^step[ _#]?([0-9]+)$",
    .auto_shown = " (ROCTx ranges named \"step N\")",
    .no_ranges = "no ROCTx ranges",
    .no_ranges_hint = ": record them with rocprofv3 --marker-trace (roctxRangePush / "
                      "roctxRangePop around each step)",
    .a_range = "ROCTx range",
    .no_work = "no kernel dispatches: was it recorded with rocprofv3 --kernel-trace?",
    .unlaunched = "record with rocprofv3 --hip-trace to have every launch",
    .by_time = "record with rocprofv3 --hip-trace --marker-trace to attribute each kernel "
               "to the step that launched it",
};

int ng_rocprof_feed_init(struct ng_source_events *ev, struct ng_profile *p,
                         const struct ng_source_opts *opts, const char *shown,
                         struct ng_err *err)
{
    /* every operation kept: the readers hold a process's records anyway,
     * and nothing is read twice */
    return ng_rocprof_feed_init_window(ev, p, opts, shown, 1, err);
}

int ng_rocprof_feed_init_window(struct ng_source_events *ev, struct ng_profile *p,
                                const struct ng_source_opts *opts, const char *shown,
                                int keep_all, struct ng_err *err)
{
    return ng_source_events_init(ev, p, opts, shown, &words,
                                 (keep_all ? NG_SOURCE_EVENTS_KEEP_ALL : 0) |
                                     NG_SOURCE_EVENTS_THREAD_STEPS |
                                     NG_SOURCE_EVENTS_TIME_FALLBACK,
                                 err);
}

/* An operation into the sink as an item of kind, keyed by its names. */
static int feed(struct ng_source_events *ev, enum ng_work_kind kind, uint32_t proc, int64_t corr,
                int64_t device, int64_t start, int64_t end, const char *full, const char *base)
{
    if (!ng_source_events_counts(ev, kind))
        return ng_source_events_leave_out(ev, kind, end - start);
    /* both names in one key, the full one's NUL between them (a key may
     * hold NULs); on the stack unless long, as this runs once per
     * operation */
    size_t nf = strlen(full) + 1, nb = base ? strlen(base) : 0;
    char small[512];
    char *key = nf + nb <= sizeof small ? small : ng_xmalloc(nf + nb);
    memcpy(key, full, nf);
    if (nb)
        memcpy(key + nf, base, nb);
    int64_t item = ng_source_events_item(ev, kind, key, nf + nb, full, base);
    if (key != small)
        free(key);
    if (item < 0)
        return -1;
    return ng_source_events_work(ev, proc, 1, corr, device, start, end, (size_t)item);
}

int ng_rocprof_feed_kernel(struct ng_source_events *ev, uint32_t proc, int64_t corr,
                           int64_t device, int64_t start, int64_t end, const char *full,
                           const char *base)
{
    /* rocprofv3 keeps the code object's ".kd" (kernel descriptor) suffix
     * in its truncated and demangled names, not in the formatted one */
    char *cut = NULL;
    size_t n = base ? strlen(base) : 0;
    if (n > 3 && strcmp(base + n - 3, ".kd") == 0)
        base = cut = ng_xstrndup(base, n - 3);
    int ret = feed(ev, NG_WORK_KERNEL, proc, corr, device, start, end, full, base);
    free(cut);
    return ret;
}

int ng_rocprof_feed_copy(struct ng_source_events *ev, uint32_t proc, int64_t corr,
                         int64_t device, int64_t start, int64_t end, const char *name)
{
    return feed(ev, NG_WORK_MEMCPY, proc, corr, device, start, end, name, NULL);
}
