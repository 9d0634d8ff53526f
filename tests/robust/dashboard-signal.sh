#!/usr/bin/env bash
# nsys-gate dashboard stopped by a signal at any moment (SIGTERM, SIGINT, SIGHUP while a
# large site is being read and written): the previous site is untouched, nothing is left
# beside it, and the gate dies of the signal.  Then a run left alone replaces the site whole.
. "$SRCDIR/tests/robust/lib.sh"
robust_begin dashboard-signal

"$GENTRACE" -o b.sqlite --kernels 300 --names 6 --epochs 6 --seed 1 >/dev/null
SOURCE_DATE_EPOCH=1700000000 "$GATE" --quiet --epoch-range auto --name small b.sqlite b.sqlite --history small.jsonl
"$GATE" dashboard --quiet -o site small.jsonl
cp site/index.html before.html
# a history of some 40 MB: a few seconds of reading and writing
line=$(head -n 1 small.jsonl)
for i in $(seq 0 199); do printf '%s\n' "${line/\"name\":\"small\"/\"name\":\"g$i\"}"; done >block.jsonl
for _ in $(seq 1 60); do cat block.jsonl; done >big.jsonl

untouched() {
    cmp -s before.html site/index.html && test -z "$(ls -a | grep -E '^site\.tmp\.')"
}
for delay in 0.1 0.5 1.0 1.6; do
    for sig in TERM INT HUP; do
        "$GATE" dashboard --quiet -o site big.jsonl & pid=$!
        sleep "$delay"
        kill -s "$sig" "$pid" 2>/dev/null
        wait "$pid"; rc=$?
        if [ "$rc" = 0 ]; then
            # it finished before the signal: the new site is whole
            check "SIG$sig after ${delay}s: finished first, a whole site" test -f site/.nsys-gate-dashboard
            "$GATE" dashboard --quiet -o site small.jsonl && cp site/index.html before.html
            continue
        fi
        check "SIG$sig after ${delay}s: died of it (status $rc)" test "$rc" -gt 128
        check "SIG$sig after ${delay}s: the earlier site untouched, nothing left beside it" untouched
    done
done
check "left alone: a whole new site" "$GATE" dashboard --quiet -o site big.jsonl
check "left alone: 200 gate pages" test "$(ls site/g | wc -l)" = 200
check "left alone: nothing left beside it" test -z "$(ls -a | grep -E '^site\.tmp\.')"
robust_done
