#!/usr/bin/env bash
# ci/demo.sh as a newcomer runs it, into a fresh build directory: it says
# what it builds and shows progress while building, and its output ends
# with the two verdicts (a PASS with exit 0, a FAIL with exit 1) and where
# the reports are, which are there; the whole output fits a screen or two.
#
# Environment: SRCDIR.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
NSYS_GATE_DEMO_BUILD=$work/build bash "$SRCDIR/ci/demo.sh" >"$work/out" 2>&1
rc=$?
fail() { echo "not ok - $*"; echo "--- ci/demo.sh said:"; cat "$work/out"; exit 1; }
[ "$rc" = 0 ] || fail "ci/demo.sh: exit $rc"
head -n 1 "$work/out" | grep -q '^building nsys-gate' || fail "the first line does not say what it builds"
grep -qE '^  \[[0-9]+/[0-9]+\] [0-9]+%$' "$work/out" || fail "no progress while building"
lines=$(wc -l <"$work/out")
[ "$lines" -le 60 ] || fail "$lines lines of output: the verdicts scroll away"
tail -n 5 "$work/out" >"$work/end"
sed -n 1p "$work/end" | grep -qx 'demo done; the two verdicts:' || fail "the end does not announce the verdicts"
sed -n 2p "$work/end" | grep -qE '^  PASS: per-epoch within .*\(exit 0\)$' || fail "no PASS verdict at the end"
sed -n 3p "$work/end" | grep -qE '^  FAIL: per-epoch regression .*\(exit 1\)$' || fail "no FAIL verdict at the end"
sed -n 4p "$work/end" | grep -qF "reports in $work/build/demo/:" || fail "the end does not say where the reports are"
for f in pass.json pass.xml pass.html fail.json fail.xml fail.html; do
    [ -s "$work/build/demo/$f" ] || fail "$f not written"
done
echo "ok - ci/demo.sh: progress while building, $lines lines, ends with the two verdicts"
