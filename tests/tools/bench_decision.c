/* bench_decision: the cost of the decision's statistics alone, for
 * ci/bench.sh: reads the two sides' samples from a verdict JSON (--json of
 * a run on the same input), then times what the gate computes on them
 * (ng_means_warmup and ng_means_compare: the warm-up, the ratio of means,
 * clusters and the mix, the dependence, the Welch test and its interval,
 * the test of the logs when skewed; the U test beside it) and prints the
 * CPU seconds of one pass, the median of --runs passes.
 *
 *   bench_decision VERDICT.json [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/ng_means.h"
#include "core/ng_stats.h"

static double *side(const cJSON *samples, const char *name, size_t *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(samples, name), *it;
    double *x = malloc(((size_t)cJSON_GetArraySize(a) + 1) * sizeof *x);
    *n = 0;
    cJSON_ArrayForEach(it, a)
        x[(*n)++] = it->valuedouble;
    return x;
}

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_decision VERDICT.json [RUNS]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    if (fread(text, 1, (size_t)len, f) != (size_t)len)
        return 2;
    fclose(f);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(root, "samples");
    size_t nx, ny;
    double *x = side(samples, "baseline", &nx), *y = side(samples, "current", &ny);
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    double *t = calloc((size_t)runs, sizeof *t), sink = 0;
    for (int r = 0; r < runs; r++) {
        struct ng_means m;
        double t0 = cpu();
        size_t wx = ng_means_warmup(x, nx), wy = ng_means_warmup(y, ny);
        ng_means_compare(x + wx, nx - wx, y + wy, ny - wy, 1.2, 0.05, &m);
        sink += m.p_value + ng_stats_mwu_greater(x, nx, y, ny, NULL);
        t[r] = cpu() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, by_value);
    printf("{\"baseline\": %zu, \"current\": %zu, \"cpu_s\": %.6f, \"check\": %g}\n", nx, ny,
           t[runs / 2], sink > -1 ? 0.0 : 1.0);
    cJSON_Delete(root);
    free(text);
    free(x);
    free(y);
    free(t);
    return 0;
}
