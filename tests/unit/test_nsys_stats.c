/* The `nsys stats` text parser on every header variant, layout (--format)
 * and framing case in notes/nsys-formats.md and in real nsys output, fed
 * from memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sources/ng_source.h"
#include "sources/nsys_stats/ng_source_nsys_stats.h"

#define KERN_HDR "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
#define MEM_HDR "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"

struct parsed {
    int rc;
    struct ng_profile p;
    struct ng_err err;
};

static void parse_work(struct parsed *r, const char *text, unsigned work)
{
    struct ng_source_opts opts = { .work = work };
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    ng_profile_init(&r->p, "mem.csv");
    r->err.msg[0] = '\0';
    r->rc = ng_nsys_stats_parse_stream(&r->p, f, "mem.csv", &opts, &r->err);
    fclose(f);
}

static void parse(struct parsed *r, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    ng_profile_init(&r->p, "mem.csv");
    r->err.msg[0] = '\0';
    r->rc = ng_nsys_stats_parse_stream(&r->p, f, "mem.csv", NULL, &r->err);
    fclose(f);
}

static void expect_loaded(struct parsed *r)
{
    if (r->rc != 0)
        print_error("unexpected error: %s\n", r->err.msg);
    assert_int_equal(r->rc, 0);
}

static void expect_ok(const char *text, long long total, long long count, size_t names)
{
    struct parsed r;
    parse(&r, text);
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, total);
    assert_int_equal(r.p.launches, count);
    assert_int_equal(r.p.n_rows, names);
    assert_int_equal(r.p.n_warnings, 0);
    ng_profile_release(&r.p);
}

static void expect_err_work(const char *text, unsigned work, const char *msg)
{
    struct parsed r;
    parse_work(&r, text, work);
    assert_int_equal(r.rc, -1);
    assert_string_equal(r.err.msg, msg);
    ng_profile_release(&r.p);
}

/* Nothing of any input kind: the reader says only what the file is (the
 * registry adds what is read, golden err_not_a_profile_*). */
#define NOT_NSYS "text with no nsys report"
#define NO_SUMMARY "nsys stats text with no kernel or memory summary"
static void expect_not_profile(const char *text, unsigned work, const char *what)
{
    struct parsed r;
    parse_work(&r, text, work);
    assert_int_equal(r.rc, NG_SOURCE_NOT_A_PROFILE);
    assert_string_equal(r.err.msg, what);
    ng_profile_release(&r.p);
}

static void expect_err(const char *text, const char *msg)
{
    expect_err_work(text, 0, msg);
}

