/* ng_source_kineto: the torch.profiler (Kineto) Chrome-trace backend
 * (ng_source_kind.h), plain or gzip.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_SOURCE_KINETO_H
#define NG_SOURCE_KINETO_H

#include <stddef.h>
#include <stdint.h>

#include "sources/ng_source_kind.h"

extern const struct ng_source_kind ng_source_kineto;

/* A Chrome trace's time (or any decimal JSON number), text[0..n), times
 * 10^scale, rounded to the nearest integer (halves away from zero) into
 * *out, exactly: ts and dur in microseconds with scale 3 are nanoseconds,
 * never through a double.  -1 when the text is not a JSON number or the
 * result does not fit 64 bits.  (The Kineto reader's, exposed for the
 * unit tests.) */
int ng_kineto_time_ns(const char *text, size_t n, int scale, int64_t *out);

#endif
