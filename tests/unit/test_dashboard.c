/* The dashboard: which points a chart keeps when it thins, the options
 * (flag, then environment, then default; bad values named), and the site
 * on disk: pages per gate, runs ordered by time across files, only the
 * latest --details runs with a section, points linked to their section,
 * a torn history line skipped and said, and the refusals that keep a
 * failed run from touching anything: an unreadable history (the old site
 * stays), a directory that is not a dashboard, a history inside it; a
 * history read from a pipe (its latest runs' lines kept as copies, not
 * read again) makes the same site as the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "render_helper.h"

#include "dashboard/ng_dashboard.h"
#include "util/ng_signal.h"

static char dir[] = "/tmp/ng-dashboard-test.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ng_signal_remove_tree(dir);
    return 0;
}

static void test_thin(void **state)
{
    (void)state;
    enum ng_outcome o[1000];
    unsigned char keep[1000];
    size_t every, n;

    for (size_t i = 0; i < 1000; i++)
        o[i] = NG_OUTCOME_PASS;
    n = ng_dashboard_thin(o, 50, 120, keep, &every);
    assert_int_equal(n, 50);
    assert_int_equal(every, 1);
    o[3] = NG_OUTCOME_FAIL;
    o[5] = NG_OUTCOME_ERROR;
    n = ng_dashboard_thin(o, 1000, 120, keep, &every);
    /* the latest 60, every 16th of the 940 older (59), and the two that did not pass */
    assert_int_equal(every, 16);
    assert_int_equal(n, 60 + 59 + 2);
    assert_true(keep[0] && keep[16] && !keep[1] && keep[3] && keep[5]);
    for (size_t i = 940; i < 1000; i++)
        assert_true(keep[i]);
    size_t counted = 0;
    for (size_t i = 0; i < 1000; i++)
        counted += keep[i];
    assert_int_equal(counted, n);
    /* many failures: at most budget/4 extra, the most recent first */
    for (size_t i = 0; i < 1000; i++)
        o[i] = NG_OUTCOME_FAIL;
    n = ng_dashboard_thin(o, 1000, 120, keep, &every);
    assert_int_equal(n, 60 + 59 + 30);
    assert_true(keep[939] && !keep[1]);
}

static void test_parse(void **state)
{
    (void)state;
    struct ng_dashboard_opts o;
    struct ng_err err;
    char *a1[] = { "dashboard", "-o", "site", "--details=3", "--title", "T", "h1", "--", "-h2", NULL };

    setenv("NSYS_GATE_DASHBOARD_TITLE", "from env", 1);
    setenv("NSYS_GATE_COMMIT_URL", "https://x/{commit}", 1);
    assert_int_equal(ng_dashboard_parse(&o, 9, a1, &err), 0);
    assert_string_equal(o.out_dir, "site");
    assert_int_equal(o.details, 3);
    assert_string_equal(o.title, "T");                       /* the flag wins */
    assert_string_equal(o.commit_url, "https://x/{commit}"); /* the variable applies */
    assert_int_equal(o.n_histories, 2);
    assert_string_equal(o.histories[1], "-h2");
    char *a2[] = { "dashboard", "-osite2", "h", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 3, a2, &err), 0);
    assert_string_equal(o.out_dir, "site2");
    assert_string_equal(o.title, "from env");
    unsetenv("NSYS_GATE_DASHBOARD_TITLE");
    unsetenv("NSYS_GATE_COMMIT_URL");

    char *a3[] = { "dashboard", "--details", "0", "h", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 4, a3, &err), -1);
    assert_string_equal(err.msg, "--details='0' is not a positive integer (at most 1000000)");
    char *a4[] = { "dashboard", "-o", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 2, a4, &err), -1);
    assert_string_equal(err.msg, "--output needs a value (DIR)");
    char *a5[] = { "dashboard", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 1, a5, &err), -1);
    assert_string_equal(err.msg, "missing operand: expected HISTORY.jsonl... (see nsys-gate dashboard --help)");
    char *a6[] = { "dashboard", "--bogus", "h", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 3, a6, &err), -1);
    assert_string_equal(err.msg, "unknown option '--bogus' (see nsys-gate dashboard --help)");
    setenv("NSYS_GATE_DASHBOARD_DETAILS", "x", 1);
    char *a7[] = { "dashboard", "h", NULL };
    assert_int_equal(ng_dashboard_parse(&o, 2, a7, &err), -1);
    assert_string_equal(err.msg, "NSYS_GATE_DASHBOARD_DETAILS='x' is not a positive integer (at most 1000000)");
    unsetenv("NSYS_GATE_DASHBOARD_DETAILS");
}