/* The row of that name (and kind), or a failed test. */
static const struct ng_work_row *row(const struct ng_profile *p, enum ng_work_kind kind,
                                     const char *name)
{
    for (size_t i = 0; i < p->n_rows; i++)
        if (p->rows[i].kind == kind && strcmp(p->rows[i].name, name) == 0)
            return &p->rows[i];
    fail_msg("no %s row named '%s'", ng_work_kind_name(kind), name);
    return NULL;
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
              "100.0,2.500000000,4,0.6,0.6,0.6,0.6,0.0,k\n",
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
    expect_not_profile("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
               "100.0,88888,1,1.0,1.0,1,1,0.0,PushPop,epoch 1\n", 0, NO_SUMMARY);
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
    expect_not_profile("just some text\nnothing here\n", 0, NOT_NSYS);
    /* an ERROR line outside nsys's framing is not nsys's word: a README
     * quoting the gate, a build log */
    expect_not_profile("# Errors\n\nERROR: 'run.log' has no GPU work that --work counts\n", 0,
                       NOT_NSYS);
    expect_not_profile("make: *** [all] Error 2\nERROR: linker failed\n", 0, NOT_NSYS);
    /* an unknown time unit is not a kernel summary */
    expect_not_profile("Time (%),Total Time (fortnights),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "100.0,5,1,5.0,5.0,5,5,0.0,k\n", 0, NO_SUMMARY);
}

/* --timeunit sec: real nsys prints "(sec)" in every time header, with 4
 * decimals (0.1 ms); nsys rounded each row, so the gate says how far off
 * the total may be when that is more than 0.1% of it. */
static void test_timeunit_sec(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "Time (%),Total Time (sec),Instances,Avg (sec),Med (sec),Min (sec),Max (sec),StdDev (sec),Name\n"
              "100.0,0.0018,1010,0.0000,0.0000,0.0000,0.0000,0.0000,\"vectorAdd(const float *, const float *, float *, int)\"\n"
              "0.0,0.0001,3,0.0000,0.0000,0.0000,0.0000,0.0000,k2\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1900000);
    assert_int_equal(r.p.launches, 1013);
    assert_int_equal(r.p.n_warnings, 1);
    assert_string_equal(r.p.warnings[0],
        "'mem.csv': nsys rounded its times to 100 us (Total Time in sec with 4 decimals), so the "
        "total may be off by up to 0.100 ms (5.26%); save the summary in ns, the default "
        "--timeunit, for exact figures");
    ng_profile_release(&r.p);
    /* the column layout, as nsys stats --timeunit sec prints it */
    parse(&r, " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n"
              " Time (%)  Total Time (sec)  Instances  Avg (sec)  Med (sec)  Min (sec)  Max (sec)  StdDev (sec)  Name\n"
              " --------  ----------------  ---------  ---------  ---------  ---------  ---------  ------------  ----\n"
              "    100.0            2.5000          4     0.6250     0.6250     0.6000     0.6500        0.0289  k   \n\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 2500000000LL);
    assert_int_equal(r.p.n_warnings, 0);   /* 50 us in 2.5 s */
    ng_profile_release(&r.p);
    /* every row rounds to 0: a total of 0 ms is the rounding's */
    parse(&r, "Time (%),Total Time (sec),Instances,Avg (sec),Med (sec),Min (sec),Max (sec),StdDev (sec),Name\n"
              "100.0,0.0000,10,0.0000,0.0000,0.0000,0.0000,0.0000,k\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 0);
    assert_int_equal(r.p.n_warnings, 1);
    assert_non_null(strstr(r.p.warnings[0], "up to 0.050 ms (the total reads as 0 ms)"));
    ng_profile_release(&r.p);
    /* ms with 4 decimals on short kernels: 50 ns a row against 20 us */
    parse(&r, "Time (%),Total Time (ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev (ms),Name\n"
              "100.0,0.0200,1,0.0200,0.0200,0.0200,0.0200,0.0000,k\n");
    expect_loaded(&r);
    assert_int_equal(r.p.n_warnings, 1);
    assert_non_null(strstr(r.p.warnings[0], "rounded its times to 100 ns (Total Time in ms with 4 decimals)"));
    ng_profile_release(&r.p);
}

/* Before 2020.2 the header had no unit; the title above the table gave it
 * ("CUDA Kernel Statistics (nanoseconds)"), as in `nsys profile --stats`
 * output of that time. */
static void test_pre_2020_2(void **state)
{
    (void)state;
    expect_ok("Generating CUDA Kernel Statistics...\n"
              "\n"
              "Generating CUDA Memory Operation Statistics...\n"
              "CUDA Kernel Statistics (nanoseconds)\n"
              "\n"
              "Time(%)      Total Time   Instances         Average         Minimum         Maximum  Name                \n"
              "-------  --------------  ----------  --------------  --------------  --------------  --------------------\n"
              "   45.3          175132           1        175132.0          175132          175132  matmul_kernel       \n"
              "   54.7          211500           2        105750.0          100000          111500  other_kernel        \n"
              "\n\n"
              "CUDA Memory Operation Statistics (nanoseconds)\n\n"
              "Time(%)      Total Time  Operations         Average         Minimum         Maximum  Name              \n"
              "-------  --------------  ----------  --------------  --------------  --------------  ------------------\n"
              "  100.0         8960291           2       4480145.5         4156552         4803739  [CUDA memcpy HtoD]\n"
              "\n\n"
              "CUDA Memory Operation Statistics (KiB)\n\n"
              "   Total  Operations   Average     Minimum   Maximum  Name              \n"
              "--------  ----------  --------  ----------  --------  ------------------\n"
              "538906.0           2  269453.0  250000.000  288906.0  [CUDA memcpy HtoD]\n",
              386632, 3, 2);
    /* the same header saved as CSV, without a title: ns too */
    expect_ok("Time(%),Total Time,Instances,Average,Minimum,Maximum,Name\n"
              "100.0,5000,5,1000.0,900,1100,k\n",
              5000, 5, 1);
    /* a title in another unit would say so */
    expect_ok("CUDA Kernel Statistics (microseconds)\n\n"
              "Time(%),Total Time,Instances,Average,Minimum,Maximum,Name\n"
              "100.0,5.500,5,1.100,0.900,1.300,k\n",
              5500, 5, 1);
    /* a second summary in the old header is still a second summary: before,
     * it was not recognised and the file read as the first one alone */
    expect_err(KERN_HDR
               "100.0,5,1,5.0,5.0,5,5,0.0,k\n\n"
               "CUDA Kernel Statistics (nanoseconds)\n\n"
               "Time(%)  Total Time  Instances  Average  Minimum  Maximum  Name\n"
               "-------  ----------  ---------  -------  -------  -------  ----\n"
               "  100.0           5          1      5.0        5        5  k   \n",
               "'mem.csv' holds 2 kernel summary reports; save only one (e.g. --report cuda_gpu_kern_sum), they would be counted twice");
    expect_err(KERN_HDR
               "100.0,5,1,5.0,5.0,5,5,0.0,k\n\n"
               "Time(%),Total Time,Instances,Average,Minimum,Maximum,Name\n"
               "100.0,5,1,5.0,5,5,k\n",
               "'mem.csv' holds 2 kernel summary reports; save only one (e.g. --report cuda_gpu_kern_sum), they would be counted twice");
}

/* --format table: the column layout in boxes (2022.4 gpukernsum with its
 * grid and block columns), names that nsys cut, and a name with a '|'. */
static void test_table(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "Processing [c.sqlite] with [/r/gpukernsum.py]... \n"
              "\n"
              " ** CUDA GPU Kernel Summary (gpukernsum):\n"
              "\n"
              "+----------+-----------------+-----------+-----------+----------+-------------+-----------------+----------------+-------------------+\n"
              "| Time (%) | Total Time (ns) | Instances | Avg (ns)  | Min (ns) | StdDev (ns) |     GridXYZ     |    BlockXYZ    |       Name        |\n"
              "+----------+-----------------+-----------+-----------+----------+-------------+-----------------+----------------+-------------------+\n"
              "|     41.1 |        35294113 |         8 | 4411764.1 |  4371508 |     18203.8 | 5063    1    1  |  256    1    1 | void thrust::kag\xE2\x80\xA6 |\n"
              "|     24.5 |        21053448 |         4 | 5263362.0 |  5245330 |     18590.4 |  596    1    1  |  256    1    1 | pipe | inside     |\n"
              "|      0.2 |          141887 |         8 |   17735.9 |    17344 |       293.1 | 10126    1    1 |  256    1    1 | \xC3\xBCn\xC3\xAF k           |\n"
              "|      0.1 |            1000 |         1 |    1000.0 |     1000 |         0.0 |    1    1    1  |  256    1    1 |   lead space      |\n"
              "+----------+-----------------+-----------+-----------+----------+-------------+-----------------+----------------+-------------------+\n"
              "\n"
              "Processing [c.sqlite] with [/r/cudaapisum.py]... \n"
              "\n"
              "+----------+-----------------+-----------+----------+\n"
              "| Time (%) | Total Time (ns) | Num Calls |   Name   |\n"
              "+----------+-----------------+-----------+----------+\n"
              "|    100.0 |          999999 |         1 | cudaFree |\n"
              "+----------+-----------------+-----------+----------+\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 35294113 + 21053448 + 141887 + 1000);
    assert_int_equal(r.p.launches, 21);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "void thrust::kag\xE2\x80\xA6")->instances, 8);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "pipe | inside")->total_ns, 21053448);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "\xC3\xBCn\xC3\xAF k")->total_ns, 141887);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "  lead space")->total_ns, 1000);
    assert_int_equal(r.p.n_warnings, 0);   /* a cut name, but no merge */
    ng_profile_release(&r.p);
    expect_err("+----------+-----------------+-----------+----------+------+\n"
               "| Time (%) | Total Time (ns) | Instances | Avg (ns) | Name |\n"
               "+----------+-----------------+-----------+----------+------+\n"
               "      100.0            5          1        5.0   k\n",
               "'mem.csv' line 4: a row of nsys's table layout must start with '|'");
}

