#include "core/ng_profile.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ng_util.h"

void ng_profile_init(struct ng_profile *p, const char *path)
{
    memset(p, 0, sizeof *p);
    p->path = ng_xstrdup(path ? path : "");
    p->rank = p->world_size = -1;
}

static void free_cells(struct ng_epoch_cells *c)
{
    if (!c)
        return;
    free(c->epoch);
    free(c->ns);
    free(c);
}

static void free_rows(struct ng_work_row *rows, size_t n, int own_names)
{
    for (size_t i = 0; i < n; i++) {
        free_cells(rows[i].cells);
        if (own_names)
            free(rows[i].name);
    }
    free(rows);
}

/* The index that merges rows as they are added (p->merge), freed. */
static void free_merge(struct ng_profile *p)
{
    free(p->merge.slots);
    for (size_t i = 0; i < p->merge.n_blocks; i++)
        free(p->merge.blocks[i]);
    free(p->merge.blocks);
}

void ng_profile_release(struct ng_profile *p)
{
    if (p->ranges) {
        ng_range_list_release(p->ranges);
        free(p->ranges);
        p->ranges = NULL;
    }
    free_rows(p->rows, p->n_rows, 0);
    free_rows(p->excluded, p->n_excluded, 1);
    free_merge(p);
    for (size_t i = 0; i < p->n_epochs; i++)
        free(p->epochs[i].name);
    free(p->epochs);
    ng_strv_free(&p->warnings, &p->n_warnings);
    free(p->devices);
    free(p->bd_devices);
    for (size_t i = 0; i < p->n_nested; i++)
        free(p->nested[i].name);
    free(p->nested);
    free(p->processes);
    free(p->graph_mode);
    free(p->gpu);
    free(p->driver);
    if (p->listing)
        ng_range_groups_free(p->listing->groups, p->listing->n_groups);
    free(p->listing);
    if (p->origin)
        free(p->origin->name);
    free(p->origin);
    free(p->path);
    memset(p, 0, sizeof *p);
}

void ng_profile_add_nested(void *profile, const char *name, int64_t ns)
{
    struct ng_profile *p = profile;
    p->nested = ng_xgrow(p->nested, p->n_nested, sizeof *p->nested);
    p->nested[p->n_nested++] = (struct ng_nested_range){ ng_xstrdup(name), ns };
}

/* ---- rows, merged as they are added ----
 *
 * A summary of ten million rows may name a few thousand kernels: rows of one
 * kind and name merge on arrival, so memory follows the distinct names.  The
 * index holds 4-byte row numbers and borrows the names from the rows (an
 * ng_strmap would keep a second copy of every name, which is what a file of
 * ten million distinct names cannot afford); the names are packed into
 * blocks rather than allocated one by one. */

#define NAME_BLOCK 65536

static char *store_name(struct ng_profile *p, const char *name, size_t len)
{
    if (p->merge.room - p->merge.used < len + 1) {
        size_t size = len + 1 > NAME_BLOCK ? len + 1 : NAME_BLOCK;
        p->merge.blocks = ng_xgrow(p->merge.blocks, p->merge.n_blocks, sizeof *p->merge.blocks);
        p->merge.blocks[p->merge.n_blocks++] = ng_xmalloc(size);
        p->merge.used = 0;
        p->merge.room = size;
    }
    char *s = p->merge.blocks[p->merge.n_blocks - 1] + p->merge.used;
    memcpy(s, name, len);
    s[len] = '\0';
    p->merge.used += len + 1;
    return s;
}

static uint64_t row_hash(enum ng_work_kind kind, const char *name, size_t len)
{
    return ng_hash(name, len) ^ ((uint64_t)kind + 1) * 0x9E3779B97F4A7C15u;
}

/* At most half full; rebuilt from the rows (also after ng_profile_finish()
 * dropped it, should a row be added later). */
static void index_grow(struct ng_profile *p)
{
    size_t cap = p->merge.cap ? p->merge.cap * 2 : 64;
    while (cap < 2 * (p->n_rows + 1))
        cap *= 2;
    uint32_t *slots = ng_xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct ng_work_row *r = &p->rows[i];
        size_t j = row_hash(r->kind, r->name, strlen(r->name)) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(i + 1);   /* 2^32 rows would need 128 GiB of rows first */
    }
    free(p->merge.slots);
    p->merge.slots = slots;
    p->merge.cap = cap;
}

