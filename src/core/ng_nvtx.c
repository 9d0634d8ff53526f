#include "core/ng_nvtx.h"
#include "core/ng_range_groups.h"
#include "util/ng_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNMATCHED (-1)
#define NOT_TRIED (-2)
#define UNCLOSED_NAMES_MAX 3

struct ng_nvtx_range {
    int64_t start, end, tid;
    uint32_t key, text;
    size_t epoch;
};

/* A range as a place a call can be nested in: the range around it on its
 * thread (parent, NO_PARENT at the top), whether it is a kept epoch and
 * whether it only repeats its parent's bounds (alias: the parent stands
 * for it). */
struct ng_nvtx_nest {
    int64_t start, end, tid;
    uint32_t text, parent;
    uint8_t epoch, alias;
};

#define NO_PARENT UINT32_MAX
#define NEST_MAX (UINT32_MAX - 1)

struct ng_nvtx_thread {
    int64_t tid;
    size_t begin, end;          /* into the sorted kept ranges */
    size_t cursor;              /* the last call's count of ranges starting no later */
};

struct ng_nvtx_epoch {
    uint32_t key, occ;
    uint32_t text;              /* of its earliest range */
    int64_t first_start;
    size_t rank;                /* in order of first start */
    char *name;
    struct ng_acc acc;
};

/* Correlation ids are dense per process, so the common call (inside one
 * range) maps through pages indexed by the id: 2 bytes a call, holding
 * the range's index + 1.  A page of 65536 ids is allocated when the first
 * call in it lies in a range, so memory follows the calls made inside
 * epochs.  Calls in several ranges, ids outside [0, 2^32) and range
 * indices past 65534 go to the `spans` map instead. */
#define PAGE_BITS NG_NVTX_PAGE_BITS
#define PAGE_IDS ((size_t)1 << PAGE_BITS)
#define MAX_PAGES ((size_t)1 << (32 - PAGE_BITS))
#define GPID_MASK NG_NVTX_GPID_MASK

struct ng_nvtx_page_set {
    int64_t gpid;
    uint16_t **pages;
    size_t n_pages;
};

static void ids_release(struct ng_nvtx_ids *ids);

void ng_nvtx_init(struct ng_nvtx *pj, const struct ng_regex *re, enum ng_metric metric,
                     long skip)
{
    memset(pj, 0, sizeof *pj);
    pj->re = re;
    pj->metric = metric;
    pj->skip = skip;
    pj->call_hi = INT64_MIN;   /* no call is in the same range as "the last" yet */
}

void ng_nvtx_release(struct ng_nvtx *pj)
{
    for (size_t i = 0; i < pj->n_texts; i++)
        free(pj->text_of[i]);
    free(pj->text_of);
    free(pj->text_count);
    free(pj->text_key);
    ng_strmap_release(&pj->texts);
    ng_strmap_release(&pj->keys);
    free(pj->r);
    free(pj->threads);
    for (size_t i = 0; i < pj->n_epochs; i++) {
        free(pj->epochs[i].name);
        ng_acc_release(&pj->epochs[i].acc);
    }
    free(pj->epochs);
    free(pj->order);
    free(pj->range_acc);
    ids_release(&pj->ids);
    free(pj->nest);
    free(pj->nest_threads);
    free(pj->text_group);
    ng_strmap_release(&pj->groups);
    for (size_t i = 0; i < pj->n_groups; i++)
        free(pj->group_name[i]);
    free(pj->group_name);
    free(pj->group_ns);
    ids_release(&pj->group_ids);
    ng_idmap_release(&pj->group_spill);
    ng_idmap_release(&pj->spans);
    ng_idmap_release(&pj->cell_index);
    free(pj->cell_epoch);
    free(pj->cell_item);
    free(pj->cell_ns);
    free(pj->unclosed_names);
    memset(pj, 0, sizeof *pj);
}

/* ---- ranges ---- */

/* The key of a text (its index in pj->keys), or UNMATCHED.  Matched once
 * per distinct text: a trace repeats a few names many times. */
static int64_t key_of(struct ng_nvtx *pj, size_t text)
{
    if (pj->text_key[text] != NOT_TRIED)
        return pj->text_key[text];
    const char *s = pj->text_of[text];
    regmatch_t m[2];
    int64_t key = UNMATCHED;
    int rc = pj->over_budget ? 0 : ng_regex_match(pj->re, s, 2, m, &pj->regex_cpu);
    if (rc < 0)
        pj->over_budget = 1;
    if (rc > 0) {
        const char *k = s;
        size_t len = strlen(s);
        if (pj->re->re.re_nsub >= 1 && m[1].rm_so >= 0) {
            k = s + m[1].rm_so;
            len = (size_t)(m[1].rm_eo - m[1].rm_so);
        }
        int added;
        key = (int64_t)ng_strmap_get(&pj->keys, k, len, pj->n_keys, &added);
        pj->n_keys += (size_t)added;
    }
    return pj->text_key[text] = key;
}

