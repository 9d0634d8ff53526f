#include "sources/nsysrep/ng_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "util/ng_signal.h"
#include "util/ng_text.h"

extern char **environ;

static void keep_tail(struct ng_buf *b, const char *data, size_t n)
{
    ng_buf_add(b, data, n);
    if (b->len > NG_PROC_TAIL_MAX) {
        size_t drop = b->len - NG_PROC_TAIL_MAX;
        memmove(b->data, b->data + drop, NG_PROC_TAIL_MAX);
        b->len = NG_PROC_TAIL_MAX;
        b->data[b->len] = '\0';
    }
}

/* The child's whole environment, built before fork: after a fork in a
 * threaded process the child may only make async-signal-safe calls, and
 * putenv() can allocate. */
static char **child_environ(const char *const *extra)
{
    size_t n = 0, k = 0;
    for (char **e = environ; *e; e++)
        n++;
    for (size_t i = 0; extra && extra[i]; i++)
        n++;
    char **env = ng_xcalloc(n + 1, sizeof *env);
    for (char **e = environ; *e; e++) {
        int replaced = 0;
        for (size_t i = 0; extra && extra[i] && !replaced; i++) {
            size_t len = strcspn(extra[i], "=");
            replaced = strncmp(*e, extra[i], len + 1) == 0;
        }
        if (!replaced)
            env[k++] = *e;
    }
    for (size_t i = 0; extra && extra[i]; i++)
        env[k++] = (char *)extra[i];
    env[k] = NULL;
    return env;
}

/* Child side: never returns.  Reports an exec failure's errno through the
 * close-on-exec pipe so the parent can say "not found" instead of a bare
 * exit code. */
static void child(const char *const *argv, char **env, pid_t parent, int out_w, int err_w,
                  int status_w)
{
    int devnull = open("/dev/null", O_RDONLY);
    int e;

    setpgid(0, 0);
#ifdef __linux__
    /* die with the gate, even of SIGKILL; if the gate is gone already, go */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != parent)
        _exit(127);
#else
    (void)parent;
#endif
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        goto fail;
    execvpe(argv[0], (char *const *)argv, env);
fail:
    e = errno;
    ssize_t w = write(status_w, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* Drains what is readable right now from fd into b, at most `budget`
 * bytes; returns 0 at EOF. */
static int drain(int fd, struct ng_buf *b, size_t budget)
{
    char chunk[16384];
    for (size_t got = 0; got < budget;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) {
            keep_tail(b, chunk, (size_t)n);
            got += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0 ? 0 : 1;
    }
    return 1;
}

/* Reads both pipes and reaps the child.  Stops when the child has exited
 * (a grandchild holding the pipes open must not keep the gate waiting) or
 * the deadline passes (returns 1, child not reaped). */
static int pump(pid_t pid, int out_r, int err_r, double deadline, const struct ng_proc_opts *o,
                int *status, struct ng_proc_result *r)
{
    struct pollfd fds[2] = { { out_r, POLLIN, 0 }, { err_r, POLLIN, 0 } };

    fcntl(out_r, F_SETFL, O_NONBLOCK);
    fcntl(err_r, F_SETFL, O_NONBLOCK);
    for (;;) {
        int wait_ms = 100;
        if (deadline > 0) {
            double left = deadline - ng_monotonic();
            if (left <= 0)
                return 1;
            if (left < 0.1)
                wait_ms = (int)(left * 1000) + 1;
        }
        int rc = poll(fds, 2, wait_ms);
        if (rc < 0 && errno != EINTR)
            return 1;
        if (o && o->tick)
            o->tick(o->ctx);
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (drain(fds[i].fd, i == 0 ? &r->out_tail : &r->err_tail, SIZE_MAX) == 0)
                fds[i].fd = -1;   /* EOF: poll ignores negative fds */
        }
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) {
            /* What the child left in the pipes, read once: its group is
             * killed first, and the read is bounded, since a process that
             * left the group could keep writing faster than we read. */
            kill(-pid, SIGKILL);
            drain(out_r, &r->out_tail, 2 * NG_PROC_TAIL_MAX);
            drain(err_r, &r->err_tail, 2 * NG_PROC_TAIL_MAX);
            return 0;
        }
    }
}

int ng_proc_run(const char *const *argv, const struct ng_proc_opts *o,
                struct ng_proc_result *r, struct ng_err *err)
{
    int out_p[2], err_p[2], st_p[2];
    pid_t pid, parent = getpid();
    int exec_errno = 0, status = 0;
    double timeout_s = o ? o->timeout_s : 0;

