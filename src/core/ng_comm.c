#include "core/ng_comm.h"

#include <string.h>

#include "util/ng_util.h"

/* Names are matched anywhere (a demangled name starts with its return
 * type, "void ncclDevKernel_..."), after a character that cannot be part
 * of an identifier, so "myncclKernel_x" is not NCCL's. */
#define WORD "(^|[^A-Za-z0-9_])"

const struct ng_comm_pattern ng_comm_patterns[] = {
    { "NCCL", WORD "nccl(Dev)?Kernel_", "void ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)" },
    { "RCCL", WORD "rccl[A-Za-z0-9_]*Kernel", "rcclGenericKernel" },
    { "NVSHMEM", WORD "nvshmemi?_[A-Za-z0-9_]+", "nvshmemi_transfer_kernel" },
    { "MSCCL++", WORD "mscclpp", "mscclpp::allreduce8" },
    { "vLLM custom all-reduce", WORD "cross_device_reduce_[12]stage", "void vllm::cross_device_reduce_1stage<float, 8>(...)" },
    { "PyTorch symmetric memory, TensorRT-LLM",
      "([Oo]ne_?[Ss]hot|[Tt]wo_?[Ss]hot|multimem)_?[Aa]ll_?[Rr]educe",
      "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float>(...)" },
    { "Transformer Engine userbuffers", WORD "userbuffers_", "userbuffers_fp16_sum_inplace_gpu_rw" },
    { "DeepSpeed, Megatron and others", "([Aa]ll_?[Rr]educe|[Aa]ll_?[Gg]ather|[Rr]educe_?[Ss]catter)_?[Kk]ernel",
      "allreduce_kernel" },
};
const size_t ng_n_comm_patterns = sizeof ng_comm_patterns / sizeof ng_comm_patterns[0];

int ng_comm_init(struct ng_comm *c, const char *const *user, size_t n_user, struct ng_err *err)
{
    struct ng_buf all = NG_BUF_INIT;

    memset(c, 0, sizeof *c);
    if (n_user > NG_COMM_MAX)
        return ng_err_set(err, "at most %d --comm-kernels patterns", NG_COMM_MAX);
    for (size_t i = 0; i < ng_n_comm_patterns; i++)
        ng_buf_addf(&all, "%s(%s)", i ? "|" : "", ng_comm_patterns[i].ere);
    int ret = ng_regex_compile(&c->table, all.data, REG_NOSUB, NG_COMM_NAME_MAX, "the "
                               "communication kernel table", err);
    ng_buf_release(&all);
    for (size_t i = 0; ret == 0 && i < n_user; i++, c->n_user++)
        ret = ng_regex_compile(&c->user[i], user[i], REG_NOSUB, NG_COMM_NAME_MAX,
                               "--comm-kernels", err);
    if (ret < 0)
        ng_comm_release(c);
    return ret;
}

void ng_comm_release(struct ng_comm *c)
{
    ng_regex_release(&c->table);
    for (size_t i = 0; i < c->n_user; i++)
        ng_regex_release(&c->user[i]);
    memset(c, 0, sizeof *c);
}

int ng_comm_is(const struct ng_comm *c, const char *name, double *spent)
{
    if (!c || !c->table.compiled)
        return 0;
    int r = ng_regex_match(&c->table, name, 0, NULL, spent);
    for (size_t i = 0; r == 0 && i < c->n_user; i++)
        r = ng_regex_match(&c->user[i], name, 0, NULL, spent);
    return r;
}