static size_t text_index(struct ng_nvtx *pj, const char *text)
{
    int added;
    size_t i = ng_strmap_get(&pj->texts, text, strlen(text), pj->n_texts, &added);
    if (added) {
        pj->text_count = ng_xgrow(pj->text_count, pj->n_texts, sizeof *pj->text_count);
        pj->text_key = ng_xgrow(pj->text_key, pj->n_texts, sizeof *pj->text_key);
        pj->text_of = ng_xgrow(pj->text_of, pj->n_texts, sizeof *pj->text_of);
        pj->text_count[i] = 0;
        pj->text_key[i] = NOT_TRIED;
        pj->text_of[i] = ng_xstrdup(text);
        pj->n_texts++;
    }
    pj->text_count[i]++;
    return i;
}

static void note_unclosed(struct ng_nvtx *pj, const char *text)
{
    if (pj->unclosed++ >= UNCLOSED_NAMES_MAX)
        return;
    struct ng_buf b = NG_BUF_INIT;
    if (pj->unclosed_names)
        ng_buf_addf(&b, "%s, ", pj->unclosed_names);
    size_t len = strlen(text);
    ng_buf_adds(&b, "'");
    ng_text_clean(&b, text, len > 60 ? 60 : len, NG_TEXT_ESCAPE_CONTROLS);
    ng_buf_adds(&b, len > 60 ? "...'" : "'");
    free(pj->unclosed_names);
    pj->unclosed_names = ng_buf_detach(&b);
}

void ng_nvtx_range(struct ng_nvtx *pj, int64_t start, int64_t end, int64_t tid,
                      const char *text)
{
    ng_nvtx_range_on(pj, start, end, tid, tid, text);
}

void ng_nvtx_range_on(struct ng_nvtx *pj, int64_t start, int64_t end, int64_t tid,
                      int64_t nest_tid, const char *text)
{
    size_t t = text_index(pj, text);
    int64_t key = key_of(pj, t);

    if (end != NG_NVTX_NO_END && end >= start && pj->n_nest < NEST_MAX) {
        pj->nest = ng_xgrow(pj->nest, pj->n_nest, sizeof *pj->nest);
        pj->nest[pj->n_nest++] = (struct ng_nvtx_nest){ start, end, nest_tid, (uint32_t)t,
                                                        NO_PARENT, 0, 0 };
    }
    if (key == UNMATCHED)
        return;
    if (end == NG_NVTX_NO_END) {
        /* it would swallow every later epoch of its thread */
        note_unclosed(pj, text);
        return;
    }
    if (end < start)
        return;
    pj->r = ng_xgrow(pj->r, pj->n_ranges, sizeof *pj->r);
    pj->r[pj->n_ranges++] = (struct ng_nvtx_range){ start, end, tid, (uint32_t)key,
                                                       (uint32_t)t, 0 };
}

/* Thread, start, the outer range first; then the text, so that equal
 * ranges sort the same whatever order the rows came in. */
/* The order of ranges on threads: thread, start, the outer first (0 for
 * the same bounds: the caller breaks the tie). */
static int by_bounds(int64_t xt, int64_t xs, int64_t xe, int64_t yt, int64_t ys, int64_t ye)
{
    if (xt != yt)
        return xt < yt ? -1 : 1;
    if (xs != ys)
        return xs < ys ? -1 : 1;
    if (xe != ye)
        return xe > ye ? -1 : 1;
    return 0;
}

static int by_tid_start(const void *a, const void *b, void *ctx)
{
    const struct ng_nvtx_range *x = a, *y = b;
    char *const *text_of = ctx;
    int c = by_bounds(x->tid, x->start, x->end, y->tid, y->start, y->end);
    return c ? c : strcmp(text_of[x->text], text_of[y->text]);
}

/* Outermost only.  Kept ranges of a thread then have rising starts AND
 * rising ends (a later one ending no later would be nested), which is
 * what lets a call's containing ranges be one contiguous run. */
static void keep_outermost(struct ng_nvtx *pj)
{
    size_t out = 0;

    if (pj->n_ranges > 1)
        qsort_r(pj->r, pj->n_ranges, sizeof *pj->r, by_tid_start, pj->text_of);
    for (size_t i = 0; i < pj->n_ranges; i++) {
        if (out > 0 && pj->r[out - 1].tid == pj->r[i].tid && pj->r[i].end <= pj->r[out - 1].end)
            continue;
        pj->r[out++] = pj->r[i];
    }
    pj->n_ranges = out;
    for (size_t i = 0; i < pj->n_ranges; i++) {
        if (pj->n_threads == 0 || pj->threads[pj->n_threads - 1].tid != pj->r[i].tid) {
            pj->threads = ng_xgrow(pj->threads, pj->n_threads, sizeof *pj->threads);
            pj->threads[pj->n_threads++] = (struct ng_nvtx_thread){ pj->r[i].tid, i, i, i };
        }
        pj->threads[pj->n_threads - 1].end = i + 1;
    }
}

