/* The human reporter: the prototype's first line, byte for byte, then on
 * FAIL/INCONCLUSIVE (or --verbose) indented detail lines.  On ERROR it
 * prints nothing: main prints the one ERROR line on stderr.  In batch mode
 * each gate's line is prefixed with its name, errors included (there is no
 * other per-gate line), and a last line counts the outcomes. */
#include <string.h>

#include "core/ng_verdict_text.h"
#include "reporters/ng_reporter.h"
#include "util/ng_text.h"

static int human_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    (void)err;
    if (v->outcome == NG_OUTCOME_ERROR)
        return 0;
    ng_verdict_text_headline(v, NG_TEXT_ESCAPE_CONTROLS, out);
    ng_buf_adds(out, "\n");
    if (ng_verdict_text_wants_details(v))
        ng_verdict_text_details(v, out);
    return 0;
}

static int human_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                              struct ng_err *err)
{
    (void)err;
    for (size_t i = 0; i < b->n; i++) {
        const struct ng_verdict *v = b->verdicts[i];
        ng_text_clean(out, v->name, strlen(v->name), NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_adds(out, ": ");
        ng_verdict_text_headline(v, NG_TEXT_ESCAPE_CONTROLS, out);
        ng_buf_adds(out, "\n");
        if (ng_verdict_text_wants_details(v))
            ng_verdict_text_details(v, out);
    }
    ng_verdict_text_batch_line(b, out);
    ng_buf_adds(out, "\n");
    return 0;
}

const struct ng_reporter ng_reporter_human = {
    .name = "human",
    .render = human_render,
    .render_batch = human_render_batch,
};
