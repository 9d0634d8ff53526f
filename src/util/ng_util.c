#include "util/ng_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/ng_oom.h"
#include "util/ng_signal.h"

static void oom(void)
{
    ng_oom_fail();
}

void *ng_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *ng_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *ng_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *ng_xgrow(void *p, size_t n, size_t size)
{
    size_t bytes;

    if (n != 0 && (n < 16 || (n & (n - 1)) != 0))
        return p;
    if (__builtin_mul_overflow(n ? 2 * n : 16, size, &bytes))
        oom();
    return ng_xrealloc(p, bytes);
}

char *ng_xstrdup(const char *s)
{
    return ng_xstrndup(s, strlen(s));
}

char *ng_xstrndup(const char *s, size_t n)
{
    char *p = ng_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

#define ARENA_BLOCK ((size_t)64 << 10)

struct ng_arena_block {
    struct ng_arena_block *next;
    size_t used, cap;
    char data[];
};

static struct ng_arena_block *arena_block(size_t cap, struct ng_arena_block *next)
{
    struct ng_arena_block *b = ng_xmalloc(sizeof *b + cap);
    b->used = 0;
    b->cap = cap;
    b->next = next;
    return b;
}

char *ng_arena_strdup(struct ng_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    struct ng_arena_block *b = a->head;
    if (n > ARENA_BLOCK / 4) {
        /* a long string gets a block of its own, behind the one being
         * filled, whose room stays in use */
        struct ng_arena_block *own = arena_block(n, b ? b->next : NULL);
        if (b)
            b->next = own;
        else
            a->head = own;
        b = own;
    } else if (!b || b->cap - b->used < n) {
        b = a->head = arena_block(ARENA_BLOCK, a->head);
    }
    char *p = b->data + b->used;
    memcpy(p, s, n);
    b->used += n;
    return p;
}

void ng_arena_release(struct ng_arena *a)
{
    while (a->head) {
        struct ng_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

void ng_buf_grow(struct ng_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = ng_xrealloc(b->data, cap);
    b->cap = cap;
}

/* Formats straight into the room the buffer has (most texts are short),
 * and again only when that was too small: one vsnprintf, not two. */
void ng_buf_vaddf(struct ng_buf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n;

    va_copy(again, ap);
    ng_buf_grow(b, 128);
    n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        ng_buf_grow(b, (size_t)n);
        n = vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    }
    if (n >= 0)
        b->len += (size_t)n;
    b->data[b->len] = '\0';
    va_end(again);
}

void ng_buf_addf(struct ng_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ng_buf_vaddf(b, fmt, ap);
    va_end(ap);
}

void ng_buf_add_utf8(struct ng_buf *b, unsigned long cp)
{
    unsigned char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (unsigned char)(0xC0 | cp >> 6), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (unsigned char)(0xE0 | cp >> 12), u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (unsigned char)(0xF0 | cp >> 18), u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)),
        n = 4;
    ng_buf_add(b, u, n);
}

