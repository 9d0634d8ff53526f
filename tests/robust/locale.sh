#!/usr/bin/env bash
# Locale and time zone never change what the gate writes.  A de_DE.UTF-8
# locale (',' decimals, '.' thousands) is generated into a private
# directory with localedef (LOCPATH), and every output -- the human lines,
# --print-profile, errors, JSON, JUnit, OpenMetrics, github-action-benchmark
# JSON, the history line, the GitHub step summary and outputs -- of a set
# of runs (total and NVTX mode, SQLite and nsys stats inputs in ms/us with
# thousands separators, a usage error) must be byte-identical between
# LC_ALL=C TZ=UTC and LC_ALL=de_DE.UTF-8 TZ=Asia/Tokyo.  Without
# SOURCE_DATE_EPOCH, the timestamps are UTC whatever TZ says.
#
# So that the comparison is known to have teeth, it is also run with a
# shim preloaded that makes the gate adopt the environment's locale (what
# it must never do): then some output must differ.
#
# Environment: GATE, GENTRACE, SRCDIR, SETLOCALE_SHIM (the shim module).
# Exit 77 (skip) without localedef and the de_DE source (Debian package
# `locales`), except under CI=true, where that is a failure.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-locale.XXXXXX")
trap '[ -n "${NG_KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1
fixtures=$SRCDIR/tests/golden/fixtures

skip() {
    if [ "${CI:-}" = true ]; then
        echo "not ok - prerequisites: $* (CI=true: a skip is a failure)"
        exit 1
    fi
    echo "locale: skipped: $*"
    exit 77
}
command -v localedef >/dev/null || skip "no localedef (apt-get install locales)"
mkdir locales
# localedef exits 1 on warnings even when it wrote the locale
localedef -i de_DE -f UTF-8 "$work/locales/de_DE.UTF-8" >localedef.log 2>&1
[ -f locales/de_DE.UTF-8/LC_NUMERIC ] || skip "localedef could not build de_DE.UTF-8: $(tail -n 1 localedef.log)"
de=(LOCPATH="$work/locales" LC_ALL=de_DE.UTF-8 TZ=Asia/Tokyo)
c=(LC_ALL=C TZ=UTC)

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
check "the generated locale is in effect (printf 1.5 -> 1,5; 1234567 -> 1.234.567)" \
    test "$(env "${de[@]}" /usr/bin/printf "%.1f %'d" 1.5 1234567)" = "1,5 1.234.567"
check "Asia/Tokyo is 9 hours off UTC" test "$(env TZ=Asia/Tokyo date -d @0 +%H)" = 09

"$GENTRACE" -o base.sqlite --kernels 400 --names 6 --epochs 6 --jitter 0.05 --seed 1 >/dev/null &&
    "$GENTRACE" -o cur.sqlite --kernels 400 --names 6 --epochs 6 --jitter 0.05 --seed 2 \
        --scale 1.35 >/dev/null || exit 1
cp "$fixtures/kern2022_gb_us.csv" "$fixtures/column_default.txt" "$fixtures/kern2023_base.csv" .

# run TAG ENV... -- GATE-ARGS...: runs the gate in its own directory
# TAG/, stdout and stderr kept; its files are named in the arguments.
run() {
    local tag=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    mkdir -p "$tag"
    (cd "$tag" && env "${envs[@]}" GITHUB_STEP_SUMMARY=summary.md GITHUB_OUTPUT=outputs.txt \
        "$GATE" "$@" >stdout 2>stderr; echo $? >status)
}
all_runs() {   # all_runs PREFIX ENV...
    local p=$1; shift
    local s=(SOURCE_DATE_EPOCH=1700000000 "$@")
    run "$p/total" "${s[@]}" -- --epochs 4 --json v.json --junit j.xml --metrics m.txt \
        --benchmark-json b.json --history h.jsonl --github ../../base.sqlite ../../cur.sqlite
    run "$p/nvtx" "${s[@]}" -- --epoch-range auto --json v.json --junit j.xml --metrics m.txt \
        --verbose ../../base.sqlite ../../cur.sqlite
    run "$p/csv" "${s[@]}" -- --threshold 1.25 --json v.json --junit j.xml --verbose \
        ../../kern2022_gb_us.csv ../../column_default.txt
    run "$p/print" "${s[@]}" -- --print-profile ../../column_default.txt ../../kern2022_gb_us.csv
    run "$p/usage" "${s[@]}" -- --threshold 1,2 --json v.json ../../kern2023_base.csv ../../kern2023_base.csv
}
all_runs c "${c[@]}"
all_runs de "${de[@]}"

# the elapsed time differs from run to run: nothing else may
normalise() { sed -E 's/time="[0-9]+\.[0-9]{3}"/time="T"/g; s/"elapsed_s":[^,}]*/"elapsed_s":T/g' "$1"; }
same_tree() {   # same_tree DIR-A DIR-B: every file byte-identical once normalised
    local f ok=0
    [ "$(cd "$1" && find . -type f | sort)" = "$(cd "$2" && find . -type f | sort)" ] || return 1
    for f in $(cd "$1" && find . -type f | sort); do
        if ! cmp -s <(normalise "$1/$f") <(normalise "$2/$f"); then
            echo "# differs: $f"
            diff <(normalise "$1/$f") <(normalise "$2/$f") | head -n 6 | sed 's/^/#   /'
            ok=1
        fi
    done
    return $ok
}
check "the C-locale runs say something with decimals (the comparison has substance)" \
    grep -qE '[0-9]\.[0-9]' c/total/stdout c/total/v.json c/total/m.txt c/csv/stdout
check "the C runs ended as expected (total: FAIL 1, print: 0, usage error: 2)" \
    test "$(cat c/total/status c/print/status c/usage/status | tr '\n' ' ')" = "1 0 2 "
check "de_DE.UTF-8 + Asia/Tokyo: every output byte-identical to C + UTC" same_tree c de

# Timestamps without SOURCE_DATE_EPOCH: UTC ("Z") whatever TZ says.
run now "${de[@]}" -- --json v.json --junit j.xml ../kern2023_base.csv ../kern2023_base.csv
stamp=$(sed -nE 's/^\t"timestamp":\t"([^"]*)",?$/\1/p' now/v.json)
skew=$(( $(date -u +%s) - $(date -u -d "$stamp" +%s 2>/dev/null || echo 0) ))
check "TZ=Asia/Tokyo: the JSON timestamp $stamp is UTC, within 2 minutes of now" \
    test "${stamp: -1}" = Z -a "${skew#-}" -lt 120
check "TZ=Asia/Tokyo: the JUnit timestamp is the same instant without a zone" \
    grep -q "timestamp=\"${stamp%Z}\"" now/j.xml

# The control: a gate that took the environment's locale would be caught.
if [ -n "${SETLOCALE_SHIM:-}" ] && [ -f "$SETLOCALE_SHIM" ]; then
    all_runs shim "${de[@]}" LD_PRELOAD="$SETLOCALE_SHIM" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
    if same_tree c shim >/dev/null; then
        fail=$((fail + 1)); echo "not ok - control: a locale-following gate went unnoticed"
    else
        pass=$((pass + 1)); echo "ok - control: a locale-following gate is caught (e.g. $(diff c/total/stdout shim/total/stdout | sed -n '/^>/{p;q}' | cut -c1-90))"
    fi
else
    echo "# no SETLOCALE_SHIM: control skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
