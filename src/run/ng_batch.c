#include "run/ng_batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/ng_outputs.h"
#include "core/ng_compare.h"
#include "core/ng_context.h"
#include "core/ng_verdict_text.h"
#include "reporters/ng_reporter.h"
#include "run/ng_read.h"
#include "sources/nsysrep/ng_export_slots.h"
#include "util/ng_file.h"
#include "util/ng_oom.h"
#include "util/ng_progress.h"
#include "util/ng_signal.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

static void set_text(char *dst, const char *msg)
{
    snprintf(dst, NG_ERR_MAX, "%s", msg);
}

static void make_gates(struct ng_batch_run *r, size_t n)
{
    r->gates = ng_xcalloc(n, sizeof *r->gates);
    r->n_gates = n;
}

/* ---- a gate's verdict without a child's ---- */

static void gate_error(struct ng_batch_gate *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void gate_error(struct ng_batch_gate *g, const char *fmt, ...)
{
    const struct ng_settings *s = g->settings;
    struct ng_verdict *v = &g->result.v;
    char msg[NG_ERR_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ng_verdict_doc_release(&g->result);
    memset(&g->result, 0, sizeof g->result);
    ng_compare_begin(v, NULL, 0, NULL, 0, &s->compare);
    v->baseline.path = s->n_baselines ? s->baselines[0] : NULL;
    v->current.path = s->n_currents ? s->currents[0] : NULL;
    ng_verdict_fail_with(v, msg);
    ng_context_collect(&v->context, s->labels, s->n_labels, NULL, NULL);
    g->verdict = v;
}

/* A manifest that could not be read, or a bad command line in batch mode:
 * one gate named "manifest" whose verdict is that ERROR. */
static void refuse_manifest(struct ng_batch_run *r, const struct ng_settings *s,
                            const char *error)
{
    make_gates(r, 1);
    struct ng_settings *own = ng_xmalloc(sizeof *own);
    *own = *s;
    own->n_owned = 0;   /* what the command line's settings own stays theirs */
    own->compare.name = "manifest";
    r->gates[0].own = own;
    r->gates[0].settings = own;
    gate_error(&r->gates[0], "%s", error);
}

/* A report path that is one of any gate's profiles would destroy it:
 * refused (and dropped from the outputs) before any gate runs. */
/* Every profile any gate of the manifest names (borrowed paths in a new
 * array; *n says how many). */
static const char **all_profiles(const struct ng_manifest *m, size_t *n)
{
    size_t total = 0, k = 0;

    for (size_t i = 0; i < m->n_gates; i++)
        total += m->gates[i].n_baselines + m->gates[i].n_currents;
    const char **inputs = ng_xcalloc(total ? total : 1, sizeof *inputs);
    for (size_t i = 0; i < m->n_gates; i++) {
        const struct ng_settings *g = &m->gates[i];
        for (size_t j = 0; j < g->n_baselines; j++)
            inputs[k++] = g->baselines[j];
        for (size_t j = 0; j < g->n_currents; j++)
            inputs[k++] = g->currents[j];
    }
    *n = total;
    return inputs;
}

static void refuse_batch_outputs(struct ng_batch_run *r)
{
    struct ng_err err;
    size_t n;
    const char **inputs = all_profiles(&r->manifest, &n);
    const char **histories = ng_xcalloc(r->manifest.n_gates, sizeof *histories);

    for (size_t i = 0; i < r->manifest.n_gates; i++)
        histories[i] = r->manifest.gates[i].baseline_history;
    if (ng_outputs_refuse(&r->outputs, inputs, n, &err) < 0)
        set_text(r->refusal, err.msg);
    if (ng_outputs_refuse_histories(&r->outputs, histories, r->manifest.n_gates, &err) < 0 &&
        !r->refusal[0])
        set_text(r->refusal, err.msg);
    free(histories);
    free(inputs);
}

/* Every --baseline-history file once, for all the gates that read it,
 * before any gate starts (and before anything is appended): 200 gates on
 * one 100,000-line history read it once, not 200 times.  Each gate finds
 * its runs through its settings. */
static void read_windows(struct ng_batch_run *r)
{
    size_t n = r->manifest.n_gates;
    struct ng_history_baseline **same = ng_xcalloc(n, sizeof *same);
    char *done = ng_xcalloc(n, 1);
    struct ng_err err;

    r->windows = ng_xcalloc(n, sizeof *r->windows);
    for (size_t i = 0; i < n; i++)
        if (r->manifest.gates[i].baseline_history)
            ng_gate_history_baseline_init(&r->windows[i], &r->manifest.gates[i]);
    for (size_t i = 0; i < n; i++) {
        const char *path = r->manifest.gates[i].baseline_history;
        size_t k = 0;
        if (!path || done[i])
            continue;
        for (size_t j = i; j < n; j++) {
            const char *other = r->manifest.gates[j].baseline_history;
            if (other && !done[j] && strcmp(other, path) == 0) {
                same[k++] = &r->windows[j];
                done[j] = 1;
                r->manifest.gates[j].window = &r->windows[j];
            }
        }
        (void)ng_history_baseline_read(same, k, &err);   /* an unreadable file is each gate's ERROR */
    }
    free(done);
    free(same);
}

/* ---- gates in child processes ---- */

struct child {
    pid_t pid;
    int fd;               /* read end of the pipe the verdict comes through */
    size_t gate;
    double started;
    struct ng_buf text;
    int slot;             /* its ng_signal registration */
};

/* In the child: the gate's verdict as one JSON line into fd. */
static void __attribute__((noreturn)) send_verdict(const struct ng_settings *s, int fd,
                                                   const struct ng_err *error)
{
    struct ng_gate g;
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;

    ng_gate_run(&g, s, error);
    if (ng_report_render("json-line", &g.verdict, &out, &err) < 0 ||
        ng_write_all(fd, out.data, out.len) < 0)
        _exit(3);
    _exit(0);
}

/* Out of memory in a gate's process: its verdict is that ERROR, sent as
 * any verdict is (the reserve gave memory back for it). */
struct child_context {
    const struct ng_settings *s;
    int fd;
};

static void child_after_oom(const char *message, void *arg)
{
    const struct child_context *c = arg;
    struct ng_err err;

    ng_err_set(&err, "%s", message);
    send_verdict(c->s, c->fd, &err);
}

/* In the child: one gate.  The read ends of the other running gates'
 * pipes came along with fork(): closed, they are not this gate's
 * descriptors to spend. */
static void __attribute__((noreturn)) run_child(const struct ng_settings *s, int fd,
                                                const struct child *others, size_t n_others)
{
    static struct child_context c;

    for (size_t i = 0; i < n_others; i++)
        close(others[i].fd);
    ng_signal_forget_all();   /* the parent's other gates are not this one's to stop */
    /* gates share stderr: export progress as lines, each naming its gate */
    if (ng_progress_mode() != NG_PROGRESS_OFF) {
        struct ng_buf prefix = NG_BUF_INIT;
        ng_buf_addf(&prefix, "%s: ", s->compare.name);
        ng_progress_set_mode(NG_PROGRESS_LINES);
        ng_progress_set_prefix(prefix.data);
        ng_buf_release(&prefix);
    }
    c = (struct child_context){ s, fd };
    ng_oom_on(child_after_oom, &c);
    send_verdict(s, fd, NULL);
}

/* Out of descriptors or processes for now: worth waiting for a running
 * gate to end rather than failing this one. */
static int for_now(int e)
{
    return e == EMFILE || e == ENFILE || e == EAGAIN;
}

/* Starts gate `gate` as run[n]; 0 when started, 1 when it must wait for a
 * running gate to end (nothing started), -1 when it failed for good (its
 * verdict is the error). */
static int start(struct ng_batch_run *r, size_t gate, struct child *run, size_t n)
{
    struct ng_batch_gate *g = &r->gates[gate];
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) < 0) {
        if (n > 0 && for_now(errno))
            return 1;
        gate_error(g, "unable to start the gate: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);   /* nothing buffered may be written twice */
    pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(p[0]);
        close(p[1]);
        if (n > 0 && for_now(saved))
            return 1;
        gate_error(g, "unable to start the gate: %s", strerror(saved));
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        run_child(g->settings, p[1], run, n);
    }
    close(p[1]);
    /* a signal to the batch reaches every gate it started, which then
     * cleans up after itself */
    run[n] = (struct child){ pid, p[0], gate, ng_monotonic(), NG_BUF_INIT,
                             ng_signal_add_child(pid) };
    return 0;
}

/* The child closed its pipe: reap it and read its verdict back. */
static void finish(struct ng_batch_run *r, struct child *c)
{
    struct ng_batch_gate *g = &r->gates[c->gate];
    struct ng_err err;
    int status = 0;

    close(c->fd);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    ng_signal_forget(c->slot);
    if (WIFSIGNALED(status))
        gate_error(g, "the gate's process was killed by signal %d (%s)", WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        gate_error(g, "the gate's process failed (exit status %d)", WEXITSTATUS(status));
    else if (ng_verdict_doc_read(&g->result, c->text.data ? c->text.data : "", c->text.len,
                                 &err) < 0)
        gate_error(g, "the gate's process sent no verdict: %s", err.msg);
    else
        g->verdict = &g->result.v;
    g->result.v.verbose = g->settings->verbose;
    g->result.v.fail_inconclusive = g->settings->fail_inconclusive;
    g->result.v.elapsed_s = ng_monotonic() - c->started;
    ng_buf_release(&c->text);
}

/* Reads what is there; 1 once the child has closed its end. */
static int drain(struct child *c)
{
    char chunk[65536];
    ssize_t n = read(c->fd, chunk, sizeof chunk);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0)
        return 1;
    ng_buf_add(&c->text, chunk, (size_t)n);
    return 0;
}

static long default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* Descriptors kept free for the batch itself while gates run (poll, the
 * pipe being made, the reports' files). */
#define FD_RESERVE 16

static size_t open_descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    size_t n = 0;

    if (!d)
        return 3;
    while (readdir(d))
        n++;
    closedir(d);
    return n > 3 ? n - 3 : 0;   /* ".", ".." and the directory's own */
}

/* How many gates can run at once: each holds one descriptor here (its
 * pipe) for as long as it runs.  The soft open-file limit is raised to
 * the hard one first; what is still short lowers -j, and says so. */
static size_t descriptor_jobs(struct ng_batch_run *r, size_t want, int asked)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return want;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        (void)getrlimit(RLIMIT_NOFILE, &rl);
    }
    size_t used = open_descriptors() + FD_RESERVE;
    size_t fit = rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 1;
    if (fit == 0)
        fit = 1;
    if (fit >= want)
        return want;
    if (asked)
        snprintf(r->note, sizeof r->note,
                 "-j %zu is more gates at once than the open-file limit allows (ulimit -n "
                 "%llu): running %zu at once", want, (unsigned long long)rl.rlim_cur, fit);
    return fit;
}