static double samples[] = { 10.0 };

/* One history line: gate `name`, run at `ts`, ERROR when ms is 0. */
static void add_line(FILE *f, const char *name, time_t ts, double ms)
{
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = ms == 0 ? NG_OUTCOME_ERROR : ms > 12 ? NG_OUTCOME_FAIL : NG_OUTCOME_PASS;
    v.name = name;
    v.mode = "total";
    v.metric = "kernel-sum";
    v.threshold = 1.2;
    v.has_figures = ms > 0;
    v.ratio = ms / 10;
    v.baseline = (struct ng_verdict_side){ .samples = samples, .n_samples = 1, .ms_per_epoch = 10,
                                           .min_ms = 10, .max_ms = 10, .mean_ms = 10 };
    v.current = (struct ng_verdict_side){ .samples = samples, .n_samples = 1, .ms_per_epoch = ms,
                                          .min_ms = ms, .max_ms = ms, .mean_ms = ms };
    if (ms == 0)
        snprintf(v.error, sizeof v.error, "no profile");
    v.timestamp = ts;
    char *line = render("json-line", &v);
    fputs(line, f);
    free(line);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct ng_buf b = NG_BUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ng_buf_add(&b, chunk, n);
    fclose(f);
    ng_buf_add(&b, "", 0);
    return ng_buf_detach(&b);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void build(const char *out, const char *const *hist, size_t n, long details, int want,
                  struct ng_dashboard_result *r, struct ng_err *err)
{
    struct ng_dashboard_opts o = { .out_dir = out, .title = "T", .details = details };
    for (size_t i = 0; i < n; i++)
        o.histories[o.n_histories++] = hist[i];
    assert_int_equal(ng_dashboard_build(&o, r, err), want);
}

/* A gate's page is named by the gate alone; names that clean alike (case,
 * other punctuation) each get a hash of the whole name. */
static void test_slugs(void **state)
{
    (void)state;
    char h[256], site[256], cmd[1024];
    struct ng_dashboard_result r;
    struct ng_err err;

    snprintf(h, sizeof h, "%s/slugs.jsonl", dir);
    snprintf(site, sizeof site, "%s/slug-site", dir);
    FILE *f = fopen(h, "w");
    add_line(f, "Net A", 1714532400, 10);
    add_line(f, "net/a", 1714532400, 10);
    add_line(f, "ResNet-50 train", 1714532400, 10);
    add_line(f, "...", 1714532400, 10);
    fclose(f);
    const char *one[] = { h };
    build(site, one, 1, 3, 0, &r, &err);
    assert_int_equal(r.gates, 4);
    ng_dashboard_result_release(&r);
    snprintf(cmd, sizeof cmd,
             "cd '%s/g' && test -f resnet-50-train.html && "
             "test \"$(ls | grep -cE '^net-a-[0-9a-f]{12}\\.html$')\" = 2 && "
             "test \"$(ls | grep -cE '^[0-9a-f]{12}\\.html$')\" = 1 && "
             "test \"$(ls -A | wc -l)\" = 4", site);
    if (system(cmd) != 0)
        fail_msg("gate pages: %s", cmd);
}

static void test_site(void **state)
{
    (void)state;
    char h1[256], h2[256], site[256], path[512];
    struct ng_dashboard_result r;
    struct ng_err err;

    snprintf(h1, sizeof h1, "%s/h1.jsonl", dir);
    snprintf(h2, sizeof h2, "%s/h2.jsonl", dir);
    snprintf(site, sizeof site, "%s/site", dir);
    FILE *f = fopen(h1, "w");
    for (int i = 0; i < 6; i++)   /* nights 0, 2, 4, ... of "resnet" */
        add_line(f, "resnet", 1714532400 + 2 * i * 86400, i == 5 ? 14 : 10 + 0.1 * i);
    fputs("{\"name\":\"torn\",\"verd\n", f);
    add_line(f, "</title><script>x</script>", 1714532400, 0);
    fclose(f);
    f = fopen(h2, "w");
    for (int i = 0; i < 5; i++)   /* nights 1, 3, ... in another file */
        add_line(f, "resnet", 1714532400 + (2 * i + 1) * 86400, 11);
    fclose(f);

    const char *both[] = { h1, h2 };
    build(site, both, 2, 3, 0, &r, &err);
    assert_int_equal(r.gates, 2);
    assert_int_equal(r.runs, 12);
    assert_int_equal(r.n_warnings, 1);
    assert_non_null(strstr(r.warnings[0], "h1.jsonl' line 7: "));
    ng_dashboard_result_release(&r);

    snprintf(path, sizeof path, "%s/index.html", site);
    char *index = slurp(path);
    assert_non_null(index);
    assert_int_equal(count(index, "class=\"chart trend\""), 2);
    assert_int_equal(count(index, "<script>"), 1);
    assert_non_null(strstr(index, "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;"));
    /* the failing gate first in the overview; the ERROR gate before the pass */
    assert_true(strstr(index, "data-verdict=\"fail\"><td>") < strstr(index, "data-verdict=\"error\"><td>"));
    /* runs in time order across the files: run 11 is the last, a FAIL; only the latest
     * 3 have a section, so only they link (no CI run URL, no --commit-url) */
    assert_int_equal(count(index, "<a class=\"pt\" href=\"g/resnet.html#"), 3);
    /* pages named by their gates alone: no two clean alike */
    assert_int_equal(count(index, "<a class=\"pt\" href=\"g/title-script-x-script.html#"), 1);
    assert_non_null(strstr(index, ".html#run-11\">"));
    assert_non_null(strstr(index, ".html#run-9\">"));
    assert_null(strstr(index, ".html#run-8\">"));
    assert_non_null(strstr(index, "run 11, commit unknown, 2024-05-11T03:00:00Z, FAIL, ratio 1.400x"));
    free(index);

    /* a history that cannot be read: an error, and the site is left as it was */
    snprintf(path, sizeof path, "%s/index.html", site);
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.jsonl", dir);
    const char *bad[] = { h1, missing };
    build(site, bad, 2, 3, -1, &r, &err);
    assert_non_null(strstr(err.msg, "missing.jsonl': No such file or directory"));
    ng_dashboard_result_release(&r);
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);

    /* an earlier site is replaced whole, and nothing is left beside it */
    const char *one[] = { h2 };
    build(site, one, 1, 20, 0, &r, &err);
    assert_int_equal(r.gates, 1);
    ng_dashboard_result_release(&r);
    char *again = slurp(path);
    assert_null(strstr(again, "&lt;/title&gt;"));
    free(again);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -a '%s' | grep -c tmp) = 0 && test $(ls '%s/site/g' | wc -l) = 1",
             dir, dir);
    assert_int_equal(system(cmd), 0);

    /* a directory that is not a dashboard is never replaced */
    char other[300];
    snprintf(other, sizeof other, "%s/other", dir);
    mkdir(other, 0777);
    snprintf(path, sizeof path, "%s/keep.txt", other);
    fclose(fopen(path, "w"));
    build(other, one, 1, 20, -1, &r, &err);
    assert_non_null(strstr(err.msg, "refusing to replace"));
    assert_non_null(strstr(err.msg, "it is not empty and not a dashboard (no .nsys-gate-dashboard in it)"));
    ng_dashboard_result_release(&r);
    assert_int_equal(access(path, F_OK), 0);

    /* nor one that holds a history */
    char inside[300];
    snprintf(inside, sizeof inside, "%s/site/h.jsonl", dir);
    rename(h2, inside);
    const char *in[] = { inside };
    build(site, in, 1, 20, -1, &r, &err);
    assert_non_null(strstr(err.msg, "is inside --output"));
    ng_dashboard_result_release(&r);
    assert_int_equal(access(inside, F_OK), 0);
}