int ng_profile_add_row(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                       size_t name_len, int64_t total_ns, int64_t instances)
{
    name_len = strnlen(name, name_len);
    if ((p->n_rows + 1) * 2 > p->merge.cap || !p->merge.slots)
        index_grow(p);
    size_t mask = p->merge.cap - 1, j = row_hash(kind, name, name_len) & mask;
    for (; p->merge.slots[j]; j = (j + 1) & mask) {
        struct ng_work_row *r = &p->rows[p->merge.slots[j] - 1];
        if (r->kind != kind || strncmp(r->name, name, name_len) != 0 || r->name[name_len])
            continue;
        if (__builtin_add_overflow(r->total_ns, total_ns, &r->total_ns) ||
            __builtin_add_overflow(r->instances, instances, &r->instances))
            p->merge.overflow = 1;
        return 1;
    }
    if (p->n_rows == p->cap_rows) {
        p->cap_rows = p->cap_rows ? p->cap_rows * 2 : 16;
        p->rows = ng_xrealloc(p->rows, p->cap_rows * sizeof *p->rows);
    }
    p->rows[p->n_rows] = (struct ng_work_row){ store_name(p, name, name_len), kind, total_ns,
                                               instances, NULL };
    p->merge.slots[j] = (uint32_t)++p->n_rows;
    return 0;
}

static struct ng_work_row *find_row(struct ng_profile *p, enum ng_work_kind kind,
                                    const char *name)
{
    size_t len = strlen(name);
    if (!p->merge.slots)
        index_grow(p);
    size_t mask = p->merge.cap - 1;
    for (size_t j = row_hash(kind, name, len) & mask; p->merge.slots[j]; j = (j + 1) & mask) {
        struct ng_work_row *r = &p->rows[p->merge.slots[j] - 1];
        if (r->kind == kind && strcmp(r->name, name) == 0)
            return r;
    }
    return NULL;
}

void ng_profile_add_cells(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                          const uint32_t *epoch, const int64_t *ns, size_t n)
{
    struct ng_work_row *r = find_row(p, kind, name);
    if (!r || n == 0)
        return;
    if (!r->cells)
        r->cells = ng_xcalloc(1, sizeof *r->cells);
    struct ng_epoch_cells *c = r->cells;
    if (c->n + n > c->cap) {
        c->cap = (c->n + n) * 2;
        c->epoch = ng_xrealloc(c->epoch, c->cap * sizeof *c->epoch);
        c->ns = ng_xrealloc(c->ns, c->cap * sizeof *c->ns);
    }
    memcpy(c->epoch + c->n, epoch, n * sizeof *epoch);
    memcpy(c->ns + c->n, ns, n * sizeof *ns);
    c->n += n;
}

/* Few places (GPUs, ranks): a sorted array, searched in order. */
struct ng_place *ng_profile_add_place(struct ng_place **places, size_t *n, int64_t id,
                                      int64_t ns, int64_t launches)
{
    size_t i = *n;   /* past the last: places come sorted (a crafted file has millions) */
    if (*n == 0 || (*places)[*n - 1].id >= id) {
        i = 0;
        while (i < *n && (*places)[i].id < id)
            i++;
    }
    if (i == *n || (*places)[i].id != id) {
        *places = ng_xgrow(*places, *n, sizeof **places);   /* doubling: millions add linearly */
        memmove(*places + i + 1, *places + i, (*n - i) * sizeof **places);
        (*places)[i] = (struct ng_place){ id, 0, 0, -1, NG_OWNER_UNSET };
        (*n)++;
    }
    (*places)[i].ns += ns;
    (*places)[i].launches += launches;
    return &(*places)[i];
}

static int place_before(const struct ng_place *pl, int64_t id, int64_t rank)
{
    return pl->id < id || (pl->id == id && pl->rank < rank);
}

struct ng_place *ng_profile_add_process(struct ng_place **places, size_t *n, int64_t pid,
                                        int64_t rank, int64_t ns, int64_t launches)
{
    size_t i = *n;   /* past the last: processes come sorted */
    if (*n > 0 && !place_before(&(*places)[*n - 1], pid, rank)) {
        i = 0;
        while (i < *n && place_before(&(*places)[i], pid, rank))
            i++;
    }
    if (i == *n || (*places)[i].id != pid || (*places)[i].rank != rank) {
        *places = ng_xgrow(*places, *n, sizeof **places);
        memmove(*places + i + 1, *places + i, (*n - i) * sizeof **places);
        (*places)[i] = (struct ng_place){ pid, 0, 0, rank, NG_OWNER_UNSET };
        (*n)++;
    }
    (*places)[i].ns += ns;
    (*places)[i].launches += launches;
    return &(*places)[i];
}

