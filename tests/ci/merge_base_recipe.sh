#!/usr/bin/env bash
# The recipe "baseline from the merge base" (docs/summaries.md) in a git
# repository made here: main's runs store summaries/<commit>.summary.json.gz
# on a history branch (not every commit has one: a failed job stores none);
# a pull request branched from main, and main moved on since.  Then
# ci/merge-base-summary.sh picks the summary of the pull request's merge
# base, or its nearest first-parent ancestor with one, never main's tip,
# and the gate takes it as the baseline.
#
# Environment: SRCDIR, GATE, GENTRACE.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-merge-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
git() { command git -c user.name=ci -c user.email=ci@localhost -c init.defaultBranch=main \
    -c commit.gpgsign=false "$@"; }
fail() { echo "not ok - $*"; exit 1; }

git init -q repo && cd repo || exit 1
commit() { echo "$1" >>train.py && git add train.py && git commit -qm "$1" && git rev-parse HEAD; }
a=$(commit a); b=$(commit b)
git checkout -qb pr
commit p1 >/dev/null
git checkout -q main
c=$(commit c); d=$(commit d)
# main's runs: a, c and d stored a summary; b's job failed and stored none
mkdir -p "$work/s"
for x in a c d; do
    seed=$(printf '%d' "'$x")
    "$GENTRACE" -o "$work/$x.sqlite" --kernels 400 --epochs 4 --seed "$seed" --jitter 0.02 >/dev/null &&
        "$GATE" summarize --quiet --epoch-range auto -o "$work/s/$x.summary.json.gz" "$work/$x.sqlite" ||
        fail "making $x's summary"
done
git checkout -q --orphan nsys-gate-history && git rm -rqf . && mkdir summaries
cp "$work/s/a.summary.json.gz" "summaries/$a.summary.json.gz"
cp "$work/s/c.summary.json.gz" "summaries/$c.summary.json.gz"
cp "$work/s/d.summary.json.gz" "summaries/$d.summary.json.gz"
git add summaries && git commit -qm "summaries" || fail "the history branch"

git checkout -q pr
got=$(bash "$SRCDIR/ci/merge-base-summary.sh" -b main -s nsys-gate-history -o base.summary.json.gz) ||
    fail "merge-base-summary.sh found nothing"
[ "$got" = "$a" ] || fail "took $got, not $a (the merge base $b has none; main's tip is $d)"
cmp -s base.summary.json.gz "$work/s/a.summary.json.gz" || fail "the bytes are not a's summary"
echo "ok - the merge base's nearest stored summary (a), not main's tip"

"$GATE" --epoch-range auto base.summary.json.gz "$work/a.sqlite" >/dev/null ||
    fail "the gate on the picked summary"
echo "ok - the gate takes it as the baseline"

got=$(bash "$SRCDIR/ci/merge-base-summary.sh" -b main -s nsys-gate-history -n 1 -o x.json.gz 2>err)
[ $? = 1 ] && [ -z "$got" ] && [ ! -e x.json.gz ] && grep -q "none of the 1 first-parent" err ||
    fail "-n 1 from a merge base without a summary: exit 1 and nothing written"
got=$(bash "$SRCDIR/ci/merge-base-summary.sh" -b nsys-gate-history -s nsys-gate-history \
    -o z.json.gz 2>err)
[ $? = 1 ] && [ -z "$got" ] && [ ! -e z.json.gz ] && grep -q "no merge base of HEAD" err ||
    fail "a base branch with no merge base: exit 1 and nothing written"
got=$(bash "$SRCDIR/ci/merge-base-summary.sh" -b main -s nsys-gate-history 2>err)
[ $? = 2 ] && [ -z "$got" ] && grep -q -- "-o OUT is required" err ||
    fail "without -o: exit 2 and the usage error"
echo "ok - no merge base: exit 1; without -o: exit 2; nothing written"
git checkout -q main
[ "$(bash "$SRCDIR/ci/merge-base-summary.sh" -b main -s nsys-gate-history -o y.json.gz)" = "$d" ] ||
    fail "on main itself: its own commit's summary"
echo "ok - nothing within -n: exit 1, nothing written; on main, its own"
