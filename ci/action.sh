#!/usr/bin/env bash
# The steps of the composite action (action.yml at the repository root).
#
#   ci/action.sh build   builds nsys-gate from the action's own checkout
#                        ($GITHUB_ACTION_PATH) into $RUNNER_TEMP/nsys-gate-build,
#                        installing what is missing with apt-get, and writes
#                        bin=PATH to $GITHUB_OUTPUT.  With NSYS_GATE_BIN set (a
#                        prebuilt binary, e.g. on a self-hosted runner) it builds
#                        nothing; a binary already built earlier in the job is reused.
#   ci/action.sh gate    runs NSYS_GATE_BIN with the action's inputs, given as
#                        INPUT_BASELINE, INPUT_CURRENT (a path, or one path a line for
#                        repeat runs), INPUT_THRESHOLD, INPUT_EPOCHS, INPUT_BASELINE_EPOCHS,
#                        INPUT_CURRENT_EPOCHS, INPUT_EPOCH_RANGE,
#                        INPUT_NAME, INPUT_JUNIT, INPUT_JSON, INPUT_RANKS ("true": --ranks),
#                        INPUT_WRITE_SUMMARY (--write-summary, and the output
#                        summary=PATH once written), INPUT_ARGS.  An empty input
#                        is not set: the gate's NSYS_GATE_* variable or default applies.
#                        The gate writes the step summary, the outputs (verdict, ratio,
#                        ...) and the annotations itself; the exit status is the gate's.
#
# Inputs arrive as environment variables, never spliced into the script, so
# a hostile input (a PR title, a branch name) cannot run commands; INPUT_ARGS
# is split into words like a shell would, quotes included, without expanding
# anything.
set -euo pipefail

# A workflow command must stay one line: % CR LF escaped as @actions/core does.
annotate_error() {
    local msg=${1//%/%25}
    msg=${msg//$'\r'/%0D}
    msg=${msg//$'\n'/%0A}
    echo "::error title=nsys-gate action::$msg"
}

# Also verdict=error, so a later step reading the output sees why it is not pass.
die() {
    annotate_error "$1"
    echo "ERROR: $1" >&2
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "verdict=error" >>"$GITHUB_OUTPUT"; fi
    exit 2
}

# ---- build ----

meson_ok() {
    command -v meson >/dev/null 2>&1 &&
        [ "$(printf '%s\n' 1.0 "$(meson --version)" | sort -V | head -n 1)" = 1.0 ]
}

# The project needs meson >= 1.0; Ubuntu 22.04's apt has 0.61.
ensure_meson() {
    meson_ok && return 0
    local venv=$RUNNER_TEMP/nsys-gate-meson
    echo "meson >= 1.0 is needed: installing it into $venv" >&2
    if ! python3 -m venv "$venv" || ! "$venv/bin/pip" install --quiet 'meson>=1.0'; then
        die "could not install meson >= 1.0 (python3-venv and network access are needed)"
    fi
    export PATH=$venv/bin:$PATH
}

build() {
    local bin
    if [ -n "${NSYS_GATE_BIN:-}" ]; then
        [ -x "$NSYS_GATE_BIN" ] || die "NSYS_GATE_BIN='$NSYS_GATE_BIN' is not an executable"
        bin=$NSYS_GATE_BIN
    else
        local src=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (not a GitHub runner?)}
        local builddir=${RUNNER_TEMP:?RUNNER_TEMP is not set (not a GitHub runner?)}/nsys-gate-build
        bin=$builddir/src/nsys-gate
        if [ ! -x "$bin" ]; then
            # shellcheck source=ci/deps.sh disable=SC1091
            . "$src/ci/deps.sh"
            ng_need_packages build || die "the build packages are missing (see above)"
            ensure_meson
            meson setup "$builddir" "$src" --buildtype=release -Dtests=disabled >/dev/null ||
                die "meson setup failed for $src"
            ninja -C "$builddir" src/nsys-gate >/dev/null || die "the build of nsys-gate failed"
        fi
    fi
    "$bin" --version
    echo "bin=$bin" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
}

# ---- gate ----

args=()

# One flag a non-empty line of a (possibly multi-line) input.
add_each_line() {
    local flag=$1 line
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line#"${line%%[![:space:]]*}"}
        line=${line%"${line##*[![:space:]]}"}
        if [ -n "$line" ]; then args+=("$flag" "$line"); fi
    done <<<"$2"
}

add_if_set() {
    if [ -n "$2" ]; then args+=("$1" "$2"); fi
}

# INPUT_ARGS as shell words: xargs honours quotes and backslashes, expands nothing.
add_extra_args() {
    local tmp extra=()
    tmp=$(mktemp)
    if ! printf '%s' "$1" | xargs -r printf '%s\0' >"$tmp" 2>/dev/null; then
        rm -f "$tmp"
        die "input 'args' is not a list of shell words (an unmatched quote?)"
    fi
    mapfile -d '' -t extra <"$tmp"
    rm -f "$tmp"
    args+=("${extra[@]}")
}

gate() {
    local bin=${NSYS_GATE_BIN:?NSYS_GATE_BIN is not set (the build step gives it)}
    local manifest=${NSYS_GATE_MANIFEST:-}
    [[ " ${INPUT_ARGS:-} " == *" --manifest"* ]] && manifest=yes
    if [ -z "$manifest" ]; then
        [ -n "${INPUT_BASELINE:-}${NSYS_GATE_BASELINE:-}" ] || die "input 'baseline' is required"
        [ -n "${INPUT_CURRENT:-}${NSYS_GATE_CURRENT:-}" ] || die "input 'current' is required"
    fi
    add_each_line --baseline "${INPUT_BASELINE:-}"
    add_each_line --current "${INPUT_CURRENT:-}"
    add_if_set --threshold "${INPUT_THRESHOLD:-}"
    add_if_set --epochs "${INPUT_EPOCHS:-}"
    add_if_set --baseline-epochs "${INPUT_BASELINE_EPOCHS:-}"
    add_if_set --current-epochs "${INPUT_CURRENT_EPOCHS:-}"
    add_if_set --epoch-range "${INPUT_EPOCH_RANGE:-}"
    add_if_set --name "${INPUT_NAME:-}"
    add_if_set --junit "${INPUT_JUNIT:-}"
    add_if_set --json "${INPUT_JSON:-}"
    case ${INPUT_RANKS:-} in
    '' | false) ;;
    true) args+=(--ranks) ;;
    *) die "input 'ranks' is '${INPUT_RANKS}': true, false or empty" ;;
    esac
    add_if_set --write-summary "${INPUT_WRITE_SUMMARY:-}"
    add_extra_args "${INPUT_ARGS:-}"
    local rc=0
    "$bin" --github "${args[@]}" || rc=$?
    if [ -n "${INPUT_WRITE_SUMMARY:-}" ] && [ -f "$INPUT_WRITE_SUMMARY" ] && [ "$rc" -le 1 ]; then
        echo "summary=$INPUT_WRITE_SUMMARY" >>"${GITHUB_OUTPUT:-/dev/null}"
    fi
    # 0, 1, 2 are the gate's; anything else (a crash) must not leave the
    # verdict output empty
    if [ "$rc" -gt 2 ]; then
        annotate_error "nsys-gate ended abnormally (exit status $rc)"
        [ -n "${GITHUB_OUTPUT:-}" ] && echo "verdict=error" >>"$GITHUB_OUTPUT"
    fi
    exit "$rc"
}

case ${1:-} in
build) build ;;
gate) gate ;;
*) echo "usage: ci/action.sh build|gate" >&2; exit 2 ;;
esac
