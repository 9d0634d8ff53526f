/* nsys-gate: the executable.  Everything but this file lives in the
 * nsys-gate library that the tests link too.  main is the one place that
 * prints an error or a warning and chooses the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ng_cli.h"
#include "ng_gate.h"
#include "ng_manifest.h"
#include "ng_progress.h"
#include "ng_report.h"
#include "ng_signal.h"
#include "ng_source.h"
#include "ng_util.h"
#include "ng_version.h"

static void print_line(const char *prefix, const char *msg)
{
    char *clean = ng_text_cleaned(msg, NG_TEXT_ESCAPE_CONTROLS);
    fprintf(stderr, "%s%s\n", prefix, clean);
    free(clean);
}

#define MAX_REQUESTS 12

/* Standard output carries the human line, then the GitHub annotations;
 * with --json - it carries the JSON alone and both move to stderr. */
static size_t build_requests(const struct ng_settings *s, struct ng_report_request *q)
{
    size_t n = 0;
    int json_stdout = s->json_path && strcmp(s->json_path, "-") == 0;
    enum ng_report_dest text = json_stdout ? NG_DEST_STDERR : NG_DEST_STDOUT;

    if (!s->quiet)
        q[n++] = (struct ng_report_request){ "human", text, NULL, NULL };
    if (s->json_path)
        q[n++] = (struct ng_report_request){ "json", json_stdout ? NG_DEST_STDOUT : NG_DEST_FILE,
                                             s->json_path, "--json" };
    if (s->junit_path)
        q[n++] = (struct ng_report_request){ "junit", NG_DEST_FILE, s->junit_path, "--junit" };
    if (s->metrics_path)
        q[n++] = (struct ng_report_request){ "metrics", NG_DEST_FILE, s->metrics_path,
                                             "--metrics" };
    if (s->benchmark_path)
        q[n++] = (struct ng_report_request){ "benchmark", NG_DEST_FILE, s->benchmark_path,
                                             "--benchmark-json" };
    if (s->history_path)
        q[n++] = (struct ng_report_request){ "json-line", NG_DEST_APPEND, s->history_path,
                                             "--history" };
    if (!s->github)
        return n;
    q[n++] = (struct ng_report_request){ "github-annotations", text, NULL, NULL };
    if (s->github_summary)
        q[n++] = (struct ng_report_request){ "github-summary", NG_DEST_APPEND, s->github_summary,
                                             "GITHUB_STEP_SUMMARY" };
    if (s->github_output)
        q[n++] = (struct ng_report_request){ "github-output", NG_DEST_APPEND, s->github_output,
                                             "GITHUB_OUTPUT" };
    return n;
}

static int print_profile(const struct ng_profile *p)
{
    char *shown = ng_text_cleaned(p->path, NG_TEXT_ESCAPE_CONTROLS);
    printf("# %s (%s): %lld ns in %lld kernel launches, %zu names\n", shown,
           ng_format_name(p->format), (long long)p->total_ns, (long long)p->launches,
           p->n_rows);
    free(shown);
    if (p->nvtx) {
        printf("epoch_ns\tkernels\tepoch\n");
        for (size_t i = 0; i < p->n_epochs; i++) {
            char *name = ng_text_cleaned(p->epochs[i].name, NG_TEXT_ESCAPE_CONTROLS);
            printf("%lld\t%lld\t%s\n", (long long)p->epochs[i].ns,
                   (long long)p->epochs[i].kernels, name);
            free(name);
        }
    }
    printf("total_ns\tinstances\tname\n");
    for (size_t i = 0; i < p->n_rows; i++) {
        char *name = ng_text_cleaned(p->rows[i].name, NG_TEXT_ESCAPE_CONTROLS);
        printf("%lld\t%lld\t%s\n", (long long)p->rows[i].total_ns,
               (long long)p->rows[i].instances, name);
        free(name);
    }
    return 0;
}

/* --print-profile: what the gate reads, through the same loading path. */
static int print_profiles(struct ng_settings *s)
{
    struct ng_gate g;
    int unread = 0;

    ng_gate_run(&g, s, NULL);
    /* the comparison is not asked for: only a profile that could not be
     * read (or a pattern that stopped the reading) is an error here */
    for (size_t i = 0; i < g.nb + g.nc; i++)
        unread |= !(i < g.nb ? g.baseline[i] : g.current[i - g.nb]).loaded;
    if (unread)
        print_line("ERROR: ", g.verdict.error);
    for (size_t i = 0; !unread && i < g.nb; i++)
        print_profile(&g.baseline[i]);
    for (size_t i = 0; !unread && i < g.nc; i++)
        print_profile(&g.current[i]);
    ng_gate_release(&g);
    return unread ? 2 : 0;
}