/* --format tsv: nsys never quotes, and turns a tab in a name into a space. */
static void test_tsv(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "Processing [v.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
              "Time (%)\tTotal Time (ns)\tInstances\tAvg (ns)\tMed (ns)\tMin (ns)\tMax (ns)\tStdDev (ns)\tName\n"
              "96.6\t1768109\t977\t1809.7\t1823.0\t1791\t1825\t16.0\tvectorAdd(const float *, const float *, float *, int)\n"
              "0.5\t8354\t3\t2784.7\t1825.0\t1824\t4705\t1663.1\tsay \"hi\", twice\n"
              "0.3\t5000\t3\t1.0\t1.0\t1\t1\t0.0\t\"quoted\"\n"
              "\n"
              "Processing [v.sqlite] with [/r/cuda_gpu_kern_gb_sum.py]... \n"
              "SKIPPED: v.sqlite does not contain CUDA kernel data.\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1768109 + 8354 + 5000);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "say \"hi\", twice")->instances, 3);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "\"quoted\"")->instances, 3);
    ng_profile_release(&r.p);
    expect_err("Time (%)\tTotal Time (ns)\tInstances\tAvg (ns)\tName\n100.0\t5\n",
               "'mem.csv' line 2: 5 columns expected, found 2");
}

/* CSV quoting as nsys does it: quotes only around a name holding a comma,
 * so a name in quotes without one keeps them; a file whose header is
 * quoted was saved again by a tool that quotes every cell. */
