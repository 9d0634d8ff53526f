/* Fuzz target: the batch manifest reader (ng_manifest_load) on arbitrary
 * file bytes.  The bytes go to a file in a private temporary directory
 * (gate paths in it resolve against that folder); the defaults are those
 * of `nsys-gate --manifest FILE`.  Every input must give gates that could
 * run (a name, profiles on both sides, usable settings) or a refusal with
 * a message.  Nothing is run. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "cli/ng_manifest.h"

static char dir[4096];
static char path[4096 + 16];

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

extern char **environ;

static void set_up(void)
{
    const char *base = getenv("TMPDIR");

    /* the fuzzing process's own NSYS_GATE_* and GITHUB_* settings must not
     * become every gate's defaults */
    for (size_t i = 0; environ[i];) {
        const char *e = environ[i], *eq = strchr(e, '=');
        char name[256];
        if (eq && (size_t)(eq - e) < sizeof name &&
            (strncmp(e, "NSYS_GATE_", 10) == 0 || strncmp(e, "GITHUB_", 7) == 0)) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - e), e);
            unsetenv(name);   /* environ shifts down: look at index i again */
            continue;
        }
        i++;
    }

    snprintf(dir, sizeof dir, "%s/ng-fuzz-manifest.XXXXXX", base && *base ? base : "/tmp");
    NG_FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/m.json", dir);
    atexit(remove_dir);
}

static void check_gate(const struct ng_settings *s)
{
    NG_FUZZ_CHECK(s->compare.name && *s->compare.name);
    NG_FUZZ_CHECK(s->n_baselines >= 1 && s->n_baselines <= NG_MAX_RUNS);
    NG_FUZZ_CHECK(s->n_currents >= 1 && s->n_currents <= NG_MAX_RUNS);
    for (size_t i = 0; i < s->n_baselines; i++)
        NG_FUZZ_CHECK(s->baselines[i] && *s->baselines[i]);
    for (size_t i = 0; i < s->n_currents; i++)
        NG_FUZZ_CHECK(s->currents[i] && *s->currents[i]);
    NG_FUZZ_CHECK(s->compare.epochs >= 1);
    NG_FUZZ_CHECK(s->compare.threshold >= 1.0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        set_up();
    FILE *f = fopen(path, "wb");
    NG_FUZZ_CHECK(f != NULL);
    NG_FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    NG_FUZZ_CHECK(fclose(f) == 0);

    char *argv[] = { "nsys-gate", "--manifest", path, NULL };
    struct ng_settings defaults;
    struct ng_manifest m;
    struct ng_err err;

    NG_FUZZ_CHECK(ng_cli_parse(&defaults, 3, argv, &err) == 0);
    memset(&m, 0, sizeof m);
    err.msg[0] = '\0';
    if (ng_manifest_load(&m, &defaults, &err) == 0) {
        NG_FUZZ_CHECK(m.n_gates >= 1);
        for (size_t i = 0; i < m.n_gates; i++) {
            check_gate(&m.gates[i]);
            for (size_t j = 0; j < i; j++)   /* names are distinct */
                NG_FUZZ_CHECK(strcmp(m.gates[i].compare.name, m.gates[j].compare.name) != 0);
        }
    } else {
        ng_fuzz_check_error(&err);
        NG_FUZZ_CHECK(m.n_gates == 0);
    }
    ng_manifest_release(&m);
    ng_cli_release(&defaults);
    return 0;
}
