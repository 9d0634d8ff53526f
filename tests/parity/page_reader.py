"""The SQLite page reader (ng_btree) against SQLite itself: every shape of
file that SQLite accepts, read with the page reader and again with
--sqlite-sql-only, gives the same stdout, stderr, exit code and JSON.

Shapes: the generator's files in every work mode; small pages (deep
interior b-trees); rows that spill onto overflow pages before the columns
the gate reads; a column added by ALTER TABLE with a default (old rows
lack the field), and one with a text default (SQL reads that table); an
INTEGER PRIMARY KEY that is the rowid, and an INTEGER PRIMARY KEY DESC that
is not (SQLite's exception: a field of the record); rows with a
NULL, a real or a text where an integer belongs; deleted rows and free
pages; auto-vacuum pointer-map pages; a WAL database with no -wal file;
a WITHOUT ROWID table (read by SQL: the page reader does not apply).

A parity test passes trivially if the page reader never runs, so each
shape is also read, in every mode that reads the table, with one of its
leaf pages overwritten: only the page reader names the page in its error."""
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

GATE = os.environ["GATE"]
GENTRACE = os.environ["GENTRACE"]
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


def gen(path, *args):
    subprocess.run([GENTRACE, "-o", path, "--force", *args], check=True,
                   stdout=subprocess.DEVNULL)


def run(args, sql_only, cwd):
    env = dict(os.environ)
    env.pop("NSYS_GATE_SQLITE_SQL_ONLY", None)
    if sql_only:
        env["NSYS_GATE_SQLITE_SQL_ONLY"] = "1"
    out = os.path.join(cwd, "v.json")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([GATE, *args, "--json", out, "--no-cache"], cwd=cwd, env=env,
                       capture_output=True, text=True)
    js = None
    if os.path.exists(out):
        js = json.load(open(out))
        js.pop("timestamp", None)   # the one field that differs run to run
    return p.returncode, p.stdout, p.stderr, js


def copy_rows(table):
    """The fill that copies every row of the old table, every column."""
    def fill(db, cols):
        c = ", ".join(cols)
        db.execute(f"INSERT INTO {table} ({c}) SELECT {c} FROM old_t")
    return fill


def rebuild(path, table, ddl_of, fill=None):
    """Table rebuilt as ddl_of(columns) holding fill(columns) of its rows
    (by default all of them)."""
    fill = fill or copy_rows(table)
    db = sqlite3.connect(path)
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    db.execute(f"ALTER TABLE {table} RENAME TO old_t")
    db.execute(ddl_of(cols))
    fill(db, cols)
    db.execute("DROP TABLE old_t")
    db.commit()
    db.execute("VACUUM")
    db.close()


def overflow_first(path):
    # a 3000-byte text before every column: the fields the gate reads sit
    # on overflow pages of a 1024-byte page
    def ddl(cols):
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (pad TEXT, {', '.join(cols)})"

    def fill(db, cols):
        c = ", ".join(cols)
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (pad, {c}) "
                   f"SELECT printf('%3000d', rowid), {c} FROM old_t")
    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl, fill)


# The first half of the rows in storage order: a table rebuilt in two
# halves stays in time order (every reader takes the page reader's pass;
# a table out of order is read again sorted, by SQL: the shape "shuffled")
FIRST_HALF = "rowid <= (SELECT max(rowid) FROM old_t) / 2"


# -2^48, -10^12, 0, 2^47 ns by quarter of the rows: 8, 6, 1 and 8 bytes
QUARTER_SHIFT = ("(CASE (rowid - 1) * 4 / (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL) "
                 "WHEN 0 THEN -281474976710656 WHEN 1 THEN -1000000000000 WHEN 2 THEN 0 "
                 "ELSE 140737488355328 END)")


def shuffled(path):
    # even rows first, then odd ones: out of time order, so the merged scan
    # reads it again with each table sorted, which SQLite does
    def ddl(cols):
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)})"

    def fill(db, cols):
        c = ", ".join(cols)
        for parity in (0, 1):
            db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({c}) SELECT {c} FROM old_t "
                       f"WHERE rowid % 2 = {parity}")
    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl, fill)


