/* The JUnit XML report (schemas/junit.xsd): the only file that uses
 * libxml2.  One <testsuite> root in the strict Ant order (properties,
 * testcase, system-out, system-err), which both Jenkins' lenient schema
 * and the strict Ant schema accept.  GitLab shows only the text of
 * <failure>/<error>, so the human summary goes there.
 *
 * A batch is the same single <testsuite> with one <testcase> per gate:
 * a <testsuites> root is refused by the strict Ant schema, and the
 * figures of each gate are in its failure text (a <testcase> cannot hold
 * properties there); the suite's properties count the outcomes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/tree.h>

#include "core/ng_verdict_text.h"
#include "reporters/ng_reporter.h"
#include "util/ng_text.h"
#include "util/ng_version.h"

/* XML 1.0 cannot carry most control characters, even escaped: they become
 * visible \xNN; invalid UTF-8 becomes U+FFFD. */
static xmlChar *xml_text(const char *s, int keep_newlines)
{
    return (xmlChar *)ng_text_cleaned(s ? s : "",
                                      NG_TEXT_ESCAPE_CONTROLS |
                                          (keep_newlines ? NG_TEXT_KEEP_NEWLINES : 0));
}

static void set_attr(xmlNodePtr n, const char *name, const char *value)
{
    xmlChar *v = xml_text(value, 0);
    xmlNewProp(n, (const xmlChar *)name, v);
    free(v);
}

static xmlNodePtr add_text_child(xmlNodePtr parent, const char *name, const char *text)
{
    xmlChar *t = xml_text(text, 1);
    xmlNodePtr n = xmlNewTextChild(parent, NULL, (const xmlChar *)name, t);
    free(t);
    return n;
}

static void add_property(xmlNodePtr props, const char *name, const char *value)
{
    xmlNodePtr p = xmlNewChild(props, NULL, (const xmlChar *)"property", NULL);
    set_attr(p, "name", name);
    set_attr(p, "value", value);
}

static void add_number_property(xmlNodePtr props, const char *name, int known, double v)
{
    char buf[40];
    if (!known)
        return;
    ng_fmt_double(buf, sizeof buf, v);
    add_property(props, name, buf);
}

/* "context.commit", "context.model", ...: named apart from the figures, so
 * a label cannot stand for one of them */
static void add_context_properties(xmlNodePtr props, const struct ng_context *c)
{
    for (size_t i = 0; i < c->n; i++) {
        struct ng_buf name = NG_BUF_INIT;
        ng_buf_addf(&name, "context.%s", c->items[i].key);
        add_property(props, name.data, c->items[i].value);
        ng_buf_release(&name);
    }
}

static void add_properties(xmlNodePtr suite, const struct ng_verdict *v)
{
    xmlNodePtr props = xmlNewChild(suite, NULL, (const xmlChar *)"properties", NULL);
    char buf[40];

    add_property(props, "verdict", ng_outcome_name(v->outcome));
    add_property(props, "mode", v->mode);
    add_number_property(props, "baseline_ms_per_epoch", v->has_figures, v->baseline.ms_per_epoch);
    add_number_property(props, "current_ms_per_epoch", v->has_figures, v->current.ms_per_epoch);
    add_number_property(props, "ratio", v->has_figures, v->ratio);
    add_number_property(props, "threshold", v->threshold > 0, v->threshold);
    add_number_property(props, "p_value", v->has_p, v->p_value);
    add_number_property(props, "alpha", 1, v->alpha);
    add_property(props, "metric", v->metric);
    if (v->epochs > 0) {
        snprintf(buf, sizeof buf, "%ld", v->epochs);
        add_property(props, "epochs", buf);
    }
    if (v->baseline.path)
        add_property(props, "baseline", v->baseline.path);
    if (v->current.path)
        add_property(props, "current", v->current.path);
    add_context_properties(props, &v->context);
}

