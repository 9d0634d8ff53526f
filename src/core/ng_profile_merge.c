#include "core/ng_profile_merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a rank was, checked against the others once all are in: at the
 * finish, so the rank named in a refusal does not depend on the order the
 * ranks came in. */
struct ng_profile_merge_rank {
    int seen;
    enum ng_format format;
    int nvtx;
    int64_t rank, world_size;
    char *path, *graph_mode;
};

/* A warning of some rank: the lowest rank position that gave it, and its
 * place among that rank's warnings. */
struct ng_profile_merge_warning {
    char *text;   /* the index's copy */
    size_t position, seq;
};

void ng_profile_merge_init(struct ng_profile_merge *m, struct ng_profile *run,
                           const struct ng_regex *epoch_re)
{
    memset(m, 0, sizeof *m);
    m->run = run;
    m->epoch_re = epoch_re;
}

static void add64(int64_t *to, int64_t v, int *overflow)
{
    if (__builtin_add_overflow(*to, v, to))
        *overflow = 1;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

static void note_rank(struct ng_profile_merge *m, const struct ng_profile *r, size_t position)
{
    if (position >= m->cap_ranks) {
        size_t cap = max_size(position + 1, m->cap_ranks * 2);
        m->by_rank = ng_xrealloc(m->by_rank, cap * sizeof *m->by_rank);
        memset(m->by_rank + m->cap_ranks, 0, (cap - m->cap_ranks) * sizeof *m->by_rank);
        m->cap_ranks = cap;
    }
    m->by_rank[position] = (struct ng_profile_merge_rank){
        1, r->format, r->nvtx, r->rank, r->world_size, ng_xstrdup(r->path ? r->path : ""),
        r->graph_mode ? ng_xstrdup(r->graph_mode) : NULL };
}

/* The figures that add up (or, per rank, take the most), not by item. */
static void add_totals(struct ng_profile *run, const struct ng_profile *r, int *overflow)
{
    for (int k = 0; k < NG_WORK_KINDS; k++) {
        add64(&run->left_out_ns[k], r->left_out_ns[k], overflow);
        add64(&run->left_out_launches[k], r->left_out_launches[k], overflow);
    }
    if (r->measured) {
        run->measured = 1;
        add64(&run->measured_ns, r->measured_ns, overflow);
    }
    add64(&run->graph_node_kernels, r->graph_node_kernels, overflow);
    /* a pattern's hits count distinct names: one that selected something
     * on any rank selected something */
    for (size_t i = 0; i < NG_FILTER_MAX; i++) {
        run->include_hits[i] = max_size(run->include_hits[i], r->include_hits[i]);
        run->exclude_hits[i] = max_size(run->exclude_hits[i], r->exclude_hits[i]);
    }
    run->nvtx |= r->nvtx;
    run->skipped_epochs = max_size(run->skipped_epochs, r->skipped_epochs);
    run->empty_epochs = max_size(run->empty_epochs, r->empty_epochs);
}

/* An epoch's key (into *key): the pattern's first group in its text, with
 * the " #k" that numbers a repeated key, as ng_nvtx keys the ranges of one
 * profile; the name when the pattern has no group or does not match. */
static void epoch_key(struct ng_profile_merge *m, const char *name, struct ng_buf *key)
{
    size_t len = strlen(name), text = len;
    regmatch_t g[2];

    while (text > 0 && name[text - 1] >= '0' && name[text - 1] <= '9')
        text--;
    if (text == len || text < 2 || name[text - 1] != '#' || name[text - 2] != ' ')
        text = len;   /* no occurrence number */
    else
        text -= 2;
    key->len = 0;
    ng_buf_add(key, name, text);
    ng_buf_add(key, "", 1);
    if (m->epoch_re && m->epoch_re->re.re_nsub >= 1 &&
        ng_regex_match(m->epoch_re, key->data, 2, g, &m->regex_cpu) > 0 && g[1].rm_so >= 0) {
        memmove(key->data, key->data + g[1].rm_so, (size_t)(g[1].rm_eo - g[1].rm_so));
        key->len = (size_t)(g[1].rm_eo - g[1].rm_so);
    } else {
        key->len = text;
    }
    ng_buf_add(key, name + text, len - text);
}

/* The rank's epochs into the run's, by key; returns each rank epoch's
 * index in run->epochs (in order of arrival until the finish). */
static uint32_t *fold_epochs(struct ng_profile_merge *m, const struct ng_profile *r,
                             int *overflow)
{
    struct ng_profile *run = m->run;
    uint32_t *at = ng_xcalloc(r->n_epochs ? r->n_epochs : 1, sizeof *at);
    struct ng_buf key = NG_BUF_INIT;

    for (size_t i = 0; i < r->n_epochs; i++) {
        const struct ng_epoch *e = &r->epochs[i];
        int added;
        epoch_key(m, e->name, &key);
        size_t k = ng_strmap_get(&m->epoch_index, key.data, key.len, run->n_epochs, &added);
        at[i] = (uint32_t)k;
        if (added) {
            ng_profile_add_epoch(run, e->name, e->first_start, e->ns, e->kernels);
            m->epoch_ranks = ng_xgrow(m->epoch_ranks, k, sizeof *m->epoch_ranks);
            m->epoch_ranks[k] = 1;
            continue;
        }
        struct ng_epoch *to = &run->epochs[k];
        if (e->first_start < to->first_start ||
            (e->first_start == to->first_start && strcmp(e->name, to->name) < 0)) {
            to->first_start = e->first_start;   /* named by its earliest range */
            free(to->name);
            to->name = ng_xstrdup(e->name);
        }
        add64(&to->ns, e->ns, overflow);
        add64(&to->kernels, e->kernels, overflow);
        m->epoch_ranks[k]++;
    }
    ng_buf_release(&key);
    return at;
}

/* The rank's rows, and their epoch cells at the run's epochs. */
static void fold_rows(struct ng_profile *run, const struct ng_profile *r, const uint32_t *at)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct ng_work_row *row = &r->rows[i];
        ng_profile_add_row(run, row->kind, row->name, strlen(row->name), row->total_ns,
                           row->instances);
        const struct ng_epoch_cells *c = row->cells;
        if (!c || c->n == 0)
            continue;
        uint32_t *epoch = ng_xmalloc(c->n * sizeof *epoch);
        int64_t *ns = ng_xmalloc(c->n * sizeof *ns);
        size_t n = 0;
        for (size_t j = 0; j < c->n; j++) {
            if (c->epoch[j] >= r->n_epochs)
                continue;   /* no epoch of the rank's: nothing reads it */
            epoch[n] = at[c->epoch[j]];
            ns[n++] = c->ns[j];
        }
        ng_profile_add_cells(run, row->kind, row->name, epoch, ns, n);
        free(epoch);
        free(ns);
    }
}

