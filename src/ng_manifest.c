/* ng_manifest: reading a batch manifest and running its gates (see
 * ng_manifest.h).  This is the second of the two files that use cJSON:
 * ng_report_json.c writes (and reads back) the verdict; this one reads
 * the manifest, an input rather than a report.  Wrapping cJSON in a
 * project JSON layer for one reader would be more code than the reading. */
#include "ng_manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ng_compare.h"
#include "ng_gate.h"
#include "ng_progress.h"
#include "ng_signal.h"
#include "ng_slots.h"
#include "ng_util.h"

/* A manifest is a list of paths and numbers: anything bigger is a mistake. */
#define MANIFEST_MAX_BYTES (64 * 1024 * 1024)

/* ---- reading ---- */

static const char *keep(struct ng_manifest *m, const char *s)
{
    m->strings = ng_xrealloc(m->strings, (m->n_strings + 1) * sizeof *m->strings);
    return m->strings[m->n_strings++] = ng_xstrdup(s);
}

static char *read_whole(const char *path, size_t *len, struct ng_err *err)
{
    struct ng_buf b = NG_BUF_INIT;
    char chunk[65536];
    size_t n;
    FILE *f = fopen(path, "rb");

    if (!f)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno)), NULL;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= MANIFEST_MAX_BYTES)
        ng_buf_add(&b, chunk, n);
    int failed = ferror(f), saved = errno;
    fclose(f);
    if (failed) {
        ng_buf_release(&b);
        return ng_err_set(err, "unable to read '%s': %s", path, strerror(saved)), NULL;
    }
    if (b.len > MANIFEST_MAX_BYTES) {
        ng_buf_release(&b);
        return ng_err_set(err, "'%s' is larger than 64 MiB", path), NULL;
    }
    *len = b.len;
    return ng_buf_detach(&b);
}

/* Prefixes err with the manifest: manifest 'm.json': ... */
static int in_manifest(struct ng_err *err, const struct ng_manifest *m)
{
    char *path = ng_text_cleaned(m->path, NG_TEXT_ESCAPE_CONTROLS);
    ng_err_prefix(err, "manifest '%s'", path);
    free(path);
    return -1;
}

/* Prefixes err with the place of the problem:
 * manifest 'm.json': gates[3] (name "bert"): field "threshold" */
static int at(struct ng_err *err, const struct ng_manifest *m, size_t index, const char *name,
              const char *field)
{
    char *shown = name ? ng_text_cleaned(name, NG_TEXT_ESCAPE_CONTROLS) : NULL;
    char *key = field ? ng_text_cleaned(field, NG_TEXT_ESCAPE_CONTROLS) : NULL;

    if (key)
        ng_err_prefix(err, "field \"%s\"", key);
    if (shown)
        ng_err_prefix(err, "gates[%zu] (name \"%s\")", index, shown);
    else
        ng_err_prefix(err, "gates[%zu] (no name)", index);
    free(shown);
    free(key);
    return in_manifest(err, m);
}

struct entry {
    struct ng_manifest *m;
    struct ng_settings *s;
    const char *dir;       /* the manifest's folder; NULL: the current one */
};

/* Relative profile paths (and an nsys given as a path, not a bare name
 * looked up on PATH) are the manifest's, wherever the gate runs from. */
static const char *resolve(const struct entry *e, enum ng_cli_scope scope, const char *flag,
                           const char *text)
{
    if (scope != NG_CLI_GATE_PATH || !e->dir || !*text || text[0] == '/' ||
        (strcmp(flag, "nsys") == 0 && !strchr(text, '/')))
        return keep(e->m, text);
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_addf(&b, "%s/%s", e->dir, text);
    const char *kept = keep(e->m, b.data);
    ng_buf_release(&b);
    return kept;
}

/* One JSON value as the option's text, then through the CLI's parser. */
static int set_value(const struct entry *e, const char *flag, enum ng_cli_scope scope,
                     int values, const cJSON *item, struct ng_err *err)
{
    char num[40];
    const char *text, *problem;

    if (cJSON_IsString(item)) {
        text = item->valuestring;
    } else if (cJSON_IsNumber(item) && values != 0) {
        ng_fmt_double(num, sizeof num, item->valuedouble);
        text = num;
    } else if (cJSON_IsBool(item) && values == 0) {
        text = cJSON_IsTrue(item) ? "1" : "0";
    } else {
        return ng_err_set(err, values == 0 ? "must be true or false"
                                           : "must be a string or a number");
    }
    text = resolve(e, scope, flag, text);
    if (ng_cli_set_option(e->s, flag, text, &problem) < 0) {
        char *shown = ng_text_cleaned(text, NG_TEXT_ESCAPE_CONTROLS);
        ng_err_set(err, "'%s' %s", shown, problem);
        free(shown);
        return -1;
    }
    return 0;
}

