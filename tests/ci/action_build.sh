#!/usr/bin/env bash
# `ci/action.sh build` as the action's first step runs it on a runner: no
# NSYS_GATE_BIN, so it builds nsys-gate from $GITHUB_ACTION_PATH (this
# checkout) into $RUNNER_TEMP and says where in $GITHUB_OUTPUT.  A second
# call in the same job reuses the binary: meson and ninja are then traps.
# (apt-get is only called for missing packages; ci/test.sh installed them.)
# Then the action's gate step with that binary, as a runner runs it: the
# variables a GitHub runner sets, a workspace with the profiles, a FAIL: exit
# 1, verdict=fail in its outputs, the ::error annotation, the step summary and
# the JUnit report.
#
# Environment: SRCDIR.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-action-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/temp" "$work/traps"
export GITHUB_ACTION_PATH=$SRCDIR RUNNER_TEMP=$work/temp GITHUB_ACTIONS=true
unset NSYS_GATE_BIN

GITHUB_OUTPUT=$work/out1 bash "$SRCDIR/ci/action.sh" build >"$work/log1" 2>&1 || {
    echo "not ok - the build step failed:"; cat "$work/log1"; exit 1; }
bin=$(sed -n 's/^bin=//p' "$work/out1")
want=$work/temp/nsys-gate-build/src/nsys-gate
[ "$bin" = "$want" ] || { echo "not ok - bin='$bin', expected '$want'"; exit 1; }
"$bin" --version | grep -q '^nsys-gate ' || { echo "not ok - $bin does not run"; exit 1; }
echo "ok - built into \$RUNNER_TEMP: $bin"

for t in meson ninja apt-get sudo; do
    printf '#!/bin/sh\necho %s >>"%s/trapped"; exit 1\n' "$t" "$work" >"$work/traps/$t"
    chmod +x "$work/traps/$t"
done
PATH=$work/traps:$PATH GITHUB_OUTPUT=$work/out2 bash "$SRCDIR/ci/action.sh" build \
    >"$work/log2" 2>&1 || { echo "not ok - the second build step failed:"; cat "$work/log2"; exit 1; }
[ ! -e "$work/trapped" ] || { echo "not ok - built again: $(cat "$work/trapped")"; exit 1; }
[ "$(sed -n 's/^bin=//p' "$work/out2")" = "$want" ] || { echo "not ok - second bin"; exit 1; }
echo "ok - a second use in the job reuses it"

# The gate step, end to end with the built binary and the runner's variables.
ws=$work/workspace
mkdir "$ws"
cp "$SRCDIR/tests/golden/fixtures/kern2023_base.csv" "$SRCDIR/tests/golden/fixtures/kern2023_cur120plus1.csv" "$ws/"
: >"$work/out3" && : >"$work/summary.md"
(cd "$ws" && env -i PATH="$PATH" HOME="$work" CI=true GITHUB_ACTIONS=true \
    GITHUB_ACTION_PATH="$SRCDIR" GITHUB_WORKSPACE="$ws" RUNNER_TEMP="$work/temp" \
    RUNNER_OS=Linux RUNNER_ARCH=X64 GITHUB_EVENT_NAME=pull_request GITHUB_SHA=4f1c2a7e0b \
    GITHUB_REF_NAME=7/merge GITHUB_HEAD_REF=feature GITHUB_REPOSITORY=o/r GITHUB_RUN_ID=42 \
    GITHUB_SERVER_URL=https://github.com GITHUB_JOB=gate GITHUB_OUTPUT="$work/out3" \
    GITHUB_STEP_SUMMARY="$work/summary.md" NSYS_GATE_BIN="$bin" \
    INPUT_BASELINE=kern2023_base.csv INPUT_CURRENT=kern2023_cur120plus1.csv INPUT_EPOCHS=10 \
    INPUT_THRESHOLD= INPUT_BASELINE_EPOCHS= INPUT_CURRENT_EPOCHS= INPUT_EPOCH_RANGE= \
    INPUT_NAME= INPUT_JUNIT=nsys-gate.xml INPUT_JSON= INPUT_ARGS= \
    bash --noprofile --norc -eo pipefail "$SRCDIR/ci/action.sh" gate >"$work/log3" 2>&1)