/* A history big enough to be read in parts: every verdict counted once,
 * and a skipped line named by its line in the file, whichever part it
 * was in. */
static void test_parts(void **state)
{
    (void)state;
    char h[256], site[256];
    struct ng_dashboard_result r;
    struct ng_err err;
    size_t lines = 0;

    snprintf(h, sizeof h, "%s/big.jsonl", dir);
    snprintf(site, sizeof site, "%s/big-site", dir);
    FILE *f = fopen(h, "w");
    size_t garbage = 0;
    while (ftell(f) < (9L << 20) || lines < garbage + 100) {   /* over 4 MiB: two parts */
        lines++;
        if (lines == 10 || (!garbage && ftell(f) > (7L << 20)))
            garbage = lines > 10 ? lines : 0, fputs("garbage\n", f);
        else
            add_line(f, lines % 2 ? "odd" : "even", 1714532400 + (time_t)lines, 10);
    }
    fclose(f);
    assert_true(garbage > 2500);
    build(site, (const char *const[]){ h }, 1, 2, 0, &r, &err);
    assert_int_equal(r.runs, lines - 2);
    assert_int_equal(r.n_warnings, 2);
    assert_non_null(strstr(r.warnings[0], "big.jsonl' line 10: "));
    char want[64];
    snprintf(want, sizeof want, "big.jsonl' line %zu: ", garbage);
    assert_non_null(strstr(r.warnings[1], want));
    ng_dashboard_result_release(&r);
    /* a gate's page draws 1000 of its runs at most, and says how it chose them */
    char cmd[700];
    snprintf(cmd, sizeof cmd,
             "f=$(ls '%s'/g/odd*.html) && grep -q 'data-shown=\"[0-9]*\"' \"$f\" && "
             "shown=$(grep -o 'data-shown=\"[0-9]*\"' \"$f\" | grep -o '[0-9]*') && "
             "test \"$(grep -o 'class=\"pt\"' \"$f\" | wc -l)\" = \"$shown\" && test \"$shown\" -le 1250 && "
             "grep -q \"$shown of [0-9]* runs shown: the latest 500 each, of the older runs every \" \"$f\"",
             site);
    assert_int_equal(system(cmd), 0);
}

