#!/usr/bin/env bash
# A history cut short by another process while nsys-gate dashboard reads it (`: > h.jsonl`,
# `truncate`: the dashboard reads a big history in place, mapped, so a page past the new end
# faults): the gate exits 2 with one ERROR line saying the history changed while it was
# read, or finishes first with a whole site; it never dies of the fault, the previous site
# is untouched and nothing is left beside it.  At least one run must be cut mid-read.
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
            check "$what: finished first, a whole site" test -f site/.nsys-gate-dashboard
            "$GATE" dashboard --quiet -o site small.jsonl && cp site/index.html before.html
            continue
        fi
        cut=$((cut + 1))
        check "$what: exit 2, not a signal (status $rc)" test "$rc" = 2
        check "$what: one ERROR line, naming the history" \
            test "$(grep -c '^ERROR: ' err)" = 1 -a "$(grep -c "history 'h.jsonl' .*while it was read" err)" = 1
        check "$what: the earlier site untouched, nothing left beside it" untouched
    done
done
check "at least one run was cut while it read ($cut)" test "$cut" -gt 0
robust_done
