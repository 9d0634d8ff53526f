/* ng_summary_file: a profile written and read back is the same struct,
 * field by field, at the int64 extremes and with names that are not
 * UTF-8; what is refused (a checksum that does not match, a cut text, a
 * later version, a figure past 64 bits, rows whose sum overflows, totals
 * that are not the rows' sums, text after the profile, a negative count,
 * a NUL in a name, odd hex, other reading options). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/ng_profile.h"
#include "sources/ng_source_opts.h"
#include "sources/summary/ng_summary_file.h"
#include "util/ng_digest.h"
#include "util/ng_util.h"

#include "profile_helper.h"

static const struct ng_regex no_regex;   /* only its presence is read: NVTX mode */
static const struct ng_profile_origin origin = { (char *)"p.sqlite", 123456789,
                                                  "0123456789abcdef0123456789abcdef" };

static void add_cells(struct ng_profile *p, const char *name, uint32_t e0, int64_t ns0)
{
    uint32_t e[2] = { e0, e0 + 1 };
    int64_t ns[2] = { ns0, 1 };
    ng_profile_add_cells(p, NG_WORK_KERNEL, name, e, ns, 2);
}

/* A profile with every member set, many at the int64 extremes. */
static void build(struct ng_profile *p)
{
    ng_profile_init(p, "p.sqlite");
    p->format = NG_FORMAT_NSYS_REP;
    ng_profile_add_epoch(p, "epoch 3", INT64_MIN + 1, INT64_MAX - 5, 7);
    ng_profile_add_epoch(p, "epoch \"4\"\n\t\x01", 0, 1, 1);
    ng_profile_add_epoch(p, "\xff\xfe", INT64_MAX, 0, 0);
    ng_profile_add_row(p, NG_WORK_KERNEL, "big", 3, INT64_MAX - 2, INT64_MAX - 3);
    add_cells(p, "big", 0, INT64_MAX - 7);
    ng_profile_add_row(p, NG_WORK_KERNEL, "bad\xff\x80name", 11, 1, 1);
    add_cells(p, "bad\xff\x80name", 1, 0);
    ng_profile_add_row(p, NG_WORK_MEMSET, "\xe2\x82\xac euro", 8, 1, 1);
    p->nvtx = 1;
    p->measured = 1;
    ng_profile_add_excluded(p, NG_WORK_GRAPH, "left\\out", INT64_MAX, 2);
    p->left_out_ns[NG_WORK_MEMCPY] = INT64_MAX;
    p->left_out_launches[NG_WORK_MEMCPY] = 9;
    p->skipped_epochs = 2;
    p->empty_epochs = 1;
    p->has_places = 1;
    ng_profile_add_place(&p->devices, &p->n_devices, 0, INT64_MAX, 3)->owner = NG_OWNER_SEVERAL;
    ng_profile_add_place(&p->devices, &p->n_devices, 7, 1, 1)->owner = NG_OWNER_UNSET;
    ng_profile_add_place(&p->processes, &p->n_processes, -4, 5, 6)->rank = INT64_MAX;
    p->has_breakdown = 1;
    p->breakdown = (struct ng_breakdown){ 0, INT64_MAX, 1, 2, 3, INT64_MIN };
    p->bd_devices = ng_xcalloc(1, sizeof *p->bd_devices);
    p->bd_devices[0] = (struct ng_breakdown){ INT64_MIN, 1, 2, 3, 4, 5 };
    p->n_bd_devices = 1;
    p->has_nested = 1;
    ng_profile_add_nested(p, "layer #", INT64_MAX);
    p->graph_mode = ng_xstrdup("Node");
    p->graph_node_kernels = 4;
    ng_profile_warn(p, "a warning with \"quotes\" and \x7f and \xc3\x28");
    p->gpu = ng_xstrdup("NVIDIA H100, NVIDIA A100");
    p->driver = NULL;
    p->rank = 3;
    p->world_size = 8;
    p->listing = ng_xcalloc(1, sizeof *p->listing);
    p->listing->listed = 1;
    p->listing->n_ranges = 12;
    p->listing->total_ns = INT64_MAX;
    p->listing->groups = ng_xcalloc(1, sizeof *p->listing->groups);
    p->listing->n_groups = 1;
    p->listing->groups[0] = (struct ng_range_group){ ng_xstrdup("step #"), ng_xstrdup("step 3"),
                                                     12, 345, 2, 0, 3, 0.1 + 0.2, 1.0 / 3, 1e-300 };
}

static const struct ng_source_opts nvtx_opts = {
    .epoch_re = &no_regex, .epoch_pattern = "auto", .item_samples = 1, .skip_epochs = 2,
};

static int read_text(const struct ng_buf *b, struct ng_profile *q, const struct ng_source_opts *o,
                     struct ng_err *err)
{
    ng_profile_init(q, "s.summary.json");
    err->msg[0] = '\0';
    return ng_summary_file_read(q, b->data, b->len, o, err);
}