/* The summary line, then the detail lines: GitLab shows only this text. */
static char *summary_text(const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    char *headline = ng_verdict_text_headline_string(v);
    ng_buf_adds(&b, headline);
    free(headline);
    if (ng_verdict_text_wants_details(v)) {
        ng_buf_adds(&b, "\n");
        ng_verdict_text_details(v, &b);
    }
    return ng_buf_detach(&b);
}

/* at most 3 decimals: Jenkins' schema rejects more */
static void fmt_seconds(char *buf, size_t size, double s)
{
    snprintf(buf, size, "%.3f", s > 0 ? s : 0.0);
}

/* ---- per-kernel gates: a testcase per item ---- */

static int item_fails(const struct ng_verdict *v, const struct ng_kernel_delta *k)
{
    return k->verdict == NG_OUTCOME_FAIL ||
           (k->verdict == NG_OUTCOME_INCONCLUSIVE && v->fail_inconclusive);
}

/* The items JUnit lists with per-kernel gates: the top --top by current
 * time, passed or failed, and every item the gates did not pass; in order
 * of current time.  *n gets how many. */
static const struct ng_kernel_delta **listed_items(const struct ng_verdict *v, size_t *n)
{
    const struct ng_kernel_delta **k = ng_xcalloc(v->n_kernels ? v->n_kernels : 1, sizeof *k);
    size_t m = 0, out = 0;

    *n = 0;
    if (!v->has_figures || !v->policy || v->policy->kernel_threshold <= 0)
        return k;
    for (size_t i = 0; i < v->n_kernels; i++)
        if (v->kernels[i].gated)
            k[m++] = &v->kernels[i];
    ng_sort(k, m, sizeof *k, ng_kernel_delta_by_current);
    for (size_t i = 0; i < m; i++)
        if (i < (size_t)v->top || k[i]->verdict != NG_OUTCOME_PASS)
            k[out++] = k[i];
    *n = out;
    return k;
}

/* How many items the verdict lists (*tests) and how many of them fail. */
static void item_counts(const struct ng_verdict *v, size_t *tests, size_t *failures)
{
    size_t n;
    const struct ng_kernel_delta **k = listed_items(v, &n);
    *tests += n;
    for (size_t i = 0; i < n; i++)
        *failures += (size_t)item_fails(v, k[i]);
    free(k);
}

/* "FAIL: NAME 2.00x past the 1.50x kernel threshold (+1.234 ms/epoch,
 * floor 0.150 ms, p=0.001) | baseline 1.234 ms/epoch, current 2.468" */
static char *item_text(const struct ng_verdict *v, const struct ng_kernel_delta *k)
{
    struct ng_buf b = NG_BUF_INIT;
    char kthr[32];

    ng_fmt_threshold(kthr, sizeof kthr, v->policy->kernel_threshold);
    ng_buf_addf(&b, "%s: %s ", ng_outcome_title(k->verdict), k->name);
    ng_verdict_text_item_ratio(&b, k);
    ng_buf_addf(&b, " %s the %sx kernel threshold (%+.3f ms/epoch, floor %.3f ms",
                k->verdict == NG_OUTCOME_PASS ? "within" : "past", kthr, k->delta_ms_per_epoch,
                v->kernel_floor_ms);
    if (k->has_p)
        ng_buf_addf(&b, ", p=%.3g, Holm-adjusted %.3g", k->p_value, k->p_adjusted);
    ng_buf_addf(&b, ") | %s %s, baseline %.3f ms/epoch, current %.3f ms/epoch",
                ng_work_kind_name(k->kind), ng_kernel_status_name(k->status),
                k->baseline_ms_per_epoch, k->current_ms_per_epoch);
    return ng_buf_detach(&b);
}

/* Named "<gate>/<item>", under the gate (classname nsys-gate.<gate>, which
 * Jenkins reads as package and class, GitLab shows as the suite), so a
 * merge request's test report lists which kernel regressed. */
