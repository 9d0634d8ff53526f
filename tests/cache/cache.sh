#!/usr/bin/env bash
# The .nsys-rep export cache with real nsys 2023.4 (ci/fetch-nsys.sh) on
# the real reports in ../shared/nsys-samples: miss then hit, parallel fills
# (exported once), a corrupt entry rebuilt, an entry restored with new
# times, entries of the earlier (SHA-256) key format, an nsys version
# change, pruning by size and age, --no-cache, an unusable cache
# directory, and (as root) a cache on a full disk (a 1 MB tmpfs).
# The stub-nsys cases of the fill protocol are in tests/robust/cache-fill.sh.
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
# the .sum holds what xxhash's own tool computes, and the file's size
entry=$(find c1/exports -name '*.sqlite')
sum_of() { sed -n "s/^$1 //p" "${2%.sqlite}.sum"; }
check "miss: the .sum's XXH3-128 is xxh128sum's" test "$(sum_of xxh128 "$entry")" = "$(xxh128sum "$entry" | cut -d' ' -f1)"
check "miss: the .sum's size is the export's" test "$(sum_of size "$entry")" = "$(stat -c %s "$entry")"
check "miss: the key is the report's XXH3-128" test "$(basename "$entry" | cut -c1-32)" = "$(xxh128sum v3.nsys-rep | cut -d' ' -f1)"
gate --cache-dir c1 v3.nsys-rep >out2 2>err2
check "hit: no second export" test "$(exports)" = 1
check "hit: the same rows" same_rows out2
check "nothing written beside the report" test "$(ls | grep -c '^v3')" = 1

# 2. parallel fills: four gates, one empty cache: one exports, the others
# wait for its fill lock and hit
: >exports.log
for i in 1 2 3 4; do gate --cache-dir c2 v3.nsys-rep >"par$i" 2>"par$i.err" & done
wait
ok=1
for i in 1 2 3 4; do same_rows "par$i" || ok=0; done
check "concurrent fill: every gate read the right rows" test $ok = 1
check "concurrent fill: exported once ($(exports))" test "$(exports)" = 1
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
check "corrupt entry: rebuilt to match its sum" test "$(xxh128sum "$entry" | cut -d' ' -f1)" = "$(sum_of xxh128 "$entry")"

# 3b. an entry restored with new times (a CI cache restore): checked in
# full once, then a hit as before, its sum's time brought up to date
touch -d '2 hours ago' "$entry"
: >exports.log
gate --cache-dir c1 v3.nsys-rep >out4b 2>&1
check "new times: a hit, not an export" test "$(exports)" = 0
check "new times: the right rows" same_rows out4b
check "new times: the sum records the new mtime" test "$(sum_of mtime "$entry")" = "$(stat -c %.9Y "$entry" | tr -d .)"

# 3c. entries of the earlier format (a SHA-256 key, "SIZE SHA256" sum) are
# never trusted: here one holding another report's export
old_key=$(sha256sum v3.nsys-rep | cut -d' ' -f1)-$("$real" --version | head -n 1 | tr -c 'A-Za-z0-9.\n-' '_')
mkdir -p c6/exports
cp "$samples/05b_ayush_vector_add_v2_nsys2023.1.2__exported_by_2023.4.4.sqlite" "c6/exports/$old_key.sqlite"
printf '%s %s\n' "$(stat -c %s "c6/exports/$old_key.sqlite")" "$(sha256sum "c6/exports/$old_key.sqlite" | cut -d' ' -f1)" >"c6/exports/$old_key.sum"
: >exports.log
gate --cache-dir c6 v3.nsys-rep >out4c 2>&1
check "earlier format: not read, the report exported" test "$(exports)" = 1
check "earlier format: the right rows (not the other report's)" same_rows out4c
check "earlier format: pruned at the fill" test ! -e "c6/exports/$old_key.sqlite" -a ! -e "c6/exports/$old_key.sum"

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
touch -d '40 days ago' c4/exports/*.sum   # an entry's last use is its sum's time
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

# 7. a cache on a full disk (root: a 1 MB tmpfs): real nsys fails writing
# into it; the gate exports again outside the cache and says so
if [ "$(id -u)" = 0 ] && mkdir -p full && mount -t tmpfs -o size=1m nsys-gate-test full 2>/dev/null; then
    trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
    : >exports.log
    "$GATE" --nsys "$work/nsys" --cache-dir full/c v3.nsys-rep v3.nsys-rep >out8 2>err8
    rc=$?
    check "full disk: exit 0" test "$rc" = 0
    check "full disk: a warning says the cache's disk is full" grep -q "^WARNING: export cache not used: the filesystem of 'full/c' is full" err8
    check "full disk: nothing kept in the cache" test "$(entries full/c)" = 0 -a -z "$(find full/c/exports -name '.fill.*')"
    "$GATE" --nsys "$work/nsys" --cache-dir full/c --print-profile v3.nsys-rep >out9 2>err9
    check "full disk: the rows are right" same_rows out9
    umount full
elif [ "${CI:-}" = true ]; then
    check "full disk: CI runs as root with tmpfs (CI=true: a skip is a failure)" false
else
    echo "# full disk: not root or no tmpfs mount here: not run"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