static void test_csv_quotes(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, KERN_HDR
              "50.0,300,1,300.0,300.0,300,300,0.0,\"quoted\"\n"
              "50.0,200,1,200.0,200.0,200,200,0.0,\"\"a,b\"\"\n");
    expect_loaded(&r);
    row(&r.p, NG_WORK_KERNEL, "\"quoted\"");
    row(&r.p, NG_WORK_KERNEL, "\"a,b\"");
    ng_profile_release(&r.p);
    parse(&r, "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Name\"\n"
              "\"100.0\",\"7\",\"1\",\"7.0\",\"k\"\n");
    expect_loaded(&r);
    row(&r.p, NG_WORK_KERNEL, "k");
    ng_profile_release(&r.p);
}

#define JSON_ROW(total, inst, name) \
    "  {\n    \"Time (%)\": 50.0,\n    \"Total Time (ns)\": " total ",\n    \"Instances\": " inst ",\n" \
    "    \"Avg (ns)\": 1.0,\n    \"StdDev (ns)\": 0.0,\n    \"Name\": " name "\n  }"

/* --format json, as nsys 2022.4 and 2023.4 write it: '"' and '\' escaped,
 * control characters raw, names that look like numbers or keywords bare. */
static void test_json(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "Processing [h.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
              "[\n"
              JSON_ROW("1768109", "977", "\"vectorAdd(const float *, const float *, float *, int)\"") ",\n"
              JSON_ROW("8354", "3", "\"say \\\"hi\\\", twice\"") ",\n"
              JSON_ROW("5824", "3", "\"back\\\\slash \\\\n and \\\\\\\"\"") ",\n"
              JSON_ROW("100", "1", "\"tab\\there \\u00fc \\ud83d\\ude00 ctl\x01\"") ",\n"
              JSON_ROW("10", "1", "12345") ",\n"
              JSON_ROW("9", "1", "null") ",\n"
              JSON_ROW("8", "1", "\"\"") "\n"
              "]\n"
              "\n"
              "Processing [h.sqlite] with [/r/nvtx_sum.py]... \n"
              "[\n  {\n    \"Time (%)\": 100.0,\n    \"Range\": \"odd \"range\" \\q\"\n  }\n]\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1768109 + 8354 + 5824 + 100 + 10 + 9 + 8);
    assert_int_equal(r.p.launches, 987);
    row(&r.p, NG_WORK_KERNEL, "say \"hi\", twice");
    row(&r.p, NG_WORK_KERNEL, "back\\slash \\n and \\\"");
    row(&r.p, NG_WORK_KERNEL, "tab\there \xC3\xBC \xF0\x9F\x98\x80 ctl\x01");
    row(&r.p, NG_WORK_KERNEL, "12345");
    row(&r.p, NG_WORK_KERNEL, "null");
    row(&r.p, NG_WORK_KERNEL, "");
    ng_profile_release(&r.p);
}

/* nsys's documentation says its json writer does not escape quotes.  A
 * value is read as it stands on its line, so such a name still has one
 * reading -- unless backslashes appear, which that writer would not have
 * escaped either. */
static void test_json_unescaped_quotes(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "[\n"
              JSON_ROW("300", "1", "\"say \"hi\", twice\"") ",\n"
              JSON_ROW("200", "1", "\"a\",\"") "\n"
              "]\n");
    expect_loaded(&r);
    row(&r.p, NG_WORK_KERNEL, "say \"hi\", twice");
    row(&r.p, NG_WORK_KERNEL, "a\",");
    ng_profile_release(&r.p);
    expect_err("[\n"
               JSON_ROW("300", "1", "\"back\\\\slash\"") ",\n"
               JSON_ROW("200", "1", "\"say \"hi\"\"") "\n"
               "]\n",
               "'mem.csv' line 16: a name in this json holds a quote that nsys did not escape, and "
               "its strings hold backslashes (line 8), which such a writer leaves unescaped too: the "
               "names cannot be read back without guessing; save the summary with --format csv");
}

