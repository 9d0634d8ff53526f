/* The `nsys stats` text parser on every header variant and framing case in
 * notes/nsys-formats.md, fed from memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ng_source_kind.h"

struct parsed {
    int rc;
    struct ng_profile p;
    struct ng_err err;
};

static void parse(struct parsed *r, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    ng_profile_init(&r->p, "mem.csv");
    r->err.msg[0] = '\0';
    r->rc = ng_csv_parse_stream(&r->p, f, "mem.csv", &r->err);
    fclose(f);
}

static void expect_ok(const char *text, long long total, long long count, size_t names)
{
    struct parsed r;
    parse(&r, text);
    if (r.rc != 0)
        print_error("unexpected error: %s\n", r.err.msg);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.total_ns, total);
    assert_int_equal(r.p.launches, count);
    assert_int_equal(r.p.n_rows, names);
    ng_profile_release(&r.p);
}

static void expect_err(const char *text, const char *msg)
{
    struct parsed r;
    parse(&r, text);
    assert_int_equal(r.rc, -1);
    assert_string_equal(r.err.msg, msg);
    ng_profile_release(&r.p);
}

static void test_header_variants(void **state)
{
    (void)state;
    /* 2023.1 .. 2026 cuda_gpu_kern_sum */
    expect_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "60.0,600,3,200.0,200.0,100,300,100.0,kA\n"
              "40.0,400,1,400.0,400.0,400,400,0.0,kB\n",
              1000, 4, 2);
    /* 2022 gpukernsum / 2023 _gb_: GridXYZ and BlockXYZ with spaces */
    expect_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),GridXYZ,BlockXYZ,Name\n"
              "44.6,18197520,396,45953.3,45920.0,44896,47584,528.0,8192    1    1, 128    1    1,cupy_subtract\n"
              "22.3,9100104,198,45960.1,45920.0,45120,47360,462.5,8192    1    1, 128    1    1,cupy_multiply\n",
              27297624, 594, 2);
    /* 2021 */
    expect_ok("Time(%),Total Time (ns),Instances,Average (ns),Minimum (ns),Maximum (ns),StdDev (ns),Name\n"
              "100.0,5000,5,1000.0,900,1100,50.0,k\n",
              5000, 5, 1);
    /* 2020 */
    expect_ok("Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n"
              "100.0,5000,5,1000.0,900,1100,k\n",
              5000, 5, 1);
    /* the _gb_ split: one name on several rows is one kernel */
    expect_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),GridXYZ,BlockXYZ,Name\n"
              "50.0,100,1,100.0,100.0,100,100,0.0,1 1 1,1 1 1,k\n"
              "50.0,100,1,100.0,100.0,100,100,0.0,2 1 1,1 1 1,k\n",
              200, 2, 1);
    /* quoted header cells */
    expect_ok("\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\",\"StdDev (ns)\",\"Name\"\n"
              "\"100.0\",\"7\",\"1\",\"7.0\",\"7.0\",\"7\",\"7\",\"0.0\",\"k\"\n",
              7, 1, 1);
}

static void test_units(void **state)
{
    (void)state;
    expect_ok("Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),GridXYZ,BlockXYZ,Name\n"
              "44.6,18197.520,396,45.953,45.920,44.896,47.584,0.528,8192    1    1, 128    1    1,cupy_subtract\n",
              18197520, 396, 1);
    expect_ok("Time (%),Total Time (ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev (ms),Name\n"
              "100.0,18.1975,396,0.0460,0.0459,0.0449,0.0476,0.0005,k\n",
              18197500, 396, 1);
    expect_ok("Time (%),Total Time (s),Instances,Avg (s),Med (s),Min (s),Max (s),StdDev (s),Name\n"
              "100.0,2.5,4,0.6,0.6,0.6,0.6,0.0,k\n",
              2500000000LL, 4, 1);
    /* past the nanosecond: rounded half up */
    expect_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,10.5,1,10.5,10.5,10.5,10.5,0.0,k\n",
              11, 1, 1);
}

static void test_framing(void **state)
{
    (void)state;
    /* console framing, several reports: only the kernel block counts (the
     * prototype summed nvtx_sum and cuda_api_sum rows too) */
    expect_ok("Generating SQLite file x.sqlite from x.nsys-rep\n"
              "Processing [x.sqlite] with [/usr/lib/nsys/reports/cuda_gpu_kern_sum.py]... \n"
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,1000,2,500.0,500.0,400,600,100.0,k\n"
              "\n"
              "Processing [x.sqlite] with [/usr/lib/nsys/reports/cuda_api_sum.py]... \n"
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,99999,2,1.0,1.0,1,1,0.0,cudaLaunchKernel\n"
              "\n"
              "Processing [x.sqlite] with [/usr/lib/nsys/reports/nvtx_sum.py]... \n"
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
              "100.0,88888,1,1.0,1.0,1,1,0.0,PushPop,epoch 1\n"
              "\n",
              1000, 2, 1);
    /* nvtx_sum FIRST, then the kernel block, -q style (no framing) */
    expect_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
              "100.0,88888,1,1.0,1.0,1,1,0.0,PushPop,epoch 1\n"
              "\n"
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,1000,2,500.0,500.0,400,600,100.0,k\n",
              1000, 2, 1);
    /* CRLF and a UTF-8 BOM */
    expect_ok("\xEF\xBB\xBFTime (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\r\n"
              "100.0,1000,2,500.0,500.0,400,600,100.0,k\r\n",
              1000, 2, 1);
    /* the human column table, with thousands separators */
    expect_ok("Processing [v.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
              "\n"
              " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n"
              "\n"
              " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)       Name      \n"
              " --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----------------\n"
              "     90.0        3,481,709      1,000   3,481.7   3,470.0     3,400     4,705         93.3  vectorAdd(int)\n"
              "     10.0              100          1     100.0     100.0       100       100          0.0  other, kernel\n"
              "\n",
              3481809, 1001, 2);
}

