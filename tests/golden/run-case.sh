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
#
# Environment: GATE, GENTRACE, SRCDIR (project root); SHARED optional.
set -u
case_file=$1
name=$(basename "$case_file" .case)
expected="$SRCDIR/tests/golden/expected/$name"
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "golden $name: $*" >&2; exit 1; }

# XDG_CACHE_HOME: the export cache stays inside the case's directory
gate_env=(SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C XDG_CACHE_HOME="$work/.cache")
args=()
want_exit=
outputs=()
absent=()

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
    *) fail "unknown directive: $line" ;;
    esac
done <"$case_file"
[ -n "$want_exit" ] || fail "no @EXIT"

# Only the case's own NSYS_GATE_* settings reach the gate.
for v in $(compgen -e | grep '^NSYS_GATE_'); do unset "$v"; done
env "${gate_env[@]}" "$GATE" "${args[@]}" >stdout 2>stderr
got_exit=$?

# What differs from run to run: the host, the elapsed time, temp names.
normalise() {
    sed -E -e 's/hostname="[^"]*"/hostname="HOST"/' \
        -e 's/time="[0-9]+\.[0-9]{3}"/time="0.000"/g' \
        -e 's/nsys-gate\.[A-Za-z0-9]{6}/nsys-gate.XXXXXX/g' "$1"
}

status=0
validate() {
    local f=$1
    case $f in
    *.json)
        /usr/bin/python3 - "$SRCDIR/schemas/verdict.schema.json" "$f" <<'PY' || status=1
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
with open(sys.argv[2], encoding="utf-8") as f:
    doc = json.load(f)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
for e in errors:
    print(f"{sys.argv[2]}: schema: {e.message} at {list(e.path)}", file=sys.stderr)
sys.exit(1 if errors else 0)
PY
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
[ $status = 0 ] && echo "golden $name: ok"
exit $status
