/* ng_rocprof_feed: what the rocprofv3 readers (JSON, CSV, rocpd) share
 * once a record is read: the event sink set up for rocprofv3 (its words,
 * steps on the launching thread, attribution by GPU start when a profile
 * has no HIP launch calls) and a kernel dispatch or a memory copy handed
 * to it, named and counted alike whichever file it came from.
 *
 * Ownership: the sink is the caller's; names are copied by the sink. */
#ifndef NG_ROCPROF_FEED_H
#define NG_ROCPROF_FEED_H

#include <stdint.h>

#include "sources/ng_source_events.h"

/* ng_source_events_init() for a rocprofv3 profile. */
int ng_rocprof_feed_init(struct ng_source_events *ev, struct ng_profile *p,
                         const struct ng_source_opts *opts, const char *shown,
                         struct ng_err *err);

/* The same with total mode's window of operations unless keep_all: for a
 * reader that can read its file again when the window does not hold an
 * operation (ng_source_events_load()), rocpd's, whose big table then
 * costs no memory per row. */
int ng_rocprof_feed_init_window(struct ng_source_events *ev, struct ng_profile *p,
                                const struct ng_source_opts *opts, const char *shown,
                                int keep_all, struct ng_err *err);

/* One kernel dispatch of process proc: its launching thread and internal
 * correlation id, its GPU (the ordinal among the node's GPUs), its times
 * (end >= start: the reader checked) and its names: full (the demangled,
 * formatted name) and base (rocprofv3's truncated name, or NULL to derive
 * it; a ".kd" it keeps is dropped).  -1 with the sink's err. */
int ng_rocprof_feed_kernel(struct ng_source_events *ev, uint32_t proc, int64_t corr,
                           int64_t device, int64_t start, int64_t end, const char *full,
                           const char *base);

/* One memory copy, named as the nsys reader names it (name from
 * ng_source_names_copy_operation()). */
int ng_rocprof_feed_copy(struct ng_source_events *ev, uint32_t proc, int64_t corr,
                         int64_t device, int64_t start, int64_t end, const char *name);

#endif
