#!/usr/bin/env bash
# Builds nsys-gate and runs it on example profiles it makes itself (SQLite
# exports in the nsys schema, written by the project's generator): one
# comparison that passes and one that fails, each writing a JSON verdict,
# a JUnit report and an HTML page into build/demo/.  It ends with the two
# verdicts and where the reports are.
#
# NSYS_GATE_DEMO_BUILD: the build directory (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/deps.sh
ng_need_packages build

build=${NSYS_GATE_DEMO_BUILD:-build}
echo "building nsys-gate and the profile generator into $build/ (a minute or two the first time)"
if [ -d "$build" ]; then
    meson setup --reconfigure "$build" >/dev/null
else
    meson setup "$build" -Dtests=disabled >/dev/null
fi
# ninja's progress, one line each tenth of the way (its own line when on a terminal)
if [ -t 1 ]; then
    ninja -C "$build" src/nsys-gate tests/tools/gentrace
else
    ninja -C "$build" src/nsys-gate tests/tools/gentrace |
        awk '/^\[[0-9]+\/[0-9]+\]/ { split(substr($1, 2), n, "[]/]"); p = int(100 * n[1] / n[2])
                                     if (p >= shown + 10 || n[1] == n[2]) { print "  [" n[1] "/" n[2] "] " p "%"; shown = p }
                                     next }
             !/^ninja: (Entering|Leaving) directory/ { print }'
fi
echo "built $build/src/nsys-gate"
gate=$build/src/nsys-gate
gen=$build/tests/tools/gentrace
demo=$build/demo
rm -rf "$demo" && mkdir -p "$demo"

# A training job's trace: 5 epochs, 6 kernels.  The "tuned" run is 4% slower
# overall (noise); the "regressed" run has its heaviest kernel 1.6x slower.
"$gen" -o "$demo/baseline.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 >/dev/null
"$gen" -o "$demo/current-ok.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 --scale 1.04 >/dev/null
"$gen" -o "$demo/current-regressed.sqlite" --kernels 6000 --names 6 --epochs 5 --seed 7 --slow 3:1.6 >/dev/null

verdicts=()
run() {
    local name=$1; shift
    echo
    echo "\$ nsys-gate $*"
    set +e
    "$gate" "$@" | tee "$demo/$name.txt"
    local rc=${PIPESTATUS[0]}
    set -e
    echo "(exit status $rc)"
    verdicts+=("$(head -n 1 "$demo/$name.txt")  (exit $rc)")
}

run pass --epochs 5 --name demo-pass --json "$demo/pass.json" --junit "$demo/pass.xml" \
    --html "$demo/pass.html" "$demo/baseline.sqlite" "$demo/current-ok.sqlite"
run fail --epochs 5 --name demo-fail --json "$demo/fail.json" --junit "$demo/fail.xml" \
    --html "$demo/fail.html" "$demo/baseline.sqlite" "$demo/current-regressed.sqlite"

echo
echo "demo done; the two verdicts:"
printf '  %s\n' "${verdicts[@]}"
echo "reports in $demo/: pass.json pass.xml pass.html, fail.json fail.xml fail.html"
echo "(open $demo/fail.html in a browser for the page of the FAIL)"
