#!/usr/bin/env bash
# Report paths that are symlinks in a sticky, world-writable directory (/tmp on a shared
# runner): the gate resolves a report's link itself, so the kernel's fs.protected_symlinks
# does not guard it.  It follows the kernel's rule: a link there owned by neither this user
# nor the directory's owner is refused (one ERROR naming the link and its owner, exit 2,
# the link's target untouched: a root-owned 0600 file became 0644, a dangling link made a
# file where the link's owner could not write); this user's own link is followed.  And the
# final target, resolved by the gate, is opened with O_NOFOLLOW: a link planted there
# between the resolving and the open is not followed (the fault shim plants it).
. "$SRCDIR/tests/robust/lib.sh"
robust_begin sticky-links

if [ "$(id -u)" != 0 ]; then
    echo "sticky-links: skipped: creating another user's symlink needs root"
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
other=65534   # nobody
fixtures kern2023_base.csv
gate() { "$GATE" --quiet "$@" kern2023_base.csv kern2023_base.csv; }
mkdir pub && chmod 1777 pub          # /tmp's mode, owned by us (root)
printf 'secret\n' >secret && chmod 0600 secret
printf '{"old": 1}\n' >history.jsonl

# another user's links in the sticky directory: refused, targets untouched
for opt in --json --junit --metrics --html; do
    ln -s "$work/secret" pub/r.out && chown -h "$other" pub/r.out
    gate "$opt" pub/r.out 2>err; rc=$?
    check "$opt through another user's link: exit 2 ($rc)" test "$rc" = 2
    check "$opt: one ERROR naming the link and its owner" \
        eval "grep -q \"^ERROR: $opt: refusing to follow 'pub/r.out': a symlink of another user (uid $other)\" err && test \$(wc -l <err) = 1"
    check "$opt: the target untouched (content and mode)" \
        eval 'test "$(cat secret)" = secret && test "$(stat -c %a secret)" = 600'
    rm pub/r.out
done
ln -s "$work/history.jsonl" pub/h.jsonl && chown -h "$other" pub/h.jsonl
gate --history pub/h.jsonl --json own.json 2>err; rc=$?
check "--history through another user's link: exit 2 ($rc), nothing appended" \
    eval 'test "$rc" = 2 && test "$(cat history.jsonl)" = "{\"old\": 1}"'
check "--history: the other reports still written" valid_json own.json
rm pub/h.jsonl
mkdir private && chmod 0700 private
ln -s "$work/private/made.json" pub/d.json && chown -h "$other" pub/d.json
gate --json pub/d.json 2>err
check "a dangling link of another user: no file created" test ! -e private/made.json
rm pub/d.json

# this user's own link in the sticky directory: followed
cp secret mine
ln -s "$work/mine" pub/mine.json
check "our own link: followed" gate --json pub/mine.json
check "our own link: the target replaced by the report" valid_json mine
check "our own link: still a link" test -L pub/mine.json
# a link of the directory's owner is followed too (the kernel's rule)
mkdir pub2 && chmod 1777 pub2 && chown "$other" pub2
ln -s "$work/mine" pub2/m.json && chown -h "$other" pub2/m.json
check "the directory owner's link: followed" gate --json pub2/m.json
# another user's link in a directory that is not sticky: followed, as before
mkdir plain && chmod 0777 plain
ln -s "$work/mine" plain/m.json && chown -h "$other" plain/m.json
check "another user's link outside a sticky directory: followed" gate --json plain/m.json

# O_NOFOLLOW on the final target: the shim turns it into a link to secret just before
# the gate opens it for --history
printf '{"old": 1}\n' >h2.jsonl
# (a sanitized gate takes the preloaded shim only without ASan's link-order check)
NG_SHIM_LINK_AT_OPEN="$work/h2.jsonl:$work/secret" LD_PRELOAD="$FAULT_SHIM" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
    "$GATE" --quiet --history "$work/h2.jsonl" kern2023_base.csv kern2023_base.csv 2>err; rc=$?
check "a link planted at the final target: not followed (exit $rc)" test "$rc" = 2
check "a link planted at the final target: the file it names untouched" test "$(cat secret)" = secret
robust_done
