#!/usr/bin/env bash
# The baseline of a pull request: the summary main's CI stored for the
# pull request's merge base (docs/summaries.md, "Baseline from the merge
# base").  main's job stores each run's summary as summaries/<commit>.summary.json.gz
# on a branch (the one the dashboard workflow keeps its history on, say);
# this finds the merge base of HEAD and the base branch, walks its
# first-parent ancestors to the nearest commit with a stored summary (a
# commit whose job failed or was skipped has none), and writes it to OUT.
#
#   ci/merge-base-summary.sh [-b BASE] [-s STORE] [-d DIR] [-n MAX] -o OUT
#     -b BASE   the branch the pull request merges into (default origin/main)
#     -s STORE  the ref holding the summaries (default origin/nsys-gate-history)
#     -d DIR    their folder in STORE (default summaries)
#     -n MAX    first-parent ancestors to look at, the merge base included (default 50)
#     -o OUT    where the summary goes
#
# Prints the commit whose summary it took; exit 1 when none of MAX has one
# (gate against a profile instead), 2 on bad usage.  Fetch both refs first
# (actions/checkout with fetch-depth: 0, or `git fetch origin main
# nsys-gate-history`): a shallow clone has no merge base.
set -euo pipefail
base=origin/main store=origin/nsys-gate-history dir=summaries max=50 out=
while getopts b:s:d:n:o: opt; do
    case $opt in
    b) base=$OPTARG ;;
    s) store=$OPTARG ;;
    d) dir=$OPTARG ;;
    n) max=$OPTARG ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
    esac
done
[ -n "$out" ] || { echo "merge-base-summary: -o OUT is required" >&2; exit 2; }
mb=$(git merge-base HEAD "$base") || {
    echo "merge-base-summary: no merge base of HEAD and $base (a shallow clone?)" >&2; exit 1; }
for c in $(git rev-list --first-parent --max-count="$max" "$mb"); do
    if git cat-file -e "$store:$dir/$c.summary.json.gz" 2>/dev/null; then
        git cat-file blob "$store:$dir/$c.summary.json.gz" >"$out.tmp" && mv "$out.tmp" "$out"
        echo "$c"
        exit 0
    fi
done
echo "merge-base-summary: none of the $max first-parent commits from the merge base $mb has" \
    "a summary in $store:$dir" >&2
exit 1
