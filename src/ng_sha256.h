/* ng_sha256: SHA-256 (FIPS 180-4), for content keys of the export cache.
 *
 * Ownership: a context is a plain value of its owner's; nothing is
 * allocated. */
#ifndef NG_SHA256_H
#define NG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "ng_err.h"

struct ng_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
};

void ng_sha256_init(struct ng_sha256 *c);
void ng_sha256_update(struct ng_sha256 *c, const void *data, size_t len);
/* 64 lower-case hex digits and a NUL. */
void ng_sha256_hex(struct ng_sha256 *c, char out[65]);

/* The digest of a whole file, read in large chunks. */
int ng_sha256_file(const char *path, char out[65], uint64_t *size, struct ng_err *err);

#endif
