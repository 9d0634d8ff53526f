/* Fuzz target: the saved `nsys stats` text parser (ng_nsys_stats_parse_stream),
 * fed from memory, once with the default --work and once counting every
 * kind (memory summaries become rows).  Every input must either load into a
 * consistent profile or be refused with a clean one-line message. */
#include <stdio.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "sources/ng_source.h"
#include "sources/nsys_stats/ng_source_nsys_stats.h"

static void parse(const uint8_t *data, size_t size, unsigned work)
{
    struct ng_source_opts opts = { .work = work };
    struct ng_profile p;
    struct ng_err err;
    FILE *f = fmemopen((void *)data, size, "r");

    NG_FUZZ_CHECK(f != NULL);
    ng_profile_init(&p, "fuzz.csv");
    err.msg[0] = '\0';
    if (ng_nsys_stats_parse_stream(&p, f, "fuzz.csv", &opts, &err) == 0)
        ng_fuzz_check_profile(&p);
    else
        ng_fuzz_check_error(&err);
    fclose(f);
    ng_profile_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;   /* fmemopen refuses an empty buffer; the gate refuses empty files first */
    parse(data, size, NG_WORK_DEFAULT);
    parse(data, size, NG_WORK_ALL);
    return 0;
}
