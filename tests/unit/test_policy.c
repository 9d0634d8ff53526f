/* Gate policy: the kernel filters on every kind of work item, the
 * absolute floor at its edge, the per-kernel rule (ratio, floor, and its U
 * test in NVTX mode), the stale-baseline rule, and the base-name rule on
 * real demangled names (from the shared nsys samples: PyTorch at::native
 * templates, cuDNN/cuBLAS, nvjet, flash-attn, NCCL, thrust/cub, cudf, with
 * nsys 2023.4's shortName for each). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_comm.h"
#include "core/ng_compare.h"
#include "core/ng_filter.h"
#include "reporters/ng_reporter.h"

static const struct {
    const char *demangled;
    const char *shortname;   /* what nsys wrote beside it */
} real_names[] = {
    { "void <unnamed>::elementwise_kernel_with_index<int, at::native::arange_cuda_out(const"
      " c10::Scalar &, const c10::Scalar &, const c10::Scalar &, at::Tensor &)::[lambda() ("
      "instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[la"
      "mbda(long) (instance 1)]>(T1, T2, function_traits<T2>::result_type *)",
      "elementwise_kernel_with_index" },
    { "void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<at::native::<unnamed>::Op"
      "aqueType<(unsigned int)2>, unsigned int, (int)1, (int)128, (int)1, (int)16, (int)8>("
      "char *, at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, at::native"
      "::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)",
      "CatArrayBatchedCopy_vectorized" },
    { "void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>(int,"
      " T2, const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
      "vectorized_layer_norm_kernel" },
    { "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
      "ncclDevKernel_SendRecv" },
    { "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN",
      "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN" },
    { "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64, (i"
      "nt)4, (bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)128, (int)128,"
      " (int)64, (int)4, cutlass::bfloat16_t>>, (bool)0, (bool)0, (bool)0, (bool)0, (bool)0"
      ", (bool)1, (bool)0, (bool)0>(flash::Flash_fwd_params)",
      "flash_fwd_kernel" },
    { "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<long, at::nati"
      "ve::func_wrapper_t<long, at::native::sum_functor<long, long, long>::operator ()(at::"
      "TensorIterator &)::[lambda(long, long) (instance 1)]>, unsigned int, long, (int)4, ("
      "int)4>>(T3)",
      "reduce_kernel" },
    { "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at:"
      ":TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (ins"
      "tance 4)]::operator ()() const::[lambda(long) (instance 1)], std::array<char *, (uns"
      "igned long)2>, (int)4, TrivialOffsetCalculator<(int)1, unsigned int>, TrivialOffsetC"
      "alculator<(int)1, unsigned int>, at::native::memory::LoadWithCast<(int)1>, at::nativ"
      "e::memory::StoreWithCast<(int)1>>(int, T1, T2, T4, T5, T6, T7)",
      "unrolled_elementwise_kernel" },
    { "void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, T2 *, int, "
      "long, long, long, long, bool)",
      "vectorized_gather_kernel" },
    { "void <unnamed>::softmax_warp_forward<float, float, float, (int)6, (bool)0, (bool)0>("
      "T2 *, const T1 *, int, int, int, const bool *, int, bool)",
      "softmax_warp_forward" },
    { "void gen_sequenced<curandStateXORWOW, double, int, &(double curand_uniform_double_no"
      "args<curandStateXORWOW>(curandStateXORWOW*, int)), rng_config<curandStateXORWOW, (cu"
      "randOrdering)101> >(curandStateXORWOW*, double*, unsigned long, unsigned long, int)",
      "gen_sequenced" },
    { "void cub::DeviceReduceSingleTileKernel<cub::DeviceReducePolicy<long, long, int, thru"
      "st::plus<long> >::Policy600, thrust::cuda_cub::transform_input_iterator_t<long, int "
      "const*, cudf::detail::bounds_checker<int> >, long*, int, thrust::plus<long>, long>(t"
      "hrust::cuda_cub::transform_input_iterator_t<long, int const*, cudf::detail::bounds_c"
      "hecker<int> >, long*, int, thrust::plus<long>, long)",
      "DeviceReduceSingleTileKernel" },
    { "kernVectorAdd(const float *, const float *, float *, int)",
      "kernVectorAdd" },
    { "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_alig"
      "na4_alignc4_execute_kernel__5x_cublas",
      "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas" },
    { "CudaCodeGen::kernel1(CudaCodeGen::Tensor<CudaCodeGen::__bfloat, (int)2, (int)2>, Cud"
      "aCodeGen::Tensor<float, (int)2, (int)2>, CudaCodeGen::Tensor<float, (int)2, (int)2>)",
      "kernel1" },
};

