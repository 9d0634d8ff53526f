/*
 * gentrace - deterministic generator of synthetic Nsight Systems SQLite exports
 * =============================================================================
 *
 * Part of nsys-gate's test tooling (tests/tools/).  It writes files with the
 * table layout of `nsys export --type sqlite` 2023.4.4 (export schema 3.7.2),
 * or, with --graph-mode (or --graph-share), of 2026.2.1 (schema 3.25.0) for
 * the kernel and memory tables and META_DATA_EXPORT, so tests and benchmarks
 * never need real profiles.  The same command line always produces the same
 * bytes; none of the options added for graphs, memory, overlap, devices,
 * repeated steps or shuffling changes a single byte when it is not given.
 *
 * Build:  meson (target `gentrace`), or standalone:
 *   gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -o gentrace gentrace.c -lsqlite3
 * (no libm needed).  Speed on a 2-core VM: ~2.5 s per 1 M kernels (10 M kernels
 * = ~25 s, a 1.2 GB file, ~140 MB RSS).
 *
 * Changing what this program writes for a given command line changes the
 * inputs of the golden tests (tests/golden): regenerate their expectations.
 *
 * Typical pair for a gate test:
 *   gentrace -o base.sqlite --kernels 20000 --epochs 5 --summary > base.json
 *   gentrace -o cur.sqlite  --kernels 20000 --epochs 5 --slow 2:1.5 --summary > cur.json
 *
 * Tables written (column names, types, order and even the CREATE TABLE text are
 * copied from a real 2023.4.4 export, or a real 2026.2.1 one for the 2026
 * layout; the memory tables' from `nsys export --lazy=false`).  Like nsys's
 * default `--lazy`, a table is created only when it gets rows:
 *   StringIds                    (id INTEGER PRIMARY KEY: the only index, as in nsys)
 *   CUPTI_ACTIVITY_KIND_KERNEL   (absent when no launch is a kernel, e.g. --kernels 0;
 *                                 2026 layout: has graphId, set on node-mode graph kernels)
 *   CUPTI_ACTIVITY_KIND_RUNTIME  (launch calls + one cudaDeviceSynchronize per epoch)
 *   NVTX_EVENTS                  (absent with --no-nvtx, or with no epochs)
 *   CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET  (--memory-share)
 *   ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND  (all rows, whenever there are memory rows)
 *   CUPTI_ACTIVITY_KIND_GRAPH_TRACE  (--graph-share in graph mode; columns start, end,
 *                                 deviceId, contextId, greenContextId, streamId,
 *                                 correlationId, globalPid, graphId, graphExecId: no
 *                                 export here has it, so its CREATE TABLE text is made
 *                                 in nsys's style from the 2026.2 schema's column list)
 *   META_DATA_EXPORT, META_DATA_CAPTURE, TARGET_INFO_GPU, TARGET_INFO_SYSTEM_ENV
 * Other nsys tables (other ENUM_*, PROCESSES, ThreadNames, CUDA_GRAPH_EVENTS ...)
 * are not written.
 *
 * The model
 * ---------
 * R ranks (processes) each own one GPU (deviceId = rank; more with
 * --devices-per-rank) and run the same program: on the main thread, W warmup
 * + E epochs; every epoch is an NVTX push/pop range (eventType 59, default
 * domain 0) whose text is the epoch format applied to the epoch number
 * (warmup epochs included in the numbering: names are fmt(base),
 * fmt(base+1), ..., fmt(base+W+E-1)), or --epoch-text for all of them.
 * Inside the range the thread launches its kernels (one runtime launch call per
 * kernel, same correlationId, same process), then calls
 * cudaDeviceSynchronize_v3020 so the range ends after its GPU work.  Kernels
 * of a thread run on that thread's stream (main thread: stream 7; extra thread
 * k: stream 12+k) strictly one after another; a kernel starts no earlier than
 * 2-4 us after its launch call started.  Ranks run concurrently (overlapping
 * timelines), so ranges with the same name on different ranks add up.
 *
 *   ids: pid = 4000 + 16*rank, tid = pid + thread, globalTid =
 *   (1<<48) | pid<<24 | tid, globalPid = globalTid & ~0xFFFFFF.  Correlation
 *   ids are dense per process and start at 1000 in EVERY process, so a join
 *   on correlationId alone (without globalPid) is wrong when --ranks > 1.
 *
 * Kernel counts: --kernels N is the exact number of kernel rows in the file
 * (of launches, with the shares described further down).
 * They are split evenly over ranks (remainders go to the first ranks), and
 * inside a rank into: outside kernels (--outside, launched by the main thread
 * between/before/after epoch ranges, spread over the W+E+1 gaps), extra-thread
 * kernels (--thread-kernels, launched by threads 1..T-1 while epochs run but
 * never inside a range on their own thread, unless --thread-epochs), and the
 * rest spread evenly over the W+E epochs (with W+E = 0 they all become
 * outside kernels).  Within a rank the k-th eager kernel launched uses name
 * slot k % K (slot s = name index
 * s + name-offset), so epochs have identical kernel mixes (and, with
 * --jitter 0 and one rank, identical sums) only when the kernels per epoch
 * are a multiple of K.  Epoch kernels' launch calls lie inside their range;
 * outside and extra-thread calls lie in no range of their own thread, though
 * extra-thread calls overlap the epoch ranges in time (a gate must match on
 * globalTid, not on time alone).
 *
 * Runtime rows: launch calls are "cudaLaunchKernel_v7000" with eventClass 0
 * (ENUM_NSYS_EVENT_CLASS 0 = CUDA runtime, as in real exports; 1 = driver,
 * used with --driver-api), returnValue 0, callchainId NULL.
 *
 * Launches that are not eager kernels.  --kernels N counts launches: each is
 * one runtime call with its own correlationId and its GPU work.  With the
 * shares below, rank r's share(N) launches are floor(n * P) memory
 * operations, floor(n * P) graph launches and floor(n * P) NCCL kernels (one
 * floor per share), the rest eager kernels; the types are interleaved evenly
 * (smooth weighted round robin over the rank's launches in the order they are
 * made: main thread, then extra threads), and --outside / --thread-kernels
 * count launches of any type.  So "--kernels N is the number of kernel rows"
 * holds only without shares.
 *   memory (--memory-share): cudaMemcpyAsync_v3020 / cudaMemsetAsync_v3020
 *     calls; the rank's j-th one is --memory-kinds word j % count: htod, dtoh,
 *     dtod, htoh, ptop (copyKind 1, 2, 8, 9, 10 of ENUM_CUDA_MEMCPY_OPER;
 *     srcKind/dstKind pinned (1) or device (2); ptop sets src/dstDeviceId and
 *     context: the next device of the rank, or of the trace) and memset
 *     (memKind 2, value 0).  Size: a fixed hash of j, 4 KiB .. 64 MiB
 *     log-uniform; duration round((700 + bytes / rate) * memory-scale * warm
 *     * (1 + jitter * u)), rate in B/ns: htod 22, dtoh 20, dtod 1300, htoh 8,
 *     ptop 200, memset 1800.  They run on the thread's compute stream, in
 *     line with its kernels.
 *   graphs (--graph-share): cudaGraphLaunch_v10000 calls; the rank's j-th one
 *     replays graph g = j % G (graphId g+1, graphExecId g+101), whose K nodes
 *     are kernels of name slots (g*K + n) % names, each lasting like an eager
 *     kernel of that slot times --slow-graph's factor, one after another on the
 *     compute stream with fixed 400-2000 ns gaps.  Graph mode: ONE graph-trace
 *     row from the first node's start to the last node's end (gaps included),
 *     and no kernel rows.  Node mode (--graph-mode node): the nodes are
 *     ordinary kernel rows with graphId g+1 and graphNodeId (g+1)*1000+n+1,
 *     all carrying the launch call's correlationId.  META_DATA_CAPTURE gets
 *     CUDA_GRAPH_TRACE_OPTIONS:MODE = Graph or Node.
 *   NCCL (--comm-share): kernels named ncclDevKernel_AllReduce_Sum_f32_RING_LL,
 *     _ReduceScatter_Sum_f32_RING_LL and _AllGather_RING_LL (in turn; full
 *     demangled/mangled names as NCCL 2.19+ writes them), launched by
 *     cudaLaunchKernel_v7000 on the thread's communication stream (streamId
 *     12 + T + thread).  One starts when its call allows, when the compute
 *     stream has finished the work queued before it (its input), and when the
 *     communication stream is free; the compute stream then waits until
 *     (1 - overlap) of its duration has passed.  So --overlap 1 (default)
 *     runs communication alongside the compute launched after it, and
 *     --overlap 0 serializes the two: the same rows, the same durations and
 *     kernel sums, a larger gpu-busy and span.
 * Devices (--devices-per-rank D): rank r owns deviceIds r*D .. r*D+D-1
 * (contextId = deviceId + 1), and each thread sends its launches to them in
 * turn, one compute and one communication stream per device.
  *
 * Durations (integer ns): name index i has a base duration between 5 us and
 * 2 ms, log-uniformly chosen by a fixed hash of i (independent of --seed, so
 * the same kernel has the same base in every trace).  An instance lasts
 *   round(base(i) * scale * slow(i) * warm * (1 + jitter * u)),  at least 1,
 * u uniform in [-1,1) from a PRNG seeded by --seed; warm = --warmup-scale in
 * warmup epochs, else 1.  CPU-side timing (gaps, call lengths, launch latency)
 * comes from a fixed hash too, so with --jitter 0 the seed changes nothing.
 *
 * Options (numbers are decimal; exit status 2 and a "gentrace: ..." message
 * on any bad option):
 *   -o, --output PATH     required; the file is written to a temporary name
 *                         in the same directory and renamed into place.
 *                         Refuses to replace an existing PATH unless --force.
 *       --force           allow replacing PATH.
 *       --kernels N       launches (default 1000; 0 = no kernel table): all kernel
 *                         rows unless the shares below make some other work.
 *       --names K         distinct built-in kernel names (default 8).  Name
 *                         index i is a fixed realistic C++/cuBLAS/NCCL name
 *                         (16 families; i/16 varies a template argument).
 *       --names-from FILE names from FILE, one per line, raw bytes; escapes
 *                         \xNN \n \r \t \\ are decoded (any other backslash
 *                         sequence, and \x00, is an error).  Empty lines are
 *                         skipped.  Line j (0-based, counting non-empty lines)
 *                         is name index j; all lines are used; overrides
 *                         --names; cannot be combined with --name-offset.
 *                         shortName = demangledName = mangledName for them,
 *                         unless --short-names-from gives the shortNames.
 *       --short-names-from FILE  shortName of each --names-from name, in the
 *                         same format and order (as many lines); what
 *                         nsys's :base and --kernel-names base read.
 *       --name-offset N   use built-in name indices N..N+K-1 instead of
 *                         0..K-1 (e.g. base: --names 8, current: --names 8
 *                         --name-offset 1 -> current has index 8, a kernel the
 *                         base lacks, and lacks index 0).
 *       --epochs E        measured epochs (default 5; 0 allowed).
 *       --warmup W        extra epochs before them (default 0).
 *       --warmup-scale F  duration factor for GPU work in warmup epochs (default 1).
 *       --epoch-scales LIST  comma-separated factors (> 0): measured epoch m's GPU
 *                         work lasts LIST[m % n] times as long (epochs of several
 *                         kinds, e.g. 0.02,1 for a short and a long step in turn).
 *       --epoch-format FMT printf format with exactly one %d conversion
 *                         (flags/width allowed, %% allowed); default "epoch %d".
 *       --epoch-base B    number of the first epoch (default 0).
 *       --epoch-text TEXT every epoch range has the text TEXT (no number), like
 *                         nvtx.range("train_step") around every step: only
 *                         their order on a thread tells the epochs apart.
 *                         Cannot be combined with --epoch-format.
 *       --threads T       threads per process (default 1).
 *       --thread-kernels N kernels launched by the extra threads, in total over
 *                         all ranks (default: (kernels - outside) / 10 when
 *                         T > 1, else 0; must be 0 when T == 1).
 *       --thread-epochs   extra threads launch inside ranges too: thread k's
 *                         launches are split over the W+E epochs like the main
 *                         thread's, share(n, W+E, e) inside its own range of
 *                         epoch e (same text; one range per epoch even when
 *                         empty), so the same epoch (occurrence) has work on
 *                         several threads.  Needs --threads > 1.
 *       --ranks R         processes (default 1), one GPU each unless
 *                         --devices-per-rank.
 *       --devices-per-rank D  GPUs per process, 1..16 (default 1).
 *       --rank-base K     the file's ranks are ranks K.. of a larger job: rank
 *                         r of the file has the pid, deviceIds, GPU rows, start
 *                         time and random streams of rank K + r of a file
 *                         written with --ranks K + R (default 0).  The kernels
 *                         are split over the file's own ranks, so
 *                         `--ranks 1 --rank-base K --kernels N` is rank K of
 *                         `--ranks R --kernels R*N`: one file per rank of a job.
 *       --outside N       kernels launched by main threads outside any epoch
 *                         range, in total over all ranks (default 0).
 *       --nested          inside each epoch: 2 steps; each step is a range
 *                         named fmt(epoch) + " step <base+s>" (matches the epoch
 *                         pattern too: tests the outermost-only rule)
 *                         containing ranges "forward" (40% of the step's
 *                         kernels) and "backward" (40%), a range with a
 *                         registered string "optimizer.step" (text NULL, textId
 *                         set) in domain 1 "trainer" (10%) and a range with NULL
 *                         text and NULL textId (the rest).  Each rank also gets
 *                         an eventType 75 row creating domain 1 "trainer", and
 *                         each epoch an NVTX mark (eventType 34, end NULL)
 *                         whose text IS the epoch name.
 *       --registered      epoch (and step) range names are registered strings
 *                         (text NULL, textId -> StringIds) instead of text.
 *       --no-nvtx         write no NVTX rows (no NVTX_EVENTS table).
 *       --slow I:F        kernels with name index I last F times longer
 *                         (F > 0; repeatable; factors for the same I multiply;
 *                         I must be one of the generated name indices).
 *       --scale F         all kernel durations times F (default 1, F > 0).
 *       --jitter J        relative noise, 0 <= J < 1 (default 0).
 *       --seed S          PRNG seed for the noise (default 1).
 *       --gpu NAME        TARGET_INFO_GPU.name (default "NVIDIA A100-SXM4-80GB";
 *                         the other columns always describe an A100).
 *       --driver VER      TARGET_INFO_SYSTEM_ENV NvDriverVersion, the place real
 *                         exports record it (default "535.129.03").
 *       --driver-api      launches are recorded as driver calls "cuLaunchKernel"
 *                         (eventClass 1) instead of "cudaLaunchKernel_v7000"
 *                         (eventClass 0, CUDA runtime, as in real exports).
 *       --sync-every N    inside epochs, after every N kernels the main thread
 *                         calls cudaStreamSynchronize_v3020 and then does
 *                         20-80 us of host work, so the GPU idles and
 *                         gpu_span_ns > kernel_sum_ns (default 0: only the
 *                         end-of-epoch cudaDeviceSynchronize_v3020).
 *       --memory-share P  share of the launches that are memory operations,
 *                         0 <= P <= 1 (default 0).
 *       --memory-kinds LIST  comma-separated htod, dtoh, dtod, htoh, ptop,
 *                         memset, used in turn (default htod,memset,dtoh,dtod).
 *       --memory-scale F  memory operation durations times F (default 1).
 *       --graph-share P   share of the launches that are CUDA graph launches.
 *       --graph-mode M    graph (default with --graph-share: nsys's default) or
 *                         node.  Given alone it only writes the MODE row (and
 *                         the 2026 layout).
 *       --graph-mode-prefix  the MODE row is PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE
 *                         (as in some real files) instead of CUDA_GRAPH_TRACE_OPTIONS:MODE.
 *       --graphs G        distinct graphs, launched in turn (default 2).
 *       --graph-nodes K   kernel nodes per graph, 1..999 (default 4).
 *       --slow-device D:F the kernels (and graph nodes) on deviceId D last F times
 *                         longer: a straggling GPU
 *       --slow-range NAME:F with --nested, the work launched inside the nested
 *                         ranges named NAME (forward, backward, optimizer.step,
 *                         or step: the launches of a step in none of those)
 *                         lasts F times longer (repeatable; factors multiply).
 *       --slow-graph G:F  the nodes of graph id G (1..G) last F times longer
 *                         (repeatable; a regression hidden inside a graph).
 *       --comm-share P    share of the launches that are NCCL kernels on a
 *                         communication stream.
 *       --overlap F       0 <= F <= 1: part of each NCCL kernel that may run
 *                         alongside compute (default 1; 0 = lost overlap).
 *                         Shares must add up to at most 1; --memory-kinds,
 *                         --memory-scale, --graphs, --graph-nodes,
 *                         --slow-graph and --overlap need their share > 0.
 *       --shuffle SEED    after writing, rewrite every table in a random row
 *                         order (seeded; tables with an INTEGER PRIMARY KEY,
 *                         StringIds and the enums, are stored in key order
 *                         anyway).  Nothing else changes, --summary included:
 *                         nsys 2025.6+ does not promise timestamp order.
 *       --summary         after writing, print the JSON summary below.
 *       --format F        sqlite (default) or kineto: a torch.profiler Chrome trace
 *                         (one JSON object, plain: gzip it for .json.gz) of the same
 *                         model, times in microseconds with three decimals (the
 *                         integer ns exactly).  Kernels are "kernel" events (pid =
 *                         device, tid = stream, args.correlation), memory
 *                         "gpu_memcpy" ("Memcpy HtoD (Pinned -> Device)") and
 *                         "gpu_memset", launch calls "cuda_runtime" ("cuda_driver"
 *                         with --driver-api; names without nsys's _vNNNN), each
 *                         inside an aten:: "cpu_op" and with its ac2g flow; epoch
 *                         and --nested ranges with a text are "user_annotation"
 *                         events; deviceProperties name --gpu.  The default epoch
 *                         format is "ProfilerStep#%d".  As in torch.profiler
 *                         traces a step is a window over the process: work that
 *                         a thread launches (call start) inside the main
 *                         thread's epoch range belongs to that epoch in the
 *                         summary, whatever its thread.  Needs --ranks 1 (one file
 *                         per rank); refuses --graph-mode graph, --registered,
 *                         --thread-epochs and --shuffle.
 *       --unlaunched N    (kineto) N more kernels before everything, whose launch
 *                         calls the trace lacks (launched before the profiler
 *                         started): counted in the totals, in no epoch.
 *       --dist-rank R, --world-size W  (kineto) distributedInfo's rank and world_size.
 *   -h, --help
 *
 * --summary prints one line of JSON, computed while generating (not read back
 * from the file):
 *   {"kernels": N, "total_ns": T,
 *    "per_name": [{"name": S, "total_ns": T, "instances": N}, ...],
 *    "epochs": [{"name": S, "warmup": B, "kernel_sum_ns": T, "gpu_span_ns": T,
 *                "occurrence": K, "work": WORK_EPOCH}, ...],
 *    "graph_mode": "Graph" | "Node" | null,
 *    "devices": [{"device": D, "pid": P, "kinds": KINDS, "work": WORK_TOTAL}, ...],
 *    "processes": [{"pid": P, "global_pid": G, "devices": [D, ...], "kinds": KINDS,
 *                   "work": WORK_TOTAL}, ...],
 *    "kinds": KINDS, "work": WORK_TOTAL,
 *    "per_memory": [{"name": S, "total_ns": T, "instances": N, "bytes": B}, ...],
 *    "per_graph": [{"name": "CUDA graph G", "graph_id": G, "total_ns": T,
 *                   "launches": N}, ...]}
 * where
 *   KINDS = {"kernel": {"ns": T, "launches": N}, "graph": {...}, "memcpy": {...},
 *            "memset": {...}}  (launches = rows of that table)
 *   WORK_EPOCH = {"kernels": {"kernel_sum_ns": T, "gpu_span_ns": T, "gpu_busy_ns": T,
 *                 "launches": N}, "kernels,graphs": {...}, "all": {...}}
 *   WORK_TOTAL = {"kernels": {"kernel_sum_ns": T, "gpu_busy_ns": T, "launches": N},
 *                 "kernels,graphs": {...}, "all": {...}}
 * The work sets are the gate's --work values: kernels = kernel rows (eager,
 * NCCL, node-mode graph nodes), kernels,graphs (the gate's default) adds the
 * graph-trace rows, all adds memcpy and memset rows.
 * "kernels" and "total_ns" count kernel rows (what cuda_gpu_kern_sum reports).
 * per_name: kernel-row names with at least one instance, in name-index order
 * (NCCL names last), merged by identical string.  epochs: in time order, one
 * entry per epoch, that is per (name, occurrence) where occurrence K is the
 * range's 1-based position among the ranges with that name on its thread
 * (always 1 without --epoch-text); ranks and threads added; empty with
 * --no-nvtx.  An epoch's work is what was launched inside one of its ranges
 * (launch call inside the range on the same thread; correlationId and
 * process join the work to its call).  kernel_sum_ns = sum of the work's
 * durations; gpu_span_ns = max(end) - min(start) over it (0 without work:
 * nvtx_gpu_proj_trace's projection over the same work); gpu_busy_ns = per
 * device, the length of the union of the work's [start, end) intervals,
 * summed over devices.  The epoch's own "kernel_sum_ns" and "gpu_span_ns" are
 * those of the kernels set (as before these fields had work sets).  "warmup"
 * is true for the first W epochs.  WORK_TOTAL: over all the counted work of
 * the trace (or device, or process: the busy of a process is the sum of its
 * devices').  per_memory: per operation as nsys's cuda_gpu_mem_time_sum names
 * it ("[CUDA memcpy Host-to-Device]" with the ENUM_CUDA_MEMCPY_OPER label,
 * "[CUDA memset]"), in --memory-kinds word order (htod, dtoh, dtod, htoh,
 * ptop, memset).  per_graph (with --graph-share): per graph id with launches,
 * the time of its graph-trace rows (graph mode) or of its node kernels (node
 * mode).  gpu-busy needs every interval: --summary keeps them, coalesced per
 * stream (back-to-back work is one entry), until the end of each rank.
 * Strings: valid UTF-8 is copied, '"' and '\' are escaped, control characters
 * (< 0x20 and 0x7F) become \b \f \n \r \t or \u00XX; a byte that is not part of
 * valid UTF-8 is written as \u00XX with the byte's value (so it is
 * indistinguishable from the code point U+00XX: compare names from files
 * written with invalid UTF-8 by bytes, not through this JSON).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

/* ------------------------------------------------------------------------ */
/* Schema: verbatim CREATE TABLE text of an nsys 2023.4.4 export (3.7.2).   */
/* Stored as lines to stay under C11's minimum string literal length.       */
/* ------------------------------------------------------------------------ */
static const char *const SQL_STRINGIDS[] = {
    "CREATE TABLE StringIds (",
    "    -- Consolidation of repetitive string values.",
    "",
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.",
    "    value                       TEXT      NOT NULL                     -- String value.",
    ")",
    NULL
};
static const char *const SQL_META_DATA_EXPORT[] = {
    "CREATE TABLE META_DATA_EXPORT (",
    "    -- information about nsys export process",
    "",
    "    name                        TEXT      NOT NULL,                    -- Name of meta-data record",
    "    value                       TEXT                                   -- Value of meta-data record",
    ")",
    NULL
};
static const char *const SQL_META_DATA_CAPTURE[] = {
    "CREATE TABLE META_DATA_CAPTURE (",
    "    -- information about nsys capture parameters",
    "",
    "    name                        TEXT      NOT NULL,                    -- Name of meta-data record",
    "    value                       TEXT                                   -- Value of meta-data record",
    ")",
    NULL
};
static const char *const SQL_TARGET_INFO_SYSTEM_ENV[] = {
    "CREATE TABLE TARGET_INFO_SYSTEM_ENV (",
    "    globalVid                   INTEGER,                               -- Serialized GlobalId.",
    "    devStateName                TEXT      NOT NULL,                    -- Device state name.",
    "    name                        TEXT      NOT NULL,                    -- Property name.",
    "    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.",
    "    value                       TEXT      NOT NULL                     -- Property value.",
    ")",
    NULL
};
static const char *const SQL_TARGET_INFO_GPU[] = {
    "CREATE TABLE TARGET_INFO_GPU (",
    "    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.",
    "    id                          INTEGER   NOT NULL,                    -- Device ID.",
    "    name                        TEXT,                                  -- Device name.",
    "    busLocation                 TEXT,                                  -- PCI bus location.",
    "    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.",
    "    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).",
    "    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).",
    "    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).",
    "    clockRate                   INTEGER,                               -- Clock frequency (Hz).",
    "    smCount                     INTEGER,                               -- Number of multiprocessors on the device.",
    "    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.",
    "    uuid                        TEXT,                                  -- Device UUID.",
    "    luid                        INTEGER,                               -- Device LUID.",
    "    chipName                    TEXT,                                  -- Chip name.",
    "    cuDevice                    INTEGER,                               -- CUDA device ID.",
    "    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.",
    "    ctrlDevPath                 TEXT,                                  -- GPU control device node path.",
    "    revision                    INTEGER,                               -- Revision number.",
    "    nodeMask                    INTEGER,                               -- Device node mask.",
    "    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).",
    "    maxIPC                      INTEGER,                               -- Maximum instructions per count.",
    "    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.",
    "    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.",
    "    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.",
    "    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).",
    "    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.",
    "    threadsPerWarp              INTEGER,                               -- Warp size in threads.",
    "    asyncEngines                INTEGER,                               -- Number of asynchronous engines.",
    "    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.",
    "    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.",
    "    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.",
    "    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.",
    "    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.",
    "    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.",
    "    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.",
    "    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.",
    "    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.",
    "    computeMajor                INTEGER,                               -- Major compute capability version number.",
    "    computeMinor                INTEGER,                               -- Minor compute capability version number.",
    "    smMajor                     INTEGER,                               -- Major multiprocessor version number.",
    "    smMinor                     INTEGER                                -- Minor multiprocessor version number.",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_RUNTIME[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)",
    "    globalTid                   INTEGER,                               -- Serialized GlobalId.",
    "    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.",
    "    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name",
    "    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.",
    "    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_KERNEL[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates",
    "    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name",
    "    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name",
    "    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)",
    "    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)",
    "    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.",
    "    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.",
    "    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.",
    "    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.",
    "    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.",
    "    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.",
    "    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.",
    "    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).",
    "    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).",
    "    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).",
    "    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).",
    "    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.",
    "    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_EVENTS(graphNodeId)",
    "    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)",
    ")",
    NULL
};
static const char *const SQL_NVTX_EVENTS[] = {
    "CREATE TABLE NVTX_EVENTS (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER,                               -- Event end timestamp (ns).",
    "    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)",
    "    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.",
    "    category                    INTEGER,                               -- User-controlled ID that can be used to group events.",
    "    color                       INTEGER,                               -- Encoded ARGB color value.",
    "    text                        TEXT,                                  -- Optional text message for non registered strings.",
    "    globalTid                   INTEGER,                               -- Serialized GlobalId.",
    "    endGlobalTid                INTEGER,                               -- Serialized GlobalId.",
    "    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain",
    "    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.",
    "    uint64Value                 INTEGER,                               -- One of possible payload value union members.",
    "    int64Value                  INTEGER,                               -- One of possible payload value union members.",
    "    doubleValue                 REAL,                                  -- One of possible payload value union members.",
    "    uint32Value                 INTEGER,                               -- One of possible payload value union members.",
    "    int32Value                  INTEGER,                               -- One of possible payload value union members.",
    "    floatValue                  REAL,                                  -- One of possible payload value union members.",
    "    jsonTextId                  INTEGER,                               -- One of possible payload value union members.",
    "    jsonText                    TEXT                                   -- One of possible payload value union members.",
    ")",
    NULL
};


