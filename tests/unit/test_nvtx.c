/* The metrics and the NVTX projection over hand-made ranges, calls and
 * intervals: nested, touching, overlapping across streams, across devices,
 * zero-length, unordered; occurrence keys; the pattern budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_metric.h"
#include "core/ng_nvtx.h"
#include "util/ng_regex.h"

/* ---- metrics ---- */

struct iv {
    int64_t device, start, end;
};

static int64_t measure(enum ng_metric m, const struct iv *iv, size_t n, int *disordered)
{
    struct ng_acc a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ng_acc_add(&a, iv[i].device, iv[i].start, iv[i].end, NG_CLASS_COMPUTE), 0);
    int64_t v = ng_acc_value(&a, m);
    if (disordered)
        *disordered = a.disordered;
    assert_int_equal(a.launches, (int64_t)n);
    ng_acc_release(&a);
    return v;
}

static void test_kernel_sum_counts_overlap_twice(void **state)
{
    (void)state;
    static const struct iv iv[] = { { 0, 0, 10 }, { 0, 5, 15 }, { 1, 0, 10 } };
    assert_int_equal(measure(NG_METRIC_KERNEL_SUM, iv, 3, NULL), 30);
}

static void test_span_is_first_start_to_last_end(void **state)
{
    (void)state;
    static const struct iv iv[] = { { 0, 40, 50 }, { 1, 10, 20 }, { 0, 25, 30 } };
    assert_int_equal(measure(NG_METRIC_GPU_SPAN, iv, 3, NULL), 40);   /* 10 .. 50, any order */
}

static void test_busy_union_per_device(void **state)
{
    (void)state;
    int dis;
    /* nested, overlapping, touching (no gap: one interval), a gap, zero-length */
    static const struct iv one[] = {
        { 0, 0, 100 }, { 0, 10, 20 }, { 0, 50, 150 }, { 0, 150, 160 }, { 0, 200, 210 },
        { 0, 300, 300 },
    };
    assert_int_equal(measure(NG_METRIC_GPU_BUSY, one, 6, &dis), 170);
    assert_false(dis);
    /* two streams on one device overlap: counted once; a second device adds up */
    static const struct iv streams[] = {
        { 0, 0, 60 }, { 0, 40, 100 }, { 1, 0, 60 }, { 0, 120, 130 }, { 1, 70, 100 },
    };
    assert_int_equal(measure(NG_METRIC_GPU_BUSY, streams, 5, &dis), 110 + 90);
    assert_false(dis);
    /* lost overlap: the same work serialized, same sum, more busy time */
    static const struct iv hidden[] = { { 0, 0, 100 }, { 0, 20, 80 } };
    static const struct iv lost[] = { { 0, 0, 100 }, { 0, 100, 160 } };
    assert_int_equal(measure(NG_METRIC_KERNEL_SUM, hidden, 2, NULL),
                     measure(NG_METRIC_KERNEL_SUM, lost, 2, NULL));
    assert_int_equal(measure(NG_METRIC_GPU_BUSY, hidden, 2, NULL), 100);
    assert_int_equal(measure(NG_METRIC_GPU_BUSY, lost, 2, NULL), 160);
}

static void test_busy_says_when_out_of_order(void **state)
{
    (void)state;
    int dis;
    static const struct iv iv[] = { { 0, 50, 60 }, { 0, 10, 20 } };
    measure(NG_METRIC_GPU_BUSY, iv, 2, &dis);
    assert_true(dis);
    /* another device's earlier start is no disorder */
    static const struct iv two[] = { { 0, 50, 60 }, { 1, 10, 20 } };
    measure(NG_METRIC_GPU_BUSY, two, 2, &dis);
    assert_false(dis);
}

/* exposed-comm is the breakdown's picture (docs/breakdown.md): compute
 * 0-30, 40-70, 90-100; communication 20-50 (hidden but for 30-40) and
 * 70-85 (alone): 25 exposed, on device 0; on device 1 an all-reduce that
 * a compute kernel covers whole exposes nothing. */
