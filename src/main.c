/* nsys-gate: the executable.  Everything but this file lives in the
 * nsys-gate library that the tests link too.  main is the one place that
 * prints an error and chooses the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ng_cli.h"
#include "ng_compare.h"
#include "ng_report.h"
#include "ng_source.h"
#include "ng_util.h"
#include "ng_version.h"

static void print_error(const char *msg)
{
    char *clean = ng_text_cleaned(msg, NG_TEXT_ESCAPE_CONTROLS);
    fprintf(stderr, "ERROR: %s\n", clean);
    free(clean);
}

static size_t build_requests(const struct ng_settings *s, struct ng_report_request *q)
{
    size_t n = 0;
    int json_stdout = s->json_path && strcmp(s->json_path, "-") == 0;

    if (!s->quiet)
        q[n++] = (struct ng_report_request){ "human", json_stdout ? NG_DEST_STDERR : NG_DEST_STDOUT,
                                             NULL, NULL };
    if (s->json_path)
        q[n++] = (struct ng_report_request){ "json", json_stdout ? NG_DEST_STDOUT : NG_DEST_FILE,
                                             s->json_path, "--json" };
    if (s->junit_path)
        q[n++] = (struct ng_report_request){ "junit", NG_DEST_FILE, s->junit_path, "--junit" };
    return n;
}

static int print_profile(const char *path, const struct ng_source_opts *o)
{
    struct ng_profile p;
    struct ng_err err;
    int ret = 0;

    ng_profile_init(&p, path);
    if (ng_source_load(&p, o, &err) < 0) {
        print_error(err.msg);
        ret = 2;
    } else {
        char *shown = ng_text_cleaned(path, NG_TEXT_ESCAPE_CONTROLS);
        printf("# %s (%s): %lld ns in %lld kernel launches, %zu names\n", shown,
               ng_format_name(p.format), (long long)p.total_ns, (long long)p.kernel_count,
               p.n_kernels);
        free(shown);
        printf("total_ns\tinstances\tname\n");
        for (size_t i = 0; i < p.n_kernels; i++) {
            char *name = ng_text_cleaned(p.kernels[i].name, NG_TEXT_ESCAPE_CONTROLS);
            printf("%lld\t%lld\t%s\n", (long long)p.kernels[i].total_ns,
                   (long long)p.kernels[i].instances, name);
            free(name);
        }
    }
    ng_profile_release(&p);
    return ret;
}

static int load(struct ng_profile *p, const struct ng_source_opts *o, struct ng_err *err)
{
    return ng_source_load(p, o, err);
}

int main(int argc, char **argv)
{
    double t0 = ng_monotonic();
    struct ng_settings s;
    struct ng_err err;
    struct ng_profile base, cur;
    struct ng_verdict v;
    struct ng_report_request reqs[4];
    int ok;

    ok = ng_cli_parse(&s, argc, argv, &err) == 0;
    if (ok && s.show_help) {
        ng_cli_help(stdout);
        return 0;
    }
    if (ok && s.show_version) {
        printf("%s %s\n", NG_TOOL_NAME, NG_VERSION);
        return 0;
    }
    struct ng_source_opts src = { .nsys = s.nsys, .nsys_timeout = s.nsys_timeout };
    if (ok && s.print_profile) {
        int ret = print_profile(s.baseline, &src);
        if (s.current && ret == 0)
            ret = print_profile(s.current, &src);
        return ret;
    }

    ng_profile_init(&base, s.baseline);
    ng_profile_init(&cur, s.current);
    ok = ok && load(&base, &src, &err) == 0 && load(&cur, &src, &err) == 0;
    if (ok) {
        ng_compare(&v, &base, &cur, &s.compare);
    } else {
        ng_verdict_begin(&v, s.baseline ? &base : NULL, s.current ? &cur : NULL, &s.compare);
        ng_verdict_fail_with(&v, err.msg);
    }
    v.timestamp = ng_report_time();
    v.elapsed_s = ng_monotonic() - t0;

    size_t n = build_requests(&s, reqs);
    int status = ng_outcome_exit_code(v.outcome, 0);
    if (v.outcome == NG_OUTCOME_ERROR)
        print_error(v.error);
    struct ng_err werr;
    if (ng_report_write_all(&v, reqs, n, &werr) < 0) {
        if (v.outcome != NG_OUTCOME_ERROR)
            print_error(werr.msg);
        status = 2;
    }
    ng_profile_release(&base);
    ng_profile_release(&cur);
    return status;
}
