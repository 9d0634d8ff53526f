#!/usr/bin/env bash
# Another process holds a history file's lock (anyone who can read a file
# can flock it): --baseline-history, --history, dashboard and changes wait
# a bounded time, then one ERROR line naming the file and that it is
# locked, exit 2; the other reports are still written.  Without the bound
# each of them waited as long as the lock was held (here: forever).
. "$SRCDIR/tests/robust/lib.sh"
robust_begin lock-wait

"$GENTRACE" -o b.sqlite --kernels 300 --names 4 --epochs 4 >/dev/null || exit 1
SOURCE_DATE_EPOCH=1700000000 "$GATE" --quiet --name g b.sqlite b.sqlite --history h.jsonl || exit 1
holder=
cleanup_extra() { [ -n "$holder" ] && kill "$holder" 2>/dev/null; wait 2>/dev/null; }
hold() {   # hold -s|-x FILE: a lock on FILE, held by one process until release
    "${PYTHON:-python3}" -c 'import fcntl, sys, time
f = open(sys.argv[2])
fcntl.flock(f, fcntl.LOCK_SH if sys.argv[1] == "-s" else fcntl.LOCK_EX)
time.sleep(600)' "$1" "$2" </dev/null >/dev/null 2>&1 & holder=$!
    for _ in $(seq 50); do
        flock -n -x "$2" true 2>/dev/null || return 0   # taken
        sleep 0.1
    done
}
release() { kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; holder=; }

# run SECONDS CMD...: the command's status, or 124 past SECONDS
run() { local s=$1; shift; timeout "$s" "$@"; }

hold -x h.jsonl
run 20 "$GATE" --baseline-history h.jsonl --name g --json v1.json b.sqlite >out1 2>err1; rc=$?
check "--baseline-history: gives up, exit 2 (not a hang: $rc)" test "$rc" = 2
check "--baseline-history: the ERROR names the file and the lock" grep -q "^ERROR: .*'h.jsonl'.*locked" err1
check "--baseline-history: one line" test "$(wc -l <err1)" = 1
check "--baseline-history: the JSON report still written" valid_json v1.json
run 20 "$GATE" dashboard --quiet -o site h.jsonl >out2 2>err2; rc=$?
check "dashboard: gives up, exit 2 ($rc)" test "$rc" = 2
check "dashboard: the ERROR names the file and the lock" grep -q "^ERROR: .*'h.jsonl'.*locked" err2
run 20 "$GATE" changes h.jsonl >out3 2>err3; rc=$?
check "changes: gives up, exit 2 ($rc)" test "$rc" = 2
check "changes: the ERROR names the file and the lock" grep -q "^ERROR: .*'h.jsonl'.*locked" err3
release

hold -s h.jsonl
lines=$(wc -l <h.jsonl)
run 20 "$GATE" --name g --history h.jsonl --json v4.json --junit j4.xml b.sqlite b.sqlite >out4 2>err4; rc=$?
check "--history: gives up, exit 2 ($rc)" test "$rc" = 2
check "--history: the ERROR names the file and the lock" grep -q "^ERROR: .*'h.jsonl'.*locked" err4
check "--history: the other reports still written" eval 'valid_json v4.json && test -s j4.xml'
check "--history: the file untouched" test "$(wc -l <h.jsonl)" = "$lines"
release

# a lock held briefly is waited for, as before
flock -x h.jsonl sleep 1 </dev/null >/dev/null 2>&1 & sleep 0.2
check "a lock held for a second: waited for, the line appended" \
    "$GATE" --quiet --name g --history h.jsonl b.sqlite b.sqlite
wait
check "a lock held for a second: one more line" test "$(wc -l <h.jsonl)" = $((lines + 1))
robust_done
