/* ng_ranges: `nsys-gate ranges [OPTIONS] PROFILE...`, the NVTX ranges of
 * profiles, grouped by name shape (core/ng_range_groups.h: digits as '#'),
 * each group's count, kernel time launched inside, threads and nesting
 * depth, biggest first; then a ready --epoch-range for the most step-like
 * group.  What a user runs before the first --epoch-range.
 *
 * SQLite exports are read by the SQLite backend, .nsys-rep reports through
 * their export and its cache, as the gate reads them.  A profile without
 * NVTX ranges (or of a kind that has none: saved nsys stats text) is said
 * so, with what to do instead; it is no error.
 *
 * Like ng_cli, this layer never prints: main prints the one ERROR line and
 * the text the result holds.
 *
 * Ownership: options borrow argv and the environment; a result owns its
 * text until ng_ranges_result_release(). */
#ifndef NG_RANGES_H
#define NG_RANGES_H

#include <stddef.h>
#include <stdio.h>

#include "util/ng_err.h"

struct ng_options;

#define NG_RANGES_MAX_FILES 256

struct ng_ranges_opts {
    const char *json;          /* --json FILE, or NULL */
    const char *nsys;          /* --nsys: the executable for .nsys-rep; NULL: on PATH */
    const char *cache_dir;     /* --cache-dir; NULL: the gate's default */
    int no_cache;
    long top;                  /* --top: groups shown a profile */
    int show_help;
    const char *profiles[NG_RANGES_MAX_FILES];
    size_t n_profiles;
};

struct ng_ranges_result {
    char *text;                /* the human listing */
};

/* The subcommand's arguments (argv[0] is "ranges"), through its table and
 * the one option parser (util/ng_options.h): a flag before its
 * environment variable (NSYS_GATE_RANGES_JSON, NSYS_GATE_NSYS,
 * NSYS_GATE_CACHE_DIR, NSYS_GATE_NO_CACHE, read as the gate reads them). */
int ng_ranges_parse(struct ng_ranges_opts *o, int argc, char **argv, struct ng_err *err);
void ng_ranges_help(FILE *out);
/* The table: --help and the docs test read it. */
const struct ng_options *ng_ranges_options(void);

/* Lists every profile; the first unreadable one is the error (-1), and
 * the JSON is still written with what was read.  0 otherwise. */
int ng_ranges_run(const struct ng_ranges_opts *o, struct ng_ranges_result *r, struct ng_err *err);
void ng_ranges_result_release(struct ng_ranges_result *r);

#endif