static void test_json_errors(void **state)
{
    (void)state;
    expect_err("[\n" JSON_ROW("300", "1", "\"bad \\x escape\"") "\n]\n",
               "'mem.csv' line 8: a json string with a malformed escape");
    /* a name with a line break: nsys writes it raw */
    expect_err("[\n" JSON_ROW("300", "1", "\"nl\nx\"") "\n]\n",
               "'mem.csv' line 9: not nsys stats json (one \"key\": value a line, as --format json "
               "writes it); a name with a line break cannot be read back from any nsys stats text: "
               "read the SQLite export instead");
    /* one line of compact JSON is not what nsys writes */
    expect_err("[\n{\"Time (%)\": 1, \"Total Time (ns)\": 1}\n]\n",
               "'mem.csv' line 2: not nsys stats json (one \"key\": value a line, as --format json "
               "writes it); a name with a line break cannot be read back from any nsys stats text: "
               "read the SQLite export instead");
    expect_err("[\n" JSON_ROW("300", "1", "\"k\"") ",\n",
               "'mem.csv' ends inside a json report (no closing ']'): is it complete?");
    expect_err("[\n" JSON_ROW("1e3", "1", "\"k\"") "\n]\n",
               "'mem.csv' line 4: Total Time '1e3' is not a non-negative decimal number");
    expect_err("[\n" JSON_ROW("3", "1", "\"k\"") ",\n"
               "  {\n    \"Time (%)\": 50.0,\n    \"Name\": \"j\"\n  }\n]\n",
               "'mem.csv' line 12: json object whose fields differ from the first object's");
}

#define HTML_HEAD "<table>\n  <thead>\n    <tr>\n      <th>Time (%)</th>\n      <th>Total Time (ns)</th>\n" \
    "      <th>Instances</th>\n      <th>Avg (ns)</th>\n      <th>Name</th>\n    </tr>\n  </thead>\n  <tbody>\n"
#define HTML_ROW(total, inst, name) "    <tr>\n      <td>50.0</td>\n      <td>" total "</td>\n      <td>" inst \
    "</td>\n      <td>1.0</td>\n      <td>" name "</td>\n    </tr>\n"

/* --format hdoc (a whole document) and htable (the table alone): '<', '>'
 * and '&' escaped, quotes not. */
static void test_html(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, "Processing [h.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
              "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"UTF-8\">\n"
              "  <title>Nsight Systems Stats Output</title>\n</head>\n<body>\n"
              "<h1>CUDA GPU Kernel Summary (cuda_gpu_kern_sum)</h1>\n"
              HTML_HEAD
              HTML_ROW("5441", "3", "tpl&lt;a &amp; b&gt; 'q' \"x\"")
              HTML_ROW("100", "1", "&#252;&#x1F600;&quot;&apos;")
              HTML_ROW("10", "1", "  lead\tspace")
              "  </tbody>\n</table>\n</body>\n</html>\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 5551);
    row(&r.p, NG_WORK_KERNEL, "tpl<a & b> 'q' \"x\"");
    row(&r.p, NG_WORK_KERNEL, "\xC3\xBC\xF0\x9F\x98\x80\"'");
    row(&r.p, NG_WORK_KERNEL, "  lead\tspace");
    ng_profile_release(&r.p);
    expect_err(HTML_HEAD HTML_ROW("5", "1", "a&nbsp;b") "  </tbody>\n</table>\n",
               "'mem.csv' line 17: '&nbsp;' is not an HTML character reference nsys writes");
    expect_err(HTML_HEAD HTML_ROW("5", "1", "k"),
               "'mem.csv' ends inside an html table (no closing </table>): is it complete?");
    expect_err(HTML_HEAD "    <tr>\n      <td>50.0</td>\n      <td>5</td>\n    </tr>\n</table>\n",
               "'mem.csv' line 15: 5 columns expected, found 2");
    expect_err(HTML_HEAD "    <tr>\n      <td>nl\nx</td>\n    </tr>\n</table>\n",
               "'mem.csv' line 13: not nsys stats html (one <th> or <td> cell a line, as --format "
               "hdoc and htable write it); a name with a line break cannot be read back from any "
               "nsys stats text: read the SQLite export instead");
}

/* The column layouts cut long names with an ellipsis; two cut alike are one
 * row to the gate.  The totals stay exact, and a warning says the rows may
 * have merged. */
static void test_cut_names(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, " Time (%)  Total Time (ns)  Instances  Avg (ns)                Name           \n"
              " --------  ---------------  ---------  --------  -------------------------\n"
              "     50.0              500          5     100.0  void kernel_templat\xE2\x80\xA6\n"
              "     30.0              300          3     100.0  void kernel_templat\xE2\x80\xA6\n"
              "     15.0              150          1     150.0  void other_kernel<fl\xE2\x80\xA6\n"
              "      5.0               50          1      50.0  short                    \n"
              "\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1000);
    assert_int_equal(r.p.launches, 10);
    assert_int_equal(r.p.n_rows, 3);
    assert_int_equal(row(&r.p, NG_WORK_KERNEL, "void kernel_templat\xE2\x80\xA6")->total_ns, 800);
    assert_int_equal(r.p.n_warnings, 1);
    assert_string_equal(r.p.warnings[0],
        "'mem.csv': nsys cut 3 names to fit its column width (they end in '\xE2\x80\xA6'), and 1 of "
        "those rows merged into another row with the same cut name: the totals are exact, but "
        "different kernels may now be one row; save the summary with --format csv for whole names");
    ng_profile_release(&r.p);
}