static void print_batch_warnings(const struct ng_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct ng_verdict *v = b->verdicts[i];
        char *name = ng_text_cleaned(v->name, NG_TEXT_ESCAPE_CONTROLS);
        for (size_t k = 0; k < v->n_warnings; k++) {
            fprintf(stderr, "WARNING: %s: ", name);
            print_line("", v->warnings[k]);
        }
        free(name);
    }
}

/* --manifest: every gate, then one set of reports for all of them.  A
 * manifest that cannot be read (or a bad command line) is one ERROR gate,
 * so the reports still say why. */
/* A report path that is one of any gate's profiles would destroy it:
 * refused (and dropped from `outputs`) before any gate runs. */
static int refuse_batch_outputs(struct ng_settings *outputs, const struct ng_manifest *m,
                                struct ng_err *err)
{
    size_t n;
    const char **inputs = ng_manifest_profiles(m, &n);
    int ret = ng_cli_refuse_outputs(outputs, inputs, n, err);
    free(inputs);
    return ret;
}

static int run_batch(const struct ng_settings *s, const struct ng_err *usage_err, double t0)
{
    struct ng_manifest m;
    struct ng_err err;
    struct ng_report_request reqs[MAX_REQUESTS];
    struct ng_batch_counts c;
    int ok = usage_err == NULL;

    struct ng_settings outputs = *s;
    struct ng_err clash;
    int clashed = 0;

    if (!ok)
        err = *usage_err;
    if (ok)
        ok = ng_manifest_load(&m, s, &err) == 0;
    if (ok)
        clashed = refuse_batch_outputs(&outputs, &m, &clash) < 0;
    if (ok)
        ng_manifest_run(&m, s->jobs);
    else
        ng_manifest_refuse(&m, s, err.msg);

    const struct ng_verdict **v = ng_xcalloc(m.n_gates, sizeof *v);
    struct ng_batch b = { v, m.n_gates, s->manifest, ng_report_time(), 0 };
    for (size_t i = 0; i < m.n_gates; i++) {
        m.gates[i].result.v.timestamp = b.timestamp;
        v[i] = &m.gates[i].result.v;
    }
    b.elapsed_s = ng_monotonic() - t0;
    print_batch_warnings(&b);
    if (!ok)
        print_line("ERROR: ", err.msg);
    if (clashed)
        print_line("ERROR: ", clash.msg);
    ng_batch_count(&b, &c);
    int status = clashed ? 2 : c.exit_code;
    /* a refused manifest's ERROR line is on stderr already: not again on stdout */
    outputs.quiet |= !ok;
    struct ng_err werr;
    if (ng_report_write_batch(&b, reqs, build_requests(&outputs, reqs), &werr) < 0) {
        if (ok)   /* one ERROR line: a refused manifest has said its own */
            print_line("ERROR: ", werr.msg);
        status = 2;
    }
    free(v);
    ng_manifest_release(&m);
    return status;
}

int main(int argc, char **argv)
{
    double t0 = ng_monotonic();
    struct ng_settings s;
    struct ng_err err;
    struct ng_gate g;
    struct ng_report_request reqs[MAX_REQUESTS];
    int ok;

    ng_signal_init();
    ok = ng_cli_parse(&s, argc, argv, &err) == 0;
    ng_progress_set_mode(ng_progress_choose(s.quiet));
    if (ok && s.show_help) {
        ng_cli_help(stdout);
        ng_cli_release(&s);
        return 0;
    }
    if (ok && s.show_version) {
        printf("%s %s\n", NG_TOOL_NAME, NG_VERSION);
        ng_cli_release(&s);
        return 0;
    }
    if (ok && s.print_profile) {
        int ret = print_profiles(&s);
        ng_cli_release(&s);
        return ret;
    }
    if (s.manifest) {
        int ret = run_batch(&s, ok ? NULL : &err, t0);
        ng_cli_release(&s);
        return ret;
    }

    ng_gate_run(&g, &s, ok ? NULL : &err);
    struct ng_verdict *v = &g.verdict;
    v->timestamp = ng_report_time();
    v->elapsed_s = ng_monotonic() - t0;

    int status = ng_outcome_exit_code(v->outcome, s.fail_inconclusive);
    if (v->outcome == NG_OUTCOME_ERROR)
        print_line("ERROR: ", v->error);
    for (size_t i = 0; i < v->n_warnings; i++)
        print_line("WARNING: ", v->warnings[i]);
    struct ng_err werr;
    if (ng_report_write_all(v, reqs, build_requests(&s, reqs), &werr) < 0) {
        if (v->outcome != NG_OUTCOME_ERROR)
            print_line("ERROR: ", werr.msg);
        status = 2;
    }
    ng_gate_release(&g);
    ng_cli_release(&s);
    return status;
}