static void test_exposed_comm(void **state)
{
    (void)state;
    static const struct { int64_t dev, s, e; enum ng_work_class c; } iv[] = {
        { 0, 0, 30, NG_CLASS_COMPUTE }, { 0, 20, 50, NG_CLASS_COMM },
        { 0, 40, 70, NG_CLASS_COMPUTE }, { 0, 70, 85, NG_CLASS_COMM },
        { 0, 90, 100, NG_CLASS_COMPUTE }, { 1, 0, 100, NG_CLASS_COMPUTE },
        { 1, 10, 60, NG_CLASS_COMM },
    };
    struct ng_acc a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++)
        assert_int_equal(ng_acc_add(&a, iv[i].dev, iv[i].s, iv[i].e, iv[i].c), 0);
    assert_int_equal(ng_acc_value(&a, NG_METRIC_EXPOSED_COMM), 25);
    assert_int_equal(ng_acc_value(&a, NG_METRIC_KERNEL_SUM), 265);
    ng_acc_release(&a);
}

static void test_metric_table(void **state)
{
    (void)state;
    char buf[128];
    ng_metric_choices(buf, sizeof buf);
    assert_string_equal(buf, "kernel-sum, gpu-span, gpu-busy, exposed-comm");
    for (size_t i = 0; i < ng_n_metrics; i++) {
        assert_int_equal(ng_metrics[i].id, (int)i);   /* indexed by the enum */
        assert_ptr_equal(ng_metric_find(ng_metrics[i].name), &ng_metrics[i]);
    }
    assert_null(ng_metric_find("gpu-idle"));
    assert_true(ng_metric_info(NG_METRIC_GPU_SPAN)->needs & NG_METRIC_NEEDS_NVTX);
    assert_false(ng_metric_info(NG_METRIC_GPU_BUSY)->needs & NG_METRIC_NEEDS_NVTX);
}

/* The schemas' "metric" enums (the verdict's, the manifest's) list the
 * table's names in its order: a metric added to the table and not to a
 * schema fails here. */
static void enum_after(const char *path, const char *key, char *out, size_t n)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    assert_non_null(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *at = strstr(text, key);
    assert_non_null(at);
    at = strstr(at, "\"enum\"");
    assert_non_null(at);
    const char *end = strchr(at, ']');
    assert_non_null(end);
    out[0] = '\0';
    for (const char *q = strchr(at + 6, '"'); q && q < end; q = strchr(q + 1, '"')) {
        const char *close = strchr(q + 1, '"');
        assert_non_null(close);
        if (out[0])
            strncat(out, ", ", n - strlen(out) - 1);
        strncat(out, q + 1, (size_t)(close - q - 1) < n - strlen(out) - 1
                                ? (size_t)(close - q - 1) : n - strlen(out) - 1);
        q = close;
    }
}

static void test_schemas_list_the_table(void **state)
{
    (void)state;
    const char *src = getenv("SRCDIR");
    char path[4096], table[128], listed[256];
    assert_non_null(src);
    ng_metric_choices(table, sizeof table);
    snprintf(path, sizeof path, "%s/schemas/verdict.schema.json", src);
    enum_after(path, "\"metric\": {", listed, sizeof listed);
    assert_string_equal(listed, table);
    snprintf(path, sizeof path, "%s/schemas/manifest.schema.json", src);
    enum_after(path, "\"metric\": {", listed, sizeof listed);
    assert_string_equal(listed, table);
}

/* ---- the projection ---- */

#define TID(pid, t) (((int64_t)1 << 48) | ((int64_t)(pid) << 24) | (t))
#define GPID(pid) (((int64_t)1 << 48) | ((int64_t)(pid) << 24))

struct fixture {
    struct ng_regex re;
    struct ng_nvtx pj;
};