static int apply_field(const struct entry *e, const cJSON *field, struct ng_err *err)
{
    const char *key = field->string;
    char flag[64];
    int values = 0;

    if (strchr(key, '-'))
        return ng_err_set(err, "is spelled with '_' for '-' in a manifest");
    if (strlen(key) >= sizeof flag)
        return ng_err_set(err, "is not an option (see nsys-gate --help)");
    for (size_t i = 0; i <= strlen(key); i++)
        flag[i] = key[i] == '_' ? '-' : key[i];
    enum ng_cli_scope scope = ng_cli_option_scope(flag, &values);
    if (scope == NG_CLI_UNKNOWN)
        return ng_err_set(err, "is not an option (see nsys-gate --help)");
    if (scope == NG_CLI_RUN)
        return ng_err_set(err, "is not a per-gate option: give --%s on the command line", flag);
    if (cJSON_IsNull(field))
        return 0;   /* the command line's value, or the default */
    if (!cJSON_IsArray(field))
        return set_value(e, flag, scope, values, field, err);
    if (values != 2)
        return ng_err_set(err, "takes one value, not a list");
    if (cJSON_GetArraySize(field) == 0)
        return ng_err_set(err, "is an empty list");
    const cJSON *it;
    cJSON_ArrayForEach(it, field)
        if (set_value(e, flag, scope, values, it, err) < 0)
            return -1;
    return 0;
}

static const char *entry_name(const cJSON *entry)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "name");
    return cJSON_IsString(name) ? name->valuestring : NULL;
}

/* The fields every gate must have, and names must be distinct. */
static int check_entry(const struct ng_manifest *m, size_t index, const cJSON *entry,
                       struct ng_err *err)
{
    static const char *const required[] = { "name", "baseline", "current" };
    const char *name = entry_name(entry);

    /* null means "the default" elsewhere, and these have none: a gate
     * with no current profile would compare against nothing */
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(entry, required[i]);
        if (!f || cJSON_IsNull(f))
            return ng_err_set(err, "is missing"), at(err, m, index, name, required[i]);
    }
    for (size_t i = 0; i < index && name; i++)
        if (strcmp(m->gates[i].settings.compare.name, name) == 0)
            return ng_err_set(err, "is the name of gates[%zu] too (JUnit readers keep only "
                                   "one of them)", i),
                   at(err, m, index, name, "name");
    return 0;
}

static int load_gate(struct ng_manifest *m, size_t index, const cJSON *entry, const char *dir,
                     const struct ng_settings *defaults, struct ng_err *err)
{
    struct ng_settings *s = &m->gates[index].settings;
    struct entry e = { m, s, dir };
    const cJSON *field;

    *s = *defaults;
    s->n_owned = 0;   /* what the command line's settings own stays theirs */
    s->n_baselines = s->n_currents = 0;
    s->manifest = NULL;
    if (!cJSON_IsObject(entry))
        return ng_err_set(err, "is not an object"), at(err, m, index, NULL, NULL);
    cJSON_ArrayForEach(field, entry)
        if (apply_field(&e, field, err) < 0)
            return at(err, m, index, entry_name(entry), field->string);
    if (check_entry(m, index, entry, err) < 0)
        return -1;
    if (ng_cli_check_gate(s, err) < 0)
        return at(err, m, index, entry_name(entry), NULL);
    return 0;
}

static int json_line(const char *text, const char *where)
{
    int line = 1;
    for (const char *p = text; p < where && *p; p++)
        line += *p == '\n';
    return line;
}

