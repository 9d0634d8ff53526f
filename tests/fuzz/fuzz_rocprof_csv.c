/* Fuzz target: the rocprofv3 CSV reader on arbitrary bytes, as one of
 * its four files (kernel_trace, memory_copy_trace, marker_api_trace,
 * hip_api_trace: chosen by the input's size) given alone, and as the
 * kernel_trace.csv of a directory beside fixed marker and HIP files (so
 * the rows meet ranges and launch calls).  Read in total mode and with
 * ROCTx epochs; every input must load into a consistent profile or be
 * refused with a message (naming the line). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "core/ng_nvtx.h"
#include "sources/ng_source.h"
#include "sources/rocprof/ng_source_rocprof.h"
#include "util/ng_regex.h"

static const char *const tables[] = {
    "kernel_trace.csv", "memory_copy_trace.csv", "marker_api_trace.csv", "hip_api_trace.csv",
};

static char dir[4096], run[4096 + 8];
static char paths[4][4096 + 64], run_kernels[4096 + 64], run_markers[4096 + 64],
    run_calls[4096 + 64];
static struct ng_regex step_re;

static void remove_all(void)
{
    for (int i = 0; i < 4; i++)
        unlink(paths[i]);
    unlink(run_kernels);
    unlink(run_markers);
    unlink(run_calls);
    rmdir(run);
    rmdir(dir);
}

static void set_up(void)
{
    const char *base = getenv("TMPDIR");
    struct ng_err err;
    static const char markers[] =
        "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
        "\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"MARKER_CORE_RANGE_API\",\"step 0\",7,7,1,0,1000\n"
        "\"MARKER_CORE_RANGE_API\",\"step 1\",7,7,2,1000,2000\n";
    static const char calls[] =
        "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
        "\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",7,7,3,10,20\n"
        "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",7,7,4,1100,1120\n";

    snprintf(dir, sizeof dir, "%s/ng-fuzz-rocprof-csv.XXXXXX", base && *base ? base : "/tmp");
    NG_FUZZ_CHECK(mkdtemp(dir) != NULL);
    for (int i = 0; i < 4; i++)
        snprintf(paths[i], sizeof paths[i], "%s/7_%s", dir, tables[i]);
    snprintf(run, sizeof run, "%s/run", dir);
    NG_FUZZ_CHECK(mkdir(run, 0700) == 0);
    snprintf(run_kernels, sizeof run_kernels, "%s/7_kernel_trace.csv", run);
    snprintf(run_markers, sizeof run_markers, "%s/7_marker_api_trace.csv", run);
    snprintf(run_calls, sizeof run_calls, "%s/7_hip_api_trace.csv", run);
    ng_fuzz_write(run_markers, markers, sizeof markers - 1);
    ng_fuzz_write(run_calls, calls, sizeof calls - 1);
    atexit(remove_all);
    NG_FUZZ_CHECK(ng_regex_compile(&step_re, "^step [0-9]+$", 0, NG_NVTX_TEXT_MAX,
                                   "--epoch-range", &err) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        set_up();
    const char *one = paths[size % 4];
    ng_fuzz_write(one, data, size);
    ng_fuzz_write(run_kernels, data, size);

    struct ng_source_opts total = {
        .work = size & 8 ? NG_WORK_ALL : 0,
        .metric = size & 16 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
    };
    struct ng_source_opts epochs = {
        .epoch_re = &step_re,
        .epoch_pattern = size & 4 ? "^step [0-9]+$" : "auto",
        .metric = (enum ng_metric)(size % ng_n_metrics),
        .work = size & 8 ? NG_WORK_ALL : 0,
        .item_samples = (size >> 5) & 1,
        .list_ranges = (size >> 6) & 1,
    };
    ng_fuzz_load(&ng_source_rocprof_csv, one, &total);
    ng_fuzz_load(&ng_source_rocprof_csv, one, &epochs);
    ng_fuzz_load(&ng_source_rocprof_csv, run, &total);
    ng_fuzz_load(&ng_source_rocprof_csv, run, &epochs);
    unlink(one);
    return 0;
}
