#!/usr/bin/env bash
# The export cache's fill protocol under conditions real nsys cannot make on
# demand.  A STUB nsys stands in for it here: it answers --version (so the
# cache is used), and its export is a copy of a generated SQLite file chosen
# by the report's CONTENT ("NVIDIA Tegra Profiler Report <id>" exports
# exp-<id>.sqlite), so a report replaced under the export shows in the
# totals.  The real nsys runs the cache suite (tests/cache/cache.sh).
#
#   1. nsys exits 0 after writing a 0-byte export (what a full disk did):
#      that run fails naming nsys; nothing is stored, so the next run
#      exports again and reads the right rows.
#   2. entries already on disk that fail to read are rebuilt, never
#      reported: a 0-byte entry in the earlier (SHA-256) format, and one in
#      the current format whose sum matches.
#   3. a report replaced while nsys exports it (the stub sleeps, the test
#      swaps the file): that run is refused, and a later run on the old
#      content gives the old content's totals.
#   4. pruning races with readers: 8 reports, 32 gates at once on one
#      cache with --cache-max-mb 1, several rounds: every gate succeeds.
#   5. SIGKILL during an export: nsys dies with the gate, and the fill
#      directory it leaves is pruned by the next fill, while a live gate's
#      is kept.
#   6. SIGTERM after nsys finished, while the export is read: no
#      $TMPDIR/nsys-gate.* is left.
#   7. a $HOME that does not exist: no directory is created, the cache is
#      skipped with a warning, the rows are right.
#   8. nsys's progress bars (carriage-return redrawn) never reach an error
#      message.
#   9. one report given as several operands is exported once per run, with
#      and without the cache.
#
# Environment: GATE, GENTRACE.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-fill.XXXXXX")
cleanup() {
    for p in "$work"/*.pid; do [ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
mkdir tmp
export TMPDIR=$work/tmp
unset XDG_CACHE_HOME NSYS_GATE_CACHE_DIR NSYS_GATE_NO_CACHE
export HOME=$work/home
mkdir home

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
dead() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
dead_pidfile() { local p; p=$(cat "$1") && { for _ in $(seq 30); do dead "$p" && return 0; sleep 0.1; done; return 1; }; }

# exports and reports: ids A..H, each its own totals
ids="A B C D E F G H"
scale=1
for id in $ids; do
    "$GENTRACE" -o "exp-$id.sqlite" --kernels 4000 --names 4 --no-nvtx --scale "$scale" >/dev/null || exit 1
    printf 'NVIDIA Tegra Profiler Report %s' "$id" >"$id.nsys-rep"
    scale=$((scale + 1))
done
: >exp-empty.sqlite
rows() { "$GATE" --print-profile "$1" | tail -n +2; }
for id in $ids; do rows "exp-$id.sqlite" >"want-$id"; done
same_rows() { [ "$(tail -n +2 "$1")" = "$(cat "want-$2")" ]; }

# The stub.  STUB_SLEEP: seconds before reading the report; STUB_EMPTY:
# write a 0-byte export; STUB_PROGRESS: print nsys-style progress bars;
# STUB_FAIL: then exit 1 with that message; STUB_HANG: exec sleep 600.
cat >nsys <<EOF
#!/bin/sh
# STUB nsys (see the top of cache-fill.sh)
if [ "\$1" = --version ]; then echo "NVIDIA Nsight Systems version 2099.1.1-stub"; exit 0; fi
for a; do in=\$a; done
while [ "\$1" != --output ]; do shift; done; out=\$2
echo "\$\$ \$in" >>"$work/exports.log"
[ -n "\${STUB_PIDFILE:-}" ] && echo \$\$ >"\$STUB_PIDFILE"
[ -n "\${STUB_HANG:-}" ] && exec sleep 600
[ -n "\${STUB_SLEEP:-}" ] && { : >"$work/stub-started"; sleep "\$STUB_SLEEP"; }
id=\$(tail -c +30 "\$in")
if [ -n "\${STUB_PROGRESS:-}" ]; then
    for p in 0 25 50 75 100; do printf '\rProcessing 7708 events: [====%s%%         ]' \$p >&2; done
    printf '\n' >&2
fi
[ -n "\${STUB_FAIL:-}" ] && { echo "\$STUB_FAIL" >&2; exit 1; }
if [ -n "\${STUB_EMPTY:-}" ]; then : >"\$out"; else cp "$work/exp-\$id.sqlite" "\$out"; fi
exit 0
EOF
chmod +x nsys
exports() { [ -f exports.log ] && wc -l <exports.log || echo 0; }
gate() { "$GATE" --nsys "$work/nsys" --print-profile "$@"; }
entries() { find "$1/exports" -maxdepth 1 -name '*.sqlite' 2>/dev/null | wc -l; }

# 1. a 0-byte export with exit 0
STUB_EMPTY=1 gate --cache-dir c1 A.nsys-rep >out1 2>err1
rc=$?
check "0-byte export: exit 2" test "$rc" = 2
check "0-byte export: the error names nsys's empty export" grep -q "^ERROR: .*A.nsys-rep.*empty" err1
check "0-byte export: nothing stored" test "$(entries c1)" = 0
: >exports.log
gate --cache-dir c1 A.nsys-rep >out2 2>err2
check "after a 0-byte export: exported again" test "$(exports)" = 1
check "after a 0-byte export: the right rows" same_rows out2 A

# 2. entries on disk that fail to read: rebuilt
key_sha=$(sha256sum B.nsys-rep | cut -d' ' -f1)
mkdir -p c2/exports
: >"c2/exports/$key_sha-NVIDIA_Nsight_Systems_version_2099.1.1-stub.sqlite"
printf '0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n' \
    >"c2/exports/$key_sha-NVIDIA_Nsight_Systems_version_2099.1.1-stub.sum"
: >exports.log
gate --cache-dir c2 B.nsys-rep >out3 2>err3
check "an earlier-format 0-byte entry: exported, not trusted" test "$(exports)" = 1
check "an earlier-format 0-byte entry: the right rows" same_rows out3 B
check "an earlier-format entry: pruned" test ! -e "c2/exports/$key_sha-NVIDIA_Nsight_Systems_version_2099.1.1-stub.sqlite"
# the current format: empty the entry and make its sum match it
entry=$(find c2/exports -maxdepth 1 -name '*.sqlite' | head -n 1)
if [ -n "$entry" ] && [ -f "${entry%.sqlite}.sum" ]; then
    : >"$entry"
    "${PYTHON:-python3}" - "$entry" "${entry%.sqlite}.sum" <<'PY'
import os, sys
db, sum_path = sys.argv[1:3]
st = os.stat(db)
lines = open(sum_path).read().splitlines()
out = []
for l in lines:
    k = l.split(" ", 1)[0]
    # XXH3-128 of no bytes
    v = {"size": str(st.st_size), "mtime": "%d" % st.st_mtime_ns,
         "xxh128": "99aa06d3014798d86001c324468d497f"}.get(k)
    out.append(k + " " + v if v is not None else l)
open(sum_path, "w").write("\n".join(out) + "\n")
PY
fi
: >exports.log
gate --cache-dir c2 B.nsys-rep >out4 2>err4
check "a current-format entry that fails to read: exported again" test "$(exports)" = 1
check "a current-format entry that fails to read: the right rows" same_rows out4 B
gate --cache-dir c2 B.nsys-rep >out5 2>err5
check "the rebuilt entry is then a hit" test "$(exports)" = 1 -a "$(same_rows out5 B && echo y)" = y

# 3. a report replaced during its export
cp C.nsys-rep r.nsys-rep
rm -f stub-started
STUB_SLEEP=1 gate --cache-dir c3 r.nsys-rep >out6 2>err6 &
g=$!
for _ in $(seq 100); do [ -e stub-started ] && break; sleep 0.05; done
cp D.nsys-rep new.nsys-rep && mv new.nsys-rep r.nsys-rep
wait "$g"
rc=$?
check "replaced during the export: refused (exit 2)" test "$rc" = 2
check "replaced during the export: the error says it changed" grep -q "changed while it was being read" err6
cp C.nsys-rep r.nsys-rep
gate --cache-dir c3 r.nsys-rep >out7 2>err7
check "later run on the old content: the old content's totals" same_rows out7 C
cp D.nsys-rep r.nsys-rep
gate --cache-dir c3 r.nsys-rep >out8 2>err8
check "later run on the new content: the new content's totals" same_rows out8 D

# 4. pruning races with readers: 8 reports, 32 gates at once, 1 MB cap
bad=0 runs=0
for round in 1 2 3 4 5 6; do
    for i in $(seq 0 31); do
        set -- $ids
        shift $((i % 8))
        id=$1
        (gate --cache-dir c4 --cache-max-mb 1 "$id.nsys-rep" >"race-$i.out" 2>"race-$i.err"
         echo $? >"race-$i.rc"; echo "$id" >"race-$i.id") &
    done
    wait
    for i in $(seq 0 31); do
        runs=$((runs + 1))
        id=$(cat "race-$i.id")
        if [ "$(cat "race-$i.rc")" != 0 ] || ! same_rows "race-$i.out" "$id"; then
            bad=$((bad + 1))
            [ "$bad" -le 3 ] && echo "# round $round gate $i ($id): exit $(cat "race-$i.rc"): $(head -c 300 "race-$i.err")"
        fi
    done
done
check "prune race: $runs gates, $bad failed or wrong" test "$bad" = 0
check "prune race: no fill directory left" test -z "$(find c4/exports -maxdepth 1 -name '.fill.*')"

# 5. SIGKILL during an export
rm -f hang.pid
STUB_HANG=1 STUB_PIDFILE=$work/hang.pid setsid "$GATE" --nsys "$work/nsys" --cache-dir c5 \
    --print-profile A.nsys-rep >/dev/null 2>&1 &
g=$!
for _ in $(seq 100); do [ -s hang.pid ] && break; sleep 0.05; done
check "SIGKILL: the stub started" test -s hang.pid
kill -9 "$g"
wait "$g" 2>/dev/null
check "SIGKILL: nsys died with the gate" dead_pidfile hang.pid
stale=$(find c5/exports -maxdepth 1 -name '.fill.*')
check "SIGKILL: a fill directory was left" test -n "$stale"
# a live gate's fill directory is kept while another gate prunes
rm -f live.pid
STUB_HANG=1 STUB_PIDFILE=$work/live.pid "$GATE" --nsys "$work/nsys" --cache-dir c5 \
    --nsys-timeout 20 --print-profile C.nsys-rep >/dev/null 2>&1 &
live_gate=$!
for _ in $(seq 100); do [ -s live.pid ] && break; sleep 0.05; done
before=$(find c5/exports -maxdepth 1 -name '.fill.*' | sort)
gate --cache-dir c5 B.nsys-rep >out9 2>err9
after=$(find c5/exports -maxdepth 1 -name '.fill.*' | sort)
check "SIGKILL: the next fill read the right rows" same_rows out9 B
check "SIGKILL: the stale fill directory was pruned" test -n "$stale" -a ! -e "${stale:-/nonexistent}"
live_dir=$(comm -13 <(echo "$stale") <(echo "$before") | head -n 1)
check "SIGKILL: a live gate's fill directory was kept" test -n "$live_dir" -a -n "$(echo "$after" | grep -Fx "$live_dir")"
kill -9 "$(cat live.pid)" 2>/dev/null
wait "$live_gate" 2>/dev/null

# 6. SIGTERM while the export is read (after nsys finished)
"$GENTRACE" -o exp-BIG.sqlite --kernels 3000000 --names 50 --epochs 100 >/dev/null || exit 1
printf 'NVIDIA Tegra Profiler Report BIG' >BIG.nsys-rep
cat >nsys-done <<EOF
#!/bin/sh
# STUB nsys: the export is a copy, and a marker says nsys has finished
if [ "\$1" = --version ]; then exit 1; fi
while [ "\$1" != --output ]; do shift; done
cp "$work/exp-BIG.sqlite" "\$2" && : >"$work/nsys-finished"
EOF
chmod +x nsys-done
left=0 tried=0
for attempt in 1 2 3; do
    rm -f nsys-finished
    "$GATE" --nsys "$work/nsys-done" --no-cache --epoch-range auto --print-profile BIG.nsys-rep >/dev/null 2>&1 &
    g=$!
    for _ in $(seq 400); do [ -e nsys-finished ] && break; sleep 0.01; done
    sleep 0.05
    if kill -0 "$g" 2>/dev/null; then
        tried=$((tried + 1))
        kill -TERM "$g"
    fi
    wait "$g" 2>/dev/null
    [ -n "$(ls -A tmp)" ] && { left=$((left + 1)); echo "# left: $(ls -A tmp)"; }
    rm -rf tmp/*
done
check "SIGTERM while reading: signalled during the read in $tried of 3 tries" test "$tried" -ge 1
check "SIGTERM while reading: no \$TMPDIR/nsys-gate.* left ($left of 3 left one)" test "$left" = 0

# 7. a $HOME that does not exist
HOME=$work/no/such/home gate A.nsys-rep >out10 2>err10
rc=$?
check "missing \$HOME: exit 0 and the right rows" test "$rc" = 0 -a "$(same_rows out10 A && echo y)" = y
HOME=$work/no/such/home "$GATE" --nsys "$work/nsys" A.nsys-rep A.nsys-rep >out10 2>err10
check "missing \$HOME: nothing created" test ! -e "$work/no"
check "missing \$HOME: a warning names the missing directory" \
    grep -q "^WARNING: .*'$work/no/such/home'.*does not exist" err10
HOME=$work/no/such/home "$GATE" --nsys "$work/nsys" --json v.json A.nsys-rep A.nsys-rep >/dev/null 2>&1
check "missing \$HOME: the warning is in the JSON verdict, once" \
    test "$("${PYTHON:-python3}" -c 'import json,sys; print(sum("does not exist" in w for w in json.load(open(sys.argv[1]))["warnings"]))' v.json)" = 1

# 8. progress bars never reach an error message
STUB_PROGRESS=1 STUB_FAIL="Exportation error: boom" gate --no-cache A.nsys-rep >/dev/null 2>err11
check "progress bars: the failure's own words are kept" grep -q "^ERROR: nsys export failed for 'A.nsys-rep' (exit 1): Exportation error: boom$" err11
check "progress bars: not in the error" test -z "$(grep -E 'Processing|\[=' err11)"
printf 'not sqlite at all' >exp-junk.sqlite
printf 'NVIDIA Tegra Profiler Report junk' >junk.nsys-rep
STUB_PROGRESS=1 gate --no-cache junk.nsys-rep >/dev/null 2>err12
check "progress bars: an unreadable export's error has none either" \
    test "$(grep -c '^ERROR: ' err12)" = 1 -a -z "$(grep -E 'Processing|\[=' err12)"

# 9. one report as several operands: one export per run
: >exports.log
"$GATE" --nsys "$work/nsys" --no-cache A.nsys-rep A.nsys-rep >out13 2>err13
check "same report twice, --no-cache: exported once" test "$(exports)" = 1
ln A.nsys-rep A-link.nsys-rep
: >exports.log
"$GATE" --nsys "$work/nsys" --no-cache --baseline A.nsys-rep --baseline A-link.nsys-rep \
    --current "$work/A.nsys-rep" >out14 2>err14
check "same report under three names, --no-cache: exported once" test "$(exports)" = 1
check "same report under three names: PASS at ratio 1" grep -q "^PASS: .*ratio=1.000x" out14
: >exports.log
"$GATE" --nsys "$work/nsys" --cache-dir c9 A.nsys-rep A.nsys-rep >out15 2>err15
check "same report twice, empty cache: exported once" test "$(exports)" = 1

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
