#include "util/ng_regex.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/ng_text.h"
#include "util/ng_util.h"

/* ---- how big glibc's expansion of a pattern gets ---- */

/* A recursive-descent walk of ERE syntax that weighs each piece by what
 * regcomp would build for it: an atom weighs 1, a bounded repetition
 * multiplies its atom's weight by its largest count.  Saturates at
 * INT64 scale instead of overflowing; unknown syntax is left to regcomp,
 * which reports it. */
struct weigh {
    const char *p;
    int depth;
};

#define WEIGHT_CAP ((long long)1 << 40)

static long long sat_mul(long long a, long long b)
{
    return a > WEIGHT_CAP / (b ? b : 1) ? WEIGHT_CAP : a * b;
}

static long long weigh_alt(struct weigh *w);

static void skip_bracket(struct weigh *w)
{
    w->p++;   /* '[' */
    if (*w->p == '^')
        w->p++;
    if (*w->p == ']')
        w->p++;
    while (*w->p && *w->p != ']') {
        if (*w->p == '[' && (w->p[1] == ':' || w->p[1] == '.' || w->p[1] == '=')) {
            char close = w->p[1];
            const char *end = strchr(w->p + 2, close);
            w->p = end && end[1] == ']' ? end + 2 : w->p + 1;
            continue;
        }
        w->p++;
    }
    if (*w->p)
        w->p++;
}

static long long weigh_atom(struct weigh *w)
{
    switch (*w->p) {
    case '(':
        w->p++;
        if (++w->depth > 64)
            return WEIGHT_CAP;   /* glibc recurses per level too */
        long long inner = weigh_alt(w);
        w->depth--;
        if (*w->p == ')')
            w->p++;
        return inner > 0 ? inner : 1;
    case '[':
        skip_bracket(w);
        return 1;
    case '\\':
        w->p += w->p[1] ? 2 : 1;
        return 1;
    default:
        w->p++;
        return 1;
    }
}

/* {m}, {m,}, {m,n}: the largest count glibc expands to. */
static long long bound_of(struct weigh *w)
{
    long long m = 0, n = -1;
    const char *p = w->p + 1;
    while (*p >= '0' && *p <= '9' && m < 1000000)
        m = m * 10 + (*p++ - '0');
    if (*p == ',') {
        p++;
        if (*p >= '0' && *p <= '9') {
            n = 0;
            while (*p >= '0' && *p <= '9' && n < 1000000)
                n = n * 10 + (*p++ - '0');
        }
    }
    if (*p != '}')
        return 1;   /* not a bound: regcomp decides */
    w->p = p + 1;
    return (n > m ? n : m) + 1;   /* {m,} is m copies and a star */
}

static long long weigh_piece(struct weigh *w)
{
    long long a = weigh_atom(w);
    for (;;) {
        if (*w->p == '*' || *w->p == '?') {
            w->p++;
        } else if (*w->p == '+') {
            w->p++;
            a = sat_mul(a, 2);   /* x+ is built as x x* */
        } else if (*w->p == '{') {
            a = sat_mul(a, bound_of(w));
        } else {
            return a;
        }
    }
}

static long long weigh_alt(struct weigh *w)
{
    long long total = 0;
    while (*w->p && *w->p != ')') {
        if (*w->p == '|') {
            w->p++;
            continue;
        }
        total += weigh_piece(w);
        if (total > WEIGHT_CAP)
            total = WEIGHT_CAP;
    }
    return total;
}

static long long pattern_weight(const char *pattern)
{
    struct weigh w = { pattern, 0 };
    long long total = 0;
    while (*w.p) {
        total += weigh_alt(&w);
        if (*w.p == ')')
            w.p++;   /* unbalanced: regcomp will say so */
        if (total > WEIGHT_CAP)
            return WEIGHT_CAP;
    }
    return total;
}

int ng_regex_compile(struct ng_regex *r, const char *pattern, int flags, size_t max_input,
                     const char *option, struct ng_err *err)
{
    memset(r, 0, sizeof *r);
    r->max_input = max_input;
    if (strlen(pattern) > NG_REGEX_MAX_PATTERN) {
        return ng_err_set(err, "%s: the pattern is longer than %d bytes", option,
                          NG_REGEX_MAX_PATTERN);
    }
    char *shown = ng_text_cleaned(pattern, NG_TEXT_ESCAPE_CONTROLS);
    if (pattern_weight(pattern) > NG_REGEX_MAX_WEIGHT) {
        ng_err_set(err, "%s='%s' repeats too much: it expands to more than %d atoms (nested "
                   "counts multiply); use *, + or smaller counts",
                   option, shown, NG_REGEX_MAX_WEIGHT);
        free(shown);
        return -1;
    }
    int rc = regcomp(&r->re, pattern, REG_EXTENDED | flags);
    if (rc != 0) {
        char why[256];
        regerror(rc, &r->re, why, sizeof why);
        ng_err_set(err, "%s='%s' is not a valid extended regular expression: %s", option, shown,
                   why);
        free(shown);
        return -1;
    }
    free(shown);
    r->compiled = 1;
    return 0;
}

int ng_regex_match(const struct ng_regex *r, const char *text, size_t nmatch, regmatch_t *m,
                   double *spent)
{
    if (*spent > NG_REGEX_CPU_BUDGET)
        return -1;
    if (r->max_input && strlen(text) > r->max_input)
        return 0;
    double t0 = ng_thread_cpu();
    int rc = regexec(&r->re, text, nmatch, m, 0);
    *spent += ng_thread_cpu() - t0;
    if (*spent > NG_REGEX_CPU_BUDGET)
        return -1;
    return rc == 0;
}

void ng_regex_release(struct ng_regex *r)
{
    if (r->compiled)
        regfree(&r->re);
    r->compiled = 0;
}
