/* The three rocprofv3 kinds: how each is told from the kinds that share
 * its first bytes, and which module reads it. */
#include "sources/rocprof/ng_source_rocprof.h"

#include <string.h>

#include "sources/rocprof/ng_rocpd.h"
#include "sources/rocprof/ng_rocprof_csv.h"
#include "sources/rocprof/ng_rocprof_json.h"
#include "util/ng_json_scan.h"

/* Past a byte-order mark and white space. */
static size_t skip_space(const unsigned char *head, size_t len, size_t i)
{
    if (i == 0 && len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && ng_json_space[head[i]])
        i++;
    return i;
}

/* A JSON object whose first key is "rocprofiler-sdk-tool" (given inflated
 * when the file is gzip): a Chrome trace's is never that. */
static int json_sniff(const unsigned char *head, size_t len)
{
    static const char key[] = "\"rocprofiler-sdk-tool\"";
    size_t i = skip_space(head, len, 0);
    if (i >= len || head[i] != '{')
        return 0;
    i = skip_space(head, len, i + 1);
    return len - i >= sizeof key - 1 && memcmp(head + i, key, sizeof key - 1) == 0;
}

/* A CSV header naming Start_Timestamp: every rocprofv3 trace file's has it
 * (kernel_trace.csv's within its first 256 bytes), no saved nsys stats
 * table's does. */
static int csv_sniff(const unsigned char *head, size_t len)
{
    static const char col[] = "Start_Timestamp";
    size_t line = 0;
    while (line < len && head[line] != '\n')
        line++;
    for (size_t i = 0; i + sizeof col - 1 <= line; i++)
        if (memcmp(head + i, col, sizeof col - 1) == 0)
            return 1;
    return 0;
}

/* The refusal of a file that is no profile lists what is read once for the
 * three kinds: the last of them in the registry's order says it. */
const struct ng_source_kind ng_source_rocprof_rocpd = {
    .format = NG_FORMAT_ROCPD,
    .magic = "SQLite format 3",
    .magic_len = 16,   /* with its NUL */
    .claim = ng_rocpd_claim,
    .load = ng_rocpd_load,
};

const struct ng_source_kind ng_source_rocprof_json = {
    .format = NG_FORMAT_ROCPROF_JSON,
    .sniff = json_sniff,
    .load = ng_rocprof_json_load,
};

const struct ng_source_kind ng_source_rocprof_csv = {
    .format = NG_FORMAT_ROCPROF_CSV,
    .sniff = csv_sniff,
    .claim = ng_rocprof_csv_claim,
    .dirs = 1,
    .load = ng_rocprof_csv_load,
    .reads = "AMD rocprofv3 output (a rocpd database, its JSON or its CSV files)",
};
