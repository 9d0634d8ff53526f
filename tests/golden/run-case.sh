#!/usr/bin/env bash
# Runs one golden case: builds its inputs in a fresh directory, runs the
# gate, validates every JSON and XML it wrote against the schemas, and
# compares stdout, stderr, the exit code and the named output files byte for
# byte with tests/golden/expected/<case>/.  UPDATE_GOLDEN=1 rewrites them.
#
# A case file holds directives, one per line ('#' starts a comment):
#   @GEN FILE ARGS...     write a SQLite export with the project's generator
#   @FIXTURE NAME [AS]    copy tests/golden/fixtures/NAME into the directory
#   @SH COMMAND           any set-up (a FIFO, a corrupted copy, a stub nsys)
#   @ENV NAME=VALUE       environment for the gate
#   @RUN ARGS...          the gate's arguments (shell words)
#   @EXIT N               the expected exit status
#   @OUTPUT FILE          an output file to compare (stdout/stderr always are)
#   @ABSENT FILE          a file that must not exist afterwards
#   @CHECK COMMAND        a check after the run, in the case directory (an
#                         input left untouched, no process left behind);
#                         the case fails when it fails, and is skipped at
#                         best when it exits 77 (it cannot check here)
#   @NO_WRAPPER REASON    run the gate without GATE_WRAPPER (e.g. a TMPDIR
#                         that valgrind itself cannot start with)
#
# Environment: GATE, GENTRACE, SRCDIR (project root); SHARED optional.
# GATE_WRAPPER (optional): a command the gate runs under, e.g. valgrind in
# the `valgrind` suite.  It gets GATE_WRAPPER_LOG, a file outside the case
# directory for its own report (valgrind --log-file=%q{GATE_WRAPPER_LOG});
# anything written there fails the case.  PYTHON: the Python of the
# outputs' validation (python3 by default); one without a module that a
# validation needs leaves that file unvalidated, and the case, when all
# else is as expected, skipped with the module's name (exit 77;
# tests/tools/needs.py: a failure under CI=true).
#
# The gate gets GOLDEN_LIMIT seconds (30 by default), times the load per
# processor where the machine is busier than it has processors (builds and
# other suites beside it): a case fails for a gate that hangs or crawls,
# not for sharing the machine.  meson's timeout is the backstop.
set -u
PYTHON=${PYTHON:-python3}
case_file=$1
name=$(basename "$case_file" .case)
expected="$SRCDIR/tests/golden/expected/$name"
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-golden.XXXXXX")
export GATE_WRAPPER_LOG=$work.wrapper.log
trap 'rm -rf "$work" "$work.check" "$GATE_WRAPPER_LOG"' EXIT
fail() { echo "golden $name: $*" >&2; exit 1; }

# XDG_CACHE_HOME: the export cache stays inside the case's directory (which
# exists: the gate does not create a cache's missing parent)
mkdir "$work/.cache"
gate_env=(SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C XDG_CACHE_HOME="$work/.cache")
args=()
want_exit=
outputs=()
absent=()
checks=()

# Only the case's own NSYS_GATE_* and GITHUB_* settings reach the gate, in
# @SH set-up too (a GITHUB_ACTIONS=true from the CI running these tests
# would turn on the GitHub reporter), and no CI system's marker (GitLab's,
# Jenkins') would make the gate read the CI running the tests as its run
# context.
for v in $(compgen -e | grep -E '^(NSYS_GATE_|GITHUB_|GITLAB_CI$|JENKINS_URL$|JENKINS_HOME$)'); do unset "$v"; done

cd "$work" || exit 1
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    '#'* | '') continue ;;
    '@GEN '*)
        eval "gen=(${line#@GEN })"
        "$GENTRACE" -o "${gen[0]}" "${gen[@]:1}" >/dev/null || fail "generator failed: $line"
        ;;
    '@FIXTURE '*)
        eval "fx=(${line#@FIXTURE })"
        cp "$SRCDIR/tests/golden/fixtures/${fx[0]}" "./${fx[1]:-${fx[0]}}" || fail "no fixture ${fx[0]}"
        ;;
    '@SH '*) bash -c "${line#@SH }" || fail "set-up failed: $line" ;;
    '@ENV '*) gate_env+=("${line#@ENV }") ;;
    '@RUN '*) eval "args=(${line#@RUN })" ;;
    '@EXIT '*) want_exit=${line#@EXIT } ;;
    '@OUTPUT '*) outputs+=("${line#@OUTPUT }") ;;
    '@ABSENT '*) absent+=("${line#@ABSENT }") ;;
    '@CHECK '*) checks+=("${line#@CHECK }") ;;
    '@NO_WRAPPER '*) [ -n "${GATE_WRAPPER:-}" ] && echo "golden $name: without ${GATE_WRAPPER%% *}: ${line#@NO_WRAPPER }"
        GATE_WRAPPER= ;;
    *) fail "unknown directive: $line" ;;
    esac
done <"$case_file"
[ -n "$want_exit" ] || fail "no @EXIT"

# the time limit, scaled by the load of the last minute when it is more
# than one a processor
cpus=$(nproc 2>/dev/null || echo 1)
load=$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo 0)
limit=$(awk -v b="${GOLDEN_LIMIT:-30}" -v l="$load" -v n="$cpus" \
    'BEGIN { f = l / n; t = b * (f > 1 ? f : 1); printf "%d", t < 1 ? 1 : t + 0.5 }')
timer=()
command -v timeout >/dev/null && timer=(timeout --foreground -k 10 "$limit")

