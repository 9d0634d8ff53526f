#include "util/ng_lz4.h"

#include <stdint.h>
#include <string.h>

#define FRAME_MAGIC 0x184D2204u

/* FLG bits (lz4_Frame_format.md) */
#define FLG_VERSION 0xC0u
#define FLG_BLOCK_SUM 0x10u
#define FLG_SIZE 0x08u
#define FLG_CONTENT_SUM 0x04u
#define FLG_RESERVED 0x02u
#define FLG_DICT 0x01u

struct lz4_out {
    unsigned char *p;
    size_t cap, n;
};

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A length nibble of 15 continues in bytes of 255 until one is smaller. */
static int more_length(const unsigned char *in, size_t len, size_t *pos, size_t *v,
                       struct ng_err *err)
{
    unsigned char b;
    do {
        if (*pos >= len)
            return ng_err_set(err, "an LZ4 block ends inside a length");
        b = in[(*pos)++];
        if (*v > SIZE_MAX / 2)
            return ng_err_set(err, "an LZ4 length overflows");
        *v += b;
    } while (b == 255);
    return 0;
}

/* One compressed block: sequences of literals and a match into what was
 * written before (of this block or an earlier one: the output is one
 * buffer, so linked blocks need nothing more). */
static int block(const unsigned char *in, size_t len, struct lz4_out *o, struct ng_err *err)
{
    size_t pos = 0;
    while (pos < len) {
        unsigned char token = in[pos++];
        size_t lit = token >> 4, match = (size_t)(token & 15), off;
        if (lit == 15 && more_length(in, len, &pos, &lit, err) < 0)
            return -1;
        if (lit > len - pos)
            return ng_err_set(err, "an LZ4 block's literals run past its end");
        if (lit > o->cap - o->n)
            return ng_err_set(err, "the LZ4 text is longer than %zu bytes", o->cap);
        memcpy(o->p + o->n, in + pos, lit);
        o->n += lit;
        pos += lit;
        if (pos == len)
            return 0;                      /* the last sequence has no match */
        if (len - pos < 2)
            return ng_err_set(err, "an LZ4 block ends inside a match offset");
        off = (size_t)in[pos] | (size_t)in[pos + 1] << 8;
        pos += 2;
        if (off == 0 || off > o->n)
            return ng_err_set(err, "an LZ4 match offset %zu points before the text", off);
        if (match == 15 && more_length(in, len, &pos, &match, err) < 0)
            return -1;
        match += 4;
        if (match > o->cap - o->n)
            return ng_err_set(err, "the LZ4 text is longer than %zu bytes", o->cap);
        /* byte by byte: a match may overlap what it copies (a run) */
        for (size_t k = 0; k < match; k++, o->n++)
            o->p[o->n] = o->p[o->n - off];
    }
    return ng_err_set(err, "an LZ4 block ends without literals");
}

/* The frame header: magic, FLG, BD, the optional content size and
 * dictionary id, the header checksum; *pos past it. */
static int header(const unsigned char *in, size_t len, size_t *pos, unsigned *flg,
                  struct ng_err *err)
{
    size_t need = 7;
    if (len < 7)
        return ng_err_set(err, "the LZ4 frame is shorter than its header");
    if (le32(in) != FRAME_MAGIC)
        return ng_err_set(err, "no LZ4 frame (magic 0x%08x)", (unsigned)le32(in));
    *flg = in[4];
    if ((*flg & FLG_VERSION) != 0x40u || (*flg & FLG_RESERVED) || (in[5] & 0x8Fu))
        return ng_err_set(err, "an LZ4 frame header this decoder does not know");
    if (*flg & FLG_DICT)
        return ng_err_set(err, "an LZ4 frame that needs a dictionary");
    need += (*flg & FLG_SIZE) ? 8 : 0;
    if (len < need)
        return ng_err_set(err, "the LZ4 frame is shorter than its header");
    *pos = need;
    return 0;
}

int ng_lz4_frame(const unsigned char *in, size_t len, unsigned char *out, size_t cap,
                 size_t *n, struct ng_err *err)
{
    struct lz4_out o = {out, cap, 0};
    size_t pos = 0;
    unsigned flg = 0;
    if (header(in, len, &pos, &flg, err) < 0)
        return -1;
    for (;;) {
        uint32_t word, size;
        if (len - pos < 4)
            return ng_err_set(err, "the LZ4 frame ends before its end mark");
        word = le32(in + pos);
        pos += 4;
        if (word == 0)
            break;
        size = word & 0x7FFFFFFFu;
        if (size > len - pos)
            return ng_err_set(err, "an LZ4 block of %u bytes runs past the frame", (unsigned)size);
        if (word & 0x80000000u) {          /* stored as it is */
            if (size > o.cap - o.n)
                return ng_err_set(err, "the LZ4 text is longer than %zu bytes", cap);
            memcpy(o.p + o.n, in + pos, size);
            o.n += size;
        } else if (block(in + pos, size, &o, err) < 0) {
            return -1;
        }
        pos += size;
        if (flg & FLG_BLOCK_SUM) {
            if (len - pos < 4)
                return ng_err_set(err, "the LZ4 frame ends inside a block checksum");
            pos += 4;
        }
    }
    if ((flg & FLG_CONTENT_SUM) && len - pos < 4)
        return ng_err_set(err, "the LZ4 frame ends inside its checksum");
    *n = o.n;
    return 0;
}