static size_t epoch_for(struct ng_nvtx *pj, struct ng_idmap *by_key, const struct ng_nvtx_range *r,
                        uint32_t occ)
{
    int added;
    size_t e = ng_idmap_get(by_key, r->key, occ, pj->n_epochs, &added);
    if (added) {
        pj->epochs = ng_xgrow(pj->epochs, pj->n_epochs, sizeof *pj->epochs);
        memset(&pj->epochs[e], 0, sizeof pj->epochs[e]);
        pj->epochs[e] = (struct ng_nvtx_epoch){ .key = r->key, .occ = occ, .text = r->text,
                                                   .first_start = r->start };
        pj->n_epochs++;
        return e;
    }
    struct ng_nvtx_epoch *ep = &pj->epochs[e];
    if (r->start < ep->first_start ||
        (r->start == ep->first_start && strcmp(pj->text_of[r->text], pj->text_of[ep->text]) < 0)) {
        ep->first_start = r->start;
        ep->text = r->text;
    }
    return e;
}

/* Occurrence k of a key on a thread is epoch (key, k). */
static void number_occurrences(struct ng_nvtx *pj, unsigned char *repeated)
{
    uint32_t *occ = ng_xcalloc(pj->n_keys ? pj->n_keys : 1, sizeof *occ);
    struct ng_idmap by_key = NG_IDMAP_INIT;

    for (size_t t = 0; t < pj->n_threads; t++) {
        const struct ng_nvtx_thread *th = &pj->threads[t];
        for (size_t i = th->begin; i < th->end; i++) {
            struct ng_nvtx_range *r = &pj->r[i];
            uint32_t k = occ[r->key]++;
            if (k > 0)
                repeated[r->key] = 1;
            r->epoch = epoch_for(pj, &by_key, r, k);
        }
        for (size_t i = th->begin; i < th->end; i++)
            occ[pj->r[i].key] = 0;
    }
    ng_idmap_release(&by_key);
    free(occ);
}

/* ---- ranges nested in the epochs ---- */

/* A kept epoch as the nested ranges look for it: its process, bounds and
 * text (a torch.profiler step is kept on its process's id and nests on its
 * thread's, whose process bits are the same). */
struct epoch_key {
    int64_t gpid, start, end;
    uint32_t text;
};

static int by_epoch_key(const void *a, const void *b)
{
    const struct epoch_key *x = a, *y = b;
    if (x->gpid != y->gpid)
        return x->gpid < y->gpid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->text > y->text) - (x->text < y->text);
}

/* Flags the ranges that are kept epochs (keep_outermost()'s, not a rule of
 * their own), so a launch whose innermost range is one is in no group. */
static void flag_epochs(struct ng_nvtx *pj)
{
    struct epoch_key *keys = ng_xcalloc(pj->n_ranges + 1, sizeof *keys);
    for (size_t i = 0; i < pj->n_ranges; i++)
        keys[i] = (struct epoch_key){ pj->r[i].tid & GPID_MASK, pj->r[i].start, pj->r[i].end,
                                      pj->r[i].text };
    ng_sort(keys, pj->n_ranges, sizeof *keys, by_epoch_key);
    for (size_t i = 0; i < pj->n_nest && pj->n_ranges; i++) {
        const struct ng_nvtx_nest *r = &pj->nest[i];
        struct epoch_key k = { r->tid & GPID_MASK, r->start, r->end, r->text };
        pj->nest[i].epoch = bsearch(&k, keys, pj->n_ranges, sizeof *keys, by_epoch_key) != NULL;
    }
    free(keys);
}

/* Thread, start, the outer first; of ranges with the same bounds the epoch
 * first (the others are its aliases: in no group), then by text. */
static int by_nest(const void *a, const void *b, void *ctx)
{
    const struct ng_nvtx_nest *x = a, *y = b;
    char *const *text_of = ctx;
    int c = by_bounds(x->tid, x->start, x->end, y->tid, y->start, y->end);
    if (c)
        return c;
    if (x->epoch != y->epoch)
        return x->epoch ? -1 : 1;
    return strcmp(text_of[x->text], text_of[y->text]);
}

/* One thread's ranges (sorted: start, the outer first) linked to the range
 * around each, with a stack of the ranges still open: a range ending before
 * the next one ends does not hold it.  Returns how many are neither epochs
 * nor aliases. */
static size_t link_thread(struct ng_nvtx *pj, size_t begin, size_t end, uint32_t *stack)
{
    size_t depth = 0, named = 0;
    for (size_t i = begin; i < end; i++) {
        struct ng_nvtx_nest *r = &pj->nest[i];
        while (depth && pj->nest[stack[depth - 1]].end < r->end)
            depth--;
        const struct ng_nvtx_nest *up = depth ? &pj->nest[stack[depth - 1]] : NULL;
        r->parent = depth ? stack[depth - 1] : NO_PARENT;
        r->alias = up && up->start == r->start && up->end == r->end;
        named += !r->epoch && !r->alias;
        stack[depth++] = (uint32_t)i;
    }
    return named;
}

