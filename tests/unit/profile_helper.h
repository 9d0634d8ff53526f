/* Two loaded profiles compared member by member, every member the
 * decision reads and what `ranges` lists of a summary (a summary read back, ranks folded against the one file
 * that held them).  Epoch cells either as stored (`exact`: the same
 * arrays) or as each epoch's sum (a reader may give an item one cell an
 * epoch per item behind its name; folded ranks give one).  Header only:
 * the unit tests that compare profiles include it. */
#ifndef TEST_PROFILE_HELPER_H
#define TEST_PROFILE_HELPER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_profile.h"

enum cells_compare { CELLS_EXACT, CELLS_BY_EPOCH };

/* Each epoch's sum of a row's cells, into out[0..n_epochs). */
static void cells_by_epoch(const struct ng_work_row *r, size_t n_epochs, int64_t *out)
{
    memset(out, 0, n_epochs * sizeof *out);
    for (size_t j = 0; r->cells && j < r->cells->n; j++)
        if (r->cells->epoch[j] < n_epochs)
            out[r->cells->epoch[j]] += r->cells->ns[j];
}

static void assert_rows_equal(const struct ng_work_row *a, const struct ng_work_row *b, size_t n,
                              size_t n_epochs, enum cells_compare how)
{
    int64_t *ca = calloc(n_epochs + 1, sizeof *ca), *cb = calloc(n_epochs + 1, sizeof *cb);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(a[i].name, b[i].name);
        assert_int_equal(a[i].kind, b[i].kind);
        assert_int_equal(a[i].total_ns, b[i].total_ns);
        assert_int_equal(a[i].instances, b[i].instances);
        assert_int_equal(a[i].cells != NULL, b[i].cells != NULL);
        if (!a[i].cells)
            continue;
        if (how == CELLS_BY_EPOCH) {
            cells_by_epoch(&a[i], n_epochs, ca);
            cells_by_epoch(&b[i], n_epochs, cb);
            assert_memory_equal(ca, cb, (n_epochs + 1) * sizeof *ca);
            continue;
        }
        assert_int_equal(a[i].cells->n, b[i].cells->n);
        assert_memory_equal(a[i].cells->epoch, b[i].cells->epoch, a[i].cells->n * sizeof(uint32_t));
        assert_memory_equal(a[i].cells->ns, b[i].cells->ns, a[i].cells->n * sizeof(int64_t));
    }
    free(ca);
    free(cb);
}

static void assert_text_equal(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

/* Every member the decision reads. */
static void assert_profiles_equal(const struct ng_profile *a, const struct ng_profile *b,
                                  enum cells_compare how)
{
    assert_int_equal(a->format, b->format);
    assert_int_equal(a->loaded, b->loaded);
    assert_int_equal(a->total_ns, b->total_ns);
    assert_int_equal(a->launches, b->launches);
    assert_int_equal(a->n_rows, b->n_rows);
    assert_rows_equal(a->rows, b->rows, a->n_rows, a->n_epochs, how);
    assert_int_equal(a->measured_ns, b->measured_ns);
    assert_int_equal(a->measured, b->measured);
    assert_memory_equal(a->kind_ns, b->kind_ns, sizeof a->kind_ns);
    assert_memory_equal(a->kind_launches, b->kind_launches, sizeof a->kind_launches);
    assert_int_equal(a->n_excluded, b->n_excluded);
    assert_rows_equal(a->excluded, b->excluded, a->n_excluded, a->n_epochs, how);
    assert_int_equal(a->excluded_ns, b->excluded_ns);
    assert_int_equal(a->excluded_launches, b->excluded_launches);
    assert_memory_equal(a->left_out_ns, b->left_out_ns, sizeof a->left_out_ns);
    assert_memory_equal(a->left_out_launches, b->left_out_launches, sizeof a->left_out_launches);
    assert_int_equal(a->nvtx, b->nvtx);
    assert_int_equal(a->n_epochs, b->n_epochs);
    for (size_t i = 0; i < a->n_epochs; i++) {
        assert_string_equal(a->epochs[i].name, b->epochs[i].name);
        assert_int_equal(a->epochs[i].first_start, b->epochs[i].first_start);
        assert_int_equal(a->epochs[i].ns, b->epochs[i].ns);
        assert_int_equal(a->epochs[i].kernels, b->epochs[i].kernels);
    }
    assert_int_equal(a->skipped_epochs, b->skipped_epochs);
    assert_int_equal(a->empty_epochs, b->empty_epochs);
    assert_int_equal(a->has_places, b->has_places);
    assert_int_equal(a->n_devices, b->n_devices);
    assert_memory_equal(a->devices, b->devices, a->n_devices * sizeof *a->devices);
    assert_int_equal(a->n_processes, b->n_processes);
    assert_memory_equal(a->processes, b->processes, a->n_processes * sizeof *a->processes);
    assert_int_equal(a->has_breakdown, b->has_breakdown);
    assert_memory_equal(&a->breakdown, &b->breakdown, sizeof a->breakdown);
    assert_int_equal(a->n_bd_devices, b->n_bd_devices);
    assert_memory_equal(a->bd_devices, b->bd_devices, a->n_bd_devices * sizeof *a->bd_devices);
    assert_int_equal(a->has_nested, b->has_nested);
    assert_int_equal(a->n_nested, b->n_nested);
    for (size_t i = 0; i < a->n_nested; i++) {
        assert_string_equal(a->nested[i].name, b->nested[i].name);
        assert_int_equal(a->nested[i].ns, b->nested[i].ns);
    }
    assert_text_equal(a->graph_mode, b->graph_mode);
    assert_int_equal(a->graph_node_kernels, b->graph_node_kernels);
    assert_int_equal(a->n_warnings, b->n_warnings);
    for (size_t i = 0; i < a->n_warnings; i++)
        assert_string_equal(a->warnings[i], b->warnings[i]);
    assert_text_equal(a->gpu, b->gpu);
    assert_text_equal(a->driver, b->driver);
    assert_int_equal(a->rank, b->rank);
    assert_int_equal(a->world_size, b->world_size);
    assert_int_equal(a->listing != NULL, b->listing != NULL);
    if (!a->listing)
        return;
    assert_int_equal(a->listing->listed, b->listing->listed);
    assert_int_equal(a->listing->n_ranges, b->listing->n_ranges);
    assert_int_equal(a->listing->total_ns, b->listing->total_ns);
    assert_int_equal(a->listing->n_groups, b->listing->n_groups);
    for (size_t i = 0; i < a->listing->n_groups; i++) {
        const struct ng_range_group *x = &a->listing->groups[i], *y = &b->listing->groups[i];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->example, y->example);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->gpu_ns, y->gpu_ns);
        assert_int_equal(x->threads, y->threads);
        assert_int_equal(x->min_depth, y->min_depth);
        assert_int_equal(x->max_depth, y->max_depth);
        /* the same doubles, bit for bit */
        assert_memory_equal(&x->mean_ms, &y->mean_ms, sizeof x->mean_ms);
        assert_memory_equal(&x->cv, &y->cv, sizeof x->cv);
        assert_memory_equal(&x->share, &y->share, sizeof x->share);
    }
}

#endif