static void begin(struct fixture *f, const char *pattern, enum ng_metric m, long skip)
{
    struct ng_err err;
    assert_int_equal(ng_regex_compile(&f->re, pattern, 0, NG_NVTX_TEXT_MAX, "--epoch-range",
                                      &err), 0);
    ng_nvtx_init(&f->pj, &f->re, m, skip);
}

static void end(struct fixture *f)
{
    ng_nvtx_release(&f->pj);
    ng_regex_release(&f->re);
}

/* The results as "name=ns/launches;..." */
static void expect_results(struct fixture *f, const char *want, size_t want_empty)
{
    size_t n, empty;
    struct ng_nvtx_result *r = ng_nvtx_results(&f->pj, &n, &empty);
    char got[1024] = "";
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(got);
        snprintf(got + len, sizeof got - len, "%s%s=%lld/%lld", i ? ";" : "", r[i].name,
                 (long long)r[i].ns, (long long)r[i].launches);
    }
    free(r);
    assert_string_equal(got, want);
    assert_int_equal(empty, want_empty);
}

/* A call inside [start, end] on thread tid, launching one interval. */
static void launch(struct fixture *f, int64_t tid, int64_t corr, int64_t t, int64_t device,
                   int64_t start, int64_t end)
{
    ng_nvtx_call(&f->pj, tid, corr, t, t + 1);
    (void)ng_nvtx_work(&f->pj, tid & ~(int64_t)0xFFFFFF, corr, device, start, end, SIZE_MAX, NG_CLASS_COMPUTE);
}

static void test_repeated_steps_are_occurrences(void **state)
{
    (void)state;
    struct fixture f;
    begin(&f, "^train_step$", NG_METRIC_KERNEL_SUM, 0);
    /* three same-text steps on one thread, added in reverse order; a second
     * rank's three steps add up with them, occurrence by occurrence */
    for (int r = 0; r < 2; r++)
        for (int k = 2; k >= 0; k--)
            ng_nvtx_range(&f.pj, 1000 * k, 1000 * k + 900, TID(4000 + 16 * r, 0), "train_step");
    ng_nvtx_range(&f.pj, 0, 5000, TID(4000, 1), "other");
    assert_int_equal(ng_nvtx_index(&f.pj), 3);
    int64_t corr = 1;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 3; k++)
            launch(&f, TID(4000 + 16 * r, 0), corr++, 1000 * k + 10, r, 0, 10 * (k + 1));
    expect_results(&f, "train_step #1=20/2;train_step #2=40/2;train_step #3=60/2", 0);
    end(&f);
}

static void test_distinct_texts_and_group_keys(void **state)
{
    (void)state;
    struct fixture f;
    /* the group names the epoch: ranks' "epoch_3-rank_N" add up */
    begin(&f, "^epoch_([0-9]+)", NG_METRIC_KERNEL_SUM, 0);
    ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "epoch_0-rank_0");
    ng_nvtx_range(&f.pj, 5, 100, TID(2, 0), "epoch_0-rank_1");
    ng_nvtx_range(&f.pj, 200, 300, TID(1, 0), "epoch_1-rank_0");
    ng_nvtx_range(&f.pj, 205, 300, TID(2, 0), "epoch_1-rank_1");
    assert_int_equal(ng_nvtx_index(&f.pj), 2);
    launch(&f, TID(1, 0), 1, 10, 0, 0, 7);
    launch(&f, TID(2, 0), 1, 10, 1, 0, 5);     /* the same correlation id in another process */
    launch(&f, TID(2, 0), 2, 210, 1, 0, 3);
    expect_results(&f, "epoch_0-rank_0=12/2;epoch_1-rank_0=3/1", 0);
    end(&f);
}