/* Flags the epochs, sorts the ranges by thread and links them; with none
 * nested in an epoch (no range but the epochs), the calls need not look
 * them up at all. */
static void index_nest(struct ng_nvtx *pj)
{
    size_t named = 0;
    flag_epochs(pj);
    if (pj->n_nest > 1)
        qsort_r(pj->nest, pj->n_nest, sizeof *pj->nest, by_nest, pj->text_of);
    uint32_t *stack = ng_xcalloc(pj->n_nest ? pj->n_nest : 1, sizeof *stack);
    for (size_t i = 0; i < pj->n_nest;) {
        size_t j = i;
        while (j < pj->n_nest && pj->nest[j].tid == pj->nest[i].tid)
            j++;
        named += link_thread(pj, i, j, stack);
        pj->nest_threads = ng_xgrow(pj->nest_threads, pj->n_nest_threads,
                                    sizeof *pj->nest_threads);
        pj->nest_threads[pj->n_nest_threads++] = (struct ng_nvtx_thread){ pj->nest[i].tid, i, j,
                                                                          i };
        i = j;
    }
    free(stack);
    if (named == 0) {
        free(pj->nest);
        free(pj->nest_threads);
        pj->nest = NULL;
        pj->nest_threads = NULL;
        pj->n_nest = pj->n_nest_threads = 0;
        return;
    }
    pj->text_group = ng_xcalloc(pj->n_texts ? pj->n_texts : 1, sizeof *pj->text_group);
}

static int by_first_start(const void *a, const void *b, void *ctx)
{
    const struct ng_nvtx *pj = ctx;
    const struct ng_nvtx_epoch *x = &pj->epochs[*(const size_t *)a];
    const struct ng_nvtx_epoch *y = &pj->epochs[*(const size_t *)b];
    if (x->first_start != y->first_start)
        return x->first_start < y->first_start ? -1 : 1;
    int c = strcmp(pj->text_of[x->text], pj->text_of[y->text]);
    if (c != 0)
        return c;
    return x->occ < y->occ ? -1 : x->occ > y->occ;
}

size_t ng_nvtx_index(struct ng_nvtx *pj)
{
    unsigned char *repeated = ng_xcalloc(pj->n_keys ? pj->n_keys : 1, 1);

    keep_outermost(pj);
    number_occurrences(pj, repeated);
    pj->order = ng_xcalloc(pj->n_epochs ? pj->n_epochs : 1, sizeof *pj->order);
    for (size_t i = 0; i < pj->n_epochs; i++)
        pj->order[i] = i;
    qsort_r(pj->order, pj->n_epochs, sizeof *pj->order, by_first_start, pj);
    for (size_t k = 0; k < pj->n_epochs; k++) {
        struct ng_nvtx_epoch *e = &pj->epochs[pj->order[k]];
        struct ng_buf name = NG_BUF_INIT;
        e->rank = k;
        ng_buf_adds(&name, pj->text_of[e->text]);
        if (repeated[e->key])
            ng_buf_addf(&name, " #%" PRIu32, e->occ + 1);
        e->name = ng_buf_detach(&name);
    }
    free(repeated);
    index_nest(pj);
    pj->range_acc = ng_xcalloc(pj->n_ranges ? pj->n_ranges : 1, sizeof *pj->range_acc);
    for (size_t i = 0; i < pj->n_ranges; i++) {
        struct ng_nvtx_epoch *e = &pj->epochs[pj->r[i].epoch];
        pj->range_acc[i] = e->rank < (size_t)pj->skip ? NULL : &e->acc;
    }
    return pj->n_epochs;
}

/* ---- calls ---- */

/* A thread's calls come in runs (the runtime table is written per thread,
 * in time order), so the last thread found is tried first. */
static struct ng_nvtx_thread *find_thread(struct ng_nvtx_thread *threads, size_t n,
                                          size_t *last, int64_t tid)
{
    if (*last < n && threads[*last].tid == tid)
        return &threads[*last];
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (threads[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || threads[lo].tid != tid)
        return NULL;
    *last = lo;
    return &threads[lo];
}

static struct ng_nvtx_thread *thread_of(struct ng_nvtx *pj, int64_t tid)
{
    return find_thread(pj->threads, pj->n_threads, &pj->last_thread, tid);
}

/* How many of the thread's ranges start no later than `start` (an index
 * into the array whose first start is *starts, one a `stride` bytes: the
 * kept epochs, the nested ranges): the cursor of the last call, or the
 * next one, when the call is in the same range as the last or in the one
 * after it (thousands of calls a range); else a binary search. */
static inline size_t count_started(const int64_t *starts, size_t stride,
                                   struct ng_nvtx_thread *th, int64_t start)
{
#define START(i) (*(const int64_t *)(const void *)((const char *)starts + (i) * stride))
    for (size_t a = th->cursor; a <= th->cursor + 1 && a <= th->end; a++)
        if ((a == th->begin || START(a - 1) <= start) && (a == th->end || START(a) > start))
            return th->cursor = a;
    size_t a = th->begin, b = th->end;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (START(mid) <= start)
            a = mid + 1;
        else
            b = mid;
    }
#undef START
    return th->cursor = a;
}