/* "[12/40] resnet50: PASS: ... (3.2 s)", as each gate finishes. */
static void tell_finished(const struct ng_batch_gate *g, size_t done, size_t total)
{
    struct ng_buf headline = NG_BUF_INIT;
    const struct ng_verdict *v = g->verdict ? g->verdict : &g->result.v;

    ng_verdict_text_headline(v, NG_TEXT_ESCAPE_CONTROLS, &headline);
    ng_progress_gate_done(done, total, g->settings->compare.name, headline.data,
                          g->result.v.elapsed_s);
    ng_buf_release(&headline);
}

/* Every gate, at most `jobs` at once (<= 0: one per processor).  The gates
 * share one set of export slots, made before they are forked: --jobs
 * exports at once across the batch, within the memory bound. */
static void run_children(struct ng_batch_run *r, long jobs)
{
    size_t max = (size_t)(jobs > 0 ? jobs : default_jobs()), next = 0, n = 0, done = 0;
    if (max > r->n_gates)
        max = r->n_gates;
    max = descriptor_jobs(r, max, jobs > 0);
    struct child *run = ng_xcalloc(max, sizeof *run);
    struct pollfd *fds = ng_xcalloc(max, sizeof *fds);
    size_t n_paths;
    const char **paths = all_profiles(&r->manifest, &n_paths);
    int made_slots = ng_read_slots_setup(jobs, paths, n_paths, 1) == 1;
    size_t limit = max;   /* lowered while the system is short of descriptors or processes */

    free(paths);
    ng_signal_init();
    while (next < r->n_gates || n > 0) {
        while (n < limit && next < r->n_gates) {
            int rc = start(r, next, run, n);
            if (rc == 1) {   /* wait for a running gate; the same gate again after */
                limit = n;
                break;
            }
            next++;
            n += rc == 0;
        }
        for (size_t i = 0; i < n; i++)
            fds[i] = (struct pollfd){ run[i].fd, POLLIN, 0 };
        if (n == 0 || poll(fds, n, -1) < 0)
            continue;
        for (size_t i = n; i-- > 0;) {
            if (!fds[i].revents || !drain(&run[i]))
                continue;
            finish(r, &run[i]);
            tell_finished(&r->gates[run[i].gate], ++done, r->n_gates);
            run[i] = run[--n];   /* order does not matter: results go by gate index */
            if (limit < max)
                limit++;   /* try one more again, once one has ended */
        }
    }
    if (made_slots)
        ng_export_slots_teardown();
    free(fds);
    free(run);
}

