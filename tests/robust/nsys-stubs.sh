#!/usr/bin/env bash
# The nsys subprocess, contained: each check runs the gate on an .nsys-rep
# with a STUB nsys, because real nsys cannot produce these failures on
# demand (spew gigabytes, leave a child holding the pipes, hang until the
# gate is signalled).  The stubs answer `--version` with exit 1, so the
# export cache is skipped and the export goes to the private directory
# under $TMPDIR that the checks look at.
#
#   1. 1 GiB on stdout and 1 GiB on stderr, then exit 3: exit 2 naming the
#      exit and the stub's last words, and the gate's peak RSS stays small
#      (the tail kept is 64 KiB).
#   2. exits after forking a child that keeps both pipes open and writes
#      on: the gate does not wait for the child, reads the export, and the
#      child (in the stub's process group) is killed.
#   3. SIGTERM and SIGINT to the gate while the stub hangs: the gate dies of
#      that signal within 2 s, its temporary directory is gone, and the
#      stub and its child are killed.
#   4. the --nsys-timeout kill reaches the stub's whole process group.
#
# Environment: GATE, GENTRACE.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-stubs.XXXXXX")
trap 'for p in "$work"/*.pid; do [ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done; rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir tmp
export TMPDIR=$work/tmp XDG_CACHE_HOME=$work/cache
printf 'NVIDIA Tegra Profiler Report 1' >run.nsys-rep
"$GENTRACE" -o export.sqlite --kernels 30 --names 3 --no-nvtx >/dev/null || exit 1
want=$("$GATE" --print-profile export.sqlite | tail -n +2)

pass=0 fail=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}
# dead: gone, or a zombie waiting for a reaper that is not the gate
dead() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
dead_pidfile() { local p; p=$(cat "$1") && { for _ in $(seq 20); do dead "$p" && return 0; sleep 0.1; done; return 1; }; }
no_tmp_left() { [ -z "$(ls -A tmp)" ]; }
stub() {   # stub NAME BODY: a stub nsys; BODY runs for the export call
    printf '#!/bin/sh\n# STUB nsys (see the top of nsys-stubs.sh)\n[ "$1" = --version ] && exit 1\n%s\n' "$2" >"$1"
    chmod +x "$1"
}
# the value after --output in the stub's arguments
out_arg='while [ "$1" != --output ]; do shift; done; out=$2'

# 1. gigabytes on both pipes
stub spew 'head -c 1073741824 /dev/zero | tr "\0" x & head -c 1073741824 /dev/zero >&2; wait; echo "spew: giving up" >&2; exit 3'
"${PYTHON:-python3}" - "$GATE" >rss.txt 2>spew.err <<'PY'
import resource, subprocess, sys
# --quiet: the progress lines of this slow export are not what is checked
r = subprocess.run([sys.argv[1], "--quiet", "--nsys", "./spew", "--print-profile", "run.nsys-rep"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
sys.stderr.buffer.write(r.stderr)
# the largest resident set of any reaped descendant: the gate (the stub's
# head/tr stay far below it)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
read -r spew_rc spew_kb <rss.txt
check "spew: exit 2" test "$spew_rc" = 2
check "spew: the error names the exit status and keeps the stub's last words" \
    grep -q "^ERROR: nsys export failed for 'run.nsys-rep' (exit 3): .*spew: giving up$" spew.err
# (--print-profile says the gate's warnings too: here that the cache is not used)
check "spew: one line on stderr besides the warnings, at most a few KB" \
    test "$(grep -vc '^WARNING: ' spew.err)" = 1 -a "$(grep -v '^WARNING: ' spew.err | wc -c)" -lt 4096
# a sanitizer build starts near 30 MB; without the cap it would be > 2 GB
check "spew: peak RSS ${spew_kb} KB < 150 MB after 2 GiB of output" test "$spew_kb" -lt 153600
check "spew: no temporary directory left" no_tmp_left

# 2. a child that keeps the pipes open and keeps writing
stub forker "$out_arg"'; cp '"$work"'/export.sqlite "$out"; (echo $$ >/dev/null; exec yes holding-the-pipes) & echo $! > '"$work"'/forker-child.pid; exit 0'
start=$(date +%s%N)
timeout 60 "$GATE" --nsys ./forker --print-profile run.nsys-rep >forker.out 2>forker.err
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "forker: exit 0" test "$rc" = 0
check "forker: the gate returned in ${ms} ms (< 5000), not waiting for the child" test "$ms" -lt 5000
check "forker: the export's rows" test "$(tail -n +2 forker.out)" = "$want"
check "forker: the child holding the pipes was killed with the stub's group" dead_pidfile forker-child.pid
check "forker: no temporary directory left" no_tmp_left

# 3. SIGTERM / SIGINT while the stub hangs
stub hang 'echo $$ > '"$work"'/hang.pid; sleep 600 & echo $! > '"$work"'/hang-child.pid; wait'
for sig in TERM INT; do
    rm -f hang.pid hang-child.pid
    # setsid: a background job of this non-interactive shell would ignore SIGINT
    setsid "$GATE" --nsys ./hang --print-profile run.nsys-rep >sig.out 2>sig.err &
    gate=$!
    for _ in $(seq 100); do [ -s hang-child.pid ] && break; sleep 0.05; done
    check "SIG$sig: the stub started and made its temporary directory" \
        test -s hang-child.pid -a -n "$(ls -A tmp)"
    start=$(date +%s%N)
    kill -s "$sig" "$gate"
    wait "$gate"
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    want_rc=$((128 + $(kill -l "$sig")))
    check "SIG$sig: the gate died of the signal (status $rc, want $want_rc)" test "$rc" = "$want_rc"
    check "SIG$sig: within ${ms} ms (< 2000)" test "$ms" -lt 2000
    check "SIG$sig: its temporary directory is gone" no_tmp_left
    check "SIG$sig: the stub was killed" dead_pidfile hang.pid
    check "SIG$sig: the stub's child was killed" dead_pidfile hang-child.pid
done

# 4. the timeout kills the whole group
rm -f hang.pid hang-child.pid
"$GATE" --nsys ./hang --nsys-timeout 0.5 --print-profile run.nsys-rep >timeout.out 2>timeout.err
rc=$?
check "timeout: exit 2" test "$rc" = 2
check "timeout: the error says it was killed" grep -q "did not finish in 0.5 s and was killed" timeout.err
check "timeout: the stub was killed" dead_pidfile hang.pid
check "timeout: the stub's child was killed" dead_pidfile hang-child.pid
check "timeout: no temporary directory left" no_tmp_left

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
