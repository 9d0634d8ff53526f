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

#include "util/ng_file.h"
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

static void strmap_grow(struct ng_strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    char **nk = ng_xcalloc(ncap, sizeof *nk);
    size_t *nv = ng_xcalloc(ncap, sizeof *nv);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = ng_hash(m->keys[i], strlen(m->keys[i])) & (ncap - 1);
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

size_t ng_strmap_get(struct ng_strmap *m, const char *key, size_t len, size_t next_val,
                     int *added)
{
    if ((m->used + 1) * 2 > m->cap)
        strmap_grow(m);
    size_t j = ng_hash(key, len) & (m->cap - 1);
    while (m->keys[j]) {
        if (strncmp(m->keys[j], key, len) == 0 && m->keys[j][len] == '\0') {
            if (added)
                *added = 0;
            return m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = ng_xstrndup(key, len);
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

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid.
 * Rejects overlong forms, surrogates and code points past U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    return n;
}

void ng_text_clean(struct ng_buf *out, const char *s, size_t len, int flags)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    /* make sure the result is a string even when s is empty */
    ng_buf_add(out, "", 0);
    while (i < len) {
        /* printable ASCII is kept as it is in every mode: copied a run at a time */
        size_t run = i;
        while (run < len && p[run] >= 0x20 && p[run] < 0x7F)
            run++;
        if (run > i) {
            ng_buf_add(out, p + i, run - i);
            i = run;
            continue;
        }
        size_t n = utf8_seq(p + i, len - i);
        if (n == 0) {
            ng_buf_adds(out, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (n == 1 && (flags & NG_TEXT_ESCAPE_CONTROLS) &&
            (p[i] < 0x20 || p[i] == 0x7F) &&
            !(p[i] == '\n' && (flags & NG_TEXT_KEEP_NEWLINES))) {
            ng_buf_addf(out, "\\x%02X", p[i]);
            i++;
            continue;
        }
        /* C1 controls (U+0080..U+009F): xterm reads U+009B as ESC [ */
        if (n == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0 && (flags & NG_TEXT_ESCAPE_CONTROLS)) {
            ng_buf_addf(out, "\\x%02X\\x%02X", p[i], p[i + 1]);
            i += 2;
            continue;
        }
        ng_buf_add(out, p + i, n);
        i += n;
    }
}

char *ng_text_cleaned(const char *s, int flags)
{
    struct ng_buf b = NG_BUF_INIT;
    ng_text_clean(&b, s ? s : "", s ? strlen(s) : 0, flags);
    return ng_buf_detach(&b);
}

void ng_fmt_threshold(char *buf, size_t size, double v)
{
    for (int prec = 2; prec <= 6; prec++) {
        snprintf(buf, size, "%.*f", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* v * 10^decimals rounded half to even, exactly: v is m * 2^e with m an
 * integer of 53 bits, so m * 10^decimals (at most 63 bits) shifted by -e
 * is the whole part and the bits shifted out the fraction, compared with
 * a half exactly.  No floating point, and so no long double. */
static uint64_t scaled_round(double v, int decimals)
{
    static const uint64_t ten[] = { 1, 10, 100, 1000 };
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    int shift = ex ? 1075 - (int)ex : 1074;              /* |v| = m / 2^shift */
    if (ex)
        m |= UINT64_C(1) << 52;
    uint64_t p = m * ten[decimals];                      /* below 2^63 */

    if (shift <= 0)
        return p << -shift;                              /* never for |v| < 1e15 */
    if (shift >= 64)
        return 0;                                        /* below a half of the last digit */
    uint64_t whole = p >> shift, rest = p & ((UINT64_C(1) << shift) - 1),
             half = UINT64_C(1) << (shift - 1);
    return whole + (rest > half || (rest == half && (whole & 1)));
}

size_t ng_fmt_uint(char *buf, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do
        d[sizeof d - ++n] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    memcpy(buf, d + sizeof d - n, n);
    buf[n] = '\0';
    return n;
}

void ng_buf_add_uint(struct ng_buf *b, uint64_t v)
{
    char d[24];
    ng_buf_add(b, d, ng_fmt_uint(d, v));
}

size_t ng_fmt_fixed(char *buf, double v, int decimals)
{
    if (decimals >= 0 && decimals <= 3 && v == v && fabs(v) < 1e15) {
        char digits[24];
        size_t nd = ng_fmt_uint(digits, scaled_round(v, decimals)), d = (size_t)decimals, n = 0;
        if (signbit(v))
            buf[n++] = '-';
        /* at least one digit before the point: "0.05" from 5 */
        size_t whole = nd > d ? nd - d : 0, zeros = nd > d ? 0 : d - nd;
        if (whole) {
            memcpy(buf + n, digits, whole);
            n += whole;
        } else {
            buf[n++] = '0';
        }
        if (d) {
            buf[n++] = '.';
            memset(buf + n, '0', zeros);
            n += zeros;
            memcpy(buf + n, digits + whole, nd - whole);
            n += nd - whole;
        }
        buf[n] = '\0';
        return n;
    }
    return (size_t)snprintf(buf, NG_FMT_FIXED_MAX, "%.*f", decimals, v);
}

void ng_buf_add_fixed(struct ng_buf *b, double v, int decimals)
{
    char buf[NG_FMT_FIXED_MAX];
    ng_buf_add(b, buf, ng_fmt_fixed(buf, v, decimals));
}

void ng_fmt_double(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, size, "%.17g", v);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    (void)fsync(fd);
    close(fd);
    return 0;
}

int ng_write_all(int fd, const void *buf, size_t len)
{
    const char *data = buf;

    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {   /* nothing written and no error: do not spin */
            errno = EIO;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A FIFO, a terminal, /dev/null: nothing to replace atomically, and a
 * rename over the name would break it for everyone after.  Written in
 * place; O_NONBLOCK on open so a FIFO nobody reads is an error (ENXIO),
 * not a hang.  `extra` is O_APPEND for a stream name (below). */
static int write_in_place(const char *path, const char *data, size_t len, int extra,
                          struct ng_err *err)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | extra);
    int saved;

    if (fd < 0 && errno == ENXIO)
        return ng_err_set(err, "unable to write '%s': a FIFO that nothing reads", path);
    if (fd < 0)
        return ng_err_set(err, "unable to write '%s': %s", path, strerror(errno));
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        ng_write_all(fd, data, len) < 0) {
        saved = errno;
        close(fd);
        /* /dev/stdout whose reader went away: the end of that stream */
        if (saved == EPIPE && (extra & O_APPEND))
            return 0;
        return ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
    }
    close(fd);
    return 0;
}

static int is_stream_name(const char *p)
{
    return strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/stderr") == 0 ||
           strncmp(p, "/dev/fd/", 8) == 0 || (strncmp(p, "/proc/", 6) == 0 && strstr(p, "/fd/"));
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a symlink to
 * one: the name of an open stream, even when that stream is a regular
 * file (a CI log).  Renaming over it would replace the name itself (run
 * as root, /dev/stdout would become a plain file for everyone after). */
int ng_path_names_stream(const char *path)
{
    char target[256];
    ssize_t n = readlink(path, target, sizeof target - 1);

    if (n > 0) {
        target[n] = '\0';
        if (is_stream_name(target))
            return 1;
    }
    return is_stream_name(path);
}

int ng_write_file_atomic(const char *path, const char *data, size_t len,
                         struct ng_err *err)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return ng_err_set(err, "unable to write to standard output: %s",
                              strerror(errno));
        return 0;
    }
    struct stat st;
    if (ng_path_names_stream(path))   /* appended, as to the stream itself */
        return write_in_place(path, data, len, O_APPEND, err);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_in_place(path, data, len, 0, err);

    /* A symlink stays a link: the report replaces its target.  The
     * temporary file lives beside the target so rename() is atomic. */
    char *target = ng_file_target(path);
    if (!target)
        return ng_err_set(err, "unable to write '%s': %s", path, strerror(errno));
    const char *slash = strrchr(target, '/');
    char *dir = slash ? ng_xstrndup(target, slash == target ? 1 : (size_t)(slash - target))
                      : ng_xstrdup(".");
    const char *base = slash ? slash + 1 : target;
    struct ng_buf tmp = NG_BUF_INIT;
    int fd, saved, ret = 0;

    if (*base == '\0') {
        free(dir);
        free(target);
        return ng_err_set(err, "unable to write '%s': not a file name", path);
    }
    ng_buf_addf(&tmp, "%s/.%s.tmp.XXXXXX", dir, base);
    /* a fatal signal from here on removes the temporary file: it is
     * registered before a signal can find it unregistered */
    sigset_t held;
    ng_signal_hold(&held);
    fd = mkstemp(tmp.data);
    int slot = fd >= 0 ? ng_signal_add_file(tmp.data) : -1;
    saved = errno;
    ng_signal_resume(&held);
    if (fd < 0) {
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
        goto out;
    }
    /* mkstemp makes 0600; reports are ordinary files that CI uploads */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    if (ng_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
        saved = errno;
        close(fd);
        unlink(tmp.data);
        ng_signal_forget(slot);
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
        goto out;
    }
    ng_signal_hold(&held);   /* renamed and released as one step */
    if (close(fd) < 0 || rename(tmp.data, target) < 0) {
        saved = errno;
        unlink(tmp.data);
        ret = ng_err_set(err, "unable to write '%s': %s", path, strerror(saved));
    }
    ng_signal_forget(slot);
    ng_signal_resume(&held);
    if (ret == 0)
        (void)fsync_dir(dir);
out:
    ng_buf_release(&tmp);
    free(dir);
    free(target);
    return ret;
}

time_t ng_report_time(void)
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

/* Years of four digits (every date a history holds) are written digit by
 * digit: a chart dates each of its points twice, and strftime() costs a
 * thousand instructions a call.  Others go to strftime(). */
void ng_fmt_utc(char *buf, size_t size, time_t t, int zone)
{
    int64_t days = (int64_t)t / 86400, secs = (int64_t)t % 86400;
    if (secs < 0)
        secs += 86400, days--;
    /* Howard Hinnant's civil_from_days: gmtime_r() without its time zone
     * lock */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int day = (int)(doy - (153 * mp + 2) / 5 + 1), month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t year = (int64_t)yoe + era * 400 + (month <= 2);
    if (year < 1000 || year > 9999 || size < 21) {
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(buf, size, zone ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S", &tm);
        return;
    }
    const int parts[6] = { (int)year, month, day, (int)(secs / 3600), (int)(secs / 60 % 60),
                           (int)(secs % 60) };
    static const char seps[6] = { '-', '-', 'T', ':', ':', '\0' };
    char *p = buf;
    for (int i = 0; i < 6; i++) {
        int v = parts[i];
        if (i == 0) {
            *p++ = (char)('0' + v / 1000);
            *p++ = (char)('0' + v / 100 % 10);
        }
        *p++ = (char)('0' + v / 10 % 10);
        *p++ = (char)('0' + v % 10);
        if (i < 5)
            *p++ = seps[i];
    }
    if (zone)
        *p++ = 'Z';
    *p = '\0';
}

/* Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil): timegm() without the process's time zone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at p as a number, or -1 */
static int digits(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

int ng_parse_utc(const char *s, time_t *out)
{
    static const unsigned char mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y = digits(s, 4), mo, d, h = 0, mi = 0, sec = 0;
    size_t n = strlen(s);

    if (y < 0 || (n != 10 && n != 20) || s[4] != '-' || s[7] != '-')
        return -1;
    mo = digits(s + 5, 2);
    d = digits(s + 8, 2);
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0))))
        return -1;
    if (n == 20) {
        if (s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
            return -1;
        h = digits(s + 11, 2);
        mi = digits(s + 14, 2);
        sec = digits(s + 17, 2);
        if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
            return -1;
    }
    *out = (time_t)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 +
                    sec);
    return 0;
}

/* The JSON length of one character of clean UTF-8 at p (*n: its bytes). */
static size_t json_char(const unsigned char *p, size_t *n)
{
    unsigned char c = p[0];
    *n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
        return 2;
    if (c < 0x20 || c == 0x7F || (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
        return 6;   /* \u00XX: cJSON's for C0, the JSON reporter's for DEL and C1 */
    return *n;
}

/* How many bytes of s fit in `budget` bytes of JSON text. */
static size_t json_prefix(const char *s, size_t budget)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t bytes = 0, json = 0, n;
    while (p[bytes]) {
        size_t j = json_char(p + bytes, &n);
        if (json + j > budget)
            break;
        json += j;
        bytes += n;
    }
    return bytes;
}

void ng_text_cut(struct ng_buf *out, const char *s, size_t max, int hashed)
{
    static const char ellipsis[] = "\xE2\x80\xA6";
    size_t len = strlen(s);
    /* every byte is at least one byte of JSON: past max bytes it cannot
     * fit, and only its start needs cleaning (a 1 MB name is not cleaned
     * whole to keep 512 bytes of it) */
    size_t head = len > max ? max + 4 : len;
    struct ng_buf clean = NG_BUF_INIT;

    ng_text_clean(&clean, s, head, NG_TEXT_UTF8_ONLY);
    ng_buf_adds(&clean, "");
    if (len <= max && json_prefix(clean.data, max) == clean.len) {
        ng_buf_add(out, clean.data, clean.len);
    } else {
        size_t tail = sizeof ellipsis - 1 + (hashed ? 16 : 0);
        ng_buf_add(out, clean.data, max > tail ? json_prefix(clean.data, max - tail) : 0);
        ng_buf_adds(out, ellipsis);
        if (hashed)
            ng_buf_addf(out, "%016llx", (unsigned long long)ng_hash(s, len));
    }
    ng_buf_release(&clean);
}

double ng_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
