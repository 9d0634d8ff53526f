#include "sources/ng_source_names.h"

#include <string.h>

/* nsys until 2022 named copies by the short names of its own table
 * (MemcpyOperStrs in nsysstats.py); cuda_gpu_mem_time_sum names them by the
 * labels of the export's ENUM_CUDA_MEMCPY_OPER, for the same copyKind ids.
 * Old names become today's, so that summaries saved by two nsys versions
 * (or one and the SQLite export) name one operation alike. */
static const struct { const char *old, *now; } memcpy_names[] = {
    { "[CUDA memcpy Unknown]", "[CUDA memcpy Unknown]" },
    { "[CUDA memcpy HtoD]", "[CUDA memcpy Host-to-Device]" },
    { "[CUDA memcpy DtoH]", "[CUDA memcpy Device-to-Host]" },
    { "[CUDA memcpy HtoA]", "[CUDA memcpy Host-to-Array]" },
    { "[CUDA memcpy AtoH]", "[CUDA memcpy Array-to-Host]" },
    { "[CUDA memcpy AtoA]", "[CUDA memcpy Array-to-Array]" },
    { "[CUDA memcpy AtoD]", "[CUDA memcpy Array-to-Device]" },
    { "[CUDA memcpy DtoA]", "[CUDA memcpy Device-to-Array]" },
    { "[CUDA memcpy DtoD]", "[CUDA memcpy Device-to-Device]" },
    { "[CUDA memcpy HtoH]", "[CUDA memcpy Host-to-Host]" },
    { "[CUDA memcpy PtoP]", "[CUDA memcpy Peer-to-Peer]" },
    { "[CUDA Unified Memory memcpy HtoD]", "[CUDA memcpy Unified Host-to-Device]" },
    { "[CUDA Unified Memory memcpy DtoH]", "[CUDA memcpy Unified Device-to-Host]" },
    { "[CUDA Unified Memory memcpy DtoD]", "[CUDA memcpy Unified Device-to-Device]" },
    { NULL, NULL },
};

const char *ng_source_names_memcpy(const char *name, size_t len)
{
    for (int i = 0; memcpy_names[i].old; i++)
        if (strlen(memcpy_names[i].old) == len && memcmp(name, memcpy_names[i].old, len) == 0)
            return memcpy_names[i].now;
    return NULL;
}

/* rocprofiler-sdk's memory copy operations (rocprofiler_memory_copy_operation_t),
 * by the names its JSON strings, CSV and rocpd tables give them. */
static const struct { const char *op, *now; } copy_operations[] = {
    { "MEMORY_COPY_HOST_TO_HOST", "[CUDA memcpy Host-to-Host]" },
    { "MEMORY_COPY_HOST_TO_DEVICE", "[CUDA memcpy Host-to-Device]" },
    { "MEMORY_COPY_DEVICE_TO_HOST", "[CUDA memcpy Device-to-Host]" },
    { "MEMORY_COPY_DEVICE_TO_DEVICE", "[CUDA memcpy Device-to-Device]" },
    { NULL, NULL },
};

const char *ng_source_names_copy_operation(const char *op, int peer)
{
    for (int i = 0; copy_operations[i].op; i++)
        if (strcmp(op, copy_operations[i].op) == 0)
            return peer && strcmp(op, "MEMORY_COPY_DEVICE_TO_DEVICE") == 0
                       ? "[CUDA memcpy Peer-to-Peer]" : copy_operations[i].now;
    return "[CUDA memcpy Unknown]";
}