static void test_outermost_boundary_and_thread(void **state)
{
    (void)state;
    struct fixture f;
    begin(&f, "^e", NG_METRIC_KERNEL_SUM, 0);
    ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "e0");
    ng_nvtx_range(&f.pj, 10, 50, TID(1, 0), "e0 inner");   /* nested: not an epoch */
    ng_nvtx_range(&f.pj, 100, 200, TID(1, 0), "e1");       /* touches e0 */
    assert_int_equal(ng_nvtx_index(&f.pj), 2);
    ng_nvtx_call(&f.pj, TID(1, 0), 1, 100, 100);   /* zero-length, on the boundary */
    assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), 1, 0, 0, 4, SIZE_MAX, NG_CLASS_COMPUTE), 2);
    ng_nvtx_call(&f.pj, TID(1, 1), 2, 20, 30);     /* another thread: no range of its own */
    assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), 2, 0, 0, 100, SIZE_MAX, NG_CLASS_COMPUTE), 0);
    ng_nvtx_call(&f.pj, TID(1, 0), 3, 90, 110);    /* straddles two ranges: in neither */
    assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), 3, 0, 0, 100, SIZE_MAX, NG_CLASS_COMPUTE), 0);
    assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), 99, 0, 0, 100, SIZE_MAX, NG_CLASS_COMPUTE), 0);   /* no such call */
    expect_results(&f, "e0=4/1;e1=4/1", 0);
    end(&f);
}

/* The groups of nested ranges as "name=ns;..." (in name order). */
static void add_nested(void *ctx, const char *name, int64_t ns)
{
    char line[160];
    snprintf(line, sizeof line, "%s=%lld;", name, (long long)ns);
    strcat(ctx, line);
}

static void expect_nested(struct fixture *f, const char *want)
{
    char got[1024] = "";
    ng_nvtx_nested_each(&f->pj, add_nested, got);
    assert_string_equal(got, want);
}

/* Work goes to the innermost range around its launch, by name shape;
 * launches in the epoch's own range, in a warm-up epoch, on another
 * thread or outside every epoch go to none; a range repeating its
 * parent's bounds is its parent; an inner candidate is a nested range. */
static void test_nested_ranges(void **state)
{
    (void)state;
    struct fixture f;
    begin(&f, "^step", NG_METRIC_KERNEL_SUM, 1);
    ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "step");          /* warm-up */
    ng_nvtx_range(&f.pj, 10, 90, TID(1, 0), "layer 0");
    for (int e = 1; e <= 2; e++) {
        int64_t t = e * 1000;
        ng_nvtx_range(&f.pj, t, t + 900, TID(1, 0), "step");
        ng_nvtx_range(&f.pj, t + 100, t + 400, TID(1, 0), "forward");
        ng_nvtx_range(&f.pj, t + 110, t + 200, TID(1, 0), e == 1 ? "layer 1" : "layer 12");
        ng_nvtx_range(&f.pj, t + 110, t + 200, TID(1, 0), "layer alias");   /* same bounds */
        ng_nvtx_range(&f.pj, t + 500, t + 800, TID(1, 0), "step backward");   /* inner candidate */
    }
    ng_nvtx_range(&f.pj, 5000, 6000, TID(1, 0), "outside");
    ng_nvtx_range(&f.pj, 1000, 1900, TID(1, 1), "forward");   /* a thread with no epoch */
    assert_int_equal(ng_nvtx_index(&f.pj), 3);
    launch(&f, TID(1, 0), 1, 50, 0, 0, 7);            /* warm-up epoch's layer: not counted */
    launch(&f, TID(1, 0), 2, 1050, 0, 10, 20);        /* the epoch itself: no group */
    launch(&f, TID(1, 0), 3, 1150, 0, 20, 50);        /* layer 1 (the alias is layer 1) */
    launch(&f, TID(1, 0), 4, 1300, 0, 50, 60);        /* forward */
    launch(&f, TID(1, 0), 5, 1600, 0, 60, 100);       /* step backward */
    launch(&f, TID(1, 0), 6, 2150, 0, 100, 103);      /* layer 12: "layer #" too */
    launch(&f, TID(1, 0), 7, 2399, 0, 103, 104);      /* forward, at its end */
    launch(&f, TID(1, 0), 8, 5500, 0, 104, 200);      /* outside every epoch */
    launch(&f, TID(1, 1), 9, 1500, 0, 200, 300);      /* another thread */
    /* a call that starts in layer 12 and ends after it: in forward */
    ng_nvtx_call(&f.pj, TID(1, 0), 10, 2190, 2250);
    (void)ng_nvtx_work(&f.pj, GPID(1), 10, 0, 300, 305, SIZE_MAX, NG_CLASS_COMPUTE);
    expect_nested(&f, "forward=16;layer #=33;step backward=40;");
    expect_results(&f, "step #2=90/4;step #3=9/3", 0);
    end(&f);
}

