/* ng_source_kineto: the torch.profiler (Kineto) Chrome-trace backend
 * (ng_source_kind.h), plain or gzip.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_SOURCE_KINETO_H
#define NG_SOURCE_KINETO_H

#include "sources/ng_source_kind.h"

extern const struct ng_source_kind ng_source_kineto;

#endif