static size_t ranges_started(const struct ng_nvtx *pj, struct ng_nvtx_thread *th,
                             int64_t start)
{
    return count_started(&pj->r[0].start, sizeof *pj->r, th, start);
}

/* The run [*first, *last] of the thread's ranges that contain [start, end]:
 * those starting no later than the call (a prefix) that end no earlier
 * (a suffix of it, as ends rise).  0 when there is none. */
static int containing(const struct ng_nvtx *pj, struct ng_nvtx_thread *th, int64_t start,
                      int64_t end, size_t *first, size_t *last)
{
    size_t a = ranges_started(pj, th, start);
    if (a == th->begin || pj->r[a - 1].end < end)
        return 0;
    *last = a - 1;
    if (a - 1 == th->begin || pj->r[a - 2].end < end) {   /* the common case: one range */
        *first = a - 1;
        return 1;
    }
    size_t lo = th->begin, hi = a - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pj->r[mid].end >= end)
            hi = mid;
        else
            lo = mid + 1;
    }
    *first = lo;
    return 1;
}

static struct ng_nvtx_page_set *ids_set(struct ng_nvtx_ids *ids, int64_t gpid, int create)
{
    if (ids->last_set < ids->n_sets && ids->sets[ids->last_set].gpid == gpid)
        return &ids->sets[ids->last_set];
    for (size_t i = 0; i < ids->n_sets; i++)
        if (ids->sets[i].gpid == gpid)
            return &ids->sets[ids->last_set = i];
    if (!create)
        return NULL;
    ids->sets = ng_xrealloc(ids->sets, (ids->n_sets + 1) * sizeof *ids->sets);
    ids->sets[ids->n_sets] = (struct ng_nvtx_page_set){ gpid, NULL, 0 };
    ids->last_set = ids->n_sets;
    return &ids->sets[ids->n_sets++];
}

/* The slot of id corr in page `page` of process gpid's ids (the page made
 * when `create`), which becomes the hot page; NULL when there is none. */
static uint16_t *ids_found(struct ng_nvtx_ids *ids, int64_t gpid, int64_t corr, int create)
{
    size_t page = (size_t)corr >> PAGE_BITS;
    struct ng_nvtx_page_set *ps = ids_set(ids, gpid, create);
    if (!ps)
        return NULL;
    if (page >= ps->n_pages) {
        if (!create)
            return NULL;
        ps->pages = ng_xrealloc(ps->pages, (page + 1) * sizeof *ps->pages);
        memset(ps->pages + ps->n_pages, 0, (page + 1 - ps->n_pages) * sizeof *ps->pages);
        ps->n_pages = page + 1;
    }
    if (!ps->pages[page] && create)
        ps->pages[page] = ng_xcalloc(PAGE_IDS, sizeof **ps->pages);
    if (!ps->pages[page])
        return NULL;
    ids->hot = ps->pages[page];
    ids->hot_gpid = gpid;
    ids->hot_no = page;
    return ng_nvtx_hot_slot(ids, gpid, corr);
}

/* The slot of id corr (in [0, 2^32)) of process gpid: on the hot page,
 * else found. */
static inline uint16_t *ids_slot(struct ng_nvtx_ids *ids, int64_t gpid, int64_t corr, int create)
{
    uint16_t *slot = ng_nvtx_hot_slot(ids, gpid, corr);
    return slot ? slot : ids_found(ids, gpid, corr, create);
}

static void ids_release(struct ng_nvtx_ids *ids)
{
    for (size_t i = 0; i < ids->n_sets; i++) {
        for (size_t k = 0; k < ids->sets[i].n_pages; k++)
            free(ids->sets[i].pages[k]);
        free(ids->sets[i].pages);
    }
    free(ids->sets);
    memset(ids, 0, sizeof *ids);
}

static void page_put(struct ng_nvtx *pj, int64_t gpid, int64_t corr, size_t range)
{
    *ids_slot(&pj->ids, gpid, corr, 1) = (uint16_t)(range + 1);
}

/* Remembers the one range a call of thread tid lay in (index i, of the
 * thread's ranges th), as the bounds any call of the thread must keep to
 * lie in it alone: what ng_nvtx_call() tries first. */