rc=$?
[ "$rc" = 1 ] || { echo "not ok - the gate step: exit $rc, expected 1:"; cat "$work/log3"; exit 1; }
grep -qx 'verdict=fail' "$work/out3" || { echo "not ok - no verdict=fail in the outputs"; cat "$work/out3"; exit 1; }
grep -q '^::error title=nsys-gate%3A gpu-time-per-epoch::FAIL: per-epoch regression' "$work/log3" ||
    { echo "not ok - no ::error annotation:"; cat "$work/log3"; exit 1; }
grep -q 'FAIL' "$work/summary.md" || { echo "not ok - the step summary says no FAIL"; exit 1; }
grep -q 'actions/runs/42' "$ws/nsys-gate.xml" ||
    { echo "not ok - no JUnit report naming the run in the workspace"; exit 1; }
echo "ok - the gate step with the built binary and a runner's variables: FAIL, exit 1"

# A summary as the baseline (kilobytes, e.g. main's), and write-summary: the
# current run's summary, its path in the outputs, for the next runs to gate
# against; ranks: true folds the paths as the ranks of one run.
"$bin" summarize --quiet -o "$ws/base.summary.json.gz" "$ws/kern2023_base.csv" ||
    { echo "not ok - summarize"; exit 1; }
step() {  # OUT RANKS CURRENT: the gate step with a summary baseline
    (cd "$ws" && env -i PATH="$PATH" HOME="$work" CI=true GITHUB_ACTIONS=true \
        GITHUB_ACTION_PATH="$SRCDIR" GITHUB_WORKSPACE="$ws" RUNNER_TEMP="$work/temp" \
        GITHUB_OUTPUT="$work/$1" GITHUB_STEP_SUMMARY="$work/summary.md" NSYS_GATE_BIN="$bin" \
        INPUT_BASELINE=base.summary.json.gz INPUT_CURRENT="$3" INPUT_EPOCHS=10 \
        INPUT_RANKS="$2" INPUT_WRITE_SUMMARY=pr.summary.json.gz INPUT_THRESHOLD= \
        INPUT_BASELINE_EPOCHS= INPUT_CURRENT_EPOCHS= INPUT_EPOCH_RANGE= INPUT_NAME= \
        INPUT_JUNIT= INPUT_JSON= INPUT_ARGS= \
        bash --noprofile --norc -eo pipefail "$SRCDIR/ci/action.sh" gate >"$work/$1.log" 2>&1)
}
: >"$work/out4"
step out4 '' kern2023_base.csv
rc=$?
[ "$rc" = 0 ] || { echo "not ok - summary baseline: exit $rc:"; cat "$work/out4.log"; exit 1; }
grep -qx 'verdict=pass' "$work/out4" && grep -qx 'summary=pr.summary.json.gz' "$work/out4" ||
    { echo "not ok - outputs of the summary step:"; cat "$work/out4"; exit 1; }
gzip -dc "$ws/pr.summary.json.gz" | grep -q '^{"nsys_gate_summary":1,' ||
    { echo "not ok - pr.summary.json.gz is not a summary"; exit 1; }
"$bin" --epochs 10 "$ws/base.summary.json.gz" "$ws/pr.summary.json.gz" >/dev/null ||
    { echo "not ok - the written summary does not gate as the profile"; exit 1; }
echo "ok - a summary as the baseline, write-summary writes the current run's (output summary)"
rm -f "$ws/pr.summary.json.gz"
: >"$work/out5"
step out5 maybe kern2023_base.csv
rc=$?
[ "$rc" = 2 ] && grep -qx 'verdict=error' "$work/out5" && [ ! -e "$ws/pr.summary.json.gz" ] &&
    grep -q "input 'ranks' is 'maybe'" "$work/out5.log" ||
    { echo "not ok - ranks: maybe: exit $rc:"; cat "$work/out5.log"; exit 1; }
: >"$work/out6"
step out6 true 'kern2023_base*.csv'
rc=$?
[ "$rc" = 0 ] && grep -qx 'summary=pr.summary.json.gz' "$work/out6" ||
    { echo "not ok - ranks: true: exit $rc:"; cat "$work/out6.log"; exit 1; }
echo "ok - ranks: true passes --ranks (a glob), anything but true/false is refused"
