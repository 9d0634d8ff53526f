#include "util/ng_gzip.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "util/ng_oom.h"
#include "util/ng_util.h"

#define READ_CHUNK ((size_t)256 << 10)
#define WINDOW ((size_t)1 << 20)
/* One event, or one top-level value other than traceEvents, must fit in
 * this: a longer one is refused (a huge string), not read into memory. */
#define UNIT_MAX ((size_t)32 << 20)

struct ng_gzip_state {
    z_stream z;
    int live;                /* inside a gzip member */
    unsigned char *raw;      /* compressed bytes, READ_CHUNK */
    int raw_eof;
    int64_t raw_read;
};

/* Reads compressed bytes when zlib has none left. */
static int read_raw(struct ng_gzip_input *in, const char *shown, struct ng_err *err)
{
    struct ng_gzip_state *gz = in->gz;
    ssize_t n;
    do
        n = read(in->fd, gz->raw, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
    gz->raw_eof = n == 0;
    gz->raw_read += n;
    gz->z.next_in = gz->raw;
    gz->z.avail_in = (uInt)n;
    return 0;
}

/* Inflates into buf[len..cap): at least one byte, or the end. */
static int inflate_some(struct ng_gzip_input *in, const char *shown, struct ng_err *err)
{
    struct ng_gzip_state *gz = in->gz;
    size_t before = in->len;
    while (in->len == before && !in->eof) {
        if (gz->z.avail_in == 0) {
            if (read_raw(in, shown, err) < 0)
                return -1;
            if (gz->raw_eof) {
                if (gz->live)
                    return ng_err_set(err, "'%s' is a truncated gzip file (it ends after %" PRId64
                                      " compressed bytes, inside the stream)", shown,
                                      gz->raw_read);
                in->eof = 1;
                break;
            }
        }
        if (!gz->live) {   /* a next gzip member (gzip files may be concatenated) */
            if (inflateReset2(&gz->z, 16 + MAX_WBITS) != Z_OK)
                return ng_err_set(err, "'%s': zlib could not restart", shown);
            gz->live = 1;
        }
        gz->z.next_out = in->buf + in->len;
        gz->z.avail_out = (uInt)(in->cap - in->len);
        int rc = inflate(&gz->z, Z_NO_FLUSH);
        in->len = (size_t)(gz->z.next_out - in->buf);
        if (rc == Z_STREAM_END)
            gz->live = 0;
        else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
            return ng_err_set(err, "'%s' is corrupt gzip data (%s, after %" PRId64
                              " compressed bytes)", shown, gz->z.msg ? gz->z.msg : "bad data",
                              gz->raw_read - gz->z.avail_in);
        else if (rc == Z_MEM_ERROR)
            return ng_err_set(err, "'%s': zlib ran out of memory", shown);
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            return ng_err_set(err, "'%s': zlib failed (%d)", shown, rc);
    }
    return 0;
}

static int read_plain(struct ng_gzip_input *in, const char *shown, struct ng_err *err)
{
    ssize_t n;
    do
        n = read(in->fd, in->buf + in->len, in->cap - in->len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
    in->eof = n == 0;
    in->len += (size_t)n;
    return 0;
}

int ng_gzip_fill(struct ng_gzip_input *in, const char *shown, struct ng_err *err)
{
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->base += (int64_t)in->pos;
        in->len -= in->pos;
        in->pos = 0;
    }
    if (in->len == in->cap) {
        if (in->cap >= UNIT_MAX)
            return ng_err_set(err, "'%s': an event (or a top-level value) at byte %" PRId64
                              " is longer than %zu MiB (a huge string?); refusing to read it",
                              shown, in->base, UNIT_MAX >> 20);
        in->cap *= 2;
        in->buf = ng_xrealloc(in->buf, in->cap);
    }
    return in->gz ? inflate_some(in, shown, err) : read_plain(in, shown, err);
}

int ng_gzip_open(struct ng_gzip_input *in, const char *path, struct ng_err *err)
{
    unsigned char magic[2];
    memset(in, 0, sizeof *in);
    in->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (in->fd < 0)
        return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
    in->cap = WINDOW;
    in->buf = ng_xmalloc(in->cap);
    if (pread(in->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        in->gz = ng_xcalloc(1, sizeof *in->gz);
        in->gz->raw = ng_xmalloc(READ_CHUNK);
        if (inflateInit2(&in->gz->z, 16 + MAX_WBITS) != Z_OK)
            return ng_err_set(err, "'%s': zlib could not start", path);
        in->gz->live = 1;
    }
    return 0;
}

void ng_gzip_close(struct ng_gzip_input *in)
{
    if (in->gz) {
        inflateEnd(&in->gz->z);
        free(in->gz->raw);
        free(in->gz);
    }
    if (in->fd >= 0)
        close(in->fd);
    free(in->buf);
}

int ng_gzip_head(const char *path, unsigned char *head, size_t cap, size_t *len,
                 struct ng_err *err)
{
    struct ng_gzip_input in;
    int ret = ng_gzip_open(&in, path, err);

    while (ret == 0 && in.len < cap && !in.eof)
        ret = ng_gzip_fill(&in, path, err);
    if (ret == 0) {
        *len = in.len < cap ? in.len : cap;
        memcpy(head, in.buf, *len);
    }
    ng_gzip_close(&in);
    return ret;
}

int ng_gzip_read_all(const char *path, size_t max, struct ng_buf *out, struct ng_err *err)
{
    struct ng_gzip_input in;
    int ret = ng_gzip_open(&in, path, err);

    while (ret == 0) {
        ng_buf_add(out, in.buf + in.pos, in.len - in.pos);
        in.pos = in.len;
        if (out->len > max) {
            ret = ng_err_set(err, "'%s' is longer than %zu MiB; refusing to read it", path,
                             max >> 20);
            break;
        }
        if (in.eof)
            break;
        ret = ng_gzip_fill(&in, path, err);
    }
    ng_gzip_close(&in);
    return ret;
}

void ng_gzip_deflate(const void *data, size_t len, struct ng_buf *out)
{
    z_stream z;
    gz_header h;

    memset(&z, 0, sizeof z);
    memset(&h, 0, sizeof h);
    h.os = 3;   /* Unix, whatever zlib was built for: the same bytes everywhere */
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        ng_oom_fail();
    deflateSetHeader(&z, &h);
    size_t bound = deflateBound(&z, (uLong)len);
    ng_buf_grow(out, bound);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out->data + out->len;
    z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    if (rc != Z_STREAM_END)
        ng_oom_fail();
    out->len += bound - z.avail_out;
    out->data[out->len] = '\0';
    deflateEnd(&z);
}