/* The layout of newer exports, used with --graph-mode (a kernel table with a
 * graphId column exists from nsys 2025.5 on): copied from a real 2026.2.1
 * export (schema 3.25.0), like the 2023.4.4 text above; the memory tables and
 * their enums of both versions come from `nsys export --lazy=false` output. */
static const char *const SQL_CUPTI_ACTIVITY_KIND_KERNEL_2026[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates",
    "    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name",
    "    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name",
    "    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)",
    "    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)",
    "    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.",
    "    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.",
    "    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.",
    "    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.",
    "    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.",
    "    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.",
    "    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.",
    "    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).",
    "    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).",
    "    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).",
    "    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).",
    "    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.",
    "    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)",
    "    sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)",
    "    qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.",
    "    qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.",
    "    qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.",
    "    graphId                     INTEGER,                               -- Kernel graph ID.",
    "    clusterX                    INTEGER,                               -- Cluster X dimension.",
    "    clusterY                    INTEGER,                               -- Cluster Y dimension.",
    "    clusterZ                    INTEGER,                               -- Cluster Z dimension.",
    "    clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.",
    "    maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.",
    "    maxActiveClusters           INTEGER,                               -- Maximum active clusters.",
    "    sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.",
    "    tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_MEMCPY[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).",
    "    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)",
    "    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.",
    "    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    "    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    "    srcDeviceId                 INTEGER,                               -- Source device ID.",
    "    srcContextId                INTEGER,                               -- Source context ID.",
    "    dstDeviceId                 INTEGER,                               -- Destination device ID.",
    "    dstContextId                INTEGER,                               -- Destination context ID.",
    "    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_EVENTS(graphNodeId)",
    "    virtualAddress              INTEGER                                -- Virtual base address of the page/s being transferred.",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_MEMCPY_2026[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).",
    "    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)",
    "    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.",
    "    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    "    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    "    srcDeviceId                 INTEGER,                               -- Source device ID.",
    "    srcContextId                INTEGER,                               -- Source context ID.",
    "    dstDeviceId                 INTEGER,                               -- Destination device ID.",
    "    dstContextId                INTEGER,                               -- Destination context ID.",
    "    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)",
    "    virtualAddress              INTEGER,                               -- Virtual base address of the page/s being transferred.",
    "    copyCount                   INTEGER                                -- The total number of memcopy operations traced in this record. In CUDA MemcpyBatchAsync APIs, multiple memcpy operations may be batched together for optimization purposes based on certain heuristics.",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_MEMSET[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.",
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_EVENTS(graphNodeId)",
    "    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    ")",
    NULL
};
static const char *const SQL_CUPTI_ACTIVITY_KIND_MEMSET_2026[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.",
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).",
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)",
    "    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)",
    ")",
    NULL
};
static const char *const SQL_ENUM_CUDA_MEMCPY_OPER[] = {
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (",
    "    -- CUDA memcpy operation labels",
    "",
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value",
    "    name                        TEXT,                                  -- Enum symbol name",
    "    label                       TEXT                                   -- Enum human name",
    ")",
    NULL
};
static const char *const SQL_ENUM_CUDA_MEMCPY_OPER_2026[] = {
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (",
    "    -- CUDA memcpy operation labels",
    "",
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.",
    "    name                        TEXT,                                  -- Enum symbol name.",
    "    label                       TEXT                                   -- Enum human name.",
    ")",
    NULL
};
static const char *const SQL_ENUM_CUDA_MEM_KIND[] = {
    "CREATE TABLE ENUM_CUDA_MEM_KIND (",
    "    -- CUDA memory kind labels",
    "",
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value",
    "    name                        TEXT,                                  -- Enum symbol name",
    "    label                       TEXT                                   -- Enum human name",
    ")",
    NULL
};
static const char *const SQL_ENUM_CUDA_MEM_KIND_2026[] = {
    "CREATE TABLE ENUM_CUDA_MEM_KIND (",
    "    -- CUDA memory kind labels",
    "",
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.",
    "    name                        TEXT,                                  -- Enum symbol name.",
    "    label                       TEXT                                   -- Enum human name.",
    ")",
    NULL
};
/* No export at hand has this table (2023.4 never writes it): the text is made
 * in the style above from the column list of the 2026.2 schema documentation
 * (start, end, deviceId, contextId, greenContextId, streamId, correlationId,
 * globalPid, graphId, graphExecId). */
static const char *const SQL_CUPTI_ACTIVITY_KIND_GRAPH_TRACE[] = {
    "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (",
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).",
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).",
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.",
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.",
    "    greenContextId              INTEGER,                               -- Green context ID.",
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.",
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)",
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.",
    "    graphId                     INTEGER   NOT NULL,                    -- Graph ID.",
    "    graphExecId                 INTEGER   NOT NULL                     -- Graph exec ID.",
    ")",
    NULL
};
/* ------------------------------------------------------------------------ */
/* Small utilities                                                          */
/* ------------------------------------------------------------------------ */

static const char *g_tmp_path; /* removed on fatal errors */

_Noreturn static void die_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("gentrace: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(try gentrace --help)\n", stderr);
    exit(2);
}

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("gentrace: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (g_tmp_path)
        unlink(g_tmp_path);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r)
{
    r->s += 0x9E3779B97F4A7C15ULL;
    uint64_t x = r->s;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* uniform in [0,1) */
static double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t rng_range(rng_t *r, int64_t lo, int64_t hi) /* [lo,hi] */
{
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* share of `total` for part `i` of `n` (remainder to the first parts) */
static int64_t share(int64_t total, int64_t n, int64_t i)
{
    if (n <= 0)
        return 0;
    return total / n + (i < total % n ? 1 : 0);
}

/* ------------------------------------------------------------------------ */
/* Option parsing helpers                                                   */
/* ------------------------------------------------------------------------ */

static int64_t parse_int(const char *opt, const char *s, int64_t lo, int64_t hi)
{
    char *end;
    long long v;
    errno = 0;
    if (!*s)
        die_usage("%s: empty number", opt);
    v = strtoll(s, &end, 10);
    if (errno || *end || end == s)
        die_usage("%s: not an integer: '%s'", opt, s);
    if (v < lo || v > hi)
        die_usage("%s: %lld out of range [%lld, %lld]", opt, v, (long long)lo, (long long)hi);
    return (int64_t)v;
}

static double parse_double(const char *opt, const char *s)
{
    char *end;
    double v;
    errno = 0;
    if (!*s)
        die_usage("%s: empty number", opt);
    v = strtod(s, &end);
    if (errno || *end || end == s || !(v - v == 0.0)) /* rejects inf/nan */
        die_usage("%s: not a number: '%s'", opt, s);
    return v;
}

/* Exactly one %d conversion ([-+ 0#]* width? d); %% allowed; nothing else. */
static int check_epoch_format(const char *f)
{
    int conv = 0;
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        while (*p && strchr("-+ 0#", *p))
            p++;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p != 'd')
            return 0;
        conv++;
    }
    return conv == 1;
}

/* ------------------------------------------------------------------------ */
/* String interning (StringIds)                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t len;
} str_t;

static str_t *g_strs;         /* by id */
static int64_t g_nstrs, g_capstrs;
static int64_t *g_htab;       /* -1 = empty, else id */
static size_t g_hcap;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void htab_grow(void)
{
    size_t ncap = g_hcap ? g_hcap * 2 : 1024;
    int64_t *nt = xmalloc(ncap * sizeof *nt);
    for (size_t i = 0; i < ncap; i++)
        nt[i] = -1;
    for (int64_t id = 0; id < g_nstrs; id++) {
        size_t j = (size_t)hash_bytes(g_strs[id].s, g_strs[id].len) & (ncap - 1);
        while (nt[j] >= 0)
            j = (j + 1) & (ncap - 1);
        nt[j] = id;
    }
    free(g_htab);
    g_htab = nt;
    g_hcap = ncap;
}

static int64_t intern(const char *s, size_t len)
{
    if ((size_t)(g_nstrs + 1) * 2 > g_hcap)
        htab_grow();
    size_t j = (size_t)hash_bytes(s, len) & (g_hcap - 1);
    while (g_htab[j] >= 0) {
        str_t *e = &g_strs[g_htab[j]];
        if (e->len == len && memcmp(e->s, s, len) == 0)
            return g_htab[j];
        j = (j + 1) & (g_hcap - 1);
    }
    if (g_nstrs == g_capstrs) {
        g_capstrs = g_capstrs ? g_capstrs * 2 : 256;
        g_strs = xrealloc(g_strs, (size_t)g_capstrs * sizeof *g_strs);
    }
    char *copy = xmalloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    g_strs[g_nstrs].s = copy;
    g_strs[g_nstrs].len = len;
    g_htab[j] = g_nstrs;
    return g_nstrs++;
}

static int64_t intern_c(const char *s)
{
    return intern(s, strlen(s));
}

/* ------------------------------------------------------------------------ */
/* Kernel names                                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
    const char *demangled; /* one %u: a template argument that varies with i/16 */
    const char *shortname; /* may contain the same %u */
    const char *mangled;   /* may contain the same %u */
    unsigned v0, dv;
    int grid, block, regs, smem; /* launch shape */
} name_family_t;

