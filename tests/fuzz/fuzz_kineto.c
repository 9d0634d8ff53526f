/* Fuzz target: the Chrome-trace (torch.profiler / Kineto) reader on
 * arbitrary bytes, plain or gzip (the bytes go to a file in a private
 * temporary directory: the reader streams files).  Each input is read in
 * total mode (the default work and kernel-sum, or every kind and
 * gpu-busy) and in NVTX mode (ProfilerStep#N through --epoch-range auto,
 * or a pattern on cpu_op names, with or without per-kernel cells); which
 * comes from the input's size, so one corpus covers them all.  Every
 * input must load into a consistent profile or be refused with a
 * message. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "core/ng_nvtx.h"
#include "sources/ng_source.h"
#include "sources/kineto/ng_source_kineto.h"
#include "util/ng_regex.h"

static const char *trace_path;
static struct ng_regex op_re;

static void set_up(void)
{
    struct ng_err err;

    NG_FUZZ_CHECK(ng_regex_compile(&op_re, "^(aten::mm|ProfilerStep#[0-9]+)$", 0,
                                   NG_NVTX_TEXT_MAX, "--epoch-range", &err) == 0);
}

static void read_once(const struct ng_source_opts *opts)
{
    struct ng_profile p;
    struct ng_err err;

    ng_profile_init(&p, trace_path);
    err.msg[0] = '\0';
    if (ng_source_kineto.load(&p, trace_path, opts, &err) == 0) {
        ng_fuzz_check_profile(&p);
        NG_FUZZ_CHECK(p.format == NG_FORMAT_UNKNOWN || p.format == NG_FORMAT_KINETO);
        NG_FUZZ_CHECK(!opts->epoch_re || (p.nvtx && p.n_epochs > 0));
        NG_FUZZ_CHECK(p.rank >= -1 && p.world_size >= -1 && p.world_size != 0);
    } else {
        ng_fuzz_check_error(&err);
    }
    ng_profile_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!trace_path)
        set_up();
    trace_path = ng_fuzz_scratch("kineto", "fuzz.json", data, size);

    struct ng_source_opts total = {
        .work = size & 8 ? NG_WORK_ALL : 0,
        .metric = size & 16 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
    };
    read_once(&total);

    /* "auto": the reader takes ProfilerStep#N for it (the pattern given
     * is the gate's compiled one, unused) */
    struct ng_source_opts nvtx = {
        .epoch_re = &op_re,
        .epoch_pattern = size & 4 ? "^(aten::mm|ProfilerStep#[0-9]+)$" : "auto",
        .metric = (enum ng_metric)(size % ng_n_metrics),
        .work = size & 8 ? NG_WORK_ALL : 0,
        .skip_epochs = (size >> 1) & 1,
        .item_samples = (size >> 5) & 1,
        .base_names = (size >> 6) & 1,
    };
    read_once(&nvtx);
    return 0;
}
