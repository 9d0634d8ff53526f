#!/usr/bin/env bash
# --history from 16 gates at once into one file: 16 whole lines, each a
# valid verdict, one per gate.  The lines are long (300 kernels: 50 of them
# and 50 rows in a history line, about 38 KB, far past PIPE_BUF), so a
# writer that did not append in one write() would interleave.  The checker
# is first shown to catch exactly that, on a file written by 16 writers in
# two halves each.
#
# Environment: GATE, GENTRACE, SRCDIR, PYTHON (without jsonschema the lines
# are checked whole but not against the schema, and the test is skipped).
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-history.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
N=16

"$GENTRACE" -o b.sqlite --kernels 3000 --names 300 --seed 1 >/dev/null || exit 1
"$GENTRACE" -o c.sqlite --kernels 3000 --names 300 --seed 1 --scale 1.3 >/dev/null || exit 1

# Whole lines, each a verdict named gate-0..gate-N-1 exactly once.
check() {
    "${PYTHON:-python3}" - "$1" "$N" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
lines = data.split(b"\n")
ok = data.endswith(b"\n") and len(lines) == n + 1
names = []
for line in lines[:-1]:
    try:
        names.append(json.loads(line)["name"])
    except (ValueError, KeyError, TypeError):
        ok = False
ok = ok and sorted(names) == sorted(f"gate-{i}" for i in range(n))
print(f"{path}: {len(lines) - 1} lines, {len(set(names))} distinct gates, "
      f"{len(data)} bytes: {'ok' if ok else 'BROKEN'}")
sys.exit(0 if ok else 1)
PY
}

# The checker catches interleaving: two writes per line, 16 writers at once.
line=$("$GATE" --quiet --epochs 4 --top 300 --name gate-X b.sqlite c.sqlite --json - | tr -d '\n\t')
for i in $(seq 0 $((N - 1))); do
    text=${line/gate-X/gate-$i}
    half=$((${#text} / 2))
    (printf '%s' "${text:0:half}" >>torn.jsonl; sleep 0.05; printf '%s\n' "${text:half}" >>torn.jsonl) &
done
wait
if check torn.jsonl >/dev/null; then
    echo "not ok - the checker did not see the torn lines"
    exit 1
fi
echo "ok - the checker sees torn lines"

pids=()
for i in $(seq 0 $((N - 1))); do
    "$GATE" --quiet --epochs 4 --top 300 --name "gate-$i" --history history.jsonl \
        b.sqlite c.sqlite &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do
    wait "$p"
    rc=$?
    [ "$rc" = 1 ] || { echo "not ok - a gate exited $rc, expected 1 (FAIL)"; status=1; }
done
check history.jsonl || status=1
"${PYTHON:-python3}" "$SRCDIR/tests/tools/needs.py" jsonschema \
    "$SRCDIR/tests/ci/validate_output.py" "$SRCDIR" history.jsonl
case $? in
0) ;;
77) [ "$status" = 0 ] && status=77 ;;
*) status=1 ;;
esac
[ "$status" != 1 ] && echo "ok - $N concurrent appends, $N whole lines"
exit "$status"
