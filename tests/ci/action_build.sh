#!/usr/bin/env bash
# `ci/action.sh build` as the action's first step runs it on a runner: no
# NSYS_GATE_BIN, so it builds nsys-gate from $GITHUB_ACTION_PATH (this
# checkout) into $RUNNER_TEMP and says where in $GITHUB_OUTPUT.  A second
# call in the same job reuses the binary: meson and ninja are then traps.
# (apt-get is only called for missing packages; ci/test.sh installed them.)
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