def added_column(path):
    # deviceId added after half the rows: those rows lack the field and
    # read as its default, 0 (the generator's device)
    def ddl(cols):
        rest = [c for c in cols if c != "deviceId"]
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(rest)})"

    def fill(db, cols):
        rest = ", ".join(c for c in cols if c != "deviceId")
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({rest}) "
                   f"SELECT {rest} FROM old_t WHERE {FIRST_HALF}")
        db.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN deviceId INTEGER "
                   "NOT NULL DEFAULT 0")
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)}) "
                   f"SELECT {', '.join(cols)} FROM old_t WHERE NOT {FIRST_HALF}")
    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl, fill)


def rowid_key(path):
    # correlationId as INTEGER PRIMARY KEY: the rowid, not a record field
    def ddl(cols):
        defs = [c + (" INTEGER PRIMARY KEY" if c == "correlationId" else "") for c in cols]
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME ({', '.join(defs)})"

    rebuild(path, "CUPTI_ACTIVITY_KIND_RUNTIME", ddl)


def rowid_key_desc(path):
    # correlationId INTEGER PRIMARY KEY DESC: SQLite's one exception, not
    # the rowid but a field of the record (and an index); rows inserted in
    # reverse, so rowid and correlationId differ
    def ddl(cols):
        defs = [c + (" INTEGER PRIMARY KEY DESC" if c == "correlationId" else "") for c in cols]
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME ({', '.join(defs)})"

    def fill(db, cols):
        c = ", ".join(cols)
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME ({c}) SELECT {c} FROM old_t "
                   "ORDER BY rowid DESC")
    rebuild(path, "CUPTI_ACTIVITY_KIND_RUNTIME", ddl, fill)


def text_default(path):
    # deviceId added later with a text default ('0'): not a plain integer,
    # so the page reader leaves the table to SQL
    def ddl(cols):
        rest = [c for c in cols if c != "deviceId"]
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(rest)})"

    def fill(db, cols):
        rest = ", ".join(c for c in cols if c != "deviceId")
        db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({rest}) SELECT {rest} FROM old_t")
        db.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN deviceId INTEGER "
                   "NOT NULL DEFAULT '0'")
    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl, fill)


def declared(table, types):
    """Table rebuilt with these columns declared as these types."""
    def edit(path):
        def ddl(cols):
            return f"CREATE TABLE {table} ({', '.join(c + ' ' + types.get(c, '') for c in cols)})"
        rebuild(path, table, ddl)
    return edit


def added_key(decl):
    # demangledName (the kernel's name id) added after half the rows, as
    # `ALTER TABLE ... ADD COLUMN demangledName decl`: those rows read as its
    # default with the column's affinity (TEXT DEFAULT 3 is the text '3')
    def edit(path):
        def ddl(cols):
            rest = [c for c in cols if c != "demangledName"]
            return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(rest)})"

        def fill(db, cols):
            rest = ", ".join(c for c in cols if c != "demangledName")
            db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({rest}) "
                       f"SELECT {rest} FROM old_t WHERE {FIRST_HALF}")
            db.execute(f"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN demangledName {decl}")
            db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)}) "
                       f"SELECT {', '.join(cols)} FROM old_t WHERE NOT {FIRST_HALF}")
        rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl, fill)
    return edit


def without_rowid(path):
    def ddl(cols):
        return (f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)}, "
                "PRIMARY KEY (correlationId, start)) WITHOUT ROWID")

    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl)


def loose(path):
    # the kernel table without types or NOT NULL: any value fits any column
    def ddl(cols):
        return f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)})"

    rebuild(path, "CUPTI_ACTIVITY_KIND_KERNEL", ddl)


def sql(*stmts, vacuum=False):
    def edit(path):
        db = sqlite3.connect(path)
        for s in stmts:
            db.execute(s)
        db.commit()
        if vacuum:
            db.execute("VACUUM")
        db.close()
    return edit


def wal(path):
    # a WAL database, checkpointed and closed: no -wal file (one beside it
    # is refused, golden err_wal_pending), every page in the file
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = end + 1000 WHERE rowid % 3 = 0")
    db.commit()
    db.close()
    assert not os.path.exists(path + "-wal")


