#!/usr/bin/env bash
# Builds the fuzz targets with clang, libFuzzer, ASan and UBSan in
# build-fuzz/ and runs each for SECONDS (default 60), one after another.
#
#   ci/fuzz.sh [SECONDS]          fuzz every target
#   ci/fuzz.sh SECONDS TARGET...  only these (csv, sqlite, sqlite_diff, cli, manifest, history, kineto,
#                                 rocprof_json, rocprof_csv, rocpd, summary)
#   ci/fuzz.sh --merge ...        afterwards, add the new inputs that reach
#                                 new code to tests/fuzz/corpus/ (review
#                                 and commit them)
#
# Each target starts from its seed corpus tests/fuzz/corpus/<target> (read
# only) plus what earlier runs found, kept in build-fuzz/corpus/<target>.
# A crash, leak, timeout or out-of-memory input is copied into the seed
# corpus as regression-<kind>-<hash>, where the `fuzz` suite of every
# ordinary build replays it from then on; the script then exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/deps.sh

merge=0
if [ "${1:-}" = --merge ]; then
    merge=1
    shift
fi
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(csv sqlite sqlite_diff cli manifest history kineto rocprof_json rocprof_csv rocpd summary)
case $seconds in
'' | *[!0-9]*) echo "usage: ci/fuzz.sh [--merge] [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

ng_need_packages fuzz

builddir=build-fuzz
setup_args=(-Dfuzzing=true -Dtests=disabled -Db_sanitize=address,undefined -Db_lundef=false
            --buildtype=debugoptimized)
if [ -d "$builddir" ]; then
    meson setup --reconfigure "$builddir" "${setup_args[@]}" >/dev/null
else
    CC=clang meson setup "$builddir" "${setup_args[@]}" >/dev/null
fi
ninja -C "$builddir" $(printf 'tests/fuzz/fuzz_%s ' "${targets[@]}") >/dev/null

# Inputs larger than the seeds gain nothing; smaller means more runs.
max_len() {
    case $1 in
    csv) echo 4096 ;;
    sqlite | sqlite_diff) echo 16384 ;;
    rocpd) echo 98304 ;;
    cli) echo 1024 ;;
    manifest) echo 4096 ;;
    history) echo 16384 ;;
    rocprof_csv) echo 4096 ;;
    rocprof_json) echo 65536 ;;
    esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# the SQLite target's scratch files, and anything a crash leaves behind
export TMPDIR=$PWD/$builddir/tmp
mkdir -p "$TMPDIR"

found=0
summary=()
for t in "${targets[@]}"; do
    exe=$builddir/tests/fuzz/fuzz_$t
    seeds=tests/fuzz/corpus/$t
    [ -x "$exe" ] && [ -d "$seeds" ] || { echo "ci/fuzz.sh: unknown target '$t'" >&2; exit 2; }
    work=$builddir/corpus/$t
    artifacts=$builddir/artifacts/$t
    log=$builddir/fuzz-$t.log
    mkdir -p "$work" "$artifacts"
    dict=()
    # the differential target reads the same files as sqlite: its dictionary
    d=tests/fuzz/${t%_diff}.dict
    [ -f "$d" ] && dict=(-dict="$d")
    echo "fuzz $t: ${seconds}s (log: $log)"
    set +e
    "$exe" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "${dict[@]}" "$work" "$seeds" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
    new=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
          -o -name 'oom-*' \) -newer "$exe" | sort)
    for f in $new; do
        b=$(basename "$f")
        cp "$f" "$seeds/regression-$b"
        echo "fuzz $t: FOUND ${b%%-*}: $seeds/regression-$b" >&2
        found=1
    done
    if [ "$rc" != 0 ] && [ -z "$new" ]; then
        echo "fuzz $t: libFuzzer exited $rc without an artifact; see $log" >&2
        tail -n 20 "$log" >&2
        found=1
    fi
    if [ "$merge" = 1 ] && [ -z "$new" ]; then
        before=$(ls "$seeds" | wc -l)
        "$exe" -merge=1 -max_len="$(max_len "$t")" "$seeds" "$work" >>"$log" 2>&1
        echo "fuzz $t: merged $(( $(ls "$seeds" | wc -l) - before )) new input(s) into $seeds"
    fi
    summary+=("$(printf '%-7s %12s executions, final corpus %s inputs/bytes' \
        "$t" "$execs" "${corp:-?}")")
done

echo
echo "fuzzing, ${seconds}s per target:"
printf '  %s\n' "${summary[@]}"
if [ "$found" = 1 ]; then
    echo "ci/fuzz.sh: findings above; fix them, keep the regression files, commit both" >&2
    exit 1
fi