/* The console of `nsys profile --stats=true` (2022+): every report after an
 * "[N/M] Executing 'report' stats report" line.  The kernel report's
 * SKIPPED is what the error quotes, not the NVTX report's before it. */
#define CONSOLE_HEAD \
    "Collecting data...\n" \
    "Generating '/tmp/nsys-report-5c1e.qdstrm'\n" \
    "[1/8] [========================100%] report7.nsys-rep\n" \
    "[2/8] [========================100%] report7.sqlite\n" \
    "[3/8] Executing 'nvtx_sum' stats report\n" \
    "SKIPPED: /home/ci/run/report7.sqlite does not contain NV Tools Extension (NVTX) data.\n" \
    "[4/8] Executing 'osrt_sum' stats report\n" \
    "\n" \
    " Time (%)  Total Time (ns)  Num Calls   Avg (ns)   Med (ns)   Min (ns)  Max (ns)   StdDev (ns)   Name  \n" \
    " --------  ---------------  ---------  ---------  ---------  --------  ---------  -----------  -------\n" \
    "     71.2        402113355          9  44679261.7  1803112.0     18350  301118200  98911842.2  poll   \n" \
    "\n" \
    "[5/8] Executing 'cuda_api_sum' stats report\n" \
    "\n" \
    " Time (%)  Total Time (ns)  Num Calls   Avg (ns)    Med (ns)   Min (ns)   Max (ns)  StdDev (ns)     Name   \n" \
    " --------  ---------------  ---------  ----------  ---------  ---------  ---------  -----------  ----------\n" \
    "     98.1        131002244          1  131002244.0  131002244.0  131002244  131002244     0.0  cudaMalloc\n" \
    "\n" \
    "[6/8] Executing 'cuda_gpu_kern_sum' stats report\n" \
    "SKIPPED: /home/ci/run/report7.sqlite does not contain CUDA kernel data.\n" \
    "[7/8] Executing 'cuda_gpu_mem_time_sum' stats report\n"
#define CONSOLE_TAIL \
    "[8/8] Executing 'cuda_gpu_mem_size_sum' stats report\n" \
    "\n" \
    " Total (MB)  Count  Avg (MB)  Med (MB)  Min (MB)  Max (MB)  StdDev (MB)           Operation          \n" \
    " ----------  -----  --------  --------  --------  --------  -----------  ----------------------------\n" \
    "      4.194      1     4.194     4.194     4.194     4.194        0.000  [CUDA memcpy Device-to-Host]\n" \
    "\n" \
    "Generated:\n" \
    "    /home/ci/run/report7.nsys-rep\n" \
    "    /home/ci/run/report7.sqlite\n"
#define CONSOLE_MEM \
    "\n" \
    " Time (%)  Total Time (ns)  Count  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)           Operation          \n" \
    " --------  ---------------  -----  --------  --------  --------  --------  -----------  ----------------------------\n" \
    "     54.3           811171      1  811171.0  811171.0    811171    811171          0.0  [CUDA memcpy Host-to-Device]\n" \
    "     45.7           683912      1  683912.0  683912.0    683912    683912          0.0  [CUDA memcpy Device-to-Host]\n" \
    "\n"

static void test_profile_stats_console(void **state)
{
    struct parsed r;
    (void)state;
    expect_err(CONSOLE_HEAD
               "SKIPPED: /home/ci/run/report7.sqlite does not contain GPU memory data.\n"
               CONSOLE_TAIL,
               "'mem.csv' has no CUDA kernel data: nsys said \"SKIPPED: /home/ci/run/report7.sqlite "
               "does not contain CUDA kernel data.\"");
    /* memory the default --work does not count: the error names it */
    expect_err(CONSOLE_HEAD CONSOLE_MEM CONSOLE_TAIL,
               "'mem.csv' has no GPU work that --work kernels,graphs counts; it holds 2 memory "
               "operations (1.495 ms): add memory to --work");
    /* and with memory counted, the memory operations are the profile */
    parse_work(&r, CONSOLE_HEAD CONSOLE_MEM CONSOLE_TAIL, NG_WORK_ALL);
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 811171 + 683912);
    assert_int_equal(r.p.kind_ns[NG_WORK_MEMCPY], 811171 + 683912);
    ng_profile_release(&r.p);
    /* nsys 2021 framed each report as "Running [report.py file]..." */
    expect_err("Running [/opt/nsys/reports/nvtxsum.py r.sqlite]... \n"
               "SKIPPED: r.sqlite does not contain NV Tools Extension (NVTX) data.\n"
               "Running [/opt/nsys/reports/gpukernsum.py r.sqlite]... \n"
               "SKIPPED: r.sqlite does not contain CUDA kernel data.\n",
               "'mem.csv' has no CUDA kernel data: nsys said \"SKIPPED: r.sqlite does not contain "
               "CUDA kernel data.\"");
}

