/* ng_read: the reading setup every command that reads profiles the way the
 * gate does shares: --epoch-range compiled (auto included), the
 * --kernels/--exclude-kernels filter, the communication patterns, the
 * reader options (struct ng_source_opts) made of them, the export slots,
 * and the profiles loaded side by side on the one pool of workers.  The
 * gate, `nsys-gate summarize` and --write-summary read through here, so a
 * summary is made with exactly what the gate would read, and written
 * here.
 *
 * Ownership: a struct ng_read owns its compiled pattern, filter and
 * communication table, which its `opts` points into (so it is never
 * copied), and the exports of its last ng_read_profiles(); the settings
 * it was set up from are borrowed and must outlive it.
 * ng_read_release() frees all of it. */
#ifndef NG_READ_H
#define NG_READ_H

#include <stddef.h>

#include "cli/ng_settings.h"
#include "core/ng_comm.h"
#include "core/ng_filter.h"
#include "core/ng_profile.h"
#include "sources/ng_source_opts.h"
#include "util/ng_err.h"
#include "util/ng_regex.h"

struct ng_read {
    struct ng_regex epoch_re;
    int have_re;
    struct ng_filter filter;   /* --kernels, --exclude-kernels */
    int have_filter;
    struct ng_comm comm;       /* communication kernels: the table and --comm-kernels */
    int have_comm;
    struct ng_source_opts opts;   /* what every profile is read with */
    struct ng_exports *exports;   /* the last ng_read_profiles()'s; NULL once dropped */
};

/* The built-in pattern behind --epoch-range auto. */
extern const char ng_read_auto_epoch_pattern[];

/* Compiles what s asks to read with into r (zeroed first).  -1 with err
 * naming the option on a bad pattern; r is then still released by
 * ng_read_release(). */
int ng_read_setup(struct ng_read *r, const struct ng_settings *s, struct ng_err *err);

/* Loads the n profiles p[] (each ng_profile_init()ed with its path), up to
 * `jobs` at once (<= 0: one per processor), .nsys-rep operands within the
 * run's export slots; operands naming one report share its export.  The
 * first failure in order is the one returned, as if loaded one by one. */
int ng_read_profiles(struct ng_read *r, struct ng_profile *const *p, size_t n, long jobs,
                     struct ng_err *err);

/* The export slots (ng_export_slots_setup()) for a run whose profiles are
 * `paths`: none when no path is an .nsys-rep, else ng_export_slots_count(jobs,
 * the largest of them).  Returns as ng_export_slots_setup() does. */
int ng_read_slots_setup(long jobs, const char *const *paths, size_t n, int shared);

/* The most rank files one side of --ranks reads, after expansion. */
#define NG_READ_MAX_RANKS 65536

/* --ranks: a side's operands, each a path or a glob, expanded into
 * *paths (owned: free each and the array), sorted by name (so the order
 * the operands or the shell give them in does not matter).  -1 with err
 * (naming `side`) when a glob matches nothing, a file comes twice, or
 * there are more than NG_READ_MAX_RANKS. */
int ng_read_expand(const char *const *operands, size_t n, const char *side, char ***paths,
                   size_t *n_paths, struct ng_err *err);

/* --ranks: initialises a side's run, named by its operands as given
 * ("b/rank*.sqlite", "b/r0.sqlite (+7 more)"). */
void ng_read_side_init(struct ng_profile *run, const char *const *operands, size_t n);

/* A side of --ranks: its rank files, folded into `run` (ng_profile_init()ed
 * with the side's label).  origin: also give the run an origin for its
 * summary (ng_read_summary_write()): each rank's file (or, for a summary,
 * the file it was made from) by name, size and XXH3-128, in rank order,
 * hashed together; its size their sum. */
struct ng_read_side {
    struct ng_profile *run;
    char *const *paths;
    size_t n;
    int origin;
};

/* Loads the ranks of every side, up to `jobs` at once on the one pool,
 * folding each into its side's run as it finishes (ng_profile_merge) and
 * freeing it: memory holds the runs and at most `jobs` rank profiles,
 * never every rank's.  The first failure in order (sides, then ranks in
 * order) is the one returned. */
int ng_read_ranks(struct ng_read *r, const struct ng_read_side *sides, size_t n_sides, long jobs,
                  struct ng_err *err);

/* A profile that was never read still gets its kind, for the reports. */
void ng_read_note_formats(struct ng_profile *p, size_t n);

/* What the exports had to say (e.g. the cache was not used): the count and
 * each note, until ng_read_drop_exports(). */
size_t ng_read_n_notes(const struct ng_read *r);
const char *ng_read_note_at(const struct ng_read *r, size_t i);

/* Frees the exports' private files, not needed past the reading. */
void ng_read_drop_exports(struct ng_read *r);

/* Writes the summary of p (read through r) to path atomically, gzip when
 * path ends in .gz, stdout for "-" (sources/summary/ng_summary_file.h):
 * its origin is p's own (read from a summary) or p's file, hashed; with
 * range_groups, what `nsys-gate ranges` lists of it too (p's own, or a
 * second reading of the file).  Its size in bytes into *bytes (may be
 * NULL).  Nothing is written on error. */
int ng_read_summary_write(const struct ng_read *r, const struct ng_profile *p, const char *path,
                          int range_groups, size_t *bytes, struct ng_err *err);

void ng_read_release(struct ng_read *r);

#endif
