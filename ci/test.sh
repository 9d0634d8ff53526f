#!/usr/bin/env bash
# Installs what the tests need, builds with warnings as errors, and runs
# every suite: unit, golden, parity, conformance, fuzz (corpus replay), and
# valgrind (the golden cases with the gate under valgrind).
#
#   ci/test.sh              the whole suite (build in build-test/)
#   ci/test.sh --sanitize   the same, built with AddressSanitizer and UBSan
#                           (build-asan/; without the valgrind suite, which
#                           cannot run sanitized binaries)
#   ci/test.sh -- ARGS      extra arguments for `meson test`, e.g. --suite unit
#
# Under CI=true a skipped conformance suite counts as a failure, unless
# NSYS_GATE_CONFORMANCE=optional (a pipeline without ../shared on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/deps.sh

builddir=build-test
# Debian's Python, where ng_need_packages put the modules the tests use
setup_args=(--werror --buildtype=debugoptimized -Dtests=enabled -Dpython=/usr/bin/python3)
meson_args=()
while [ $# -gt 0 ]; do
    case $1 in
    --sanitize)
        builddir=build-asan
        setup_args+=(-Db_sanitize=address,undefined -Db_lundef=false)
        ;;
    --) shift; meson_args=("$@"); break ;;
    *) echo "usage: ci/test.sh [--sanitize] [-- MESON-TEST-ARGS]" >&2; exit 2 ;;
    esac
    shift
done

ng_need_packages test
ng_need_node_modules

if [ -d "$builddir" ]; then
    meson setup --reconfigure "$builddir" "${setup_args[@]}" >/dev/null
else
    meson setup "$builddir" "${setup_args[@]}" >/dev/null
fi
ninja -C "$builddir"

# Fetch real nsys before the tests so the conformance suite's time is its own.
if [ -d ../shared/nsys-samples ]; then
    ci/fetch-nsys.sh 2023.4 >/dev/null || echo "note: nsys 2023.4 could not be fetched" >&2
    ci/fetch-nsys.sh 2022.4 >/dev/null || echo "note: nsys 2022.4 could not be fetched" >&2
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
set +e
meson test -C "$builddir" --print-errorlogs --num-processes 2 "${meson_args[@]}" | tee "$builddir/test-output.txt"
rc=${PIPESTATUS[0]}
set -e

# One closing line every CI reader understands.
count() { grep -E "^$1: +[0-9]+" "$builddir/test-output.txt" | tail -n 1 | grep -oE '[0-9]+' || echo 0; }
ok=$(count Ok)
failed=$(( $(count Fail) + $(count Timeout) + $(count 'Unexpected Pass') ))
skipped=$(count Skipped)
if [ "${CI:-}" = true ] && [ "${NSYS_GATE_CONFORMANCE:-}" != optional ] && grep -qE '^ *[0-9]+/[0-9]+ +conformance *- *[a-z]+ +SKIP' "$builddir/test-output.txt"; then
    echo "ERROR: the conformance suite was skipped; under CI=true it must run" >&2
    failed=$((failed + 1))
    rc=1
fi
# The browser suite skips itself only outside CI; it must also not be left out.
if [ "${CI:-}" = true ] && [ ${#meson_args[@]} -eq 0 ] && ! grep -qE '^ *[0-9]+/[0-9]+ +nsys-gate:html / browser +OK' "$builddir/test-output.txt"; then
    echo "ERROR: the html suite's browser test did not pass; under CI=true it must run" >&2
    failed=$((failed + 1))
    rc=1
fi
echo "Screenshots of the pages: $builddir/tests/html/html-artifacts/"
echo "JUnit of this run: $builddir/meson-logs/testlog.junit.xml"
echo "tests: $ok passed, $failed failed, $skipped skipped"
exit "$rc"
