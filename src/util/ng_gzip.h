/* ng_gzip: a file's text, read once as a window that slides over the
 * file, inflated on the way when the file is gzip (the only code of the
 * gate that talks to zlib).  A reader (the Kineto scanner, the rocprofv3
 * JSON reader, the summary reader) reads buf[pos..len) in place and asks
 * for more when what it reads does not fit; the registry of input kinds
 * peeks at the inflated head to tell JSON kinds apart; summaries are
 * read whole and written deflated through here.
 *
 * Ownership: the input owns its descriptor, its window and zlib's state;
 * ng_gzip_close() frees them, also after a failed open (or none,
 * when fd is -1 and the rest zero). */
#ifndef NG_GZIP_H
#define NG_GZIP_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_err.h"
#include "util/ng_util.h"

struct ng_gzip_state;   /* zlib's state (ng_gzip.c) */

struct ng_gzip_input {
    int fd;
    struct ng_gzip_state *gz;   /* NULL: plain text */
    unsigned char *buf;      /* the window: buf[pos..len) not yet read */
    size_t cap, len, pos;
    int eof;                 /* the whole rest is in the window */
    int64_t base;            /* offset of buf[0] in the (inflated) text */
};

/* Opens path, as gzip when it starts with gzip's magic, with an empty
 * window. */
int ng_gzip_open(struct ng_gzip_input *in, const char *path, struct ng_err *err);

/* More text after buf[pos..len): what was read moves to the front; the
 * window doubles when one unit fills it, up to a limit past which the
 * unit is refused (a huge string), not read into memory.  `shown` names
 * the file in messages. */
int ng_gzip_fill(struct ng_gzip_input *in, const char *shown, struct ng_err *err);

void ng_gzip_close(struct ng_gzip_input *in);

/* Up to cap leading bytes of path's text (inflated when gzip) into head;
 * *len is how many.  -1 when the file cannot be read or its gzip is
 * corrupt: the caller then looks at the raw bytes, and the reader says
 * what is wrong. */
int ng_gzip_head(const char *path, unsigned char *head, size_t cap, size_t *len,
                 struct ng_err *err);

/* The whole text of path (inflated when gzip) appended to out, refusing
 * one longer than max bytes.  A truncated or corrupt gzip stream is an
 * error naming the file. */
int ng_gzip_read_all(const char *path, size_t max, struct ng_buf *out, struct ng_err *err);

/* data[0..len) as one gzip member appended to out: the same bytes for the
 * same data (no name, no time in the header). */
void ng_gzip_deflate(const void *data, size_t len, struct ng_buf *out);

#endif
