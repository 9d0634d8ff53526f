#!/usr/bin/env bash
# The .nsys-rep export cache with real nsys 2023.4 (ci/fetch-nsys.sh) on
# the real reports in ../shared/nsys-samples: miss then hit, concurrent
# fill, a corrupt entry rebuilt, an nsys version change, pruning by size
# and age, --no-cache, an unusable cache directory.
#
# nsys runs through a small WRAPPER that logs each `export` call (to count
# them) and then runs the real nsys.  For the version-change case the
# wrapper also answers --version with another version string: real nsys
# cannot change its version on demand, so that one answer is a stand-in;
# the export itself is still real nsys's.
#
# Environment: GATE, SRCDIR, SHARED.  Exit 77 (skip) without real nsys or
# the samples, except under CI=true (NSYS_GATE_CONFORMANCE=optional
# excepted), where that is a failure.
set -u
samples="${SHARED:-$SRCDIR/../shared}/nsys-samples"
skip() {
    if [ "${CI:-}" = true ] && [ "${NSYS_GATE_CONFORMANCE:-}" != optional ]; then
        echo "not ok - prerequisites: $* (CI=true: a skip is a failure)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "cache: skipped: $*"
    exit 77
}
[ -f "$samples/05_ayush_vector_add_v3_nsys2023.1.2.nsys-rep" ] || skip "no $samples"
real=$("$SRCDIR/ci/fetch-nsys.sh" 2023.4 2>/dev/null) || skip "real nsys 2023.4 could not be fetched"

work=$(mktemp -d "${TMPDIR:-/tmp}/ng-cache.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$samples/05_ayush_vector_add_v3_nsys2023.1.2.nsys-rep" v3.nsys-rep
cp "$samples/05b_ayush_vector_add_v2_nsys2023.1.2.nsys-rep" v2.nsys-rep
cat >nsys <<EOF2
#!/bin/sh
# wrapper: count exports, optionally answer --version differently, run real nsys
if [ "\$1" = export ]; then echo export >>"$work/exports.log"; fi
if [ "\$1" = --version ] && [ -n "\${FAKE_NSYS_VERSION:-}" ]; then echo "\$FAKE_NSYS_VERSION"; exit 0; fi
exec "$real" "\$@"
EOF2
chmod +x nsys

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
exports() { [ -f exports.log ] && wc -l <exports.log || echo 0; }
entries() { find "$1/exports" -maxdepth 1 -name '*.sqlite' 2>/dev/null | wc -l; }
gate() { "$GATE" --nsys "$work/nsys" --print-profile "$@"; }
want=$("$GATE" --print-profile "$samples/05_ayush_vector_add_v3_nsys2023.1.2__exported_by_2023.4.4.sqlite" | tail -n +2)
same_rows() { [ "$(tail -n +2 "$1")" = "$want" ]; }

# 1. miss, then hit
gate --cache-dir c1 v3.nsys-rep >out1 2>err1
check "miss: exported once, rows equal the derived export" test "$(exports)" = 1
check "miss: the rows" same_rows out1
check "miss: one entry (.sqlite and .sum) stored" test "$(entries c1)" = 1 -a "$(find c1/exports -name '*.sum' | wc -l)" = 1
gate --cache-dir c1 v3.nsys-rep >out2 2>err2
check "hit: no second export" test "$(exports)" = 1
check "hit: the same rows" same_rows out2
check "nothing written beside the report" test "$(ls | grep -c '^v3')" = 1

# 2. concurrent fill: four gates, one empty cache
: >exports.log
for i in 1 2 3 4; do gate --cache-dir c2 v3.nsys-rep >"par$i" 2>&1 & done
wait
ok=1
for i in 1 2 3 4; do same_rows "par$i" || ok=0; done
check "concurrent fill: every gate read the right rows" test $ok = 1
check "concurrent fill: one complete entry, no scratch left" test "$(entries c2)" = 1 -a -z "$(find c2/exports -name '.fill.*')"
gate --cache-dir c2 v3.nsys-rep >out3 2>&1
n=$(exports)
check "concurrent fill: the entry is then a hit" test "$(exports)" = "$n" -a "$(same_rows out3 && echo y)" = y

# 3. a corrupt entry is rebuilt, never trusted
entry=$(find c1/exports -name '*.sqlite')
printf 'garbage' | dd of="$entry" bs=1 seek=5000 conv=notrunc status=none
: >exports.log
gate --cache-dir c1 v3.nsys-rep >out4 2>&1
check "corrupt entry: exported again" test "$(exports)" = 1
check "corrupt entry: the right rows" same_rows out4
sum=$(cut -d' ' -f2 "${entry%.sqlite}.sum")
check "corrupt entry: rebuilt to match its sum" test "$(sha256sum "$entry" | cut -d' ' -f1)" = "$sum"

# 4. another nsys version is another key
: >exports.log
FAKE_NSYS_VERSION="NVIDIA Nsight Systems version 2099.1.1" gate --cache-dir c1 v3.nsys-rep >out5 2>&1
check "version change: a miss, exported again" test "$(exports)" = 1
check "version change: a second entry" test "$(entries c1)" = 2
check "version change: the right rows" same_rows out5

# 5. pruning: by size (1 MB cap keeps only the newest), and by age
gate --cache-dir c3 v3.nsys-rep >/dev/null 2>&1
gate --cache-dir c3 --cache-max-mb 1 v2.nsys-rep >/dev/null 2>&1
check "size cap: the older entry pruned, the new one kept" test "$(entries c3)" = 1
gate --cache-dir c4 v3.nsys-rep >/dev/null 2>&1
touch -d '40 days ago' c4/exports/*.sqlite
gate --cache-dir c4 --cache-max-days 30 v2.nsys-rep >/dev/null 2>&1
check "age: an entry unused for 40 days pruned" test "$(entries c4)" = 1
gate --cache-dir c4 --cache-max-days 30 v2.nsys-rep >/dev/null 2>&1
check "age: a recent entry kept and hit" test "$(entries c4)" = 1

# 6. --no-cache, and a cache that cannot be used
: >exports.log
gate --no-cache --cache-dir c5 v3.nsys-rep >out6 2>&1
gate --no-cache --cache-dir c5 v3.nsys-rep >/dev/null 2>&1
check "--no-cache: every run exports, nothing stored" test "$(exports)" = 2 -a ! -e c5
: >notadir
gate --cache-dir notadir/sub v3.nsys-rep >out7 2>&1
check "an unusable cache directory: still the right rows" same_rows out7

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
