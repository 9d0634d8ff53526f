#!/usr/bin/env bash
# A -wal or a hot -journal is looked for beside the file itself, however it
# is named: a symlink, /dev/fd/N, /proc/self/fd/N.  A WAL database with
# committed pages in its -wal, a header that says WAL (byte 18 or 19 = 2)
# with a hot journal beside it, or a name that leads to no file in a
# directory is refused with one ERROR line and exit 2, on the page reader
# and on the SQL path alike, and nothing is ever written beside an input.
# The files are made by Python's sqlite3 (SQLite itself), not by the gate.
#
# Environment: GATE, GENTRACE.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin wal-journal
py=${PYTHON:-python3}

"$GENTRACE" -o base.sqlite --kernels 3000 --no-nvtx >/dev/null || exit 1
mkdir real
# real/w.sqlite: WAL mode, every kernel 4x longer in its -wal (not checkpointed)
"$py" - <<'PY' || exit 1
import shutil, sqlite3
shutil.copy('base.sqlite', 'tmp.sqlite')
c = sqlite3.connect('tmp.sqlite'); c.execute('pragma journal_mode=wal'); c.close()
c = sqlite3.connect('tmp.sqlite'); c.execute('pragma wal_autocheckpoint=0')
c.execute('update CUPTI_ACTIVITY_KIND_KERNEL set "end" = start + ("end" - start) * 4')
c.commit()
shutil.copy('tmp.sqlite', 'real/w.sqlite'); shutil.copy('tmp.sqlite-wal', 'real/w.sqlite-wal')
# real/h.sqlite: a writer stopped mid-transaction, its journal left hot
shutil.copy('base.sqlite', 'h0.sqlite')
c = sqlite3.connect('h0.sqlite', isolation_level=None); c.execute('pragma cache_size=1')
c.execute('begin'); c.execute('update CUPTI_ACTIVITY_KIND_KERNEL set "end" = start + ("end" - start) * 4')
shutil.copy('h0.sqlite', 'real/h.sqlite'); shutil.copy('h0.sqlite-journal', 'real/h.sqlite-journal')
PY
rm -f tmp.sqlite* h0.sqlite*
ln -s real/w.sqlite wlink.sqlite
# the header says WAL with a hot journal beside it
cp real/h.sqlite real/hw.sqlite; cp real/h.sqlite-journal real/hw.sqlite-journal
printf '\002\002' | dd of=real/hw.sqlite bs=1 seek=18 conv=notrunc 2>/dev/null
ln -s real/h.sqlite hlink.sqlite
# a write version of 1 and a read version of 2: SQLite reads it through its WAL
cp real/w.sqlite real/v.sqlite; cp real/w.sqlite-wal real/v.sqlite-wal
printf '\001' | dd of=real/v.sqlite bs=1 seek=18 conv=notrunc 2>/dev/null
snapshot() { ls -la real | sed 1d | awk '{print $5, $9}' | sort; }
before=$(snapshot)

refused() {   # refused PATTERN GATE-ARGS...: exit 2, one ERROR line matching PATTERN
    local pat=$1 rc; shift
    "$GATE" "$@" >out 2>err 3<real/w.sqlite; rc=$?
    [ "$rc" = 2 ] && [ "$(grep -c '^ERROR:' err)" = 1 ] && grep -q -- "$pat" err ||
        { echo "  exit $rc:"; sed 's/^/  /' out err; return 1; }
}
for mode in "" --sqlite-sql-only; do
    for name in wlink.sqlite /dev/fd/3 /proc/self/fd/3 real/w.sqlite; do
        check "${mode:-page reader}: a -wal found beside $name's file" \
            refused "$work/real/w.sqlite-wal\|'real/w.sqlite-wal'" $mode base.sqlite "$name"
    done
    check "${mode:-page reader}: header bytes 18/19 = 1/2 with a -wal" \
        refused "WAL mode" $mode base.sqlite real/v.sqlite
    check "${mode:-page reader}: a WAL header with a hot journal" \
        refused "hot journal ('real/hw.sqlite-journal')" $mode base.sqlite real/hw.sqlite
    check "${mode:-page reader}: a hot journal through a symlink is named where it is" \
        refused "hot journal ('$work/real/h.sqlite-journal')" $mode base.sqlite hlink.sqlite
    check "${mode:-page reader}: a deleted file read through /proc/self/fd" \
        bash -c 'cp real/w.sqlite gone.sqlite; exec 4<gone.sqlite; rm gone.sqlite
                 "$GATE" '"$mode"' base.sqlite /proc/self/fd/4 >out 2>err; rc=$?
                 [ $rc = 2 ] && grep -q "not a file in a directory" err'
done
check "nothing written beside any input" test "$(snapshot)" = "$before"

# a control: the same symlink to a checkpointed copy gives SQLite's own figure
"$py" - <<'PY' || exit 1
import shutil, sqlite3
shutil.copy('real/w.sqlite', 'c.sqlite'); shutil.copy('real/w.sqlite-wal', 'c.sqlite-wal')
c = sqlite3.connect('c.sqlite'); c.execute('pragma wal_checkpoint(truncate)')
print(c.execute('select sum("end" - start) from CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0],
      file=open('want', 'w'))
c.close()
PY
rm -f c.sqlite-wal c.sqlite-shm; ln -s c.sqlite clink.sqlite
got=$("$GATE" --print-profile clink.sqlite | sed -nE '1s/^# .* \([a-z-]+\): ([0-9]+) ns .*/\1/p')
check "a checkpointed WAL database through a symlink: sqlite3's total" test "$got" = "$(cat want)"
robust_done
