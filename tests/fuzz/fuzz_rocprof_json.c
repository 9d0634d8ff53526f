/* Fuzz target: the rocprofv3 JSON reader on arbitrary bytes, plain or
 * gzip (the bytes go to a file in a private temporary directory: the
 * reader streams files).  Each input is read in total mode (the default
 * work, or every kind) and with ROCTx epochs ("step N" through
 * --epoch-range auto, or any text, with or without per-kernel cells);
 * which comes from the input's size, so one corpus covers them all.
 * Every input must load into a consistent profile or be refused with a
 * message. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "core/ng_nvtx.h"
#include "sources/ng_source.h"
#include "sources/rocprof/ng_source_rocprof.h"
#include "util/ng_regex.h"

static char dir[4096];
static char path[4096 + 16];
static struct ng_regex any_re;

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

static void set_up(void)
{
    const char *base = getenv("TMPDIR");
    struct ng_err err;

    snprintf(dir, sizeof dir, "%s/ng-fuzz-rocprof.XXXXXX", base && *base ? base : "/tmp");
    NG_FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/1_results.json", dir);
    atexit(remove_dir);
    NG_FUZZ_CHECK(ng_regex_compile(&any_re, "^(step [0-9]+|.*)$", 0, NG_NVTX_TEXT_MAX,
                                   "--epoch-range", &err) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        set_up();
    ng_fuzz_write(path, data, size);

    struct ng_source_opts total = {
        .work = size & 8 ? NG_WORK_ALL : 0,
        .metric = size & 16 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
        .base_names = (size >> 6) & 1,
    };
    ng_fuzz_load(&ng_source_rocprof_json, path, &total);

    struct ng_source_opts epochs = {
        .epoch_re = &any_re,
        .epoch_pattern = size & 4 ? "^(step [0-9]+|.*)$" : "auto",
        .metric = (enum ng_metric)(size % ng_n_metrics),
        .work = size & 8 ? NG_WORK_ALL : 0,
        .skip_epochs = (size >> 1) & 1,
        .item_samples = (size >> 5) & 1,
        .base_names = (size >> 6) & 1,
        .list_ranges = (size >> 7) & 1,
    };
    ng_fuzz_load(&ng_source_rocprof_json, path, &epochs);
    return 0;
}
