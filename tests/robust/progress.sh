#!/usr/bin/env bash
# Progress lines of long exports, with a STUB nsys that takes a KNOWN TIME
# (real nsys cannot be made slow on demand; it stays in the conformance and
# cache suites).  "slow" reports take 2.6 s to export, "fast" ones none.
#
#   1. stderr not a terminal (a CI log): a slow export gets one line once
#      it has run 2 s and one when it ends, naming the report, the nsys and
#      the seconds; a fast one says nothing.
#   2. stderr a pseudo-terminal (python's pty): one line redrawn in place
#      (carriage return, erase) with the elapsed seconds, then the end line.
#   3. stdout and the reports (JSON, JUnit) are byte for byte the same with
#      progress on a file, on a terminal, under --quiet, and for a fast
#      export that shows none; --json - keeps stdout the JSON alone.
#   4. --quiet silences it; nsys's own progress bars never show.
#   5. batch mode: each gate is told as it finishes ("[1/2] fast: PASS ..."),
#      a gate's export lines name the gate, stdout is the same as when
#      no export is slow, and --quiet silences it.
#
# Environment: GATE, GENTRACE.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-progress.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir tmp
export TMPDIR=$work/tmp SOURCE_DATE_EPOCH=1700000000
unset NSYS_GATE_QUIET
"$GENTRACE" -o export.sqlite --kernels 300 --names 3 --no-nvtx >/dev/null || exit 1
printf 'NVIDIA Tegra Profiler Report slow' >slow.nsys-rep
printf 'NVIDIA Tegra Profiler Report fast' >fast.nsys-rep
cat >nsys <<EOF
#!/bin/sh
# STUB nsys (see the top of progress.sh): known time, nsys-like bars
[ "\$1" = --version ] && exit 1
for a; do in=\$a; done
while [ "\$1" != --output ]; do shift; done; out=\$2
printf '\rProcessing 30 events: [==  40%%   ]\rProcessing 30 events: [====100%%]\n' >&2
[ "\$(tail -c +30 "\$in")" = slow ] && sleep 2.6
cp "$work/export.sqlite" "\$out"
EOF
chmod +x nsys

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
# the reports, with the one figure that is a measured time set aside
# (the fast report differs from the slow one only in its name)
norm() { sed -E 's/"elapsed_s": *[0-9.e+-]+/"elapsed_s": T/; s/ time="[0-9.]+"/ time="T"/g; s/fast\.nsys-rep/slow.nsys-rep/g' "$1"; }
run() {   # run TAG REPORT [OPTION...]: stdout, stderr, reports under TAG
    local tag=$1 rep=$2; shift 2
    "$GATE" --nsys "$work/nsys" --json "$tag.json" --junit "$tag.xml" "$@" "$rep" "$rep" \
        >"$tag.out" 2>"$tag.err"
}

# 1. not a terminal
run file slow.nsys-rep
n='[0-9]+\.[0-9]'
check "file: two lines on stderr" test "$(wc -l <file.err)" = 2
check "file: the start line, once it ran 2 s" \
    grep -qE "^nsys-gate: exporting 'slow.nsys-rep' with '$work/nsys', 2\.[0-9] s so far$" file.err
check "file: the end line, with the seconds and the size" \
    grep -qE "^nsys-gate: exported 'slow.nsys-rep' in 2\.[6-9] s \($n MB of SQLite\)$" file.err
run fast fast.nsys-rep
check "fast export: nothing on stderr" test ! -s fast.err

# 2. a pseudo-terminal on stderr (stdout to a file)
"${PYTHON:-python3}" - "$GATE" "$work" <<'PY'
import os, pty, subprocess, sys
gate, work = sys.argv[1:3]
master, slave = pty.openpty()
with open(work + "/tty.out", "wb") as out:
    p = subprocess.Popen([gate, "--nsys", work + "/nsys", "--json", "tty.json", "--junit", "tty.xml",
                          "slow.nsys-rep", "slow.nsys-rep"],
                         stdout=out, stderr=slave, stdin=subprocess.DEVNULL, cwd=work,
                         env=dict(os.environ, TERM="xterm"))
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
open(work + "/tty.err", "wb").write(seen)
PY
check "tty: the line is redrawn in place (carriage return, erase)" grep -q $'\r\033\[K' tty.err
check "tty: it counts the seconds" test "$(grep -aoE "exporting 'slow.nsys-rep' [0-9]+\.[0-9] s" tty.err | sort -u | wc -l)" -ge 5
check "tty: the end line" grep -aqE "nsys-gate: exported 'slow.nsys-rep' in 2\.[6-9] s \($n MB of SQLite\)" tty.err
check "tty: the last thing on the terminal is the end line (the live line erased)" \
    test "$(tail -c 200 tty.err | tr '\r' '\n' | grep -av '^$' | tail -n 1 | sed 's/\x1b\[K//g')" != "" -a \
    -n "$(tail -c 200 tty.err | tr '\r' '\n' | tail -n 2 | grep -a 'exported')"

# 3. the same stdout and reports, whatever progress showed
run quiet slow.nsys-rep --quiet
check "--quiet: nothing on stderr" test ! -s quiet.err
for tag in tty fast; do
    check "stdout: $tag the same as file" cmp -s file.out "$tag.out"
done
check "stdout: the human line is there" grep -q '^PASS: ' file.out
for tag in tty quiet fast; do
    for ext in json xml; do
        check "$ext report: $tag the same as file" cmp -s <(norm "file.$ext") <(norm "$tag.$ext")
    done
done
"$GATE" --nsys "$work/nsys" --json - slow.nsys-rep slow.nsys-rep >js.out 2>js.err
check "--json -: stdout is the JSON alone" "${PYTHON:-python3}" -c 'import json,sys; json.load(open(sys.argv[1]))' js.out
check "--json -: the progress went to stderr" grep -q "^nsys-gate: exported 'slow.nsys-rep'" js.err

# 4. nsys's own bars, never
check "nsys's progress bars never shown" test -z "$(cat file.err tty.err quiet.err js.err | grep -a 'Processing')"

# 5. batch mode
cat >m.json <<'EOF'
{"gates": [{"name": "slow", "baseline": "slow.nsys-rep", "current": "slow.nsys-rep"},
           {"name": "fast", "baseline": "fast.nsys-rep", "current": "fast.nsys-rep"}]}
EOF
sed 's/"slow.nsys-rep"/"fast.nsys-rep"/g' m.json >m-fast.json
"$GATE" --nsys "$work/nsys" --manifest m.json --jobs 2 --json b.json >b.out 2>b.err
"$GATE" --nsys "$work/nsys" --manifest m-fast.json --jobs 2 --json bf.json >bf.out 2>bf.err
"$GATE" --nsys "$work/nsys" --manifest m.json --jobs 2 --json bq.json --quiet >bq.out 2>bq.err
check "batch: the fast gate told first, as [1/2]" grep -qE '^\[1/2\] fast: PASS: .* \([0-9]+\.[0-9] s\)$' b.err
check "batch: the slow gate told second, as [2/2]" grep -qE '^\[2/2\] slow: PASS: .* \(2\.[6-9] s\)$' b.err
check "batch: the slow gate's export lines name it" \
    test "$(grep -cE "^nsys-gate: slow: export(ing|ed) 'slow.nsys-rep'" b.err)" = 2
check "batch: stdout the same as without a slow export" cmp -s b.out bf.out
check "batch: --quiet says nothing on stderr" test ! -s bq.err
check "batch: the JSON the same with --quiet" cmp -s <(norm b.json) <(norm bq.json)

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
