#!/usr/bin/env bash
# Profiles replaced or rewritten while the gate reads them (best effort: a
# writer that pauses half-way for the whole of a read cannot be told from
# a complete file, and no reader can do better without the writer's help).
# A writer alternates two versions of one path, A and B, whose totals
# differ; the gate reads the path over and over.  Every run must exit 0
# with the total of A or of B -- never a mix -- or exit 2 with one ERROR
# line (a file that changed under the read is refused as such).
#
#   sqlite, atomic   cp + mv over the path (how well-behaved tools write)
#   sqlite, in place cat > path: truncate, then write in chunks
#   csv, atomic      as above, an nsys stats summary
#
# Environment: GATE, GENTRACE.  NG_RACE_RUNS (default 150) runs per mode.
set -u
runs=${NG_RACE_RUNS:-150}
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-race.XXXXXX")
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
"$GENTRACE" -o A.sqlite --kernels 3000 --names 4 --no-nvtx >/dev/null || exit 1
"$GENTRACE" -o B.sqlite --kernels 3000 --names 4 --no-nvtx --scale 2 >/dev/null || exit 1
hdr='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
printf '%s\n100.0,1000,2,1.0,1.0,1,1,0.0,k\n' "$hdr" >A.csv
printf '%s\n100.0,3000,2,1.0,1.0,1,1,0.0,k\n' "$hdr" >B.csv

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
total() { "$GATE" --print-profile "$1" | sed -nE '1s/^# .* \([a-z-]+\): ([0-9]+) ns .*/\1/p'; }

race() {   # race MODE EXT
    local mode=$1 ext=$2 a b i rc out n_a=0 n_b=0 n_err=0 bad=0
    a=$(total "A.$ext") b=$(total "B.$ext")
    cp "A.$ext" "T.$ext"
    (
        while :; do
            for v in B A; do
                if [ "$mode" = atomic ]; then
                    cp "$v.$ext" "new.$ext" && mv "new.$ext" "T.$ext"
                else
                    cat "$v.$ext" >"T.$ext"
                fi
            done
        done
    ) &
    writer=$!
    for i in $(seq "$runs"); do
        "$GATE" --print-profile "T.$ext" >out 2>err
        rc=$?
        out=$(sed -nE '1s/^# .* \([a-z-]+\): ([0-9]+) ns .*/\1/p' out)
        if [ "$rc" = 0 ] && [ "$out" = "$a" ]; then
            n_a=$((n_a + 1))
        elif [ "$rc" = 0 ] && [ "$out" = "$b" ]; then
            n_b=$((n_b + 1))
        elif [ "$rc" = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q '^ERROR: ' err && [ ! -s out ]; then
            n_err=$((n_err + 1))
        else
            bad=$((bad + 1))
            echo "# $ext $mode run $i: exit $rc, total '$out' (A $a, B $b): $(head -c 300 err)"
        fi
    done
    kill "$writer"
    wait "$writer" 2>/dev/null
    writer=
    check "$ext, $mode: $runs runs: $n_a read A, $n_b read B, $n_err refused, $bad wrong" test "$bad" = 0
}
race atomic sqlite
race in-place sqlite
race atomic csv

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
