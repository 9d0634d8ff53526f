#!/usr/bin/env bash
# Parallel .nsys-rep exports, with a STUB nsys: real nsys cannot take a
# known time, hang or fail on demand.  The stub's behaviour comes from the
# report's content ("NVIDIA Tegra Profiler Report <what>"):
#   slow-N   sleeps 1.5 s, then exports (N only makes the reports differ)
#   hang     records its pid, starts a child, and waits for ever
#   fail     prints nsys-like progress bars and fails (exit 1)
# It answers --version with exit 1, so the cache is not used and every
# export goes to a private directory under $TMPDIR, which the checks look at.
#
#   1. two slow exports with --jobs 2 take the time of one; with --jobs 1,
#      of two (so the exports really ran at once, and --jobs bounds them).
#   2. one hangs and one fails, at once: the gate ends at the time limit,
#      not later, names the first failure in order (the baseline's), writes
#      every requested report, and leaves no nsys and no temporary file.
#   3. SIGTERM while two exports hang: the gate dies of the signal, both
#      stubs and their children are killed, no temporary file is left, and
#      a report written by an earlier run is left whole.
#   4. batch mode: two gates at once, each with two reports to export,
#      under --jobs 2: never more than two exports at once across the gates
#      (the gates share the batch's export slots), and no slot left behind.
#
# Environment: GATE, GENTRACE.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-par.XXXXXX")
trap 'for p in "$work"/*.pid; do [ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done; rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir tmp
export TMPDIR=$work/tmp XDG_CACHE_HOME=$work/cache
"$GENTRACE" -o export.sqlite --kernels 300 --names 3 --no-nvtx >/dev/null || exit 1
for what in slow-1 slow-2 slow-3 slow-4 hang-1 hang-2 fail; do
    printf 'NVIDIA Tegra Profiler Report %s' "$what" >"$what.nsys-rep"
done
cat >nsys <<EOF
#!/bin/sh
# STUB nsys (see the top of parallel-exports.sh)
[ "\$1" = --version ] && exit 1
for a; do in=\$a; done
while [ "\$1" != --output ]; do shift; done; out=\$2
what=\$(tail -c +30 "\$in")
echo "\$what \$(date +%s%N)" >>"$work/starts.log"
case \$what in
slow-*) echo "+1 \$(date +%s%N)" >>"$work/running.log"; sleep 1.5; cp "$work/export.sqlite" "\$out"
        echo "-1 \$(date +%s%N)" >>"$work/running.log" ;;