static void remember_call(struct ng_nvtx *pj, const struct ng_nvtx_thread *th,
                          int64_t tid, size_t i)
{
    pj->call_tid = tid;
    pj->call_range = i;
    pj->call_lo = pj->r[i].start;
    pj->call_hi = i + 1 < th->end ? pj->r[i + 1].start : INT64_MAX;
    pj->call_end = pj->r[i].end;
    pj->call_prev_end = i > th->begin ? pj->r[i - 1].end : INT64_MIN;
}

static void call_on(struct ng_nvtx *pj, int64_t tid, int64_t nest_tid, int64_t corr,
                    int64_t start, int64_t end);

void ng_nvtx_call_any(struct ng_nvtx *pj, int64_t tid, int64_t corr, int64_t start,
                         int64_t end)
{
    call_on(pj, tid, tid, corr, start, end);
}

void ng_nvtx_call_on(struct ng_nvtx *pj, int64_t tid, int64_t nest_tid, int64_t corr,
                     int64_t start, int64_t end)
{
    call_on(pj, tid, nest_tid, corr, start, end);
}

static void call_on(struct ng_nvtx *pj, int64_t tid, int64_t nest_tid, int64_t corr,
                    int64_t start, int64_t end)
{
    struct ng_nvtx_thread *th = thread_of(pj, tid);
    size_t first, last;

    if (!th || !containing(pj, th, start, end, &first, &last))
        return;
    int64_t gpid = tid & GPID_MASK;
    if (first == last && last < UINT16_MAX - 1 && corr >= 0 &&
        (uint64_t)corr < PAGE_IDS * MAX_PAGES) {
        page_put(pj, gpid, corr, last);
        remember_call(pj, th, tid, last);
    } else {
        ng_idmap_set(&pj->spans, gpid, corr, (size_t)first << 32 | (size_t)last);
    }
    if (pj->n_nest)
        ng_nvtx_nested_call(pj, nest_tid, corr, start, end);
}

static size_t nest_started(const struct ng_nvtx *pj, struct ng_nvtx_thread *th, int64_t start)
{
    return count_started(&pj->nest[0].start, sizeof *pj->nest, th, start);
}

/* The group of a nested range's text, named on first use. */
static size_t group_of(struct ng_nvtx *pj, uint32_t text)
{
    if (pj->text_group[text])
        return pj->text_group[text] - 1;
    char *name = ng_range_group_name(pj->text_of[text]);
    int added;
    size_t g = ng_strmap_get(&pj->groups, name, strlen(name), pj->n_groups, &added);
    if (added) {
        pj->group_name = ng_xgrow(pj->group_name, pj->n_groups, sizeof *pj->group_name);
        pj->group_ns = ng_xgrow(pj->group_ns, pj->n_groups, sizeof *pj->group_ns);
        pj->group_name[g] = name;
        pj->group_ns[g] = 0;
        pj->n_groups++;
    } else {
        free(name);
    }
    pj->text_group[text] = (uint32_t)g + 1;
    return g;
}

/* The innermost range around [start, end] is the first of the chain from
 * the last range starting no later (then the range around it, and so on)
 * that ends no earlier: ranges on a thread nest, so every range that holds
 * the call is on that chain. */
void ng_nvtx_nested_call(struct ng_nvtx *pj, int64_t tid, int64_t corr, int64_t start,
                         int64_t end)
{
    struct ng_nvtx_thread *th = find_thread(pj->nest_threads, pj->n_nest_threads,
                                            &pj->last_nest_thread, tid);
    if (!th)
        return;
    size_t a = nest_started(pj, th, start);
    uint32_t i = a > th->begin ? (uint32_t)(a - 1) : NO_PARENT;
    while (i != NO_PARENT && (pj->nest[i].end < end || pj->nest[i].alias))
        i = pj->nest[i].parent;
    if (i == NO_PARENT || pj->nest[i].epoch)
        return;   /* in no range inside its epoch */
    size_t g = group_of(pj, pj->nest[i].text);
    int64_t gpid = tid & GPID_MASK;
    if (g < UINT16_MAX - 1 && corr >= 0 && (uint64_t)corr < PAGE_IDS * MAX_PAGES)
        *ids_slot(&pj->group_ids, gpid, corr, 1) = (uint16_t)(g + 1);
    else
        ng_idmap_set(&pj->group_spill, gpid, corr, g);
}

int ng_nvtx_nested_work(struct ng_nvtx *pj, int64_t gpid, int64_t corr, int64_t ns, int n)
{
    size_t g = SIZE_MAX;
    gpid &= GPID_MASK;
    if (corr >= 0 && (uint64_t)corr < PAGE_IDS * MAX_PAGES) {
        const uint16_t *slot = ids_slot(&pj->group_ids, gpid, corr, 0);
        if (slot && *slot)
            g = *slot - 1;
    }
    if (g == SIZE_MAX && pj->group_spill.used)
        g = ng_idmap_find(&pj->group_spill, gpid, corr);
    if (g == SIZE_MAX)
        return 0;
    int64_t add;
    if (__builtin_mul_overflow(ns, (int64_t)n, &add) ||
        __builtin_add_overflow(pj->group_ns[g], add, &pj->group_ns[g]))
        return -1;
    return 0;
}

