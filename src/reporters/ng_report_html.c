/* The HTML report (--html): a self-contained page to keep as a CI
 * artifact, the dashboard's per-run section for one verdict, or for a
 * batch an overview table (failing first) and every gate's section.  The
 * page code is ng_html's, shared with the dashboard. */
#include <stdio.h>
#include <stdlib.h>

#include "core/ng_verdict_text.h"
#include "html/ng_html.h"
#include "reporters/ng_reporter.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

static void footer(struct ng_buf *out, time_t when)
{
    char ts[32];

    ng_fmt_utc(ts, sizeof ts, when, 1);
    ng_buf_addf(out, "<p class=\"note\">Written by %s %s at %s.</p>\n", NG_TOOL_NAME, NG_VERSION,
                ts);
}

static int html_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    struct ng_buf title = NG_BUF_INIT;

    (void)err;
    ng_buf_addf(&title, "%s: %s", ng_outcome_title(v->outcome), v->name);
    ng_html_begin(out, title.data);
    ng_buf_release(&title);
    ng_buf_adds(out, "<h1>nsys-gate report</h1>\n");
    struct ng_html_legend legend = { 0, 0, 0, 0 };
    ng_html_legend_add(&legend, v);
    ng_html_legend(out, &legend);
    ng_html_section(out, v, "run", 2, NULL);
    footer(out, v->timestamp);
    ng_html_end(out);
    return 0;
}

static int html_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                             struct ng_err *err)
{
    struct ng_buf line = NG_BUF_INIT;
    struct ng_html_row *rows = ng_xcalloc(b->n ? b->n : 1, sizeof *rows);
    char (*hrefs)[32] = ng_xcalloc(b->n ? b->n : 1, sizeof *hrefs);   /* "#gate-N": the id after '#' */

    (void)err;
    ng_verdict_text_batch_line(b, &line);
    ng_html_begin(out, line.data);
    ng_buf_adds(out, "<h1>nsys-gate report</h1>\n<p class=\"mono\">");
    ng_html_escape_text(out, line.data);
    ng_buf_release(&line);
    ng_buf_adds(out, "</p>\n");
    if (b->manifest) {
        ng_buf_adds(out, "<p>Manifest: <span class=\"mono\">");
        ng_html_escape_text(out, b->manifest);
        ng_buf_adds(out, "</span></p>\n");
    }
    for (size_t i = 0; i < b->n; i++) {
        /* the table links each gate to its section, which keeps manifest order */
        snprintf(hrefs[i], sizeof hrefs[i], "#gate-%zu", i + 1);
        rows[i] = (struct ng_html_row){ .v = b->verdicts[i], .href = hrefs[i] };
    }
    ng_html_filter(out);
    ng_html_overview(out, rows, b->n);
    struct ng_html_legend legend = { 0, 0, 0, 0 };
    for (size_t i = 0; i < b->n; i++)
        ng_html_legend_add(&legend, b->verdicts[i]);
    ng_html_legend(out, &legend);
    for (size_t i = 0; i < b->n; i++)
        ng_html_section(out, b->verdicts[i], hrefs[i] + 1, 2, NULL);
    footer(out, b->timestamp);
    ng_html_end(out);
    free(hrefs);
    free(rows);
    return 0;
}

const struct ng_reporter ng_reporter_html = {
    .name = "html",
    .render = html_render,
    .render_batch = html_render_batch,
};
