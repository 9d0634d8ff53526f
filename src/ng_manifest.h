/* ng_manifest: batch mode (--manifest FILE.json).  Reads the manifest into
 * one settings struct per gate, runs the gates in parallel, each in its own
 * process, and collects their verdicts.
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
 * Why a process per gate: reading an .nsys-rep keeps a temporary
 * directory and signal handlers in process globals, so gates cannot share
 * one.  A child runs ng_gate_run() and writes its verdict as one JSON line
 * into a pipe; the parent reads it back (ng_verdict_doc_read()), so the
 * reporters see an ordinary verdict.  A child that dies without one is an
 * ERROR for its gate, not for the batch.
 *
 * Ownership: a manifest owns its gates, the copies of every string their
 * settings point at, and their results; ng_manifest_release() frees all.
 * The defaults passed in are copied, but what they point at (argv, the
 * environment) is borrowed and must outlive the manifest.  Like ng_cli,
 * this layer never prints. */
#ifndef NG_MANIFEST_H
#define NG_MANIFEST_H

#include <stddef.h>

#include "ng_cli.h"
#include "ng_err.h"
#include "ng_report.h"

struct ng_manifest_gate {
    struct ng_settings settings;     /* the command line's, then the entry's fields */
    struct ng_verdict_doc result;    /* set by ng_manifest_run() */
};

struct ng_manifest {
    const char *path;                /* borrowed from the defaults */
    struct ng_manifest_gate *gates;
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

/* A manifest that could not be read, or a bad command line in batch mode:
 * one gate named "manifest" whose result is ERROR with this message, so
 * every report still shows it. */
void ng_manifest_refuse(struct ng_manifest *m, const struct ng_settings *defaults,
                        const char *error);

/* Every profile any gate names, in gate order (a new array of borrowed
 * paths, for the caller to free; *n says how many). */
const char **ng_manifest_profiles(const struct ng_manifest *m, size_t *n);

/* Runs every gate, at most `jobs` at once (<= 0: one per processor), and
 * fills each gate's result.  The gates share one set of export slots
 * (ng_slots: --jobs exports at once across the batch, within the memory
 * bound); unless progress is off, each finished gate is told on stderr
 * ("[12/40] resnet50: PASS: ... (3.2 s)"). */
void ng_manifest_run(struct ng_manifest *m, long jobs);

void ng_manifest_release(struct ng_manifest *m);

#endif
