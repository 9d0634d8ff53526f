#!/usr/bin/env bash
# Builds nsys-gate and runs it on example profiles it makes itself (SQLite
# exports in the nsys schema, written by the project's generator): one
# comparison that passes and one that fails, each writing a JSON verdict
# and a JUnit report into build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/deps.sh
ng_need_packages build

if [ -d build ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build >/dev/null
gate=build/src/nsys-gate
gen=build/tests/tools/gentrace
demo=build/demo
rm -rf "$demo" && mkdir -p "$demo"

# A training job's trace: 5 epochs, 6 kernels.  The "tuned" run is 4% slower
# overall (noise); the "regressed" run has its heaviest kernel 1.6x slower.
"$gen" -o "$demo/baseline.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 >/dev/null
"$gen" -o "$demo/current-ok.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 --scale 1.04 >/dev/null
"$gen" -o "$demo/current-regressed.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 --slow 3:1.6 >/dev/null

run() {
    echo
    echo "\$ nsys-gate $*"
    set +e
    "$gate" "$@"
    local rc=$?
    set -e
    echo "(exit status $rc)"
}

run --epochs 5 --name demo-pass --json "$demo/pass.json" --junit "$demo/pass.xml" \
    "$demo/baseline.sqlite" "$demo/current-ok.sqlite"
run --epochs 5 --name demo-fail --json "$demo/fail.json" --junit "$demo/fail.xml" \
    "$demo/baseline.sqlite" "$demo/current-regressed.sqlite"

echo
echo "--- $demo/fail.json"
cat "$demo/fail.json"
echo "--- $demo/fail.xml"
cat "$demo/fail.xml"
echo
echo "demo done: reports are in $demo/ (pass.json, pass.xml, fail.json, fail.xml)"