void ng_buf_release(struct ng_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *ng_buf_detach(struct ng_buf *b)
{
    char *p;

    if (!b->data)
        return ng_xstrdup("");
    p = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

uint64_t ng_hash(const void *data, size_t len)
{
    const unsigned char *s = data;
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 1099511628211u;
    return h;
}

/* A stored key: its length, then its bytes and a NUL (keys may hold NULs:
 * a reader's key of several names). */
static size_t key_len(const char *k)
{
    size_t len;
    memcpy(&len, k, sizeof len);
    return len;
}

static void strmap_grow(struct ng_strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    char **nk = ng_xcalloc(ncap, sizeof *nk);
    size_t *nv = ng_xcalloc(ncap, sizeof *nv);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = ng_hash(m->keys[i] + sizeof(size_t), key_len(m->keys[i])) & (ncap - 1);
        while (nk[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
}

const char *ng_strmap_key(const struct ng_strmap *m, size_t i, size_t *len)
{
    if (!m->keys[i])
        return NULL;
    if (len)
        *len = key_len(m->keys[i]);
    return m->keys[i] + sizeof(size_t);
}

size_t ng_strmap_get(struct ng_strmap *m, const char *key, size_t len, size_t next_val,
                     int *added)
{
    if ((m->used + 1) * 2 > m->cap)
        strmap_grow(m);
    size_t j = ng_hash(key, len) & (m->cap - 1);
    while (m->keys[j]) {
        if (key_len(m->keys[j]) == len && memcmp(m->keys[j] + sizeof(size_t), key, len) == 0) {
            if (added)
                *added = 0;
            return m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    char *k = ng_xmalloc(sizeof len + len + 1);
    memcpy(k, &len, sizeof len);
    memcpy(k + sizeof len, key, len);
    k[sizeof len + len] = '\0';
    m->keys[j] = k;
    m->vals[j] = next_val;
    m->used++;
    if (added)
        *added = 1;
    return next_val;
}

void ng_strmap_release(struct ng_strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static size_t idmap_hash(int64_t a, int64_t b, size_t cap)
{
    uint64_t x = (uint64_t)a * 0x9E3779B97F4A7C15u ^ ((uint64_t)b + 0x632BE59BD9B4E019u) *
                 0xC2B2AE3D27D4EB4Fu;
    x ^= x >> 29;
    return (size_t)(x * 0xBF58476D1CE4E5B9u >> 32) & (cap - 1);
}

static void idmap_grow(struct ng_idmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    struct ng_idmap_slot *ns = ng_xmalloc(ncap * sizeof *ns);
    for (size_t i = 0; i < ncap; i++)
        ns[i].val = SIZE_MAX;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].val == SIZE_MAX)
            continue;
        size_t j = idmap_hash(m->slots[i].a, m->slots[i].b, ncap);
        while (ns[j].val != SIZE_MAX)
            j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
}

size_t ng_idmap_find(const struct ng_idmap *m, int64_t a, int64_t b)
{
    if (!m->cap)
        return SIZE_MAX;
    size_t j = idmap_hash(a, b, m->cap);
    while (m->slots[j].val != SIZE_MAX) {
        if (m->slots[j].a == a && m->slots[j].b == b)
            return m->slots[j].val;
        j = (j + 1) & (m->cap - 1);
    }
    return SIZE_MAX;
}

/* The slot of (a, b): its own, or the free one it would take. */
static struct ng_idmap_slot *idmap_slot(struct ng_idmap *m, int64_t a, int64_t b)
{
    if ((m->used + 1) * 2 > m->cap)
        idmap_grow(m);
    size_t j = idmap_hash(a, b, m->cap);
    while (m->slots[j].val != SIZE_MAX && !(m->slots[j].a == a && m->slots[j].b == b))
        j = (j + 1) & (m->cap - 1);
    return &m->slots[j];
}

size_t ng_idmap_get(struct ng_idmap *m, int64_t a, int64_t b, size_t next_val, int *added)
{
    struct ng_idmap_slot *s = idmap_slot(m, a, b);
    int fresh = s->val == SIZE_MAX;
    if (fresh) {
        *s = (struct ng_idmap_slot){ a, b, next_val };
        m->used++;
    }
    if (added)
        *added = fresh;
    return s->val;
}

void ng_idmap_set(struct ng_idmap *m, int64_t a, int64_t b, size_t val)
{
    struct ng_idmap_slot *s = idmap_slot(m, a, b);
    if (s->val == SIZE_MAX)
        m->used++;
    *s = (struct ng_idmap_slot){ a, b, val };
}

void ng_idmap_release(struct ng_idmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

time_t ng_util_report_time(void)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (errno == 0 && *end == '\0' && v >= 0)
            return (time_t)v;
    }
    return time(NULL);
}

double ng_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ng_strv_push(char ***v, size_t *n, char *s)
{
    *v = ng_xgrow(*v, *n, sizeof **v);
    (*v)[(*n)++] = s;
}

void ng_strv_free(char ***v, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
    *n = 0;
}

double ng_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ng_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
