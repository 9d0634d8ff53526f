#!/usr/bin/env bash
# Out of memory, for real: the gate runs under an address-space limit
# (ulimit -v, RLIMIT_AS) that holds it comfortably on small profiles but
# not on a saved kernel summary of 500,000 distinct names (80 MB of names).  The ERROR must
# name the profile being read, every requested report must still be
# written (with that error), and the exit status is 2; in batch mode the
# gate that ran out is an ERROR of its own and the others stand.
#
# Skipped (77) in a sanitizer build, which cannot start under such a
# limit (ASan maps terabytes of shadow memory).
#
# Environment: GATE, SRCDIR.
set -u
if ldd "$GATE" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
    echo "oom: skipped: a sanitizer build cannot run under an address-space limit"
    exit 77
fi
. "$SRCDIR/tests/robust/lib.sh"
robust_begin oom
fixtures kern2023_base.csv

LIMIT_KB=100000
limited() { (ulimit -v "$LIMIT_KB" && exec "$GATE" "$@"); }
json_error() { "${PYTHON:-python3}" -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"])' "$1"; }

awk 'BEGIN {
    print "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
    for (i = 0; i < 500000; i++)
        printf "0.0,%d,10,1.0,1.0,1,1,0.0,kernel_%07d_%0150d\n", 1000 + i, i, 0
}' >big.csv

limited --quiet --json small.json kern2023_base.csv kern2023_base.csv
check "the limit holds the gate on small profiles (exit 0)" test $? = 0

limited --json v.json --junit j.xml --metrics m.prom kern2023_base.csv big.csv >out.txt 2>err.txt
rc=$?
check "out of memory: exit 2, got $rc" test "$rc" = 2
check "out of memory: one ERROR line naming the profile" \
    test "$(cat err.txt)" = "ERROR: out of memory reading 'big.csv'"
check "out of memory: the JSON verdict is written, with that error" \
    test "$(json_error v.json)" = "out of memory reading 'big.csv'"
check "out of memory: the JUnit report is written, with an <error>" \
    grep -q "<error type=\"error\" message=\"out of memory reading 'big.csv'\"" j.xml
check "out of memory: the metrics are written" grep -q '^nsys_gate_pass{name="gpu-time-per-epoch"} 0$' m.prom
check "out of memory: nothing on stdout (as for any ERROR)" test ! -s out.txt

cat >m.json <<'JSON'
{"gates": [{"name": "small", "baseline": "kern2023_base.csv", "current": "kern2023_base.csv"},
           {"name": "big", "baseline": "kern2023_base.csv", "current": "big.csv"}]}
JSON
limited --manifest m.json --json b.json >bout.txt 2>berr.txt
rc=$?
check "batch: exit 2, got $rc" test "$rc" = 2
check "batch: the gate that ran out says so, the other passed" \
    test "$("${PYTHON:-python3}" -c '
import json
d = json.load(open("b.json"))
print([(g["name"], g["verdict"], g["error"]) for g in d["gates"]])')" = \
    "[('small', 'pass', None), ('big', 'error', \"out of memory reading 'big.csv'\")]"

robust_done