/* One history, big enough to be read in parts, on one worker and on
 * many (one part each, then up to one a worker): the same site byte for
 * byte and the same warnings, the cap on them included. */
static void test_jobs(void **state)
{
    (void)state;
    char h[256], site[256], cmd[1200];
    const long jobs[] = { 1, 2, 3, 5, 16 };
    struct ng_dashboard_result first;
    struct ng_err err;
    size_t lines = 0;

    snprintf(h, sizeof h, "%s/jobs.jsonl", dir);
    FILE *f = fopen(h, "w");
    while (ftell(f) < (11L << 20)) {   /* five parts of 2 MiB at most */
        lines++;
        if (lines % 23 == 0)           /* over a hundred: past the cap, in every part */
            fputs("garbage\n", f);
        else {   /* out of time order, six gates, a step in time on one, every 31st an ERROR */
            size_t t = (lines * 7919) % 5000;
            add_line(f, (const char *[]){ "a", "b", "c", "d", "e", "f" }[lines % 6],
                     1714532400 + (time_t)t * 60,
                     lines % 31 == 0 ? 0 : 10 + (double)(lines % 5) / 10 + (t > 2500 && lines % 6 == 1));
        }
    }
    fclose(f);
    setenv("SOURCE_DATE_EPOCH", "1714532400", 1);
    for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++) {
        struct ng_dashboard_result r;
        struct ng_dashboard_opts o = { .out_dir = site, .title = "T", .details = 7,
                                       .jobs = jobs[k] };
        snprintf(site, sizeof site, "%s/jobs-%ld", dir, jobs[k]);
        o.histories[o.n_histories++] = h;
        assert_int_equal(ng_dashboard_build(&o, k ? &r : &first, &err), 0);
        if (k == 0) {
            assert_int_equal(first.runs, lines - lines / 23);
            assert_true(first.changes > 0);
            continue;
        }
        assert_int_equal(r.runs, first.runs);
        assert_int_equal(r.changes, first.changes);
        assert_int_equal(r.n_warnings, first.n_warnings);
        for (size_t i = 0; i < r.n_warnings; i++)
            assert_string_equal(r.warnings[i], first.warnings[i]);
        ng_dashboard_result_release(&r);
        snprintf(cmd, sizeof cmd, "diff -r '%s/jobs-1' '%s/jobs-%ld'", dir, dir, jobs[k]);
        assert_int_equal(system(cmd), 0);
    }
    unsetenv("SOURCE_DATE_EPOCH");
    assert_true(first.n_warnings > 100);
    assert_non_null(strstr(first.warnings[first.n_warnings - 1], "more"));
    ng_dashboard_result_release(&first);
}