K = "CUPTI_ACTIVITY_KIND_KERNEL"
SHAPES = [
    # name, gentrace args, edit, page reader applies (in every mode, or in these)
    ("plain", [], None, True),
    ("small-pages", [], sql("PRAGMA page_size=512", vacuum=True), True),
    ("overflow", [], lambda p: (sql("PRAGMA page_size=1024", vacuum=True)(p),
                                overflow_first(p)), True),
    # rows stored out of time order: the sorted pass (SQL) reads them
    ("shuffled", [], shuffled, False),
    ("added-column", [], added_column, True),
    ("rowid-key", [], rowid_key, True),
    ("rowid-key-desc", [], rowid_key_desc, True),
    # every mode reads deviceId (the breakdown is per device), so SQL reads the table
    ("text-default", [], text_default, False),
    ("untyped", [], loose, True),
    # integers of every size and sign, changing from row to row, so one
    # record's header often differs from the last one's (the reader reuses
    # the field offsets of the last header it laid out); some correlation
    # ids (in both tables alike) past 2^32, and name ids of one and three bytes
    ("int-sizes", [], sql(
        # start and end by quarters of the table, the offsets rising so that
        # the rows stay in time order (the page reader's pass)
        f"UPDATE {K} SET start = start + {QUARTER_SHIFT}, \"end\" = \"end\" + {QUARTER_SHIFT},"
        " deviceId = CASE rowid % 6 WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 2 THEN -100 WHEN 3 THEN 300"
        " WHEN 4 THEN -70000 ELSE 9000000 END",
        f"UPDATE {K} SET correlationId = correlationId + 1099511627776 WHERE correlationId % 3 = 0",
        "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = correlationId + 1099511627776"
        " WHERE correlationId % 3 = 0",
        # every other row names its kernel by a second, 3-byte id of the same
        # string: the header's last bytes change too
        "INSERT INTO StringIds SELECT id + 100000, value FROM StringIds",
        f"UPDATE {K} SET shortName = shortName + 100000, demangledName = demangledName + 100000"
        " WHERE rowid % 2 = 0"), True),
    ("null-end", [], lambda p: (loose(p), sql(f"UPDATE {K} SET end = NULL WHERE rowid = 77")(p)), True),
    ("real-start", [], lambda p: (loose(p), sql(f"UPDATE {K} SET start = start + 0.5 WHERE rowid = 91")(p)), True),
    ("text-end", [], lambda p: (loose(p), sql(f"UPDATE {K} SET end = 'x' WHERE rowid = 5")(p)), True),
    ("deleted", [], sql(f"DELETE FROM {K} WHERE rowid % 7 = 0"), True),
    ("auto-vacuum", [], lambda p: (sql("PRAGMA auto_vacuum=FULL", vacuum=True)(p),
                                   sql(f"DELETE FROM {K} WHERE rowid % 5 = 0")(p)), True),
    ("without-rowid", [], without_rowid, False),
    # REAL columns: SQLite stores an integer-valued real as an integer and SQL
    # reads it back as a real; both readers take it as the integer, so no
    # work is dropped (the page reader found 3,000 launches, SQL 900)
    ("real-corr", [], lambda p: (declared(K, {"correlationId": "REAL"})(p),
                                 declared("CUPTI_ACTIVITY_KIND_RUNTIME",
                                          {"correlationId": "REAL"})(p)), True),
    ("real-corr-without-rowid", [], lambda p: (without_rowid(p),
                                               sql(f"UPDATE {K} SET correlationId = "
                                                   "correlationId + 0.0")(p),
                                               declared("CUPTI_ACTIVITY_KIND_RUNTIME",
                                                        {"correlationId": "REAL"})(p)), False),
    ("real-span", [], declared(K, {"start": "REAL", "end": "REAL"}), True),
    # a name id added with a TEXT default: '3' is not an integer on either path
    # (the page reader leaves the table to SQL); with a REAL default, 3.0 is 3
    ("text-default-key", [], added_key("TEXT DEFAULT 3"), set()),
    ("real-default-key", [], added_key("REAL DEFAULT 3"), True),
    ("wal", [], wal, True),
]