static void add_item_testcases(xmlNodePtr suite, const struct ng_verdict *v)
{
    size_t n;
    const struct ng_kernel_delta **k = listed_items(v, &n);
    struct ng_buf cls = NG_BUF_INIT;

    ng_buf_addf(&cls, "%s.%s", NG_TOOL_NAME, v->name);
    for (size_t i = 0; i < n; i++) {
        struct ng_buf name = NG_BUF_INIT;
        ng_buf_addf(&name, "%s/%s", v->name, k[i]->name);
        xmlNodePtr tc = xmlNewChild(suite, NULL, (const xmlChar *)"testcase", NULL);
        set_attr(tc, "classname", cls.data);
        set_attr(tc, "name", name.data);
        set_attr(tc, "time", "0.000");
        if (item_fails(v, k[i])) {
            char *text = item_text(v, k[i]);
            xmlNodePtr f = add_text_child(tc, "failure", text);
            set_attr(f, "type", k[i]->verdict == NG_OUTCOME_FAIL ? "kernel-regression"
                                                                 : "inconclusive");
            set_attr(f, "message", text);
            free(text);
        }
        ng_buf_release(&name);
    }
    ng_buf_release(&cls);
    free(k);
}

static void add_testcase(xmlNodePtr suite, const struct ng_verdict *v)
{
    xmlNodePtr tc = xmlNewChild(suite, NULL, (const xmlChar *)"testcase", NULL);
    xmlNodePtr n;
    char *text = summary_text(v);
    char *headline = ng_verdict_text_headline_string(v);
    char time[32];

    fmt_seconds(time, sizeof time, v->elapsed_s);
    set_attr(tc, "classname", NG_TOOL_NAME);
    set_attr(tc, "name", v->name);
    set_attr(tc, "time", time);
    switch (v->outcome) {
    case NG_OUTCOME_FAIL:
        n = add_text_child(tc, "failure", text);
        set_attr(n, "type", "regression");
        set_attr(n, "message", headline);
        break;
    case NG_OUTCOME_ERROR:
        n = add_text_child(tc, "error", headline);
        set_attr(n, "type", "error");
        set_attr(n, "message", v->error);
        break;
    case NG_OUTCOME_INCONCLUSIVE:
        if (v->fail_inconclusive) {   /* the job fails: the report must say so too */
            n = add_text_child(tc, "failure", text);
            set_attr(n, "type", "inconclusive");
            set_attr(n, "message", headline);
        }
        break;
    case NG_OUTCOME_PASS:
        if (ng_verdict_exit_code(v) != 0) {   /* a stale baseline, --fail-on-improvement */
            n = add_text_child(tc, "failure", text);
            set_attr(n, "type", "stale-baseline");
            set_attr(n, "message", headline);
        }
        break;
    }
    free(headline);
    free(text);
    add_item_testcases(suite, v);
}

static void host_name(char *buf, size_t size)
{
    if (gethostname(buf, size) != 0 || buf[0] == '\0')
        snprintf(buf, size, "localhost");
    buf[size - 1] = '\0';
}

static void set_count(xmlNodePtr n, const char *name, size_t count)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", count);
    set_attr(n, name, buf);
}

static void add_batch_properties(xmlNodePtr suite, const struct ng_verdict_batch *b,
                                 const struct ng_verdict_batch_counts *c)
{
    xmlNodePtr props = xmlNewChild(suite, NULL, (const xmlChar *)"properties", NULL);
    char buf[32];

    add_property(props, "verdict", ng_outcome_name(c->outcome));
    add_property(props, "manifest", b->manifest);
    snprintf(buf, sizeof buf, "%zu", b->n);
    add_property(props, "gates", buf);
    for (int k = NG_OUTCOME_PASS; k <= NG_OUTCOME_ERROR; k++) {
        snprintf(buf, sizeof buf, "%zu", c->by_outcome[k]);
        add_property(props, ng_outcome_name((enum ng_outcome)k), buf);
    }
    struct ng_context shared;
    ng_verdict_text_batch_context(b, &shared);
    add_context_properties(props, &shared);
    ng_context_release(&shared);
}