static const name_family_t FAMILIES[16] = {
    {"void at::native::elementwise_kernel<(int)%u, (int)4, void at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
     "elementwise_kernel",
     "_ZN2at6native18elementwise_kernelILi%uELi4EZNS0_22gpu_kernel_impl_nocastINS0_15CUDAFunctor_addIfEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
     128, 128, 4096, 128, 26, 0},
    {"ampere_sgemm_%ux64_nn", "ampere_sgemm_%ux64_nn", "ampere_sgemm_%ux64_nn",
     128, 64, 320, 128, 122, 16384},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, std::array<char *, (unsigned long)%u>>(int, T2, T3)",
     "vectorized_elementwise_kernel",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm%uEEEEviT0_T1_",
     1, 1, 2048, 128, 16, 0},
    {"void at::native::reduce_kernel<(int)%u, (int)1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator ()(at::TensorIterator &)::[lambda(float, float) (instance 1)]>, unsigned int, float, (int)4>>(T3)",
     "reduce_kernel",
     "_ZN2at6native13reduce_kernelILi%uELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4EEEEEvT1_",
     512, 256, 108, 512, 32, 16},
    {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_%ux128_32x3_nn_align4>(T1::Params)",
     "Kernel2",
     "_ZN7cutlass7Kernel2I39cutlass_80_tensorop_s1688gemm_%ux128_32x3_nn_align4EEvNT_6ParamsE",
     128, 64, 216, 256, 234, 0},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<(int)%u, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)",
     "cunn_SoftMaxForward",
     "_ZN2at6native12_GLOBAL__N_119cunn_SoftMaxForwardILi%uEfffNS1_22SoftMaxForwardEpilogueEEEvPT2_PKT0_i",
     4, 4, 4096, 1024, 32, 0},
    {"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize%ux128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize%ux128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize%ux128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     128, 64, 432, 128, 168, 0},
    {"ncclDevKernel_Generic_%u(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "ncclDevKernel_Generic_%u",
     "_Z24ncclDevKernel_Generic_%u24ncclDevKernelArgsStorageILm4096EE",
     4, 1, 2, 640, 96, 0},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<(int)%u, (int)128, (int)64, (int)4, false, false, cutlass::half_t, Flash_kernel_traits<(int)128, (int)128, (int)64, (int)4, cutlass::half_t>>, false, true, false, false, false>(Flash_fwd_params)",
     "flash_fwd_kernel",
     "_Z16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi%uELi128ELi64ELi4ELb0ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES2_EELb0ELb1ELb0ELb0ELb0EEv16Flash_fwd_params",
     128, 64, 512, 128, 255, 0},
    {"void at::native::index_elementwise_kernel<(int)128, (int)%u, void at::native::gpu_index_kernel<void at::native::index_kernel_impl<at::native::OpaqueType<(int)4>>(at::TensorIteratorBase &, c10::ArrayRef<long>, c10::ArrayRef<long>)::[lambda(char *, const char *, long) (instance 1)]>(at::TensorIteratorBase &, c10::ArrayRef<long>, c10::ArrayRef<long>, const T1 &)::[lambda(int) (instance 1)]>(long, T3)",
     "index_elementwise_kernel",
     "_ZN2at6native24index_elementwise_kernelILi128ELi%uEZNS0_16gpu_index_kernelIZNS0_17index_kernel_implINS0_10OpaqueTypeILi4EEEEEvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvS7_SA_SA_RKT_EUliE_EEvlT1_",
     4, 4, 1024, 128, 40, 0},
    {"void gen_sequenced<curandStateXORWOW, double, int, &curand_normal_scaled2_double, rng_config<curandStateXORWOW, (curandOrdering)%u>>(T1 *, T2 *, unsigned long, unsigned long, T3)",
     "gen_sequenced",
     "_Z13gen_sequencedI17curandStateXORWOWdiXadL_Z28curand_normal_scaled2_doubleEE10rng_configIS0_L14curandOrdering%uEEEvPT_PT0_mmT2_",
     101, 1, 64, 64, 45, 0},
    {"vectorAdd_v%u(const float *, const float *, float *, int)",
     "vectorAdd_v%u",
     "_Z11vectorAdd_v%uPKfS0_Pfi",
     1, 1, 3907, 256, 16, 0},
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, (int)%u, (bool)1, (int)1>(cudnnTensorStruct, const T1 *, cudnnTensorStruct, T1 *, const T2 *, const T2 *, T2, T2, T2 *, T2 *, T2 *, T2 *, T2, T2)",
     "bn_fw_tr_1C11_kernel_NCHW",
     "_ZN5cudnn25bn_fw_tr_1C11_kernel_NCHWIffLi%uELb1ELi1EEEv17cudnnTensorStructPKT_S1_PS2_PKT0_S8_S6_S6_PS6_S9_S9_S9_S6_S6_",
     512, 256, 256, 512, 30, 4096},
    {"void splitKreduce_kernel<(int)%u, (int)16, int, float, float, float, float, (bool)1, (bool)0, (bool)0>(cublasSplitKParams<T6>, const T4 *, const T5 *, T5 *, const T6 *, const T6 *, const T7 *, const T4 *, T7 *, void *, long, T6 *, int *)",
     "splitKreduce_kernel",
     "_Z19splitKreduce_kernelILi%uELi16EiffffLb1ELb0ELb0EEv18cublasSplitKParamsIT5_EPKT3_PKT4_PSA_PKS2_SF_PKT6_S8_PSG_PvlPS2_Pi",
     32, 32, 96, 512, 28, 0},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<(int)%u>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, (int)4, (at::native::ADAM_MODE)1, false>, double *, double, double, double, double, double, bool, bool *, bool *>(T1, T2, T3...)",
     "multi_tensor_apply_kernel",
     "_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelINS1_18TensorListMetadataILi%uEEENS1_20FusedAdamMathFunctorIfLi4ELNS0_9ADAM_MODEE1ELb0EEEJPddddddbPbS8_EEEvT_T0_DpT1_",
     4, 1, 320, 512, 64, 0},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize%ux128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize%ux128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize%ux128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     128, 64, 132, 384, 168, 0},
};

typedef struct {
    int64_t index;          /* name index (absolute) */
    int64_t demangled, shortname, mangled; /* StringIds ids */
    double base_ns;         /* base duration */
    double slow;            /* --slow factor */
    int gridX, gridY, blockX, regs, smem;
    int64_t sum_ns, count;  /* summary */
} slot_t;

/* 2^y for 0 <= y < 63 without libm (the meson target links only sqlite3):
 * integer part by shifting, fractional part by the exp series. */
static double exp2_pos(double y)
{
    int k = (int)y;
    double x = (y - k) * 0.6931471805599453; /* f * ln 2, in [0, 0.7) */
    double term = 1.0, sum = 1.0;
    for (int n = 1; n < 30; n++) {
        term *= x / n;
        sum += term;
    }
    return sum * (double)((uint64_t)1 << k);
}

static double base_duration_ns(int64_t index)
{
    /* 5 us .. 2 ms, log-uniform, fixed per name index */
    uint64_t h = splitmix64((uint64_t)index * 0x2545F4914F6CDD1DULL + 0x6A09E667F3BCC909ULL);
    double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    return (double)(int64_t)(5000.0 * exp2_pos(u * 8.643856189774724)); /* 400^u */
}

static void builtin_name(int64_t index, slot_t *sl)
{
    const name_family_t *f = &FAMILIES[index % 16];
    unsigned v = f->v0 + f->dv * (unsigned)(index / 16);
    char buf[4096];
    int n;
    n = snprintf(buf, sizeof buf, f->demangled, v);
    sl->demangled = intern(buf, (size_t)n);
    n = snprintf(buf, sizeof buf, f->shortname, v);
    sl->shortname = intern(buf, (size_t)n);
    n = snprintf(buf, sizeof buf, f->mangled, v);
    sl->mangled = intern(buf, (size_t)n);
    uint64_t h = splitmix64((uint64_t)index ^ 0xC0FFEEULL);
    sl->gridX = f->grid * (int)(1 + (h & 3));
    sl->gridY = 1;
    sl->blockX = f->block;
    sl->regs = f->regs;
    sl->smem = f->smem;
}

/* Read --names-from FILE: one name per line, escapes decoded. */
static char **read_names_file(const char *path, size_t **lens_out, int64_t *count_out)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        die_usage("--names-from: cannot open '%s': %s", path, strerror(errno));
    size_t cap = 65536, len = 0;
    char *data = xmalloc(cap);
    size_t r;
    while ((r = fread(data + len, 1, cap - len, fp)) > 0) {
        len += r;
        if (len == cap) {
            cap *= 2;
            data = xrealloc(data, cap);
        }
    }
    if (ferror(fp))
        die_usage("--names-from: read error on '%s'", path);
    fclose(fp);

    char **names = NULL;
    size_t *lens = NULL;
    int64_t n = 0, ncap = 0;
    size_t i = 0, lineno = 1;
    while (i < len) {
        size_t j = i;
        while (j < len && data[j] != '\n')
            j++;
        /* decode [i, j) */
        char *out = xmalloc(j - i + 1);
        size_t o = 0;
        for (size_t k = i; k < j; k++) {
            char c = data[k];
            if (c == '\0')
                die_usage("--names-from: line %zu: NUL byte not allowed", lineno);
            if (c != '\\') {
                out[o++] = c;
                continue;
            }
            if (k + 1 >= j)
                die_usage("--names-from: line %zu: backslash at end of line", lineno);
            c = data[++k];
            switch (c) {
            case 'n': out[o++] = '\n'; break;
            case 'r': out[o++] = '\r'; break;
            case 't': out[o++] = '\t'; break;
            case '\\': out[o++] = '\\'; break;
            case 'x': {
                int v = 0;
                for (int d = 0; d < 2; d++) {
                    char h = (k + 1 < j) ? data[++k] : '\0';
                    int hv;
                    if (h >= '0' && h <= '9') hv = h - '0';
                    else if (h >= 'a' && h <= 'f') hv = h - 'a' + 10;
                    else if (h >= 'A' && h <= 'F') hv = h - 'A' + 10;
                    else die_usage("--names-from: line %zu: \\x needs two hex digits", lineno);
                    v = v * 16 + hv;
                }
                if (v == 0)
                    die_usage("--names-from: line %zu: \\x00 not allowed", lineno);
                out[o++] = (char)v;
                break;
            }
            default:
                die_usage("--names-from: line %zu: unknown escape '\\%c'", lineno, c);
            }
        }
        if (o > 0) {
            if (n == ncap) {
                ncap = ncap ? ncap * 2 : 64;
                names = xrealloc(names, (size_t)ncap * sizeof *names);
                lens = xrealloc(lens, (size_t)ncap * sizeof *lens);
            }
            names[n] = out;
            lens[n] = o;
            n++;
        } else {
            free(out);
        }
        i = j + 1;
        lineno++;
    }
    free(data);
    if (n == 0)
        die_usage("--names-from: '%s' contains no names", path);
    *lens_out = lens;
    *count_out = n;
    return names;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */
/* ------------------------------------------------------------------------ */

static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { need = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { need = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 4; cp = c & 0x07; }
    else return 0;
    if (n < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

static void json_string(FILE *fp, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', fp);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c == '"') { fputs("\\\"", fp); i++; continue; }
        if (c == '\\') { fputs("\\\\", fp); i++; continue; }
        if (c < 0x20 || c == 0x7F) {
            switch (c) {
            case '\b': fputs("\\b", fp); break;
            case '\f': fputs("\\f", fp); break;
            case '\n': fputs("\\n", fp); break;
            case '\r': fputs("\\r", fp); break;
            case '\t': fputs("\\t", fp); break;
            default: fprintf(fp, "\\u%04x", c); break;
            }
            i++;
            continue;
        }
        size_t l = utf8_seq_len(s + i, n - i);
        if (l == 0) { /* invalid UTF-8 byte */
            fprintf(fp, "\\u%04x", c);
            i++;
            continue;
        }
        fwrite(s + i, 1, l, fp);
        i += l;
    }
    fputc('"', fp);
}


/* ------------------------------------------------------------------------ */
/* SQLite helpers                                                           */
/* ------------------------------------------------------------------------ */

static sqlite3 *g_db;

static void db_exec(const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(g_db, sql, NULL, NULL, &err) != SQLITE_OK)
        die("sqlite: %s (in: %.60s)", err ? err : "?", sql);
}

static void db_create(const char *const *lines)
{
    size_t n = 0;
    for (const char *const *l = lines; *l; l++)
        n += strlen(*l) + 1;
    char *sql = xmalloc(n + 1);
    size_t o = 0;
    for (const char *const *l = lines; *l; l++) {
        size_t k = strlen(*l);
        memcpy(sql + o, *l, k);
        o += k;
        if (l[1])
            sql[o++] = '\n';
    }
    sql[o] = '\0';
    db_exec(sql);
    free(sql);
}

static sqlite3_stmt *db_prepare(const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(g_db, sql, -1, &st, NULL) != SQLITE_OK)
        die("sqlite prepare: %s", sqlite3_errmsg(g_db));
    return st;
}

static void db_step(sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        die("sqlite insert: %s", sqlite3_errmsg(g_db));
    sqlite3_reset(st);
}

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s, size_t n)
{
    if (s)
        sqlite3_bind_text(st, col, s, (int)n, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, col);
}

static void bind_int_or_null(sqlite3_stmt *st, int col, int64_t v, int is_null)
{
    if (is_null)
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_int64(st, col, v);
}

static void insert_name_value(sqlite3_stmt *st, const char *name, const char *value)
{
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
    db_step(st);
}

/* ------------------------------------------------------------------------ */
/* Generator state                                                          */
/* ------------------------------------------------------------------------ */

typedef struct {
    int64_t slow_index;
    double factor;
} slow_t;

/* What one launch puts on the GPU (the launch mix of --memory-share,
 * --graph-share and --comm-share). */
enum { L_KERNEL, L_MEMORY, L_GRAPH, L_COMM, NLTYPES };

/* What the file records, and which work sets of the gate's --work count it
 * (bit w of KIND_WORK = WORK_NAMES[w]). */
enum { K_KERNEL, K_GRAPH, K_MEMCPY, K_MEMSET, NKINDS };
static const char *const KIND_NAMES[NKINDS] = {"kernel", "graph", "memcpy", "memset"};
enum { W_KERNELS, W_KERNELS_GRAPHS, W_ALL, NWORK };
static const char *const WORK_NAMES[NWORK] = {"kernels", "kernels,graphs", "all"};
static const unsigned KIND_WORK[NKINDS] = {7, 6, 4, 4};

enum { GM_NONE, GM_GRAPH, GM_NODE };
static const char *const GRAPH_MODE_VALUES[] = {NULL, "Graph", "Node"};

/* ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND rows as real exports have
 * them (id = index). */
