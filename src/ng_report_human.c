/* The human reporter: the prototype's first line, byte for byte.  On ERROR
 * it prints nothing: main prints the one ERROR line on stderr. */
#include <string.h>

#include "ng_reporter.h"

static int human_render(const struct ng_verdict *v, struct ng_buf *out, struct ng_err *err)
{
    (void)err;
    if (v->outcome == NG_OUTCOME_ERROR)
        return 0;
    /* the message holds no user text, but keep the rule in one place */
    ng_text_clean(out, v->message, strlen(v->message), NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_adds(out, "\n");
    return 0;
}

const struct ng_reporter ng_reporter_human = {
    .name = "human",
    .render = human_render,
};
