/* ng_util: small helpers shared by every layer: memory that never runs
 * out quietly, a growable byte buffer, an arena, hash maps and the clock.
 * Text and number formatting are ng_text.h's, files ng_file.h's.
 *
 * Ownership: an ng_buf owns its bytes; ng_buf_release() frees them and
 * leaves an empty buffer.  ng_xmalloc()/ng_xstrdup() never return NULL:
 * running out of memory is ng_oom_fail() (the reports are written with
 * that ERROR, then exit 2).  Every other function borrows its arguments. */
#ifndef NG_UTIL_H
#define NG_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "util/ng_err.h"

struct ng_buf {
    char *data;   /* always NUL-terminated when len > 0 or after any append */
    size_t len;
    size_t cap;
};

#define NG_BUF_INIT { NULL, 0, 0 }

/* Room for extra more bytes and the NUL (ng_buf_add's slow path). */
void ng_buf_grow(struct ng_buf *b, size_t extra);

/* Inline: pages and reports append millions of short pieces, most of
 * them literals, whose length and copy the compiler then does in place. */
static inline void ng_buf_add(struct ng_buf *b, const void *data, size_t len)
{
    if (b->len + len + 1 > b->cap)
        ng_buf_grow(b, len);
    if (len)
        __builtin_memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

static inline void ng_buf_adds(struct ng_buf *b, const char *s)
{
    ng_buf_add(b, s, __builtin_strlen(s));
}
void ng_buf_addf(struct ng_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ng_buf_vaddf(struct ng_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The code point cp (at most U+10FFFF) in UTF-8. */
void ng_buf_add_utf8(struct ng_buf *b, unsigned long cp);
void ng_buf_release(struct ng_buf *b);
/* Hands the bytes to the caller (never NULL) and leaves b empty. */
char *ng_buf_detach(struct ng_buf *b);

void *ng_xmalloc(size_t n);
void *ng_xcalloc(size_t n, size_t size);
void *ng_xrealloc(void *p, size_t n);
/* Room for element n of an array of `size`-byte elements that holds n and
 * only ever grows through this call: reallocates when n is 0 or a power of
 * two from 16 on (doubling), else returns p as is.  Appending one at a
 * time with a plain realloc is quadratic wherever realloc cannot grow in
 * place (every realloc under ASan, valgrind, small-block glibc). */
void *ng_xgrow(void *p, size_t n, size_t size);
char *ng_xstrdup(const char *s);
char *ng_xstrndup(const char *s, size_t n);

/* Doubles in ascending order, for ng_sort (NaN sorts as equal to all). */
int ng_cmp_double(const void *a, const void *b);

/* qsort() that takes an empty array as NULL: qsort(NULL, 0, ...) is
 * undefined behaviour (glibc declares base nonnull, UBSan stops there),
 * and an empty list is NULL all through this code. */
static inline void ng_sort(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* Strings kept as long as their arena: copied into blocks that never move
 * and freed all at once, for many small strings that live together (a
 * dashboard's commit and URL of every run: a malloc and a free each would
 * cost more than the copy).  Not for use by two threads at once. */
struct ng_arena_block;
struct ng_arena {
    struct ng_arena_block *head;
};
#define NG_ARENA_INIT { NULL }
char *ng_arena_strdup(struct ng_arena *a, const char *s);
void ng_arena_release(struct ng_arena *a);

/* A list of owned strings, as every warning list is (a profile's, a
 * verdict's, a history reader's, a dashboard's): *v grows one string at a
 * time (ng_xgrow); push takes s, free frees every string and the array
 * and leaves an empty list. */
void ng_strv_push(char ***v, size_t *n, char *s);
void ng_strv_free(char ***v, size_t *n);

/* CPU seconds this thread has used (the budgets of regexes and queries). */
double ng_thread_cpu(void);

/* FNV-1a over len bytes: the hash of every table keyed by a name. */
uint64_t ng_hash(const void *data, size_t len);

/* A string -> index map (open addressing), for grouping by name; a key is
 * any len bytes, NULs included.
 * Ownership: the map copies its keys and frees them in ng_strmap_release(). */
struct ng_strmap {
    char **keys;     /* slots, NULL when free; read through ng_strmap_key() */
    size_t *vals;
    size_t cap;      /* power of two */
    size_t used;
};

#define NG_STRMAP_INIT { NULL, NULL, 0, 0 }

/* The index stored for key (len bytes), inserting next_val if absent;
 * *added tells which happened (may be NULL). */
size_t ng_strmap_get(struct ng_strmap *m, const char *key, size_t len, size_t next_val,
                     int *added);
void ng_strmap_release(struct ng_strmap *m);

/* The key in slot i (0 <= i < cap), NUL-terminated after its *len bytes,
 * or NULL when the slot is free: the set's names, in no order. */
const char *ng_strmap_key(const struct ng_strmap *m, size_t i, size_t *len);

/* A map from a pair of 64-bit integers to an index (open addressing): for
 * grouping by ids, e.g. (kind, name id), (process, correlation id),
 * (epoch, device).  Ownership: the map owns its slots only. */
struct ng_idmap_slot {
    int64_t a, b;
    size_t val;      /* the index stored; SIZE_MAX marks a free slot */
};

struct ng_idmap {
    struct ng_idmap_slot *slots;
    size_t cap;      /* power of two */
    size_t used;
};

#define NG_IDMAP_INIT { NULL, 0, 0 }

/* The index stored for (a, b), inserting next_val if absent; *added tells
 * which happened (may be NULL). */
size_t ng_idmap_get(struct ng_idmap *m, int64_t a, int64_t b, size_t next_val, int *added);
/* Stores val for (a, b), replacing what was there. */
void ng_idmap_set(struct ng_idmap *m, int64_t a, int64_t b, size_t val);
/* The index for (a, b), or SIZE_MAX when absent (nothing inserted). */
size_t ng_idmap_find(const struct ng_idmap *m, int64_t a, int64_t b);
void ng_idmap_release(struct ng_idmap *m);

/* The wall clock for reports, or SOURCE_DATE_EPOCH when set (reproducible
 * outputs for tests and archives). */
time_t ng_util_report_time(void);
/* Monotonic seconds, for elapsed times. */
double ng_monotonic(void);

#endif
