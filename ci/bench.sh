#!/usr/bin/env bash
# Benchmark (not a test): the gate against the floor (sqlite3 summing the
# kernel table), real `nsys stats`, and the Python prototype, on generated
# traces of 1, 5 and 10 million kernels (wall, CPU time per file, peak RSS;
# gpu-busy too); the same on one core (taskset -c 0: CPU time per file, the
# ratios total/floor, NVTX/total, --work all/total on a trace with 20% memory
# rows, and what the step-time breakdown costs: both modes against the version
# before it, built from this repository's history), so two threads cannot hide a slower reader; the gate's peak RSS on a generated
# 10-million-row saved kernel summary (CSV) against the file's size; then the
# .nsys-rep path: a pair of real-nsys exports sequential (--jobs 1) and
# parallel (--jobs 2), wall and the peak RSS of the whole process tree, and
# the cache key: a cache hit on 1.5 and 2 GB reports (a stand-in nsys; the
# hit never runs it) against reading the report once; and the dashboard of
# a generated history of 200 gates x 1000 nights (wall, index.html size); and the
# Chrome-trace reader on a generated torch.profiler trace, plain and gzip; the rocpd
# reader on a generated rocprofv3 database; and summaries (nsys-gate summarize) of the
# generated exports.  Ratios come from one
# run of this script, commands alternated, median of N runs after a warm-up.
#
#   ci/bench.sh [--runs N] [--sizes "1 5 10"] [--no-nsys] [--no-summary]
#               [--summary-runs N] [--no-nsysrep] [--no-single-core]
#               [--single-core-size M]
#   ci/bench.sh --sizes "" --no-nsys --no-nsysrep --no-dashboard   only the saved-summary rows
#   ci/bench.sh --single-core-only [--runs N]   only the one-core rows, the breakdown's cost among them
#   ci/bench.sh --dashboard-only [--runs N]   only `nsys-gate dashboard` on a generated
#                                             history of 200 gates x 1000 runs
#   ci/bench.sh --decision-only [--runs N]   only the decision's statistics: the interval
#                                             and the test at 10,000 and 100,000 epochs
#                                             a side, alone and against the gate's run
#   ci/bench.sh --summaries-only [--runs N] [--summarize-sizes "1 5"]
#                                             only the summaries rows: an export's MB against
#                                             its summary's KB (plain, gzip; total and NVTX
#                                             mode), summarize's time against the gate's
#   ci/bench.sh --kineto-only [--runs N] [--kineto-mb 256] [--kineto-rss-mb 1000]
#                                             only the torch.profiler (Kineto) rows: MB/s of
#                                             JSON on one core against `zcat FILE.gz` and
#                                             python3's json.load, peak RSS on a 1 GB trace
#   ci/bench.sh --rocpd-only [--runs N] [--rocpd-dispatches 1e6]
#                                             only the rocpd row: the reader's CPU on one core
#                                             against sqlite3's SUM("end" - start) over the
#                                             dispatch table (a ratio above 1.5 fails)
#
#   ci/bench.sh --ranks-only [--runs N]      only the many-ranks rows: --ranks on 1,000
#                                             rank summaries a side against 10 (wall, peak
#                                             RSS), summarize --ranks at -j 1 and -j N
#
# Traces and summaries are cached in ${NSYS_GATE_BENCH_DIR:-~/.cache/nsys-gate/bench}.
# Writes build-bench/bench.json and build-bench/bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/deps.sh
NG_BUILD_PACKAGES="$NG_BUILD_PACKAGES sqlite3 time python3 gzip" ng_need_packages build

if [ -d build-bench ]; then
    meson setup --reconfigure build-bench --buildtype=release >/dev/null
else
    meson setup build-bench --buildtype=release >/dev/null
fi
ninja -C build-bench >/dev/null

# The version before the step-time breakdown, for the single-core rows that
# measure what the breakdown costs: built from this repository's history
# (a shallow clone lacks it, and those rows are then left out, said so).
REFERENCE=57f767b^
reference=()
if rev=$(git rev-parse -q --verify "$REFERENCE^{commit}" 2>/dev/null); then
    dir=build-bench/reference
    if [ "$(cat "$dir/rev" 2>/dev/null)" != "$rev" ]; then
        rm -rf "$dir" && mkdir -p "$dir/src"
        git archive "$rev" | tar -x -C "$dir/src"
        meson setup "$dir/build" "$dir/src" --buildtype=release >/dev/null
        echo "$rev" >"$dir/rev"
    fi
    ninja -C "$dir/build" src/nsys-gate >/dev/null
    reference=(--reference-gate "$dir/build/src/nsys-gate")
else
    echo "note: $REFERENCE is not in this clone's history; the breakdown's cost rows are left out" >&2
fi
exec /usr/bin/python3 ci/bench.py --gate build-bench/src/nsys-gate \
    --gentrace build-bench/tests/tools/gentrace --out build-bench "${reference[@]}" "$@"