void ng_place_owner(struct ng_place *pl, int64_t owner)
{
    if (owner == NG_OWNER_UNSET || pl->owner == owner)
        return;
    pl->owner = pl->owner == NG_OWNER_UNSET && owner >= 0 ? owner : NG_OWNER_SEVERAL;
}

void ng_profile_warn(struct ng_profile *p, const char *fmt, ...)
{
    struct ng_buf b = NG_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    ng_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    ng_strv_push(&p->warnings, &p->n_warnings, ng_buf_detach(&b));
}

void ng_profile_add_epoch(struct ng_profile *p, const char *name, int64_t first_start,
                          int64_t ns, int64_t kernels)
{
    p->epochs = ng_xgrow(p->epochs, p->n_epochs, sizeof *p->epochs);
    p->epochs[p->n_epochs++] = (struct ng_epoch){ ng_xstrdup(name), first_start, ns, kernels };
}

int ng_profile_row_order(const struct ng_work_row *x, const struct ng_work_row *y)
{
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_total(const void *a, const void *b, void *rows)
{
    return ng_profile_row_order((const struct ng_work_row *)rows + *(const uint32_t *)a,
                                (const struct ng_work_row *)rows + *(const uint32_t *)b);
}

/* Sorts 4-byte row numbers, then moves the rows into place cycle by cycle:
 * sorting the rows themselves would have qsort allocate a copy of them all. */
static void sort_rows(struct ng_profile *p)
{
    uint32_t *order = ng_xmalloc(p->n_rows * sizeof *order);

    for (size_t i = 0; i < p->n_rows; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, p->n_rows, sizeof *order, by_total, p->rows);
    for (size_t i = 0; i < p->n_rows; i++) {
        if (order[i] == i)
            continue;
        struct ng_work_row first = p->rows[i];
        size_t j = i;
        for (;;) {
            size_t from = order[j];
            order[j] = (uint32_t)j;
            if (from == i) {
                p->rows[j] = first;
                break;
            }
            p->rows[j] = p->rows[from];
            j = from;
        }
    }
    free(order);
}

/* The counted totals, by kind and in all, from the rows. */
static int sum_rows(struct ng_profile *p, struct ng_err *err)
{
    int64_t total = 0, count = 0;

    memset(p->kind_ns, 0, sizeof p->kind_ns);
    memset(p->kind_launches, 0, sizeof p->kind_launches);
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct ng_work_row *r = &p->rows[i];
        if (__builtin_add_overflow(total, r->total_ns, &total) ||
            __builtin_add_overflow(count, r->instances, &count))
            return ng_err_set(err, "'%s': total kernel time overflows 64 bits", p->path);
        if (r->kind >= NG_WORK_KINDS)
            continue;   /* an others row: its kinds are not known */
        p->kind_ns[r->kind] += r->total_ns;   /* bounded by total */
        p->kind_launches[r->kind] += r->instances;
    }
    p->total_ns = total;
    p->launches = count;
    if (!p->measured)
        p->measured_ns = p->total_ns;   /* kernel-sum, and every source without intervals */
    return 0;
}

int ng_profile_finish(struct ng_profile *p, struct ng_err *err)
{
    if (p->n_rows == 0 && p->n_excluded == 0)
        return ng_err_set(err, "'%s' has no CUDA kernel data", p->path);
    if (p->merge.overflow)
        return ng_err_set(err, "'%s': kernel time overflows 64 bits", p->path);
    /* every row is in: the index is dead weight from here on */
    free(p->merge.slots);
    p->merge.slots = NULL;
    p->merge.cap = 0;
    if (sum_rows(p, err) < 0)
        return -1;
    sort_rows(p);
    p->loaded = 1;
    return 0;
}

void ng_profile_take_rows(struct ng_profile *p, struct ng_profile *from)
{
    free_rows(p->rows, p->n_rows, 0);
    free_merge(p);
    p->rows = from->rows;
    p->n_rows = from->n_rows;
    p->cap_rows = from->cap_rows;
    p->merge = from->merge;
    from->rows = NULL;
    from->n_rows = from->cap_rows = 0;
    memset(&from->merge, 0, sizeof from->merge);
}

