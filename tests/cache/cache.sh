#!/usr/bin/env bash
# The .nsys-rep export cache with real nsys 2023.4 (ci/fetch-nsys.sh) on
# the real reports in ../shared/nsys-samples: miss then hit, parallel fills
# (exported once), a corrupt entry rebuilt, an entry restored with new
# times, entries of the earlier (SHA-256) key format, an nsys version
# change, pruning by size and age, --no-cache, an unusable cache
# directory, a cache others can write or a symlinked entry (not used), a
# directory holding files the cache did not make (never pruned), CACHEDIR.TAG, and (as root) a cache on a full disk (a 1 MB tmpfs).
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
same_rows() { [ "$(grep -v '^WARNING: ' "$1" | tail -n +2)" = "$want" ]; }

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
# `nsys-gate ranges` reads a report through the same export and cache: the
# listing of the report is the listing of its derived export, and the hit
# runs no export
"$GATE" ranges "$samples/05_ayush_vector_add_v3_nsys2023.1.2__exported_by_2023.4.4.sqlite" |
    tail -n +2 >ranges.want
"$GATE" ranges --nsys "$work/nsys" --cache-dir c1 v3.nsys-rep >ranges.got 2>ranges.err
rc=$?
check "ranges of a report: exit 0, a hit (no export), $(head -c 200 ranges.err)" \
    test "$rc" = 0 -a "$(exports)" = 1
check "ranges of a report: the groups of its export" \
    sh -c 'test -s ranges.want && test "$(tail -n +2 ranges.got)" = "$(cat ranges.want)"'

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

# 6b. a cache another user could write is not used (as ssh and gpg refuse
# theirs): here "another user" made exports/ mode 0777, replaced the entry
# with the other report's export and rewrote its .sum to match
v2_export="$samples/05b_ayush_vector_add_v2_nsys2023.1.2__exported_by_2023.4.4.sqlite"
# the cache's warnings: a comparison run prints them (--print-profile does not)
warnings() { local r=${REPORT:-v3.nsys-rep}; "$GATE" --nsys "$work/nsys" "$@" "$r" "$r" 2>&1 >/dev/null | grep '^WARNING: export cache'; }
forge() {   # forge ENTRY: the other report's export under ENTRY's key, a .sum to match
    cp "$v2_export" "$1"
    printf 'nsys-gate cache entry 2\nsize %s\nmtime %s\nxxh128 %s\n' "$(stat -c %s "$1")" \
        "$(stat -c %.9Y "$1" | tr -d .)" "$(xxh128sum "$1" | cut -d' ' -f1)" >"${1%.sqlite}.sum"
}
gate --cache-dir c7 v3.nsys-rep >/dev/null 2>&1
entry7=$(find c7/exports -name '*.sqlite')
chmod 0777 c7/exports
forge "$entry7"
: >exports.log
gate --cache-dir c7 v3.nsys-rep >out10 2>&1
check "writable by others: exported without the cache, the right rows" test "$(exports)" = 1 -a "$(same_rows out10 && echo y)" = y
warnings --cache-dir c7 >err10
check "writable by others: the warning" grep -q "^WARNING: export cache not used: 'c7/exports' is writable by others" err10
gate --cache-dir c7 v3.nsys-rep >/dev/null 2>err10p
check "writable by others: --print-profile says so too, as the gate does" \
    grep -q "^WARNING: export cache not used: 'c7/exports' is writable by others" err10p
check "writable by others: the forged entry left as it was, nothing added" test "$(entries c7)" = 1 -a -z "$(find c7/exports -name '.fill.*')"
chmod 0700 c7/exports
chmod 0770 c7
gate --cache-dir c7 v3.nsys-rep >out11 2>&1
warnings --cache-dir c7 >err11
check "a group-writable root: not used either" grep -q "^WARNING: export cache not used: 'c7' is writable by others" err11
check "a group-writable root: the right rows" same_rows out11
if [ "$(id -u)" = 0 ]; then
    chmod 0700 c7
    chown 65534 c7/exports
    gate --cache-dir c7 v3.nsys-rep >out12 2>&1
    warnings --cache-dir c7 >err12
    check "owned by another user: not used" grep -q "^WARNING: export cache not used: 'c7/exports' is owned by another user (uid 65534)" err12
    check "owned by another user: the right rows" same_rows out12
    chown 0 c7/exports
fi
# an entry that is a symlink (to the other report's export, with a .sum that
# matches it) is not followed: exported again, the right rows
rm -rf c7; gate --cache-dir c7 v3.nsys-rep >/dev/null 2>&1
entry7=$(find c7/exports -name '*.sqlite')
forge "$work/forged.sqlite"; mv "$work/forged.sum" "${entry7%.sqlite}.sum"
ln -sf "$work/forged.sqlite" "$entry7"
: >exports.log
gate --cache-dir c7 v3.nsys-rep >out13 2>err13
check "a symlinked entry: not followed, the right rows" test "$(exports)" = 1 -a "$(same_rows out13 && echo y)" = y
mkdir c8 && ln -s "$work/c7/exports" c8/exports
warnings --cache-dir c8 >err14
check "exports/ a symlink: not used" grep -q "^WARNING: export cache not used: 'c8/exports' is not a directory" err14

# 6c. pruning removes only what the cache made: --cache-dir pointed at a
# project that has an exports/ of its own; a size cap that would prune
mkdir -p proj/exports
echo db >proj/exports/main.sqlite; echo db >proj/exports/pr-1234.sqlite; echo n >proj/exports/.notes
echo s >proj/exports/main.sum; echo l >proj/exports/x.lock; mkdir proj/exports/.fill.mine
touch -d '2 days ago' proj/exports/.notes proj/exports/main.sum proj/exports/.fill.mine
gate --cache-dir proj --cache-max-mb 1 v3.nsys-rep >out15 2>err15
REPORT=v2.nsys-rep warnings --cache-dir proj --cache-max-mb 1 >err16
check "a project's files: every one kept" test -f proj/exports/main.sqlite -a -f proj/exports/pr-1234.sqlite \
    -a -f proj/exports/.notes -a -f proj/exports/main.sum -a -f proj/exports/x.lock -a -d proj/exports/.fill.mine
check "a project's files: the warning names one" grep -q "^WARNING: export cache 'proj' not pruned: 'proj/exports/.*' was not made by the cache" err16
check "a project's files: the right rows" same_rows out15
check "CACHEDIR.TAG in exports/, with the specification's signature" \
    test "$(head -c 43 proj/exports/CACHEDIR.TAG)" = "Signature: 8a477f597d28d172789f06886806bc55"
check "a cache's own directory: the tag, and pruning still works" \
    test -f c3/exports/CACHEDIR.TAG -a "$(entries c3)" = 1

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
