# Shared by the robust scripts (sourced): a private work directory, removed
# on exit (NG_KEEP=1 keeps it; a script may define cleanup_extra to run
# first, e.g. to unmount), no NSYS_GATE_* or GITHUB_* variable from the
# caller, a check() that counts, and the inputs several scripts make.
#
#   . "$SRCDIR/tests/robust/lib.sh"; robust_begin NAME
robust_begin() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/ng-$1.XXXXXX")
    robust_name=$1
    trap robust_end EXIT
    cd "$work" || exit 1
    for v in $(compgen -e | grep -E '^(NSYS_GATE_|GITHUB_)'); do unset "$v"; done
    pass=0 fail=0
}

robust_end() {
    declare -F cleanup_extra >/dev/null && cleanup_extra
    [ -n "${NG_KEEP:-}" ] || rm -rf "$work"
}

check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); echo "ok - $what"; else fail=$((fail + 1)); echo "not ok - $what"; fi
}

# The closing line and status.
robust_done() {
    echo "$robust_name: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}

valid_json() { "${PYTHON:-python3}" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# many FILE NS COUNT: a saved kernel summary of COUNT kernels with
# 160-character names, NS + i ns each (12,000 make a --top 12000 verbose
# report of megabytes)
many() {
    awk -v ns="$2" -v n="${3:-12000}" 'BEGIN {
        print "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
        for (i = 0; i < n; i++)
            printf "0.0,%d,10,1.0,1.0,1,1,0.0,kernel_%06d_%0150d\n", ns + i, i, 0
    }' >"$1"
}

# fixtures NAME...: copies of the golden fixtures
fixtures() {
    for f in "$@"; do cp "$SRCDIR/tests/golden/fixtures/$f" . || exit 1; done
}

# dashboard_inputs COPIES: small.jsonl (one verdict), a site of it (its index copied to
# before.html), and big.jsonl: COPIES times the same verdict for each of 200 gates
dashboard_inputs() {
    local line i
    "$GENTRACE" -o b.sqlite --kernels 300 --names 6 --epochs 6 --seed 1 >/dev/null || exit 1
    SOURCE_DATE_EPOCH=1700000000 "$GATE" --quiet --epoch-range auto --name small b.sqlite \
        b.sqlite --history small.jsonl || exit 1
    "$GATE" dashboard --quiet -o site small.jsonl || exit 1
    cp site/index.html before.html
    line=$(head -n 1 small.jsonl)
    for i in $(seq 0 199); do printf '%s\n' "${line/\"name\":\"small\"/\"name\":\"g$i\"}"; done >block.jsonl
    for _ in $(seq 1 "$1"); do cat block.jsonl; done >big.jsonl
}

# The site still the one before.html was copied from, nothing left beside it.
untouched() {
    cmp -s before.html site/index.html && test -z "$(ls -a | grep -E '^site\.tmp\.')"
}

# A dashboard run that ended before the signal or cut meant for it: the new site is whole;
# then the small site again, as before.html has it.
finished_first() {   # finished_first WHAT
    check "$1: finished first, a whole site" test -f site/.nsys-gate-dashboard
    "$GATE" dashboard --quiet -o site small.jsonl && cp site/index.html before.html
}