/* cuda_gpu_mem_time_sum (and gpumemtimesum, and the memory statistics of
 * nsys before 2020.2): memory rows when --work counts memory, else what
 * the profile says it left out. */
static void test_memory_rows(void **state)
{
    struct parsed r;
    const char *text =
        "Processing [c.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n"
        KERN_HDR
        "100.0,1000,2,500.0,500.0,400,600,100.0,k\n"
        "\n"
        "Processing [c.sqlite] with [/r/cuda_gpu_mem_time_sum.py]... \n"
        MEM_HDR
        "95.7,19544329,96,203586.8,1056.0,1024,2552186,659255.3,[CUDA memcpy Host-to-Device]\n"
        "2.6,524192,36,14560.9,1312.0,1152,161375,44557.2,[CUDA memcpy Unified Device-to-Host]\n"
        "0.1,14848,14,1060.6,1056.0,1055,1088,11.6,[CUDA memset]\n"
        "\n";
    (void)state;
    parse(&r, text);
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1000);
    assert_int_equal(r.p.n_rows, 1);
    assert_int_equal(r.p.left_out_ns[NG_WORK_MEMCPY], 19544329 + 524192);
    assert_int_equal(r.p.left_out_launches[NG_WORK_MEMCPY], 132);
    assert_int_equal(r.p.left_out_ns[NG_WORK_MEMSET], 14848);
    assert_int_equal(r.p.left_out_launches[NG_WORK_MEMSET], 14);
    ng_profile_release(&r.p);
    parse_work(&r, text, NG_WORK_ALL);
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 1000 + 19544329 + 524192 + 14848);
    assert_int_equal(r.p.launches, 2 + 96 + 36 + 14);
    assert_int_equal(r.p.n_rows, 4);
    assert_int_equal(row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Host-to-Device]")->instances, 96);
    assert_int_equal(row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Unified Device-to-Host]")->total_ns, 524192);
    assert_int_equal(row(&r.p, NG_WORK_MEMSET, "[CUDA memset]")->instances, 14);
    assert_int_equal(r.p.kind_ns[NG_WORK_KERNEL], 1000);
    assert_int_equal(r.p.kind_ns[NG_WORK_MEMSET], 14848);
    assert_int_equal(r.p.left_out_ns[NG_WORK_MEMCPY], 0);
    ng_profile_release(&r.p);
    /* memory alone (no kernel summary at all) is read when it is counted */
    parse_work(&r, MEM_HDR "100.0,14848,14,1060.6,1056.0,1055,1088,11.6,[CUDA memset]\n",
               NG_WORK_BIT(NG_WORK_MEMCPY) | NG_WORK_BIT(NG_WORK_MEMSET));
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 14848);
    ng_profile_release(&r.p);
    /* nsys 2022.4's gpumemtimesum: its short names become today's labels */
    parse_work(&r, MEM_HDR "51.0,2432,2,1216.0,1216.0,1024,1408,271.5,[CUDA memcpy HtoD]\n"
                   "49.0,2336,1,2336.0,2336.0,2336,2336,0.0,[CUDA memcpy DtoH]\n"
                   "0.1,100,1,100.0,100.0,100,100,0.0,[CUDA memcpy PtoP]\n"
                   "0.1,10,1,10.0,10.0,10,10,0.0,[CUDA Unified Memory memcpy DtoD]\n",
               NG_WORK_ALL);
    expect_loaded(&r);
    assert_int_equal(row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Host-to-Device]")->total_ns, 2432);
    assert_int_equal(row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Device-to-Host]")->total_ns, 2336);
    row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Peer-to-Peer]");
    row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Unified Device-to-Device]");
    ng_profile_release(&r.p);
    /* gpumemtimesum of nsys 2020.2..2021, the column layout */
    parse_work(&r, "Running [/opt/nsys/reports/gpumemtimesum.py r.sqlite]... \n\n"
                   " Time(%)  Total Time (ns)  Operations  Average  Minimum  Maximum              Operation            \n"
                   " -------  ---------------  ----------  -------  -------  -------  ---------------------------------\n"
                   "    78.8         78911017        8314   9491.3     2143   128189  [CUDA Unified Memory memcpy HtoD]\n"
                   "    21.2         21192428         768  27594.3     1567   159742  [CUDA Unified Memory memcpy DtoH]\n",
               NG_WORK_ALL);
    expect_loaded(&r);
    assert_int_equal(row(&r.p, NG_WORK_MEMCPY, "[CUDA memcpy Unified Host-to-Device]")->instances, 8314);
    assert_int_equal(r.p.kind_ns[NG_WORK_MEMCPY], 78911017 + 21192428);
    assert_int_equal(r.p.kind_launches[NG_WORK_MEMCPY], 8314 + 768);
    ng_profile_release(&r.p);
    /* openmp_sum and openacc_sum have Count and Name: not memory */
    expect_not_profile("Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                    "100.0,5,1,5.0,5.0,5,5,0.0,omp_parallel\n", NG_WORK_ALL, NO_SUMMARY);
    expect_err_work(MEM_HDR "100.0,5,1,5.0,5.0,5,5,0.0,[CUDA mystery]\n", NG_WORK_ALL,
                    "'mem.csv' line 2: memory operation '[CUDA mystery]' is neither a memcpy nor a memset");
    expect_err_work(MEM_HDR "100.0,5,1,5.0,5.0,5,5,0.0,[CUDA memset]\n\n"
                    MEM_HDR "100.0,5,1,5.0,5.0,5,5,0.0,[CUDA memset]\n", NG_WORK_ALL,
                    "'mem.csv' holds 2 memory summary reports; save only one (e.g. --report cuda_gpu_mem_time_sum), they would be counted twice");
    expect_err_work(MEM_HDR, NG_WORK_ALL,
                    "'mem.csv' has no CUDA kernel data (the memory summary has no rows)");
}

