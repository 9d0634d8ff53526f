/* ng_source_nsys_stats: the saved `nsys stats` text backend
 * (ng_source_kind.h), the fallback for any file of no other kind.
 *
 * Ownership: as in ng_source.h; the stream is the caller's. */
#ifndef NG_SOURCE_NSYS_STATS_H
#define NG_SOURCE_NSYS_STATS_H

#include <stdio.h>

#include "core/ng_profile.h"
#include "sources/ng_source_kind.h"
#include "util/ng_err.h"

extern const struct ng_source_kind ng_source_nsys_stats;

/* Parses saved `nsys stats` text from an open stream (the backend's core,
 * exposed for the unit tests, which feed it from memory).  Of opts only
 * `work` and `base_names` are read (NULL: the default kinds). */
int ng_nsys_stats_parse_stream(struct ng_profile *p, FILE *f, const char *shown,
                               const struct ng_source_opts *opts, struct ng_err *err);

#endif
