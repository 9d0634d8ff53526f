/* ng_manifest: the batch manifest (--manifest FILE.json) read into one
 * settings struct per gate.  It only reads: ng_batch runs the gates.
 *
 *   {"gates": [{"name": "resnet", "baseline": "b.sqlite", "current": ["c1.sqlite", "c2.sqlite"],
 *               "epochs": 10, "threshold": "15%", "epoch_range": "auto", ...}]}
 *
 * Any gate option of the command line can be a field, spelled as its flag
 * with '_' for '-' (schemas/manifest.schema.json); the command line's
 * values are every gate's defaults.  Relative paths are resolved against
 * the manifest's folder.  name, baseline and current are required, and
 * names must be distinct (JUnit readers drop repeated test cases).
 *
 * Ownership: a manifest owns its gates' settings and the copies of every
 * string they point at; ng_manifest_release() frees all.  The defaults
 * passed in are copied, but what they point at (argv, the environment) is
 * borrowed and must outlive the manifest.  Like ng_cli, this layer never
 * prints. */
#ifndef NG_MANIFEST_H
#define NG_MANIFEST_H

#include <stddef.h>

#include "cli/ng_cli.h"
#include "util/ng_err.h"

struct ng_manifest {
    const char *path;                /* borrowed from the defaults */
    struct ng_settings *gates;       /* the command line's settings, then the entry's fields */
    size_t n_gates;
    char **strings;                  /* what the gates' settings point at */
    size_t n_strings;
};

/* Reads defaults->manifest.  On error the manifest is empty and err names
 * the file, and for a bad entry its index, name and field, e.g.
 * manifest 'nightly.json': gates[3] (name "bert"): field "threshold":
 * '0.5' must be a ratio of at least 1 (e.g. 1.2, 1.20x or 20%) */
int ng_manifest_load(struct ng_manifest *m, const struct ng_settings *defaults,
                     struct ng_err *err);

void ng_manifest_release(struct ng_manifest *m);

#endif
