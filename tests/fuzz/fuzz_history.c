/* Fuzz target: the --history reader (ng_history_read_stream), fed from
 * memory.  Whatever the bytes, every line is either a verdict (with a
 * name, an outcome, and a headline, JSON and a history line within its
 * limit that render) or skipped with
 * a warning that names its line; the counts add up; line numbers rise.
 * Then the same bytes line by line (ng_history_read_lines) through both
 * readers of a line: where the dashboard's scanner (ng_trend_scan) reads one,
 * the full reader reads it too, to the same figures; both passes count
 * the same lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core/ng_verdict_text.h"
#include "history/ng_verdict_doc.h"
#include "core/ng_work_rates.h"
#include "reporters/ng_report.h"
#include "history/ng_history.h"
#include "reporters/ng_reporter.h"
#include "history/ng_trend_scan.h"

struct seen {
    size_t n;
    size_t last_line;
};

static int check_entry(struct ng_history_entry *e, void *ctx)
{
    struct seen *s = ctx;
    const struct ng_verdict *v = &e->doc.v;
    struct ng_buf out = NG_BUF_INIT;
    struct ng_err err;

    NG_FUZZ_CHECK(e->line > s->last_line);
    NG_FUZZ_CHECK(v->name != NULL);
    NG_FUZZ_CHECK(v->outcome >= NG_OUTCOME_PASS && v->outcome <= NG_OUTCOME_ERROR);
    NG_FUZZ_CHECK(v->mode != NULL);
    char *headline = ng_verdict_text_headline_string(v);
    NG_FUZZ_CHECK(strncmp(headline, ng_outcome_title(v->outcome),
                          strlen(ng_outcome_title(v->outcome))) == 0);
    free(headline);
    /* what was read back renders again, as the batch's parent renders it */
    NG_FUZZ_CHECK(ng_report_render("json-line", v, &out, &err) == 0);
    NG_FUZZ_CHECK(out.len > 0 && out.data[out.len - 1] == '\n');
    ng_buf_release(&out);
    /* and as a history line: one line, within the limit */
    NG_FUZZ_CHECK(ng_report_render("history", v, &out, &err) == 0);
    NG_FUZZ_CHECK(out.len > 0 && out.len <= NG_HISTORY_LINE_LIMIT &&
                  out.data[out.len - 1] == '\n' && !memchr(out.data, '\n', out.len - 1));
    ng_buf_release(&out);
    s->last_line = e->line;
    s->n++;
    return 0;
}

/* Both readers on one line; the full one decides, as the dashboard's
 * does where the scanner cannot tell. */
static int both_readers(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    struct ng_trend_scan fast = NG_TREND_SCAN_INIT, full = NG_TREND_SCAN_INIT;
    struct ng_verdict_doc doc;
    int scanned = ng_trend_scan_line(&fast, l->text, l->len) == 0;
    int ret = ng_verdict_doc_read(&doc, l->text, l->len, err);

    (void)ctx;
    NG_FUZZ_CHECK(!scanned || ret == 0);
    if (scanned) {
        ng_trend_scan_of_verdict(&full, &doc.v);
        NG_FUZZ_CHECK(ng_trend_scan_same(&fast, &full));
    }
    ng_verdict_doc_release(&doc);
    ng_trend_scan_release(&fast);
    ng_trend_scan_release(&full);
    return ret;
}

static void check_line_readers(const uint8_t *data, size_t size, const struct ng_history *whole)
{
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_err err;
    FILE *f = fmemopen((void *)data, size, "r");

    NG_FUZZ_CHECK(f != NULL);
    h.line_max = whole->line_max;
    NG_FUZZ_CHECK(ng_history_read_lines(&h, f, "fuzz.jsonl", both_readers, NULL, &err) == 0);
    fclose(f);
    NG_FUZZ_CHECK(h.lines == whole->lines && h.verdicts == whole->verdicts &&
                  h.skipped == whole->skipped && h.n_warnings == whole->n_warnings);
    for (size_t i = 0; i < h.n_warnings; i++)
        NG_FUZZ_CHECK(strcmp(h.warnings[i], whole->warnings[i]) == 0);
    ng_history_release(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ng_history h = NG_HISTORY_INIT;
    struct seen seen = { 0, 0 };
    struct ng_err err;
    FILE *f;

    if (size == 0)
        return 0;   /* fmemopen refuses an empty buffer */
    f = fmemopen((void *)data, size, "r");
    NG_FUZZ_CHECK(f != NULL);
    h.line_max = 4096;   /* small, so over-long lines are reached */
    NG_FUZZ_CHECK(ng_history_read_stream(&h, f, "fuzz.jsonl", check_entry, &seen, &err) == 0);
    fclose(f);

    size_t newlines = 0;
    for (size_t i = 0; i < size; i++)
        newlines += data[i] == '\n';
    NG_FUZZ_CHECK(h.lines == newlines + (data[size - 1] != '\n'));
    NG_FUZZ_CHECK(seen.n == h.verdicts);
    NG_FUZZ_CHECK(h.verdicts + h.skipped <= h.lines);
    NG_FUZZ_CHECK(seen.last_line <= h.lines);
    NG_FUZZ_CHECK(h.n_warnings <= NG_HISTORY_WARNINGS_MAX + 1);
    NG_FUZZ_CHECK(h.n_warnings == (h.skipped > NG_HISTORY_WARNINGS_MAX
                                       ? NG_HISTORY_WARNINGS_MAX + 1 : h.skipped));
    for (size_t i = 0; i < h.n_warnings; i++)
        NG_FUZZ_CHECK(strncmp(h.warnings[i], "'fuzz.jsonl'", 12) == 0);
    check_line_readers(data, size, &h);
    ng_history_release(&h);
    return 0;
}
