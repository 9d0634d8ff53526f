/* ng_regex: the user's POSIX extended patterns (--epoch-range, and the
 * kernel filters), run on text that comes from profiles anyone can write,
 * under a budget, so that no pattern and no input can make the gate run
 * without end or eat the machine's memory.
 *
 * glibc's regcomp expands bounded repetitions, so nested bounds multiply:
 * `((a{1,100}){1,100}){1,100}` takes gigabytes and minutes to compile,
 * and `(.*){1,32000}` overflows its stack.  A pattern that would expand
 * to more than NG_REGEX_MAX_WEIGHT atoms (nested counts multiply), or that
 * is longer than NG_REGEX_MAX_PATTERN bytes, is refused before it is
 * compiled.  Matching time
 * grows with the text (`(a+)+$` is quadratic): each match sees at most
 * `max_input` bytes (a longer text never matches), and the CPU time spent
 * matching is added up per caller against NG_REGEX_CPU_BUDGET seconds.
 *
 * Ownership: the struct owns its compiled pattern; ng_regex_release()
 * frees it.  Matching one compiled pattern from several threads at once
 * is safe (each caller keeps its own time account). */
#ifndef NG_REGEX_H
#define NG_REGEX_H

#include <regex.h>
#include <stddef.h>

#include "util/ng_err.h"

#define NG_REGEX_MAX_PATTERN 4096
#define NG_REGEX_MAX_WEIGHT 20000
#define NG_REGEX_CPU_BUDGET 10.0

struct ng_regex {
    regex_t re;
    int compiled;
    size_t max_input;
};

/* Compiles `pattern` (REG_EXTENDED plus `flags`).  `option` names it in
 * messages, e.g. "--epoch-range". */
int ng_regex_compile(struct ng_regex *r, const char *pattern, int flags, size_t max_input,
                     const char *option, struct ng_err *err);

/* 1 on a match (m[0..nmatch) filled), 0 on none, -1 when *spent (CPU
 * seconds, the caller's account) has passed the budget. */
int ng_regex_match(const struct ng_regex *r, const char *text, size_t nmatch, regmatch_t *m,
                   double *spent);

void ng_regex_release(struct ng_regex *r);

#endif