static void test_base_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof real_names / sizeof real_names[0]; i++) {
        struct ng_buf b = NG_BUF_INIT;
        ng_kernel_base_name(real_names[i].demangled, &b);
        assert_string_equal(b.data, real_names[i].shortname);
        ng_buf_release(&b);
    }
}

/* What the rule does at its edges: no parameter list, nested scopes,
 * nothing like a function (kept whole), unbalanced brackets. */
static void test_base_name_edges(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn" },
        { "kernel(int)", "kernel" },
        { "ns::k<(int)1>(float *)", "k" },
        { "void a::b<c<d>>::e<(int)2>(x<y>)", "e" },
        { "[CUDA memcpy Host-to-Device]", "[CUDA memcpy Host-to-Device]" },
        /* unclosed: no template list or parameter list to drop, only the type */
        { "void broken<(int)1(", "broken<(int)1(" },
        { "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ng_buf b = NG_BUF_INIT;
        ng_kernel_base_name(cases[i][0], &b);
        assert_string_equal(b.data ? b.data : "", cases[i][1]);
        ng_buf_release(&b);
    }
}

/* ---- the filters ---- */

static const struct {
    enum ng_work_kind kind;
    const char *name;
    int64_t ns;
} mixed[] = {
    { NG_WORK_KERNEL, "void at::native::reduce_kernel<(int)512>(T3)", 4000 },
    { NG_WORK_KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<"
                      "(unsigned long)4096>)", 3000 },
    { NG_WORK_GRAPH, "CUDA graph 3", 2000 },
    { NG_WORK_MEMCPY, "[CUDA memcpy Host-to-Device]", 700 },
    { NG_WORK_MEMCPY, "[CUDA memcpy Device-to-Host]", 200 },
    { NG_WORK_MEMSET, "[CUDA memset]", 100 },
};

static void mixed_profile(struct ng_profile *p, const char *path, int64_t scale_last)
{
    ng_profile_init(p, path);
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++)
        ng_profile_add_row(p, mixed[i].kind, mixed[i].name, strlen(mixed[i].name),
                           mixed[i].ns * (i + 1 == sizeof mixed / sizeof mixed[0]
                                          ? scale_last : 1), 10);
    assert_int_equal(ng_profile_finish(p, &(struct ng_err){ "" }), 0);
}

static int has_row(const struct ng_work_row *rows, size_t n, enum ng_work_kind kind)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == kind)
            return 1;
    return 0;
}

/* Every row of the communication table matches its example; compute
 * kernels and look-alikes do not; --comm-kernels adds to the table. */
static void test_comm_table(void **state)
{
    (void)state;
    struct ng_comm c;
    struct ng_err err;
    double cpu = 0;
    static const char *const user[] = { "^my_allreduce$" };
    static const char *const not_comm[] = {
        "void at::native::reduce_kernel<(int)512>(T3)", "ampere_sgemm_128x64_nn",
        "myncclKernel_x", "[CUDA memcpy Device-to-Device]", "my_allreduce_fused",
    };

    assert_int_equal(ng_comm_init(&c, user, 1, &err), 0);
    for (size_t i = 0; i < ng_n_comm_patterns; i++)
        assert_int_equal(ng_comm_is(&c, ng_comm_patterns[i].example, &cpu), 1);
    assert_int_equal(ng_comm_is(&c, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm *)",
                                &cpu), 1);
    assert_int_equal(ng_comm_is(&c, "my_allreduce", &cpu), 1);
    for (size_t i = 0; i < sizeof not_comm / sizeof not_comm[0]; i++)
        assert_int_equal(ng_comm_is(&c, not_comm[i], &cpu), 0);
    assert_int_equal(ng_comm_is(NULL, "ncclDevKernel_SendRecv", &cpu), 0);
    ng_comm_release(&c);
    static const char *const bad[] = { "(" };
    assert_int_equal(ng_comm_init(&c, bad, 1, &err), -1);
    assert_non_null(strstr(err.msg, "--comm-kernels='('"));
}

