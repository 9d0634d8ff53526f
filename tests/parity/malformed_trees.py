"""The page reader is as strict as SQLite on the b-tree pages it reads, and
the SQL path as strict as the page reader: each damaged copy of an export
is read by SQLite itself (Python's sqlite3, the reference), by the gate's
page reader and by --sqlite-sql-only, in total, NVTX and gpu-busy mode.
Every damage here is one that SQLite's own scan calls corrupt, or (a leaf
listed twice: SQLite's cursor reads it twice, only quick_check sees it)
one its quick_check does; the gate must then refuse on both paths with
`corrupt SQLite database`, exit 2 -- never give a figure.

Damage: a leaf whose cell count is 0; an interior page below the root with
no cells; a chain of interior pages making the tree 21 pages deep
(SQLite's cursors stop at 20; 20 deep is read, by both paths, as SQLite
reads it); a child pointer to a page past the header's
page count (the file is longer: a copy of the leaf sits there, so reading
it would give a plausible figure); an interior page that lists one leaf
twice."""
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

GATE = os.environ["GATE"]
GENTRACE = os.environ["GENTRACE"]
K = "CUPTI_ACTIVITY_KIND_KERNEL"
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


class Db:
    """The file's bytes, page by page."""

    def __init__(self, path):
        self.path = path
        self.data = bytearray(open(path, "rb").read())
        self.size = struct.unpack(">H", self.data[16:18])[0]

    def off(self, pg):
        return (pg - 1) * self.size + (100 if pg == 1 else 0)

    def kind(self, pg):
        return self.data[self.off(pg)]

    def n_cells(self, pg):
        return struct.unpack(">H", self.data[self.off(pg) + 3:self.off(pg) + 5])[0]

    def set_n_cells(self, pg, n):
        self.data[self.off(pg) + 3:self.off(pg) + 5] = struct.pack(">H", n)

    def cell_ptr_at(self, pg, i):
        """Where child pointer i of an interior page is stored."""
        o = self.off(pg)
        if i == self.n_cells(pg):
            return o + 8
        cell = struct.unpack(">H", self.data[o + 12 + 2 * i:o + 14 + 2 * i])[0]
        return (pg - 1) * self.size + cell

    def child(self, pg, i):
        at = self.cell_ptr_at(pg, i)
        return struct.unpack(">I", self.data[at:at + 4])[0]

    def set_child(self, pg, i, c):
        at = self.cell_ptr_at(pg, i)
        self.data[at:at + 4] = struct.pack(">I", c)

    def pages(self):
        return len(self.data) // self.size

    def save(self, path):
        open(path, "wb").write(self.data)


def root_of(path, table):
    db = sqlite3.connect(path)
    r = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    return r


def walk(d, root):
    """(interior pages below the root, leaves), in tree order."""
    inner, leaves, todo = [], [], [(root, 0)]
    while todo:
        pg, depth = todo.pop(0)
        if d.kind(pg) == 0x0D:
            leaves.append(pg)
            continue
        if depth > 0:
            inner.append(pg)
        todo += [(d.child(pg, i), depth + 1) for i in range(d.n_cells(pg) + 1)]
    return inner, leaves


def reference(path, quick_check=True):
    """SQLite's own answer: its figure, or None when it calls the file corrupt
    (its scan, or quick_check)."""
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        total = db.execute(f'SELECT sum("end" - start) FROM {K}').fetchone()[0]
        ok = not quick_check or db.execute(f"PRAGMA quick_check({K})").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()
    return total if ok else None


MODES = [("total", ["--work", "all"]),
         ("nvtx", ["--epoch-range", "auto", "--work", "all"]),
         ("gpu-busy", ["--metric", "gpu-busy", "--work", "all"])]


