#!/usr/bin/env bash
# Makes a history of NIGHTS nightly runs of three gates with the project's
# generator and the gate's own --history, each night a day after the last
# (SOURCE_DATE_EPOCH), with a step regression (every kernel 1.35x) from
# night STEP on in the `resnet50` gate; `bert` stays flat, and `hostile`
# has kernel and gate names written to break HTML (and one night whose
# profile is missing: an ERROR).  Each night is a GitHub run of its own
# (GITHUB_SHA, GITHUB_RUN_ID: the run context).  For the dashboard's tests
# and the README's screenshot.
#
#   tests/html/nightly_history.sh OUT.jsonl [NIGHTS [STEP]]
#
# Environment: GATE, GENTRACE.
set -euo pipefail
out=$1
nights=${2:-30}
step=${3:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-nightly.XXXXXX")
trap 'rm -rf "$work"' EXIT
hostile_names=$work/names.txt
printf '%s\n' '</title><script>alert(1)</script><img src=x onerror=alert(2)>' \
    'tmpl<int, 2>::run(a && b) "q" '"'"'x'"'"'' 'javascript:alert(3)' >"$hostile_names"

"$GENTRACE" -o "$work/resnet-base.sqlite" --kernels 400 --names 6 --epochs 10 --jitter 0.02 --seed 1 >/dev/null
"$GENTRACE" -o "$work/bert-base.sqlite" --kernels 300 --names 4 --epochs 8 --no-nvtx --seed 2 >/dev/null
"$GENTRACE" -o "$work/hostile-base.sqlite" --names-from "$hostile_names" --kernels 60 --epochs 4 --seed 3 >/dev/null
start=1714532400   # 2024-05-01T03:00:00Z
for night in $(seq 1 "$nights"); do
    scale=1
    [ "$night" -ge "$step" ] && scale=1.35
    "$GENTRACE" -o "$work/resnet.sqlite" --force --kernels 400 --names 6 --epochs 10 \
        --jitter 0.02 --seed $((100 + night)) --scale "$scale" >/dev/null
    "$GENTRACE" -o "$work/bert.sqlite" --force --kernels 300 --names 4 --epochs 8 --no-nvtx \
        --jitter 0.01 --seed $((200 + night)) >/dev/null
    "$GENTRACE" -o "$work/hostile.sqlite" --force --names-from "$hostile_names" --kernels 60 \
        --epochs 4 --jitter 0.3 --seed $((300 + night)) --slow "0:1.$((night % 4))" >/dev/null
    hostile=$work/hostile.sqlite
    [ $((night % 11)) -eq 7 ] && hostile=$work/missing.sqlite
    export SOURCE_DATE_EPOCH=$((start + (night - 1) * 86400))
    # each night a GitHub run of its own commit (the gate's GitHub reporter off)
    export GITHUB_ACTIONS=true NSYS_GATE_GITHUB=0 GITHUB_REF_NAME=main GITHUB_REPOSITORY=o/r \
        GITHUB_SERVER_URL=https://github.com GITHUB_RUN_ID=$((9000 + night)) \
        GITHUB_SHA=$(printf '%040x' $((0xc0ffee00 + night)))
    "$GATE" --quiet --name resnet50 --epoch-range auto "$work/resnet-base.sqlite" "$work/resnet.sqlite" \
        --history "$out" || true
    "$GATE" --quiet --name bert --epochs 8 "$work/bert-base.sqlite" "$work/bert.sqlite" \
        --history "$out" || true
    "$GATE" --quiet --name '<b>hostile</b> "gate" & co' --epoch-range auto --top 3 \
        "$work/hostile-base.sqlite" "$hostile" --history "$out" 2>/dev/null || true
done
