/* ng_gate: one gate run, from settings to a finished verdict: compiles the
 * reading (ng_read), loads every profile of both sides, decides.  main and the
 * batch runner both go through here.
 *
 * Ownership: a struct ng_gate owns its profiles and its verdict (which
 * borrows from them and from the settings: keep the settings alive);
 * ng_gate_release() frees both. */
#ifndef NG_GATE_H
#define NG_GATE_H

#include "cli/ng_cli.h"
#include "core/ng_profile.h"
#include "core/ng_verdict.h"
#include "run/ng_read.h"

struct ng_history_baseline;

struct ng_gate {
    struct ng_profile baseline[NG_MAX_RUNS];
    size_t nb;
    struct ng_profile current[NG_MAX_RUNS];
    size_t nc;
    struct ng_read read;       /* what the profiles are read with */
    struct ng_verdict verdict;
};

/* Runs the gate.  usage_err, when not NULL, is a settings error found by
 * the caller: the verdict is then that ERROR, with whatever paths are
 * known.  Always leaves a finished verdict in g->verdict. */
void ng_gate_run(struct ng_gate *g, const struct ng_settings *s, const struct ng_err *usage_err);

void ng_gate_release(struct ng_gate *g);

/* What gate s looks for in its --baseline-history file (ng_history_baseline_init()
 * with s's figures; nothing read yet). */
void ng_gate_history_baseline_init(struct ng_history_baseline *w, const struct ng_settings *s);

#endif