    memset(r, 0, sizeof *r);
    if (pipe2(out_p, O_CLOEXEC) < 0)
        return ng_err_set(err, "unable to run '%s': %s", argv[0], strerror(errno));
    if (pipe2(err_p, O_CLOEXEC) < 0 || pipe2(st_p, O_CLOEXEC) < 0) {
        int e = errno;
        close(out_p[0]);
        close(out_p[1]);
        return ng_err_set(err, "unable to run '%s': %s", argv[0], strerror(e));
    }
    double deadline = timeout_s > 0 ? ng_monotonic() + timeout_s : 0;
    char **env = child_environ(o ? o->env : NULL);
    ng_signal_init();
    pid = fork();
    if (pid == 0)
        child(argv, env, parent, out_p[1], err_p[1], st_p[1]);
    int fork_errno = errno;
    free(env);
    close(out_p[1]);
    close(err_p[1]);
    close(st_p[1]);
    if (pid < 0) {
        close(out_p[0]);
        close(err_p[0]);
        close(st_p[0]);
        return ng_err_set(err, "unable to run '%s': %s", argv[0], strerror(fork_errno));
    }
    setpgid(pid, pid);    /* the child does the same: whoever runs first wins */
    int slot = ng_signal_add_group(pid);

    ssize_t n;
    do
        n = read(st_p[0], &exec_errno, sizeof exec_errno);
    while (n < 0 && errno == EINTR);
    close(st_p[0]);
    if (n != (ssize_t)sizeof exec_errno)
        exec_errno = 0;

    if (pump(pid, out_p[0], err_p[0], deadline, o, &status, r) != 0) {
        r->timed_out = 1;
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    close(out_p[0]);
    close(err_p[0]);
    /* Anything the child left behind in its group goes too. */
    kill(-pid, SIGKILL);
    ng_signal_forget(slot);

    if (exec_errno) {
        ng_proc_result_release(r);
        return ng_err_set(err, "unable to run '%s': %s", argv[0], strerror(exec_errno));
    }
    if (WIFEXITED(status)) {
        r->exited = 1;
        r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->term_signal = WTERMSIG(status);
    }
    return 0;
}

void ng_proc_result_release(struct ng_proc_result *r)
{
    ng_buf_release(&r->out_tail);
    ng_buf_release(&r->err_tail);
}

/* `Processing 7708 events: [=====  40%      ]`, `[100%]`: a bracket at
 * the end of the line holding a percentage and nothing but bar characters
 * around it (so `exit code [2]` stays a line). */
static int is_progress_bar(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n < 2 || s[n - 1] != ']')
        return 0;
    size_t open = n - 1;
    while (open > 0 && s[open - 1] != '[')
        open--;
    if (open == 0)
        return 0;
    int percent = 0;
    for (size_t i = open; i < n - 1; i++) {
        if (!strchr("=#-> %0123456789.", s[i]))
            return 0;
        percent |= s[i] == '%';
    }
    return percent;
}

void ng_proc_tail_line(const struct ng_buf *tail, int max_lines, struct ng_buf *out)
{
    const char *s = tail->data ? tail->data : "";
    size_t len = tail->len;
    size_t starts[64], ends[64];
    int count = 0;

    if (max_lines > 64)
        max_lines = 64;
    /* walk backwards collecting non-empty lines */
    size_t end = len;
    while (end > 0 && count < max_lines) {
        size_t e = end;
        while (e > 0 && (s[e - 1] == '\n' || s[e - 1] == '\r'))
            e--;
        size_t b = e;
        while (b > 0 && s[b - 1] != '\n' && s[b - 1] != '\r')
            b--;
        if (e > b && !is_progress_bar(s + b, e - b)) {
            starts[count] = b;
            ends[count] = e;
            count++;
        }
        end = b;
    }
    for (int i = count - 1; i >= 0; i--) {
        if (i != count - 1)
            ng_buf_adds(out, " | ");
        size_t n = ends[i] - starts[i];
        if (n > 400) {
            ng_buf_adds(out, "...");
            starts[i] = ends[i] - 400;
            n = 400;
        }
        ng_text_clean(out, s + starts[i], n, NG_TEXT_ESCAPE_CONTROLS);
    }
    if (count == 0)
        ng_buf_add(out, "", 0);
}