/* Suite-level output: one gate's summary as before; in a batch, each
 * gate's, prefixed with its name (errors go to system-err). */
static void add_suite_output(xmlNodePtr suite, const struct ng_verdict_batch *b)
{
    struct ng_buf out = NG_BUF_INIT, errs = NG_BUF_INIT;

    ng_buf_adds(&out, "");
    ng_buf_adds(&errs, "");
    for (size_t i = 0; i < b->n; i++) {
        const struct ng_verdict *v = b->verdicts[i];
        struct ng_buf *to = v->outcome == NG_OUTCOME_ERROR ? &errs : &out;
        if (b->manifest)
            ng_buf_addf(to, "%s: ", v->name);
        char *text = v->outcome == NG_OUTCOME_ERROR ? ng_verdict_text_headline_string(v)
                                                    : summary_text(v);
        ng_buf_adds(to, text);
        free(text);
        if (b->manifest && !(to->len > 0 && to->data[to->len - 1] == '\n'))
            ng_buf_adds(to, "\n");
    }
    add_text_child(suite, "system-out", out.data);
    add_text_child(suite, "system-err", errs.data);
    ng_buf_release(&out);
    ng_buf_release(&errs);
}

/* What fails the job: INCONCLUSIVE only with --fail-inconclusive. */
static int is_failure(const struct ng_verdict *v)
{
    return v->outcome != NG_OUTCOME_ERROR && ng_verdict_exit_code(v) == 1;
}

/* The suite's tests (a testcase per gate and per listed item) and failures. */
static void count_cases(const struct ng_verdict_batch *b, size_t *tests, size_t *failures)
{
    *tests = b->n;
    *failures = 0;
    for (size_t i = 0; i < b->n; i++) {
        *failures += (size_t)is_failure(b->verdicts[i]);
        item_counts(b->verdicts[i], tests, failures);
    }
}

/* One verdict (b->manifest NULL) or every gate of a manifest. */
static int junit_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                              struct ng_err *err)
{
    xmlDocPtr doc = xmlNewDoc((const xmlChar *)"1.0");
    xmlNodePtr suite = xmlNewNode(NULL, (const xmlChar *)"testsuite");
    char ts[32], time[32], host[256];
    xmlChar *mem = NULL;
    int size = 0;
    struct ng_verdict_batch_counts c;

    ng_verdict_batch_count(b, &c);
    xmlDocSetRootElement(doc, suite);
    fmt_seconds(time, sizeof time, b->elapsed_s);
    ng_fmt_utc(ts, sizeof ts, b->timestamp, 0);   /* Ant's format has no zone: UTC */
    host_name(host, sizeof host);
    set_attr(suite, "name", NG_TOOL_NAME);
    set_attr(suite, "timestamp", ts);
    set_attr(suite, "hostname", host);
    size_t tests, failures;
    count_cases(b, &tests, &failures);
    set_count(suite, "tests", tests);
    set_count(suite, "failures", failures);
    set_count(suite, "errors", c.by_outcome[NG_OUTCOME_ERROR]);
    set_attr(suite, "skipped", "0");
    set_attr(suite, "time", time);
    if (b->manifest)
        add_batch_properties(suite, b, &c);
    else
        add_properties(suite, b->verdicts[0]);
    for (size_t i = 0; i < b->n; i++)
        add_testcase(suite, b->verdicts[i]);
    add_suite_output(suite, b);

    xmlDocDumpFormatMemoryEnc(doc, &mem, &size, "UTF-8", 1);
    xmlFreeDoc(doc);
    if (!mem)
        return ng_err_set(err, "unable to render the JUnit report: out of memory");
    ng_buf_add(out, mem, (size_t)size);
    xmlFree(mem);
    return 0;
}

const struct ng_reporter ng_reporter_junit = {
    .name = "junit",
    .render_batch = junit_render_batch,
};
