/* ng_source_names: how readers name memory operations, so that every
 * input kind names one operation alike (the names nsys's
 * cuda_gpu_mem_time_sum gives them).
 *
 * Ownership: the names returned are static. */
#ifndef NG_SOURCE_NAMES_H
#define NG_SOURCE_NAMES_H

#include <stddef.h>

/* Today's name of a copy that older nsys summaries name by its short form
 * ("[CUDA memcpy HtoD]" -> "[CUDA memcpy Host-to-Device]", the label
 * cuda_gpu_mem_time_sum uses), so every reader names one operation alike;
 * NULL when name (len bytes) is none of them. */
const char *ng_source_names_memcpy(const char *name, size_t len);

/* The name of a copy that rocprofv3 names by its operation
 * ("MEMORY_COPY_HOST_TO_DEVICE" -> "[CUDA memcpy Host-to-Device]"); a copy
 * between two devices is Peer-to-Peer (peer 1), as nsys names one.  An
 * operation it does not know is "[CUDA memcpy Unknown]". */
const char *ng_source_names_copy_operation(const char *op, int peer);

#endif