/* A range with its epoch's bounds is the epoch's alias, whatever its name
 * sorts as; an inner candidate is a nested range even where a range that
 * overlaps without nesting lies between it and its epoch. */
static void test_nested_edges(void **state)
{
    (void)state;
    static const char *const twins[] = { "a_fwd", "z_fwd" };
    for (int k = 0; k < 2; k++) {
        struct fixture f;
        begin(&f, "^step", NG_METRIC_KERNEL_SUM, 0);
        ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "step");
        ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), twins[k]);
        ng_nvtx_range(&f.pj, 200, 300, TID(1, 0), "step");
        ng_nvtx_range(&f.pj, 210, 220, TID(1, 0), "layer");
        ng_nvtx_index(&f.pj);
        launch(&f, TID(1, 0), 1, 50, 0, 0, 10);
        launch(&f, TID(1, 0), 2, 215, 0, 10, 13);
        expect_nested(&f, "layer=3;");
        end(&f);
    }
    struct fixture f;
    begin(&f, "^step", NG_METRIC_KERNEL_SUM, 0);
    ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "step");
    ng_nvtx_range(&f.pj, 20, 120, TID(1, 0), "mid");    /* overlaps, does not nest */
    ng_nvtx_range(&f.pj, 30, 90, TID(1, 0), "step");    /* inside the epoch: not kept */
    assert_int_equal(ng_nvtx_index(&f.pj), 1);
    launch(&f, TID(1, 0), 1, 40, 0, 0, 10);
    expect_nested(&f, "step=10;");
    end(&f);
}

/* No range but the epochs: no list, and the calls look nothing up. */
static void test_no_nested_ranges(void **state)
{
    (void)state;
    struct fixture f;
    begin(&f, "^step", NG_METRIC_KERNEL_SUM, 0);
    ng_nvtx_range(&f.pj, 0, 100, TID(1, 0), "step");
    ng_nvtx_range(&f.pj, 200, 300, TID(1, 0), "step");
    ng_nvtx_index(&f.pj);
    assert_int_equal(f.pj.n_nest, 0);
    launch(&f, TID(1, 0), 1, 50, 0, 0, 7);
    launch(&f, TID(1, 0), 2, 250, 0, 10, 20);
    expect_nested(&f, "");
    end(&f);
}

static void test_span_and_busy_per_epoch(void **state)
{
    (void)state;
    for (int m = NG_METRIC_GPU_SPAN; m <= NG_METRIC_GPU_BUSY; m++) {
        struct fixture f;
        begin(&f, "^step", (enum ng_metric)m, 0);
        ng_nvtx_range(&f.pj, 0, 1000, TID(1, 0), "step");
        ng_nvtx_index(&f.pj);
        /* two streams overlapping on device 0, a gap, and device 1 */
        launch(&f, TID(1, 0), 1, 1, 0, 100, 200);
        launch(&f, TID(1, 0), 2, 2, 0, 150, 250);
        launch(&f, TID(1, 0), 3, 3, 0, 400, 450);
        launch(&f, TID(1, 0), 4, 4, 1, 160, 260);
        expect_results(&f, m == NG_METRIC_GPU_SPAN ? "step=350/4" : "step=300/4", 0);
        end(&f);
    }
}

