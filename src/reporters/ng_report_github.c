/* The GitHub Actions reporters, three outputs of one verdict (or batch):
 *
 * github-summary      Markdown appended to $GITHUB_STEP_SUMMARY: the
 *                     verdict, the figures, the kernels that moved.
 * github-output       key=value lines appended to $GITHUB_OUTPUT, so later
 *                     steps (and a composite action's outputs) can read the
 *                     verdict: a job cannot tell exit 1 from exit 2.
 * github-annotations  ::error / ::warning workflow commands on stdout.
 *
 * Everything a user controls (gate names, paths in error messages, kernel
 * names) is escaped for its destination: Markdown escapes every ASCII
 * punctuation character (CommonMark allows it for all of them, and it
 * defeats tables, emphasis, HTML, links, autolinks, @mentions, #refs and
 * :emoji: at once); workflow commands escape % CR LF, and : , in
 * properties, as @actions/core does; output values that could hold a
 * newline use the key<<DELIMITER form. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_verdict_text.h"
#include "reporters/ng_reporter.h"
#include "util/ng_text.h"

/* ---- Markdown ---- */

/* GitHub refuses a step summary over 1 MiB; the note must still fit. */
#define SUMMARY_MAX (1024 * 1024)
#define TRUNCATED_NOTE "\n*Truncated: a step summary holds at most 1 MiB.*\n"
/* A kernel name is cut there, as in the human detail lines. */
#define NAME_SHOWN_MAX 160

struct md {
    struct ng_buf *out;
    size_t start;       /* out->len before this summary */
    int full;           /* a piece did not fit: the note is written, the rest dropped */
};

/* Adds a whole piece (a table row, a block) or, once one does not fit,
 * the truncation note and nothing more: the Markdown is never cut inside
 * a code block or a row. */
static void md_add(struct md *m, struct ng_buf *piece)
{
    if (!m->full) {
        if (m->out->len - m->start + piece->len + sizeof TRUNCATED_NOTE > SUMMARY_MAX) {
            m->full = 1;
            ng_buf_adds(m->out, TRUNCATED_NOTE);
        } else {
            ng_buf_add(m->out, piece->data, piece->len);
        }
    }
    ng_buf_release(piece);
}

static int is_ascii_punct(unsigned char c)
{
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
           (c >= '{' && c <= '~');
}

/* User text as inline Markdown: one line (controls shown as \xNN), every
 * ASCII punctuation character backslash-escaped. */
static void md_text(struct ng_buf *out, const char *s, size_t max)
{
    struct ng_buf clean = NG_BUF_INIT;
    size_t len = strlen(s);

    ng_text_clean(&clean, s, len > max ? max : len, NG_TEXT_ESCAPE_CONTROLS);
    for (size_t i = 0; i < clean.len; i++) {
        if (is_ascii_punct((unsigned char)clean.data[i]))
            ng_buf_adds(out, "\\");
        ng_buf_add(out, &clean.data[i], 1);
    }
    if (len > max)
        ng_buf_adds(out, "\\.\\.\\.");
    ng_buf_release(&clean);
}

/* UTF-8 bytes spelled out: the output must not depend on the compiler's
 * execution character set. */
#define EM_DASH "\xE2\x80\x94"
#define ARROW "\xE2\x86\x92"

static const char *icon(enum ng_outcome o)
{
    static const char *const icons[] = {
        [NG_OUTCOME_PASS] = "\xE2\x9C\x85",                    /* U+2705 check mark */
        [NG_OUTCOME_FAIL] = "\xE2\x9D\x8C",                    /* U+274C cross mark */
        [NG_OUTCOME_INCONCLUSIVE] = "\xE2\x9A\xA0\xEF\xB8\x8F",  /* U+26A0 U+FE0F warning */
        [NG_OUTCOME_ERROR] = "\xE2\x9D\x97",                   /* U+2757 exclamation */
    };
    return icons[o];
}

static void fmt_ratio(char *buf, size_t size, double threshold)
{
    ng_fmt_threshold(buf, size, threshold);
    strncat(buf, "x", size - strlen(buf) - 1);
}

/* The human line in a code block: no escaping is needed there, and it
 * cannot close the fence, since it starts with the gate's own word
 * ("FAIL:", "ERROR:", ...) and holds no raw newline. */
