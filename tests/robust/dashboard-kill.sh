#!/usr/bin/env bash
# nsys-gate dashboard killed outright (SIGKILL: a CI timeout, the OOM killer) leaves its
# temporary site (site.tmp.XXXXXX) beside the site: no handler runs.  The next run removes
# such leftovers of its own making (its user's, no process holding them), as the export
# cache prunes its killed fill directories; another user's, and one a live run holds, stay.
. "$SRCDIR/tests/robust/lib.sh"
robust_begin dashboard-kill

dashboard_inputs 30
leftovers() { ls -a | grep -cE '^site\.tmp\.' ; }

for i in 1 2 3; do
    "$GATE" dashboard --quiet -o site big.jsonl & pid=$!
    # killed once its temporary site exists
    for _ in $(seq 200); do [ "$(leftovers)" -ge "$i" ] && break; sleep 0.02; done
    kill -KILL "$pid"; wait "$pid" 2>/dev/null
done
check "three kills: three temporary sites left" test "$(leftovers)" = 3
# a leftover is pruned once it has not changed for a while (not one a run is creating)
touch -d '1 hour ago' site.tmp.*
other=
if [ "$(id -u)" = 0 ]; then
    mkdir site.tmp.Other1 && chown 65534 site.tmp.Other1 && touch -d '1 hour ago' site.tmp.Other1 && other=1
fi
check "the next run: a whole site" "$GATE" dashboard --quiet -o site small.jsonl
check "the next run: its own leftovers removed" test -z "$(ls -a | grep -E '^site\.tmp\.' | grep -v Other1)"
if [ -n "$other" ]; then
    check "another user's directory left alone" test -d site.tmp.Other1
    rm -rf site.tmp.Other1
else
    echo "note: not root: another user's directory not tried"
fi
# a temporary site a live run holds is not removed by another run
"$GATE" dashboard --quiet -o site big.jsonl & pid=$!
for _ in $(seq 200); do [ "$(leftovers)" -ge 1 ] && break; sleep 0.02; done
held=$(ls -d site.tmp.* 2>/dev/null | head -n 1)
touch -d '1 hour ago' "$held"
"$GATE" dashboard --quiet -o other small.jsonl >/dev/null   # a run beside it ...
"$GATE" dashboard --quiet -o site small.jsonl                # ... and one on the same site
wait "$pid"; rc=$?
check "a live run's temporary site left to it: it finished ($rc)" test "$rc" = 0
check "a live run's temporary site: a whole site, nothing left" \
    eval 'test -f site/.nsys-gate-dashboard && test "$(leftovers)" = 0'
robust_done
