/* fuzz: what every fuzz target (fuzz_*.c) exports, and the replay driver
 * (replay.c) calls when the build has no libFuzzer.
 *
 * Ownership: the input bytes belong to the caller for the duration of the
 * call; a target keeps nothing between calls but its own static set-up.
 * A target reports a broken invariant by aborting (a crash, to libFuzzer
 * and to the replay driver alike), never by returning non-zero. */
#ifndef NG_FUZZ_H
#define NG_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the failed condition when an invariant does not hold:
 * assert() would vanish under NDEBUG. */
#define NG_FUZZ_CHECK(cond)                                                        \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,  \
                    #cond);                                                        \
            abort();                                                               \
        }                                                                          \
    } while (0)

#endif