static void md_message(struct md *m, const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;

    ng_buf_adds(&b, "\n```text\n");
    ng_verdict_text_headline(v, NG_TEXT_ESCAPE_CONTROLS, &b);
    ng_buf_adds(&b, "\n```\n");
    md_add(m, &b);
}

/* One side's profiles: "baseline a.sqlite (sqlite)", "and N more runs"
 * when it pools repeats. */
static void md_side(struct ng_buf *b, const char *label, const struct ng_verdict_side *s)
{
    ng_buf_addf(b, "%s ", label);
    if (!s->path) {
        ng_buf_adds(b, EM_DASH);
        return;
    }
    md_text(b, s->path, NAME_SHOWN_MAX);
    if (strcmp(ng_format_name(s->format), "unknown") != 0)   /* not read */
        ng_buf_addf(b, " (%s)", ng_format_name(s->format));
    if (s->n_runs > 1)
        ng_buf_addf(b, " and %zu more runs", s->n_runs - 1);
}

/* What was measured and on which profiles: a reader of the summary alone
 * (a pull request's checks tab) sees what the figures are of. */
static void md_measured(struct md *m, const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;

    ng_buf_addf(&b, "\nMeasured: metric %s, %s mode, work %s; ", v->metric ? v->metric : EM_DASH,
                v->mode ? v->mode : EM_DASH, v->work[0] ? v->work : EM_DASH);
    md_side(&b, "baseline", &v->baseline);
    md_side(&b, ", current", &v->current);
    ng_buf_adds(&b, "\n");
    md_add(m, &b);
}

/* Where the step time went, a row of the figures table (docs/breakdown.md). */
static void md_breakdown(struct ng_buf *b, const struct ng_verdict *v)
{
    struct ng_buf t[2] = { NG_BUF_INIT, NG_BUF_INIT };
    if (ng_breakdown_text(&v->baseline, &t[0]) && ng_breakdown_text(&v->current, &t[1]))
        ng_buf_addf(b, "| time per epoch | %s | %s |\n", t[0].data, t[1].data);
    ng_buf_release(&t[0]);
    ng_buf_release(&t[1]);
}

static void md_figures(struct md *m, const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    const char *unit = strcmp(v->mode, "nvtx") == 0 ? "epoch" : "run";
    char threshold[40], p[40] = EM_DASH;

    if (!v->has_figures)
        return;
    fmt_ratio(threshold, sizeof threshold, v->threshold);
    if (v->has_p)
        snprintf(p, sizeof p, "%.3g", v->p_value);
    ng_buf_adds(&b, "\n| | baseline | current |\n| :-- | --: | --: |\n");
    ng_buf_addf(&b, "| ms per epoch (mean) | %.3f | %.3f |\n", v->baseline.ms_per_epoch,
                v->current.ms_per_epoch);
    ng_buf_addf(&b, "| median | %.3f | %.3f |\n", v->baseline.median_ms, v->current.median_ms);
    ng_buf_addf(&b, "| min .. max | %.3f .. %.3f | %.3f .. %.3f |\n", v->baseline.min_ms,
                v->baseline.max_ms, v->current.min_ms, v->current.max_ms);
    ng_buf_addf(&b, "| samples | %zu %s%s | %zu %s%s |\n", v->baseline.n_samples, unit,
                v->baseline.n_samples == 1 ? "" : "s", v->current.n_samples, unit,
                v->current.n_samples == 1 ? "" : "s");
    md_breakdown(&b, v);
    char ci[64] = EM_DASH;
    if (v->has_ci)
        snprintf(ci, sizeof ci, "%.3fx .. %.3fx", v->ratio_ci[0], v->ratio_ci[1]);
    ng_buf_addf(&b, "\n| ratio | 95%% interval | threshold | epochs | p-value |\n"
                    "| --: | --: | --: | --: | --: |\n| **%.3fx** | %s | %s |",
                v->ratio, ci, threshold);
    if (v->epochs > 0)
        ng_buf_addf(&b, " %ld |", v->epochs);
    else
        ng_buf_adds(&b, " " EM_DASH " |");
    ng_buf_addf(&b, " %s |\n", p);
    md_add(m, &b);
}

