#include "run/ng_summarize.h"

#include <stdlib.h>
#include <string.h>

#include "run/ng_read.h"
#include "util/ng_util.h"

/* The profile's warnings, then the reading's (the export cache), once. */
static void keep_warnings(struct ng_summarize_result *res, const struct ng_profile *p,
                          const struct ng_read *r)
{
    for (size_t i = 0; i < p->n_warnings; i++)
        ng_strv_push(&res->warnings, &res->n_warnings, ng_xstrdup(p->warnings[i]));
    for (size_t i = 0; i < ng_read_n_notes(r); i++)
        ng_strv_push(&res->warnings, &res->n_warnings, ng_xstrdup(ng_read_note_at(r, i)));
}

static char *say(const struct ng_settings *s, const struct ng_profile *p, size_t bytes)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_buf_addf(&b, "%s: %zu item%s", s->write_summary, p->n_rows, p->n_rows == 1 ? "" : "s");
    if (p->nvtx)
        ng_buf_addf(&b, ", %zu epoch%s", p->n_epochs, p->n_epochs == 1 ? "" : "s");
    ng_buf_addf(&b, ", %zu bytes, from '%s' (%s)", bytes, p->path, ng_format_name(p->format));
    return ng_buf_detach(&b);
}

/* --ranks: the operands expanded, every rank folded into p as it is read. */
static int read_ranks(struct ng_read *r, struct ng_profile *p, const struct ng_settings *s,
                      struct ng_err *err)
{
    char **paths;
    size_t n;

    if (ng_read_expand(s->operands, s->n_operands, "run", &paths, &n, err) < 0)
        return -1;
    const struct ng_read_side side = { p, paths, n, 1 };
    int ret = ng_read_ranks(r, &side, 1, s->jobs, err);
    ng_strv_free(&paths, &n);
    return ret;
}

int ng_summarize_run(const struct ng_settings *s, struct ng_summarize_result *res,
                     struct ng_err *err)
{
    struct ng_read r;
    struct ng_profile p;
    struct ng_profile *one = &p;
    size_t bytes = 0;

    memset(res, 0, sizeof *res);
    if (s->ranks)
        ng_read_side_init(&p, s->operands, s->n_operands);
    else
        ng_profile_init(&p, s->currents[0]);
    int ret = ng_read_setup(&r, s, err);
    /* each item's time per epoch, whether or not a gate asks for it yet */
    r.opts.item_samples = r.opts.epoch_re != NULL;
    if (ret == 0)
        ret = s->ranks ? read_ranks(&r, &p, s, err) : ng_read_profiles(&r, &one, 1, s->jobs, err);
    keep_warnings(res, &p, &r);
    if (ret == 0)
        ret = ng_read_summary_write(&r, &p, s->write_summary, s->range_groups, &bytes,
                                    err);
    if (ret == 0 && strcmp(s->write_summary, "-") != 0 && !s->quiet)
        res->line = say(s, &p, bytes);
    ng_profile_release(&p);
    ng_read_release(&r);
    return ret;
}

void ng_summarize_result_release(struct ng_summarize_result *res)
{
    ng_strv_free(&res->warnings, &res->n_warnings);
    free(res->line);
    res->line = NULL;
}