static void test_warmup_empty_and_unclosed(void **state)
{
    (void)state;
    struct fixture f;
    const char *names;
    begin(&f, "^epoch [0-9]+$", NG_METRIC_KERNEL_SUM, 1);
    ng_nvtx_range(&f.pj, 0, 10, TID(1, 0), "epoch 0");
    ng_nvtx_range(&f.pj, 20, 30, TID(1, 0), "epoch 1");
    ng_nvtx_range(&f.pj, 40, 50, TID(1, 0), "epoch 2");   /* no work: left out */
    ng_nvtx_range(&f.pj, 60, NG_NVTX_NO_END, TID(1, 0), "epoch 3");
    assert_int_equal(ng_nvtx_index(&f.pj), 3);
    assert_int_equal(ng_nvtx_unclosed(&f.pj, &names), 1);
    assert_string_equal(names, "'epoch 3'");
    launch(&f, TID(1, 0), 1, 1, 0, 0, 5);     /* warm-up: not counted */
    launch(&f, TID(1, 0), 2, 21, 0, 0, 6);
    launch(&f, TID(1, 0), 3, 61, 0, 0, 7);    /* in the unclosed range: nowhere */
    expect_results(&f, "epoch 1=6/1", 1);
    assert_int_equal(ng_nvtx_taken(&f.pj), 1);
    /* work the filters leave out is placed by the same rule: a call in the
     * warm-up epoch is in no counted one, one in epoch 1 or 2 in one */
    ng_nvtx_call(&f.pj, TID(1, 0), 4, 2, 3);
    ng_nvtx_call(&f.pj, TID(1, 0), 5, 22, 23);
    ng_nvtx_call(&f.pj, TID(1, 0), 6, 41, 42);
    assert_int_equal(ng_nvtx_epochs_of(&f.pj, GPID(1), 1), 0);
    assert_int_equal(ng_nvtx_epochs_of(&f.pj, GPID(1), 4), 0);
    assert_int_equal(ng_nvtx_epochs_of(&f.pj, GPID(1), 5), 1);
    assert_int_equal(ng_nvtx_epochs_of(&f.pj, GPID(1), 6), 1);
    assert_int_equal(ng_nvtx_epochs_of(&f.pj, GPID(1), 3), 0);
    end(&f);
}

/* K start/end ranges that all overlap (not nested), each launch inside
 * every one of them: the output is K x launches, and the cost stays
 * linear in it. */
static void test_overlapping_ranges_linear(void **state)
{
    (void)state;
    struct fixture f;
    const int64_t k = 16000;
    begin(&f, "^epoch", NG_METRIC_KERNEL_SUM, 0);
    char text[32];
    for (int64_t i = 0; i < k; i++) {
        snprintf(text, sizeof text, "epoch %lld", (long long)i);
        ng_nvtx_range(&f.pj, i, 10 * k + i, TID(1, 0), text);
    }
    assert_int_equal(ng_nvtx_index(&f.pj), (size_t)k);
    for (int64_t c = 0; c < 200; c++) {
        ng_nvtx_call(&f.pj, TID(1, 0), c, k + c, k + c);
        assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), c, 0, 0, 1, SIZE_MAX, NG_CLASS_COMPUTE), (int)k);
    }
    assert_int_equal(ng_nvtx_taken(&f.pj), 200 * k);
    end(&f);
}

static void test_rows_in_any_order(void **state)
{
    (void)state;
    char a[256], b[256];
    for (int rev = 0; rev < 2; rev++) {
        struct fixture f;
        begin(&f, "^s", NG_METRIC_KERNEL_SUM, 0);
        const char *texts[] = { "s", "s", "s2" };
        int64_t starts[] = { 0, 100, 100 };
        for (int i = 0; i < 3; i++) {
            int j = rev ? 2 - i : i;
            /* two ranges equal but for their text: the sort decides, not the order */
            ng_nvtx_range(&f.pj, starts[j], starts[j] + 50, TID(1, 0), texts[j]);
        }
        ng_nvtx_index(&f.pj);
        for (int i = 0; i < 3; i++) {
            int j = rev ? 2 - i : i;
            launch(&f, TID(1, 0), j, starts[j] + 1, 0, 0, 10 + j);
        }
        size_t n, e;
        struct ng_nvtx_result *r = ng_nvtx_results(&f.pj, &n, &e);
        snprintf(rev ? b : a, 256, "%zu %s %lld %s %lld", n, r[0].name, (long long)r[0].ns,
                 n > 1 ? r[1].name : "-", n > 1 ? (long long)r[1].ns : 0LL);
        free(r);
        end(&f);
    }
    assert_string_equal(a, b);
}

