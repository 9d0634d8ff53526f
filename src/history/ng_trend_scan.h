/* ng_trend_scan: the few figures of a --history line that a trend chart needs
 * (name, verdict, ratio, p, threshold, both sides' ms/epoch, the current
 * side's min..max, the date, the commit and CI run; mode, metric and work,
 * for the series of `nsys-gate changes`), read straight from
 * the line's JSON text without building a tree.  A dashboard of 200
 * gates x 1000 nights reads a gigabyte of lines and draws a point of
 * each; only the latest runs of a gate need the whole verdict
 * (ng_verdict_doc_read(), which parses with cJSON).
 *
 * The scanner is a validator of strict JSON (RFC 8259, compact or not)
 * that looks into the top-level object and into "baseline", "current"
 * and "context", and skips every other value whole.  It answers only
 * when it is sure: a line it reads is one that ng_verdict_doc_read()
 * accepts as a verdict, with the same figures (numbers through strtod()
 * as cJSON's are; the first member of a name wins as in cJSON, the last
 * string of a context key as in ng_context_set()).  Anything else (not
 * strict JSON, not a verdict, nesting past 64, a number of more than 63
 * characters, an escape or NUL in a key it looks up or a string it
 * keeps, a \u escape in such a string) is "cannot tell", and the caller
 * reads that line whole: what a bad line gets (a warning naming it) stays
 * the full reader's to say.  tests/unit/test_scan.c and
 * tests/fuzz/fuzz_history.c hold the two readers to agreeing.
 *
 * Ownership: a struct ng_trend_scan owns its text buffer, which holds the
 * strings of the last line read (name, commit and run_url point into it,
 * valid until the next ng_trend_scan_line() or ng_trend_scan_of_verdict()); it is
 * reused from line to line, so a scan allocates nothing once it has room.
 * ng_trend_scan_release() frees it.  The line is borrowed. */
#ifndef NG_TREND_SCAN_H
#define NG_TREND_SCAN_H

#include <stddef.h>
#include <time.h>

#include "core/ng_verdict.h"
#include "util/ng_util.h"

struct ng_trend_scan {
    const char *name;            /* the gate's --name */
    enum ng_outcome outcome;
    time_t timestamp;            /* 0 when absent or not a date */
    int has_figures;             /* "ratio" is a number */
    int has_p;
    double ratio, p_value, threshold;
    double baseline_ms, current_ms;        /* ms/epoch of each side */
    double current_min_ms, current_max_ms;
    const char *commit, *run_url;          /* the context's, NULL when it has none */
    const char *mode, *metric, *work;      /* as the full reader keeps them: mode "total"
                                              and work "" when absent (work cut to its
                                              47 bytes), metric NULL */
    struct ng_buf text;          /* the strings above */
};

#define NG_TREND_SCAN_INIT { .text = NG_BUF_INIT }

/* 0: s holds the line's figures.  1: cannot tell; read the line with
 * ng_verdict_doc_read() (and take its figures with ng_trend_scan_of_verdict()). */
int ng_trend_scan_line(struct ng_trend_scan *s, const char *line, size_t len);

/* The same figures from a verdict read whole (its strings copied). */
void ng_trend_scan_of_verdict(struct ng_trend_scan *s, const struct ng_verdict *v);

/* 1 when a and b hold the same figures, numbers bit for bit: what the
 * tests hold the two readers to. */
int ng_trend_scan_same(const struct ng_trend_scan *a, const struct ng_trend_scan *b);

void ng_trend_scan_release(struct ng_trend_scan *s);

#endif
