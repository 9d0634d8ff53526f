/* Fuzz target: the SQLite export reader (ng_source_sqlite_read) on arbitrary
 * database bytes.  The bytes go to a file in a private temporary directory
 * (SQLite reads files, not memory), which is then read in total mode and in
 * NVTX mode; the NVTX settings (pattern, metric, warm-up epochs) come from
 * the input's size so one corpus covers them all, and so does the reader:
 * the page reader (ng_btree, which a mutated table page reaches straight
 * after SQLite's open) or, for one size in two, SQL only.  Every input must
 * load into a consistent profile or be refused with a message. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "run/ng_read.h"
#include "core/ng_nvtx.h"
#include "util/ng_regex.h"
#include "sources/ng_source.h"
#include "sources/sqlite/ng_source_sqlite.h"
#include "util/ng_util.h"

static const char *db_path;
static struct ng_regex auto_re, plain_re;

static void set_up(void)
{
    /* the gate's --epoch-range auto, and a pattern without a group (the
     * whole range text is then the epoch key) */
    struct ng_err err;
    NG_FUZZ_CHECK(ng_regex_compile(&auto_re, ng_read_auto_epoch_pattern, REG_ICASE,
                                   NG_NVTX_TEXT_MAX, "--epoch-range", &err) == 0);
    NG_FUZZ_CHECK(ng_regex_compile(&plain_re, "^epoch", REG_ICASE, NG_NVTX_TEXT_MAX,
                                   "--epoch-range", &err) == 0);
}

static void read_once(const struct ng_source_opts *opts)
{
    struct ng_profile p;
    struct ng_err err;

    ng_profile_init(&p, db_path);
    err.msg[0] = '\0';
    ng_fuzz_check_load(ng_source_sqlite_read(&p, db_path, "fuzz.sqlite", opts, &err), &p, &err, opts->epoch_re != NULL);
    ng_profile_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db_path)
        set_up();
    db_path = ng_fuzz_scratch("sqlite", "fuzz.sqlite", data, size);

    /* total mode: the default work and metric, or every kind and gpu-busy */
    struct ng_source_opts total = {
        .nsys_timeout = 1,
        .work = size & 8 ? NG_WORK_ALL : 0,
        .metric = size & 16 ? NG_METRIC_GPU_BUSY : NG_METRIC_KERNEL_SUM,
        .sql_only = (size >> 5) & 1,
    };
    read_once(&total);

    struct ng_source_opts nvtx = {
        .nsys_timeout = 1,
        .epoch_re = size & 4 ? &plain_re : &auto_re,
        .epoch_pattern = size & 4 ? "^epoch" : "auto",
        .metric = (enum ng_metric)(size % ng_n_metrics),
        .work = size & 8 ? NG_WORK_ALL : 0,
        .skip_epochs = (size >> 1) & 1,
        .sql_only = (size >> 5) & 1,
    };
    read_once(&nvtx);
    return 0;
}
