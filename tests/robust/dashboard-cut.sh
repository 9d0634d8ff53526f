#!/usr/bin/env bash
# A history cut short by another process while nsys-gate dashboard reads it (`: > h.jsonl`,
# `truncate`: the dashboard reads a big history in place, mapped, so a page past the new end
# faults): the gate exits 2 with one ERROR line saying the history changed while it was
# read, or finishes first with a whole site; it never dies of the fault, the previous site
# is untouched and nothing is left beside it.  At least one run must be cut mid-read.  A
# SIGBUS sent with kill is not a cut: the gate dies of it.
. "$SRCDIR/tests/robust/lib.sh"
robust_begin dashboard-cut
# the fault ends the read where it is: what that read held is not freed (the process ends
# with exit 2 right after), which is not the leak LeakSanitizer looks for
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

# some 200 MB: a few tenths of a second of reading on two cores
dashboard_inputs 320

cut=0
for delay in 0.05 0.1 0.15 0.2 0.3; do
    for size in 0 1000000; do
        cp big.jsonl h.jsonl
        "$GATE" dashboard --quiet -o site h.jsonl 2>err & pid=$!
        sleep "$delay"
        truncate -s "$size" h.jsonl
        wait "$pid"; rc=$?
        what="cut to $size bytes after ${delay}s"
        if [ "$rc" = 0 ]; then
            finished_first "$what"
            continue
        fi
        cut=$((cut + 1))
        [ "$rc" = 2 ] || sed 's/^/# /' err | head -n 20
        check "$what: exit 2, not a signal (status $rc)" test "$rc" = 2
        check "$what: one ERROR line, naming the history" \
            test "$(grep -c '^ERROR: ' err)" = 1 -a "$(grep -c "history 'h.jsonl' .*while it was read" err)" = 1
        check "$what: the earlier site untouched, nothing left beside it" untouched
    done
done
check "at least one run was cut while it read ($cut)" test "$cut" -gt 0
# a cut between the two reads of a latest run's line (after the scan, before its section's
# read: no timing hits that on demand, so the fault shim's pread reads nothing past the
# last 50 kB, as if the file had just been cut there): exit 2, the line named by its own
# number in the whole file, no crash
size=$(stat -c %s big.jsonl) lines=$(wc -l <big.jsonl)
shim=(LD_PRELOAD="${FAULT_SHIM:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")
env "${shim[@]}" NG_SHIM_PREAD_END=$((size - 50000)) "$GATE" dashboard --quiet -o site big.jsonl 2>err
rc=$?
check "cut between a line's two reads: exit 2 (status $rc)" test "$rc" = 2
line=$(sed -nE "s/^ERROR: the history 'big.jsonl' changed while it was read \(line ([0-9]+)\)$/\1/p" err)
check "cut between a line's two reads: one ERROR naming a line of the last 50 kB ($line of $lines)" \
    test "$(grep -c '^ERROR: ' err)" = 1 -a -n "$line" -a "${line:-0}" -gt $((lines - 50)) -a "${line:-0}" -le "$lines"
check "cut between a line's two reads: the earlier site untouched, nothing left beside it" untouched
# a cut inside the last page of a window faults nothing (the page reads as NULs): the size
# checked after the read catches it (the shim's fstat says one byte less the second time)
env "${shim[@]}" NG_SHIM_FSTAT_SHRINK="$size" "$GATE" dashboard --quiet -o site big.jsonl 2>err
rc=$?
check "a cut no page fault shows: exit 2 (status $rc)" test "$rc" = 2
check "a cut no page fault shows: one ERROR, the history got shorter" \
    test "$(grep -c '^ERROR: ' err)" = 1 -a "$(grep -c "^ERROR: the history 'big.jsonl' got shorter while it was read$" err)" = 1
check "a cut no page fault shows: the earlier site untouched, nothing left beside it" untouched
# a file system that cannot map files: the history is read instead, into the same site
SOURCE_DATE_EPOCH=1700000000 "$GATE" dashboard --quiet -o mapped big.jsonl
env "${shim[@]}" NG_SHIM_MMAP_FAIL=1 SOURCE_DATE_EPOCH=1700000000 "$GATE" dashboard --quiet \
    -o unmapped big.jsonl
check "no mmap: read instead (status $?)" test -f unmapped/.nsys-gate-dashboard
check "no mmap: the same site as mapped" diff -r mapped unmapped
rm -rf mapped unmapped
# a SIGBUS sent from outside is no cut: the gate dies of it, as it would without the guard
# (it must not hang, nor say the history got shorter)
for delay in 0.05 0.15; do
    cp big.jsonl h.jsonl
    "$GATE" dashboard --quiet -o site h.jsonl 2>err & pid=$!
    sleep "$delay"
    kill -BUS "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    if [ "$rc" = 0 ]; then
        finished_first "kill -BUS after ${delay}s"
        continue
    fi
    check "kill -BUS after ${delay}s: died of it (status $rc)" test "$rc" -gt 128
    check "kill -BUS after ${delay}s: not taken for a cut" test "$(grep -c 'got shorter' err)" = 0
    check "kill -BUS after ${delay}s: the earlier site untouched, nothing left beside it" untouched
done
robust_done