static int load_root(struct ng_manifest *m, const cJSON *root, const char *dir,
                     const struct ng_settings *defaults, struct ng_err *err)
{
    const cJSON *gates = cJSON_GetObjectItemCaseSensitive(root, "gates"), *it;
    size_t i = 0;

    if (!cJSON_IsObject(root))
        return ng_err_set(err, "not a JSON object with a \"gates\" array"), in_manifest(err, m);
    cJSON_ArrayForEach(it, root) {
        if (strcmp(it->string, "gates") != 0 && strcmp(it->string, "$schema") != 0) {
            ng_err_set(err, "unknown top-level field \"%s\" (expected \"gates\")", it->string);
            return in_manifest(err, m);
        }
    }
    if (!cJSON_IsArray(gates))
        return ng_err_set(err, "no \"gates\" array"), in_manifest(err, m);
    if (cJSON_GetArraySize(gates) == 0)
        return ng_err_set(err, "no gates (\"gates\" is empty)"), in_manifest(err, m);
    m->gates = ng_xcalloc((size_t)cJSON_GetArraySize(gates), sizeof *m->gates);
    cJSON_ArrayForEach(it, gates) {
        if (load_gate(m, i, it, dir, defaults, err) < 0)
            return -1;
        m->n_gates = ++i;
    }
    return 0;
}

int ng_manifest_load(struct ng_manifest *m, const struct ng_settings *defaults,
                     struct ng_err *err)
{
    size_t len = 0;
    const char *slash = strrchr(defaults->manifest, '/');
    const char *dir = NULL;
    char *text;
    int ret;

    memset(m, 0, sizeof *m);
    m->path = defaults->manifest;
    if (!(text = read_whole(m->path, &len, err)))
        return ng_err_prefix(err, "--manifest");
    if (slash) {
        size_t n = slash == m->path ? 1 : (size_t)(slash - m->path);   /* "/m.json": "/" */
        char *d = ng_xstrndup(m->path, n);
        dir = keep(m, d);
        free(d);
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        ng_err_set(err, "not valid JSON (near line %d)", json_line(text, cJSON_GetErrorPtr()));
        ret = in_manifest(err, m);
    } else {
        ret = load_root(m, root, dir, defaults, err);
    }
    cJSON_Delete(root);
    free(text);
    if (ret < 0)
        ng_manifest_release(m);
    return ret;
}

/* ---- results without a child's verdict ---- */

