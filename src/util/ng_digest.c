#include "util/ng_digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "util/ng_util.h"

static void to_hex(XXH128_hash_t h, char hex[NG_DIGEST_HEX + 1])
{
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, h);
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", canon.digest[i]);
}

void ng_digest_bytes(const void *data, size_t len, char hex[NG_DIGEST_HEX + 1])
{
    to_hex(XXH3_128bits(data, len), hex);
}

/* 1 MiB at a time: the hash runs at memory speed, so this is the cost of
 * reading the file once. */
int ng_digest_fd(int fd, const char *shown, char hex[NG_DIGEST_HEX + 1], uint64_t *size,
                 struct ng_err *err)
{
    enum { CHUNK = 1 << 20 };
    XXH3_state_t *st = XXH3_createState();
    char *buf = ng_xmalloc(CHUNK);
    uint64_t off = 0;
    int ret = 0;

    if (!st) {
        free(buf);
        return ng_err_set(err, "out of memory hashing '%s'", shown);
    }
    XXH3_128bits_reset(st);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (;;) {
        ssize_t n = pread(fd, buf, CHUNK, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ret = ng_err_set(err, "unable to read '%s': %s", shown, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        XXH3_128bits_update(st, buf, (size_t)n);
        off += (uint64_t)n;
    }
    if (ret == 0) {
        to_hex(XXH3_128bits_digest(st), hex);
        if (size)
            *size = off;
    }
    XXH3_freeState(st);
    free(buf);
    return ret;
}
