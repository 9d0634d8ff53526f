#!/usr/bin/env bash
# Parity with the prototype this gate replaces: for a table of profile
# pairs and epoch counts, the gate's first stdout line and exit status must
# equal those of ../shared/seed/compare-nsys-profiles.py.
#
# The prototype shells out to `nsys stats`; here it gets a STUB nsys that
# prints a saved kernel summary (the file named as its last argument), so
# both tools read the very same CSV: the gate directly, the prototype
# through the stub.  Only inputs the prototype reads correctly are in the
# table (it misses 2020/2021 headers and sums every report block); those
# differences are the gate's fixes, tested in the golden suite.
#
# Environment: GATE, SRCDIR, SHARED.  Exit 77 (skip) without the prototype
# or python3.
set -u
seed="${SHARED:-$SRCDIR/../shared}/seed/compare-nsys-profiles.py"
py=${PYTHON:-$(command -v python3 || true)}
if [ ! -f "$seed" ] || [ -z "$py" ]; then
    echo "parity: skipped: needs python3 and $seed"
    exit 77
fi
fixtures="$SRCDIR/tests/golden/fixtures"
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-parity.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
printf '#!/bin/sh\n# stub nsys: prints the saved report named last\nfor last; do :; done\nexec cat "$last"\n' >"$work/bin/nsys"
chmod +x "$work/bin/nsys"

header='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
header22='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),GridXYZ,BlockXYZ,Name'

# A kernel summary with the given totals, one row each, with nsys framing.
make_csv() {
    local out=$1; shift
    {
        echo "Processing [x.sqlite] with [/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/reports/cuda_gpu_kern_sum.py]... "
        echo "$header"
        local i=0
        for t in "$@"; do
            echo "50.0,$t,$((i + 1)),1.0,1.0,1,1,0.0,\"void kernel_$i<(int)128, (int)4>(float *, int)\""
            i=$((i + 1))
        done
        echo
    } >"$out"
}

cases=()   # "baseline current epochs"
# hand-picked: equal, exactly 1.20 (passes), just over, big, tiny
make_csv "$work/a.csv" 60000000 30000000 10000000
make_csv "$work/b_equal.csv" 10000000 30000000 60000000
make_csv "$work/b_120.csv" 72000000 36000000 12000000
make_csv "$work/b_120p1.csv" 72000000 36000000 12000001
make_csv "$work/big.csv" 987654321987654 123456789
make_csv "$work/big2.csv" 1185185186385185 148148147
make_csv "$work/tiny.csv" 38912
make_csv "$work/tiny2.csv" 46695
cp "$fixtures/kern2023_cur120.csv" "$work/fx_cur120.csv"
{ echo "$header22"; echo '44.6,18197520,396,45953.3,45920.0,44896,47584,528.0,8192    1    1, 128    1    1,cupy_subtract'; echo '22.3,9100104,198,45960.1,45920.0,45120,47360,462.5,8192    1    1, 128    1    1,cupy_multiply'; } >"$work/g22.csv"
{ echo "$header22"; echo '44.6,26197520,396,45953.3,45920.0,44896,47584,528.0,8192    1    1, 128    1    1,cupy_subtract'; echo '22.3,9100104,198,45960.1,45920.0,45120,47360,462.5,8192    1    1, 128    1    1,cupy_multiply'; } >"$work/g22b.csv"
for e in 1 3 5 7 1000; do
    cases+=("a.csv b_equal.csv $e" "a.csv b_120.csv $e" "a.csv b_120p1.csv $e")
done
cases+=("big.csv big2.csv 5" "big2.csv big.csv 9" "tiny.csv tiny2.csv 1" "tiny2.csv tiny.csv 2"
        "a.csv fx_cur120.csv 5" "g22.csv g22b.csv 5" "g22b.csv g22.csv 3")

# random pairs around the threshold, deterministic, to exercise the
# rounding of every printed figure
RANDOM=20261129
for i in $(seq 1 40); do
    b=$(( (RANDOM * 32768 + RANDOM) % 900000000 + 1000 ))
    pct=$(( 80 + RANDOM % 60 ))
    c=$(( b * pct / 100 + RANDOM % 1000 ))
    make_csv "$work/r${i}b.csv" "$b"
    make_csv "$work/r${i}c.csv" "$c" $(( RANDOM % 50000 ))
    cases+=("r${i}b.csv r${i}c.csv $(( RANDOM % 12 + 1 ))")
done

# The gate keeps the prototype's one decimal from 10 ms an epoch up; below, both
# figures get the decimals that show the smaller one to three significant
# figures (0.312ms, 4.27ms): each must round to the prototype's one decimal,
# within its own last digit.
same_line() {
    "$py" - "$1" "$2" <<'PY'
import re, sys
want, got = sys.argv[1], sys.argv[2]
fig = re.compile(r"\b(baseline|current)=([0-9]+\.[0-9]+)ms")
w, g = fig.findall(want), fig.findall(got)
ok = fig.sub("F", want) == fig.sub("F", got) and len(w) == len(g)
for (_, a), (_, b) in zip(w, g):
    d = len(b.split(".")[1])
    ok = ok and (b == a if d == 1 else
                 abs(float(b) - float(a)) <= 0.05 + 0.5 * 10 ** -d + 1e-12)
sys.exit(0 if ok else 1)
PY
}

pass=0 fail=0
cd "$work" || exit 1
for c in "${cases[@]}"; do
    read -r base cur epochs <<<"$c"
    want=$(PATH="$work/bin:$PATH" "$py" "$seed" "$base" "$cur" --epochs "$epochs" 2>/dev/null)
    want_rc=$?
    got=$("$GATE" --epochs "$epochs" "$base" "$cur" 2>/dev/null)
    got_rc=$?
    if same_line "$(head -n 1 <<<"$want")" "$(head -n 1 <<<"$got")" && [ "$want_rc" = "$got_rc" ]; then
        pass=$((pass + 1))
        echo "ok - $c: $(head -n 1 <<<"$got") (exit $got_rc)"
    else
        fail=$((fail + 1))
        echo "not ok - $c"
        echo "    prototype (exit $want_rc): $(head -n 1 <<<"$want")"
        echo "    gate      (exit $got_rc): $(head -n 1 <<<"$got")"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