/* The items the kernel filters left out, by kind and name. */
static void fold_excluded(struct ng_profile_merge *m, const struct ng_profile *r, int *overflow)
{
    struct ng_profile *run = m->run;
    struct ng_buf key = NG_BUF_INIT;

    for (size_t i = 0; i < r->n_excluded; i++) {
        const struct ng_work_row *row = &r->excluded[i];
        key.len = 0;
        ng_buf_addf(&key, "%c%s", 'a' + (int)row->kind, row->name);
        int added;
        size_t k = ng_strmap_get(&m->excluded_index, key.data, key.len, run->n_excluded, &added);
        if (added) {
            run->excluded = ng_xgrow(run->excluded, run->n_excluded, sizeof *run->excluded);
            run->excluded[run->n_excluded++] = (struct ng_work_row){
                ng_xstrdup(row->name), row->kind, 0, 0, NULL };
        }
        add64(&run->excluded[k].total_ns, row->total_ns, overflow);
        add64(&run->excluded[k].instances, row->instances, overflow);
        add64(&run->excluded_ns, row->total_ns, overflow);
        add64(&run->excluded_launches, row->instances, overflow);
    }
    ng_buf_release(&key);
}

/* Devices add up by id; processes stay the rank's (origin: its position). */
static void fold_places(struct ng_profile_merge *m, const struct ng_profile *r, size_t position,
                        int *overflow)
{
    struct ng_profile *run = m->run;

    for (size_t i = 0; i < r->n_devices; i++) {
        const struct ng_place *d = &r->devices[i];
        int added;
        size_t k = ng_idmap_get(&m->device_index, d->id, 0, run->n_devices, &added);
        if (added) {
            run->devices = ng_xgrow(run->devices, run->n_devices, sizeof *run->devices);
            run->devices[run->n_devices++] = (struct ng_place){ d->id, 0, 0, -1,
                                                                NG_OWNER_UNSET };
        }
        add64(&run->devices[k].ns, d->ns, overflow);
        add64(&run->devices[k].launches, d->launches, overflow);
        ng_place_owner(&run->devices[k], d->owner);
    }
    for (size_t i = 0; i < r->n_processes; i++) {
        run->processes = ng_xgrow(run->processes, run->n_processes, sizeof *run->processes);
        m->process_origin = ng_xgrow(m->process_origin, run->n_processes,
                                     sizeof *m->process_origin);
        m->process_origin[run->n_processes] = (int64_t)position;
        run->processes[run->n_processes++] = r->processes[i];
    }
}