static void gate_error(struct ng_manifest_gate *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void gate_error(struct ng_manifest_gate *g, const char *fmt, ...)
{
    const struct ng_settings *s = &g->settings;
    struct ng_verdict *v = &g->result.v;
    char msg[NG_ERR_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memset(&g->result, 0, sizeof g->result);
    ng_verdict_begin(v, NULL, 0, NULL, 0, &s->compare);
    v->baseline.path = s->n_baselines ? s->baselines[0] : NULL;
    v->current.path = s->n_currents ? s->currents[0] : NULL;
    ng_verdict_fail_with(v, msg);
}

void ng_manifest_refuse(struct ng_manifest *m, const struct ng_settings *defaults,
                        const char *error)
{
    memset(m, 0, sizeof *m);
    m->path = defaults->manifest;
    m->gates = ng_xcalloc(1, sizeof *m->gates);
    m->n_gates = 1;
    m->gates[0].settings = *defaults;
    m->gates[0].settings.n_owned = 0;
    m->gates[0].settings.compare.name = "manifest";
    gate_error(&m->gates[0], "%s", error);
}

/* ---- running ---- */

struct child {
    pid_t pid;
    int fd;               /* read end of the pipe the verdict comes through */
    size_t gate;
    double started;
    struct ng_buf text;
    int slot;             /* its ng_signal registration */
};

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* In the child: one gate, its verdict as one JSON line into fd. */
static void __attribute__((noreturn)) run_child(const struct ng_settings *s, int fd)
{
    struct ng_gate g;
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;

    ng_signal_forget_all();   /* the parent's other gates are not this one's to stop */
    /* gates share stderr: export progress as lines, each naming its gate */
    if (ng_progress_mode() != NG_PROGRESS_OFF) {
        struct ng_buf prefix = NG_BUF_INIT;
        ng_buf_addf(&prefix, "%s: ", s->compare.name);
        ng_progress_set_mode(NG_PROGRESS_LINES);
        ng_progress_set_prefix(prefix.data);
        ng_buf_release(&prefix);
    }
    ng_gate_run(&g, s, NULL);
    if (ng_report_render("json-line", &g.verdict, &out, &err) < 0 ||
        write_all(fd, out.data, out.len) < 0)
        _exit(3);
    _exit(0);
}

static int start(struct ng_manifest *m, size_t gate, struct child *c)
{
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) < 0) {
        gate_error(&m->gates[gate], "unable to start the gate: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);   /* nothing buffered may be written twice */
    pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(p[0]);
        close(p[1]);
        gate_error(&m->gates[gate], "unable to start the gate: %s", strerror(saved));
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        run_child(&m->gates[gate].settings, p[1]);
    }
    close(p[1]);
    /* a signal to the batch reaches every gate it started, which then
     * cleans up after itself */
    *c = (struct child){ pid, p[0], gate, ng_monotonic(), NG_BUF_INIT, ng_signal_add_child(pid) };
    return 0;
}

/* The child closed its pipe: reap it and read its verdict back. */
static void finish(struct ng_manifest *m, struct child *c)
{
    struct ng_manifest_gate *g = &m->gates[c->gate];
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
    g->result.v.verbose = g->settings.verbose;
    g->result.v.fail_inconclusive = g->settings.fail_inconclusive;
    g->result.v.elapsed_s = ng_monotonic() - c->started;
    ng_buf_release(&c->text);
}

/* "[12/40] resnet50: PASS: ... (3.2 s)" on stderr as each gate finishes,
 * unless --quiet: a long batch shows it is alive (stdout keeps the report). */
static void say_finished(const struct ng_manifest_gate *g, size_t done, size_t total)
{
    if (ng_progress_mode() == NG_PROGRESS_OFF)
        return;
    char *name = ng_text_cleaned(g->settings.compare.name, NG_TEXT_ESCAPE_CONTROLS);
    char *msg = ng_text_cleaned(g->result.v.message, NG_TEXT_ESCAPE_CONTROLS);
    fprintf(stderr, "[%zu/%zu] %s: %s (%.1f s)\n", done, total, name, msg,
            g->result.v.elapsed_s);
    fflush(stderr);
    free(name);
    free(msg);
}

const char **ng_manifest_profiles(const struct ng_manifest *m, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n_gates; i++)
        k += m->gates[i].settings.n_baselines + m->gates[i].settings.n_currents;
    const char **paths = ng_xcalloc(k ? k : 1, sizeof *paths);
    *n = 0;
    for (size_t i = 0; i < m->n_gates; i++) {
        const struct ng_settings *s = &m->gates[i].settings;
        for (size_t j = 0; j < s->n_baselines; j++)
            paths[(*n)++] = s->baselines[j];
        for (size_t j = 0; j < s->n_currents; j++)
            paths[(*n)++] = s->currents[j];
    }
    return paths;
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

void ng_manifest_run(struct ng_manifest *m, long jobs)
{
    size_t max = (size_t)(jobs > 0 ? jobs : default_jobs()), next = 0, n = 0;
    if (max > m->n_gates)
        max = m->n_gates;
    struct child *run = ng_xcalloc(max, sizeof *run);
    struct pollfd *fds = ng_xcalloc(max, sizeof *fds);
    size_t done = 0;

    ng_signal_init();
    /* one set of export slots for every gate: --jobs exports at once across
     * the batch, within the memory bound (the gates inherit it) */
    size_t n_paths;
    const char **paths = ng_manifest_profiles(m, &n_paths);
    int made_slots = ng_slots_setup_for(jobs, paths, n_paths, 1) == 1;
    free(paths);
    while (next < m->n_gates || n > 0) {
        while (n < max && next < m->n_gates) {
            if (start(m, next++, &run[n]) == 0)
                n++;
        }
        for (size_t i = 0; i < n; i++)
            fds[i] = (struct pollfd){ run[i].fd, POLLIN, 0 };
        if (n == 0 || poll(fds, n, -1) < 0)
            continue;
        for (size_t i = n; i-- > 0;) {
            if (!fds[i].revents || !drain(&run[i]))
                continue;
            finish(m, &run[i]);
            say_finished(&m->gates[run[i].gate], ++done, m->n_gates);
            run[i] = run[--n];   /* order does not matter: results go by gate index */
        }
    }
    if (made_slots)
        ng_slots_teardown();
    free(fds);
    free(run);
}

void ng_manifest_release(struct ng_manifest *m)
{
    for (size_t i = 0; i < m->n_gates; i++)
        ng_verdict_doc_release(&m->gates[i].result);
    free(m->gates);
    for (size_t i = 0; i < m->n_strings; i++)
        free(m->strings[i]);
    free(m->strings);
    memset(m, 0, sizeof *m);
}