/* The run of ranges whose thread made call (gpid, corr) inside them: the
 * pages first (the common call, one range), then the spans (a call is in
 * one or the other). */
static inline int call_ranges(struct ng_nvtx *pj, int64_t gpid, int64_t corr,
                              size_t *first, size_t *last)
{
    if (corr >= 0 && (uint64_t)corr < PAGE_IDS * MAX_PAGES) {
        const uint16_t *slot = ids_slot(&pj->ids, gpid, corr, 0);
        uint16_t v = slot ? *slot : 0;
        if (v) {
            *first = *last = (size_t)v - 1;
            return 1;
        }
    }
    size_t packed = ng_idmap_find(&pj->spans, gpid, corr);
    if (packed == SIZE_MAX)
        return 0;
    *first = packed >> 32;
    *last = packed & 0xFFFFFFFFu;
    return 1;
}

void ng_nvtx_track_items(struct ng_nvtx *pj)
{
    pj->track_items = 1;
}

static int add_cell(struct ng_nvtx *pj, size_t epoch, size_t item, int64_t ns)
{
    int added;
    size_t c = ng_idmap_get(&pj->cell_index, (int64_t)epoch, (int64_t)item, pj->n_cells, &added);
    if (added) {
        pj->cell_epoch = ng_xgrow(pj->cell_epoch, pj->n_cells, sizeof *pj->cell_epoch);
        pj->cell_item = ng_xgrow(pj->cell_item, pj->n_cells, sizeof *pj->cell_item);
        pj->cell_ns = ng_xgrow(pj->cell_ns, pj->n_cells, sizeof *pj->cell_ns);
        pj->cell_epoch[c] = epoch;
        pj->cell_item[c] = item;
        pj->cell_ns[c] = 0;
        pj->n_cells++;
    }
    return __builtin_add_overflow(pj->cell_ns[c], ns, &pj->cell_ns[c]) ? -1 : 0;
}

int ng_nvtx_work_any(struct ng_nvtx *pj, int64_t gpid, int64_t corr, int64_t device,
                        int64_t start, int64_t end, size_t item, enum ng_work_class cls)
{
    size_t first, last;
    int n = 0;

    if (!call_ranges(pj, gpid & GPID_MASK, corr, &first, &last))
        return 0;
    for (size_t i = first; i <= last; i++) {
        struct ng_acc *a = pj->range_acc[i];
        if (!a)
            continue;   /* a warm-up epoch */
        if (ng_acc_add(a, device, start, end, cls) < 0)
            return -1;
        if (pj->track_items && item != SIZE_MAX &&
            add_cell(pj, pj->r[i].epoch, item, end - start) < 0)
            return -1;
        n++;
    }
    if (n > 0 && pj->n_groups && ng_nvtx_nested_work(pj, gpid, corr, end - start, n) < 0)
        return -1;
    pj->taken += n;
    return n;
}

int ng_nvtx_epochs_of(struct ng_nvtx *pj, int64_t gpid, int64_t corr)
{
    size_t first, last;
    int n = 0;

    if (!call_ranges(pj, gpid & GPID_MASK, corr, &first, &last))
        return 0;
    for (size_t i = first; i <= last; i++)
        n += pj->range_acc[i] != NULL;   /* a counted epoch */
    return n;
}

void ng_nvtx_item_cells(const struct ng_nvtx *pj,
                           void (*fn)(void *ctx, size_t item, size_t position, int64_t ns),
                           void *ctx)
{
    /* positions as ng_nvtx_results() numbers them: counted epochs with work */
    size_t *position = ng_xcalloc(pj->n_epochs ? pj->n_epochs : 1, sizeof *position);
    size_t at = 0;
    for (size_t k = (size_t)pj->skip; k < pj->n_epochs; k++)
        if (pj->epochs[pj->order[k]].acc.launches)
            position[pj->order[k]] = at++;
    for (size_t c = 0; c < pj->n_cells; c++)
        fn(ctx, pj->cell_item[c], position[pj->cell_epoch[c]], pj->cell_ns[c]);
    free(position);
}

int ng_nvtx_disordered(const struct ng_nvtx *pj)
{
    for (size_t i = 0; i < pj->n_epochs; i++)
        if (pj->epochs[i].acc.disordered)
            return 1;
    return 0;
}

void ng_nvtx_restart_work(struct ng_nvtx *pj)
{
    for (size_t i = 0; i < pj->n_epochs; i++)
        ng_acc_reset(&pj->epochs[i].acc);
    pj->taken = 0;
    if (pj->n_groups)
        memset(pj->group_ns, 0, pj->n_groups * sizeof *pj->group_ns);
    ng_idmap_release(&pj->cell_index);
    pj->n_cells = 0;
}

