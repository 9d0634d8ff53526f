/* ng_profile: what the gate knows about one profile, whatever its format:
 * the GPU work it counted (total time, launches, one row per work item:
 * a kernel, a graph launch, a memory operation), and what it left out.
 *
 * Ownership: a profile owns its path copy, its rows and their names.  Row
 * names live in blocks the profile frees as a whole: never free or replace
 * one.  ng_profile_init() allocates nothing beyond the path copy;
 * ng_profile_release() frees everything and can be called on a profile
 * whose load failed. */
#ifndef NG_PROFILE_H
#define NG_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ng_filter.h"
#include "core/ng_metric.h"
#include "core/ng_range_groups.h"
#include "util/ng_err.h"
#include "util/ng_util.h"

enum ng_format {
    NG_FORMAT_UNKNOWN = 0,
    NG_FORMAT_SQLITE,
    NG_FORMAT_NSYS_REP,
    NG_FORMAT_CSV,
    NG_FORMAT_HISTORY,     /* a past run read back from a --history line (ng_history_baseline) */
    NG_FORMAT_KINETO,      /* a torch.profiler (Kineto) Chrome trace, plain or gzip */
    NG_FORMAT_ROCPD,       /* a rocprofv3 rocpd SQLite database */
    NG_FORMAT_ROCPROF_JSON,   /* rocprofv3 JSON, plain or gzip */
    NG_FORMAT_ROCPROF_CSV,    /* rocprofv3 CSV files, or their directory */
    NG_FORMAT_SUMMARY,     /* an nsys-gate summary: a loaded one takes its profile's format */
    NG_FORMATS             /* not a format: how many there are (each a row of formats[]
                              in ng_profile.c: its name and its tracer) */
};
#define NG_FORMAT_LAST (NG_FORMATS - 1)   /* readers of format names loop up to it */

/* The kinds of GPU work a profile can hold.  --work counts a subset; each
 * counted item is a row of its kind. */
enum ng_work_kind {
    NG_WORK_KERNEL = 0,    /* an eager kernel (or a graph's kernel, traced per node) */
    NG_WORK_GRAPH,         /* a whole CUDA graph launch (graph-mode tracing) */
    NG_WORK_MEMCPY,
    NG_WORK_MEMSET,
    /* not a kind of work: the one row that stands for the rows a history
     * line folds together ("others", ng_work_rates); never in the by-kind
     * figures, which are NG_WORK_KINDS long */
    NG_WORK_OTHERS,
};
/* The most profiles a side pools (repeat runs, history runs), and the
 * most values of a repeatable option. */
#define NG_MAX_RUNS 64

#define NG_WORK_KINDS 4
#define NG_WORK_BIT(k) (1u << (k))
#define NG_WORK_ALL ((1u << NG_WORK_KINDS) - 1)
/* kernels,graphs: what a training step runs, without data movement */
#define NG_WORK_DEFAULT (NG_WORK_BIT(NG_WORK_KERNEL) | NG_WORK_BIT(NG_WORK_GRAPH))

/* One counted epoch of an NVTX-mode profile: every range with this text
 * (several ranks or threads) added up. */
struct ng_epoch {
    char *name;
    int64_t first_start;   /* ns, trace time of the earliest of its ranges */
    int64_t ns;            /* by the metric the profile was read with */
    int64_t kernels;       /* kernel launches counted in it */
};

/* One device's or one process's share of the counted work. */
struct ng_place {
    int64_t id;            /* the deviceId, or the process id */
    int64_t ns;            /* the durations of its counted work */
    int64_t launches;
    int64_t rank;          /* a process's distributed rank; -1 unknown (and for devices) */
    int64_t owner;         /* a device's process when only one launched on it (a pid);
                              NG_OWNER_SEVERAL; NG_OWNER_UNSET: not known */
};
#define NG_OWNER_SEVERAL (-1)
#define NG_OWNER_UNSET (-2)

/* Notes that process `owner` (or a place's owner: NG_OWNER_SEVERAL,
 * NG_OWNER_UNSET) launched work on the device `pl`. */
void ng_place_owner(struct ng_place *pl, int64_t owner);

/* An item's time in each counted epoch where it ran (per-kernel gates in
 * NVTX mode): epoch[i] indexes the profile's epochs. */
struct ng_epoch_cells {
    uint32_t *epoch;
    int64_t *ns;
    size_t n, cap;
};

struct ng_work_row {
    char *name;          /* raw bytes from the profile; may be invalid UTF-8 */
    enum ng_work_kind kind;
    int64_t total_ns;
    int64_t instances;
    struct ng_epoch_cells *cells;   /* NULL unless asked for */
};

