/* Fuzz target: the saved `nsys stats` text parser (ng_csv_parse_stream),
 * fed from memory.  Every input must either load into a consistent
 * profile or be refused with a clean one-line message. */
#include <stdio.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "ng_source_kind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ng_profile p;
    struct ng_err err;
    FILE *f;

    if (size == 0)
        return 0;   /* fmemopen refuses an empty buffer; the gate refuses empty files first */
    f = fmemopen((void *)data, size, "r");
    NG_FUZZ_CHECK(f != NULL);
    ng_profile_init(&p, "fuzz.csv");
    err.msg[0] = '\0';
    if (ng_csv_parse_stream(&p, f, "fuzz.csv", &err) == 0)
        ng_fuzz_check_profile(&p);
    else
        ng_fuzz_check_error(&err);
    fclose(f);
    ng_profile_release(&p);
    return 0;
}