static int fold_breakdown(struct ng_profile_merge *m, const struct ng_profile *r)
{
    struct ng_profile *run = m->run;

    if (ng_breakdown_add(&run->breakdown, &r->breakdown) < 0)
        return -1;
    for (size_t i = 0; i < r->n_bd_devices; i++) {
        const struct ng_breakdown *b = &r->bd_devices[i];
        int added;
        size_t k = ng_idmap_get(&m->bd_index, b->device, 0, run->n_bd_devices, &added);
        if (added) {
            run->bd_devices = ng_xgrow(run->bd_devices, run->n_bd_devices,
                                       sizeof *run->bd_devices);
            run->bd_devices[run->n_bd_devices++] = (struct ng_breakdown){ .device = b->device };
        }
        if (ng_breakdown_add(&run->bd_devices[k], b) < 0)
            return -1;
    }
    return 0;
}

static void fold_nested(struct ng_profile_merge *m, const struct ng_profile *r, int *overflow)
{
    struct ng_profile *run = m->run;

    for (size_t i = 0; i < r->n_nested; i++) {
        int added;
        const char *name = r->nested[i].name;
        size_t k = ng_strmap_get(&m->nested_index, name, strlen(name), run->n_nested, &added);
        if (added)
            ng_profile_add_nested(run, name, 0);
        add64(&run->nested[k].ns, r->nested[i].ns, overflow);
    }
}

/* Warnings kept once each, at the lowest rank position that gave them. */
static void fold_warnings(struct ng_profile_merge *m, const struct ng_profile *r,
                          size_t position)
{
    for (size_t i = 0; i < r->n_warnings; i++) {
        const char *t = r->warnings[i];
        int added;
        size_t k = ng_strmap_get(&m->warning_index, t, strlen(t), m->n_warnings, &added);
        if (added) {
            m->warnings = ng_xgrow(m->warnings, m->n_warnings, sizeof *m->warnings);
            m->warnings[m->n_warnings++] = (struct ng_profile_merge_warning){
                ng_xstrdup(t), position, i };
        } else if (position < m->warnings[k].position) {
            m->warnings[k].position = position;
            m->warnings[k].seq = i;
        }
    }
}

/* The names of a ", "-joined list, into a set. */
static void fold_names(struct ng_strmap *set, const char *list)
{
    for (const char *s = list; s && *s;) {
        const char *end = strstr(s, ", ");
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len)
            (void)ng_strmap_get(set, s, len, 0, NULL);
        s = end ? end + 2 : s + len;
    }
}