struct ng_nested_range {
    char *name;
    int64_t ns;
};

/* The file a summary was made from: its name (without directories), size
 * and XXH3-128 (32 hex digits), as the summary records it. */
struct ng_profile_origin {
    char *name;
    int64_t size;
    char hash[33];
};

/* What `nsys-gate ranges` lists of a profile, as a summary keeps it: the
 * count of its NVTX ranges, the kernel time they were listed with, and
 * their groups (ng_range_groups(), owned). */
struct ng_profile_listing {
    int listed;                 /* the profile has a range list (saved stats text has none) */
    size_t n_ranges;
    int64_t total_ns;
    struct ng_range_group *groups;
    size_t n_groups;
};

struct ng_profile {
    char *path;
    /* read from a summary: the profile it was made from (owned); NULL
     * when read from the profile itself */
    struct ng_profile_origin *origin;
    /* read from a summary: what `nsys-gate ranges` lists (owned); NULL
     * otherwise */
    struct ng_profile_listing *listing;
    /* every NVTX range, when the source was asked to list them (owned;
     * NULL otherwise, or when the kind has none to list) */
    struct ng_range_list *ranges;
    enum ng_format format;
    int loaded;          /* 1 once a load succeeded: the figures below are real */
    int64_t total_ns;    /* every counted row */
    int64_t launches;
    struct ng_work_row *rows;   /* sorted by total_ns desc, then kind, then name; in
                                   NVTX mode only work of the counted epochs */
    size_t n_rows;
    size_t cap_rows;
    int64_t measured_ns;   /* total mode: the metric over all counted work (kernel-sum:
                              total_ns; gpu-busy: the union per device, summed) */
    int measured;          /* the source set measured_ns; else it is total_ns */
    /* private to ng_profile.c: the index that merges rows as they are added
     * (row number + 1 at the slot of its kind and name, 0 = free), the blocks
     * the names are stored in, and an overflow met while merging */
    struct {
        uint32_t *slots;
        size_t cap;
        char **blocks;
        size_t n_blocks, used, room;
        int overflow;
    } merge;
    int64_t kind_ns[NG_WORK_KINDS];        /* the counted total by kind */
    int64_t kind_launches[NG_WORK_KINDS];
    /* items --kernels / --exclude-kernels left out (of the counted epochs,
     * in NVTX mode), their total, and what each pattern selected */
    struct ng_work_row *excluded;
    size_t n_excluded;
    int64_t excluded_ns, excluded_launches;
    size_t include_hits[NG_FILTER_MAX], exclude_hits[NG_FILTER_MAX];
    /* work of kinds --work does not count: what the profile has, left out */
    int64_t left_out_ns[NG_WORK_KINDS];
    int64_t left_out_launches[NG_WORK_KINDS];
    /* NVTX mode: the counted epochs in order of first start (after the
     * skipped warm-up ones), and how many were skipped */
    int nvtx;
    struct ng_epoch *epochs;
    size_t n_epochs;
    size_t skipped_epochs;
    size_t empty_epochs;   /* matching epochs left out: no kernel launched in them */
    /* where the counted work ran, sorted by id (has_places: the source read
     * it; a plain total-mode pass and saved text do not) */
    int has_places;
    struct ng_place *devices;
    size_t n_devices;
    struct ng_place *processes;
    size_t n_processes;
    /* where the time of the counted work went (in NVTX mode, of the
     * counted epochs), summed over devices and per device (sorted by
     * device); has_breakdown: the source measured it (saved text cannot) */
    int has_breakdown;
    struct ng_breakdown breakdown;
    struct ng_breakdown *bd_devices;
    size_t n_bd_devices;
    /* NVTX mode: the counted work by the innermost range nested in its
     * epoch around its launch, grouped by name shape ("layer #"), in order
     * of name (owned); has_nested: the source looked (from intervals, in
     * NVTX mode), even when it found none */
    int has_nested;
    struct ng_nested_range *nested;
    size_t n_nested;
    /* CUDA graphs: the trace mode the capture recorded ("Graph", "Node",
     * NULL when it says nothing), and kernels that carry a graph id (traced
     * per node) */
    char *graph_mode;
    int64_t graph_node_kernels;
    /* what the source noticed and the verdict must say (e.g. rows that may
     * have merged), one line each, without "WARNING: " */
    char **warnings;
    size_t n_warnings;
    /* what the profile says of its machine, NULL when it does not say */
    char *gpu;             /* GPU model names, ", "-joined, sorted */
    char *driver;          /* NVIDIA driver version */
    /* a distributed job's rank and world size (torch.distributed), -1 unknown */
    int64_t rank, world_size;
};

void ng_profile_init(struct ng_profile *p, const char *path);