static const char *const MEMCPY_OPER[][2] = {
    {"CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
    {"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
    {"CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {"CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
    {"CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {"CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
    {"CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
    {"CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
    {"CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
    {"CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
    {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
};
static const char *const MEM_KIND[][2] = {
    {"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
    {"CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
    {"CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {"CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
    {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {"CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
    {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
};

/* The words of --memory-kinds.  A copy of B bytes lasts 700 ns + B / rate. */
typedef struct {
    const char *word;
    int copy_kind;          /* ENUM_CUDA_MEMCPY_OPER id; -1 = a memset */
    int src_kind, dst_kind; /* ENUM_CUDA_MEM_KIND ids (a memset's memKind: dst_kind) */
    int peer;               /* the destination is another device */
    double bytes_per_ns;
} mem_op_t;
static const mem_op_t MEM_OPS[] = {
    {"htod", 1, 1, 2, 0, 22.0},
    {"dtoh", 2, 2, 1, 0, 20.0},
    {"dtod", 8, 2, 2, 0, 1300.0},
    {"htoh", 9, 1, 1, 0, 8.0},
    {"ptop", 10, 2, 2, 1, 200.0},
    {"memset", -1, 2, 2, 0, 1800.0},
};
#define NMEM_OPS ((int)(sizeof MEM_OPS / sizeof MEM_OPS[0]))
#define MAX_MEM_KINDS 64

/* NCCL kernels of --comm-share, used in turn (demangled, short, mangled). */
static const char *const COMM_NAMES[][3] = {
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
     "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"},
    {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL",
     "_Z43ncclDevKernel_ReduceScatter_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
     "ncclDevKernel_AllGather_RING_LL",
     "_Z31ncclDevKernel_AllGather_RING_LL24ncclDevKernelArgsStorageILm4096EE"},
};
#define NCOMM ((int64_t)(sizeof COMM_NAMES / sizeof COMM_NAMES[0]))

static struct {
    const char *output;
    int force;
    int64_t kernels, names, name_offset;
    const char *names_from;
    const char *short_names_from;
    int64_t epochs, warmup, epoch_base;
    double warmup_scale;
    double *epoch_scales;      /* --epoch-scales: measured epoch m times [m % n] */
    size_t n_epoch_scales;
    const char *epoch_format, *epoch_text;
    int epoch_format_set;
    int64_t threads, thread_kernels, ranks, outside;
    int64_t rank_base;         /* --rank-base: the first rank's number in the job */
    int thread_kernels_set, thread_epochs;
    int nested, registered, no_nvtx, driver_api, summary;
    int64_t sync_every;
    slow_t *slows;
    size_t nslows;
    double scale, jitter;
    uint64_t seed;
    const char *gpu, *driver;
    /* GPU work beyond eager kernels */
    double share[NLTYPES];           /* [L_KERNEL] unused */
    int mem_kinds[MAX_MEM_KINDS];    /* indices into MEM_OPS */
    int nmem_kinds, mem_kinds_set;
    double memory_scale, overlap;
    int memory_scale_set, overlap_set;
    int graph_mode, graph_mode_prefix;
    int64_t graphs, graph_nodes;
    int graphs_set, graph_nodes_set;
    slow_t *slow_graphs;
    size_t nslow_graphs;
    slow_t *slow_devices;   /* --slow-device D:F */
    struct { char *name; double factor; } *slow_ranges;   /* --slow-range NAME:F */
    size_t nslow_ranges;
    size_t nslow_devices;
    int64_t devices;                 /* per rank */
    int shuffle;
    uint64_t shuffle_seed;
    /* --format kineto */
    int kineto;
    int64_t unlaunched, dist_rank, world_size;
} opt;

typedef struct {
    int64_t ns, count;
} tally_t;

/* One work set's figures over one epoch's work. */
typedef struct {
    int64_t sum_ns, count, min_start, max_end, busy_ns;
} span_acc_t;

typedef struct {
    span_acc_t w[NWORK];
    int64_t name_sid;       /* StringIds id of the epoch name */
} epoch_acc_t;

typedef struct {
    tally_t kind[NKINDS];
    int64_t busy[NWORK];    /* union of the device's work intervals */
} dev_acc_t;

typedef struct {
    tally_t kind[NKINDS];
} proc_acc_t;

static slot_t *g_slots;
static int64_t g_nslots;      /* --names slots; the NCCL slots follow them */
static epoch_acc_t *g_ep;
static int64_t g_nep; /* warmup + epochs */
static tally_t g_kind[NKINDS];
static dev_acc_t *g_dev;      /* by deviceId (from the first rank's: --rank-base) */
static proc_acc_t *g_proc;    /* by rank (from --rank-base) */
static tally_t *g_graph;      /* by graphId - 1: launches, and their time */
static double *g_graph_slow;  /* by graphId - 1 */
static tally_t g_mem[NMEM_OPS];
static int64_t g_mem_bytes[NMEM_OPS];
static int64_t g_max_time;

static sqlite3_stmt *st_kernel, *st_runtime, *st_nvtx, *st_memcpy, *st_memset, *st_graph;
static int64_t sid_launch, sid_sync, sid_stream_sync, sid_optimizer, sid_domain;
static int64_t sid_memcpy, sid_memset, sid_graph_launch;
static int g_layout_2026; /* kernel and memory tables in the 2026.2 layout */

#define GTID_VM ((int64_t)1 << 48)
#define CORR_BASE 1000
#define MAIN_STREAM 7
#define MAX_DEVICES 16
#define MAX_GRAPH_NODES 999

/* ------------------------------------------------------------------------ */
/* Work intervals, for gpu-busy (only with --summary)                       */
/* ------------------------------------------------------------------------ */

/* Every work interval of one rank, per work set, tagged with its epoch (-1:
 * none) and device.  Work on one stream comes in time order, so an interval
 * that starts where the stream's previous one (same epoch) ended extends it:
 * back-to-back kernels cost one entry. */
typedef struct {
    int64_t s, e, ep;
    int64_t dev;
} iv_t;

typedef struct {
    iv_t *v;
    size_t n, cap;
    int64_t *last;          /* per stream slot: index of its last entry, or -1 */
} ivacc_t;

static ivacc_t g_iv[NWORK];
static size_t g_nstream_slots;

static void iv_push(ivacc_t *a, int slot, int64_t ep, int64_t dev, int64_t s, int64_t e)
{
    int64_t i = a->last[slot];
    if (i >= 0 && a->v[i].ep == ep && s <= a->v[i].e) {
        if (e > a->v[i].e)
            a->v[i].e = e;
        return;
    }
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 1024;
        a->v = xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n] = (iv_t){s, e, ep, dev};
    a->last[slot] = (int64_t)a->n++;
}

static int cmp_ep_dev_start(const void *x, const void *y)
{
    const iv_t *a = x, *b = y;
    if (a->ep != b->ep)
        return a->ep < b->ep ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

static int cmp_dev_start(const void *x, const void *y)
{
    const iv_t *a = x, *b = y;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

/* Length of the union of v[i..j), sorted by start. */
static int64_t union_length(const iv_t *v, size_t i, size_t j)
{
    int64_t total = 0, cs = v[i].s, ce = v[i].e;
    for (size_t k = i + 1; k < j; k++) {
        if (v[k].s > ce) {
            total += ce - cs;
            cs = v[k].s;
            ce = v[k].e;
        } else if (v[k].e > ce) {
            ce = v[k].e;
        }
    }
    return total + ce - cs;
}

/* End of a rank: its epochs' and devices' gpu-busy, then start afresh. */
static void iv_finish_rank(void)
{
    for (int w = 0; w < NWORK; w++) {
        ivacc_t *a = &g_iv[w];
        if (a->n) {
            qsort(a->v, a->n, sizeof *a->v, cmp_ep_dev_start);
            for (size_t i = 0, j; i < a->n; i = j) {
                for (j = i + 1; j < a->n && a->v[j].ep == a->v[i].ep && a->v[j].dev == a->v[i].dev; j++)
                    ;
                if (a->v[i].ep >= 0)
                    g_ep[a->v[i].ep].w[w].busy_ns += union_length(a->v, i, j);
            }
            qsort(a->v, a->n, sizeof *a->v, cmp_dev_start);
            for (size_t i = 0, j; i < a->n; i = j) {
                for (j = i + 1; j < a->n && a->v[j].dev == a->v[i].dev; j++)
                    ;
                g_dev[a->v[i].dev].busy[w] += union_length(a->v, i, j);
            }
        }
        a->n = 0;
        for (size_t s = 0; s < g_nstream_slots; s++)
            a->last[s] = -1;
    }
}

/* ------------------------------------------------------------------------ */
/* --format kineto: a torch.profiler Chrome trace                           */
/* ------------------------------------------------------------------------ */

static FILE *g_kj;            /* the trace being written */

/* ns as Kineto writes microseconds: three decimals, exact. */
static void kj_time(int64_t ns)
{
    fprintf(g_kj, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* An "X" event up to its args' opening brace; the caller writes the args
 * and "}}". */
static void kj_event(const char *cat, const char *name, size_t len, int64_t pid, int64_t tid,
                     int64_t start, int64_t end)
{
    fprintf(g_kj, ",\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", cat);
    json_string(g_kj, name, len);
    fprintf(g_kj, ", \"pid\": %lld, \"tid\": %lld, \"ts\": ", (long long)pid, (long long)tid);
    kj_time(start);
    fputs(", \"dur\": ", g_kj);
    kj_time(end - start);
    fputs(", \"args\": {", g_kj);
}

static void kj_begin(void)
{
    fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [", g_kj);
    for (int64_t d = 0; d < opt.devices; d++) {
        fprintf(g_kj, "%s\n    {\"id\": %lld, \"name\": ", d ? "," : "", (long long)d);
        json_string(g_kj, opt.gpu, strlen(opt.gpu));
        fputs(", \"totalGlobalMem\": 85899345920, \"computeMajor\": 8, \"computeMinor\": 0, "
              "\"maxThreadsPerBlock\": 1024, \"warpSize\": 32, \"numSms\": 108}", g_kj);
    }
    fputs("\n  ],\n", g_kj);
    if (opt.dist_rank >= 0 || opt.world_size) {
        fputs("  \"distributedInfo\": {\"backend\": \"nccl\"", g_kj);
        if (opt.dist_rank >= 0)
            fprintf(g_kj, ", \"rank\": %lld", (long long)opt.dist_rank);
        if (opt.world_size)
            fprintf(g_kj, ", \"world_size\": %lld", (long long)opt.world_size);
        fputs("},\n", g_kj);
    }
    fputs("  \"traceEvents\": [\n  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, "
          "\"pid\": 4000, \"tid\": 0, \"args\": {\"name\": \"python3\"}}", g_kj);
}

static void kj_end(void)
{
    fputs("\n  ],\n  \"traceName\": \"gentrace.pt.trace.json\"\n}\n", g_kj);
}

/* A runtime call's name as Kineto writes it: without nsys's _vNNNN. */
static void kj_call(const char *cat, int64_t name_id, int64_t pid, int64_t tid, int64_t corr,
                    int64_t start, int64_t end)
{
    const str_t *n = &g_strs[name_id];
    size_t len = n->len;
    const char *v = strstr(n->s, "_v");
    if (v && strspn(v + 2, "0123456789") == strlen(v + 2))
        len = (size_t)(v - n->s);
    kj_event(cat, n->s, len, pid, tid, start, end);
    fprintf(g_kj, "\"External id\": %lld, \"cbid\": 211, \"correlation\": %lld}}", (long long)corr,
            (long long)corr);
}

/* The CPU op around a launch and the flow from the call to its GPU work,
 * as torch.profiler writes them (the gate reads neither by default). */
static void kj_launch_context(int64_t pid, int64_t tid, int64_t corr, int64_t start, int64_t end)
{
    static const char *const ops[] = { "aten::mm", "aten::addmm", "aten::add_", "aten::copy_",
                                       "aten::native_layer_norm", "aten::_softmax",
                                       "aten::convolution", "aten::relu" };
    const char *op = ops[corr % 8];
    kj_event("cpu_op", op, strlen(op), pid, tid, start - 300, end + 100);
    fprintf(g_kj, "\"External id\": %lld, \"Input Dims\": [[4096, 1024], [1024, 1024]], "
            "\"Input type\": [\"float\", \"float\"]}}", (long long)corr);
    fprintf(g_kj, ",\n  {\"ph\": \"s\", \"id\": %lld, \"pid\": %lld, \"tid\": %lld, \"ts\": ",
            (long long)corr, (long long)pid, (long long)tid);
    kj_time(start);
    fputs(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}", g_kj);
}

/* Epoch windows of the rank's main thread, for work launched on other
 * threads: in a Chrome trace a step is a window over the process. */
typedef struct {
    int64_t start, end;
} window_t;
static window_t *g_win;

static int64_t kj_window(int64_t t)
{
    int64_t lo = 0, hi = g_nep;
    while (lo < hi) {   /* the last window starting no later than t */
        int64_t mid = lo + (hi - lo) / 2;
        if (g_win[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && g_win[lo - 1].end >= t ? lo - 1 : -1;
}

/* ------------------------------------------------------------------------ */
/* Launches                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    int id;          /* streamId */
    int slot;        /* index among the rank's streams (for iv_push) */
    int64_t free;    /* when its last work ends */
} stream_t;

typedef struct {
    int rank;
    int64_t pid, gpid;
    int dev0;          /* deviceId of the rank's first device */
    int64_t corr;      /* next correlation id */
    int64_t gridId;    /* next grid id */
    int64_t counter;   /* eager kernels launched by this rank (name slot) */
    int64_t mem_counter, graph_counter, comm_counter;
    int64_t mix[NLTYPES], mix_cur[NLTYPES], mix_total, mixed[NLTYPES];
    rng_t noise;       /* seeded by --seed */
} proc_t;

typedef struct {
    proc_t *p;
    int64_t gtid;
    stream_t compute[MAX_DEVICES], comm[MAX_DEVICES];
    int64_t t;          /* CPU time cursor */
    int64_t since_sync; /* epoch launches since the last --sync-every sync */
    int64_t nlaunch;    /* launches so far (device rotation) */
    rng_t cpu;          /* fixed-seed CPU timing */
} thread_t;

/* One launch in progress: the call is made, the GPU work is to be placed. */
typedef struct {
    thread_t *th;
    int dev_index;      /* 0 .. --devices-per-rank - 1 */
    int64_t ready;      /* earliest GPU start */
    int64_t corr, ep;
    double warm;
    int mem_op;         /* L_MEMORY: index into MEM_OPS */
} launch_t;

/* The type of the rank's next launch: smooth weighted round robin over the
 * mix, which yields each type exactly its weight times per mix_total launches,
 * evenly spread. */
static int next_type(proc_t *p)
{
    if (p->mix[L_KERNEL] == p->mix_total)
        return L_KERNEL;
    int best = 0;
    for (int i = 0; i < NLTYPES; i++) {
        p->mix_cur[i] += p->mix[i];
        if (p->mix_cur[i] > p->mix_cur[best])
            best = i;
    }
    p->mix_cur[best] -= p->mix_total;
    return best;
}

static void tally_add(tally_t *t, int64_t ns)
{
    t->ns += ns;
    t->count++;
}

/* Book one work item: totals, device, process, epoch, and its interval. */
static void account(const launch_t *l, const stream_t *st, int kind, int64_t start, int64_t end)
{
    int64_t dur = end - start, dev = l->th->p->dev0 + l->dev_index;
    unsigned sets = KIND_WORK[kind];
    tally_add(&g_kind[kind], dur);
    tally_add(&g_dev[dev].kind[kind], dur);
    tally_add(&g_proc[l->th->p->rank].kind[kind], dur);
    if (end > g_max_time)
        g_max_time = end;
    for (int w = 0; w < NWORK; w++) {
        if (!(sets >> w & 1))
            continue;
        if (l->ep >= 0) {
            span_acc_t *e = &g_ep[l->ep].w[w];
            e->sum_ns += dur;
            e->count++;
            if (e->count == 1 || start < e->min_start)
                e->min_start = start;
            if (e->count == 1 || end > e->max_end)
                e->max_end = end;
        }
        if (opt.summary)
            iv_push(&g_iv[w], st->slot, l->ep, dev, start, end);
    }
}

/* --slow-device: the factor of the device a launch runs on. */
static double device_slow(const launch_t *l)
{
    int64_t dev = l->th->p->dev0 + l->dev_index;
    double f = 1.0;
    for (size_t i = 0; i < opt.nslow_devices; i++)
        if (opt.slow_devices[i].slow_index == dev)
            f *= opt.slow_devices[i].factor;
    return f;
}

static int64_t kernel_duration(const launch_t *l, const slot_t *sl, double factor)
{
    proc_t *p = l->th->p;
    double mult = opt.scale * sl->slow * factor * device_slow(l);
    if (opt.jitter > 0)
        mult *= 1.0 + opt.jitter * (2.0 * rng_unit(&p->noise) - 1.0);
    int64_t dur = (int64_t)(sl->base_ns * mult + 0.5);
    return dur < 1 ? 1 : dur;
}

/* ?1..?7 of every GPU table's insert: start, end, deviceId, contextId,
 * streamId, correlationId, globalPid. */
static void bind_work(sqlite3_stmt *s, const launch_t *l, const stream_t *st, int64_t start,
                      int64_t end)
{
    int64_t dev = l->th->p->dev0 + l->dev_index;
    sqlite3_bind_int64(s, 1, start);
    sqlite3_bind_int64(s, 2, end);
    sqlite3_bind_int64(s, 3, dev);
    sqlite3_bind_int64(s, 4, dev + 1);
    sqlite3_bind_int64(s, 5, st->id);
    sqlite3_bind_int64(s, 6, l->corr);
    sqlite3_bind_int64(s, 7, l->th->p->gpid);
}

/* One kernel row (graph_id 0: not a graph node). */
static void insert_kernel(const launch_t *l, const stream_t *st, const slot_t *sl, int64_t start,
                          int64_t end, int64_t graph_id, int64_t node_id)
{
    proc_t *p = l->th->p;
    if (opt.kineto) {
        int64_t dev = p->dev0 + l->dev_index;
        const str_t *n = &g_strs[sl->demangled];
        kj_event("kernel", n->s, n->len, dev, st->id, start, end);
        fprintf(g_kj, "\"External id\": %lld, \"queued\": 0, \"device\": %lld, \"context\": 1, "
                "\"stream\": %d, \"correlation\": %lld, \"registers per thread\": %lld, "
                "\"shared memory\": %lld, \"grid\": [%lld, %lld, 1], \"block\": [%lld, 1, 1]}}",
                (long long)l->corr, (long long)dev, st->id, (long long)l->corr,
                (long long)sl->regs, (long long)sl->smem, (long long)sl->gridX,
                (long long)sl->gridY, (long long)sl->blockX);
        fprintf(g_kj, ",\n  {\"ph\": \"f\", \"id\": %lld, \"pid\": %lld, \"tid\": %d, \"ts\": ",
                (long long)l->corr, (long long)dev, st->id);
        kj_time(start);
        fputs(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}", g_kj);
        (void)graph_id;
        (void)node_id;
        return;
    }
    bind_work(st_kernel, l, st, start, end);
    sqlite3_bind_int64(st_kernel, 8, sl->demangled);
    sqlite3_bind_int64(st_kernel, 9, sl->shortname);
    sqlite3_bind_int64(st_kernel, 10, sl->mangled);
    sqlite3_bind_int64(st_kernel, 11, sl->regs);
    sqlite3_bind_int64(st_kernel, 12, sl->gridX);
    sqlite3_bind_int64(st_kernel, 13, sl->gridY);
    sqlite3_bind_int64(st_kernel, 14, sl->blockX);
    sqlite3_bind_int64(st_kernel, 15, sl->smem);
    sqlite3_bind_int64(st_kernel, 16, p->gridId++);
    if (g_layout_2026) {
        bind_int_or_null(st_kernel, 17, node_id, graph_id == 0);
        bind_int_or_null(st_kernel, 18, graph_id, graph_id == 0);
    }
    db_step(st_kernel);
}

static void gpu_kernel(const launch_t *l)
{
    proc_t *p = l->th->p;
    stream_t *st = &l->th->compute[l->dev_index];
    slot_t *sl = &g_slots[p->counter % g_nslots];
    p->counter++;
    int64_t kstart = l->ready < st->free ? st->free : l->ready;
    int64_t kend = kstart + kernel_duration(l, sl, l->warm);
    st->free = kend;
    insert_kernel(l, st, sl, kstart, kend, 0, 0);
    sl->sum_ns += kend - kstart;
    sl->count++;
    account(l, st, K_KERNEL, kstart, kend);
}

/* An NCCL kernel on the communication stream.  It waits for the compute
 * work queued before it (its input); the compute stream then waits for
 * (1 - overlap) of it, so --overlap 1 runs it alongside the compute that
 * follows and --overlap 0 serializes the two. */
static void gpu_comm(const launch_t *l)
{
    proc_t *p = l->th->p;
    stream_t *cs = &l->th->comm[l->dev_index], *st = &l->th->compute[l->dev_index];
    slot_t *sl = &g_slots[g_nslots + p->comm_counter++ % NCOMM];
    int64_t start = l->ready;
    if (start < cs->free)
        start = cs->free;
    if (start < st->free)
        start = st->free;
    int64_t dur = kernel_duration(l, sl, l->warm);
    int64_t end = start + dur;
    cs->free = end;
    int64_t hold = start + (int64_t)((1.0 - opt.overlap) * (double)dur + 0.5);
    if (hold > st->free)
        st->free = hold;
    insert_kernel(l, cs, sl, start, end, 0, 0);
    sl->sum_ns += dur;
    sl->count++;
    account(l, cs, K_KERNEL, start, end);
}

/* A cudaMemcpyAsync / cudaMemsetAsync on the compute stream; its size is a
 * fixed hash of its number in the rank (4 KiB .. 64 MiB, log-uniform). */
static void gpu_memory(const launch_t *l)
{
    proc_t *p = l->th->p;
    const mem_op_t *m = &MEM_OPS[l->mem_op];
    stream_t *st = &l->th->compute[l->dev_index];
    uint64_t h = splitmix64((uint64_t)p->mem_counter++ * 0x2545F4914F6CDD1DULL ^ 0xB17E5ULL);
    int64_t bytes = (int64_t)(4096.0 * exp2_pos((double)(h >> 11) * (14.0 / 9007199254740992.0)));
    double mult = opt.memory_scale * l->warm;
    if (opt.jitter > 0)
        mult *= 1.0 + opt.jitter * (2.0 * rng_unit(&p->noise) - 1.0);
    int64_t dur = (int64_t)((700.0 + (double)bytes / m->bytes_per_ns) * mult + 0.5);
    if (dur < 1)
        dur = 1;
    int64_t start = l->ready < st->free ? st->free : l->ready;
    int64_t end = start + dur;
    st->free = end;
    int64_t dev = p->dev0 + l->dev_index;
    int64_t ndev = opt.ranks * opt.devices, dev_base = opt.rank_base * opt.devices;
    int64_t peer = opt.devices > 1 ? p->dev0 + (l->dev_index + 1) % opt.devices
                                   : dev_base + (dev - dev_base + 1) % ndev;
    if (opt.kineto) {
        static const char *const short_kind[] = { [1] = "HtoD", [2] = "DtoH", [8] = "DtoD",
                                                  [9] = "HtoH", [10] = "PtoP" };
        static const char *const mem_kind[] = { "Pageable", "Pinned", "Device" };
        char name[96];
        if (m->copy_kind >= 0)
            snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", short_kind[m->copy_kind],
                     mem_kind[m->src_kind], mem_kind[m->dst_kind]);
        else
            snprintf(name, sizeof name, "Memset (%s)", mem_kind[m->dst_kind]);
        kj_event(m->copy_kind >= 0 ? "gpu_memcpy" : "gpu_memset", name, strlen(name), dev, st->id,
                 start, end);
        fprintf(g_kj, "\"External id\": %lld, \"device\": %lld, \"context\": 1, \"stream\": %d, "
                "\"correlation\": %lld, \"bytes\": %lld}}", (long long)l->corr, (long long)dev,
                st->id, (long long)l->corr, (long long)bytes);
        (void)peer;
    } else if (m->copy_kind >= 0) {
        sqlite3_stmt *s = st_memcpy;
        bind_work(s, l, st, start, end);
        sqlite3_bind_int64(s, 8, bytes);
        sqlite3_bind_int64(s, 9, m->copy_kind);
        sqlite3_bind_int64(s, 10, m->src_kind);
        sqlite3_bind_int64(s, 11, m->dst_kind);
        bind_int_or_null(s, 12, dev, !m->peer);
        bind_int_or_null(s, 13, dev + 1, !m->peer);
        bind_int_or_null(s, 14, peer, !m->peer);
        bind_int_or_null(s, 15, peer + 1, !m->peer);
        db_step(s);
    } else {
        sqlite3_stmt *s = st_memset;
        bind_work(s, l, st, start, end);
        sqlite3_bind_int64(s, 8, bytes);
        sqlite3_bind_int64(s, 9, m->dst_kind);
        db_step(s);
    }
    tally_add(&g_mem[l->mem_op], dur);
    g_mem_bytes[l->mem_op] += bytes;
    account(l, st, m->copy_kind >= 0 ? K_MEMCPY : K_MEMSET, start, end);
}

/* One replay of graph g: its nodes run one after another on the compute
 * stream with small fixed gaps.  Graph mode writes one graph-trace row
 * spanning first node start to last node end; node mode writes the nodes as
 * kernel rows carrying graphId and graphNodeId. */
static void gpu_graph(const launch_t *l)
{
    proc_t *p = l->th->p;
    stream_t *st = &l->th->compute[l->dev_index];
    int64_t g = p->graph_counter++ % opt.graphs;
    int64_t t = l->ready < st->free ? st->free : l->ready, first = t, nodes_ns = 0;
    for (int64_t n = 0; n < opt.graph_nodes; n++) {
        if (n > 0)
            t += 400 + (int64_t)(splitmix64((uint64_t)(g << 20 | n) ^ 0x6EA9ULL) % 1600);
        slot_t *sl = &g_slots[(g * opt.graph_nodes + n) % g_nslots];
        int64_t dur = kernel_duration(l, sl, l->warm * g_graph_slow[g]);
        if (opt.graph_mode == GM_NODE) {
            insert_kernel(l, st, sl, t, t + dur, g + 1, (g + 1) * 1000 + n + 1);
            sl->sum_ns += dur;
            sl->count++;
            account(l, st, K_KERNEL, t, t + dur);
        }
        nodes_ns += dur;
        t += dur;
    }
    st->free = t;
    if (opt.graph_mode == GM_GRAPH) {
        bind_work(st_graph, l, st, first, t);
        sqlite3_bind_int64(st_graph, 8, g + 1);
        sqlite3_bind_int64(st_graph, 9, g + 101);
        db_step(st_graph);
        account(l, st, K_GRAPH, first, t);
    }
    g_graph[g].ns += opt.graph_mode == GM_GRAPH ? t - first : nodes_ns;
    g_graph[g].count++;
}

static void (*const GPU_WORK[NLTYPES])(const launch_t *) = {
    [L_KERNEL] = gpu_kernel, [L_MEMORY] = gpu_memory, [L_GRAPH] = gpu_graph, [L_COMM] = gpu_comm,
};

/* The runtime call of a launch type (memory: of the operation). */
static int64_t call_name(int type, int mem_op)
{
    if (type == L_MEMORY)
        return MEM_OPS[mem_op].copy_kind >= 0 ? sid_memcpy : sid_memset;
    return type == L_GRAPH ? sid_graph_launch : sid_launch;
}

/* Launch one piece of GPU work from thread th at its time cursor: the
 * runtime call, then its GPU rows.  ep = epoch index or -1. */
static void launch(thread_t *th, int64_t ep, double warm)
{
    proc_t *p = th->p;
    int type = next_type(p);
    launch_t l = {th, 0, 0, 0, ep, warm, 0};
    p->mixed[type]++;
    if (opt.devices > 1)
        l.dev_index = (int)(th->nlaunch++ % opt.devices);
    if (type == L_MEMORY)
        l.mem_op = opt.mem_kinds[p->mem_counter % opt.nmem_kinds];

    th->t += rng_range(&th->cpu, 800, 2500);
    int64_t call_start = th->t;
    int64_t call_end = call_start + rng_range(&th->cpu, 2500, 5500);
    l.ready = call_start + rng_range(&th->cpu, 2000, 4000);
    th->t = call_end;
    l.corr = p->corr++;
    if (opt.kineto) {
        if (ep < 0)
            l.ep = kj_window(call_start);
        int64_t tid = th->gtid & 0xFFFFFF;
        kj_launch_context(p->pid, tid, l.corr, call_start, call_end);
        kj_call(opt.driver_api && (type == L_KERNEL || type == L_COMM) ? "cuda_driver"
                                                                        : "cuda_runtime",
                call_name(type, l.mem_op), p->pid, tid, l.corr, call_start, call_end);
        GPU_WORK[type](&l);
        return;
    }

    sqlite3_bind_int64(st_runtime, 1, call_start);
    sqlite3_bind_int64(st_runtime, 2, call_end);
    sqlite3_bind_int64(st_runtime, 3, opt.driver_api && (type == L_KERNEL || type == L_COMM));
    sqlite3_bind_int64(st_runtime, 4, th->gtid);
    sqlite3_bind_int64(st_runtime, 5, l.corr);
    sqlite3_bind_int64(st_runtime, 6, call_name(type, l.mem_op));
    db_step(st_runtime);

    GPU_WORK[type](&l);
}

/* When every stream of the thread is idle. */
static int64_t streams_idle(const thread_t *th)
{
    int64_t t = 0;
    for (int64_t j = 0; j < opt.devices; j++) {
        if (th->compute[j].free > t)
            t = th->compute[j].free;
        if (th->comm[j].free > t)
            t = th->comm[j].free;
    }
    return t;
}

static void runtime_sync(thread_t *th, int64_t name_id)
{
    th->t += rng_range(&th->cpu, 800, 2500);
    int64_t start = th->t, idle = streams_idle(th);
    int64_t end = (idle > start ? idle : start) + rng_range(&th->cpu, 1500, 3000);
    if (opt.kineto) {
        kj_call("cuda_runtime", name_id, th->p->pid, th->gtid & 0xFFFFFF, th->p->corr++, start, end);
        th->t = end;
        return;
    }
    sqlite3_bind_int64(st_runtime, 1, start);
    sqlite3_bind_int64(st_runtime, 2, end);
    sqlite3_bind_int64(st_runtime, 3, 0);
    sqlite3_bind_int64(st_runtime, 4, th->gtid);
    sqlite3_bind_int64(st_runtime, 5, th->p->corr++);
    sqlite3_bind_int64(st_runtime, 6, name_id);
    db_step(st_runtime);
    th->t = end;
}

/* A launch inside epoch ep; with --sync-every N the thread waits for the GPU
 * after every N of them and then does some host work, leaving the GPU idle
 * for a while (so gpu_span > kernel_sum). */
static void epoch_launch(thread_t *th, int64_t ep, double warm)
{
    launch(th, ep, warm);
    if (opt.sync_every > 0 && ++th->since_sync == opt.sync_every) {
        runtime_sync(th, sid_stream_sync);
        th->t += rng_range(&th->cpu, 20000, 80000);
        th->since_sync = 0;
    }
}

/* NVTX rows of one epoch, flushed in start order at the end of the epoch. */
typedef struct {
    int64_t start, end;
    int type;
    const char *text; size_t text_len; /* NULL = no text */
    int64_t text_id;                   /* -1 = NULL */
    int64_t domain;
    int64_t gtid;
} nvtx_rec_t;

#define NVTX_MAX 64
static nvtx_rec_t g_nv[NVTX_MAX];
static int g_nnv;

static int nvtx_push(int64_t start, int type, const char *text, size_t len, int64_t text_id,
                     int64_t domain, int64_t gtid)
{
    if (g_nnv == NVTX_MAX)
        die("internal: NVTX buffer overflow");
    nvtx_rec_t *r = &g_nv[g_nnv];
    r->start = start;
    r->end = -1;
    r->type = type;
    r->text = text;
    r->text_len = len;
    r->text_id = text_id;
    r->domain = domain;
    r->gtid = gtid;
    return g_nnv++;
}

static void nvtx_flush(void)
{
    for (int i = 0; i < g_nnv; i++) {
        nvtx_rec_t *r = &g_nv[i];
        if (opt.kineto) {   /* push/pop ranges with a text: record_function's */
            if (r->type == 59 && r->text) {
                kj_event("user_annotation", r->text, r->text_len, (r->gtid >> 24) & 0xFFFFFF,
                         r->gtid & 0xFFFFFF, r->start, r->end);
                fputs("\"External id\": 0}}", g_kj);
            }
            continue;
        }
        sqlite3_bind_int64(st_nvtx, 1, r->start);
        bind_int_or_null(st_nvtx, 2, r->end, r->end < 0);
        sqlite3_bind_int64(st_nvtx, 3, r->type);
        bind_text_or_null(st_nvtx, 4, r->text, r->text_len);
        sqlite3_bind_int64(st_nvtx, 5, r->gtid);
        bind_int_or_null(st_nvtx, 6, r->text_id, r->text_id < 0);
        sqlite3_bind_int64(st_nvtx, 7, r->domain);
        db_step(st_nvtx);
    }
    g_nnv = 0;
}

static char **g_epoch_names;      /* formatted epoch names */
static size_t *g_epoch_name_lens;
static char **g_step_names;       /* [ep * 2 + s] */
static size_t *g_step_name_lens;
static int64_t *g_step_sids;

#define NSTEPS 2

/* --slow-range: the factor of the nested range named `name`. */
static double range_factor(const char *name)
{
    double f = 1.0;
    for (size_t i = 0; i < opt.nslow_ranges; i++)
        if (strcmp(opt.slow_ranges[i].name, name) == 0)
            f *= opt.slow_ranges[i].factor;
    return f;
}

/* A range on the main thread that launches n kernels (a range with
 * neither text nor string is no range a reader names: its launches are
 * the step's own, "step" to --slow-range). */
static void range_with_kernels(thread_t *th, int64_t n, int64_t ep, double warm,
                               const char *text, size_t len, int64_t text_id, int64_t domain)
{
    warm *= range_factor(text ? text : text_id == sid_optimizer ? "optimizer.step" : "step");
    th->t += rng_range(&th->cpu, 300, 900);
    int idx = nvtx_push(th->t, 59, text, len, text_id, domain, th->gtid);
    for (int64_t k = 0; k < n; k++)
        epoch_launch(th, ep, warm);
    th->t += rng_range(&th->cpu, 300, 900);
    g_nv[idx].end = th->t;
}

/* The range of epoch ep on thread th, starting now. */
static int push_epoch_range(const thread_t *th, int64_t ep)
{
    if (opt.registered)
        return nvtx_push(th->t, 59, NULL, 0, g_ep[ep].name_sid, 0, th->gtid);
    return nvtx_push(th->t, 59, g_epoch_names[ep], g_epoch_name_lens[ep], -1, 0, th->gtid);
}

/* The duration factor of epoch ep's GPU work: --warmup-scale in warmup
 * epochs, --epoch-scales in turn in the measured ones. */
static double epoch_factor(int64_t ep)
{
    if (ep < opt.warmup)
        return opt.warmup_scale;
    return opt.n_epoch_scales
           ? opt.epoch_scales[(size_t)(ep - opt.warmup) % opt.n_epoch_scales] : 1.0;
}

static void run_epoch(thread_t *th, int64_t ep, int64_t n)
{
    double warm = epoch_factor(ep);
    int nvtx = !opt.no_nvtx;
    int idx = -1;

    th->since_sync = 0;
    th->t += rng_range(&th->cpu, 20000, 60000);
    if (nvtx)
        idx = push_epoch_range(th, ep);
    if (nvtx && opt.nested) {
        th->t += rng_range(&th->cpu, 500, 1500);
        nvtx_push(th->t, 34, g_epoch_names[ep], g_epoch_name_lens[ep], -1, 0, th->gtid);
        for (int s = 0; s < NSTEPS; s++) {
            int64_t ns = share(n, NSTEPS, s);
            int64_t nf = ns * 4 / 10, nb = ns * 4 / 10, no = ns / 10;
            int64_t nz = ns - nf - nb - no;
            th->t += rng_range(&th->cpu, 500, 1500);
            int sidx;
            size_t si = (size_t)(ep * NSTEPS + s);
            if (opt.registered)
                sidx = nvtx_push(th->t, 59, NULL, 0, g_step_sids[si], 0, th->gtid);
            else
                sidx = nvtx_push(th->t, 59, g_step_names[si], g_step_name_lens[si], -1, 0, th->gtid);
            range_with_kernels(th, nf, ep, warm, "forward", 7, -1, 0);
            range_with_kernels(th, nb, ep, warm, "backward", 8, -1, 0);
            range_with_kernels(th, no, ep, warm, NULL, 0, sid_optimizer, 1);
            range_with_kernels(th, nz, ep, warm, NULL, 0, -1, 0);
            th->t += rng_range(&th->cpu, 300, 900);
            g_nv[sidx].end = th->t;
        }
    } else {
        for (int64_t k = 0; k < n; k++)
            epoch_launch(th, ep, warm);
    }
    runtime_sync(th, sid_sync);
    th->t += rng_range(&th->cpu, 300, 900);
    if (nvtx) {
        g_nv[idx].end = th->t;
        if (g_win)
            g_win[ep] = (window_t){ g_nv[idx].start, g_nv[idx].end };
        nvtx_flush();
    }
}

/* An extra thread: n launches spread over [t0, t_end], in no range of its
 * own; with --thread-epochs, share(n, W+E, e) of them inside its own range of
 * epoch e instead (one range per epoch, even an empty one, starting no
 * earlier than t0 + e/(W+E) of the span). */
static void run_extra_thread(thread_t *th, int64_t n, int64_t t0, int64_t t_end)
{
    int64_t span = t_end - t0;
    if (!opt.thread_epochs || g_nep == 0) {
        for (int64_t j = 0; j < n; j++) {
            int64_t target = t0 + (int64_t)((double)span * (double)(j + 1) / (double)(n + 1));
            if (th->t < target)
                th->t = target;
            launch(th, -1, 1.0);
        }
        return;
    }
    for (int64_t ep = 0; ep < g_nep; ep++) {
        int64_t target = t0 + (int64_t)((double)span * (double)ep / (double)g_nep);
        double warm = epoch_factor(ep);
        int idx = -1;
        th->t += rng_range(&th->cpu, 2000, 6000);
        if (th->t < target)
            th->t = target;
        if (!opt.no_nvtx)
            idx = push_epoch_range(th, ep);
        for (int64_t k = share(n, g_nep, ep); k > 0; k--)
            launch(th, ep, warm);
        th->t += rng_range(&th->cpu, 300, 900);
        if (idx >= 0) {
            g_nv[idx].end = th->t;
            nvtx_flush();
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Metadata tables                                                          */
/* ------------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* What META_DATA_EXPORT says about the exporting nsys, per layout. */
typedef struct {
    const char *version, *date, *schema, *major, *minor, *micro, *cksum;
    const char *output_key; /* 2023.4 really spells it OUTUPT */
} export_layout_t;
static const export_layout_t EXPORT_LAYOUTS[2] = {
    {"2023.4.4.54", "2023.4", "3.7.2", "3", "7", "2", "2307844469 139029", "OUTUPT"},
    {"2026.2.1.210", "2026.2", "3.25.0", "3", "25", "0", "306658267 182758", "OUTPUT"},
};

static void write_meta_export(void)
{
    const export_layout_t *lay = &EXPORT_LAYOUTS[g_layout_2026];
    sqlite3_stmt *st = db_prepare("INSERT INTO META_DATA_EXPORT(name, value) VALUES(?, ?)");
    const char *out = base_name(opt.output);
    char rep[4096], key[64];
    size_t ol = strlen(out);
    if (ol > 7 && strcmp(out + ol - 7, ".sqlite") == 0)
        snprintf(rep, sizeof rep, "%.*s.nsys-rep", (int)(ol - 7), out);
    else
        snprintf(rep, sizeof rep, "%s.nsys-rep", out);
    const char *const fixed[][2] = {
        {"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
        {"EXPORT_PRODUCT_VERSION", lay->version},
        {"EXPORT_PRODUCT_DATE", lay->date},
        {"EXPORT_SCHEMA_VERSION", lay->schema},
        {"EXPORT_SCHEMA_VERSION_MAJOR", lay->major},
        {"EXPORT_SCHEMA_VERSION_MINOR", lay->minor},
        {"EXPORT_SCHEMA_VERSION_MICRO", lay->micro},
        {"EXPORT_SCHEMA_VERSION_CKSUM", lay->cksum},
        {"EXPORT_PLATFORM", "linux-desktop"},
        {"EXPORT_ARCH", "x64"},
        {"EXPORT_TIME_UTC", "2024-01-01T00:00:00"},
        {"EXPORT_TIME_LOCAL", "2024-01-01T00:00:00 +0000 UTC"},
        {"EXPORT_HOST", "gentrace"},
        {"EXPORT_USER", ""},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        insert_name_value(st, fixed[i][0], fixed[i][1]);
    static const char *const paths[] = {"FILE", "PATH", "PATH_ABS"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "EXPORT_PARAM_INPUT_%s", paths[i]);
        insert_name_value(st, key, rep);
        snprintf(key, sizeof key, "EXPORT_PARAM_%s_%s", lay->output_key, paths[i]);
        insert_name_value(st, key, out);
    }
    static const char *const tail[][2] = {
        {"EXPORT_PARAM_OVERWRITE", "true"},
        {"EXPORT_PARAM_APPEND", "false"},
        {"EXPORT_PARAM_LAZY", "true"},
        {"EXPORT_PARAM_TIME_NORMALIZE", "false"},
        {"EXPORT_PARAM_TIME_SHIFT", "0"},
        {"EXPORT_PARAM_TABLES_TO_EXPORT", ""},
        {"EXPORT_PARAM_TIMES_TO_EXPORT", ""},
        {"EXPORT_CONFIG_TIME_SHIFT", "0"},
        {"EXPORT_TIME", "0.10 sec"},
        /* like the DERIVED_* rows of trimmed real fixtures: marks the file as synthetic */
        {"DERIVED_BY", "nsys-gate tests/tools/gentrace"},
    };
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        insert_name_value(st, tail[i][0], tail[i][1]);
    sqlite3_finalize(st);
}

static void write_meta_capture(void)
{
    sqlite3_stmt *st = db_prepare("INSERT INTO META_DATA_CAPTURE(name, value) VALUES(?, ?)");
    char dur[64], uuid[64];
    snprintf(dur, sizeof dur, "%lld", (long long)(g_max_time / 1000000 + 1));
    uint64_t a = splitmix64(opt.seed ^ 0x5E55104EULL), b = splitmix64(a);
    snprintf(uuid, sizeof uuid, "%08x-%04x-4%03x-8%03x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xFFFF, (unsigned)a & 0xFFF, (unsigned)(b >> 52) & 0xFFF,
             (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
    const char *const rows[][2] = {
        {"DEVICE_ID", "Local (CLI)"},
        {"CAPTURE_EVENT_TYPE", "OSRuntime"},
        {"CAPTURE_EVENT_TYPE", "NvtxEvents"},
        {"CAPTURE_EVENT_TYPE", "Cuda"},
        {"RATE_HZ", "0"},
        {"START_TRIGGER", "Immediate"},
        {"STOP_TRIGGER", "Delayed"},
        {"DEVICE_TYPE", "Unix"},
        {"DEVICE_DISPLAY_NAME", "gentrace"},
        {"PROCESS_0:HOW_TO_ATTACH", "LaunchAnother"},
        {"PROCESS_0:LAUNCH_AS_ROOT", "false"},
        {"PROCESS_0:COMMAND", "python train.py"},
        {"PROCESS_0:WORKING_DIR", "/workspace"},
        {"PROCESS_0:PID", "0"},
        {"PROCESS_0:COLLECT_NVTX_TRACE", "true"},
        {"PROCESS_0:COLLECT_CUDA_TRACE", "true"},
        {"PROFILING_SESSION_UUID", uuid},
        {"APPLICATION_PID", "0"},
        {"RUN_DURATION_MS", dur},
        {"INCLUDE_CHILDREN", "true"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        insert_name_value(st, rows[i][0], rows[i][1]);
    /* real files spell it with and without the process prefix */
    if (opt.graph_mode != GM_NONE)
        insert_name_value(st, opt.graph_mode_prefix ? "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE"
                                                    : "CUDA_GRAPH_TRACE_OPTIONS:MODE",
                          GRAPH_MODE_VALUES[opt.graph_mode]);
    sqlite3_finalize(st);
}

static void write_enum(const char *table, const char *const (*rows)[2], size_t n)
{
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO %s(id, name, label) VALUES(?, ?, ?)", table);
    sqlite3_stmt *st = db_prepare(sql);
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, (int64_t)i);
        sqlite3_bind_text(st, 2, rows[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, rows[i][1], -1, SQLITE_STATIC);
        db_step(st);
    }
    sqlite3_finalize(st);
}

static void write_system_env(void)
{
    sqlite3_stmt *st = db_prepare(
        "INSERT INTO TARGET_INFO_SYSTEM_ENV(globalVid, devStateName, name, nameEnum, value) "
        "VALUES(281474976710656, 'Local (CLI)', ?, ?, ?)");
    struct { const char *name; int e; const char *value; } rows[] = {
        {"CpuCores", 1, "32"},
        {"CpuSpeedMhz", 2, "3500"},
        {"CpuArchitecture", 3, "x86_64"},
        {"SupportedABIs", 5, "x86_64,"},
        {"Supported64BitABIs", 7, "x86_64"},
        {"CNTFRQMHz", 11, "0"},
        {"CpuDescription", 13, "AMD EPYC 7763 64-Core Processor"},
        {"CpuEmcSpeedMhz", 101, "1600"},
        {"TargetInstallDir", 170, "/opt/nvidia/nsight-systems/2023.4.4/target-linux-x64"},
        {"HasDiscreteGpu", 203, "0"},
        {"NvDriverVersion", 205, opt.driver},
        {"IsX86BasedDevice", 506, "1"},
        {"HardwarePlatform", 600, "x86_64"},
        {"SoftwarePlatform", 601, "L4X"},
        {"OsDescription", 605, "Ubuntu 22.04.4 LTS"},
        {"CudaDriverVersion", 611, "12020"},
        {"SoftwareReleaseVersion", 618, "5.15.0-91-generic"},
        {"Hostname", 619, "gentrace"},
        {"HasNvtxEvents", 809, "1"},
        {"HasCudaEvents", 812, "1"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sqlite3_bind_text(st, 1, rows[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, rows[i].e);
        sqlite3_bind_text(st, 3, rows[i].value, -1, SQLITE_STATIC);
        db_step(st);
    }
    sqlite3_finalize(st);
}

static void write_gpus(void)
{
    sqlite3_stmt *st = db_prepare(
        "INSERT INTO TARGET_INFO_GPU VALUES(281474976710656, ?1, ?2, ?3, 1, 41943040, 85899345920, "
        "2039040000000, 1410000000, 108, ?1, ?4, 0, 'GA100', ?1, '', '', 161, 0, 65536, 4, 65536, "
        "49152, 166912, 167936, 65536, 32, 5, 64, 32, 1024, 1024, 1024, 64, 2147483647, 65535, "
        "65535, 8, 0, 8, 0)");
    for (int64_t d = opt.rank_base * opt.devices; d < (opt.rank_base + opt.ranks) * opt.devices;
         d++) {
        char bus[32], uuid[64];
        snprintf(bus, sizeof bus, "0000:%02llx:00.0", (unsigned long long)((7 + d * 4) & 0xFF));
        uint64_t a = splitmix64(0xA100ULL + (uint64_t)d), b = splitmix64(a);
        snprintf(uuid, sizeof uuid, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
                 (unsigned)(a >> 16) & 0xFFFF, (unsigned)a & 0xFFFF, (unsigned)(b >> 48),
                 (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
        sqlite3_bind_int64(st, 1, d);
        sqlite3_bind_text(st, 2, opt.gpu, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, bus, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, uuid, -1, SQLITE_TRANSIENT);
        db_step(st);
    }
    sqlite3_finalize(st);
}

static void write_string_ids(void)
{
    sqlite3_stmt *st = db_prepare("INSERT INTO StringIds(id, value) VALUES(?, ?)");
    for (int64_t i = 0; i < g_nstrs; i++) {
        sqlite3_bind_int64(st, 1, i);
        sqlite3_bind_text(st, 2, g_strs[i].s, (int)g_strs[i].len, SQLITE_STATIC);
        db_step(st);
    }
    sqlite3_finalize(st);
}

/* ------------------------------------------------------------------------ */
/* Usage / options                                                          */
/* ------------------------------------------------------------------------ */

static void usage(FILE *fp)
{
    fputs(
        "usage: gentrace -o PATH [options]\n"
        "Write a synthetic nsys 2023.4 (schema 3.7.2; 2026.2 with --graph-mode) SQLite export.\n"
        "  -o, --output PATH        output file (required; atomic temp+rename)\n"
        "      --force              replace PATH if it exists\n"
        "      --kernels N          launches; all kernels without the shares below (default 1000)\n"
        "      --names K            distinct built-in kernel names (default 8)\n"
        "      --names-from FILE    kernel names, one per line, escapes \\xNN \\n \\r \\t \\\\\n"
        "      --short-names-from FILE  their shortNames, one per line (default: the names)\n"
        "      --name-offset N      use built-in name indices N..N+K-1\n"
        "      --epochs E           measured epochs (default 5)\n"
        "      --warmup W           warmup epochs before them (default 0)\n"
        "      --warmup-scale F     duration factor in warmup epochs (default 1)\n"
        "      --epoch-scales LIST  measured epoch m's durations times LIST[m % n]\n"
        "      --epoch-format FMT   epoch range name, one %d (default \"epoch %d\")\n"
        "      --epoch-base B       number of the first epoch (default 0)\n"
        "      --epoch-text TEXT    every epoch range has this text (repeated steps)\n"
        "      --threads T          threads per process (default 1)\n"
        "      --thread-kernels N   kernels launched by extra threads (default (N-outside)/10 if T>1)\n"
        "      --thread-epochs      extra threads launch inside epoch ranges too\n"
        "      --ranks R            processes, one GPU each (default 1)\n"
        "      --devices-per-rank D GPUs per process, used in turn (default 1)\n"
        "      --rank-base K        the ranks are ranks K.. of a job (ids, times, streams)\n"
        "      --outside N          kernels launched outside epoch ranges (default 0)\n"
        "      --nested             nested ranges, domain, registered strings, marks\n"
        "      --registered         epoch names as registered strings (textId)\n"
        "      --no-nvtx            no NVTX_EVENTS\n"
        "      --slow I:F           name index I durations times F (repeatable)\n"
        "      --scale F            all kernel durations times F (default 1)\n"
        "      --jitter J           relative duration noise 0 <= J < 1 (default 0)\n"
        "      --seed S             noise seed (default 1)\n"
        "      --gpu NAME           GPU name (default \"NVIDIA A100-SXM4-80GB\")\n"
        "      --driver VER         NVIDIA driver version (default \"535.129.03\")\n"
        "      --driver-api         record launches as cuLaunchKernel (eventClass 1)\n"
        "      --sync-every N       sync + host work after every N epoch kernels (GPU idles)\n"
        "      --memory-share P     share P of the launches are memcpy/memset (default 0)\n"
        "      --memory-kinds LIST  htod,dtoh,dtod,htoh,ptop,memset in turn\n"
        "                           (default htod,memset,dtoh,dtod)\n"
        "      --memory-scale F     memory operation durations times F (default 1)\n"
        "      --graph-share P      share P of the launches are CUDA graph launches (default 0)\n"
        "      --graph-mode MODE    graph (one graph-trace row per launch) or node (node\n"
        "                           kernels with graphId); the capture's MODE row\n"
        "      --graph-mode-prefix  write that row as PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE\n"
        "      --graphs G           distinct graphs, launched in turn (default 2)\n"
        "      --graph-nodes K      kernel nodes per graph (default 4)\n"
        "      --slow-graph G:F     graph id G's nodes times F (repeatable)\n"
        "      --slow-device D:F    kernels on deviceId D times F (repeatable): a straggler\n"
        "      --slow-range NAME:F  with --nested: work in the nested ranges NAME (forward,\n"
        "                           backward, optimizer.step, step) times F (repeatable)\n"
        "      --comm-share P       share P of the launches are NCCL kernels on a\n"
        "                           communication stream (default 0)\n"
        "      --overlap F          part of each NCCL kernel that overlaps compute, 0..1\n"
        "                           (default 1; 0 = communication serialized)\n"
        "      --shuffle SEED       insert every table's rows in a seeded random order\n"
        "      --summary            print a JSON summary to stdout\n"
        "  -h, --help\n"
        "See the comment at the top of tests/tools/gentrace.c for the exact model.\n",
        fp);
}

enum {
    O_FORCE = 1000, O_KERNELS, O_NAMES, O_NAMES_FROM, O_SHORT_NAMES_FROM, O_NAME_OFFSET, O_EPOCHS, O_WARMUP,
    O_WARMUP_SCALE, O_EPOCH_SCALES, O_EPOCH_FORMAT, O_EPOCH_BASE, O_THREADS, O_THREAD_KERNELS, O_RANKS, O_RANK_BASE,
    O_OUTSIDE, O_NESTED, O_REGISTERED, O_NO_NVTX, O_SLOW, O_SCALE, O_JITTER, O_SEED, O_GPU,
    O_DRIVER, O_DRIVER_API, O_SUMMARY, O_SYNC_EVERY, O_EPOCH_TEXT, O_THREAD_EPOCHS,
    O_DEVICES, O_MEMORY_SHARE, O_MEMORY_KINDS, O_MEMORY_SCALE, O_GRAPH_SHARE, O_GRAPH_MODE,
    O_GRAPH_MODE_PREFIX, O_GRAPHS, O_GRAPH_NODES, O_SLOW_GRAPH, O_SLOW_DEVICE, O_SLOW_RANGE, O_COMM_SHARE, O_OVERLAP,
    O_SHUFFLE, O_FORMAT, O_UNLAUNCHED, O_DIST_RANK, O_WORLD_SIZE
};

/* I:F of --slow and --slow-graph */
static slow_t parse_slow(const char *name, const char *arg)
{
    const char *colon = strchr(arg, ':');
    if (!colon)
        die_usage("%s: expected INDEX:FACTOR, got '%s'", name, arg);
    char idx[64];
    size_t l = (size_t)(colon - arg);
    if (l == 0 || l >= sizeof idx)
        die_usage("%s: bad index in '%s'", name, arg);
    memcpy(idx, arg, l);
    idx[l] = '\0';
    slow_t s;
    s.slow_index = parse_int(name, idx, 0, INT64_C(1) << 30);
    s.factor = parse_double(name, colon + 1);
    if (s.factor <= 0)
        die_usage("%s: factor must be > 0", name);
    return s;
}

static double parse_share(const char *name, const char *arg)
{
    double v = parse_double(name, arg);
    if (v < 0 || v > 1)
        die_usage("%s must be in [0, 1]", name);
    return v;
}

/* --memory-kinds: comma-separated words of MEM_OPS */
static void parse_memory_kinds(const char *arg)
{
    opt.nmem_kinds = 0;
    for (const char *p = arg;;) {
        size_t l = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < NMEM_OPS; i++)
            if (strlen(MEM_OPS[i].word) == l && strncmp(p, MEM_OPS[i].word, l) == 0)
                found = i;
        if (found < 0)
            die_usage("--memory-kinds: unknown kind '%.*s' (expected htod, dtoh, dtod, htoh, "
                      "ptop or memset)", (int)l, p);
        if (opt.nmem_kinds == MAX_MEM_KINDS)
            die_usage("--memory-kinds: more than %d kinds", MAX_MEM_KINDS);
        opt.mem_kinds[opt.nmem_kinds++] = found;
        if (!p[l])
            break;
        p += l + 1;
    }
}

static void parse_options(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, O_FORCE},
        {"kernels", required_argument, NULL, O_KERNELS},
        {"names", required_argument, NULL, O_NAMES},
        {"names-from", required_argument, NULL, O_NAMES_FROM},
        {"short-names-from", required_argument, NULL, O_SHORT_NAMES_FROM},
        {"name-offset", required_argument, NULL, O_NAME_OFFSET},
        {"epochs", required_argument, NULL, O_EPOCHS},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"warmup-scale", required_argument, NULL, O_WARMUP_SCALE},
        {"epoch-scales", required_argument, NULL, O_EPOCH_SCALES},
        {"epoch-format", required_argument, NULL, O_EPOCH_FORMAT},
        {"epoch-base", required_argument, NULL, O_EPOCH_BASE},
        {"threads", required_argument, NULL, O_THREADS},
        {"thread-kernels", required_argument, NULL, O_THREAD_KERNELS},
        {"ranks", required_argument, NULL, O_RANKS},
        {"rank-base", required_argument, NULL, O_RANK_BASE},
        {"outside", required_argument, NULL, O_OUTSIDE},
        {"nested", no_argument, NULL, O_NESTED},
        {"registered", no_argument, NULL, O_REGISTERED},
        {"no-nvtx", no_argument, NULL, O_NO_NVTX},
        {"slow", required_argument, NULL, O_SLOW},
        {"scale", required_argument, NULL, O_SCALE},
        {"jitter", required_argument, NULL, O_JITTER},
        {"seed", required_argument, NULL, O_SEED},
        {"gpu", required_argument, NULL, O_GPU},
        {"driver", required_argument, NULL, O_DRIVER},
        {"driver-api", no_argument, NULL, O_DRIVER_API},
        {"summary", no_argument, NULL, O_SUMMARY},
        {"sync-every", required_argument, NULL, O_SYNC_EVERY},
        {"epoch-text", required_argument, NULL, O_EPOCH_TEXT},
        {"thread-epochs", no_argument, NULL, O_THREAD_EPOCHS},
        {"devices-per-rank", required_argument, NULL, O_DEVICES},
        {"memory-share", required_argument, NULL, O_MEMORY_SHARE},
        {"memory-kinds", required_argument, NULL, O_MEMORY_KINDS},
        {"memory-scale", required_argument, NULL, O_MEMORY_SCALE},
        {"graph-share", required_argument, NULL, O_GRAPH_SHARE},
        {"graph-mode", required_argument, NULL, O_GRAPH_MODE},
        {"graph-mode-prefix", no_argument, NULL, O_GRAPH_MODE_PREFIX},
        {"graphs", required_argument, NULL, O_GRAPHS},
        {"graph-nodes", required_argument, NULL, O_GRAPH_NODES},
        {"slow-graph", required_argument, NULL, O_SLOW_GRAPH},
        {"slow-device", required_argument, NULL, O_SLOW_DEVICE},
        {"slow-range", required_argument, NULL, O_SLOW_RANGE},
        {"comm-share", required_argument, NULL, O_COMM_SHARE},
        {"overlap", required_argument, NULL, O_OVERLAP},
        {"shuffle", required_argument, NULL, O_SHUFFLE},
        {"format", required_argument, NULL, O_FORMAT},
        {"unlaunched", required_argument, NULL, O_UNLAUNCHED},
        {"dist-rank", required_argument, NULL, O_DIST_RANK},
        {"world-size", required_argument, NULL, O_WORLD_SIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int offset_set = 0;

    opt.kernels = 1000;
    opt.names = 8;
    opt.epochs = 5;
    opt.warmup_scale = 1.0;
    opt.epoch_format = "epoch %d";
    opt.threads = 1;
    opt.ranks = 1;
    opt.scale = 1.0;
    opt.seed = 1;
    opt.gpu = "NVIDIA A100-SXM4-80GB";
    opt.driver = "535.129.03";
    opt.memory_scale = 1.0;
    opt.overlap = 1.0;
    opt.graphs = 2;
    opt.graph_nodes = 4;
    opt.devices = 1;
    opt.dist_rank = -1;
    parse_memory_kinds("htod,memset,dtoh,dtod");

    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":o:h", longopts, NULL);
        if (c == -1)
            break;
        switch (c) {
        case 'o': opt.output = optarg; break;
        case O_FORCE: opt.force = 1; break;
        case O_KERNELS: opt.kernels = parse_int("--kernels", optarg, 0, INT64_C(1) << 40); break;
        case O_NAMES: opt.names = parse_int("--names", optarg, 1, INT64_C(1) << 24); break;
        case O_NAMES_FROM: opt.names_from = optarg; break;
        case O_SHORT_NAMES_FROM: opt.short_names_from = optarg; break;
        case O_NAME_OFFSET: opt.name_offset = parse_int("--name-offset", optarg, 0, INT64_C(1) << 24); offset_set = 1; break;
        case O_EPOCHS: opt.epochs = parse_int("--epochs", optarg, 0, 1000000); break;
        case O_WARMUP: opt.warmup = parse_int("--warmup", optarg, 0, 1000000); break;
        case O_WARMUP_SCALE:
            opt.warmup_scale = parse_double("--warmup-scale", optarg);
            if (opt.warmup_scale <= 0)
                die_usage("--warmup-scale must be > 0");
            break;
        case O_EPOCH_SCALES:
            for (char *p = optarg, *end; *p; p = *end ? end + 1 : end) {
                double f = strtod(p, &end);
                if (end == p || !(f > 0) || (*end && *end != ','))
                    die_usage("--epoch-scales needs factors > 0, comma-separated");
                opt.epoch_scales = xrealloc(opt.epoch_scales,
                                            (opt.n_epoch_scales + 1) * sizeof *opt.epoch_scales);
                opt.epoch_scales[opt.n_epoch_scales++] = f;
            }
            break;
        case O_EPOCH_FORMAT: opt.epoch_format = optarg; opt.epoch_format_set = 1; break;
        case O_EPOCH_BASE: opt.epoch_base = parse_int("--epoch-base", optarg, -1000000000, 1000000000); break;
        case O_THREADS: opt.threads = parse_int("--threads", optarg, 1, 1000); break;
        case O_THREAD_KERNELS:
            opt.thread_kernels = parse_int("--thread-kernels", optarg, 0, INT64_C(1) << 40);
            opt.thread_kernels_set = 1;
            break;
        case O_RANKS: opt.ranks = parse_int("--ranks", optarg, 1, 1000); break;
        case O_RANK_BASE: opt.rank_base = parse_int("--rank-base", optarg, 0, 100000); break;
        case O_OUTSIDE: opt.outside = parse_int("--outside", optarg, 0, INT64_C(1) << 40); break;
        case O_NESTED: opt.nested = 1; break;
        case O_REGISTERED: opt.registered = 1; break;
        case O_NO_NVTX: opt.no_nvtx = 1; break;
        case O_SLOW:
            opt.slows = xrealloc(opt.slows, (opt.nslows + 1) * sizeof *opt.slows);
            opt.slows[opt.nslows++] = parse_slow("--slow", optarg);
            break;
        case O_SLOW_GRAPH:
            opt.slow_graphs = xrealloc(opt.slow_graphs, (opt.nslow_graphs + 1) * sizeof *opt.slow_graphs);
            opt.slow_graphs[opt.nslow_graphs++] = parse_slow("--slow-graph", optarg);
            break;
        case O_SLOW_DEVICE:
            opt.slow_devices = xrealloc(opt.slow_devices,
                                        (opt.nslow_devices + 1) * sizeof *opt.slow_devices);
            opt.slow_devices[opt.nslow_devices++] = parse_slow("--slow-device", optarg);
            break;
        case O_SLOW_RANGE: {
            const char *colon = strrchr(optarg, ':');
            if (!colon || colon == optarg)
                die_usage("--slow-range: expected NAME:FACTOR, got '%s'", optarg);
            opt.slow_ranges = xrealloc(opt.slow_ranges,
                                       (opt.nslow_ranges + 1) * sizeof *opt.slow_ranges);
            opt.slow_ranges[opt.nslow_ranges].name = strndup(optarg, (size_t)(colon - optarg));
            opt.slow_ranges[opt.nslow_ranges].factor = parse_double("--slow-range", colon + 1);
            if (opt.slow_ranges[opt.nslow_ranges++].factor <= 0)
                die_usage("--slow-range: factor must be > 0");
            break;
        }
        case O_SCALE:
            opt.scale = parse_double("--scale", optarg);
            if (opt.scale <= 0)
                die_usage("--scale must be > 0");
            break;
        case O_JITTER:
            opt.jitter = parse_double("--jitter", optarg);
            if (opt.jitter < 0 || opt.jitter >= 1)
                die_usage("--jitter must be in [0, 1)");
            break;
        case O_SEED: opt.seed = (uint64_t)parse_int("--seed", optarg, 0, INT64_MAX); break;
        case O_GPU: opt.gpu = optarg; break;
        case O_DRIVER: opt.driver = optarg; break;
        case O_DRIVER_API: opt.driver_api = 1; break;
        case O_SUMMARY: opt.summary = 1; break;
        case O_SYNC_EVERY: opt.sync_every = parse_int("--sync-every", optarg, 0, INT64_C(1) << 40); break;
        case O_EPOCH_TEXT:
            if (!*optarg)
                die_usage("--epoch-text: empty text");
            opt.epoch_text = optarg;
            break;
        case O_THREAD_EPOCHS: opt.thread_epochs = 1; break;
        case O_DEVICES: opt.devices = parse_int("--devices-per-rank", optarg, 1, MAX_DEVICES); break;
        case O_MEMORY_SHARE: opt.share[L_MEMORY] = parse_share("--memory-share", optarg); break;
        case O_MEMORY_KINDS: parse_memory_kinds(optarg); opt.mem_kinds_set = 1; break;
        case O_MEMORY_SCALE:
            opt.memory_scale = parse_double("--memory-scale", optarg);
            if (opt.memory_scale <= 0)
                die_usage("--memory-scale must be > 0");
            opt.memory_scale_set = 1;
            break;
        case O_GRAPH_SHARE: opt.share[L_GRAPH] = parse_share("--graph-share", optarg); break;
        case O_GRAPH_MODE:
            if (strcmp(optarg, "graph") == 0)
                opt.graph_mode = GM_GRAPH;
            else if (strcmp(optarg, "node") == 0)
                opt.graph_mode = GM_NODE;
            else
                die_usage("--graph-mode: expected graph or node, got '%s'", optarg);
            break;
        case O_GRAPH_MODE_PREFIX: opt.graph_mode_prefix = 1; break;
        case O_GRAPHS: opt.graphs = parse_int("--graphs", optarg, 1, 1000000); opt.graphs_set = 1; break;
        case O_GRAPH_NODES:
            opt.graph_nodes = parse_int("--graph-nodes", optarg, 1, MAX_GRAPH_NODES);
            opt.graph_nodes_set = 1;
            break;
        case O_COMM_SHARE: opt.share[L_COMM] = parse_share("--comm-share", optarg); break;
        case O_OVERLAP: opt.overlap = parse_share("--overlap", optarg); opt.overlap_set = 1; break;
        case O_SHUFFLE:
            opt.shuffle_seed = (uint64_t)parse_int("--shuffle", optarg, 0, INT64_MAX);
            opt.shuffle = 1;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "kineto") == 0)
                opt.kineto = 1;
            else if (strcmp(optarg, "sqlite") != 0)
                die_usage("--format: expected sqlite or kineto, got '%s'", optarg);
            break;
        case O_UNLAUNCHED: opt.unlaunched = parse_int("--unlaunched", optarg, 0, INT64_C(1) << 40); break;
        case O_DIST_RANK: opt.dist_rank = parse_int("--dist-rank", optarg, 0, 1000000); break;
        case O_WORLD_SIZE: opt.world_size = parse_int("--world-size", optarg, 1, 1000000); break;
        case 'h': usage(stdout); exit(0);
        case ':': die_usage("option '%s' needs a value", argv[optind - 1]);
        default: die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument '%s'", argv[optind]);
    if (!opt.output || !*opt.output)
        die_usage("-o/--output PATH is required");
    if (!check_epoch_format(opt.epoch_format))
        die_usage("--epoch-format needs exactly one %%d conversion (and only %%%%): '%s'",
                  opt.epoch_format);
    if (opt.names_from && offset_set)
        die_usage("--name-offset cannot be combined with --names-from");
    if (opt.short_names_from && !opt.names_from)
        die_usage("--short-names-from needs --names-from");
    if (opt.outside > opt.kernels)
        die_usage("--outside %lld exceeds --kernels %lld", (long long)opt.outside,
                  (long long)opt.kernels);
    if (opt.threads == 1 && opt.thread_kernels_set && opt.thread_kernels > 0)
        die_usage("--thread-kernels needs --threads > 1");
    if (!opt.thread_kernels_set)
        opt.thread_kernels = opt.threads > 1 ? (opt.kernels - opt.outside) / 10 : 0;
    if (opt.outside + opt.thread_kernels > opt.kernels)
        die_usage("--outside + --thread-kernels exceed --kernels");
    if (strlen(opt.gpu) == 0)
        die_usage("--gpu: empty name");
    if (opt.epoch_text && opt.epoch_format_set)
        die_usage("--epoch-text cannot be combined with --epoch-format");
    if (opt.thread_epochs && opt.threads == 1)
        die_usage("--thread-epochs needs --threads > 1");
    if (opt.nslow_ranges && !opt.nested)
        die_usage("--slow-range needs --nested");
    if (opt.share[L_MEMORY] + opt.share[L_GRAPH] + opt.share[L_COMM] > 1.0 + 1e-12)
        die_usage("--memory-share + --graph-share + --comm-share exceed 1");
    if ((opt.mem_kinds_set || opt.memory_scale_set) && opt.share[L_MEMORY] == 0)
        die_usage("--memory-kinds and --memory-scale need --memory-share > 0");
    if ((opt.graphs_set || opt.graph_nodes_set || opt.nslow_graphs) && opt.share[L_GRAPH] == 0)
        die_usage("--graphs, --graph-nodes and --slow-graph need --graph-share > 0");
    if (opt.overlap_set && opt.share[L_COMM] == 0)
        die_usage("--overlap needs --comm-share > 0");
    if (opt.share[L_GRAPH] > 0 && opt.graph_mode == GM_NONE)
        opt.graph_mode = GM_GRAPH; /* nsys's default */
    if (opt.graph_mode_prefix && opt.graph_mode == GM_NONE)
        die_usage("--graph-mode-prefix needs --graph-mode or --graph-share");
    if (!opt.kineto && (opt.unlaunched || opt.dist_rank >= 0 || opt.world_size))
        die_usage("--unlaunched, --dist-rank and --world-size need --format kineto");
    if (opt.kineto) {
        /* one file is one process, as torch.profiler writes them */
        if (opt.ranks > 1)
            die_usage("--format kineto writes one process: --ranks must be 1 (one file per rank)");
        if (opt.graph_mode == GM_GRAPH)
            die_usage("--format kineto has no whole-graph rows: use --graph-mode node");
        if (opt.registered || opt.thread_epochs || opt.shuffle)
            die_usage("--registered, --thread-epochs and --shuffle are nsys-only");
        if (opt.world_size && opt.dist_rank >= opt.world_size)
            die_usage("--dist-rank must be below --world-size");
        if (!opt.epoch_format_set && !opt.epoch_text)
            opt.epoch_format = "ProfilerStep#%d";
    }
    for (size_t i = 0; i < opt.nslow_graphs; i++)
        if (opt.slow_graphs[i].slow_index < 1 || opt.slow_graphs[i].slow_index > opt.graphs)
            die_usage("--slow-graph %lld: not a graph id (1..%lld)",
                      (long long)opt.slow_graphs[i].slow_index, (long long)opt.graphs);
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */
/* ------------------------------------------------------------------------ */

static void setup_names(void)
{
    int64_t ncomm = opt.share[L_COMM] > 0 ? NCOMM : 0;
    if (opt.names_from) {
        size_t *lens;
        int64_t n;
        char **names = read_names_file(opt.names_from, &lens, &n);
        size_t *short_lens = NULL;
        int64_t n_short = n;
        char **shorts = opt.short_names_from
                            ? read_names_file(opt.short_names_from, &short_lens, &n_short)
                            : NULL;
        if (n_short != n)
            die_usage("--short-names-from: '%s' has %lld names, --names-from %lld",
                      opt.short_names_from, (long long)n_short, (long long)n);
        g_nslots = n;
        g_slots = xcalloc((size_t)(n + ncomm), sizeof *g_slots);
        for (int64_t i = 0; i < n; i++) {
            slot_t *sl = &g_slots[i];
            const name_family_t *f = &FAMILIES[i % 16];
            sl->index = i;
            sl->demangled = sl->shortname = sl->mangled = intern(names[i], lens[i]);
            if (shorts) {
                sl->shortname = intern(shorts[i], short_lens[i]);
                free(shorts[i]);
            }
            sl->gridX = f->grid;
            sl->gridY = 1;
            sl->blockX = f->block;
            sl->regs = f->regs;
            sl->smem = f->smem;
            free(names[i]);
        }
        free(names);
        free(shorts);
        free(short_lens);
        free(lens);
    } else {
        g_nslots = opt.names;
        g_slots = xcalloc((size_t)(g_nslots + ncomm), sizeof *g_slots);
        for (int64_t s = 0; s < g_nslots; s++) {
            g_slots[s].index = s + opt.name_offset;
            builtin_name(g_slots[s].index, &g_slots[s]);
        }
    }
    for (int64_t s = 0; s < g_nslots; s++) {
        g_slots[s].base_ns = base_duration_ns(g_slots[s].index);
        g_slots[s].slow = 1.0;
    }
    for (size_t i = 0; i < opt.nslows; i++) {
        int64_t s = opt.slows[i].slow_index - (opt.names_from ? 0 : opt.name_offset);
        if (s < 0 || s >= g_nslots)
            die_usage("--slow %lld: not one of the generated name indices (%lld..%lld)",
                      (long long)opt.slows[i].slow_index,
                      (long long)(opt.names_from ? 0 : opt.name_offset),
                      (long long)((opt.names_from ? 0 : opt.name_offset) + g_nslots - 1));
        g_slots[s].slow *= opt.slows[i].factor;
    }
    /* NCCL kernels: the shape of the built-in NCCL family, their own durations */
    for (int64_t c = 0; c < ncomm; c++) {
        slot_t *sl = &g_slots[g_nslots + c];
        const name_family_t *f = &FAMILIES[7];
        sl->index = -1;
        sl->demangled = intern_c(COMM_NAMES[c][0]);
        sl->shortname = intern_c(COMM_NAMES[c][1]);
        sl->mangled = intern_c(COMM_NAMES[c][2]);
        sl->gridX = f->grid;
        sl->gridY = 1;
        sl->blockX = f->block;
        sl->regs = f->regs;
        sl->smem = f->smem;
        sl->base_ns = base_duration_ns(INT64_C(1) << 40 | c);
        sl->slow = 1.0;
    }
}

static void setup_epochs(void)
{
    g_nep = opt.warmup + opt.epochs;
    g_ep = xcalloc((size_t)g_nep, sizeof *g_ep);
    g_epoch_names = xcalloc((size_t)g_nep, sizeof *g_epoch_names);
    g_epoch_name_lens = xcalloc((size_t)g_nep, sizeof *g_epoch_name_lens);
    g_step_names = xcalloc((size_t)g_nep * NSTEPS, sizeof *g_step_names);
    g_step_name_lens = xcalloc((size_t)g_nep * NSTEPS, sizeof *g_step_name_lens);
    g_step_sids = xcalloc((size_t)g_nep * NSTEPS, sizeof *g_step_sids);
    for (int64_t e = 0; e < g_nep; e++) {
        char buf[4096];
        int n;
        if (opt.epoch_text)
            n = snprintf(buf, sizeof buf, "%s", opt.epoch_text);
        else
            n = snprintf(buf, sizeof buf, opt.epoch_format, (int)(opt.epoch_base + e));
        if (n < 0 || (size_t)n >= sizeof buf - 32)
            die_usage("%s: name too long", opt.epoch_text ? "--epoch-text" : "--epoch-format");
        g_epoch_names[e] = xmalloc((size_t)n + 1);
        memcpy(g_epoch_names[e], buf, (size_t)n + 1);
        g_epoch_name_lens[e] = (size_t)n;
        for (int s = 0; s < NSTEPS; s++) {
            size_t si = (size_t)(e * NSTEPS + s);
            int m = snprintf(buf + n, sizeof buf - (size_t)n, " step %lld",
                             (long long)(opt.epoch_base + s));
            g_step_names[si] = xmalloc((size_t)(n + m) + 1);
            memcpy(g_step_names[si], buf, (size_t)(n + m) + 1);
            g_step_name_lens[si] = (size_t)(n + m);
        }
    }
    for (int64_t e = 0; e < g_nep; e++) {
        if (opt.registered && !opt.no_nvtx)
            g_ep[e].name_sid = intern(g_epoch_names[e], g_epoch_name_lens[e]);
        else
            g_ep[e].name_sid = -1;
    }
    if (!opt.no_nvtx && opt.nested) {
        sid_optimizer = intern_c("optimizer.step");
        sid_domain = 1;
        if (opt.registered)
            for (int64_t i = 0; i < g_nep * NSTEPS; i++)
                g_step_sids[i] = intern(g_step_names[i], g_step_name_lens[i]);
    }
}

/* The launch mix of rank r: floor(n * share) of each type, kernels the rest. */
static void rank_mix(int64_t r, int64_t mix[NLTYPES])
{
    int64_t n = share(opt.kernels, opt.ranks, r), rest = n;
    for (int i = 1; i < NLTYPES; i++) {
        mix[i] = (int64_t)((double)n * opt.share[i] + 1e-9);
        rest -= mix[i];
    }
    for (int i = NLTYPES - 1; rest < 0; i--) { /* shares summing to 1 within rounding */
        int64_t take = mix[i] < -rest ? mix[i] : -rest;
        mix[i] -= take;
        rest += take;
    }
    mix[L_KERNEL] = rest;
}

/* How many rows each GPU table gets (a table is made only when it has rows). */
typedef struct {
    int64_t kernel, graph, memcpy, memset;
} row_counts_t;

static row_counts_t count_rows(void)
{
    row_counts_t c = {0, 0, 0, 0};
    for (int64_t r = 0; r < opt.ranks; r++) {
        int64_t mix[NLTYPES];
        rank_mix(r, mix);
        c.kernel += mix[L_KERNEL] + mix[L_COMM];
        if (opt.graph_mode == GM_NODE)
            c.kernel += mix[L_GRAPH] * opt.graph_nodes;
        else
            c.graph += mix[L_GRAPH];
        for (int i = 0; i < opt.nmem_kinds; i++) {
            int64_t n = share(mix[L_MEMORY], opt.nmem_kinds, i);
            if (MEM_OPS[opt.mem_kinds[i]].copy_kind >= 0)
                c.memcpy += n;
            else
                c.memset += n;
        }
    }
    return c;
}

static void create_tables(const row_counts_t *rows, int runtime_table, int nvtx_table)
{
    db_create(SQL_STRINGIDS);
    db_create(SQL_TARGET_INFO_SYSTEM_ENV);
    if (runtime_table)
        db_create(SQL_CUPTI_ACTIVITY_KIND_RUNTIME);
    if (nvtx_table)
        db_create(SQL_NVTX_EVENTS);
    if (rows->kernel > 0)
        db_create(g_layout_2026 ? SQL_CUPTI_ACTIVITY_KIND_KERNEL_2026 : SQL_CUPTI_ACTIVITY_KIND_KERNEL);
    if (rows->memcpy > 0)
        db_create(g_layout_2026 ? SQL_CUPTI_ACTIVITY_KIND_MEMCPY_2026 : SQL_CUPTI_ACTIVITY_KIND_MEMCPY);
    if (rows->memset > 0)
        db_create(g_layout_2026 ? SQL_CUPTI_ACTIVITY_KIND_MEMSET_2026 : SQL_CUPTI_ACTIVITY_KIND_MEMSET);
    if (rows->graph > 0)
        db_create(SQL_CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    if (rows->memcpy + rows->memset > 0) {
        db_create(g_layout_2026 ? SQL_ENUM_CUDA_MEMCPY_OPER_2026 : SQL_ENUM_CUDA_MEMCPY_OPER);
        db_create(g_layout_2026 ? SQL_ENUM_CUDA_MEM_KIND_2026 : SQL_ENUM_CUDA_MEM_KIND);
        write_enum("ENUM_CUDA_MEMCPY_OPER", MEMCPY_OPER, sizeof MEMCPY_OPER / sizeof MEMCPY_OPER[0]);
        write_enum("ENUM_CUDA_MEM_KIND", MEM_KIND, sizeof MEM_KIND / sizeof MEM_KIND[0]);
    }
    db_create(SQL_TARGET_INFO_GPU);
    db_create(SQL_META_DATA_CAPTURE);
    db_create(SQL_META_DATA_EXPORT);

    if (runtime_table)
        st_runtime = db_prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?1, ?2, ?3, ?4, ?5, ?6, 0, NULL)");
    if (rows->kernel > 0 && !g_layout_2026)
        st_kernel = db_prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, ?8, "
            "?9, ?10, 1, 1, ?11, ?12, ?13, 1, ?14, 1, 1, ?15, 0, 0, 136314880, ?16, 32768, NULL, 0)");
    if (rows->kernel > 0 && g_layout_2026)
        st_kernel = db_prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, "
            "?9, ?10, 1, 1, ?11, ?12, ?13, 1, ?14, 1, 1, ?15, 0, 0, 136314880, ?16, 32768, ?17, 0, "
            "NULL, NULL, NULL, ?18, 0, 0, 0, 1, 0, 0, NULL, '[]')");
    if (rows->memcpy > 0)
        st_memcpy = db_prepare(g_layout_2026
            ? "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?9, "
              "NULL, ?10, ?11, ?12, ?13, ?14, ?15, NULL, NULL, NULL, 1)"
            : "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, ?8, ?9, "
              "NULL, ?10, ?11, ?12, ?13, ?14, ?15, NULL, NULL, NULL)");
    if (rows->memset > 0)
        st_memset = db_prepare(g_layout_2026
            ? "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, 0, ?8, NULL, ?9)"
            : "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, 0, ?8, NULL, ?9)");
    if (rows->graph > 0)
        st_graph = db_prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES(?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?9)");
    if (nvtx_table)
        st_nvtx = db_prepare(
            "INSERT INTO NVTX_EVENTS VALUES(?1, ?2, ?3, NULL, NULL, NULL, ?4, ?5, NULL, ?6, ?7, "
            "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
}

/* ------------------------------------------------------------------------ */
/* Timeline                                                                 */
/* ------------------------------------------------------------------------ */

/* Thread k of rank p: stream ids (7 for the main thread, 12+k for the others;
 * the communication streams after all of those) on every device of the rank. */
static void thread_init(thread_t *th, proc_t *p, int64_t k)
{
    memset(th, 0, sizeof *th);
    th->p = p;
    th->gtid = p->gpid | (p->pid + k);
    for (int64_t j = 0; j < opt.devices; j++) {
        th->compute[j].id = k == 0 ? MAIN_STREAM : 12 + (int)k;
        th->comm[j].id = 12 + (int)opt.threads + (int)k;
        th->compute[j].slot = (int)((k * opt.devices + j) * 2);
        th->comm[j].slot = (int)((k * opt.devices + j) * 2 + 1);
    }
}

/* Rank r of the file: the shares of the work are the file's (r), the
 * identity and the random streams the job's (id, from --rank-base). */
static void run_rank(int64_t r)
{
    int64_t id = opt.rank_base + r;
    proc_t p;
    memset(&p, 0, sizeof p);
    p.rank = (int)id;
    p.pid = 4000 + 16 * id;
    p.gpid = GTID_VM | (p.pid << 24);
    p.dev0 = (int)(id * opt.devices);
    p.corr = CORR_BASE;
    p.gridId = 1;
    p.noise.s = splitmix64(opt.seed * 0x100000001B3ULL + (uint64_t)id);
    rank_mix(r, p.mix);
    p.mix_total = share(opt.kernels, opt.ranks, r);

    int64_t nr = share(opt.kernels, opt.ranks, r);
    int64_t outr = share(opt.outside, opt.ranks, r);
    int64_t thr = share(opt.thread_kernels, opt.ranks, r);
    int64_t epk = nr - outr - thr;
    if (g_nep == 0) {
        outr += epk;
        epk = 0;
    }

    thread_t main_th;
    thread_init(&main_th, &p, 0);
    main_th.t = 250000000 + 7919 * id;
    main_th.cpu.s = splitmix64(0x7EA11ULL + (uint64_t)id * 131);
    int64_t t0 = main_th.t;
    /* --unlaunched: kernels whose launch call the trace lacks (made before
     * the profiler started), ahead of everything */
    for (int64_t k = 0; k < opt.unlaunched; k++) {
        launch_t l = {&main_th, 0, 0, 0, -1, 1.0, 0};
        main_th.t += rng_range(&main_th.cpu, 800, 2500);
        l.ready = main_th.t;
        l.corr = p.corr++;
        gpu_kernel(&l);
    }

    if (st_nvtx && opt.nested) {
        /* domain create row, like nvtxDomainCreateA("trainer") */
        nvtx_push(main_th.t, 75, "trainer", 7, -1, sid_domain, main_th.gtid);
        nvtx_flush();
        main_th.t += 5000;
    }
    for (int64_t g = 0; g <= g_nep; g++) {
        int64_t no = share(outr, g_nep + 1, g);
        if (no > 0) {
            main_th.t += rng_range(&main_th.cpu, 10000, 30000);
            for (int64_t k = 0; k < no; k++)
                launch(&main_th, -1, 1.0);
        }
        if (g < g_nep)
            run_epoch(&main_th, g, share(epk, g_nep, g));
    }
    int64_t t_end = main_th.t;

    for (int64_t k = 1; k < opt.threads; k++) {
        thread_t th;
        thread_init(&th, &p, k);
        th.t = t0;
        th.cpu.s = splitmix64(0x7EA11ULL + (uint64_t)id * 131 + (uint64_t)k * 7);
        run_extra_thread(&th, share(thr, opt.threads - 1, k - 1), t0, t_end);
    }
    if (main_th.t > g_max_time)
        g_max_time = main_th.t;
    for (int i = 0; i < NLTYPES; i++)
        if (p.mixed[i] != p.mix[i])
            die("internal: rank %lld launched %lld of type %d, not %lld", (long long)r,
                (long long)p.mixed[i], i, (long long)p.mix[i]);
    if (opt.summary)
        iv_finish_rank();
}

/* ------------------------------------------------------------------------ */
/* --shuffle                                                                */
/* ------------------------------------------------------------------------ */

static void shuffle_key(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    uint64_t x = (uint64_t)sqlite3_value_int64(argv[0]);
    sqlite3_result_int64(ctx, (int64_t)splitmix64(x ^ splitmix64(opt.shuffle_seed)));
}

/* Rewrite every table in a random order of its rows (splitmix64 is a
 * bijection: no ties).  Tables keyed by INTEGER PRIMARY KEY (StringIds, the
 * enums) are stored in key order whatever the insert order: left alone. */
static void shuffle_tables(void)
{
    static const char *const tables[] = {
        "TARGET_INFO_SYSTEM_ENV", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
        "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "TARGET_INFO_GPU", "META_DATA_CAPTURE",
        "META_DATA_EXPORT",
    };
    if (sqlite3_create_function(g_db, "gentrace_shuffle", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, shuffle_key, NULL, NULL) != SQLITE_OK)
        die("sqlite: %s", sqlite3_errmsg(g_db));
    sqlite3_stmt *exists = db_prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        sqlite3_bind_text(exists, 1, tables[i], -1, SQLITE_STATIC);
        int found = sqlite3_step(exists) == SQLITE_ROW;
        sqlite3_reset(exists);
        if (!found)
            continue;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "CREATE TEMP TABLE gentrace_rows AS SELECT * FROM main.%s; DELETE FROM main.%s; "
                 "INSERT INTO main.%s SELECT * FROM gentrace_rows ORDER BY gentrace_shuffle(rowid); "
                 "DROP TABLE gentrace_rows;",
                 tables[i], tables[i], tables[i]);
        db_exec(sql);
    }
    sqlite3_finalize(exists);
}

/* ------------------------------------------------------------------------ */
/* --summary                                                                */
/* ------------------------------------------------------------------------ */

static void json_kinds(FILE *o, const tally_t kind[NKINDS])
{
    for (int k = 0; k < NKINDS; k++)
        fprintf(o, "%s\"%s\": {\"ns\": %lld, \"launches\": %lld}", k ? ", " : "{", KIND_NAMES[k],
                (long long)kind[k].ns, (long long)kind[k].count);
    fputc('}', o);
}

/* Each work set's kernel_sum_ns, launches and gpu_busy_ns over these tallies. */
static void json_work_totals(FILE *o, const tally_t kind[NKINDS], const int64_t busy[NWORK])
{
    for (int w = 0; w < NWORK; w++) {
        int64_t ns = 0, count = 0;
        for (int k = 0; k < NKINDS; k++)
            if (KIND_WORK[k] >> w & 1) {
                ns += kind[k].ns;
                count += kind[k].count;
            }
        fprintf(o, "%s\"%s\": {\"kernel_sum_ns\": %lld, \"gpu_busy_ns\": %lld, \"launches\": %lld}",
                w ? ", " : "{", WORK_NAMES[w], (long long)ns, (long long)busy[w], (long long)count);
    }
    fputc('}', o);
}

static void print_per_name(FILE *o)
{
    /* merge slots with the same demangled string (possible with --names-from) */
    int64_t *sum_by = xcalloc((size_t)g_nstrs, sizeof *sum_by);
    int64_t *cnt_by = xcalloc((size_t)g_nstrs, sizeof *cnt_by);
    int64_t nall = g_nslots + (opt.share[L_COMM] > 0 ? NCOMM : 0);
    for (int64_t s = 0; s < nall; s++) {
        sum_by[g_slots[s].demangled] += g_slots[s].sum_ns;
        cnt_by[g_slots[s].demangled] += g_slots[s].count;
    }
    int first = 1;
    for (int64_t s = 0; s < nall; s++) {
        int64_t id = g_slots[s].demangled;
        if (cnt_by[id] == 0)
            continue; /* unused, or already printed */
        fputs(first ? "{\"name\": " : ", {\"name\": ", o);
        first = 0;
        json_string(o, g_strs[id].s, g_strs[id].len);
        fprintf(o, ", \"total_ns\": %lld, \"instances\": %lld}", (long long)sum_by[id],
                (long long)cnt_by[id]);
        cnt_by[id] = 0;
    }
    free(sum_by);
    free(cnt_by);
}

static void print_epochs(FILE *o)
{
    if (opt.no_nvtx)
        return;
    for (int64_t e = 0; e < g_nep; e++) {
        const span_acc_t *k = &g_ep[e].w[W_KERNELS];
        fputs(e ? ", {\"name\": " : "{\"name\": ", o);
        json_string(o, g_epoch_names[e], g_epoch_name_lens[e]);
        fprintf(o, ", \"warmup\": %s, \"kernel_sum_ns\": %lld, \"gpu_span_ns\": %lld, "
                "\"occurrence\": %lld, \"work\": ",
                e < opt.warmup ? "true" : "false", (long long)k->sum_ns,
                (long long)(k->count ? k->max_end - k->min_start : 0),
                (long long)(opt.epoch_text ? e + 1 : 1));
        for (int w = 0; w < NWORK; w++) {
            const span_acc_t *a = &g_ep[e].w[w];
            fprintf(o, "%s\"%s\": {\"kernel_sum_ns\": %lld, \"gpu_span_ns\": %lld, "
                    "\"gpu_busy_ns\": %lld, \"launches\": %lld}",
                    w ? ", " : "{", WORK_NAMES[w], (long long)a->sum_ns,
                    (long long)(a->count ? a->max_end - a->min_start : 0), (long long)a->busy_ns,
                    (long long)a->count);
        }
        fputs("}}", o);
    }
}

static void print_devices_and_processes(FILE *o)
{
    int64_t busy[NWORK] = {0, 0, 0};
    fputs(", \"devices\": [", o);
    int64_t d0 = opt.rank_base * opt.devices;
    for (int64_t d = d0; d < d0 + opt.ranks * opt.devices; d++) {
        fprintf(o, "%s{\"device\": %lld, \"pid\": %lld, \"kinds\": ", d > d0 ? ", " : "", (long long)d,
                (long long)(4000 + 16 * (d / opt.devices)));
        json_kinds(o, g_dev[d].kind);
        fputs(", \"work\": ", o);
        json_work_totals(o, g_dev[d].kind, g_dev[d].busy);
        fputc('}', o);
    }
    fputs("], \"processes\": [", o);
    for (int64_t r = opt.rank_base; r < opt.rank_base + opt.ranks; r++) {
        int64_t pid = 4000 + 16 * r;
        int64_t pbusy[NWORK] = {0, 0, 0};
        fprintf(o, "%s{\"pid\": %lld, \"global_pid\": %lld, \"devices\": [",
                r > opt.rank_base ? ", " : "",
                (long long)pid, (long long)(GTID_VM | pid << 24));
        for (int64_t j = 0; j < opt.devices; j++) {
            fprintf(o, "%s%lld", j ? ", " : "", (long long)(r * opt.devices + j));
            for (int w = 0; w < NWORK; w++)
                pbusy[w] += g_dev[r * opt.devices + j].busy[w];
        }
        fputs("], \"kinds\": ", o);
        json_kinds(o, g_proc[r].kind);
        fputs(", \"work\": ", o);
        json_work_totals(o, g_proc[r].kind, pbusy);
        fputc('}', o);
        for (int w = 0; w < NWORK; w++)
            busy[w] += pbusy[w];
    }
    fputs("], \"kinds\": ", o);
    json_kinds(o, g_kind);
    fputs(", \"work\": ", o);
    json_work_totals(o, g_kind, busy);
}

static void print_memory_and_graphs(FILE *o)
{
    int first = 1;
    fputs(", \"per_memory\": [", o);
    for (int i = 0; i < NMEM_OPS; i++) {
        if (g_mem[i].count == 0)
            continue;
        char name[96];
        if (MEM_OPS[i].copy_kind >= 0)
            snprintf(name, sizeof name, "[CUDA memcpy %s]", MEMCPY_OPER[MEM_OPS[i].copy_kind][1]);
        else
            snprintf(name, sizeof name, "[CUDA memset]");
        fprintf(o, "%s{\"name\": \"%s\", \"total_ns\": %lld, \"instances\": %lld, \"bytes\": %lld}",
                first ? "" : ", ", name, (long long)g_mem[i].ns, (long long)g_mem[i].count,
                (long long)g_mem_bytes[i]);
        first = 0;
    }
    fputs("], \"per_graph\": [", o);
    first = 1;
    for (int64_t g = 0; opt.share[L_GRAPH] > 0 && g < opt.graphs; g++) {
        if (g_graph[g].count == 0)
            continue;
        fprintf(o, "%s{\"name\": \"CUDA graph %lld\", \"graph_id\": %lld, \"total_ns\": %lld, "
                "\"launches\": %lld}", first ? "" : ", ", (long long)(g + 1), (long long)(g + 1),
                (long long)g_graph[g].ns, (long long)g_graph[g].count);
        first = 0;
    }
    fputc(']', o);
}

static void print_summary(FILE *o)
{
    fprintf(o, "{\"kernels\": %lld, \"total_ns\": %lld, \"per_name\": [",
            (long long)g_kind[K_KERNEL].count, (long long)g_kind[K_KERNEL].ns);
    print_per_name(o);
    fputs("], \"epochs\": [", o);
    print_epochs(o);
    fputs("], \"graph_mode\": ", o);
    if (opt.graph_mode == GM_NONE)
        fputs("null", o);
    else
        fprintf(o, "\"%s\"", GRAPH_MODE_VALUES[opt.graph_mode]);
    print_devices_and_processes(o);
    print_memory_and_graphs(o);
    fputs("}\n", o);
    if (fflush(o) != 0 || ferror(o))
        die("error writing the summary");
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    parse_options(argc, argv);

    struct stat sb;
    if (!opt.force && lstat(opt.output, &sb) == 0)
        die_usage("'%s' exists (use --force to replace it)", opt.output);

    /* --- strings, names, accumulators ----------------------------------- */
    row_counts_t rows = count_rows();
    g_layout_2026 = opt.graph_mode != GM_NONE;
    intern_c("[Unknown]");
    sid_launch = intern_c(opt.driver_api ? "cuLaunchKernel" : "cudaLaunchKernel_v7000");
    sid_sync = intern_c("cudaDeviceSynchronize_v3020");
    if (opt.sync_every > 0)
        sid_stream_sync = intern_c("cudaStreamSynchronize_v3020");
    if (rows.memcpy > 0)
        sid_memcpy = intern_c("cudaMemcpyAsync_v3020");
    if (rows.memset > 0)
        sid_memset = intern_c("cudaMemsetAsync_v3020");
    if (opt.share[L_GRAPH] > 0)
        sid_graph_launch = intern_c("cudaGraphLaunch_v10000");
    setup_names();
    setup_epochs();
    g_dev = xcalloc((size_t)((opt.rank_base + opt.ranks) * opt.devices), sizeof *g_dev);
    g_proc = xcalloc((size_t)(opt.rank_base + opt.ranks), sizeof *g_proc);
    g_graph = xcalloc((size_t)opt.graphs, sizeof *g_graph);
    g_graph_slow = xcalloc((size_t)opt.graphs, sizeof *g_graph_slow);
    for (int64_t g = 0; g < opt.graphs; g++)
        g_graph_slow[g] = 1.0;
    for (size_t i = 0; i < opt.nslow_graphs; i++)
        g_graph_slow[opt.slow_graphs[i].slow_index - 1] *= opt.slow_graphs[i].factor;
    g_nstream_slots = (size_t)(opt.threads * opt.devices * 2);
    for (int w = 0; w < NWORK; w++) {
        g_iv[w].last = xmalloc(g_nstream_slots * sizeof *g_iv[w].last);
        for (size_t s = 0; s < g_nstream_slots; s++)
            g_iv[w].last[s] = -1;
    }

    /* --- open the temporary output -------------------------------------- */
    size_t olen = strlen(opt.output);
    char *tmp = xmalloc(olen + 32);
    snprintf(tmp, olen + 32, "%s.gentrace-XXXXXX", opt.output);
    int fd = mkstemp(tmp);
    if (fd < 0)
        die("cannot create a temporary file next to '%s': %s", opt.output, strerror(errno));
    g_tmp_path = tmp;
    if (opt.kineto) {
        g_kj = fdopen(fd, "w");
        if (!g_kj)
            die("fdopen %s: %s", tmp, strerror(errno));
        static char kj_buf[1 << 20];
        setvbuf(g_kj, kj_buf, _IOFBF, sizeof kj_buf);
        g_win = xmalloc((size_t)(g_nep ? g_nep : 1) * sizeof *g_win);
        for (int64_t e = 0; e < g_nep; e++)
            g_win[e] = (window_t){ INT64_MAX, INT64_MIN };
        kj_begin();
        run_rank(0);
        kj_end();
        if (fflush(g_kj) != 0 || ferror(g_kj) || fclose(g_kj) != 0)
            die("error writing %s", tmp);
        goto publish;
    }
    close(fd);
    if (sqlite3_open_v2(tmp, &g_db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        die("sqlite open %s: %s", tmp, g_db ? sqlite3_errmsg(g_db) : "?");
    db_exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
            "PRAGMA cache_size=-131072; PRAGMA temp_store=MEMORY;");
    db_exec("BEGIN");

    create_tables(&rows, opt.kernels > 0 || g_nep > 0, !opt.no_nvtx && g_nep > 0);

    /* --- timeline ------------------------------------------------------- */
    for (int64_t r = 0; r < opt.ranks; r++)
        run_rank(r);

    write_string_ids();
    write_system_env();
    write_gpus();
    write_meta_capture();
    write_meta_export();

    sqlite3_stmt *stmts[] = {st_runtime, st_kernel, st_nvtx, st_memcpy, st_memset, st_graph};
    for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++)
        if (stmts[i])
            sqlite3_finalize(stmts[i]);
    if (opt.shuffle)
        shuffle_tables();
    db_exec("COMMIT");
    if (sqlite3_close(g_db) != SQLITE_OK)
        die("sqlite close: %s", sqlite3_errmsg(g_db));
    g_db = NULL;

    /* --- publish atomically -------------------------------------------- */
publish:
    if (chmod(tmp, 0644) != 0)
        die("chmod %s: %s", tmp, strerror(errno));
    if (opt.force) {
        if (rename(tmp, opt.output) != 0)
            die("rename %s -> %s: %s", tmp, opt.output, strerror(errno));
    } else {
        /* link() never replaces: no clobbering even if PATH appeared meanwhile */
        if (link(tmp, opt.output) != 0) {
            if (errno == EEXIST)
                die("'%s' appeared while writing (use --force to replace it)", opt.output);
            die("link %s -> %s: %s", tmp, opt.output, strerror(errno));
        }
        unlink(tmp);
    }
    g_tmp_path = NULL;
    free(tmp);

    if (opt.summary)
        print_summary(stdout);
    return 0;
}
