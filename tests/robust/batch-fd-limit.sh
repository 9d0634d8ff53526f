#!/usr/bin/env bash
# -j above what the open-file limit allows: a manifest of 1,500 gates with
# -j 1500 under `ulimit -n 64`.  Every gate must run (each holds a pipe to
# the batch while it runs, so only so many fit at once); -j is lowered to
# what the descriptors allow, and that is said once.
#
# Environment: GATE, SRCDIR.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin batch-fd-limit
fixtures kern2023_base.csv kern2023_cur120.csv

N=1500
"${PYTHON:-python3}" - "$N" >m.json <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"gates": [{"name": f"gate-{i}", "baseline": "kern2023_base.csv",
                             "current": "kern2023_cur120.csv", "epochs": 10, "threshold": 1.1}
                            for i in range(n)]}))
PY
(ulimit -n 64 && exec "$GATE" --quiet --manifest m.json -j "$N" --json out.json --junit out.xml) 2>err.txt
rc=$?
check "$N gates under ulimit -n 64: exit 1 (every gate FAIL), got $rc" test "$rc" = 1
counts=$("${PYTHON:-python3}" -c '
import collections, json, sys
d = json.load(open("out.json"))
c = collections.Counter(g["verdict"] for g in d["gates"])
errors = sorted(set(g["error"] for g in d["gates"] if g["error"]))
print(" ".join(f"{k}={v}" for k, v in sorted(c.items())), errors[:1])')
check "$N gates under ulimit -n 64: every gate ran ($counts)" test "$counts" = "fail=$N []"
check "$N gates under ulimit -n 64: the JUnit report has them all" \
    grep -q "tests=\"$N\" failures=\"$N\" errors=\"0\"" out.xml
check "-j lowered, and said once" \
    test "$(grep -c '^WARNING: -j 1500 is more gates at once than the open-file limit allows (ulimit -n 64): running [0-9]* at once$' err.txt)" = 1
check "nothing else on stderr" test "$(wc -l <err.txt)" = 1

robust_done