/* The kernel table; a kind column when other work is in it, and a gate
 * column when the per-kernel gates judged the items. */
static void md_kernels(struct md *m, const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    int kinds = !ng_verdict_text_only_kernels(v);
    int gates = v->policy && v->policy->kernel_threshold > 0;

    /* as in the human output: on a PASS they are noise (unless --verbose) */
    if (v->n_kernels == 0 || !ng_verdict_text_wants_details(v))
        return;
    ng_buf_addf(&b, "\n%s by contribution to the change, per epoch:\n\n| %s |%s%s status "
                    "| baseline ms | current ms | change ms | share | launches |\n"
                    "| :-- |%s%s :-- | --: | --: | --: | --: | --: |\n",
                kinds ? "Work items" : "Kernels", kinds ? "work item" : "kernel",
                kinds ? " kind |" : "", gates ? " gate |" : "", kinds ? " :-- |" : "",
                gates ? " :-- |" : "");
    md_add(m, &b);
    for (size_t i = 0; i < v->n_kernels && !m->full; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        ng_buf_adds(&b, "| ");
        md_text(&b, k->name, NAME_SHOWN_MAX);
        if (kinds)
            ng_buf_addf(&b, " | %s", ng_work_kind_name(k->kind));
        if (gates)
            ng_buf_addf(&b, " | %s", k->gated ? ng_outcome_title(k->verdict) : EM_DASH);
        char bn[32], cn[32];
        ng_buf_addf(&b, " | %s | %.3f | %.3f | %+.3f | %.1f%% | %s " ARROW " %s |\n",
                    ng_kernel_status_shown(k), k->baseline_ms_per_epoch,
                    k->current_ms_per_epoch, k->delta_ms_per_epoch, k->share * 100.0,
                    ng_count_text(bn, sizeof bn, k->baseline_instances_per_epoch),
                    ng_count_text(cn, sizeof cn, k->current_instances_per_epoch));
        md_add(m, &b);
    }
}

static void md_warnings(struct md *m, const struct ng_verdict *v)
{
    for (size_t i = 0; i < v->n_warnings; i++) {
        struct ng_buf b = NG_BUF_INIT;
        ng_buf_adds(&b, "\n> **Warning:** ");
        md_text(&b, v->warnings[i], SIZE_MAX);
        ng_buf_adds(&b, "\n");
        md_add(m, &b);
    }
}

/* A link only to a plain http(s) URL: nothing in it can end the link
 * destination or start other Markdown. */
static int plain_url(const char *u)
{
    if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0)
        return 0;
    for (; *u; u++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#@!$&'*+,;=%", *u))
            return 0;
    return 1;
}

/* "Run: commit 0123abc, branch main, run_url [...](...), model resnet50":
 * the items of c that `shown` (may be NULL) does not already say. */
static void md_context(struct md *m, const struct ng_context *c, const struct ng_context *shown)
{
    struct ng_buf b = NG_BUF_INIT;
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++) {
        const struct ng_context_item *it = &c->items[i];
        const char *same = shown ? ng_context_get(shown, it->key) : NULL;
        if (same && strcmp(same, it->value) == 0)
            continue;
        ng_buf_adds(&b, n++ ? ", " : "\nRun: ");
        md_text(&b, it->key, NAME_SHOWN_MAX);
        ng_buf_adds(&b, " ");
        if (strcmp(it->key, "run_url") == 0 && plain_url(it->value) &&
            strlen(it->value) <= 2 * NAME_SHOWN_MAX) {
            ng_buf_adds(&b, "[");
            md_text(&b, it->value, SIZE_MAX);
            ng_buf_addf(&b, "](%s)", it->value);
        } else {
            md_text(&b, it->value, NAME_SHOWN_MAX);
        }
    }
    if (n) {
        ng_buf_adds(&b, "\n");
        md_add(m, &b);
    }
    ng_buf_release(&b);
}

/* One gate: the heading, its run context (what `shown` does not say
 * already), its human lines, figures, kernels, warnings.  heading:
 * "### <icon> nsys-gate" alone, "#### <icon>" inside a batch. */
