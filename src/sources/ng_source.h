/* ng_source: turns a path into a loaded ng_profile, whatever its kind.
 * The kind is recognised by content first (magic bytes; a gzip file or a
 * JSON object is a Chrome trace), extension second; text that is none of
 * these is read as saved `nsys stats` output.
 *
 * Ownership: the options are borrowed for the duration of the call; the
 * profile is the caller's (initialised with its path before the call, to be
 * released by the caller whatever the result). */
#ifndef NG_SOURCE_H
#define NG_SOURCE_H

#include "core/ng_profile.h"
#include "sources/ng_source_opts.h"
#include "util/ng_err.h"

int ng_source_load(struct ng_profile *p, const struct ng_source_opts *opts,
                   struct ng_err *err);

/* The kind ng_source_load() would pick for a file, without reading more than
 * its first bytes: for messages and tests.  Fails for unreadable paths. */
int ng_source_detect(const char *path, enum ng_format *format, struct ng_err *err);

#endif