size_t ng_nvtx_ranges(const struct ng_nvtx *pj)
{
    return pj->n_ranges;
}

size_t ng_nvtx_epochs(const struct ng_nvtx *pj)
{
    return pj->n_epochs;
}

int64_t ng_nvtx_taken(const struct ng_nvtx *pj)
{
    return pj->taken;
}

size_t ng_nvtx_texts(const struct ng_nvtx *pj)
{
    return pj->n_texts;
}

struct ng_nvtx_result *ng_nvtx_results(const struct ng_nvtx *pj, size_t *n,
                                             size_t *empty)
{
    struct ng_nvtx_result *out = ng_xcalloc(pj->n_epochs ? pj->n_epochs : 1, sizeof *out);

    *n = *empty = 0;
    for (size_t k = (size_t)pj->skip; k < pj->n_epochs; k++) {
        const struct ng_nvtx_epoch *e = &pj->epochs[pj->order[k]];
        if (e->acc.launches == 0) {
            (*empty)++;   /* a 0 ms sample would only drag the median */
            continue;
        }
        out[(*n)++] = (struct ng_nvtx_result){ e->name, e->first_start,
                                                  ng_acc_value(&e->acc, pj->metric),
                                                  e->acc.launches };
    }
    return out;
}

int ng_nvtx_breakdown(const struct ng_nvtx *pj, struct ng_breakdown **devs, size_t *n,
                      struct ng_breakdown *sum)
{
    for (size_t k = (size_t)pj->skip; k < pj->n_epochs; k++) {
        const struct ng_nvtx_epoch *e = &pj->epochs[pj->order[k]];
        if (e->acc.launches && ng_acc_breakdown(&e->acc, devs, n, sum) < 0)
            return -1;
    }
    return 0;
}

static int by_group_name(const void *a, const void *b, void *ctx)
{
    char *const *names = ctx;
    return strcmp(names[*(const size_t *)a], names[*(const size_t *)b]);
}

void ng_nvtx_nested_each(const struct ng_nvtx *pj,
                         void (*fn)(void *ctx, const char *name, int64_t ns), void *ctx)
{
    size_t *idx = ng_xcalloc(pj->n_groups + 1, sizeof *idx);
    for (size_t i = 0; i < pj->n_groups; i++)
        idx[i] = i;
    qsort_r(idx, pj->n_groups, sizeof *idx, by_group_name, pj->group_name);
    for (size_t i = 0; i < pj->n_groups; i++)
        if (pj->group_ns[idx[i]] > 0)
            fn(ctx, pj->group_name[idx[i]], pj->group_ns[idx[i]]);
    free(idx);
}

int ng_nvtx_over_budget(const struct ng_nvtx *pj)
{
    return pj->over_budget;
}

int64_t ng_nvtx_unclosed(const struct ng_nvtx *pj, const char **names)
{
    *names = pj->unclosed_names ? pj->unclosed_names : "";
    return pj->unclosed;
}

static int by_count(const void *a, const void *b, void *ctx)
{
    const int64_t *counts = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (counts[x] != counts[y])
        return counts[x] > counts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

void ng_nvtx_frequent(const struct ng_nvtx *pj, size_t max, struct ng_buf *out)
{
    /* the texts grouped as `nsys-gate ranges` groups them (digits as '#'):
     * "step #" (64), not five of its 64 texts once each */
    struct ng_strmap groups = NG_STRMAP_INIT;
    int64_t *count = ng_xcalloc(pj->n_texts + 1, sizeof *count);
    size_t *first = ng_xcalloc(pj->n_texts + 1, sizeof *first), n = 0;

    for (size_t i = 0; i < pj->n_texts; i++) {
        char *name = ng_range_group_name(pj->text_of[i]);
        int added;
        size_t g = ng_strmap_get(&groups, name, strlen(name), n, &added);
        if (added)
            first[n++] = i;
        count[g] += pj->text_count[i];
        free(name);
    }
    size_t *idx = ng_xcalloc(n + 1, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    qsort_r(idx, n, sizeof *idx, by_count, count);
    ng_buf_add(out, "", 0);
    for (size_t i = 0; i < n && i < max; i++) {
        char *t = ng_range_group_name(pj->text_of[first[idx[i]]]);
        size_t len = strlen(t);
        ng_buf_addf(out, "%s'", i ? ", " : "");
        ng_text_clean(out, t, len > 60 ? 60 : len, NG_TEXT_ESCAPE_CONTROLS);
        ng_buf_addf(out, "%s' (%" PRId64 ")", len > 60 ? "..." : "", count[idx[i]]);
        free(t);
    }
    if (n)   /* the step-like group needs GPU time per range: the command has it */
        ng_buf_adds(out, " (nsys-gate ranges PROFILE lists them with their GPU time and "
                         "suggests a pattern)");
    free(idx);
    free(first);
    free(count);
    ng_strmap_release(&groups);
}