/* A nested range group's time (name copied); profile is a struct
 * ng_profile *, so that it serves as ng_nvtx_nested_each()'s callback. */
void ng_profile_add_nested(void *profile, const char *name, int64_t ns);

/* Appends a counted epoch (name copied). */
void ng_profile_add_epoch(struct ng_profile *p, const char *name, int64_t first_start,
                          int64_t ns, int64_t kernels);
void ng_profile_release(struct ng_profile *p);

/* Adds ns of one launch's work to a device's or process's share (a new
 * one's rank unknown); returns the place. */
struct ng_place *ng_profile_add_place(struct ng_place **places, size_t *n, int64_t id, int64_t ns,
                          int64_t launches);

/* Adds a process's share to the one of the same pid and rank (sorted by
 * pid, then rank): two nodes' processes may have one pid, and are told
 * apart by their ranks.  Returns the place. */
struct ng_place *ng_profile_add_process(struct ng_place **places, size_t *n, int64_t pid,
                                        int64_t rank, int64_t ns, int64_t launches);

/* Adds a warning line for the verdict (formatted, copied). */
void ng_profile_warn(struct ng_profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds one row (the name is copied, up to name_len bytes or a NUL), or adds
 * it into the row of the same kind and name: memory follows the distinct
 * names, not the rows read.  Returns 1 when it merged, 0 for a new row. */
int ng_profile_add_row(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                       size_t name_len, int64_t total_ns, int64_t instances);

/* Adds an item's time in counted epochs to the row of that kind and name
 * (added before, not yet finished). */
void ng_profile_add_cells(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                          const uint32_t *epoch, const int64_t *ns, size_t n);

/* Adds an item the kernel filters left out (the name is copied) to
 * p->excluded and its totals. */
void ng_profile_add_excluded(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                             int64_t total_ns, int64_t instances);

/* Keeps what each --kernels / --exclude-kernels pattern selected. */
void ng_profile_set_hits(struct ng_profile *p, const struct ng_filter_account *a);

/* Moves the rows the filter does not select to p->excluded (a finished
 * profile; its totals are recomputed), counting each pattern's hits.
 * -1 when the matching went over its budget. */
int ng_profile_filter(struct ng_profile *p, const struct ng_filter *f,
                      struct ng_filter_account *a, struct ng_err *err);

/* A kernel's base name as nsys's shortName (`cuda_gpu_kern_sum:base`) has
 * it, from its demangled name: the function name without its return type,
 * scope, template arguments and parameter list, e.g.
 * "void at::native::reduce_kernel<(int)512, ...>(T3)" -> "reduce_kernel". */
void ng_kernel_base_name(const char *demangled, struct ng_buf *out);

/* With every row added: sorts the rows, sums the totals (refusing an int64
 * overflow, also one met while merging) and refuses a profile without
 * rows (unless the kernel filters left every one out: the comparator then
 * names the pattern). */
int ng_profile_finish(struct ng_profile *p, struct ng_err *err);

/* The order of a finished profile's rows: total_ns descending, then kind,
 * then name (< 0, 0, > 0 as strcmp). */
int ng_profile_row_order(const struct ng_work_row *x, const struct ng_work_row *y);

/* Replaces p's rows with from's (moved: from keeps none), e.g. rows folded
 * into a scratch profile; p's totals stay. */
void ng_profile_take_rows(struct ng_profile *p, struct ng_profile *from);

/* For a profile in which `work` (0 = NG_WORK_DEFAULT) counted nothing:
 * when it holds work of other kinds (left_out_*), sets the error that says
 * what and returns -1, e.g. "'X' has no GPU work that --work
 * kernels,graphs counts; it holds 134 memory operations (19.544 ms): add
 * memory to --work".  Returns 0, setting nothing, when nothing was left out
 * either: the caller says why it found no work at all. */
int ng_profile_no_counted_work(const struct ng_profile *p, unsigned work, struct ng_err *err);

const char *ng_format_name(enum ng_format f);
/* The tool that recorded a format's profiles ("nsys", "torch.profiler");
 * NULL when the format says nothing of it (a history line). */
const char *ng_format_tracer(enum ng_format f);
/* "kernel", "graph", "memcpy", "memset"; "others" for NG_WORK_OTHERS */
const char *ng_work_kind_name(enum ng_work_kind k);
/* A --work list ("kernels,graphs", "memory", "all") into kind bits;
 * -1 with *problem naming what is wrong. */
int ng_work_parse(const char *list, unsigned *mask, const char **problem);
/* The canonical list for a mask, e.g. "kernels,graphs", into buf. */
const char *ng_work_format(unsigned mask, char *buf, size_t size);

#endif
