/* ng_manifest: reading a batch manifest (see ng_manifest.h).  This is the second of the two files that use cJSON:
 * ng_report_json.c writes (and reads back) the verdict; this one reads
 * the manifest, an input rather than a report.  Wrapping cJSON in a
 * project JSON layer for one reader would be more code than the reading. */
#include "cli/ng_manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/ng_json_scan.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

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
    ng_cli_clear_list(e->s, flag);   /* the gate's own list, not added to the command line's */
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

/* The fields every gate must have, and names must be distinct.  With a
 * --baseline-history (the entry's or the command line's) the baseline is
 * its runs and no "baseline" is needed. */
static int check_entry(const struct ng_manifest *m, size_t index, const cJSON *entry,
                       const struct ng_settings *s, struct ng_err *err)
{
    static const char *const required[] = { "name", "baseline", "current" };
    const char *name = entry_name(entry);

    /* null means "the default" elsewhere, and these have none: a gate
     * with no current profile would compare against nothing */
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(entry, required[i]);
        if (i == 1 && s->baseline_history)
            continue;
        if (!f || cJSON_IsNull(f))
            return ng_err_set(err, "is missing"), at(err, m, index, name, required[i]);
    }
    for (size_t i = 0; i < index && name; i++)
        if (strcmp(m->gates[i].compare.name, name) == 0)
            return ng_err_set(err, "is the name of gates[%zu] too (JUnit readers keep only "
                                   "one of them)", i),
                   at(err, m, index, name, "name");
    return 0;
}

static int load_gate(struct ng_manifest *m, size_t index, const cJSON *entry, const char *dir,
                     const struct ng_settings *defaults, struct ng_err *err)
{
    struct ng_settings *s = &m->gates[index];
    struct entry e = { m, s, dir };
    const cJSON *field;

    *s = *defaults;
    s->n_owned = 0;   /* what the command line's settings own stays theirs */
    s->n_baselines = s->n_currents = 0;
    s->manifest = NULL;
    /* a gate with its own baseline profiles does not take the command
     * line's --baseline-history */
    if (cJSON_IsObject(entry) && cJSON_GetObjectItemCaseSensitive(entry, "baseline"))
        s->baseline_history = NULL;
    if (!cJSON_IsObject(entry))
        return ng_err_set(err, "is not an object"), at(err, m, index, NULL, NULL);
    cJSON_ArrayForEach(field, entry)
        if (apply_field(&e, field, err) < 0)
            return at(err, m, index, entry_name(entry), field->string);
    if (check_entry(m, index, entry, s, err) < 0)
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

static void trailing_text(struct ng_err *err, const char *text, const char *after,
                          const char *end)
{
    struct ng_buf shown = NG_BUF_INIT;
    ng_json_after_show(&shown, after, end);
    ng_err_set(err, "text after the JSON object (line %d): %s", json_line(text, after),
               shown.data);
    ng_buf_release(&shown);
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
    const char *end = NULL, *after = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    const char *nul = root ? ng_json_nul_escape(text, len) : NULL;
    if (root && !nul)   /* a manifest and then other text: not the manifest meant */
        after = ng_json_after(end, text + len);
    if (!root || nul || after) {
        if (after)
            trailing_text(err, text, after, text + len);
        else if (nul)
            ng_err_set(err, "a string holds a NUL (\\u0000), which would cut it (line %d)",
                       json_line(text, nul));
        else
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

void ng_manifest_release(struct ng_manifest *m)
{
    free(m->gates);
    for (size_t i = 0; i < m->n_strings; i++)
        free(m->strings[i]);
    free(m->strings);
    memset(m, 0, sizeof *m);
}
