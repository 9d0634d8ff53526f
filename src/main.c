/* nsys-gate: the executable.  Everything but this file lives in the
 * nsys-gate library that the tests link too.  main is the one place that
 * prints an error or a warning and chooses the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changes/ng_changes.h"
#include "cli/ng_cli.h"
#include "cli/ng_outputs.h"
#include "dashboard/ng_dashboard.h"
#include "ranges/ng_ranges.h"
#include "reporters/ng_report.h"
#include "run/ng_batch.h"
#include "run/ng_gate.h"
#include "run/ng_summarize.h"
#include "sources/ng_source.h"
#include "util/ng_file.h"
#include "util/ng_oom.h"
#include "util/ng_options.h"
#include "util/ng_progress.h"
#include "util/ng_signal.h"
#include "util/ng_text.h"
#include "util/ng_util.h"
#include "util/ng_version.h"

static void print_line(const char *prefix, const char *msg)
{
    char *clean = ng_text_cleaned(msg, NG_TEXT_ESCAPE_CONTROLS);
    fprintf(stderr, "%s%s\n", prefix, clean);
    free(clean);
}

static void print_cleaned(const char *fmt_before, const char *text)
{
    char *clean = ng_text_cleaned(text, NG_TEXT_ESCAPE_CONTROLS);
    printf(fmt_before, clean);
    free(clean);
}

static int print_profile(const struct ng_profile *p)
{
    char *shown = ng_text_cleaned(p->path, NG_TEXT_ESCAPE_CONTROLS);
    printf("# %s (%s): %lld ns in %lld launches, %zu rows\n", shown, ng_format_name(p->format),
           (long long)p->total_ns, (long long)p->launches, p->n_rows);
    free(shown);
    for (int k = 0; k < NG_WORK_KINDS; k++)
        if (p->left_out_launches[k] > 0)
            printf("# left out by --work: %lld %s launches, %lld ns\n",
                   (long long)p->left_out_launches[k], ng_work_kind_name((enum ng_work_kind)k),
                   (long long)p->left_out_ns[k]);
    if (p->nvtx) {
        printf("epoch_ns\tlaunches\tepoch\n");
        for (size_t i = 0; i < p->n_epochs; i++) {
            printf("%lld\t%lld\t", (long long)p->epochs[i].ns, (long long)p->epochs[i].kernels);
            print_cleaned("%s\n", p->epochs[i].name);
        }
    }
    printf("total_ns\tinstances\tkind\tname\n");
    for (size_t i = 0; i < p->n_rows; i++) {
        printf("%lld\t%lld\t%s\t", (long long)p->rows[i].total_ns,
               (long long)p->rows[i].instances, ng_work_kind_name(p->rows[i].kind));
        print_cleaned("%s\n", p->rows[i].name);
    }
    return 0;
}

/* Whether a warning is one of a profile's own (printed with them). */
static int profile_warning(const struct ng_gate *g, const char *w)
{
    for (size_t i = 0; i < g->nb + g->nc; i++) {
        const struct ng_profile *p = i < g->nb ? &g->baseline[i] : &g->current[i - g->nb];
        for (size_t k = 0; k < p->n_warnings; k++)
            if (strcmp(p->warnings[k], w) == 0)
                return 1;
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
    /* the profiles' warnings, then the run's (a cache not used, two
     * tracers), as the gate prints them: the verdict holds both when the
     * two sides were compared, none with one profile */
    for (size_t i = 0; i < g.nb + g.nc; i++) {
        const struct ng_profile *p = i < g.nb ? &g.baseline[i] : &g.current[i - g.nb];
        for (size_t k = 0; k < p->n_warnings; k++)
            print_line("WARNING: ", p->warnings[k]);
    }
    for (size_t k = 0; k < g.verdict.n_warnings; k++)
        if (!profile_warning(&g, g.verdict.warnings[k]))
            print_line("WARNING: ", g.verdict.warnings[k]);
    for (size_t i = 0; !unread && i < g.nb; i++)
        print_profile(&g.baseline[i]);
    for (size_t i = 0; !unread && i < g.nc; i++)
        print_profile(&g.current[i]);
    ng_gate_release(&g);
    return unread ? 2 : 0;
}

/* What the run has to say on stderr: its own ERROR, each gate's warnings
 * (named by the gate in a batch), a note on how it ran, a refused report
 * path. */
static void print_run(const struct ng_batch_run *r)
{
    if (r->error[0])
        print_line("ERROR: ", r->error);
    for (size_t i = 0; i < r->batch.n; i++) {
        const struct ng_verdict *v = r->batch.verdicts[i];
        char *name = ng_text_cleaned(v->name, NG_TEXT_ESCAPE_CONTROLS);
        for (size_t k = 0; k < v->n_warnings; k++) {
            if (r->batch.manifest)
                fprintf(stderr, "WARNING: %s: ", name);
            print_line(r->batch.manifest ? "" : "WARNING: ", v->warnings[k]);
        }
        free(name);
    }
    if (r->note[0])
        print_line("WARNING: ", r->note);
    if (r->refusal[0])
        print_line("ERROR: ", r->refusal);
}

/* Prints what the run has to say, writes its reports, frees it; the exit
 * status. */
static int finish_run(struct ng_batch_run *r)
{
    struct ng_report_request reqs[NG_OUTPUTS_MAX];
    struct ng_err werr[NG_OUTPUTS_MAX];

    print_run(r);
    int status = r->exit_code;
    size_t failed = ng_report_write_batch(&r->batch, reqs,
                                          ng_outputs_requests(&r->outputs, reqs), werr);
    /* each failed report named, unless the run errored: it has said its own */
    for (size_t i = 0; i < failed && !r->error[0]; i++)
        print_line("ERROR: ", werr[i].msg);
    if (failed)
        status = 2;
    ng_batch_run_release(r);
    return status;
}

/* Out of memory while the gates ran: the same run again as that ERROR,
 * with the memory the reserve gave back (ng_oom.h).  Nothing that ran out
 * is touched: the run is made anew from the settings. */
struct oom_context {
    const struct ng_settings *s;
    double t0;
};

static void after_oom(const char *message, void *arg)
{
    const struct oom_context *c = arg;
    struct ng_err err;
    struct ng_batch_run r;

    ng_err_set(&err, "%s", message);
    ng_batch_run(&r, c->s, &err, c->t0);
    finish_run(&r);
    fflush(NULL);
    _exit(2);
}

/* `nsys-gate dashboard ...`: the static site from history files.  The
 * summary line goes to stdout, warnings and the one ERROR to stderr. */
static int dashboard(int argc, char **argv)
{
    struct ng_dashboard_opts o;
    struct ng_dashboard_result r;
    struct ng_err err;

    if (ng_dashboard_parse(&o, argc, argv, &err) < 0) {
        print_line("ERROR: ", err.msg);
        return 2;
    }
    if (o.show_help) {
        ng_dashboard_help(stdout);
        return 0;
    }
    int ret = ng_dashboard_build(&o, &r, &err);
    for (size_t i = 0; i < r.n_warnings; i++)
        print_line("WARNING: ", r.warnings[i]);
    if (ret < 0)
        print_line("ERROR: ", err.msg);
    else if (!o.quiet)
        print_cleaned("%s", o.out_dir),
            printf(": %zu gate%s, %zu run%s from %zu histor%s; index.html %.1f kB, site %.1f kB\n",
                   r.gates, r.gates == 1 ? "" : "s", r.runs, r.runs == 1 ? "" : "s", r.files,
                   r.files == 1 ? "y" : "ies", (double)r.index_bytes / 1e3,
                   (double)r.site_bytes / 1e3);
    ng_dashboard_result_release(&r);
    return ret < 0 ? 2 : 0;
}

/* `nsys-gate changes ...`: the change points of histories.  The report
 * goes to stdout, warnings and the one ERROR to stderr. */
static int changes(int argc, char **argv)
{
    struct ng_changes_opts o;
    struct ng_changes_result r;
    struct ng_err err;

    if (ng_changes_parse(&o, argc, argv, &err) < 0) {
        print_line("ERROR: ", err.msg);
        ng_changes_opts_release(&o);
        return 2;
    }
    if (o.show_help) {
        ng_changes_help(stdout);
        ng_changes_opts_release(&o);
        return 0;
    }
    int ret = ng_changes_run(&o, &r, &err);
    for (size_t i = 0; i < r.n_warnings; i++)
        print_line("WARNING: ", r.warnings[i]);
    if (ret < 0)
        print_line("ERROR: ", err.msg);
    else
        for (char *line = r.text, *nl; line && *line; line = nl + 1) {
            nl = strchr(line, '\n');
            *nl = 0;
            print_cleaned("%s\n", line);
        }
    int status = ng_changes_exit_code(&r, ret < 0);
    ng_changes_result_release(&r);
    ng_changes_opts_release(&o);
    return status;
}

/* Enough to write every report of an ERROR verdict. */
#define OOM_RESERVE (8u << 20)

/* `nsys-gate ranges`: the listing on stdout, or the one ERROR line. */
static int ranges(int argc, char **argv)
{
    struct ng_ranges_opts o;
    struct ng_ranges_result r = { NULL };
    struct ng_err err;

    if (ng_ranges_parse(&o, argc, argv, &err) < 0) {
        print_line("ERROR: ", err.msg);
        return 2;
    }
    if (o.show_help) {
        ng_ranges_help(stdout);
        return 0;
    }
    int ret = ng_ranges_run(&o, &r, &err);
    fputs(r.text ? r.text : "", stdout);
    if (ret < 0)
        print_line("ERROR: ", err.msg);
    ng_ranges_result_release(&r);
    return ret < 0 ? 2 : 0;
}

/* `nsys-gate summarize`: the warnings and the one ERROR on stderr, what
 * was written on stdout (unless the summary itself goes there). */
static int summarize(int argc, char **argv)
{
    struct ng_settings s;
    struct ng_summarize_result r;
    struct ng_err err;

    if (ng_cli_summarize_parse(&s, argc, argv, &err) < 0) {
        print_line("ERROR: ", err.msg);
        ng_cli_release(&s);
        return 2;
    }
    if (s.show_help) {
        ng_options_help(stdout, ng_cli_summarize_options());
        ng_cli_release(&s);
        return 0;
    }
    ng_progress_set_mode(ng_progress_choose(s.quiet));
    int ret = ng_summarize_run(&s, &r, &err);
    for (size_t i = 0; i < r.n_warnings; i++)
        print_line("WARNING: ", r.warnings[i]);
    if (ret < 0)
        print_line("ERROR: ", err.msg);
    else if (r.line)
        print_cleaned("%s\n", r.line);
    ng_summarize_result_release(&r);
    ng_cli_release(&s);
    return ret < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
    double t0 = ng_monotonic();
    struct ng_settings s;
    struct ng_err err;
    struct ng_batch_run r;
    int ok;

    ng_file_guard_std_fds();
    ng_signal_init();
    ng_oom_reserve(OOM_RESERVE);
    /* a subcommand comes first, before any option */
    if (argc > 1 && strcmp(argv[1], "dashboard") == 0)
        return dashboard(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "changes") == 0)
        return changes(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "ranges") == 0)
        return ranges(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "summarize") == 0)
        return summarize(argc - 1, argv + 1);
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

    struct oom_context oc = { &s, t0 };
    ng_oom_on(after_oom, &oc);
    ng_batch_run(&r, &s, ok ? NULL : &err, t0);
    int status = finish_run(&r);
    ng_cli_release(&s);
    return status;
}
