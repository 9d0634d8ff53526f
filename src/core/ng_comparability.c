#include "core/ng_comparability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ng_stats.h"
#include "util/ng_text.h"
#include "util/ng_util.h"

void ng_comparability_begin(struct ng_comparability_acc *acc, struct ng_comparability *out)
{
    memset(acc, 0, sizeof *acc);
    memset(out, 0, sizeof *out);
    acc->out = out;
}

/* Keeps the NG_COMPARABILITY_LARGEST biggest one-side items, biggest
 * first (ties: the order they came in, which is the comparator's). */
static void keep_largest(struct ng_comparability *c, const struct ng_one_side_item *it)
{
    size_t at = c->n_largest;
    while (at > 0 && c->largest[at - 1].ms_per_epoch < it->ms_per_epoch)
        at--;
    if (at >= NG_COMPARABILITY_LARGEST)
        return;
    size_t last = c->n_largest < NG_COMPARABILITY_LARGEST ? c->n_largest
                                                          : NG_COMPARABILITY_LARGEST - 1;
    memmove(&c->largest[at + 1], &c->largest[at], (last - at) * sizeof c->largest[0]);
    c->largest[at] = *it;
    if (c->n_largest < NG_COMPARABILITY_LARGEST)
        c->n_largest++;
}

void ng_comparability_add(struct ng_comparability_acc *acc, const char *name,
                          enum ng_work_kind kind, unsigned has, double baseline_ms,
                          double current_ms, double baseline_launches,
                          double current_launches)
{
    if ((has & 3u) == 3u) {
        acc->both_ms += baseline_ms + current_ms;
        if (baseline_launches > 0 && current_launches > 0) {
            if (acc->n == acc->cap) {
                acc->cap = acc->cap ? 2 * acc->cap : 64;
                acc->ratios = ng_xrealloc(acc->ratios, acc->cap * sizeof *acc->ratios);
            }
            acc->ratios[acc->n++] = current_launches / baseline_launches;
        }
        return;
    }
    struct ng_one_side_item it = { name, kind, (has & 2u) != 0,
                                   (has & 2u) ? current_ms : baseline_ms };
    acc->one_side_ms += it.ms_per_epoch;
    keep_largest(acc->out, &it);
}

void ng_comparability_finish(struct ng_comparability_acc *acc)
{
    struct ng_comparability *c = acc->out;
    struct ng_summary sum;
    double all = acc->both_ms + acc->one_side_ms;

    c->items_both = acc->n;
    ng_stats_summary(acc->ratios, acc->n, &sum);
    c->launch_ratio = acc->n ? sum.median : 1.0;
    c->one_side_share = all > 0 ? acc->one_side_ms / all : 0;
    c->known = 1;
    free(acc->ratios);
    acc->ratios = NULL;
}

static void warn_launches(const struct ng_comparability *c, int nvtx, const char *baseline,
                          const char *current, struct ng_buf *b)
{
    ng_buf_addf(b, "'%s' launches about %.2fx the kernels per epoch of '%s' (the median over "
                "the %zu items both have): ", current, c->launch_ratio, baseline, c->items_both);
    if (nvtx)
        ng_buf_adds(b, "the epochs do not hold the same work; check that --epoch-range "
                       "selects the same step on both sides");
    else
        ng_buf_adds(b, "the captures differ in length; give each side its own count "
                       "(--baseline-epochs N --current-epochs M) or gate per NVTX range "
                       "(--epoch-range)");
}

static void warn_one_side(const struct ng_comparability *c, struct ng_buf *b)
{
    ng_buf_addf(b, "%.1f%% of the GPU time is in items only one side has: ",
                c->one_side_share * 100.0);
    for (size_t i = 0; i < c->n_largest; i++) {
        const struct ng_one_side_item *it = &c->largest[i];
        char *shown = ng_text_cleaned(it->name, NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_addf(b, "%s%s '%.80s%s' %.3f ms/epoch (%s only)", i ? ", " : "",
                    ng_work_kind_name(it->kind), shown, strlen(shown) > 80 ? "..." : "",
                    it->ms_per_epoch, it->current ? "current" : "baseline");
        free(shown);
    }
    ng_buf_adds(b, "; the captures may not run the same work");
}

/* "1 device" against "2 devices": a per-epoch sum over places is not the
 * same work when the places differ. */
static void warn_places(const char *one, const char *many, size_t nb, size_t nc,
                        struct ng_buf *b)
{
    ng_buf_addf(b, "the baseline ran on %zu %s and the current on %zu: the per-epoch "
                "figures sum over them, so they are not the same work", nb,
                nb == 1 ? one : many, nc);
}

/* Hands one finished line to the caller's warn and starts the next. */
static void emit(struct ng_buf *b, void (*warn)(void *ctx, const char *text), void *ctx)
{
    warn(ctx, b->data);
    b->len = 0;
    b->data[0] = '\0';
}

void ng_comparability_warn(const struct ng_comparability *c, int nvtx, const char *baseline,
                           const char *current, void (*warn)(void *ctx, const char *text),
                           void *ctx)
{
    struct ng_buf b = NG_BUF_INIT;

    if (!c->known)
        return;
    if (c->items_both > 0 && fabs(c->launch_ratio - 1.0) > NG_COMPARABILITY_LAUNCH_TOLERANCE) {
        warn_launches(c, nvtx, baseline, current, &b);
        emit(&b, warn, ctx);
    }
    if (c->one_side_share > NG_COMPARABILITY_ONE_SIDE_SHARE) {
        warn_one_side(c, &b);
        emit(&b, warn, ctx);
    }
    if (c->has_places && c->baseline_devices != c->current_devices) {
        warn_places("device", "devices", c->baseline_devices, c->current_devices, &b);
        emit(&b, warn, ctx);
    }
    if (c->has_places && c->baseline_processes != c->current_processes) {
        warn_places("process", "processes", c->baseline_processes, c->current_processes, &b);
        emit(&b, warn, ctx);
    }
    ng_buf_release(&b);
}
