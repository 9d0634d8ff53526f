#!/usr/bin/env bash
# The same outputs whatever the number of worker threads: each gate below
# runs with --jobs 1, 3 and 16, and every file it writes, its stdout, its
# stderr and its exit status are byte for byte those of --jobs 1 (but for
# what is timing in any run: JUnit's times, a batch's progress lines in
# the order its gates end).
#
#   1. total mode, six runs a side, every report (JSON, JUnit, metrics,
#      history, benchmark, HTML);
#   2. NVTX mode (--epoch-range auto, per-kernel gates), four runs a side;
#   3. runs that cannot be read among them (a missing one, a damaged one):
#      the error named is the first in order, the baseline's;
#   4. a batch of three gates from a manifest.
# (The dashboard, which has no --jobs yet, is held to the same in
# unit/dashboard: one worker and many make the same site.)
#
# Environment: GATE, GENTRACE, SRCDIR.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin jobs
export SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C XDG_CACHE_HOME=$work/cache
mkdir cache

for i in 1 2 3 4 5 6; do
    "$GENTRACE" -o "b$i.sqlite" --kernels 600 --names 7 --epochs 6 --jitter 0.05 --seed "$i" \
        >/dev/null || exit 1
    "$GENTRACE" -o "c$i.sqlite" --kernels 600 --names 7 --epochs 6 --jitter 0.05 \
        --seed "$((i + 10))" --slow 2:1.4 --scale 1.3 >/dev/null || exit 1
done
printf 'SQLite format 3\0 and nothing after' >damaged.sqlite

# run_jobs NAME ARGS...: the gate with --jobs 1, 3 and 16, each in its own
# directory (out-NAME-J), its reports named the same in each
run_jobs() {
    local name=$1; shift
    for j in 1 3 16; do
        local d=out-$name-$j
        mkdir "$d"
        (cd "$d" && "$GATE" --jobs "$j" "$@" >stdout 2>stderr; echo $? >status)
    done
}

same() {   # same NAME: out-NAME-3 and out-NAME-16 are out-NAME-1, byte for byte
    for j in 1 3 16; do
        sed -i -E 's/time="[0-9]+\.[0-9]+"/time="T"/g' "out-$1-$j"/*.xml 2>/dev/null
        sed -i -E '/^\[[0-9]+\/[0-9]+\] /d' "out-$1-$j/stderr"
    done
    diff -r "out-$1-1" "out-$1-3" >&2 && diff -r "out-$1-1" "out-$1-16" >&2
}

reports=(--json v.json --junit v.xml --metrics v.prom --history h.jsonl --benchmark-json bench.json
         --html v.html)
b=() c=()
for i in 1 2 3 4 5 6; do b+=(--baseline "../b$i.sqlite"); c+=(--current "../c$i.sqlite"); done

run_jobs total "${b[@]}" "${c[@]}" --epochs 6 --verbose "${reports[@]}"
check "total mode, six runs a side: the same reports" same total
check "total mode: every report written" test -s out-total-16/v.html -a -s out-total-16/v.prom
check "total mode: the runs were compared (FAIL, exit 1)" grep -qx 1 out-total-1/status

run_jobs nvtx "${b[@]:0:8}" "${c[@]:0:8}" --epoch-range auto --kernel-threshold 1.2 \
    --verbose "${reports[@]}"
check "NVTX mode, per-kernel gates: the same reports" same nvtx

run_jobs unreadable --baseline ../b1.sqlite --baseline ../b2.sqlite --baseline ../damaged.sqlite \
    --baseline ../b4.sqlite --current ../c1.sqlite --current ../missing.sqlite --current ../c3.sqlite \
    --epochs 6 --json v.json --junit v.xml
check "runs that cannot be read: the same error and reports" same unreadable
check "the error named is the first in order (the baseline's)" \
    grep -q "damaged.sqlite" out-unreadable-16/stderr
check "... and not the current's missing run" bash -c '! grep -q "missing.sqlite" out-unreadable-16/stderr'

cat >m.json <<'EOF'
{"gates": [
  {"name": "one", "baseline": ["b1.sqlite", "b2.sqlite"], "current": ["c1.sqlite", "c2.sqlite"], "epochs": 6},
  {"name": "two", "baseline": ["b3.sqlite"], "current": ["b4.sqlite"], "epochs": 6},
  {"name": "three", "baseline": ["b5.sqlite", "b6.sqlite"], "current": ["c5.sqlite", "missing.sqlite"], "epochs": 6}
]}
EOF
run_jobs batch --manifest ../m.json --json v.json --junit v.xml --history h.jsonl
check "a batch of three gates: the same reports" same batch
check "the batch: a FAIL, a PASS and an ERROR" \
    grep -q '0 inconclusive, 1 error' out-batch-1/stdout

# The dashboard on the same pool: its site from the histories above with
# --jobs 1, 3 and 16, byte for byte (SOURCE_DATE_EPOCH: its "now").
for j in 1 3 16; do
    SOURCE_DATE_EPOCH=1765000000 "$GATE" dashboard --jobs "$j" -o "site-$j" --quiet \
        out-total-1/h.jsonl out-nvtx-1/h.jsonl out-batch-1/h.jsonl 2>"site-$j.stderr"
    echo $? >"site-$j.status"
done
check "the dashboard with --jobs 1: written (exit 0)" grep -qx 0 site-1.status
check "the dashboard with --jobs 3 and 16: the same site and messages" bash -c \
    'diff -r site-1 site-3 >&2 && diff -r site-1 site-16 >&2 && cmp site-1.stderr site-16.stderr'
check "the dashboard: a page per gate" test -s site-16/index.html

robust_done
