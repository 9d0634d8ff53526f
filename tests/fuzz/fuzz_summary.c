/* Fuzz target: the summary reader on arbitrary bytes.  An input without a
 * checksum member gets the right one appended, so mutations reach the
 * parser past the checksum; one with it is read as it is (the checksum
 * and cut-short paths).  It is read with the reading options the input
 * says it was made with (NVTX mode, cells, a --kernels gemm filter), so
 * mutations reach the profile, except for one size in seven, whose mode
 * is the other one (the refusal).  Every input must
 * load into a consistent profile, which written again and read back gives
 * the same bytes, or be refused with a message. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "core/ng_filter.h"
#include "sources/summary/ng_summary_file.h"
#include "util/ng_digest.h"
#include "util/ng_regex.h"
#include "util/ng_util.h"

#define KEY ",\"checksum\":\"xxh3_128:"

static struct ng_filter gemm;
static const struct ng_regex any_re;

static void set_up(void)
{
    static const char *const kernels[] = { "gemm" };
    struct ng_err err;
    NG_FUZZ_CHECK(ng_filter_init(&gemm, kernels, 1, NULL, 0, &err) == 0);
}

static void read_and_rewrite(const struct ng_buf *text, const struct ng_source_opts *o)
{
    struct ng_profile p, q;
    struct ng_err err;

    ng_profile_init(&p, "fuzz.summary.json");
    err.msg[0] = '\0';
    if (ng_summary_file_read(&p, text->data, text->len, o, &err) < 0) {
        ng_fuzz_check_error(&err);
        ng_profile_release(&p);
        return;
    }
    ng_fuzz_check_profile(&p);
    NG_FUZZ_CHECK(p.origin != NULL);
    struct ng_buf once = NG_BUF_INIT, twice = NG_BUF_INIT;
    ng_summary_file_write(&p, o, p.origin, p.listing, &once);
    ng_profile_init(&q, "again.summary.json");
    NG_FUZZ_CHECK(ng_summary_file_read(&q, once.data, once.len, o, &err) == 0);
    ng_summary_file_write(&q, o, q.origin, q.listing, &twice);
    NG_FUZZ_CHECK(once.len == twice.len && memcmp(once.data, twice.data, once.len) == 0);
    ng_buf_release(&once);
    ng_buf_release(&twice);
    ng_profile_release(&q);
    ng_profile_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ng_buf text = NG_BUF_INIT;
    char hex[NG_DIGEST_HEX + 1];

    if (!gemm.n_include)
        set_up();
    ng_buf_add(&text, data, size);
    if (!memmem(data, size, KEY, sizeof KEY - 1)) {
        ng_digest_bytes(data, size, hex);
        ng_buf_addf(&text, KEY "%s\"}\n", hex);
    }
    int nvtx = memmem(data, size, "\"mode\":\"nvtx\"", 13) != NULL;
    struct ng_source_opts o = {
        .epoch_re = nvtx != (size % 7 == 0) ? &any_re : NULL,
        .epoch_pattern = "auto",
        .item_samples = memmem(data, size, "\"item_cells\":true", 17) != NULL,
        .filter = memmem(data, size, "{\"text\":\"gemm\"}", 15) ? &gemm : NULL,
    };
    read_and_rewrite(&text, &o);
    ng_buf_release(&text);
    return 0;
}