void ng_profile_add_excluded(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                             int64_t total_ns, int64_t instances)
{
    p->excluded = ng_xgrow(p->excluded, p->n_excluded, sizeof *p->excluded);
    p->excluded[p->n_excluded++] = (struct ng_work_row){ ng_xstrdup(name), kind, total_ns,
                                                         instances, NULL };
    p->excluded_ns += total_ns;
    p->excluded_launches += instances;
}

void ng_profile_set_hits(struct ng_profile *p, const struct ng_filter_account *a)
{
    memcpy(p->include_hits, a->include_hits, sizeof p->include_hits);
    memcpy(p->exclude_hits, a->exclude_hits, sizeof p->exclude_hits);
}

int ng_profile_filter(struct ng_profile *p, const struct ng_filter *f,
                      struct ng_filter_account *a, struct ng_err *err)
{
    size_t out = 0;

    if (ng_filter_empty(f))
        return 0;
    for (size_t i = 0; i < p->n_rows; i++) {
        struct ng_work_row *r = &p->rows[i];
        int sel = ng_filter_selects(f, r->name, a);
        if (sel < 0)
            return ng_err_set(err, "the --kernels / --exclude-kernels patterns took more than "
                              "%.0f s of CPU time on the names of '%s'; use simpler patterns",
                              NG_REGEX_CPU_BUDGET, p->path);
        if (sel) {
            p->rows[out++] = *r;
            continue;
        }
        /* the excluded rows own their names: the name blocks stay the rows' */
        p->excluded = ng_xgrow(p->excluded, p->n_excluded, sizeof *p->excluded);
        p->excluded[p->n_excluded] = *r;
        p->excluded[p->n_excluded++].name = ng_xstrdup(r->name);
        p->excluded_ns += r->total_ns;
        p->excluded_launches += r->instances;
    }
    p->n_rows = out;
    ng_profile_set_hits(p, a);
    return sum_rows(p, err);
}

/* ---- base names ---- */

/* The end of the bracketed group opening at s[i] ('<' or '('), or len. */
static size_t group_end(const char *s, size_t i, size_t len)
{
    int depth = 0;
    for (; i < len; i++) {
        if (s[i] == '<' || s[i] == '(' || s[i] == '[')
            depth++;
        else if ((s[i] == '>' || s[i] == ')' || s[i] == ']') && --depth == 0)
            return i;
    }
    return len;
}

void ng_kernel_base_name(const char *demangled, struct ng_buf *out)
{
    const char *s = demangled;
    size_t len = strlen(s), name_start = 0, name_end = len;
    size_t last_top_paren = len;

    /* the parameter list: the last top-level (...) that ends the name */
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '<' || s[i] == '[') {
            i = group_end(s, i, len);
        } else if (s[i] == '(') {
            size_t e = group_end(s, i, len);
            if (e + 1 >= len || s[e + 1] == ' ' || s[e + 1] == '\0')
                last_top_paren = i;
            i = e;
        }
    }
    name_end = last_top_paren;
    /* the template arguments right before it */
    if (name_end > 0 && s[name_end - 1] == '>') {
        int depth = 0;
        for (size_t i = name_end; i-- > 0;) {
            if (s[i] == '>')
                depth++;
            else if (s[i] == '<' && --depth == 0) {
                name_end = i;
                break;
            }
        }
    }
    /* the scope and the return type: after the last top-level "::" or space */
    for (size_t i = 0; i < name_end; i++) {
        if (s[i] == '<' || s[i] == '(' || s[i] == '[')
            i = group_end(s, i, name_end);
        else if (s[i] == ' ')
            name_start = i + 1;
        else if (s[i] == ':' && i + 1 < name_end && s[i + 1] == ':')
            name_start = ++i + 1;
    }
    if (name_start >= name_end) {   /* nothing like a function name: keep it whole */
        ng_buf_adds(out, s);
        return;
    }
    ng_buf_add(out, s + name_start, name_end - name_start);
}

/* The kinds, and the words of --work that select them. */
static const char *const kind_names[NG_WORK_KINDS] = {
    [NG_WORK_KERNEL] = "kernel",
    [NG_WORK_GRAPH] = "graph",
    [NG_WORK_MEMCPY] = "memcpy",
    [NG_WORK_MEMSET] = "memset",
};

static const struct { const char *word; unsigned mask; const char *items; } work_words[] = {
    { "kernels", NG_WORK_BIT(NG_WORK_KERNEL), "kernel launches" },
    { "graphs", NG_WORK_BIT(NG_WORK_GRAPH), "graph launches" },
    { "memory", NG_WORK_BIT(NG_WORK_MEMCPY) | NG_WORK_BIT(NG_WORK_MEMSET), "memory operations" },
    { "all", NG_WORK_ALL, NULL },
};
#define N_WORK_WORDS (sizeof work_words / sizeof work_words[0])