static void md_gate(struct md *m, const struct ng_verdict *v, const char *heading,
                    const struct ng_context *shown)
{
    struct ng_buf b = NG_BUF_INIT;

    ng_buf_addf(&b, "\n%s %s: ", heading, ng_outcome_title(v->outcome));
    md_text(&b, v->name, NAME_SHOWN_MAX);
    ng_buf_adds(&b, "\n");
    md_add(m, &b);
    md_context(m, &v->context, shown);
    md_message(m, v);
    md_measured(m, v);
    md_warnings(m, v);   /* before the tables: what may make them wrong */
    md_figures(m, v);
    md_kernels(m, v);
}

static void md_gate_row(struct md *m, const struct ng_verdict *v)
{
    struct ng_buf b = NG_BUF_INIT;
    char threshold[40];

    fmt_ratio(threshold, sizeof threshold, v->threshold);
    ng_buf_adds(&b, "| ");
    md_text(&b, v->name, NAME_SHOWN_MAX);
    ng_buf_addf(&b, " | %s %s |", icon(v->outcome), ng_outcome_name(v->outcome));
    if (v->has_figures)
        ng_buf_addf(&b, " %.3f | %.3f | %.3fx |", v->baseline.ms_per_epoch,
                    v->current.ms_per_epoch, v->ratio);
    else
        ng_buf_adds(&b, " " EM_DASH " | " EM_DASH " | " EM_DASH " |");
    ng_buf_addf(&b, " %s |", v->threshold > 0 ? threshold : EM_DASH);
    if (v->has_p)
        ng_buf_addf(&b, " %.3g |\n", v->p_value);
    else
        ng_buf_adds(&b, " " EM_DASH " |\n");
    md_add(m, &b);
}

static int summary_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                                struct ng_err *err)
{
    struct md m = { out, out->len, 0 };
    struct ng_verdict_batch_counts c;
    struct ng_buf head = NG_BUF_INIT;

    (void)err;
    if (!b->manifest) {
        ng_buf_addf(&head, "### %s nsys-gate", icon(b->verdicts[0]->outcome));
        md_gate(&m, b->verdicts[0], head.data, NULL);
        ng_buf_release(&head);
        return 0;
    }
    struct ng_context shared;
    ng_verdict_text_batch_context(b, &shared);
    ng_verdict_batch_count(b, &c);
    ng_buf_addf(&head, "\n### %s nsys-gate ", icon(c.outcome));
    ng_verdict_text_batch_line(b, &head);
    ng_buf_adds(&head, "\n");
    md_add(&m, &head);
    md_context(&m, &shared, NULL);
    ng_buf_adds(&head, "\n| gate | verdict | baseline ms/epoch | current ms/epoch | ratio | "
                       "threshold | p-value |\n"
                       "| :-- | :-- | --: | --: | --: | --: | --: |\n");
    md_add(&m, &head);
    for (size_t i = 0; i < b->n; i++)
        md_gate_row(&m, b->verdicts[i]);
    /* the gates that need a look, in full */
    for (size_t i = 0; i < b->n; i++) {
        const struct ng_verdict *v = b->verdicts[i];
        if (v->outcome == NG_OUTCOME_PASS && v->n_warnings == 0)
            continue;
        ng_buf_addf(&head, "#### %s", icon(v->outcome));
        md_gate(&m, v, head.data, &shared);
        ng_buf_release(&head);
    }
    ng_context_release(&shared);
    return 0;
}

const struct ng_reporter ng_reporter_github_summary = {
    .name = "github-summary",
    .render_batch = summary_render_batch,
};

/* ---- $GITHUB_OUTPUT ---- */

static uint64_t fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* key<<DELIMITER, the value, DELIMITER.  The delimiter is derived from
 * the value (so the file is byte-stable) and changed until the value does
 * not contain it, which is all the runner needs. */
static void output_multiline(struct ng_buf *out, const char *key, const char *value)
{
    char *clean = ng_text_cleaned(value, NG_TEXT_ESCAPE_CONTROLS | NG_TEXT_KEEP_NEWLINES);
    char delim[64];
    uint64_t h = fnv1a(clean, 1469598103934665603u);

    do {
        snprintf(delim, sizeof delim, "ghadelimiter_%016llx", (unsigned long long)h);
        h = fnv1a(delim, h);
    } while (strstr(clean, delim));
    ng_buf_addf(out, "%s<<%s\n%s\n%s\n", key, delim, clean, delim);
    free(clean);
}