/* The same history from a file and from a FIFO: the same site, byte for
 * byte (the pages name the history as given: both are "h.jsonl"). */
static void test_pipe(void **state)
{
    (void)state;
    char a[256], b[256], cmd[1400], cwd[4096];
    struct ng_dashboard_result r;
    struct ng_err err;

    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(a, sizeof a, "%s/from-file", dir);
    snprintf(b, sizeof b, "%s/from-fifo", dir);
    assert_int_equal(mkdir(a, 0777), 0);
    assert_int_equal(mkdir(b, 0777), 0);
    assert_int_equal(chdir(a), 0);
    FILE *f = fopen("h.jsonl", "w");
    for (int i = 0; i < 120; i++)   /* out of time order, three gates, every fifth an ERROR */
        add_line(f, i % 3 == 0 ? "x" : i % 3 == 1 ? "y" : "z", 1714532400 + (time_t)((i * 37) % 120) * 3600,
                 i % 5 == 4 ? 0 : 10 + (double)(i % 7));
    fclose(f);
    setenv("SOURCE_DATE_EPOCH", "1714532400", 1);
    build("site", (const char *const[]){ "h.jsonl" }, 1, 4, 0, &r, &err);
    ng_dashboard_result_release(&r);
    assert_int_equal(chdir(b), 0);
    assert_int_equal(mkfifo("h.jsonl", 0666), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        snprintf(cmd, sizeof cmd, "cat '%s/h.jsonl' > h.jsonl", a);
        _exit(system(cmd) == 0 ? 0 : 1);
    }
    build("site", (const char *const[]){ "h.jsonl" }, 1, 4, 0, &r, &err);
    ng_dashboard_result_release(&r);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unsetenv("SOURCE_DATE_EPOCH");
    assert_int_equal(chdir(cwd), 0);
    snprintf(cmd, sizeof cmd, "diff -r '%s/site' '%s/site' && test $(cat '%s'/site/g/*.html | "
                              "grep -c 'id=\"run-') -eq 12", a, b, a);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thin),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_site),
        cmocka_unit_test(test_slugs),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_jobs),
        cmocka_unit_test(test_pipe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