static void test_round_trip(void **state)
{
    struct ng_profile p, q;
    struct ng_buf b = NG_BUF_INIT, again = NG_BUF_INIT;
    struct ng_err err;
    (void)state;

    build(&p);
    assert_int_equal(ng_profile_finish(&p, &err), 0);
    assert_int_equal(p.total_ns, INT64_MAX);
    ng_summary_file_write(&p, &nvtx_opts, &origin, p.listing, &b);
    assert_true(ng_summary_file_sniff((const unsigned char *)b.data, b.len));
    assert_non_null(strstr(b.data, "\"name_hex\":\"626164ff806e616d65\""));
    assert_int_equal(read_text(&b, &q, &nvtx_opts, &err), 0);
    assert_profiles_equal(&p, &q, CELLS_EXACT);
    assert_non_null(q.origin);
    assert_string_equal(q.origin->name, "p.sqlite");
    assert_int_equal(q.origin->size, 123456789);
    assert_string_equal(q.origin->hash, origin.hash);
    /* written again from what was read: the same bytes */
    ng_summary_file_write(&q, &nvtx_opts, q.origin, q.listing, &again);
    assert_int_equal(again.len, b.len);
    assert_memory_equal(again.data, b.data, b.len);
    ng_profile_release(&q);
    ng_profile_release(&p);
    ng_buf_release(&b);
    ng_buf_release(&again);
}

/* The text with its checksum made right again, so an edit reaches the
 * reader past the checksum. */
static void resum(struct ng_buf *b)
{
    char *key = strstr(b->data, ",\"checksum\":\"xxh3_128:");
    char hex[NG_DIGEST_HEX + 1];
    assert_non_null(key);
    ng_digest_bytes(b->data, (size_t)(key - b->data), hex);
    memcpy(key + strlen(",\"checksum\":\"xxh3_128:"), hex, NG_DIGEST_HEX);
}

static void replace(struct ng_buf *b, const char *from, const char *to)
{
    char *at = strstr(b->data, from);
    struct ng_buf out = NG_BUF_INIT;
    assert_non_null(at);
    ng_buf_add(&out, b->data, (size_t)(at - b->data));
    ng_buf_adds(&out, to);
    ng_buf_adds(&out, at + strlen(from));
    ng_buf_release(b);
    *b = out;
}

static void refused(struct ng_buf *b, const struct ng_source_opts *o, const char *says)
{
    struct ng_profile q;
    struct ng_err err;
    assert_int_equal(read_text(b, &q, o, &err), -1);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, says));
    ng_profile_release(&q);
}

static void written(struct ng_buf *b)
{
    struct ng_profile p;
    struct ng_err err;
    build(&p);
    assert_int_equal(ng_profile_finish(&p, &err), 0);
    b->len = 0;
    ng_summary_file_write(&p, &nvtx_opts, &origin, p.listing, b);
    ng_profile_release(&p);
}

/* The summary written afresh, edited (from -> to), re-summed: refused. */
static void refused_edit(struct ng_buf *b, const char *from, const char *to, const char *says)
{
    written(b);
    replace(b, from, to);
    resum(b);
    refused(b, &nvtx_opts, says);
}

static void test_refusals(void **state)
{
    struct ng_buf b = NG_BUF_INIT;
    (void)state;

    written(&b);
    b.data[100] ^= 1;
    refused(&b, &nvtx_opts, "fails its checksum");
    written(&b);
    b.len -= 2;
    refused(&b, &nvtx_opts, "is cut short");
    refused_edit(&b, "{\"nsys_gate_summary\":1", "{\"nsys_gate_summary\":2",
                 "is a summary of version 2");
    refused_edit(&b, "\"graph_node_kernels\":4", "\"graph_node_kernels\":9223372036854775808",
                 "an integer past 64 bits");
    refused_edit(&b, "\"n\":1,", "\"n\":1e0,", "not a summary nsys-gate can read");
    /* two rows that each fit and together do not: the profile's own refusal */
    refused_edit(&b, "\"kind\":\"memset\",\"name\":\"\xe2\x82\xac euro\",\"ns\":1",
                 "\"kind\":\"memset\",\"name\":\"\xe2\x82\xac euro\",\"ns\":9223372036854775807",
                 "overflows 64 bits");
    /* a total that is not the sum of the rows it stands for */
    refused_edit(&b, "\"total_ns\":9223372036854775807,\"launches\"",
                 "\"total_ns\":9223372036854775806,\"launches\"",
                 "its totals are not the sums of its rows");
    refused_edit(&b, ",\"checksum\":", " 1,\"checksum\":", "text after the profile");
    refused_edit(&b, "\"listed\":true,\"n\":12", "\"listed\":true,\"n\":-12",
                 "a negative count");
    /* a NUL would end the name in C: refused, not cut short */
    refused_edit(&b, "\"name\":\"big\"", "\"name\":\"b\\u0000g\"", "a bad string");
    refused_edit(&b, "\"626164ff806e616d65\"", "\"626164ff806e616d6\"", "bad hex");
    /* other reading options */
    struct ng_source_opts o = nvtx_opts;
    written(&b);
    o.skip_epochs = 0;
    refused(&b, &o, "was made with --skip-epochs 2 and this gate asks for --skip-epochs 0");
    o = nvtx_opts;
    o.epoch_re = NULL;
    refused(&b, &o, "was made with --epoch-range 'auto' and this gate gives no --epoch-range");
    o = nvtx_opts;
    o.base_names = 1;
    refused(&b, &o, "--kernel-names 'full' and this gate asks for --kernel-names 'base'");
    o = nvtx_opts;
    o.metric = NG_METRIC_GPU_BUSY;
    refused(&b, &o, "--metric 'kernel-sum' and this gate asks for --metric 'gpu-busy'");
    o = nvtx_opts;
    o.work = NG_WORK_ALL;
    refused(&b, &o, "--work 'kernels,graphs' and this gate asks for --work 'all'");
    ng_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