/* Exact numbers (as in the JSON); an unknown one is an empty value, so a
 * stale value from an earlier gate in the same step is overwritten. */
static void output_number(struct ng_buf *out, const char *key, int known, double v)
{
    char buf[40] = "";
    if (known)
        ng_fmt_double(buf, sizeof buf, v);
    ng_buf_addf(out, "%s=%s\n", key, buf);
}

static void output_gate(struct ng_buf *out, const struct ng_verdict *v)
{
    ng_buf_addf(out, "verdict=%s\n", ng_outcome_name(v->outcome));
    output_number(out, "ratio", v->has_figures, v->ratio);
    output_number(out, "baseline_ms_per_epoch", v->has_figures, v->baseline.ms_per_epoch);
    output_number(out, "current_ms_per_epoch", v->has_figures, v->current.ms_per_epoch);
    output_number(out, "threshold", v->threshold > 0, v->threshold);
    output_number(out, "epochs", v->epochs > 0, (double)v->epochs);
    output_number(out, "p_value", v->has_p, v->p_value);
    output_multiline(out, "name", v->name);
    char *message = ng_verdict_text_headline_string(v);
    output_multiline(out, "message", message);
    free(message);
}

/* A batch: the batch's verdict and counts; each gate's figures are in the
 * JSON document. */
static void output_batch(struct ng_buf *out, const struct ng_verdict_batch *b)
{
    struct ng_verdict_batch_counts c;
    struct ng_buf msg = NG_BUF_INIT;

    ng_verdict_batch_count(b, &c);
    ng_verdict_text_batch_line(b, &msg);
    ng_buf_addf(out, "verdict=%s\ngates=%zu\npassed=%zu\nfailed=%zu\ninconclusive=%zu\n"
                     "errored=%zu\n",
                ng_outcome_name(c.outcome), b->n, c.by_outcome[NG_OUTCOME_PASS],
                c.by_outcome[NG_OUTCOME_FAIL], c.by_outcome[NG_OUTCOME_INCONCLUSIVE],
                c.by_outcome[NG_OUTCOME_ERROR]);
    output_multiline(out, "message", msg.data);
    ng_buf_release(&msg);
}

static int output_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                               struct ng_err *err)
{
    (void)err;
    if (b->manifest)
        output_batch(out, b);
    else
        output_gate(out, b->verdicts[0]);
    return 0;
}

const struct ng_reporter ng_reporter_github_output = {
    .name = "github-output",
    .render_batch = output_render_batch,
};

/* ---- workflow commands ---- */

/* GitHub shows at most 10 error, 10 warning and 10 notice annotations per
 * step: past 9, the 10th says how many more there are. */
#define ANNOTATIONS_MAX 10

enum { ANN_ERROR, ANN_WARNING, ANN_NOTICE, ANN_KINDS };
static const char *const ann_kinds[ANN_KINDS] = { "error", "warning", "notice" };

struct annotations {
    struct ng_buf *out;
    size_t shown[ANN_KINDS];
    size_t dropped[ANN_KINDS];
};

static void escape_command(struct ng_buf *out, const char *s, int property)
{
    for (; *s; s++) {
        switch (*s) {
        case '%': ng_buf_adds(out, "%25"); break;
        case '\r': ng_buf_adds(out, "%0D"); break;
        case '\n': ng_buf_adds(out, "%0A"); break;
        case ':': ng_buf_adds(out, property ? "%3A" : ":"); break;
        case ',': ng_buf_adds(out, property ? "%2C" : ","); break;
        default: ng_buf_add(out, s, 1);
        }
    }
}