MODES = [
    ("total", ["--work", "all"]),
    # the default --work: the memory tables are only counted, as left out
    ("left-out", []),
    ("nvtx", ["--epoch-range", "auto", "--work", "all", "--kernel-threshold", "1.5"]),
    ("gpu-busy", ["--metric", "gpu-busy", "--work", "all"]),
]

GEN_ARGS = ["--kernels", "6000", "--names", "12", "--epochs", "6", "--memory-share", "0.1",
            "--graph-share", "0.05", "--comm-share", "0.1", "--overlap", "0.5", "--seed", "3"]


def leaf_page(path, table):
    """A leaf page of the table's b-tree: its number, and the page size."""
    db = sqlite3.connect(path)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    data = open(path, "rb").read()
    size = struct.unpack(">H", data[16:18])[0]
    size = 65536 if size == 1 else size
    page = root
    while True:
        off = (page - 1) * size + (100 if page == 1 else 0)
        kind = data[off]
        if kind in (0x0D, 0x0A):   # a table or index (WITHOUT ROWID) leaf
            return page, size
        if kind not in (0x05, 0x02):
            raise SystemExit(f"page {page} of {table} is not a table page ({kind:#x})")
        page = struct.unpack(">I", data[off + 8:off + 12])[0]   # the right-most child


