#!/usr/bin/env bash
# Appends (--history, $GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT) are all or
# nothing: never a torn line, never a line glued onto a fragment, never a
# 0-byte file left by a failed first write.
#
# A nearly full disk is a real one: a small tmpfs mounted here (as root;
# skipped otherwise, except under CI=true), unmounted on exit.  A SIGTERM
# that arrives in the middle of a large append cannot be timed with a real
# signal (a local write is one system call): a STAND-IN, the preloaded
# fault shim (fault-shim.c), writes half, raises SIGTERM, then writes the
# rest.
#
# Environment: GATE, SRCDIR, FAULT_SHIM.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin append
mnt=$work/mnt
cleanup_extra() { mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; }
fixtures kern2023_base.csv kern2023_cur120plus1.csv
# every line a JSON object, the file ending in a newline, COUNT lines
whole_lines() {   # whole_lines FILE COUNT
    "${PYTHON:-python3}" - "$1" "$2" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
lines = data.split(b"\n")
ok = data.endswith(b"\n") and len(lines) - 1 == int(sys.argv[2])
for line in lines[:-1]:
    try:
        ok = ok and isinstance(json.loads(line), dict)
    except ValueError:
        ok = False
if not ok:
    nl = data.endswith(b"\n")
    print(f"# {sys.argv[1]}: {len(lines) - 1} lines, {len(data)} bytes, ends in newline: {nl}")
sys.exit(0 if ok else 1)
PY
}
many big_base.csv 1000000 12000   # with --top 12000: a history line of 35 KB (history
many big_cur.csv 1500000 12000    # lines stay under 64 KB), a step summary of 1 MiB
many mid_base.csv 1000000 300     # a history line of about 35 KB with --top 300
many mid_cur.csv 1500000 300
big=(--top 12000 --verbose big_base.csv big_cur.csv)
seed='{"name": "an earlier run", "verdict": "pass"}'

# ---- a SIGTERM in the middle of a large append (stand-in: the fault shim) ----
if [ -n "${FAULT_SHIM:-}" ] && [ -f "$FAULT_SHIM" ]; then
    echo "$seed" >term.jsonl
    LD_PRELOAD=$FAULT_SHIM NG_SHIM_TERM_WRITE_MIN=20000 \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$GATE" --quiet --history term.jsonl "${big[@]}" 2>term.err
    rc=$?
    check "SIGTERM mid-append: the gate still dies of it (143), got $rc" test "$rc" = 143
    check "SIGTERM mid-append: the line went in whole (2 whole lines)" whole_lines term.jsonl 2
else
    fail=$((fail + 1)); echo "not ok - no FAULT_SHIM"
fi

# ---- a fragment left by a writer that was killed: the next line starts afresh ----
printf '%s\n{"name": "torn", "verd' "$seed" >torn.jsonl
"$GATE" --quiet --epochs 10 --history torn.jsonl kern2023_base.csv kern2023_cur120plus1.csv
check "after a torn last line, the new line is not glued onto it" \
    test "$(tail -n 1 torn.jsonl | "${PYTHON:-python3}" -c 'import json,sys; print(json.load(sys.stdin)["verdict"])')" = fail
check "after a torn last line, the fragment keeps its own line" \
    test "$(sed -n 2p torn.jsonl)" = '{"name": "torn", "verd'

# ---- a nearly full disk: a real one ----
mounted=0
if [ "$(id -u)" = 0 ] && mkdir -p "$mnt" && mount -t tmpfs -o size=4m,mode=0755 ng-gate-test "$mnt" 2>/dev/null; then
    mounted=1
elif [ "${CI:-}" = true ]; then
    fail=$((fail + 1)); echo "not ok - cannot mount a tmpfs (needs root; CI=true: a skip is a failure)"
else
    echo "# not root or no tmpfs: the full-disk cases are skipped"
fi

fill() {   # fill FREE-KB: fill the tmpfs, then free FREE-KB of it
    rm -f "$mnt/fill"
    dd if=/dev/zero of="$mnt/fill" bs=64k 2>/dev/null
    [ "$1" -gt 0 ] && truncate -s "-$1k" "$mnt/fill"
    sync
}

if [ "$mounted" = 1 ]; then
    echo "$seed" >"$mnt/h.jsonl"
    printf '### an earlier step\n' >"$mnt/summary.md"
    sum_before=$(sha256sum "$mnt/h.jsonl" "$mnt/summary.md")
    fill 8
    GITHUB_STEP_SUMMARY=$mnt/summary.md GITHUB_OUTPUT=$mnt/outputs \
        "$GATE" --quiet --github --history "$mnt/h.jsonl" "${big[@]}" >/dev/null 2>full.err
    rc=$?
    check "nearly full disk: exit 2, got $rc" test "$rc" = 2
    check "nearly full disk: the error names --history and the disk" \
        grep -q "^ERROR: --history: unable to append to '$mnt/h.jsonl': No space left on device; the file is left as it was$" full.err
    check "nearly full disk: the history and the step summary are as they were" \
        test "$(sha256sum "$mnt/h.jsonl" "$mnt/summary.md")" = "$sum_before"
    check "nearly full disk: the small step outputs still fit (the rollback gave the space back)" \
        grep -qx 'verdict=fail' "$mnt/outputs"

    fill 0
    "$GATE" --quiet --epochs 10 --history "$mnt/new.jsonl" kern2023_base.csv \
        kern2023_cur120plus1.csv 2>new.err
    rc=$?
    check "full disk, a new history file: exit 2, got $rc" test "$rc" = 2
    check "full disk, a new history file: no 0-byte file is left" test ! -e "$mnt/new.jsonl"

    # 24 gates append at once and the disk fills partway: the lines that
    # went in are whole, one per gate that succeeded, and every other gate
    # said why
    rm -f "$mnt/h.jsonl" "$mnt/summary.md" "$mnt/outputs"
    fill 700
    pids=()
    for i in $(seq 1 24); do
        "$GATE" --quiet --top 300 --name "gate-$i" --history "$mnt/c.jsonl" mid_base.csv \
            mid_cur.csv 2>"c$i.err" &
        pids+=($!)
    done
    ok=0 full=0 other=0
    for p in "${pids[@]}"; do
        wait "$p"
        case $? in
        1) ok=$((ok + 1)) ;;
        2) full=$((full + 1)) ;;
        *) other=$((other + 1)) ;;
        esac
    done
    echo "# 24 appenders: $ok appended, $full refused by the full disk, $other other"
    check "24 appenders on a filling disk: some appended and some did not fit" \
        test "$ok" -gt 0 -a "$full" -gt 0 -a "$other" = 0
    check "24 appenders on a filling disk: $ok whole lines, nothing torn" \
        whole_lines "$mnt/c.jsonl" "$ok"
    check "24 appenders on a filling disk: each refusal names the disk" \
        test "$(cat c*.err | grep -c 'No space left on device; the file is left as it was')" = "$full"
fi

robust_done