/* title "nsys-gate: NAME"; body already cleaned, newlines allowed */
static void annotate(struct annotations *a, int kind, const char *name, const char *body)
{
    struct ng_buf title = NG_BUF_INIT;
    char *clean_name;

    if (a->shown[kind] + 1 >= ANNOTATIONS_MAX) {
        a->dropped[kind]++;
        return;
    }
    a->shown[kind]++;
    clean_name = ng_text_cleaned(name, NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_addf(&title, "nsys-gate: %s", clean_name);
    free(clean_name);
    ng_buf_addf(a->out, "::%s title=", ann_kinds[kind]);
    escape_command(a->out, title.data, 1);
    ng_buf_adds(a->out, "::");
    escape_command(a->out, body, 0);
    ng_buf_adds(a->out, "\n");
    ng_buf_release(&title);
}

/* Each work item the per-kernel gates failed: an error titled with the
 * gate and the item (an inconclusive one, a warning). */
static void annotate_items(struct annotations *a, const struct ng_verdict *v)
{
    for (size_t i = 0; i < v->n_kernels; i++) {
        const struct ng_kernel_delta *k = &v->kernels[i];
        if (!k->gated || k->verdict == NG_OUTCOME_PASS)
            continue;
        struct ng_buf title = NG_BUF_INIT, body = NG_BUF_INIT;
        char kthr[32];
        ng_fmt_threshold(kthr, sizeof kthr, v->policy ? v->policy->kernel_threshold : 0);
        ng_buf_addf(&title, "%s/%s", v->name, k->name);
        ng_buf_addf(&body, "%s: ", ng_outcome_title(k->verdict));
        ng_text_clean(&body, k->name, strlen(k->name), NG_TEXT_ESCAPE_CONTROLS);
        if (isfinite(k->ratio))
            ng_buf_addf(&body, " %.2fx", k->ratio);
        else
            ng_buf_adds(&body, " (new)");
        ng_buf_addf(&body, " past the %sx kernel threshold, %+.3f ms/epoch (%.3f -> %.3f)",
                    kthr, k->delta_ms_per_epoch, k->baseline_ms_per_epoch,
                    k->current_ms_per_epoch);
        if (k->has_p)
            ng_buf_addf(&body, ", p=%.3g, Holm-adjusted %.3g", k->p_value, k->p_adjusted);
        annotate(a, k->verdict == NG_OUTCOME_FAIL ? ANN_ERROR : ANN_WARNING, title.data,
                 body.data);
        ng_buf_release(&title);
        ng_buf_release(&body);
    }
}

static void annotate_gate(struct annotations *a, const struct ng_verdict *v)
{
    struct ng_buf body = NG_BUF_INIT;

    if (v->outcome != NG_OUTCOME_PASS) {
        ng_verdict_text_headline(v, NG_TEXT_ESCAPE_CONTROLS, &body);
        if (ng_verdict_text_wants_details(v)) {
            ng_buf_adds(&body, "\n");
            ng_verdict_text_details(v, &body);
            body.data[--body.len] = '\0';   /* the last newline */
        }
        annotate(a, v->outcome == NG_OUTCOME_INCONCLUSIVE ? ANN_WARNING : ANN_ERROR, v->name,
                 body.data);
    }
    annotate_items(a, v);
    /* a stale baseline is a notice: nothing regressed, but someone should look */
    for (size_t i = 0; i < v->n_warnings; i++) {
        char *w = ng_text_cleaned(v->warnings[i], NG_TEXT_ESCAPE_CONTROLS);
        int stale = strncmp(v->warnings[i], NG_STALE_WARNING, strlen(NG_STALE_WARNING)) == 0;
        annotate(a, stale ? ANN_NOTICE : ANN_WARNING, v->name, w);
        free(w);
    }
    ng_buf_release(&body);
}

static int annotations_render_batch(const struct ng_verdict_batch *b, struct ng_buf *out,
                                    struct ng_err *err)
{
    const char *const *kinds = ann_kinds;
    struct annotations a = { out, { 0 }, { 0 } };

    (void)err;
    for (size_t i = 0; i < b->n; i++)
        annotate_gate(&a, b->verdicts[i]);
    for (int k = 0; k < ANN_KINDS; k++)
        if (a.dropped[k] > 0)
            ng_buf_addf(out, "::%s title=nsys-gate::%zu more %s%s not shown: see the step "
                             "summary\n",
                        kinds[k], a.dropped[k], kinds[k], a.dropped[k] == 1 ? "" : "s");
    return 0;
}

const struct ng_reporter ng_reporter_github_annotations = {
    .name = "github-annotations",
    .render_batch = annotations_render_batch,
};