static void test_filter_every_kind(void **state)
{
    const char *inc[] = { "^\\[CUDA mem", "graph" }, *exc[] = { "Device-to-Host" };
    struct ng_filter f;
    struct ng_filter_account a = { { 0 }, { 0 }, 0, 0 };
    struct ng_profile p;
    struct ng_err err;
    (void)state;

    assert_int_equal(ng_filter_init(&f, inc, 2, exc, 1, &err), 0);
    mixed_profile(&p, "p", 1);
    assert_int_equal(ng_profile_filter(&p, &f, &a, &err), 0);
    /* memcpy H2D, memset and the graph are in; both kernels and D2H out */
    assert_int_equal(p.n_rows, 3);
    assert_true(has_row(p.rows, p.n_rows, NG_WORK_GRAPH));
    assert_true(has_row(p.rows, p.n_rows, NG_WORK_MEMCPY));
    assert_true(has_row(p.rows, p.n_rows, NG_WORK_MEMSET));
    assert_false(has_row(p.rows, p.n_rows, NG_WORK_KERNEL));
    assert_int_equal(p.total_ns, 2000 + 700 + 100);
    assert_int_equal(p.excluded_ns, 4000 + 3000 + 200);
    assert_int_equal(p.n_excluded, 3);
    /* each pattern's hits: what it matched, selected or not */
    assert_int_equal(p.include_hits[0], 3);   /* both memcpys, the memset */
    assert_int_equal(p.include_hits[1], 1);
    assert_int_equal(p.exclude_hits[0], 1);
    ng_profile_release(&p);
    ng_filter_release(&f);

    /* case-sensitive, and a bad pattern is refused naming it */
    const char *upper[] = { "^NCCL" }, *bad[] = { "gemm(" };
    assert_int_equal(ng_filter_init(&f, upper, 1, NULL, 0, &err), 0);
    assert_int_equal(ng_filter_selects(&f, mixed[1].name, &a), 0);
    ng_filter_release(&f);
    assert_int_equal(ng_filter_init(&f, bad, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "gemm("));
}

/* ---- the decision ---- */

static struct ng_compare_opts opts(double thr)
{
    struct ng_compare_opts o = { .name = "gate", .threshold = thr, .epochs = 1,
                                 .alpha = 0.05, .top = 5 };
    o.policy.kernel_min_delta_ms = -1;
    return o;
}

/* Total mode, one epoch: kernels "big" and "small" with these ns. */
static void two_kernels(struct ng_profile *p, const char *path, int64_t big, int64_t small)
{
    ng_profile_init(p, path);
    ng_profile_add_row(p, NG_WORK_KERNEL, "big", 3, big, 10);
    ng_profile_add_row(p, NG_WORK_KERNEL, "small", 5, small, 10);
    assert_int_equal(ng_profile_finish(p, &(struct ng_err){ "" }), 0);
}

static const struct ng_kernel_delta *item(const struct ng_verdict *v, const char *name)
{
    for (size_t i = 0; i < v->n_kernels; i++)
        if (strcmp(v->kernels[i].name, name) == 0)
            return &v->kernels[i];
    fail_msg("no item %s", name);
    return NULL;
}

static enum ng_outcome decide_total(int64_t bb, int64_t bs, int64_t cb, int64_t cs,
                                    const struct ng_compare_opts *o, int *under_floor)
{
    struct ng_profile b, c;
    struct ng_verdict v;
    two_kernels(&b, "b", bb, bs);
    two_kernels(&c, "c", cb, cs);
    ng_compare(&v, &b, 1, &c, 1, o);
    enum ng_outcome out = v.outcome;
    if (under_floor)
        *under_floor = v.under_floor;
    ng_verdict_release(&v);
    ng_profile_release(&b);
    ng_profile_release(&c);
    return out;
}

