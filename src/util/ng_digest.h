/* ng_digest: XXH3-128 digests as 32 lower-case hex digits, of bytes in
 * memory or of everything a file descriptor holds (the only code of the
 * gate that talks to libxxhash).  The export cache keys reports by it;
 * summaries carry one of their content and one of the file they came
 * from.
 *
 * Ownership: nothing is kept; the caller's buffers are borrowed. */
#ifndef NG_DIGEST_H
#define NG_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "util/ng_err.h"

#define NG_DIGEST_HEX 32

/* hex (NG_DIGEST_HEX digits and a NUL) of data[0..len). */
void ng_digest_bytes(const void *data, size_t len, char hex[NG_DIGEST_HEX + 1]);

/* hex of everything fd holds, from offset 0 (pread: the caller's offset
 * is not moved), and *size (may be NULL) the bytes read.  `shown` names
 * the file in messages. */
int ng_digest_fd(int fd, const char *shown, char hex[NG_DIGEST_HEX + 1], uint64_t *size,
                 struct ng_err *err);

#endif
