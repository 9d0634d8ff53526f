/* ng_batch: runs the gates of one invocation and produces the ng_batch
 * the reporters read.  A single gate (the command line's profiles) is a
 * batch of one, run in this process; with --manifest every gate of the
 * manifest runs in a child process of its own, at most -j at once.
 *
 * Why a process per manifest gate: reading an .nsys-rep keeps a temporary
 * directory and signal registrations in process globals, so gates cannot
 * share one process.  A child runs ng_gate_run() and writes its verdict as
 * one JSON line into a pipe; the parent reads it back
 * (ng_verdict_doc_read()), so the reporters see an ordinary verdict.  A
 * child that dies without one is an ERROR for its gate, not for the batch.
 * The children share one set of export slots made before they are forked
 * (ng_export_slots), so --jobs bounds the exports of all gates together; each
 * finished gate is told through ng_progress ("[12/40] resnet50: PASS ...").
 *
 * What the run decides is all in the struct: the verdicts, the run's own
 * error (a usage error, a manifest that could not be read: then the batch
 * is one ERROR gate, so every report still says why), a refused report
 * path, the settings whose outputs are to be written, and the exit status.
 * Like ng_cli and ng_manifest, this layer never prints: main prints and
 * writes the reports.
 *
 * Ownership: a run owns its gates, their verdicts, the manifest it read
 * and the batch view over them; ng_batch_run_release() frees all.  The
 * command line's settings are borrowed and must outlive the run. */
#ifndef NG_BATCH_H
#define NG_BATCH_H

#include <stddef.h>

#include "cli/ng_cli.h"
#include "cli/ng_manifest.h"
#include "history/ng_history_baseline.h"
#include "history/ng_verdict_doc.h"
#include "reporters/ng_report.h"
#include "run/ng_gate.h"
#include "util/ng_err.h"

struct ng_batch_gate {
    const struct ng_settings *settings;   /* the command line's, or its manifest entry's */
    struct ng_settings *own;              /* settings the gate owns, when it has no other
                                             (a refused manifest's one gate) */
    struct ng_gate *local;                /* a gate run in this process (a single gate) */
    struct ng_verdict_doc result;         /* a child's verdict read back, or its error */
    const struct ng_verdict *verdict;     /* the one of the two that holds it */
};

struct ng_batch_run {
    struct ng_verdict_batch batch;            /* what the reporters read: one verdict a gate */
    struct ng_batch_gate *gates;
    size_t n_gates;
    struct ng_manifest manifest;      /* with --manifest: every gate's settings */
    struct ng_history_baseline *windows;        /* gate i's --baseline-history runs, read once a
                                         file before the gates start (NULL: none) */
    struct ng_settings outputs;       /* whose outputs to write: the command line's, less
                                         any refused path */
    char error[NG_ERR_MAX];           /* the run's own ERROR (empty if none): the single
                                         gate's error, a usage error, an unreadable manifest */
    char refusal[NG_ERR_MAX];         /* a report path refused after the gates were known
                                         (it is one of their profiles); empty if none */
    char note[256];                   /* said once as a WARNING (empty if none): -j lowered
                                         to what the open-file limit allows */
    int exit_code;                    /* 0, 1 or 2 before the reports are written */
};

/* Runs every gate s asks for.  usage_err, when not NULL, is a settings
 * error found by the caller: the run is then that ERROR.  t0 is when the
 * invocation started (ng_monotonic()), for the elapsed times.  Always
 * leaves a finished batch of at least one gate. */
void ng_batch_run(struct ng_batch_run *r, const struct ng_settings *s,
                  const struct ng_err *usage_err, double t0);

void ng_batch_run_release(struct ng_batch_run *r);

#endif