def gate(base, cur, args, sql_only, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NSYS_GATE_")}
    extra = ["--sqlite-sql-only"] if sql_only else []
    return subprocess.run([GATE, *extra, *args, base, cur, "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True)


def deep_chain(d, root, leaves, levels):
    """A new root: a chain of `levels` interior pages appended to the file,
    each with one cell whose child is the next (the last's: the old root) and
    as its right-most child a copy of a leaf, appended too (no page is
    reached twice: only the depth is wrong); the header counts them."""
    first = d.pages() + 1
    copies = first + levels
    for i in range(levels):
        page = bytearray(d.size)
        nxt = first + i + 1 if i + 1 < levels else root
        cell = d.size - 8
        page[0] = 0x05
        page[3:5] = struct.pack(">H", 1)
        page[5:7] = struct.pack(">H", cell)
        page[8:12] = struct.pack(">I", copies + i)
        page[12:14] = struct.pack(">H", cell)
        page[cell:cell + 4] = struct.pack(">I", nxt)
        page[cell + 4] = 0x01   # the key: a one-byte varint
        d.data += page
    for i in range(levels):
        leaf = leaves[i]
        d.data += d.data[(leaf - 1) * d.size:leaf * d.size]
    d.data[28:32] = struct.pack(">I", d.pages())
    return first


def main():
    failed_refs = []
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.sqlite")
        subprocess.run([GENTRACE, "-o", base, "--kernels", "3000", "--epochs", "5"], check=True,
                       stdout=subprocess.DEVNULL)
        # 512-byte pages: interior pages below the root, many leaves
        small = os.path.join(tmp, "small.sqlite")
        shutil.copy(base, small)
        db = sqlite3.connect(small)
        db.execute("PRAGMA page_size = 512")
        db.execute("VACUUM")
        db.close()
        root = root_of(small, K)
        clean = Db(small)
        inner, leaves = walk(clean, root)
        assert inner and len(leaves) > 40, "the test needs a tree three levels deep"

        cases = []

        def case(name, edit):
            d = Db(small)
            edit(d)
            p = os.path.join(tmp, name + ".sqlite")
            d.save(p)
            cases.append((name, p))

        case("leaf-no-cells", lambda d: d.set_n_cells(leaves[len(leaves) // 2], 0))
        case("interior-no-cells", lambda d: d.set_n_cells(inner[0], 0))

        depth, pg = 1, root   # pages from the root to a leaf
        while clean.kind(pg) == 0x05:
            pg, depth = clean.child(pg, 0), depth + 1

        def chained(levels):
            def edit(d):
                new_root = deep_chain(d, root, leaves, levels)
                d.save(d.path + ".tmp")
                db = sqlite3.connect(d.path + ".tmp")
                db.execute("PRAGMA writable_schema = ON")
                db.execute("UPDATE sqlite_master SET rootpage = ? WHERE name = ?", (new_root, K))
                db.commit()
                db.close()
                d.data = bytearray(open(d.path + ".tmp", "rb").read())
            return edit

        # the control: 20 pages deep, which SQLite reads, and so must both paths
        d = Db(small)
        chained(20 - depth)(d)
        deep20 = os.path.join(tmp, "deep-20.sqlite")
        d.save(deep20)
        # (quick_check would say its leaves lie at different depths: a scan does not care)
        ref = reference(deep20, quick_check=False)
        check(ref is not None, "20 pages deep: SQLite's scan reads it")
        for mode, args in MODES:
            a, b = (gate(base, deep20, args, s, tmp) for s in (False, True))
            check(a.returncode in (0, 1) and (a.returncode, a.stdout) == (b.returncode, b.stdout),
                  f"20 pages deep {mode}: one figure on both paths (exit {a.returncode}, "
                  f"{b.returncode}) {(a.stderr + b.stderr).strip()[:200]}")
        r = subprocess.run([GATE, "--print-profile", deep20, "--work", "kernels", "--no-cache"],
                           capture_output=True, text=True)
        check(f": {ref} ns" in r.stdout.split("\n")[0],
              f"20 pages deep: SQLite's total {ref} ns ({r.stdout[:120]})")

        case("deeper-than-20", chained(21 - depth))

        def past_count(d):
            # a copy of a leaf after the last page the header counts, and the
            # interior page's pointer moved to it
            parent = inner[-1]
            leaf = d.child(parent, 0)
            d.data += d.data[(leaf - 1) * d.size:leaf * d.size]
            d.set_child(parent, 0, d.pages())
        case("child-past-page-count", past_count)

        def twice(d):
            parent = inner[-1]
            d.set_child(parent, 1, d.child(parent, 0))
        case("leaf-listed-twice", twice)

        check(reference(small) is not None, "the undamaged file: SQLite reads it")
        for name, p in cases:
            ref = reference(p)
            if ref is not None:
                failed_refs.append(name)
            check(ref is None, f"{name}: SQLite calls it corrupt")
            for mode, args in MODES:
                for sql_only in (False, True):
                    r = gate(base, p, args, sql_only, tmp)
                    path = "SQL" if sql_only else "page reader"
                    check(r.returncode == 2 and "corrupt SQLite database" in r.stderr and
                          r.stderr.count("ERROR:") == 1,
                          f"{name} {mode} {path}: refused (exit {r.returncode}) "
                          f"{(r.stdout + r.stderr).strip()[:220]}")
    if failures:
        print(f"{len(failures)} failed", file=sys.stderr)
        sys.exit(1)


main()
