#!/usr/bin/env bash
# A SIGTERM while the reports are written leaves no temporary file
# (.v.json.tmp.XXXXXX) beside them: each is registered with the signal
# handler from its creation to its rename, and the report is complete or
# absent (an older one untouched).
#
# The signal is timed into the write by a STAND-IN, the preloaded fault
# shim (fault-shim.c): in the first fsync() (the temporary file written,
# not yet renamed), or half-way through a 3 MB write.  Then real SIGTERMs
# at random moments of a run that writes megabytes of reports.
#
# Environment: GATE, SRCDIR, FAULT_SHIM.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin signal-reports
no_temporaries() { ! ls -a "$1" | grep -q '\.tmp\.'; }
old_or_whole() {   # old_or_whole FILE: still "old", or a whole JSON document
    [ "$(cat "$1")" = old ] ||
        "${PYTHON:-python3}" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}
many b.csv 1000000
many c.csv 1500000
reports() {   # reports DIR: the report options, all into DIR
    echo --top 12000 --json "$1/v.json" --junit "$1/j.xml" --metrics "$1/m.prom" \
        --benchmark-json "$1/bench.json"
}
shim=(LD_PRELOAD="${FAULT_SHIM:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")

if [ -n "${FAULT_SHIM:-}" ] && [ -f "$FAULT_SHIM" ]; then
    mkdir fsync write
    echo old >write/v.json
    env "${shim[@]}" NG_SHIM_TERM_FSYNC=1 "$GATE" --quiet $(reports fsync) b.csv c.csv 2>/dev/null
    rc=$?
    check "SIGTERM between a report's write and its rename: dies of it (143), got $rc" test "$rc" = 143
    check "SIGTERM between a report's write and its rename: no temporary file left" no_temporaries fsync
    env "${shim[@]}" NG_SHIM_TERM_WRITE_MIN=100000 "$GATE" --quiet $(reports write) b.csv c.csv 2>/dev/null
    rc=$?
    check "SIGTERM in the middle of a 3 MB report: dies of it (143), got $rc" test "$rc" = 143
    check "SIGTERM in the middle of a 3 MB report: no temporary file left" no_temporaries write
    check "SIGTERM in the middle of a 3 MB report: the older report is untouched" old_or_whole write/v.json
else
    fail=$((fail + 1)); echo "not ok - no FAULT_SHIM"
fi

# Real signals at random moments, 0 to 400 ms in: the run takes about that, most of it
# writing and syncing the reports
left=0 broken=0
for i in $(seq 1 20); do
    mkdir "r$i"
    echo old >"r$i/v.json"
    "$GATE" --quiet $(reports "r$i") b.csv c.csv 2>/dev/null &
    pid=$!
    sleep "0.$(printf %03d $(( RANDOM % 400 )))"
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    no_temporaries "r$i" || left=$((left + 1))
    old_or_whole "r$i/v.json" || broken=$((broken + 1))
done
check "20 real SIGTERMs: no temporary file left ($left runs left one)" test "$left" = 0
check "20 real SIGTERMs: each JSON verdict old or whole ($broken broken)" test "$broken" = 0

robust_done
