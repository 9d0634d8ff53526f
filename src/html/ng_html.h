/* ng_html: the HTML pages of the --html report and of the dashboard, one
 * piece serving both: escaping for each context, the page frame (with its
 * Content-Security-Policy), the per-run section of a verdict (figures,
 * context, the samples' strip plot, the work items' bar chart, warnings)
 * and the overview table of a set of verdicts.
 *
 * The pages need no server and no network: everything is inline (CSS,
 * SVG, one optional script), and the policy forbids every request
 * (default-src 'none'), allowing only the page's own style and script by
 * their SHA-256 hashes.  The pages are complete with JavaScript off; the
 * script only adds a filter box.
 *
 * Escaping is ng_html_escape.h's (below this and ng_svg).
 *
 * Ownership: every function borrows its arguments and appends to out. */
#ifndef NG_HTML_H
#define NG_HTML_H

#include <stddef.h>

#include "core/ng_verdict.h"
#include "html/ng_html_escape.h"
#include "util/ng_util.h"

/* The page frame: <!DOCTYPE html> ... <body>, and </body></html>.
 * `title` is raw text. */
void ng_html_begin(struct ng_buf *out, const char *title);
void ng_html_end(struct ng_buf *out);

/* The filter box the page's script shows (hidden with JavaScript off):
 * it hides every element whose data-gate does not contain the text. */
void ng_html_filter(struct ng_buf *out);

/* What a page draws, so that its legend names only that: the verdict
 * marks of these outcomes (bits 1 << outcome), the colours of these work
 * kinds (NG_WORK_BIT), the trend chart's lines, the strip plot's marks. */
struct ng_html_legend {
    unsigned outcomes;
    unsigned kinds;
    int trend;
    int strip;
};
#define NG_HTML_LEGEND_ALL { ~0u, ~0u, 1, 1 }

void ng_html_legend(struct ng_buf *out, const struct ng_html_legend *l);

/* What a verdict's section draws (ng_html_section), added to l. */
void ng_html_legend_add(struct ng_html_legend *l, const struct ng_verdict *v);

/* The verdict's word with its mark, e.g. a red triangle and "FAIL". */
void ng_html_badge(struct ng_buf *out, enum ng_outcome o);


/* A list of warnings under a heading of level `heading` (h2 on the
 * dashboard, h3 in a verdict's section); nothing when there are none. */
void ng_html_warnings(struct ng_buf *out, char *const *w, size_t n, int heading);

/* A commit as shown: its first 12 characters, or "unknown". */
void ng_html_commit(struct ng_buf *out, const char *commit);

/* A number cell, <td class="n">v with 3 decimals, then suffix</td>, as
 * printf's %.3f writes it (without printf: a page has thousands). */
void ng_html_num_cell(struct ng_buf *out, double v, const char *suffix);

/* One verdict's section: <section id="ID" data-gate="NAME"> with the
 * headline, the figures, the run's context (each value "unknown" when
 * missing, the run's URL a link only when http(s)), the strip plot of
 * both sides' samples, the bar chart of the top work items' delta
 * ms/epoch coloured by kind, the warnings and the error.  `heading` is
 * the heading level (2 or 3); `title` the heading's text after the mark
 * (raw text; NULL: the gate's name). */
void ng_html_section(struct ng_buf *out, const struct ng_verdict *v, const char *id,
                     int heading, const char *title);

/* A row of the overview table. */
struct ng_html_row {
    const struct ng_verdict *v;
    const char *href;          /* where the gate's name links (a relative URL), or NULL */
    const double *spark;       /* the gate's recent ms/epoch (NaN: no figure), or NULL */
    size_t n_spark;
    size_t runs;               /* runs in the gate's history (0: not shown) */
};

/* The table of the latest verdict of each gate, failing first (fail,
 * error, inconclusive, pass; then by name): rows are sorted in place. */
void ng_html_overview(struct ng_buf *out, struct ng_html_row *rows, size_t n);

/* The order of that table: fail, error, inconclusive, pass. */
int ng_html_outcome_rank(enum ng_outcome o);

#endif
