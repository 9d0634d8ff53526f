#include "history/ng_accept.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_json_scan.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

static const char *field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* One line into a; NULL, or what is wrong with it (in *why when it shows
 * the line's text). */
static const char *read_line(struct ng_accept *a, const char *text, struct ng_buf *why)
{
    static const char *const need[] = { "gate", "commit", "reason", "author", "expires" };
    const char *problem = NULL, *end = NULL, *after;
    size_t len = strlen(text);
    cJSON *o = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    const char *got[5];
    time_t day;

    if (!cJSON_IsObject(o)) {
        problem = "not a JSON object";
    } else if ((after = ng_json_after(end, text + len)) != NULL) {
        /* "{...} junk" or a second object would acknowledge on the first */
        why->len = 0;
        ng_buf_adds(why, "text after the JSON object: ");
        ng_json_after_show(why, after, text + len);
        problem = why->data;
    } else if (ng_json_nul_escape(text, len))
        problem = "a string holds a NUL (\\u0000), which would cut it";
    for (size_t i = 0; !problem && i < 5; i++)
        if (!(got[i] = field(o, need[i])))
            problem = i == 0   ? "no \"gate\""
                      : i == 1 ? "no \"commit\""
                      : i == 2 ? "no \"reason\""
                      : i == 3 ? "no \"author\""
                               : "no \"expires\" (YYYY-MM-DD)";
    if (!problem && strlen(got[1]) < NG_ACCEPT_PREFIX_MIN)
        problem = "\"commit\" is shorter than 7 characters";
    if (!problem && (strlen(got[4]) != 10 || ng_parse_utc(got[4], &day) < 0))
        problem = "\"expires\" is not a date YYYY-MM-DD";
    if (!problem) {
        a->acks = ng_xgrow(a->acks, a->n, sizeof *a->acks);
        struct ng_ack *k = &a->acks[a->n++];
        k->gate = ng_xstrdup(got[0]);
        k->commit = ng_xstrdup(got[1]);
        k->reason = ng_xstrdup(got[2]);
        k->author = ng_xstrdup(got[3]);
        memcpy(k->expires, got[4], 11);
        k->until = day + 86400;
        k->line = a->line_no;
        k->path = a->path;
    }
    cJSON_Delete(o);
    return problem;
}

int ng_accept_read(struct ng_accept *a, const char *path, struct ng_err *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, no = 0;
    ssize_t len;
    int ret = 0;
    struct ng_buf why = NG_BUF_INIT;

    if (!f) {
        ng_err_set(err, "--accept: unable to open '%s': %s", path, strerror(errno));
        return -1;
    }
    while (ret == 0 && (len = getline(&line, &cap, f)) >= 0) {
        no++;
        a->line_no = no;
        a->path = path;
        if (strspn(line, " \t\r\n") == (size_t)len)
            continue;
        const char *problem = strlen(line) == (size_t)len ? read_line(a, line, &why)
                                                          : "a NUL byte in the line";
        if (problem) {
            ng_err_set(err, "--accept '%s' line %zu: %s", path, no, problem);
            ret = -1;
        }
    }
    if (ret == 0 && ferror(f)) {
        ng_err_set(err, "--accept: unable to read '%s': %s", path, strerror(errno));
        ret = -1;
    }
    free(line);
    ng_buf_release(&why);
    fclose(f);
    return ret;
}

const struct ng_ack *ng_accept_find(const struct ng_accept *a, const char *gate,
                                    const char *commit, time_t now, int *expired)
{
    const struct ng_ack *found = NULL;
    if (expired)
        *expired = 0;
    if (!commit)
        return NULL;
    for (size_t i = 0; i < a->n; i++) {
        const struct ng_ack *k = &a->acks[i];
        if (strcmp(k->gate, gate) != 0 || strncmp(k->commit, commit, strlen(k->commit)) != 0)
            continue;
        if (now < k->until)
            found = k;   /* the last line in force wins */
        else if (expired)
            *expired = 1;
    }
    return found;
}

void ng_accept_release(struct ng_accept *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->acks[i].gate);
        free(a->acks[i].commit);
        free(a->acks[i].reason);
        free(a->acks[i].author);
    }
    free(a->acks);
    a->acks = NULL;
    a->n = 0;
}
