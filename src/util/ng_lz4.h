/* ng_lz4: a bounded decoder of one LZ4 frame (the frame and block formats
 * of lz4's doc/lz4_Frame_format.md and lz4_Block_format.md), in-tree
 * because liblz4 is not a dependency: rocprofv3's lz4 databases compress
 * their extdata columns with it, and a ROCTx range's text sits there.
 * Pure: bytes in, bytes out, no allocation.  Every length and offset is
 * checked against the input and the output's capacity, so no input can
 * make it read or write out of bounds; the checksums the frame may carry
 * are skipped, not verified (a damaged text then reads as other text,
 * never out of bounds).
 *
 * Ownership: the caller owns both buffers. */
#ifndef NG_LZ4_H
#define NG_LZ4_H

#include <stddef.h>

#include "util/ng_err.h"

/* Decodes the frame in[0..len) into out[0..cap); *n is the bytes written.
 * -1 with err (the problem only: the caller names the subject) when the
 * frame is malformed, truncated, or inflates past cap. */
int ng_lz4_frame(const unsigned char *in, size_t len, unsigned char *out, size_t cap,
                 size_t *n, struct ng_err *err);

#endif