/* The per-thread cursor and the last-thread and last-process caches only
 * save searches: calls in time order, in reverse, and interleaved across
 * two threads and two processes map to the same epochs.  Ranges of 10 ns
 * with gaps; some calls fall in a gap, before the first or after the last. */
static void test_call_order_does_not_matter(void **state)
{
    (void)state;
    char want[1024] = "";
    static const int orders[] = { 0, 1, 2 };   /* forward, reverse, strided */
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        struct fixture f;
        char text[32];
        begin(&f, "^step", NG_METRIC_KERNEL_SUM, 0);
        for (int pid = 1; pid <= 2; pid++)
            for (int t = 0; t < 2; t++)
                for (int64_t i = 0; i < 20; i++) {
                    snprintf(text, sizeof text, "step %lld", (long long)i);
                    ng_nvtx_range(&f.pj, 100 + 20 * i, 110 + 20 * i, TID(pid, t), text);
                }
        ng_nvtx_index(&f.pj);
        const int64_t n = 4 * 500;
        for (int64_t k = 0; k < n; k++) {
            int64_t c = orders[o] == 0 ? k : orders[o] == 1 ? n - 1 - k : (k * 7) % n;
            int pid = 1 + (int)(c % 2), t = (int)(c / 2 % 2);
            int64_t when = 90 + (c / 4) % 500;   /* 90..589: gaps, and past the last range */
            ng_nvtx_call(&f.pj, TID(pid, t), c, when, when);
        }
        for (int64_t c = 0; c < n; c++)
            (void)ng_nvtx_work(&f.pj, GPID(1 + c % 2), c, 0, 0, 1 + c % 3, SIZE_MAX, NG_CLASS_COMPUTE);
        size_t nr, empty;
        struct ng_nvtx_result *r = ng_nvtx_results(&f.pj, &nr, &empty);
        char got[1024] = "";
        for (size_t i = 0; i < nr; i++) {
            size_t len = strlen(got);
            snprintf(got + len, sizeof got - len, "%s=%lld/%lld;", r[i].name,
                     (long long)r[i].ns, (long long)r[i].launches);
        }
        free(r);
        if (o == 0) {
            memcpy(want, got, sizeof want);
            assert_int_equal(nr, 20);   /* every step had calls */
        } else {
            assert_string_equal(got, want);
        }
        end(&f);
    }
}

/* The call cache (a call of the thread inside the same single range as
 * its last one takes no search) gives what checking every range gives:
 * ranges that touch and overlap, calls in time order and in runs on two
 * threads, short and long, on and across the boundaries. */
