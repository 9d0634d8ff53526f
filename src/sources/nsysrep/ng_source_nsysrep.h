/* ng_source_nsysrep: the .nsys-rep / .qdrep backend (ng_source_kind.h):
 * the report exported through nsys, then read as an SQLite export.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_SOURCE_NSYSREP_H
#define NG_SOURCE_NSYSREP_H

#include "sources/ng_source_kind.h"

extern const struct ng_source_kind ng_source_nsysrep;

#endif