/* ---- the two kinds of run ---- */

static void run_single(struct ng_batch_run *r, const struct ng_settings *s,
                       const struct ng_err *usage_err, double t0)
{
    struct ng_batch_gate *g;

    make_gates(r, 1);
    g = &r->gates[0];
    g->settings = s;
    g->local = ng_xmalloc(sizeof *g->local);
    ng_gate_run(g->local, s, usage_err);
    struct ng_verdict *v = &g->local->verdict;
    v->timestamp = ng_util_report_time();
    v->elapsed_s = ng_monotonic() - t0;
    g->verdict = v;
    if (v->outcome == NG_OUTCOME_ERROR)
        set_text(r->error, v->error);
}

static void run_manifest(struct ng_batch_run *r, const struct ng_settings *s,
                         const struct ng_err *usage_err)
{
    struct ng_err err;

    if (usage_err)
        err = *usage_err;
    if (usage_err || ng_manifest_load(&r->manifest, s, &err) < 0) {
        refuse_manifest(r, s, err.msg);
        set_text(r->error, err.msg);
        r->outputs.quiet = 1;   /* its ERROR line is on stderr already: not again on stdout */
        return;
    }
    refuse_batch_outputs(r);
    read_windows(r);
    make_gates(r, r->manifest.n_gates);
    for (size_t i = 0; i < r->n_gates; i++)
        r->gates[i].settings = &r->manifest.gates[i];
    run_children(r, s->jobs);
}