/* Nothing --work counts: the error names what the file holds instead. */
static void test_no_counted_work(void **state)
{
    (void)state;
    expect_err(MEM_HDR "95.7,19544329,96,203586.8,1056.0,1024,2552186,659255.3,[CUDA memcpy HtoD]\n"
               "0.1,14848,14,1060.6,1056.0,1055,1088,11.6,[CUDA memset]\n",
               "'mem.csv' has no GPU work that --work kernels,graphs counts; it holds 110 memory "
               "operations (19.559 ms): add memory to --work");
    expect_err_work(KERN_HDR "100.0,1831281,1010,1.0,1.0,1,1,0.0,k\n\n"
                    MEM_HDR "100.0,4768,3,1.0,1.0,1,1,0.0,[CUDA memcpy HtoD]\n",
                    NG_WORK_BIT(NG_WORK_GRAPH),
                    "'mem.csv' has no GPU work that --work graphs counts; it holds 1010 kernel "
                    "launches (1.831 ms) and 3 memory operations (0.005 ms): add kernels,memory to "
                    "--work");
}

/* The column layouts write numbers as the locale does: nsys 2021 under a
 * German locale printed "58,0" and "4.576" (4576 ns). */
static void test_decimal_comma(void **state)
{
    struct parsed r;
    (void)state;
    parse(&r, " Time(%)  Total Time (ns)  Instances  Average  Minimum  Maximum      Name     \n"
              " -------  ---------------  ---------  -------  -------  -------  -------------\n"
              "    58,0            4.576           5    915,2      832    1.120  loop_2_38_gpu\n"
              "    42,0        3.295,000           3  1.098,3      959    1.376  loop_1_21_gpu\n");
    expect_loaded(&r);
    assert_int_equal(r.p.total_ns, 4576 + 3295);
    assert_int_equal(r.p.launches, 8);
    ng_profile_release(&r.p);
}

static void test_binary(void **state)
{
    /* binary before anything of nsys's: not a profile at all (an image) */
    static const char bin[] = "SQLite format 3\0garbage";
    /* binary after a kernel summary: a damaged stats file */
    static const char late[] = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),"
                               "Max (ns),StdDev (ns),Name\n100.0,5,1,5.0,5.0,5,5,0.0,k\n\0x\n";
    struct ng_profile p;
    struct ng_err err;
    FILE *f = fmemopen((void *)bin, sizeof bin, "r");
    (void)state;
    ng_profile_init(&p, "x");
    assert_int_equal(ng_nsys_stats_parse_stream(&p, f, "x", NULL, &err), NG_SOURCE_NOT_A_PROFILE);
    assert_string_equal(err.msg, "binary data, not text");
    fclose(f);
    ng_profile_release(&p);
    f = fmemopen((void *)late, sizeof late, "r");
    ng_profile_init(&p, "x");
    assert_int_equal(ng_nsys_stats_parse_stream(&p, f, "x", NULL, &err), -1);
    assert_string_equal(err.msg, "'x' line 3: binary data, not nsys stats text");
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
        cmocka_unit_test(test_timeunit_sec),
        cmocka_unit_test(test_pre_2020_2),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_tsv),
        cmocka_unit_test(test_csv_quotes),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_unescaped_quotes),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_cut_names),
        cmocka_unit_test(test_profile_stats_console),
        cmocka_unit_test(test_memory_rows),
        cmocka_unit_test(test_no_counted_work),
        cmocka_unit_test(test_decimal_comma),
        cmocka_unit_test(test_binary),
    };
    return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