#define MS 1000000LL

static void test_floor_boundary(void **state)
{
    struct ng_compare_opts o = opts(1.2);
    int under = 0;
    (void)state;
    /* 100 -> 150 ms: 1.5x, +50 ms */
    assert_int_equal(decide_total(100 * MS, 0, 150 * MS, 0, &o, &under), NG_OUTCOME_FAIL);
    o.policy.min_delta_ms = 50;
    assert_int_equal(decide_total(100 * MS, 0, 150 * MS, 0, &o, &under), NG_OUTCOME_PASS);
    assert_true(under);   /* exactly at the floor passes */
    assert_int_equal(decide_total(100 * MS, 0, 150 * MS + 1000, 0, &o, &under),
                     NG_OUTCOME_FAIL);
    assert_false(under);
    /* within the threshold the floor is not what passed it */
    assert_int_equal(decide_total(100 * MS, 0, 110 * MS, 0, &o, &under), NG_OUTCOME_PASS);
    assert_false(under);
}

static void test_kernel_rule_total(void **state)
{
    struct ng_compare_opts o = opts(1.2);
    (void)state;
    /* the total grows 1.0099x: within 1.2; "small" doubles, +10 ms */
    assert_int_equal(decide_total(1000 * MS, 10 * MS, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_PASS);   /* per-kernel gates off */
    o.policy.kernel_threshold = 1.5;
    /* the default floor, 1% of the 1010 ms baseline epoch, is over +10 ms */
    assert_int_equal(decide_total(1000 * MS, 10 * MS, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_PASS);
    o.policy.kernel_min_delta_ms = 5;
    assert_int_equal(decide_total(1000 * MS, 10 * MS, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_FAIL);
    o.policy.kernel_min_delta_ms = 10;   /* exactly at the floor passes */
    assert_int_equal(decide_total(1000 * MS, 10 * MS, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_PASS);
    o.policy.kernel_min_delta_ms = 5;
    o.policy.kernel_threshold = 2;       /* exactly at the kernel threshold passes */
    assert_int_equal(decide_total(1000 * MS, 10 * MS, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_PASS);
    /* a kernel that is new counts as grown past any ratio */
    o.policy.kernel_threshold = 1.5;
    assert_int_equal(decide_total(1000 * MS, 0, 1000 * MS, 20 * MS, &o, NULL),
                     NG_OUTCOME_FAIL);

    /* the item's verdict and ratio in the verdict */
    struct ng_profile b, c;
    struct ng_verdict v;
    two_kernels(&b, "b", 1000 * MS, 10 * MS);
    two_kernels(&c, "c", 1000 * MS, 20 * MS);
    ng_compare(&v, &b, 1, &c, 1, &o);
    assert_int_equal(v.outcome, NG_OUTCOME_FAIL);
    assert_int_equal(v.total_outcome, NG_OUTCOME_PASS);
    assert_int_equal(v.n_items_failed, 1);
    assert_int_equal(item(&v, "small")->verdict, NG_OUTCOME_FAIL);
    assert_true(item(&v, "small")->ratio == 2);
    assert_false(item(&v, "small")->has_p);   /* one run a side: nothing to test */
    assert_int_equal(item(&v, "big")->verdict, NG_OUTCOME_PASS);
    assert_int_equal(ng_verdict_exit_code(&v), 1);
    ng_verdict_release(&v);
    ng_profile_release(&b);
    ng_profile_release(&c);
}

/* NVTX mode: epochs of "big" (constant) and "small" with these times. */
static void nvtx_profile(struct ng_profile *p, const char *path, const double *small_ms,
                         size_t n)
{
    uint32_t ep[16];
    int64_t big[16], small[16], total_small = 0;
    ng_profile_init(p, path);
    for (size_t i = 0; i < n; i++) {
        ep[i] = (uint32_t)i;
        big[i] = 100 * MS;
        small[i] = (int64_t)(small_ms[i] * MS);
        total_small += small[i];
    }
    ng_profile_add_row(p, NG_WORK_KERNEL, "big", 3, 100 * MS * (int64_t)n, (int64_t)n);
    ng_profile_add_row(p, NG_WORK_KERNEL, "small", 5, total_small, (int64_t)n);
    ng_profile_add_cells(p, NG_WORK_KERNEL, "big", ep, big, n);
    ng_profile_add_cells(p, NG_WORK_KERNEL, "small", ep, small, n);
    for (size_t i = 0; i < n; i++)
        ng_profile_add_epoch(p, "epoch", (int64_t)i * 1000 * MS, big[i] + small[i], 2);
    p->nvtx = 1;
    assert_int_equal(ng_profile_finish(p, &(struct ng_err){ "" }), 0);
}

static const struct ng_kernel_delta *nvtx_item(struct ng_verdict *v, const double *bs,
                                               const double *cs, size_t n,
                                               struct ng_profile pr[2])
{
    struct ng_compare_opts o = opts(1.2);
    o.nvtx = 1;
    o.policy.kernel_threshold = 1.3;
    o.policy.kernel_min_delta_ms = 1;
    nvtx_profile(&pr[0], "b", bs, n);
    nvtx_profile(&pr[1], "c", cs, n);
    ng_compare(v, &pr[0], 1, &pr[1], 1, &o);
    return item(v, "small");
}

static void test_kernel_rule_u_test(void **state)
{
    /* steady: every current epoch is slower; the total stays within 1.2x */
    static const double b1[] = { 10, 11, 9, 10, 12, 10 }, c1[] = { 20, 19, 21, 22, 20, 21 };
    /* noisy: the mean grows 1.5x, but the epochs overlap: not significant */
    static const double b2[] = { 5, 30, 10, 25, 8, 18 }, c2[] = { 4, 45, 9, 40, 7, 39 };
    struct ng_profile pr[2];
    struct ng_verdict v;
    (void)state;

    const struct ng_kernel_delta *k = nvtx_item(&v, b1, c1, 6, pr);
    assert_int_equal(v.total_outcome, NG_OUTCOME_PASS);
    assert_int_equal(k->verdict, NG_OUTCOME_FAIL);
    assert_true(k->has_p && k->p_value < 0.05);
    assert_int_equal(v.outcome, NG_OUTCOME_FAIL);
    ng_verdict_release(&v);
    ng_profile_release(&pr[0]);
    ng_profile_release(&pr[1]);

    k = nvtx_item(&v, b2, c2, 6, pr);
    assert_true(k->ratio > 1.3);
    assert_true(k->has_p && k->p_value > 0.05);
    assert_int_equal(k->verdict, NG_OUTCOME_INCONCLUSIVE);
    assert_int_equal(v.outcome, NG_OUTCOME_INCONCLUSIVE);
    assert_int_equal(ng_verdict_exit_code(&v), 0);
    v.fail_inconclusive = 1;
    assert_int_equal(ng_verdict_exit_code(&v), 1);
    ng_verdict_release(&v);
    ng_profile_release(&pr[0]);
    ng_profile_release(&pr[1]);
}

static int has_stale_warning(const struct ng_verdict *v)
{
    for (size_t i = 0; i < v->n_warnings; i++)
        if (strncmp(v->warnings[i], NG_STALE_WARNING, strlen(NG_STALE_WARNING)) == 0)
            return 1;
    return 0;
}

static void test_stale_rule(void **state)
{
    struct ng_compare_opts o = opts(1.2);
    struct ng_profile b, c;
    struct ng_verdict v;
    (void)state;
    /* {baseline, current} ms, and whether the baseline looks stale: faster
     * past 1/threshold (1/1.2 = 0.8333x) only */
    static const struct { int64_t b, c; int stale; } cases[] = {
        { 120, 100, 0 },   /* exactly 1/threshold: not stale */
        { 121, 100, 1 },
        { 100, 90, 0 },
        { 300, 100, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int foi = 0; foi < 2; foi++) {
            o.policy.fail_on_improvement = foi;
            two_kernels(&b, "b", cases[i].b * MS, 0);
            two_kernels(&c, "c", cases[i].c * MS, 0);
            ng_compare(&v, &b, 1, &c, 1, &o);
            assert_int_equal(v.outcome, NG_OUTCOME_PASS);   /* the verdict never changes */
            assert_int_equal(v.stale_baseline, cases[i].stale);
            assert_int_equal(has_stale_warning(&v), cases[i].stale);
            assert_int_equal(ng_verdict_exit_code(&v), cases[i].stale && foi);
            ng_verdict_release(&v);
            ng_profile_release(&b);
            ng_profile_release(&c);
        }
    }
}

/* The attribution keeps what it shows as it goes: with 300 items, the
 * first --top are the largest contributions (ties by name), then with
 * per-kernel gates the busiest and every flagged one are there too, each
 * once, in contribution order. */
static void test_kept_items(void **state)
{
    struct ng_profile b, c;
    struct ng_verdict v;
    struct ng_compare_opts o = opts(1000);
    char name[32];
    (void)state;
    ng_profile_init(&b, "b");
    ng_profile_init(&c, "c");
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "k%03d", i);
        int64_t base = 1000 * MS + (int64_t)(i % 7) * MS, grow = (int64_t)((i * 37) % 101) * MS;
        ng_profile_add_row(&b, NG_WORK_KERNEL, name, strlen(name), base, 10);
        ng_profile_add_row(&c, NG_WORK_KERNEL, name, strlen(name), base + grow, 10);
    }
    /* the busiest item, with no change; and a small one that doubles */
    ng_profile_add_row(&b, NG_WORK_KERNEL, "busy", 4, 90000 * MS, 10);
    ng_profile_add_row(&c, NG_WORK_KERNEL, "busy", 4, 90000 * MS, 10);
    ng_profile_add_row(&b, NG_WORK_KERNEL, "tiny", 4, 10 * MS, 10);
    ng_profile_add_row(&c, NG_WORK_KERNEL, "tiny", 4, 30 * MS, 10);
    assert_int_equal(ng_profile_finish(&b, &(struct ng_err){ "" }), 0);
    assert_int_equal(ng_profile_finish(&c, &(struct ng_err){ "" }), 0);
    o.top = 3;
    ng_compare(&v, &b, 1, &c, 1, &o);
    /* grow = (i*37)%101 ms is 100 at i = 30, 131, 232 (a tie: by name) */
    assert_int_equal(v.n_top, 3);
    assert_int_equal(v.n_kernels, 3);
    assert_string_equal(v.kernels[0].name, "k030");
    assert_string_equal(v.kernels[1].name, "k131");
    assert_string_equal(v.kernels[2].name, "k232");
    ng_verdict_release(&v);

    o.policy.kernel_threshold = 1.5;
    o.policy.kernel_min_delta_ms = 1;
    ng_compare(&v, &b, 1, &c, 1, &o);
    int busy = 0, tiny = 0;
    for (size_t i = 0; i < v.n_kernels; i++) {
        busy += strcmp(v.kernels[i].name, "busy") == 0;
        tiny += strcmp(v.kernels[i].name, "tiny") == 0;
        if (i > 0)   /* contribution order: the deltas fall */
            assert_true(v.kernels[i].delta_ms_per_epoch <= v.kernels[i - 1].delta_ms_per_epoch);
    }
    assert_int_equal(busy, 1);   /* among the top 3 by current time */
    assert_int_equal(tiny, 1);   /* failed its gate: 3x */
    assert_int_equal(v.n_items_failed, 1);
    assert_string_equal(v.kernels[0].name, "k030");
    ng_verdict_release(&v);
    ng_profile_release(&b);
    ng_profile_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_names),
        cmocka_unit_test(test_base_name_edges),
        cmocka_unit_test(test_filter_every_kind),
        cmocka_unit_test(test_comm_table),
        cmocka_unit_test(test_floor_boundary),
        cmocka_unit_test(test_kernel_rule_total),
        cmocka_unit_test(test_kernel_rule_u_test),
        cmocka_unit_test(test_stale_rule),
        cmocka_unit_test(test_kept_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