static void test_cached_calls_match_every_range(void **state)
{
    (void)state;
    enum { N = 60, CALLS = 4000 };
    int64_t s[2][N], e[2][N], when[2] = { 0, 0 };
    uint64_t x = 12345;
    char text[32];
    struct fixture f;
    begin(&f, "^s", NG_METRIC_KERNEL_SUM, 0);
    for (int t = 0; t < 2; t++)
        for (int i = 0, at = 0; i < N; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            at += 5 + (int)(x >> 60);                       /* starts rise */
            s[t][i] = at;
            e[t][i] = at + 4 + (int64_t)((x >> 40) % 20);   /* may reach past the next start */
            if (i > 0 && e[t][i] <= e[t][i - 1])
                e[t][i] = e[t][i - 1] + 1;                  /* ends rise too: none nested */
            snprintf(text, sizeof text, "s%d.%d", t, i);
            ng_nvtx_range(&f.pj, s[t][i], e[t][i], TID(1, t), text);
        }
    assert_int_equal(ng_nvtx_index(&f.pj), 2 * N);
    int64_t spanned = 0;
    for (int64_t corr = 0; corr < CALLS; corr++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int t = (int)(corr / 7 % 2);                         /* runs of 7 calls a thread */
        when[t] += (int64_t)(x >> 63);
        int64_t start = when[t], end = start + ((x >> 56) % 8 == 0 ? 9 : (int64_t)(x >> 55 & 1));
        int want = 0;
        for (int i = 0; i < N; i++)
            want += s[t][i] <= start && end <= e[t][i];
        spanned += want > 1;
        ng_nvtx_call(&f.pj, TID(1, t), corr, start, end);
        assert_int_equal(ng_nvtx_work(&f.pj, GPID(1), corr, 0, 0, 1, SIZE_MAX, NG_CLASS_COMPUTE), want);
    }
    assert_true(spanned > 0);   /* some calls lay in two ranges */
    end(&f);
}

static void test_pattern_budget(void **state)
{
    (void)state;
    struct ng_regex re;
    struct ng_err err;
    /* nested counts multiply: refused before glibc expands them */
    assert_int_equal(ng_regex_compile(&re, "((a{1,100}){1,100}){1,100}", 0, 4096, "--epoch-range",
                                      &err), -1);
    assert_non_null(strstr(err.msg, "repeats too much"));
    assert_int_equal(ng_regex_compile(&re, "(.*){1,32000}", 0, 4096, "--epoch-range", &err), -1);
    assert_int_equal(ng_regex_compile(&re, "(", 0, 4096, "--epoch-range", &err), -1);
    assert_non_null(strstr(err.msg, "not a valid extended regular expression"));
    /* what a real pattern looks like is fine */
    assert_int_equal(ng_regex_compile(&re, "^epoch[ _=]?([0-9]{1,6})(/[0-9]+)?$", 0, 4096,
                                      "--epoch-range", &err), 0);
    ng_regex_release(&re);
    /* a text past max_input never matches; an exhausted account stops */
    assert_int_equal(ng_regex_compile(&re, "a", 0, 4, "--epoch-range", &err), 0);
    regmatch_t m[1];
    double spent = 0;
    assert_int_equal(ng_regex_match(&re, "aaaa", 1, m, &spent), 1);
    assert_int_equal(ng_regex_match(&re, "aaaaa", 1, m, &spent), 0);
    spent = NG_REGEX_CPU_BUDGET + 1;
    assert_int_equal(ng_regex_match(&re, "a", 1, m, &spent), -1);
    ng_regex_release(&re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_sum_counts_overlap_twice),
        cmocka_unit_test(test_span_is_first_start_to_last_end),
        cmocka_unit_test(test_busy_union_per_device),
        cmocka_unit_test(test_busy_says_when_out_of_order),
        cmocka_unit_test(test_exposed_comm),
        cmocka_unit_test(test_metric_table),
        cmocka_unit_test(test_schemas_list_the_table),
        cmocka_unit_test(test_repeated_steps_are_occurrences),
        cmocka_unit_test(test_distinct_texts_and_group_keys),
        cmocka_unit_test(test_outermost_boundary_and_thread),
        cmocka_unit_test(test_span_and_busy_per_epoch),
        cmocka_unit_test(test_nested_ranges),
        cmocka_unit_test(test_no_nested_ranges),
        cmocka_unit_test(test_nested_edges),
        cmocka_unit_test(test_warmup_empty_and_unclosed),
        cmocka_unit_test(test_overlapping_ranges_linear),
        cmocka_unit_test(test_rows_in_any_order),
        cmocka_unit_test(test_call_order_does_not_matter),
        cmocka_unit_test(test_cached_calls_match_every_range),
        cmocka_unit_test(test_pattern_budget),
    };
    return cmocka_run_group_tests_name("project", tests, NULL, NULL);
}