hang-*) echo \$\$ >"$work/\$what.pid"; sleep 600 & echo \$! >"$work/\$what-child.pid"; wait ;;
fail) printf '\rProcessing [==  40%%   ]\rProcessing [====100%%]\n' >&2; echo "Exportation error: cannot read" >&2; exit 1 ;;
esac
EOF
chmod +x nsys

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
dead() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
dead_pidfile() { local p; p=$(cat "$1") && { for _ in $(seq 30); do dead "$p" && return 0; sleep 0.1; done; return 1; }; }
no_tmp_left() { [ -z "$(ls -A tmp)" ]; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# 1. two slow exports: at once with --jobs 2, one after the other with --jobs 1
start=$(date +%s%N)
"$GATE" --nsys ./nsys --jobs 2 slow-1.nsys-rep slow-2.nsys-rep >par.out 2>par.err
rc=$? ms2=$(ms_since "$start")
start=$(date +%s%N)
"$GATE" --nsys ./nsys --jobs 1 slow-1.nsys-rep slow-2.nsys-rep >seq.out 2>seq.err
ms1=$(ms_since "$start")
check "--jobs 2: exit 0" test "$rc" = 0
check "--jobs 2: two 1.5 s exports took ${ms2} ms (< 2600)" test "$ms2" -lt 2600
check "--jobs 1: one after the other, ${ms1} ms (>= 3000)" test "$ms1" -ge 3000
check "--jobs 1 and 2: the same verdict" cmp -s par.out seq.out
check "slow exports: no temporary file left" no_tmp_left

# 2. one hangs, one fails, at once
rm -f starts.log ./*.pid
start=$(date +%s%N)
"$GATE" --nsys ./nsys --jobs 2 --nsys-timeout 2 --json v.json --junit v.xml \
    hang-1.nsys-rep fail.nsys-rep >hf.out 2>hf.err
rc=$? ms=$(ms_since "$start")
check "hang + fail: exit 2" test "$rc" = 2
check "hang + fail: both exports started at once" test "$(wc -l <starts.log)" = 2 -a \
    "$(awk 'NR==1{a=$2} NR==2{b=$2} END{d=(b-a)/1e6; print (d<0?-d:d) < 1000}' starts.log)" = 1
check "hang + fail: ended at the time limit, ${ms} ms (< 4000)" test "$ms" -lt 4000
check "hang + fail: one ERROR line, the baseline's (the first in order)" \
    test "$(grep -c '^ERROR: ' hf.err)" = 1 -a -n "$(grep "^ERROR: nsys export of 'hang-1.nsys-rep' did not finish in 2 s" hf.err)"
check "hang + fail: the JSON verdict is written, an error" \
    "${PYTHON:-python3}" -c 'import json,sys; sys.exit(json.load(open("v.json"))["verdict"] != "error")'
check "hang + fail: the JUnit report is written, with an <error>" grep -q '<error' v.xml
check "hang + fail: the hanging stub was killed" dead_pidfile hang-1.pid
check "hang + fail: its child was killed" dead_pidfile hang-1-child.pid
check "hang + fail: no temporary file left" no_tmp_left
# the failing one's words, without its progress bars, when it is first
"$GATE" --nsys ./nsys --jobs 2 --nsys-timeout 2 fail.nsys-rep hang-1.nsys-rep >fh.out 2>fh.err
check "fail + hang: the failure named, nsys's words kept, no progress bar" \
    grep -q "^ERROR: nsys export failed for 'fail.nsys-rep' (exit 1): Exportation error: cannot read$" fh.err

# 3. SIGTERM while two exports hang
echo '{"kept": true}' >old.json
rm -f ./*.pid
setsid "$GATE" --nsys ./nsys --jobs 2 --json old.json hang-1.nsys-rep hang-2.nsys-rep >term.out 2>term.err &
g=$!
for _ in $(seq 100); do [ -s hang-1-child.pid ] && [ -s hang-2-child.pid ] && break; sleep 0.05; done
check "SIGTERM: both exports were running" test -s hang-1-child.pid -a -s hang-2-child.pid
kill -TERM "$g"
wait "$g"
rc=$?
check "SIGTERM: the gate died of it (status $rc)" test "$rc" = 143
for p in hang-1 hang-1-child hang-2 hang-2-child; do
    check "SIGTERM: $p killed" dead_pidfile "$p.pid"
done
check "SIGTERM: no temporary file left" no_tmp_left
check "SIGTERM: the earlier report is whole, nothing beside it" \
    test "$(cat old.json)" = '{"kept": true}' -a -z "$(ls -A | grep '^\.old\.json')"

# 4. a batch: the export limit holds across its gates
cat >m.json <<'EOF'
{"gates": [{"name": "g1", "baseline": "slow-1.nsys-rep", "current": "slow-2.nsys-rep"},
           {"name": "g2", "baseline": "slow-3.nsys-rep", "current": "slow-4.nsys-rep"}]}
EOF
rm -f running.log
"$GATE" --nsys ./nsys --manifest m.json --jobs 2 >batch.out 2>batch.err
rc=$?
most=$(sort -k2,2n running.log | awk '{n += $1; if (n > m) m = n} END {print m + 0}')
check "batch: exit 0" test "$rc" = 0
check "batch: 4 exports, at most $most at once (<= 2, --jobs 2 across both gates)" \
    test "$(grep -c '^+' running.log)" = 4 -a "$most" -le 2
check "batch: two did run at once" test "$most" = 2
check "batch: no temporary file (nor slot) left" no_tmp_left

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
