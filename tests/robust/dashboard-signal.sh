#!/usr/bin/env bash
# nsys-gate dashboard stopped by a signal at any moment (SIGTERM, SIGINT, SIGHUP while a
# large site is being read and written): the gate dies of the signal, nothing is left beside
# the site, and the site is whole: the previous one untouched, or -- for a signal that lands
# after the new site was swapped in, while the process ends -- the whole new one.  Then a
# run left alone replaces the site whole.
. "$SRCDIR/tests/robust/lib.sh"
robust_begin dashboard-signal

# a history of some 40 MB: a few seconds of reading and writing
dashboard_inputs 60

untouched_or_new() {
    untouched || { test -f site/.nsys-gate-dashboard && test "$(ls site/g | wc -l)" = 200 &&
        test -z "$(ls -a | grep -E '^site\.tmp\.')"; }
}
for delay in 0.1 0.5 1.0 1.6; do
    for sig in TERM INT HUP; do
        "$GATE" dashboard --quiet -o site big.jsonl & pid=$!
        sleep "$delay"
        kill -s "$sig" "$pid" 2>/dev/null
        wait "$pid"; rc=$?
        if [ "$rc" = 0 ]; then
            finished_first "SIG$sig after ${delay}s"
            continue
        fi
        check "SIG$sig after ${delay}s: died of it (status $rc)" test "$rc" -gt 128
        check "SIG$sig after ${delay}s: the earlier site untouched or the whole new one, nothing left beside it" \
            untouched_or_new
        if ! cmp -s before.html site/index.html; then
            "$GATE" dashboard --quiet -o site small.jsonl && cp site/index.html before.html
        fi
    done
done
check "left alone: a whole new site" "$GATE" dashboard --quiet -o site big.jsonl
check "left alone: 200 gate pages" test "$(ls site/g | wc -l)" = 200
check "left alone: nothing left beside it" test -z "$(ls -a | grep -E '^site\.tmp\.')"
robust_done