const char *ng_work_kind_name(enum ng_work_kind k)
{
    if (k == NG_WORK_OTHERS)
        return "others";
    return (unsigned)k < NG_WORK_KINDS ? kind_names[k] : "unknown";
}

int ng_work_parse(const char *list, unsigned *mask, const char **problem)
{
    unsigned m = 0;

    for (const char *p = list; ; ) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        size_t w = 0;
        while (w < N_WORK_WORDS &&
               !(strlen(work_words[w].word) == n && strncmp(work_words[w].word, p, n) == 0))
            w++;
        if (w == N_WORK_WORDS) {
            *problem = "is not a list of kernels, graphs, memory (or all)";
            return -1;
        }
        m |= work_words[w].mask;
        if (!comma)
            break;
        p = comma + 1;
    }
    *mask = m;
    return 0;
}

const char *ng_work_format(unsigned mask, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    if (mask == NG_WORK_ALL)
        return snprintf(buf, size, "all"), buf;
    for (size_t w = 0; w + 1 < N_WORK_WORDS; w++) {
        if ((mask & work_words[w].mask) != work_words[w].mask)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", work_words[w].word);
        if (n > 0 && (size_t)n < size - len)
            len += (size_t)n;
    }
    return buf;
}

int ng_profile_no_counted_work(const struct ng_profile *p, unsigned work, struct ng_err *err)
{
    struct ng_buf held = NG_BUF_INIT;
    unsigned missing = 0;
    char list[64], add[64];

    if (!work)
        work = NG_WORK_DEFAULT;
    for (size_t w = 0; w + 1 < N_WORK_WORDS; w++) {
        int64_t ns = 0, n = 0;
        for (int k = 0; k < NG_WORK_KINDS; k++) {
            if (!(work_words[w].mask & NG_WORK_BIT(k)))
                continue;
            if (__builtin_add_overflow(ns, p->left_out_ns[k], &ns))
                ns = INT64_MAX;
            if (__builtin_add_overflow(n, p->left_out_launches[k], &n))
                n = INT64_MAX;
        }
        if (n == 0 && ns == 0)
            continue;
        int64_t us = ns / 1000 + (ns % 1000 >= 500);
        ng_buf_addf(&held, "%s%" PRId64 " %s (%" PRId64 ".%03" PRId64 " ms)",
                    held.len ? " and " : "", n, work_words[w].items, us / 1000, us % 1000);
        missing |= work_words[w].mask;
    }
    if (!missing)
        return 0;
    ng_err_set(err, "'%s' has no GPU work that --work %s counts; it holds %s: add %s to --work",
               p->path, ng_work_format(work, list, sizeof list), held.data,
               ng_work_format(missing, add, sizeof add));
    ng_buf_release(&held);
    return -1;
}

/* The formats: the name outputs and history lines give each (the
 * schemas' "format" enums list them), and the tool that records it (NULL:
 * the format says nothing of one). */
static const struct {
    const char *name, *tracer;
} formats[] = {
    [NG_FORMAT_UNKNOWN] = { "unknown", NULL },
    [NG_FORMAT_SQLITE] = { "sqlite", "nsys" },
    [NG_FORMAT_NSYS_REP] = { "nsys-rep", "nsys" },
    [NG_FORMAT_CSV] = { "nsys-stats", "nsys" },
    [NG_FORMAT_HISTORY] = { "history", NULL },
    [NG_FORMAT_KINETO] = { "kineto", "torch.profiler" },
    [NG_FORMAT_ROCPD] = { "rocpd", "rocprofv3" },
    [NG_FORMAT_ROCPROF_JSON] = { "rocprof-json", "rocprofv3" },
    [NG_FORMAT_ROCPROF_CSV] = { "rocprof-csv", "rocprofv3" },
    [NG_FORMAT_SUMMARY] = { "summary", NULL },
};
_Static_assert(sizeof formats / sizeof formats[0] == NG_FORMATS, "a format without its row");

const char *ng_format_name(enum ng_format f)
{
    return (size_t)f < NG_FORMATS && formats[f].name ? formats[f].name : "unknown";
}

const char *ng_format_tracer(enum ng_format f)
{
    return (size_t)f < NG_FORMATS ? formats[f].tracer : NULL;
}
