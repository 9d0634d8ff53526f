#include "ng_profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ng_util.h"

void ng_profile_init(struct ng_profile *p, const char *path)
{
    memset(p, 0, sizeof *p);
    p->path = ng_xstrdup(path ? path : "");
}

void ng_profile_release(struct ng_profile *p)
{
    for (size_t i = 0; i < p->n_rows; i++)
        free(p->rows[i].name);
    free(p->rows);
    for (size_t i = 0; i < p->n_epochs; i++)
        free(p->epochs[i].name);
    free(p->epochs);
    for (size_t i = 0; i < p->n_warnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    free(p->devices);
    free(p->processes);
    free(p->graph_mode);
    free(p->gpu);
    free(p->driver);
    free(p->path);
    memset(p, 0, sizeof *p);
}

void ng_profile_add_row(struct ng_profile *p, enum ng_work_kind kind, const char *name,
                        size_t name_len, int64_t total_ns, int64_t instances)
{
    if (p->n_rows == p->cap_rows) {
        p->cap_rows = p->cap_rows ? p->cap_rows * 2 : 16;
        p->rows = ng_xrealloc(p->rows, p->cap_rows * sizeof *p->rows);
    }
    struct ng_work_row *k = &p->rows[p->n_rows++];
    k->name = ng_xstrndup(name, name_len);
    k->kind = kind;
    k->total_ns = total_ns;
    k->instances = instances;
}

/* Few places (GPUs, ranks): a sorted array, searched in order. */
void ng_profile_add_place(struct ng_place **places, size_t *n, int64_t id, int64_t ns,
                          int64_t launches)
{
    size_t i = 0;
    while (i < *n && (*places)[i].id < id)
        i++;
    if (i == *n || (*places)[i].id != id) {
        *places = ng_xrealloc(*places, (*n + 1) * sizeof **places);
        memmove(*places + i + 1, *places + i, (*n - i) * sizeof **places);
        (*places)[i] = (struct ng_place){ id, 0, 0 };
        (*n)++;
    }
    (*places)[i].ns += ns;
    (*places)[i].launches += launches;
}

void ng_profile_warn(struct ng_profile *p, const char *fmt, ...)
{
    struct ng_buf b = NG_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    ng_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    p->warnings = ng_xgrow(p->warnings, p->n_warnings, sizeof *p->warnings);
    p->warnings[p->n_warnings++] = ng_buf_detach(&b);
}

void ng_profile_add_epoch(struct ng_profile *p, const char *name, int64_t first_start,
                          int64_t ns, int64_t kernels)
{
    p->epochs = ng_xgrow(p->epochs, p->n_epochs, sizeof *p->epochs);
    p->epochs[p->n_epochs++] = (struct ng_epoch){ ng_xstrdup(name), first_start, ns, kernels };
}

static int by_kind_name(const void *a, const void *b)
{
    const struct ng_work_row *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_total(const void *a, const void *b)
{
    const struct ng_work_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return by_kind_name(a, b);
}

int ng_profile_finish(struct ng_profile *p, struct ng_err *err)
{
    size_t out = 0;
    int64_t total = 0, count = 0;

    if (p->n_rows == 0)
        return ng_err_set(err, "'%s' has no CUDA kernel data", p->path);

    /* Rows of one name can arrive several times (grid/block split reports,
     * names that nsys truncated alike): merge them. */
    qsort(p->rows, p->n_rows, sizeof *p->rows, by_kind_name);
    for (size_t i = 0; i < p->n_rows; i++) {
        struct ng_work_row *k = &p->rows[i];
        if (out > 0 && by_kind_name(&p->rows[out - 1], k) == 0) {
            struct ng_work_row *m = &p->rows[out - 1];
            if (__builtin_add_overflow(m->total_ns, k->total_ns, &m->total_ns) ||
                __builtin_add_overflow(m->instances, k->instances, &m->instances))
                return ng_err_set(err, "'%s': kernel time overflows 64 bits", p->path);
            free(k->name);
            k->name = NULL;   /* keeps ng_profile_release() safe on error */
            continue;
        }
        if (out != i) {
            p->rows[out] = *k;
            k->name = NULL;
        }
        out++;
    }
    p->n_rows = out;
    memset(p->kind_ns, 0, sizeof p->kind_ns);
    memset(p->kind_launches, 0, sizeof p->kind_launches);
    for (size_t i = 0; i < out; i++) {
        const struct ng_work_row *r = &p->rows[i];
        if (__builtin_add_overflow(total, r->total_ns, &total) ||
            __builtin_add_overflow(count, r->instances, &count))
            return ng_err_set(err, "'%s': total kernel time overflows 64 bits", p->path);
        p->kind_ns[r->kind] += r->total_ns;   /* bounded by total */
        p->kind_launches[r->kind] += r->instances;
    }
    qsort(p->rows, out, sizeof *p->rows, by_total);
    p->total_ns = total;
    p->launches = count;
    if (!p->measured)
        p->measured_ns = total;   /* kernel-sum, and every source without intervals */
    p->loaded = 1;
    return 0;
}

/* The kinds, and the words of --work that select them. */
static const char *const kind_names[NG_WORK_KINDS] = {
    [NG_WORK_KERNEL] = "kernel",
    [NG_WORK_GRAPH] = "graph",
    [NG_WORK_MEMCPY] = "memcpy",
    [NG_WORK_MEMSET] = "memset",
};

static const struct { const char *word; unsigned mask; } work_words[] = {
    { "kernels", NG_WORK_BIT(NG_WORK_KERNEL) },
    { "graphs", NG_WORK_BIT(NG_WORK_GRAPH) },
    { "memory", NG_WORK_BIT(NG_WORK_MEMCPY) | NG_WORK_BIT(NG_WORK_MEMSET) },
    { "all", NG_WORK_ALL },
};
#define N_WORK_WORDS (sizeof work_words / sizeof work_words[0])

const char *ng_work_kind_name(enum ng_work_kind k)
{
    return (unsigned)k < NG_WORK_KINDS ? kind_names[k] : "unknown";
}

int ng_work_parse(const char *list, unsigned *mask, const char **problem)
{
    unsigned m = 0;

    for (const char *p = list; ; ) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        size_t w = 0;
        while (w < N_WORK_WORDS &&
               !(strlen(work_words[w].word) == n && strncmp(work_words[w].word, p, n) == 0))
            w++;
        if (w == N_WORK_WORDS) {
            *problem = "is not a list of kernels, graphs, memory (or all)";
            return -1;
        }
        m |= work_words[w].mask;
        if (!comma)
            break;
        p = comma + 1;
    }
    *mask = m;
    return 0;
}

const char *ng_work_format(unsigned mask, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    if (mask == NG_WORK_ALL)
        return snprintf(buf, size, "all"), buf;
    for (size_t w = 0; w + 1 < N_WORK_WORDS; w++) {
        if ((mask & work_words[w].mask) != work_words[w].mask)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", work_words[w].word);
        if (n > 0 && (size_t)n < size - len)
            len += (size_t)n;
    }
    return buf;
}

const char *ng_format_name(enum ng_format f)
{
    switch (f) {
    case NG_FORMAT_SQLITE: return "sqlite";
    case NG_FORMAT_NSYS_REP: return "nsys-rep";
    case NG_FORMAT_CSV: return "nsys-stats";
    case NG_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}
