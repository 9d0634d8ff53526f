/* The floor of a Chrome-trace reader built on Debian's libyajl (a
 * streaming JSON parser), for ci/bench.py: one pass over the file with
 * callbacks that only note the keys an event needs (ph, cat, name, ts,
 * dur, args.correlation) and the length of their values' text, far less
 * than the gate's reader does with them.  The gate's own scanner
 * (util/ng_json_scan.h) was chosen over yajl because the gate reads a
 * trace faster than this floor; the bench keeps showing both.
 *
 *   cc -O2 -o yajl_floor ci/yajl_floor.c -lyajl && ./yajl_floor TRACE.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

struct st { int depth; int key; long events; long kernels; long long sum_len; };
enum { K_OTHER, K_CAT, K_NAME, K_TS, K_DUR, K_CORR, K_PH };

static int on_null(void *c) { (void)c; return 1; }
static int on_bool(void *c, int b) { (void)c; (void)b; return 1; }
static int on_number(void *c, const char *s, size_t n) { struct st *x = c; if (x->key == K_TS || x->key == K_DUR || x->key == K_CORR) x->sum_len += n + (s[0] == '-'); return 1; }
static int on_string(void *c, const unsigned char *s, size_t n) { struct st *x = c; if (x->key == K_CAT && n == 6 && memcmp(s, "kernel", 6) == 0) x->kernels++; if (x->key == K_NAME) x->sum_len += n; return 1; }
static int on_start_map(void *c) { struct st *x = c; x->depth++; if (x->depth == 2) x->events++; return 1; }
static int on_key(void *c, const unsigned char *k, size_t n) {
    struct st *x = c; x->key = K_OTHER;
    if (x->depth == 2 || x->depth == 3) {
        if (n == 3 && !memcmp(k, "cat", 3)) x->key = K_CAT;
        else if (n == 4 && !memcmp(k, "name", 4)) x->key = K_NAME;
        else if (n == 2 && !memcmp(k, "ts", 2)) x->key = K_TS;
        else if (n == 3 && !memcmp(k, "dur", 3)) x->key = K_DUR;
        else if (n == 11 && !memcmp(k, "correlation", 11)) x->key = K_CORR;
        else if (n == 2 && !memcmp(k, "ph", 2)) x->key = K_PH;
    }
    return 1;
}
static int on_end_map(void *c) { struct st *x = c; x->depth--; return 1; }
static int on_start_array(void *c) { (void)c; return 1; }
static int on_end_array(void *c) { (void)c; return 1; }

int main(int argc, char **argv)
{
    static const yajl_callbacks cb = { on_null, on_bool, NULL, NULL, on_number, on_string,
                                       on_start_map, on_key, on_end_map, on_start_array, on_end_array };
    struct st x = { 0 };
    yajl_handle h = yajl_alloc(&cb, NULL, &x);
    static unsigned char buf[1 << 20];
    int fd = open(argv[1], O_RDONLY);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if (yajl_parse(h, buf, (size_t)n) != yajl_status_ok) { fprintf(stderr, "parse error\n"); return 2; }
    if (yajl_complete_parse(h) != yajl_status_ok) { fprintf(stderr, "parse error\n"); return 2; }
    printf("%ld events, %ld kernels, %lld\n", x.events, x.kernels, x.sum_len);
    yajl_free(h);
    return 0;
}
