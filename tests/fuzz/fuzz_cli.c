/* Fuzz target: the command line and the NSYS_GATE_* environment
 * (ng_cli_parse) and the threshold syntax (ng_values_parse_threshold).
 *
 * Input layout: pieces separated by NUL bytes.  A piece that starts with
 * byte 0x01 is an environment setting: its next byte picks the variable
 * (modulo the table below) and the rest is the value; every other piece is
 * one argv element.  Each piece is also tried as a threshold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "cli/ng_cli.h"
#include "cli/ng_outputs.h"
#include "cli/ng_values.h"

#define MAX_PIECES 96

static const char *const vars[] = {
    "NSYS_GATE_EPOCHS", "NSYS_GATE_THRESHOLD", "NSYS_GATE_JSON", "NSYS_GATE_JUNIT",
    "NSYS_GATE_NAME", "NSYS_GATE_NSYS", "NSYS_GATE_NSYS_TIMEOUT", "NSYS_GATE_QUIET",
    "NSYS_GATE_BASELINE", "NSYS_GATE_CURRENT", "NSYS_GATE_EPOCH_RANGE", "NSYS_GATE_METRIC",
    "NSYS_GATE_SKIP_EPOCHS", "NSYS_GATE_ALPHA", "NSYS_GATE_FAIL_INCONCLUSIVE",
    "NSYS_GATE_TOP", "NSYS_GATE_VERBOSE",
};
#define NVARS (sizeof vars / sizeof vars[0])

static void check_threshold(const char *text)
{
    double v = 0;
    const char *problem = NULL;

    if (ng_values_parse_threshold(text, &v, &problem) == 0)
        NG_FUZZ_CHECK(isfinite(v) && v >= 1.0 && v <= 1e9);
    else
        NG_FUZZ_CHECK(problem && *problem);
}

static void check_settings(const struct ng_settings *s, int ok)
{
    NG_FUZZ_CHECK(s->n_baselines <= NG_MAX_RUNS && s->n_currents <= NG_MAX_RUNS);
    NG_FUZZ_CHECK(s->n_owned <= sizeof s->owned / sizeof s->owned[0]);
    /* whatever failed, a report path that is kept is a usable one */
    for (size_t i = 0; i < ng_n_outputs; i++) {
        const char *p = s->outputs[i];
        NG_FUZZ_CHECK(!p || *p);
        NG_FUZZ_CHECK(!p || strcmp(p, "-") != 0 || (ng_outputs[i].rules & NG_OUTPUT_STDOUT_OK));
    }
    /* batch mode: each gate's profiles come from the manifest */
    if (!ok || s->show_help || s->show_version || s->print_profile || s->manifest)
        return;
    /* a baseline is profiles or a history file's runs (--baseline-history) */
    NG_FUZZ_CHECK((s->n_baselines >= 1 || (s->baseline_history && *s->baseline_history)) &&
                  s->n_currents >= 1);
    NG_FUZZ_CHECK(s->compare.epochs >= 1);
    NG_FUZZ_CHECK(s->compare.threshold >= 1.0);
    NG_FUZZ_CHECK(s->nsys_timeout > 0);
    NG_FUZZ_CHECK(s->compare.alpha >= 0 && s->compare.alpha < 1);
    NG_FUZZ_CHECK(s->compare.name && *s->compare.name);
    for (size_t i = 0; i < s->n_baselines; i++)
        NG_FUZZ_CHECK(s->baselines[i] && *s->baselines[i]);
    for (size_t i = 0; i < s->n_currents; i++)
        NG_FUZZ_CHECK(s->currents[i] && *s->currents[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one NUL-terminated copy, cut into pieces in place */
    char *buf = malloc(size + 1);
    char *argv[MAX_PIECES + 2];
    int argc = 0;

    NG_FUZZ_CHECK(buf != NULL);
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (size_t i = 0; i < NVARS; i++)
        unsetenv(vars[i]);
    argv[argc++] = "nsys-gate";
    for (size_t at = 0, pieces = 0; at <= size && pieces < MAX_PIECES; pieces++) {
        char *piece = buf + at;
        size_t len = strlen(piece);
        at += len + 1;
        check_threshold(piece);
        if (piece[0] == 0x01 && len >= 2)
            setenv(vars[(unsigned char)piece[1] % NVARS], piece + 2, 1);
        else
            argv[argc++] = piece;
    }
    argv[argc] = NULL;

    struct ng_settings s;
    struct ng_err err;
    err.msg[0] = '\0';
    int ok = ng_cli_parse(&s, argc, argv, &err) == 0;
    if (!ok)
        ng_fuzz_check_error(&err);
    check_settings(&s, ok);
    ng_cli_release(&s);
    for (size_t i = 0; i < NVARS; i++)
        unsetenv(vars[i]);
    free(buf);
    return 0;
}