# shellcheck disable=SC2086  # the wrapper is a command line
"${timer[@]}" env "${gate_env[@]}" ${GATE_WRAPPER:-} "$GATE" "${args[@]}" >stdout 2>stderr
got_exit=$?
if [ ${#timer[@]} -gt 0 ] && [ "$got_exit" = 124 ]; then
    fail "the gate ran past its ${limit} s (load $load on $cpus processors)"
fi
if [ -s "$GATE_WRAPPER_LOG" ]; then
    echo "golden $name: ${GATE_WRAPPER%% *} reported:" >&2
    cat "$GATE_WRAPPER_LOG" >&2
    fail "the gate failed under its wrapper"
fi

# What differs from run to run: the host, the elapsed time, temp names.
normalise() {
    sed -E -e 's/hostname="[^"]*"/hostname="HOST"/' \
        -e 's/time="[0-9]+\.[0-9]{3}"/time="0.000"/g' \
        -e 's/nsys-gate\.[A-Za-z0-9]{6}/nsys-gate.XXXXXX/g' "$1" |
        if [ "$1" = stderr ]; then
            # progress lines depend on timing and on the order gates finish in:
            # tests/robust/progress.sh checks them
            grep -Ev "^(\[[0-9]+/[0-9]+\] |nsys-gate: ([^ ]+: )?(exporting|exported|export of) )" || true
        else
            cat
        fi
}

status=0
unchecked=()   # what could not be checked here, and why
# checked COMMAND...: 0 passes, 77 cannot check here (its first line of
# stdout says why), anything else fails the case
checked() {
    local out rc
    out=$("$@")
    rc=$?
    case $rc in
    0) ;;
    77) unchecked+=("${out%%$'\n'*}") ;;
    *) [ -n "$out" ] && echo "$out" >&2; status=1 ;;
    esac
}
validate() {
    local f=$1 needs=
    case $f in
    *.json | *.jsonl | *.json.gz) needs=jsonschema ;;
    *.prom | metrics.txt) needs=prometheus_client ;;
    esac
    case $f in
    *.json | *.jsonl | *.json.gz | *.prom | metrics.txt | github_output* | *.md)
        # each checked as its consumer reads it: schemas, OpenMetrics and
        # GitLab's metrics rule, the runner's output-file syntax
        checked "$PYTHON" "$SRCDIR/tests/tools/needs.py" "$needs" \
            "$SRCDIR/tests/ci/validate_output.py" "$SRCDIR" "$f"
        ;;
    *.html)
        # the policy and its hashes, nothing loaded, links, well-formed SVG
        "$PYTHON" "$SRCDIR/tests/html/check_pages.py" "$f" || status=1
        ;;
    *.xml)
        local xsds=("$SRCDIR/schemas/junit.xsd")
        if [ -n "${SHARED:-}" ] && [ -d "$SHARED/reference/junit" ]; then
            xsds+=("$SHARED"/reference/junit/*.xsd)
        fi
        for x in "${xsds[@]}"; do
            xmllint --noout --schema "$x" "$f" 2>xmllint.err || {
                echo "$f does not validate against $(basename "$x"):" >&2
                cat xmllint.err >&2
                status=1
            }
        done
        ;;
    esac
}

for f in "${outputs[@]}"; do
    [ -f "$f" ] || { echo "golden $name: $f was not written" >&2; status=1; continue; }
    validate "$f"
done
for f in "${absent[@]}"; do
    [ -e "$f" ] && { echo "golden $name: $f should not exist" >&2; status=1; }
done
for c in "${checks[@]}"; do
    bash -c "$c" >"$work.check"
    rc=$?
    cat "$work.check" >&2
    case $rc in
    0) ;;
    77) unchecked+=("$(head -n 1 "$work.check")") ;;
    *) echo "golden $name: check failed: $c" >&2; status=1 ;;
    esac
done
# Whatever the inputs held, no raw ESC (nor CSI, U+009B, the C1 control
# some terminals take for ESC [) reaches a terminal: they are shown as \xNN.
for f in stdout stderr; do
    if LC_ALL=C grep -q "$(printf '\033')" "$f" || LC_ALL=C grep -q "$(printf '\302\233')" "$f"; then
        echo "golden $name: a raw terminal escape in the gate's $f" >&2
        status=1
    fi
done
# a report file is complete or absent: no temporary left behind
if ls -a | grep -q '\.tmp\.'; then
    echo "golden $name: a temporary output file was left behind" >&2
    status=1
fi

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    mkdir -p "$expected"
    normalise stdout >"$expected/stdout"
    normalise stderr >"$expected/stderr"
    for f in "${outputs[@]}"; do [ -f "$f" ] && normalise "$f" >"$expected/$f"; done
    sed -i "s/^@EXIT .*/@EXIT $got_exit/" "$case_file"
    echo "golden $name: expectations rewritten (exit $got_exit)"
    exit $status
fi

if [ "$got_exit" != "$want_exit" ]; then
    echo "golden $name: exit $got_exit, expected $want_exit" >&2
    echo "--- stderr:" >&2
    cat stderr >&2
    status=1
fi
for f in stdout stderr "${outputs[@]}"; do
    [ -f "$f" ] || continue
    if ! diff -u "$expected/$f" <(normalise "$f") >&2; then
        echo "golden $name: $f differs from expected/$name/$f" >&2
        status=1
    fi
done
if [ $status = 0 ] && [ ${#unchecked[@]} -gt 0 ]; then
    echo "golden $name: as expected, but not every check could run here:"
    printf '  %s\n' "${unchecked[@]}"
    exit 77
fi
[ $status = 0 ] && echo "golden $name: ok"
exit $status
