/* ng_summarize: `nsys-gate summarize [OPTIONS] -o OUT PROFILE`: reads the
 * profile as the gate would with the same options (ng_read, each item's
 * time per epoch kept in NVTX mode, so a later --kernel-threshold works
 * on the summary) and writes its summary (sources/summary/).  With
 * --ranks the PROFILEs (globs expanded) are the ranks of one run, read
 * --jobs at once and folded as each finishes (ng_read_ranks): one summary
 * of the run, the same bytes whatever the operands' order or --jobs.
 *
 * Like the other commands, this layer never prints: main prints the
 * warnings and the line the result holds, or the one ERROR.
 *
 * Ownership: the settings are borrowed; a result owns its warnings and
 * line until ng_summarize_result_release(). */
#ifndef NG_SUMMARIZE_H
#define NG_SUMMARIZE_H

#include <stddef.h>

#include "cli/ng_settings.h"
#include "util/ng_err.h"

struct ng_summarize_result {
    char **warnings;   /* the profile's and the reading's, without "WARNING: " */
    size_t n_warnings;
    char *line;        /* what was written, for stdout; NULL when nothing was */
};

/* -1 with err when the profile cannot be read or the summary written
 * (nothing is written then). */
int ng_summarize_run(const struct ng_settings *s, struct ng_summarize_result *res,
                     struct ng_err *err);

void ng_summarize_result_release(struct ng_summarize_result *res);

#endif
