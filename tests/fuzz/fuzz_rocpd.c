/* Fuzz target: the rocpd reader (ng_rocpd_load) on arbitrary database
 * bytes.  The bytes go to a file in a private temporary directory (SQLite
 * reads files, not memory), which is claimed, then read in total mode and
 * with ROCTx steps; the settings come from the input's size so one corpus
 * covers them all: the default work or every kind, the page reader or SQL
 * only, a pattern of the reader's or one without a group.  Every input
 * must load into a consistent profile or be refused with a message. */
#include "fuzz.h"
#include "fuzz_check.h"
#include "core/ng_nvtx.h"
#include "sources/ng_source.h"
#include "sources/rocprof/ng_rocpd.h"
#include "sources/rocprof/ng_source_rocprof.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

static const char *db_path;
static struct ng_regex step_re, plain_re;

static void set_up(void)
{
    struct ng_err err;
    NG_FUZZ_CHECK(ng_regex_compile(&step_re, "^step ([0-9]+)$", REG_ICASE, NG_NVTX_TEXT_MAX,
                                   "--epoch-range", &err) == 0);
    NG_FUZZ_CHECK(ng_regex_compile(&plain_re, "^step", REG_ICASE, NG_NVTX_TEXT_MAX,
                                   "--epoch-range", &err) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db_path)
        set_up();
    db_path = ng_fuzz_scratch("rocpd", "fuzz.db", data, size);
    (void)ng_rocpd_claim(db_path);

    struct ng_source_opts total = {
        .work = size & 8 ? NG_WORK_ALL : 0,
        .metric = size & 16 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
        .sql_only = (size >> 5) & 1,
    };
    ng_fuzz_load(&ng_source_rocprof_rocpd, db_path, &total);

    struct ng_source_opts steps = {
        .epoch_re = size & 4 ? &plain_re : &step_re,
        .epoch_pattern = size & 4 ? "^step" : "^step ([0-9]+)$",
        .metric = (enum ng_metric)(size % ng_n_metrics),
        .work = size & 8 ? NG_WORK_ALL : 0,
        .skip_epochs = (size >> 1) & 1,
        .sql_only = (size >> 5) & 1,
    };
    ng_fuzz_load(&ng_source_rocprof_rocpd, db_path, &steps);
    return 0;
}
