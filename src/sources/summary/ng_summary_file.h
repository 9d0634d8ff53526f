/* ng_summary_file: a summary's text, `summary_version` 1 (docs/summaries.md,
 * schemas/summary.schema.json): a loaded struct ng_profile written whole
 * (every figure the decision reads, as exact int64 nanoseconds), with the
 * reading options it was made with and the file it came from, and an
 * XXH3-128 checksum of everything before it.  Reading it back gives the
 * same struct, so a gate on summaries reaches the profiles' verdict.
 *
 * A summary holds one profile's figures: its size follows the items and
 * epochs kept, never the rows the profile had.  Names that are not valid
 * UTF-8 are written as hex ("name_hex") and read back byte for byte.
 *
 * Ownership: the writer appends to the caller's buffer; the reader fills
 * the caller's profile (initialised with its path), which then owns what
 * was read; the text and the options are borrowed. */
#ifndef NG_SUMMARY_FILE_H
#define NG_SUMMARY_FILE_H

#include <stddef.h>

#include "core/ng_profile.h"
#include "sources/ng_source_opts.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

#define NG_SUMMARY_FILE_VERSION 1
/* The most text a summary may inflate to. */
#define NG_SUMMARY_FILE_MAX ((size_t)1 << 30)

/* Appends the summary of p (loaded with o, from the file origin) to out,
 * with what `nsys-gate ranges` lists of it when listing is not NULL.  The
 * text is the same bytes for the same profile, options, origin and
 * listing. */
void ng_summary_file_write(const struct ng_profile *p, const struct ng_source_opts *o,
                           const struct ng_profile_origin *origin,
                           const struct ng_profile_listing *listing, struct ng_buf *out);

/* Reads the summary text[0..len) into p, named `shown` in messages:
 * refuses, each with its own message, text cut short, a checksum that
 * does not match (an edited file), a version past this one's, and a
 * summary made with other reading options than o asks (naming both
 * values; with o->list_ranges, for `nsys-gate ranges`, they are not
 * checked).  p->format is then the profile's, p->origin its file, and
 * p->listing what `ranges` lists, when the summary has it. */
int ng_summary_file_read(struct ng_profile *p, const char *text, size_t len,
                         const struct ng_source_opts *o, struct ng_err *err);

/* 1 when head (a file's first bytes, inflated) starts a summary. */
int ng_summary_file_sniff(const unsigned char *head, size_t len);

#endif
