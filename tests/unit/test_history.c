/* The history reader on what real --history files hold: torn and garbage
 * lines (skipped, named by line number), lines of older versions and
 * unknown fields (read), 100,000 lines (streamed, in bounded memory),
 * over-long lines and floods of garbage (bounded warnings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "render_helper.h"
#include "temp_helper.h"

#include "core/ng_verdict_text.h"
#include "history/ng_verdict_doc.h"
#include "history/ng_history.h"
#include "reporters/ng_reporter.h"
#include "core/ng_work_rates.h"

static double b_samples[] = { 200.0 };
static double c_samples[] = { 300.0 };
static struct ng_kernel_delta kernels[] = {
    { "gemm", NG_WORK_KERNEL, NG_KERNEL_CHANGED, 150.0, 240.0, 90.0, 0.9, 10.0, 10.0, 0, NG_OUTCOME_PASS, 0, 0, 0, 0 },
};
static struct ng_work_rate rows[] = {
    { "gemm", NG_WORK_KERNEL, 240.0, 10.0 },
    { "[CUDA memcpy Host-to-Device]", NG_WORK_MEMCPY, 60.0, 2.0 },
};

static struct ng_verdict verdict(const char *name)
{
    struct ng_verdict v;
    memset(&v, 0, sizeof v);
    v.outcome = NG_OUTCOME_FAIL;
    v.name = name;
    v.mode = "total";
    v.metric = "kernel-sum";
    v.threshold = 1.2;
    v.epochs = 5;
    v.has_figures = 1;
    v.ratio = 1.5;
    v.alpha = 0.05;
    v.baseline = (struct ng_verdict_side){ .path = "b.sqlite", .format = NG_FORMAT_SQLITE,
                                           .loaded = 1, .total_ns = 1000000000,
                                           .kernel_count = 10, .samples = b_samples,
                                           .n_samples = 1, .ms_per_epoch = 200.0,
                                           .min_ms = 200.0, .max_ms = 200.0, .mean_ms = 200.0 };
    v.current = (struct ng_verdict_side){ .path = "c.sqlite", .format = NG_FORMAT_SQLITE,
                                          .loaded = 1, .total_ns = 1500000000,
                                          .kernel_count = 10, .samples = c_samples,
                                          .n_samples = 1, .ms_per_epoch = 300.0,
                                          .min_ms = 300.0, .max_ms = 300.0, .mean_ms = 300.0 };
    v.kernels = kernels;
    v.n_kernels = 1;
    v.has_rows = 1;
    v.rows = rows;
    v.n_rows = 2;
    v.n_top = 1;
    v.top = (long)1;
    v.timestamp = 1700000000;
    return v;
}

/* The history line for a verdict named `name`, without its newline. */
static char *line_of(const char *name)
{
    struct ng_verdict v = verdict(name);
    char *s = render("history", &v);
    s[strlen(s) - 1] = '\0';
    return s;
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *const want_headline =
    "FAIL: per-epoch regression 1.50x exceeds 1.20x threshold | baseline=200.0ms/epoch "
    "current=300.0ms/epoch ratio=1.500x (epochs=5)";

static void test_torn_and_garbage(void **state)
{
    char *a = line_of("a"), *b = line_of("b"), *c = line_of("c"), *d = line_of("d"),
         *f = line_of("f"), *g = line_of("g");
    struct ng_buf text = NG_BUF_INIT;
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_err err;
    (void)state;
    ng_buf_addf(&text, "%s\n", a);                       /* 1 */
    ng_buf_addf(&text, "%.*s\n", (int)strlen(b) / 2, b);  /* 2: torn, then ended */
    ng_buf_addf(&text, "%s\n", c);                       /* 3 */
    ng_buf_adds(&text, "hello, world\n");                /* 4: garbage */
    ng_buf_adds(&text, "\n");                            /* 5: blank */
    ng_buf_adds(&text, "{\"name\": 7}\n");               /* 6: JSON, not a verdict */
    ng_buf_addf(&text, "%s%s\n", d, d);                  /* 7: two glued together */
    ng_buf_addf(&text, "%s\r\n", f);                     /* 8: CRLF */
    ng_buf_addf(&text, "%.*s", (int)strlen(g) - 3, g);   /* 9: the file ends inside it */
    write_file(text.data);

    assert_int_equal(ng_history_load(&h, path, &err), 0);
    assert_int_equal(h.lines, 9);
    assert_int_equal(h.verdicts, 3);
    assert_int_equal(h.skipped, 5);
    assert_int_equal(h.n_entries, 3);
    static const char *const names[] = { "a", "c", "f" };
    static const size_t lines[] = { 1, 3, 8 };
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(h.entries[i].doc.v.name, names[i]);
        assert_int_equal(h.entries[i].line, lines[i]);
        char *hl = ng_verdict_text_headline_string(&h.entries[i].doc.v);
        assert_string_equal(hl, want_headline);
        free(hl);
    }
    char want[5][256];
    snprintf(want[0], 256, "'%s' line 2: not valid JSON (a torn or garbage line); skipped", path);
    snprintf(want[1], 256, "'%s' line 4: not valid JSON (a torn or garbage line); skipped", path);
    snprintf(want[2], 256, "'%s' line 6: not a JSON verdict (a torn or garbage line); skipped", path);
    snprintf(want[3], 256, "'%s' line 7: more than one JSON value (a torn or garbage line); "
                           "skipped", path);
    snprintf(want[4], 256, "'%s' line 9: not valid JSON (the file ends inside it: a torn line); "
                           "skipped", path);
    assert_int_equal(h.n_warnings, 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(h.warnings[i], want[i]);
    ng_history_release(&h);
    ng_buf_release(&text);
    free(a); free(b); free(c); free(d); free(f); free(g);
}

/* Bytes handed over in chunks of at most 7 (lines split between them). */
struct bytes {
    const char *p;
    size_t left;
};

static int next_bytes(void *ctx, const char **chunk, size_t *len)
{
    struct bytes *b = ctx;
    if (!b->left)
        return 0;
    *chunk = b->p;
    *len = b->left < 7 ? b->left : 7;
    b->p += *len;
    b->left -= *len;
    return 1;
}

/* Counts the lines read as verdicts. */
static int count_line(const struct ng_history_line *l, void *ctx, struct ng_err *err)
{
    struct ng_verdict_doc doc;
    int ret = ng_verdict_doc_read(&doc, l->text, l->len, err);
    ng_verdict_doc_release(&doc);
    if (ret == 0)
        ++*(size_t *)ctx;
    return ret;
}

/* text read as two parts split at byte `split`, each in 7-byte chunks;
 * the lines read as verdicts counted in *read. */
static void read_parts(const struct ng_buf *text, size_t split, struct ng_history *first,
                       struct ng_history *second, size_t *read)
{
    struct bytes part1 = { text->data, split }, part2 = { text->data + split, text->len - split };
    struct ng_err err;
    *first = (struct ng_history)NG_HISTORY_INIT;
    *second = (struct ng_history)NG_HISTORY_INIT;
    assert_int_equal(ng_history_read_chunks(first, next_bytes, &part1, path, count_line, read,
                                            &err), 0);
    second->offset = split;
    assert_int_equal(ng_history_read_chunks(second, next_bytes, &part2, path, count_line, read,
                                            &err), 0);
}

/* The second part joined to the first gives what reading the whole file
 * gave: its counts and its warnings, word for word. */
static void expect_joined_as_whole(struct ng_history *first, struct ng_history *second,
                                   const struct ng_history *whole)
{
    ng_history_join(first, second, path);
    assert_int_equal(first->lines, whole->lines);
    assert_int_equal(first->verdicts, whole->verdicts);
    assert_int_equal(first->skipped, whole->skipped);
    assert_int_equal(first->n_warnings, whole->n_warnings);
    for (size_t i = 0; i < whole->n_warnings; i++)
        assert_string_equal(first->warnings[i], whole->warnings[i]);
    ng_history_release(first);
}

/* A file read as two parts at once, split at a line's end, each in small
 * chunks: the second part counts its lines from 0 and is renumbered once
 * the first is read, so both give the warnings, counts and the last line
 * number that the whole file read as a stream gives. */
static void test_parts_renumbered(void **state)
{
    char *a = line_of("a"), *b = line_of("b");
    struct ng_buf text = NG_BUF_INIT;
    (void)state;
    ng_buf_addf(&text, "%s\n", a);                  /* 1 */
    ng_buf_adds(&text, "garbage\n");                /* 2 */
    ng_buf_addf(&text, "%s\n", b);                  /* 3: the second part starts here */
    ng_buf_adds(&text, "\n");                       /* 4: blank */
    ng_buf_adds(&text, "{\"name\": 7}\n");          /* 5 */
    ng_buf_addf(&text, "%s\n", a);                  /* 6 */
    ng_buf_addf(&text, "%.*s", (int)strlen(b) / 2, b);   /* 7: torn */
    write_file(text.data);
    struct ng_history whole = NG_HISTORY_INIT;
    struct ng_err err;
    assert_int_equal(ng_history_load(&whole, path, &err), 0);

    size_t split = strlen(a) + 1 + strlen("garbage\n");
    struct ng_history first, second;
    size_t read = 0;
    read_parts(&text, split, &first, &second, &read);
    assert_int_equal(second.lines, 5);
    snprintf(err.msg, sizeof err.msg, "'%s' line 3: not a JSON verdict", path);
    assert_int_equal(strncmp(second.warnings[0], err.msg, strlen(err.msg)), 0);
    assert_int_equal(read, whole.n_entries);
    assert_int_equal(whole.n_warnings, 3);
    expect_joined_as_whole(&first, &second, &whole);
    ng_history_release(&whole);
    ng_buf_release(&text);
    free(a);
    free(b);
}

/* Past the cap, the parts' warnings joined are the whole file's: the first
 * NG_HISTORY_WARNINGS_MAX bad lines named across both parts, then one
 * count of the rest, whichever part the split falls in. */
static void test_parts_joined_past_the_cap(void **state)
{
    char *a = line_of("a");
    struct ng_buf text = NG_BUF_INIT;
    (void)state;
    for (int i = 0; i < 260; i++) {   /* two of every three lines bad */
        if (i % 3)
            ng_buf_addf(&text, "garbage %d\n", i);
        else
            ng_buf_addf(&text, "%s\n", a);
    }
    write_file(text.data);
    struct ng_history whole = NG_HISTORY_INIT;
    struct ng_err err;
    assert_int_equal(ng_history_load(&whole, path, &err), 0);
    assert_int_equal(whole.n_warnings, NG_HISTORY_WARNINGS_MAX + 1);

    size_t lines_at[] = { 10, 100, 200 };   /* the split, in lines */
    for (size_t k = 0; k < 3; k++) {
        size_t split = 0;
        for (size_t n = 0; n < lines_at[k]; n++)
            split = (size_t)(strchr(text.data + split, '\n') - text.data) + 1;
        struct ng_history first, second;
        size_t read = 0;
        read_parts(&text, split, &first, &second, &read);
        expect_joined_as_whole(&first, &second, &whole);
    }
    ng_history_release(&whole);
    ng_buf_release(&text);
    free(a);
}

/* A line of an older version (only the fields the first gate wrote) and a
 * line with fields this version does not know: both read. */
static void test_old_and_unknown(void **state)
{
    char *full = line_of("new");
    struct ng_buf text = NG_BUF_INIT;
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_err err;
    (void)state;
    ng_buf_adds(&text,
        "{\"schema_version\":1,\"name\":\"old\",\"verdict\":\"fail\",\"baseline_ms_per_epoch\":200,"
        "\"current_ms_per_epoch\":300,\"ratio\":1.5,\"threshold\":1.2,\"epochs\":5,"
        "\"baseline\":{\"path\":\"b.sqlite\",\"total_gpu_ms\":1000},"
        "\"current\":{\"path\":\"c.sqlite\",\"total_gpu_ms\":1500},"
        "\"message\":\"FAIL: ...\",\"error\":null,\"timestamp\":\"2023-11-14T22:13:20Z\"}\n");
    /* unknown fields, at the top and inside, of every JSON type */
    ng_buf_addf(&text, "{\"context\":{\"commit\":\"abc\",\"labels\":[1,null,true]},%s\n", full + 1);
    write_file(text.data);

    assert_int_equal(ng_history_load(&h, path, &err), 0);
    assert_int_equal(h.n_warnings, 0);
    assert_int_equal(h.n_entries, 2);
    const struct ng_verdict *old = &h.entries[0].doc.v, *unknown = &h.entries[1].doc.v;
    assert_string_equal(old->name, "old");
    assert_int_equal(old->outcome, NG_OUTCOME_FAIL);
    assert_string_equal(old->mode, "total");   /* the default of a line without it */
    assert_null(old->metric);
    assert_string_equal(old->baseline.path, "b.sqlite");
    assert_true(old->baseline.total_ns == 1000000000);
    char *hl = ng_verdict_text_headline_string(old);
    assert_string_equal(hl, want_headline);
    free(hl);
    assert_string_equal(unknown->name, "new");
    hl = ng_verdict_text_headline_string(unknown);
    assert_string_equal(hl, want_headline);
    free(hl);
    ng_history_release(&h);
    ng_buf_release(&text);
    free(full);
}

struct count {
    size_t n;
    size_t last_line;
    int in_order;
};

static int count_entry(struct ng_history_entry *e, void *ctx)
{
    struct count *c = ctx;
    c->in_order &= e->line == c->last_line + 1 && e->doc.v.outcome == NG_OUTCOME_FAIL;
    c->last_line = e->line;
    c->n++;
    return 0;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 100,000 lines (about 150 MB): streamed, one line in memory at a time. */
static void test_huge(void **state)
{
    enum { N = 100000 };
    char *line = line_of("gate-000000");
    char *digits = strstr(line, "000000");
    struct ng_history h = NG_HISTORY_INIT;
    struct count c = { 0, 0, 1 };
    struct ng_err err;
    struct timespec t0, t1;
    (void)state;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < N; i++) {
        char num[8];
        snprintf(num, sizeof num, "%06d", i);
        memcpy(digits, num, 6);
        fprintf(f, "%s\n", line);
    }
    long bytes = ftell(f);
    fclose(f);

    long before = peak_rss_kb();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(ng_history_read(&h, path, count_entry, &c, &err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long grew = peak_rss_kb() - before;
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("# %d lines, %.1f MB: read in %.2f s (%.0f lines/s), peak RSS +%ld KB\n", N,
                  (double)bytes / 1e6, s, N / s, grew);
    assert_int_equal(c.n, N);
    assert_true(c.in_order);
    assert_int_equal(h.lines, N);
    assert_int_equal(h.n_warnings, 0);
#ifndef __SANITIZE_ADDRESS__
    assert_true(grew < 16 * 1024);   /* the file is 150 MB: it was never held */
#endif
    ng_history_release(&h);
    free(line);
}

/* A line past line_max is dropped as it is read, and a flood of garbage
 * keeps NG_HISTORY_WARNINGS_MAX warnings and counts the rest. */
static void test_bounds(void **state)
{
    char *good = line_of("after");
    struct ng_buf text = NG_BUF_INIT;
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_err err;
    char want[256];
    (void)state;
    for (int i = 0; i < 10000; i++)
        ng_buf_adds(&text, "x");
    ng_buf_addf(&text, "\n%s\n", good);
    for (int i = 0; i < 150; i++)
        ng_buf_adds(&text, "garbage\n");
    write_file(text.data);

    h.line_max = 4096;
    assert_int_equal(ng_history_load(&h, path, &err), 0);
    assert_int_equal(h.n_entries, 1);
    assert_string_equal(h.entries[0].doc.v.name, "after");
    assert_int_equal(h.entries[0].line, 2);
    assert_int_equal(h.skipped, 151);
    assert_int_equal(h.n_warnings, NG_HISTORY_WARNINGS_MAX + 1);
    snprintf(want, sizeof want, "'%s' line 1: longer than 4096 bytes; skipped", path);
    assert_string_equal(h.warnings[0], want);
    snprintf(want, sizeof want, "'%s': 51 more lines skipped", path);
    assert_string_equal(h.warnings[NG_HISTORY_WARNINGS_MAX], want);
    ng_history_release(&h);
    ng_buf_release(&text);
    free(good);
}

static int stop_at_two(struct ng_history_entry *e, void *ctx)
{
    struct ng_verdict_doc *kept = ctx;
    if (e->line == 2) {   /* keep this one: move it out */
        *kept = e->doc;
        memset(&e->doc, 0, sizeof e->doc);
        return 1;
    }
    return 0;
}

/* A callback may keep a verdict and stop; a missing file is an error. */
static void test_callback_and_errors(void **state)
{
    char *a = line_of("a"), *b = line_of("b");
    struct ng_buf text = NG_BUF_INIT;
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_verdict_doc kept;
    struct ng_err err;
    (void)state;
    ng_buf_addf(&text, "%s\n%s\n%s\n", a, b, a);
    write_file(text.data);
    memset(&kept, 0, sizeof kept);
    assert_int_equal(ng_history_read(&h, path, stop_at_two, &kept, &err), 0);
    assert_int_equal(h.lines, 2);   /* stopped there */
    assert_string_equal(kept.v.name, "b");
    ng_verdict_doc_release(&kept);
    ng_history_release(&h);

    assert_int_equal(ng_history_load(&h, "/nonexistent/h.jsonl", &err), -1);
    assert_string_equal(err.msg, "unable to open '/nonexistent/h.jsonl': No such file or directory");
    ng_history_release(&h);
    ng_buf_release(&text);
    free(a);
    free(b);
}

/* The run context and the timestamp come back as written: the fixed
 * fields and the labels, in their order; a null field is no item. */
static void test_context_read_back(void **state)
{
    struct ng_verdict v = verdict("ctx");
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    ng_context_set(&v.context, "model", "resnet50");
    ng_context_set(&v.context, "commit", "0123456789abcdef");
    ng_context_set(&v.context, "run_url", "https://ci.example/run/7");
    char *s = render("history", &v);
    ng_context_release(&v.context);
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    assert_int_equal(d.v.context.n, 3);
    assert_string_equal(d.v.context.items[0].key, "commit");
    assert_string_equal(d.v.context.items[0].value, "0123456789abcdef");
    assert_string_equal(d.v.context.items[1].key, "run_url");
    assert_string_equal(d.v.context.items[2].key, "model");
    assert_string_equal(ng_context_get(&d.v.context, "model"), "resnet50");
    assert_null(ng_context_get(&d.v.context, "branch"));
    assert_true(d.v.timestamp == 1700000000);
    ng_verdict_doc_release(&d);
    free(s);
}

/* The rows come back; past NG_WORK_RATES_CAP they are one others row that holds
 * the rest (the verdict's own others row too). */
static void test_rows(void **state)
{
    struct ng_verdict v = verdict("rows");
    struct ng_work_rate many[NG_WORK_RATES_CAP + 11];
    char names[NG_WORK_RATES_CAP + 10][16];
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    for (size_t i = 0; i < NG_WORK_RATES_CAP + 10; i++) {
        snprintf(names[i], sizeof names[i], "k%03zu", i);
        many[i] = (struct ng_work_rate){ names[i], NG_WORK_KERNEL, 100.0 - (double)i, 2.0 };
    }
    many[NG_WORK_RATES_CAP + 10] = (struct ng_work_rate){ "others", NG_WORK_OTHERS, 5.0, 1.0 };
    v.rows = many;
    v.n_rows = NG_WORK_RATES_CAP + 11;
    char *s = render("history", &v);
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    assert_true(d.v.has_rows);
    assert_int_equal(d.v.n_rows, NG_WORK_RATES_CAP + 1);
    assert_string_equal(d.v.rows[0].name, "k000");
    assert_int_equal(d.v.rows[NG_WORK_RATES_CAP - 1].kind, NG_WORK_KERNEL);
    const struct ng_work_rate *o = &d.v.rows[NG_WORK_RATES_CAP];
    assert_int_equal(o->kind, NG_WORK_OTHERS);
    assert_string_equal(o->name, "others");
    /* the ten past the cap (100-50 ... 100-59 ms) and the 5 ms others row */
    assert_true(o->ms_per_epoch == 10 * 100.0 - (50 + 59) * 10 / 2.0 + 5.0);
    assert_true(o->launches_per_epoch == 21.0);
    assert_non_null(strstr(s, "\"rows\":{\"cap\":50,\"items\":[{\"kind\":\"kernel\",\"name\":\"k000\","
                              "\"ms_per_epoch\":100,\"launches_per_epoch\":2}"));
    assert_non_null(strstr(s, "\"trimmed\":false}\n"));
    ng_verdict_doc_release(&d);
    free(s);
}

/* n groups of nested ranges with 200-byte names (a trace whose ranges
 * carry ids that are not digits). */
static struct ng_range_delta *many_ranges(size_t n)
{
    struct ng_range_delta *rg = calloc(n, sizeof *rg);
    for (size_t i = 0; i < n; i++) {
        char name[201];
        memset(name, 'x', 200);
        name[200] = '\0';
        for (size_t k = 0, x = i; k < 8; k++, x /= 26)
            name[k] = (char)('a' + x % 26);
        rg[i] = (struct ng_range_delta){ strdup(name), 1.0, 2.0, 1.0, 0.00002 };
    }
    return rg;
}

static void free_ranges(struct ng_range_delta *rg, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rg[i].name);
    free(rg);
}

/* Those groups alone: the line keeps 50 of them and fits. */
static void test_many_ranges(void **state)
{
    enum { N = 50000 };
    struct ng_verdict v = verdict("ranges");
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    v.has_ranges = 1;
    v.ranges = many_ranges(N);
    v.n_ranges = N;
    char *s = render("history", &v);
    assert_true(strlen(s) <= NG_HISTORY_LINE_LIMIT);
    assert_non_null(strstr(s, "\"trimmed\":false}"));
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    ng_verdict_doc_release(&d);
    free(s);
    free_ranges(v.ranges, N);
}

/* A line only the last level fits (300 devices a side, which no level
 * trims, beside 50 rows of long names: 50 rows do not fit, 20 do), with
 * 1,000 kernels and 1,000 range groups of long names: that level keeps
 * none of them, not every one. */
static void test_last_level(void **state)
{
    enum { DEVS = 185, K = 1000, ROWS = 50 };
    struct ng_verdict v = verdict("last level");
    struct ng_place *devs = calloc(DEVS, sizeof *devs);
    struct ng_kernel_delta *ks = calloc(K, sizeof *ks);
    struct ng_work_rate *rs = calloc(ROWS, sizeof *rs);
    struct ng_range_delta *rg = many_ranges(K);
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    for (size_t i = 0; i < DEVS; i++)
        devs[i] = (struct ng_place){ (int64_t)i, 1000000 + (int64_t)i, 10, -1, NG_OWNER_UNSET };
    for (size_t i = 0; i < K; i++) {
        ks[i] = kernels[0];
        ks[i].name = rg[i].name;
    }
    for (size_t i = 0; i < ROWS; i++)
        rs[i] = (struct ng_work_rate){ rg[i].name, NG_WORK_KERNEL, 1.0, 1.0 };
    v.baseline.has_places = v.current.has_places = 1;
    v.baseline.devices = v.current.devices = v.baseline.processes = v.current.processes = devs;
    v.baseline.n_devices = v.current.n_devices = DEVS;
    v.baseline.n_processes = v.current.n_processes = DEVS;
    v.kernels = ks;
    v.n_kernels = K;
    v.rows = rs;
    v.n_rows = ROWS;
    v.has_ranges = 1;
    v.ranges = rg;
    v.n_ranges = K;
    char *s = render("history", &v);
    print_message("# a line of the last level: %zu bytes\n", strlen(s));
    assert_true(strlen(s) <= NG_HISTORY_LINE_LIMIT);
    assert_non_null(strstr(s, "\"trimmed\":true}"));
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    assert_int_equal(d.v.n_rows, 20 + 1);   /* the last level's 20 and the others row */
    assert_int_equal(d.v.n_kernels, 0);
    assert_non_null(strstr(s, "\"ranges\":[]"));
    ng_verdict_doc_release(&d);
    free(s);
    free_ranges(rg, K);
    free(rs);
    free(ks);
    free(devs);
}

/* Hostile sizes: names of 1 MB (50 kernels, 50 rows), 1,000 warnings of
 * 1 MB, 64 labels of 1 MB, 64 runs a side with 4 KB paths, 100,000
 * samples a side, 50,000 groups of nested ranges.  The line stays under 64 KB, reads back, and says it was
 * trimmed; a line of ordinary size is not. */
static void test_hostile_sizes(void **state)
{
    enum { MB = 1 << 20, K = 50, W = 1000, L = 64, R = 64, S = 100000 };
    struct ng_verdict v = verdict("hostile");
    char *big = malloc(MB + 1);
    struct ng_kernel_delta *ks = calloc(K, sizeof *ks);
    struct ng_work_rate *rs = calloc(K, sizeof *rs);
    char **names = calloc(K, sizeof *names);
    char *warnings[W];
    struct ng_verdict_run runs[R];
    double *samples = malloc(S * sizeof *samples);
    char longpath[4097];
    struct ng_verdict_doc d;
    struct ng_err err;
    (void)state;
    memset(big, '<', MB);
    big[MB] = '\0';
    for (size_t i = 0; i < K; i++) {
        names[i] = strdup(big);
        memcpy(names[i], "kernel", 6);
        names[i][6] = (char)('A' + i % 26);
        names[i][7] = (char)('a' + i / 26);
        ks[i] = kernels[0];
        ks[i].name = names[i];
        rs[i] = (struct ng_work_rate){ names[i], NG_WORK_KERNEL, 1.0, 1.0 };
    }
    for (size_t i = 0; i < W; i++)
        warnings[i] = big;
    for (size_t i = 0; i < L; i++) {
        char key[16];
        snprintf(key, sizeof key, "label%02zu", i);
        ng_context_set(&v.context, key, big);
    }
    memset(longpath, 'p', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    for (size_t i = 0; i < R; i++)
        runs[i] = (struct ng_verdict_run){ .path = longpath, .format = NG_FORMAT_SQLITE,
                                           .loaded = 1, .total_ns = 1000,
                                           .kernel_count = 10, .rank = -1,
                                           .world_size = -1 };
    for (size_t i = 0; i < S; i++)
        samples[i] = 100.0 + (double)(i % 1000) / 1000.0;
    v.kernels = ks;
    v.n_kernels = K;
    v.rows = rs;
    v.n_rows = K;
    v.warnings = warnings;
    v.n_warnings = W;
    v.baseline.runs = v.current.runs = runs;
    v.baseline.n_runs = v.current.n_runs = R;
    v.baseline.samples = v.current.samples = samples;
    v.baseline.n_samples = v.current.n_samples = S;
    v.baseline.path = v.current.path = longpath;
    v.name = big;
    v.has_ranges = 1;
    v.ranges = many_ranges(50000);
    v.n_ranges = 50000;

    char *s = render("history", &v);
    print_message("# a hostile verdict's history line: %zu bytes\n", strlen(s));
    assert_true(strlen(s) <= NG_HISTORY_LINE_LIMIT);
    assert_int_equal(s[strlen(s) - 1], '\n');
    assert_null(memchr(s, '\n', strlen(s) - 1));
    assert_non_null(strstr(s, "\"trimmed\":true}"));
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    assert_true(d.v.current.n_samples >= 2 && d.v.current.n_samples < S);
    assert_true(d.v.current.samples[0] == 100.0);   /* min and max stay */
    assert_true(d.v.current.samples[d.v.current.n_samples - 1] == 100.999);
    ng_verdict_doc_release(&d);
    free(s);

    /* the same names alone fit in level 0: cut, with their hash */
    struct ng_verdict plain = verdict("plain");
    plain.kernels = ks;
    plain.n_kernels = 5;
    plain.rows = rs;
    plain.n_rows = K;
    s = render("history", &plain);
    assert_true(strlen(s) <= NG_HISTORY_LINE_LIMIT);
    assert_non_null(strstr(s, "\"trimmed\":false}"));
    assert_int_equal(ng_verdict_doc_read(&d, s, strlen(s), &err), 0);
    assert_int_equal(d.v.n_rows, K);
    struct ng_buf want = NG_BUF_INIT;
    ng_work_rates_name(&want, names[3]);
    assert_string_equal(d.v.rows[3].name, want.data);
    assert_string_equal(d.v.kernels[3].name, want.data);
    assert_string_not_equal(d.v.rows[3].name, d.v.rows[4].name);
    ng_buf_release(&want);
    ng_verdict_doc_release(&d);
    free(s);

    ng_context_release(&v.context);
    free_ranges(v.ranges, v.n_ranges);
    for (size_t i = 0; i < K; i++)
        free(names[i]);
    free(names);
    free(ks);
    free(rs);
    free(samples);
    free(big);
}

/* Lines as the gate wrote them before run contexts and rows
 * (tests/golden/fixtures/history_main_4c2abb4.jsonl, from main at 4c2abb4):
 * read, with no context and no rows. */
static void test_lines_before_rows(void **state)
{
    struct ng_history h = NG_HISTORY_INIT;
    struct ng_err err;
    struct ng_buf fixture = NG_BUF_INIT;
    (void)state;
    ng_buf_addf(&fixture, "%s/tests/golden/fixtures/history_main_4c2abb4.jsonl",
                getenv("SRCDIR") ? getenv("SRCDIR") : ".");
    assert_int_equal(ng_history_load(&h, fixture.data, &err), 0);
    assert_int_equal(h.n_warnings, 0);
    assert_int_equal(h.n_entries, 6);
    for (size_t i = 0; i < h.n_entries; i++) {
        assert_int_equal(h.entries[i].doc.v.context.n, 0);
        assert_false(h.entries[i].doc.v.has_rows);
        assert_true(h.entries[i].doc.v.timestamp > 0);
    }
    const struct ng_verdict *nvtx = &h.entries[3].doc.v;
    assert_string_equal(nvtx->name, "nvtx-fail");
    assert_string_equal(nvtx->mode, "nvtx");
    assert_int_equal(nvtx->current.n_samples, 10);
    assert_int_equal(h.entries[5].doc.v.outcome, NG_OUTCOME_ERROR);
    ng_history_release(&h);
    ng_buf_release(&fixture);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torn_and_garbage),
        cmocka_unit_test(test_parts_renumbered),
        cmocka_unit_test(test_parts_joined_past_the_cap),
        cmocka_unit_test(test_old_and_unknown),
        cmocka_unit_test(test_huge),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_callback_and_errors),
        cmocka_unit_test(test_context_read_back),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_hostile_sizes),
        cmocka_unit_test(test_many_ranges),
        cmocka_unit_test(test_last_level),
        cmocka_unit_test(test_lines_before_rows),
    };
    return cmocka_run_group_tests_name("history", tests, temp_setup, temp_teardown);
}