void ng_batch_run(struct ng_batch_run *r, const struct ng_settings *s,
                  const struct ng_err *usage_err, double t0)
{
    struct ng_verdict_batch_counts c;

    memset(r, 0, sizeof *r);
    r->outputs = *s;
    if (s->manifest)
        run_manifest(r, s, usage_err);
    else
        run_single(r, s, usage_err, t0);

    const struct ng_verdict **v = ng_xcalloc(r->n_gates, sizeof *v);
    for (size_t i = 0; i < r->n_gates; i++)
        v[i] = r->gates[i].verdict;
    r->batch = (struct ng_verdict_batch){ v, r->n_gates, NULL, v[0]->timestamp, v[0]->elapsed_s };
    if (s->manifest) {
        r->batch.manifest = s->manifest;
        r->batch.timestamp = ng_util_report_time();
        r->batch.elapsed_s = ng_monotonic() - t0;
        for (size_t i = 0; i < r->n_gates; i++)
            r->gates[i].result.v.timestamp = r->batch.timestamp;
    }
    ng_verdict_batch_count(&r->batch, &c);
    r->exit_code = r->refusal[0] ? 2 : c.exit_code;
}

void ng_batch_run_release(struct ng_batch_run *r)
{
    for (size_t i = 0; i < r->n_gates; i++) {
        struct ng_batch_gate *g = &r->gates[i];
        if (g->local) {
            ng_gate_release(g->local);
            free(g->local);
        }
        ng_verdict_doc_release(&g->result);
        free(g->own);
    }
    free(r->gates);
    free((void *)r->batch.verdicts);
    for (size_t i = 0; r->windows && i < r->manifest.n_gates; i++)
        ng_history_baseline_release(&r->windows[i]);
    free(r->windows);
    ng_manifest_release(&r->manifest);
    memset(r, 0, sizeof *r);
}
