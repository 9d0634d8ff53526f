/* ng_kineto_input: a Chrome trace's text, read once as a window that
 * slides over the file, inflated on the way when the file is gzip (the
 * only code of the gate that talks to zlib).  The scanner
 * (ng_kineto_scan.h) reads buf[pos..len) in place and asks for more when
 * what it reads does not fit.
 *
 * Ownership: the input owns its descriptor, its window and zlib's state;
 * ng_kineto_input_close() frees them, also after a failed open (or none,
 * when fd is -1 and the rest zero). */
#ifndef NG_KINETO_INPUT_H
#define NG_KINETO_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_err.h"

struct ng_kineto_gzip;   /* zlib's state (ng_kineto_input.c) */

struct ng_kineto_input {
    int fd;
    struct ng_kineto_gzip *gz;   /* NULL: plain text */
    unsigned char *buf;      /* the window: buf[pos..len) not yet read */
    size_t cap, len, pos;
    int eof;                 /* the whole rest is in the window */
    int64_t base;            /* offset of buf[0] in the (inflated) text */
};

/* Opens path, as gzip when it starts with gzip's magic, with an empty
 * window. */
int ng_kineto_input_open(struct ng_kineto_input *in, const char *path, struct ng_err *err);

/* More text after buf[pos..len): what was read moves to the front; the
 * window doubles when one unit fills it, up to a limit past which the
 * unit is refused (a huge string), not read into memory.  `shown` names
 * the file in messages. */
int ng_kineto_input_fill(struct ng_kineto_input *in, const char *shown, struct ng_err *err);

void ng_kineto_input_close(struct ng_kineto_input *in);

#endif