def corrupt_leaf(src, dst, table):
    shutil.copy(src, dst)
    page, size = leaf_page(dst, table)
    with open(dst, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\x00")   # a page type no b-tree page has
    return page


def loop_root(src, dst, table):
    """A copy whose table root (an interior page) names itself as its
    right-most child: a cycle, which the page reader must refuse."""
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    with open(dst, "r+b") as f:
        size = struct.unpack(">H", f.read(18)[16:18])[0]
        off = (root - 1) * size + (100 if root == 1 else 0)
        f.seek(off)
        assert f.read(1) == b"\x05", "the root is not an interior page"
        f.seek(off + 8)
        f.write(struct.pack(">I", root))


MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"


def loose_memory(path, *stmts):
    """Both memory tables without types (any value fits), then stmts."""
    for table in (MEMSET, MEMCPY):
        rebuild(path, table, lambda cols, t=table: f"CREATE TABLE {t} ({', '.join(cols)})")
    sql(*stmts)(path)


def left_out_fallbacks(tmp, base):
    """The default --work only counts the memory tables, as left out: the
    page reader counts them unless a value needs SQL's arithmetic, and the
    figure is the same either way."""
    cases = [
        # a NULL end is counted, not summed; a NULL start too
        ("null-span", [f"UPDATE {MEMSET} SET \"end\" = NULL WHERE rowid = 3",
                       f"UPDATE {MEMCPY} SET start = NULL WHERE rowid = 4"], 0),
        # a real start: SQL sums that table
        ("real-span", [f"UPDATE {MEMCPY} SET start = start + 0.5 WHERE rowid = 5"], 0),
        # past 2^53 ns: exact in 64 bits, both ways
        ("past-2^53", [f"UPDATE {MEMSET} SET \"end\" = start + 9007199254740993 WHERE rowid = 2"],
         0),
        # past 2^63 ns: an error, both ways (it was a negative figure)
        ("past-2^63", [f"UPDATE {MEMSET} SET start = 0, \"end\" = 4611686018427387904"
                       " WHERE rowid IN (2, 3)"], 2),
        ("past-2^63-real", [f"UPDATE {MEMSET} SET start = 0.5, \"end\" = 9.3e18"
                            " WHERE rowid = 2"], 2),
    ]
    for name, stmts, want in cases:
        cur = os.path.join(tmp, "lo-" + name + ".sqlite")
        gen(cur, *GEN_ARGS, "--scale", "1.3")
        loose_memory(cur, *stmts)
        a = run([base, cur], False, tmp)
        b = run([base, cur], True, tmp)
        check(a == b, f"left-out {name}: page reader and SQL agree (exit {a[0]}) "
                      f"{a[2].strip()[-200:]}")
        check(a[0] == want if want == 2 else a[0] in (0, 1),
              f"left-out {name}: exit {a[0]} {a[2].strip()[-200:]}")
        if want == 2:
            check("left-out work whose time overflows 64 bits" in a[2],
                  f"left-out {name}: the overflow is named ({a[2].strip()[-200:]})")
        else:
            check(a[3]["current"]["left_out_ms"]["memset"] > 0,
                  f"left-out {name}: memset left out {a[3]['current']['left_out_ms']}")
    # a corrupt leaf of a table only counted: an error naming the page, not SQL's figure
    cur = os.path.join(tmp, "lo-plain.sqlite")
    gen(cur, *GEN_ARGS, "--scale", "1.3", "--memory-share", "0.4")
    bad = os.path.join(tmp, "lo-bad.sqlite")
    page = corrupt_leaf(cur, bad, MEMCPY)
    rc, _, err, _ = run([base, bad], False, tmp)
    check(rc == 2 and f"(page {page} of the table:" in err and MEMCPY in err,
          f"left-out: a corrupt leaf of {MEMCPY} is an error naming page {page}: "
          f"{err.strip()[-200:]}")


def main():
    totals = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.sqlite")
        gen(base, *GEN_ARGS)
        for name, args, edit, direct in SHAPES:
            cur = os.path.join(tmp, name + ".sqlite")
            gen(cur, *GEN_ARGS, *args, "--scale", "1.3", "--slow", "2:1.5")
            if edit:
                edit(cur)
            for mode, margs in MODES:
                a = run([base, cur, *margs], False, tmp)
                b = run([base, cur, *margs], True, tmp)
                check(a == b, f"{name} {mode}: page reader and SQL agree "
                              f"(exit {a[0]}, {len(a[1])} bytes stdout)")
                check(a[3] is not None and a[0] in (0, 1, 2), f"{name} {mode}: a verdict "
                      f"(exit {a[0]}) {a[2].strip()[:200]}")
            if name in ("plain", "real-corr", "real-corr-without-rowid", "real-span"):
                # the same work whatever the declared type: never a row dropped
                totals[name] = {}
                for mode, margs in MODES:
                    for sql_only in (False, True):
                        js = run([base, cur, *margs], sql_only, tmp)[3]
                        totals[name][mode, sql_only] = js and js["current"]["total_gpu_ms"]
                check(totals[name] == totals["plain"],
                      f"{name}: the plain file's figures {totals[name]}")
            if name in ("null-end", "real-start", "text-end", "text-default-key"):
                check(a[0] == 2 and "ERROR:" in a[2], f"{name}: the bad row is an error")
                continue   # a bad row stops the read before any later page
            else:
                check(a[3]["current"]["total_gpu_ms"] > 0, f"{name}: work read")
            bad = os.path.join(tmp, name + "-bad.sqlite")
            table = "CUPTI_ACTIVITY_KIND_RUNTIME" if name.startswith("rowid-key") else K
            page = corrupt_leaf(cur, bad, table)
            # every mode that reads the table (total mode reads no runtime calls)
            for mode, margs in MODES if table == K else [m for m in MODES if m[0] == "nvtx"]:
                rc, _, err, _ = run([base, bad, *margs], False, tmp)
                # the SQL path checks the tree's pages first, and says so
                named = f"(page {page} of the table:" in err and "before SQL reads it" not in err
                ran = mode in direct if isinstance(direct, set) else direct
                check(rc == 2 and "corrupt SQLite database" in err,
                      f"{name} {mode}: leaf page {page} overwritten is an error: "
                      f"{err.strip()[:200]}")
                check(named == ran, f"{name} {mode}: the page reader "
                                    f"{'ran' if ran else 'did not run'} ({err.strip()[:160]})")
        left_out_fallbacks(tmp, base)
        # the cycle guard: every page visited at most once, so no file loops
        cyc = os.path.join(tmp, "cycle.sqlite")
        loop_root(os.path.join(tmp, "small-pages.sqlite"), cyc, K)
        rc, _, err, _ = run([base, cyc], False, tmp)
        check(rc == 2 and "a page reached twice" in err,
              f"a table root that is its own child: refused ({err.strip()[:200]})")
    if failures:
        print(f"{len(failures)} failed", file=sys.stderr)
        sys.exit(1)


main()