int ng_profile_merge_add(struct ng_profile_merge *m, const struct ng_profile *r,
                         size_t position, struct ng_err *err)
{
    struct ng_profile *run = m->run;
    int overflow = 0;

    note_rank(m, r, position);
    add_totals(run, r, &overflow);
    uint32_t *at = fold_epochs(m, r, &overflow);
    fold_rows(run, r, at);
    free(at);
    fold_excluded(m, r, &overflow);
    run->has_places = m->ranks == 0 ? r->has_places : run->has_places && r->has_places;
    run->has_breakdown = m->ranks == 0 ? r->has_breakdown
                                       : run->has_breakdown && r->has_breakdown;
    run->has_nested = m->ranks == 0 ? r->has_nested : run->has_nested && r->has_nested;
    fold_places(m, r, position, &overflow);
    if (fold_breakdown(m, r) < 0)
        overflow = 1;
    fold_nested(m, r, &overflow);
    fold_warnings(m, r, position);
    fold_names(&m->gpu_names, r->gpu);
    fold_names(&m->drivers, r->driver);
    m->ranks++;
    if (overflow)
        return ng_err_set(err, "'%s': the run's figures with this rank's overflow 64 bits",
                          r->path);
    return 0;
}

/* ---- the finish ---- */

static int by_first_start(const void *a, const void *b, void *ctx)
{
    const struct ng_epoch *e = ctx;
    const struct ng_epoch *x = &e[*(const uint32_t *)a], *y = &e[*(const uint32_t *)b];
    if (x->first_start != y->first_start)
        return x->first_start < y->first_start ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* A row's cells, by epoch, one a epoch. */
static int by_epoch(const void *a, const void *b, void *ctx)
{
    const struct ng_epoch_cells *c = ctx;
    uint32_t x = c->epoch[*(const size_t *)a], y = c->epoch[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

static void settle_cells(struct ng_epoch_cells *c, const uint32_t *new_index, int *overflow)
{
    size_t *order = ng_xmalloc((c->n ? c->n : 1) * sizeof *order);
    uint32_t *epoch = ng_xmalloc((c->n ? c->n : 1) * sizeof *epoch);
    int64_t *ns = ng_xmalloc((c->n ? c->n : 1) * sizeof *ns);
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++) {
        c->epoch[i] = new_index[c->epoch[i]];
        order[i] = i;
    }
    if (c->n > 1)
        qsort_r(order, c->n, sizeof *order, by_epoch, c);
    for (size_t i = 0; i < c->n; i++) {
        size_t j = order[i];
        if (n && epoch[n - 1] == c->epoch[j]) {
            add64(&ns[n - 1], c->ns[j], overflow);
            continue;
        }
        epoch[n] = c->epoch[j];
        ns[n++] = c->ns[j];
    }
    free(c->epoch);
    free(c->ns);
    free(order);
    c->epoch = epoch;
    c->ns = ns;
    c->n = c->cap = n;
}

/* The epochs in order of first start (then name), the rows' cells at
 * their new places; a warning for epochs some ranks lack. */
static int settle_epochs(struct ng_profile_merge *m, struct ng_err *err)
{
    struct ng_profile *run = m->run;
    size_t n = run->n_epochs;
    uint32_t *order = ng_xmalloc((n ? n : 1) * sizeof *order);
    uint32_t *new_index = ng_xmalloc((n ? n : 1) * sizeof *new_index);
    struct ng_epoch *sorted = ng_xmalloc((n ? n : 1) * sizeof *sorted);
    size_t *ranks = ng_xmalloc((n ? n : 1) * sizeof *ranks);
    int overflow = 0;

    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    if (n > 1)
        qsort_r(order, n, sizeof *order, by_first_start, run->epochs);
    for (size_t i = 0; i < n; i++) {
        new_index[order[i]] = (uint32_t)i;
        sorted[i] = run->epochs[order[i]];
        ranks[i] = m->epoch_ranks[order[i]];
    }
    free(run->epochs);
    run->epochs = sorted;
    for (size_t i = 0; i < run->n_rows; i++)
        if (run->rows[i].cells)
            settle_cells(run->rows[i].cells, new_index, &overflow);
    size_t lacking = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (ranks[i] < m->ranks && lacking++ == 0)
            first = i;
    if (lacking) {
        char more[64] = "";
        if (lacking > 1)
            snprintf(more, sizeof more, " (and %zu more epochs some rank lacks)", lacking - 1);
        ng_profile_warn(run, "%zu of the %zu ranks of '%s' have no epoch '%s'%s: a rank "
                        "that lacks an epoch adds nothing to it", m->ranks - ranks[first],
                        m->ranks, run->path, run->epochs[first].name, more);
    }
    free(order);
    free(new_index);
    free(ranks);
    if (overflow)
        return ng_err_set(err, "'%s': an item's time in an epoch overflows 64 bits", run->path);
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct ng_place *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_device(const void *a, const void *b)
{
    const struct ng_breakdown *x = a, *y = b;
    return x->device < y->device ? -1 : x->device > y->device;
}

static int by_nested_name(const void *a, const void *b)
{
    return strcmp(((const struct ng_nested_range *)a)->name,
                  ((const struct ng_nested_range *)b)->name);
}

static int by_total(const void *a, const void *b)
{
    return ng_profile_row_order(a, b);
}

/* A process whose profile does not say its rank takes its rank's position
 * when another rank has a process of its pid: otherwise the two would
 * read as one. */
static void settle_processes(struct ng_profile_merge *m)
{
    struct ng_profile *run = m->run;
    struct ng_idmap pids = NG_IDMAP_INIT;

    for (size_t i = 0; i < run->n_processes; i++) {
        int added;
        size_t first = ng_idmap_get(&pids, run->processes[i].id, 0, i, &added);
        if (added || m->process_origin[first] == m->process_origin[i])
            continue;
        if (run->processes[first].rank < 0)
            run->processes[first].rank = m->process_origin[first];
        if (run->processes[i].rank < 0)
            run->processes[i].rank = m->process_origin[i];
    }
    ng_idmap_release(&pids);
    ng_sort(run->processes, run->n_processes, sizeof *run->processes, by_id);
}

/* The ranks' own notes against each other, in rank order. */
static int check_ranks(struct ng_profile_merge *m, struct ng_err *err)
{
    const struct ng_profile_merge_rank *first = NULL;
    struct ng_idmap known = NG_IDMAP_INIT;
    int ret = 0;

    for (size_t i = 0; i < m->cap_ranks && ret == 0; i++) {
        const struct ng_profile_merge_rank *r = &m->by_rank[i];
        if (!r->seen)
            continue;
        if (!first)
            first = r;
        if (r->format != first->format || r->nvtx != first->nvtx) {
            ret = ng_err_set(err, "'%s' (%s, %s mode) and '%s' (%s, %s mode) cannot be ranks "
                             "of one run: read every rank the same way", first->path,
                             ng_format_name(first->format), first->nvtx ? "NVTX" : "total",
                             r->path, ng_format_name(r->format), r->nvtx ? "NVTX" : "total");
            break;
        }
        if (r->rank < 0)
            continue;
        int added;
        size_t k = ng_idmap_get(&known, r->rank, 0, i, &added);
        if (!added)
            ret = ng_err_set(err, "'%s' and '%s' are both rank %" PRId64 ": give each rank "
                             "once", m->by_rank[k].path, r->path, r->rank);
    }
    ng_idmap_release(&known);
    return ret;
}

/* What every rank agrees on, else unknown (graph mode: and a warning). */
static void settle_agreed(struct ng_profile_merge *m)
{
    struct ng_profile *run = m->run;
    const struct ng_profile_merge_rank *first = NULL;
    int same_world = 1, same_mode = 1;

    for (size_t i = 0; i < m->cap_ranks; i++) {
        const struct ng_profile_merge_rank *r = &m->by_rank[i];
        if (!r->seen)
            continue;
        if (!first) {
            first = r;
            continue;
        }
        same_world &= r->world_size == first->world_size;
        same_mode &= (!r->graph_mode && !first->graph_mode) ||
                     (r->graph_mode && first->graph_mode &&
                      strcmp(r->graph_mode, first->graph_mode) == 0);
    }
    run->format = first->format;
    run->world_size = same_world ? first->world_size : -1;
    if (same_mode && first->graph_mode)
        run->graph_mode = ng_xstrdup(first->graph_mode);
    if (!same_mode)
        ng_profile_warn(run, "the ranks of '%s' were traced in different CUDA graph modes",
                        run->path);
}

static int by_rank_order(const void *a, const void *b)
{
    const struct ng_profile_merge_warning *x = a, *y = b;
    if (x->position != y->position)
        return x->position < y->position ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A set's names, sorted and ", "-joined; NULL when empty. */
static char *joined(const struct ng_strmap *set)
{
    const char **names = ng_xcalloc(set->used ? set->used : 1, sizeof *names);
    size_t n = 0;
    struct ng_buf b = NG_BUF_INIT;

    for (size_t i = 0; i < set->cap; i++) {
        const char *name = ng_strmap_key(set, i, NULL);
        if (name)
            names[n++] = name;
    }
    ng_sort(names, n, sizeof *names, by_string);
    for (size_t i = 0; i < n; i++)
        ng_buf_addf(&b, "%s%s", i ? ", " : "", names[i]);
    free(names);
    return n ? ng_buf_detach(&b) : NULL;
}

int ng_profile_merge_finish(struct ng_profile_merge *m, struct ng_err *err)
{
    struct ng_profile *run = m->run;

    if (m->ranks == 0)
        return ng_err_set(err, "'%s': no rank to read", run->path);
    if (check_ranks(m, err) < 0)
        return -1;
    ng_sort(m->warnings, m->n_warnings, sizeof *m->warnings, by_rank_order);
    for (size_t i = 0; i < m->n_warnings; i++)
        ng_profile_warn(run, "%s", m->warnings[i].text);
    settle_agreed(m);
    run->gpu = joined(&m->gpu_names);
    run->driver = joined(&m->drivers);
    if (settle_epochs(m, err) < 0)
        return -1;
    settle_processes(m);
    ng_sort(run->devices, run->n_devices, sizeof *run->devices, by_id);
    ng_sort(run->bd_devices, run->n_bd_devices, sizeof *run->bd_devices, by_device);
    ng_sort(run->nested, run->n_nested, sizeof *run->nested, by_nested_name);
    ng_sort(run->excluded, run->n_excluded, sizeof *run->excluded, by_total);
    return ng_profile_finish(run, err);
}

void ng_profile_merge_release(struct ng_profile_merge *m)
{
    for (size_t i = 0; i < m->cap_ranks; i++) {
        free(m->by_rank[i].path);
        free(m->by_rank[i].graph_mode);
    }
    free(m->by_rank);
    for (size_t i = 0; i < m->n_warnings; i++)
        free(m->warnings[i].text);
    free(m->warnings);
    ng_strmap_release(&m->epoch_index);
    free(m->epoch_ranks);
    ng_idmap_release(&m->device_index);
    ng_idmap_release(&m->bd_index);
    ng_strmap_release(&m->nested_index);
    ng_strmap_release(&m->excluded_index);
    ng_strmap_release(&m->warning_index);
    ng_strmap_release(&m->gpu_names);
    ng_strmap_release(&m->drivers);
    free(m->process_origin);
    memset(m, 0, sizeof *m);
}
