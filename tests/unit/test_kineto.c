/* The Chrome-trace (Kineto) reader: times read exactly from their text,
 * the kind told by content, an event longer than the reading window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "history/ng_verdict_doc.h"
#include "sources/ng_source.h"
#include "sources/kineto/ng_kineto_scan.h"
#include "sources/kineto/ng_source_kineto.h"
#include "temp_helper.h"

static int64_t us(const char *text)
{
    int64_t ns = 42;
    assert_int_equal(ng_kineto_scan_time_ns(text, strlen(text), 3, &ns), 0);
    return ns;
}

static void refused(const char *text, int scale)
{
    int64_t ns = 42;
    assert_int_equal(ng_kineto_scan_time_ns(text, strlen(text), scale, &ns), -1);
    assert_int_equal(ns, 42);
}

static void test_times_exact(void **state)
{
    (void)state;
    assert_int_equal(us("4.928"), 4928);
    assert_int_equal(us("68.0"), 68000);
    assert_int_equal(us("0"), 0);
    assert_int_equal(us("-0"), 0);
    assert_int_equal(us("1682725898236567"), INT64_C(1682725898236567000));
    assert_int_equal(us("4458676416788.066"), INT64_C(4458676416788066));
    /* more digits than a double holds: a double would give ...567125 */
    assert_int_equal(us("1682725898236567.123"), INT64_C(1682725898236567123));
    assert_int_equal(us("9223372036854775.807"), INT64_MAX);
    assert_int_equal(us("-9223372036854775.807"), -INT64_MAX);
}

static void test_times_rounded_to_the_ns(void **state)
{
    (void)state;
    assert_int_equal(us("1.23456789"), 1235);
    assert_int_equal(us("0.0005"), 1);           /* halves away from zero */
    assert_int_equal(us("0.00049999"), 0);
    assert_int_equal(us("-0.0005"), -1);
    assert_int_equal(us("2.0004999999999999999999"), 2000);
    assert_int_equal(us("0.000000000001"), 0);
}

static void test_times_with_exponents(void **state)
{
    (void)state;
    assert_int_equal(us("1.7e3"), 1700000);
    assert_int_equal(us("1.7E+3"), 1700000);
    assert_int_equal(us("1.2345e2"), 123450);
    assert_int_equal(us("1e-3"), 1);
    assert_int_equal(us("5e-4"), 1);
    assert_int_equal(us("4e-4"), 0);
    assert_int_equal(us("5e-10"), 0);
    assert_int_equal(us("1.682725898236567e15"), INT64_C(1682725898236567000));
    assert_int_equal(us("0e400"), 0);
    assert_int_equal(us("120e-5"), 1);
}

static void test_times_refused(void **state)
{
    (void)state;
    refused("", 3);
    refused("abc", 3);
    refused("1.", 3);
    refused(".5", 3);
    refused("01", 3);          /* JSON writes no leading zero */
    refused("+1", 3);
    refused("1e", 3);
    refused("0x10", 3);
    refused("1 ", 3);
    refused("NaN", 3);
    refused("9223372036854775.808", 3);   /* past 64 bits of ns */
    refused("1e20", 3);
    refused("1e400", 3);
    refused("12345678901234567890123", 0);
    /* ids: the same reading without a scale */
    int64_t v;
    assert_int_equal(ng_kineto_scan_time_ns("57541", 5, 0, &v), 0);
    assert_int_equal(v, 57541);
}

static void write_text(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_told_by_content(void **state)
{
    enum ng_format f;
    struct ng_err err;
    (void)state;
    write_text("\xEF\xBB\xBF \n {\"traceEvents\": []}");
    assert_int_equal(ng_source_detect(path, &f, &err), 0);
    assert_int_equal(f, NG_FORMAT_KINETO);
    write_text("\x1f\x8b\x08");
    assert_int_equal(ng_source_detect(path, &f, &err), 0);
    assert_int_equal(f, NG_FORMAT_KINETO);
    /* saved nsys stats JSON is an array */
    write_text("[\n  {\n    \"Time (%)\": 100.0\n  }\n]\n");
    assert_int_equal(ng_source_detect(path, &f, &err), 0);
    assert_int_equal(f, NG_FORMAT_CSV);
}

/* A kernel whose name alone is larger than the reading window (1 MiB):
 * the window grows for it, and every figure is read. */
static void test_event_longer_than_the_window(void **state)
{
    (void)state;
    size_t n = (size_t)3 << 20;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"", f);
    for (size_t i = 0; i < n; i++)
        fputc('k', f);
    fputs("\", \"pid\": 0, \"tid\": 7, \"ts\": 10.5, \"dur\": 2.25, \"args\": {}},\n"
          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\u00e9\", \"ts\": 1, \"dur\": 0.001}]}",
          f);
    fclose(f);
    struct ng_profile p;
    struct ng_err err;
    struct ng_source_opts opts = { 0 };
    ng_profile_init(&p, path);
    assert_int_equal(ng_source_load(&p, &opts, &err), 0);
    assert_int_equal(p.total_ns, 2251);
    assert_int_equal(p.n_rows, 2);
    assert_int_equal(strlen(p.rows[0].name), n);
    assert_string_equal(p.rows[1].name, "k\xc3\xa9");
    ng_profile_release(&p);
}

/* A verdict of Kineto traces read back (a --history line): the format and
 * the ranks survive; a run that says no rank reads as unknown. */
static void test_verdict_read_back(void **state)
{
    static const char text[] =
        "{\"name\": \"g\", \"verdict\": \"pass\", \"baseline\": {\"path\": \"b.json\", "
        "\"format\": \"kineto\", \"runs\": [{\"path\": \"b.json\", \"format\": \"kineto\", "
        "\"total_gpu_ms\": 1, \"kernel_count\": 2, \"rank\": 3, \"world_size\": 8}], "
        "\"processes\": [{\"pid\": 7, \"rank\": 3, \"total_ms\": 1, \"ms_per_epoch\": null, "
        "\"launches\": 2}]}, \"current\": {\"path\": \"c.sqlite\", \"format\": \"sqlite\", "
        "\"runs\": [{\"path\": \"c.sqlite\", \"format\": \"sqlite\", \"total_gpu_ms\": 1, "
        "\"kernel_count\": 2}], \"processes\": [{\"pid\": 9, \"total_ms\": 1, "
        "\"ms_per_epoch\": null, \"launches\": 2}]}}";
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    assert_int_equal(ng_verdict_doc_read(&d, text, strlen(text), &err), 0);
    assert_int_equal(d.v.baseline.runs[0].format, NG_FORMAT_KINETO);
    assert_int_equal(d.v.baseline.runs[0].rank, 3);
    assert_int_equal(d.v.baseline.runs[0].world_size, 8);
    assert_int_equal(d.v.baseline.processes[0].rank, 3);
    assert_int_equal(d.v.current.runs[0].format, NG_FORMAT_SQLITE);
    assert_int_equal(d.v.current.runs[0].rank, -1);
    assert_int_equal(d.v.current.runs[0].world_size, -1);
    assert_int_equal(d.v.current.processes[0].rank, -1);
    ng_verdict_doc_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times_exact),
        cmocka_unit_test(test_times_rounded_to_the_ns),
        cmocka_unit_test(test_times_with_exponents),
        cmocka_unit_test(test_times_refused),
        cmocka_unit_test(test_told_by_content),
        cmocka_unit_test(test_event_longer_than_the_window),
        cmocka_unit_test(test_verdict_read_back),
    };
    return cmocka_run_group_tests_name("kineto", tests, temp_setup, temp_teardown);
}
