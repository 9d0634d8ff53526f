/* ng_source_summary: nsys-gate summaries as an input kind
 * (ng_source_kind.h), plain or gzip, told by their first key
 * ("nsys_gate_summary"): a summary loads into the profile it was made
 * from (ng_summary_file), so a gate on it reaches the profile's verdict.
 *
 * Ownership: as in ng_source.h. */
#ifndef NG_SOURCE_SUMMARY_H
#define NG_SOURCE_SUMMARY_H

#include "sources/ng_source_kind.h"

extern const struct ng_source_kind ng_source_summary;

#endif