static void test_quoting(void **state)
{
    struct parsed r;
    (void)state;
    /* nsys quotes only cells with a comma and does not double inner quotes */
    parse(&r, "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "50.0,300,1,300.0,300.0,300,300,0.0,\"void k<(int)128, (int)4>(int, T3)\"\n"
              "50.0,200,1,200.0,200.0,200,200,0.0,\"say \"hi\", twice\"\n"
              "0.0,100,1,100.0,100.0,100,100,0.0,plain \"quoted\" name\n");
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_rows, 3);
    assert_string_equal(r.p.rows[0].name, "void k<(int)128, (int)4>(int, T3)");
    assert_string_equal(r.p.rows[1].name, "say \"hi\", twice");
    assert_string_equal(r.p.rows[2].name, "plain \"quoted\" name");
    ng_profile_release(&r.p);
}

static void test_errors(void **state)
{
    (void)state;
    expect_err("Processing [q.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
               "SKIPPED: q.sqlite does not contain CUDA kernel data.\n\n",
               "'mem.csv' has no CUDA kernel data: nsys said \"SKIPPED: q.sqlite does not contain CUDA kernel data.\"");
    /* a SKIPPED nvtx report does not hide a good kernel block... */
    expect_ok("Processing [q.sqlite] with [/r/nvtx_sum.py]... \n"
              "SKIPPED: q.sqlite does not contain NV Tools Extension (NVTX) data.\n\n"
              "Processing [q.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,5,1,5.0,5.0,5,5,0.0,k\n",
              5, 1, 1);
    /* ...and no kernel block at all is an error, never 0 ms */
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
               "100.0,88888,1,1.0,1.0,1,1,0.0,PushPop,epoch 1\n",
               "'mem.csv' holds no nsys kernel summary (cuda_gpu_kern_sum) and is neither an SQLite export nor an .nsys-rep report");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n",
               "'mem.csv' has no CUDA kernel data (the kernel summary has no rows)");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,1e400,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' line 2: Total Time '1e400' is not a non-negative decimal number");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,NaN,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' line 2: Total Time 'NaN' is not a non-negative decimal number");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,-0,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' line 2: Total Time '-0' is not a non-negative decimal number");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,0x10,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' line 2: Total Time '0x10' is not a non-negative decimal number");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,99999999999999999999,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' line 2: Total Time '99999999999999999999' overflows 64 bits");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,9000000000000000000,1,5.0,5.0,5,5,0.0,a\n"
               "100.0,9000000000000000000,1,5.0,5.0,5,5,0.0,b\n",
               "'mem.csv': total kernel time overflows 64 bits");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,5,1\n",
               "'mem.csv' line 2: 9 columns expected, found 3");
    expect_err("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,5,1,5.0,5.0,5,5,0.0,k\n\n"
               "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),GridXYZ,BlockXYZ,Name\n"
               "100.0,5,1,5.0,5.0,5,5,0.0,1 1 1,1 1 1,k\n",
               "'mem.csv' holds 2 kernel summary reports; save only one (e.g. --report cuda_gpu_kern_sum), they would be counted twice");
    expect_err("just some text\nnothing here\n",
               "'mem.csv' holds no nsys kernel summary (cuda_gpu_kern_sum) and is neither an SQLite export nor an .nsys-rep report");
    /* an unknown time unit is not a kernel summary */
    expect_err("Time (%),Total Time (fortnights),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,5,1,5.0,5.0,5,5,0.0,k\n",
               "'mem.csv' holds no nsys kernel summary (cuda_gpu_kern_sum) and is neither an SQLite export nor an .nsys-rep report");
}

static void test_binary(void **state)
{
    static const char bin[] = "SQLite format 3\0garbage";
    struct ng_profile p;
    struct ng_err err;
    FILE *f = fmemopen((void *)bin, sizeof bin, "r");
    (void)state;
    ng_profile_init(&p, "x");
    assert_int_equal(ng_csv_parse_stream(&p, f, "x", &err), -1);
    assert_string_equal(err.msg, "'x' line 1: binary data, not nsys stats text");
    fclose(f);
    ng_profile_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_variants),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_binary),
    };
    return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
