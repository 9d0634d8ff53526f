#!/usr/bin/env python3
"""The shape of src/, as src/README.md states it, checked.

Between folders, the direction line (the fenced block under
"## The direction"): roles from left to right, peers of one rank between
commas.  A file may include a header of its own folder's role (a role is
the first folder under src/: sources/sqlite is sources) or of a role
further right; never one to its left, nor a peer's.  Inside a role the
modules (a .c and its .h) must not include each other in a circle.  Every
include of a project header names its folder ("core/ng_verdict.h").

Inside a folder, the folder's line (the fenced block under "## Inside the
folders"), "folder: a -> b, c -> d/": the same rule between the folder's
modules (file stems) and subfolders (whose modules count as one unit from
outside).  Every folder with more than one unit has a line, and the line
lists every unit of the folder and nothing else.

With --objects LIB (the library every test links), the same rules hold
for calls: a function or table one object uses must be defined in an
object it may include, so a declaration in a lower header cannot hide a
call that points up (a verdict released by history code, say).

Usage: includes.py SRCDIR [--objects LIB]   (exit 1 with one line per
violation; SRCDIR/README.md holds the rules)"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
GENERATED = {"html/ng_html_assets.h"}


def fenced(text, heading):
    """The first fenced block under a '## heading' of README text."""
    m = re.search(r"^## " + re.escape(heading) + r"\s*$(.*?)^```\s*$(.*?)^```", text,
                  re.M | re.S)
    if not m or "\n## " in m.group(1):
        return None
    return m.group(2)


def ranks(chain):
    """'a -> b, c -> d' as {a: 0, b: 1, c: 1, d: 2}."""
    return {name.strip(): i for i, peers in enumerate(chain.split("->"))
            for name in peers.split(",") if name.strip()}


def read_rules(readme):
    """(the direction as {role: rank}, {folder: {unit: rank}}) from README.md;
    raises ValueError when the direction line is missing."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    block = fenced(text, "The direction")
    lines = [l for l in (block or "").splitlines() if "->" in l]
    if len(lines) != 1:
        raise ValueError(f"{readme}: no direction line (one line with '->' in a fenced block "
                         "under '## The direction')")
    orders = {}
    for line in (fenced(text, "Inside the folders") or "").splitlines():
        if line.strip():
            folder, _, chain = line.partition(":")
            orders[folder.strip().rstrip("/")] = ranks(chain)
    return ranks(lines[0]), orders


def role_of(rel):
    return "main" if "/" not in rel else rel.split("/")[0]


def module_of(rel):
    return os.path.splitext(rel)[0]


def read_includes(src):
    files = {}
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                path = os.path.join(root, n)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8") as f:
                    files[rel] = INCLUDE.findall(f.read())
    return files


def units(files):
    """{folder: {unit}} for every folder under src/ (not src/ itself): its
    modules' stems and its subfolders ('sqlite/')."""
    found = {}
    for rel in files:
        folder = os.path.dirname(rel)
        if folder:
            found.setdefault(folder, set()).add(os.path.basename(module_of(rel)))
        while "/" in folder:
            parent = os.path.dirname(folder)
            found.setdefault(parent, set()).add(os.path.basename(folder) + "/")
            folder = parent
    return found


def placed(a, b):
    """The folder both files are in, deepest, and each one's unit there;
    None when they share no folder below src/ or are one unit there."""
    da, db = os.path.dirname(a), os.path.dirname(b)
    if not da or not db:
        return None
    common = os.path.commonpath([da, db])
    if not common:
        return None

    def unit(rel, d):
        if d == common:
            return os.path.basename(module_of(rel))
        return os.path.relpath(d, common).split(os.sep)[0] + "/"
    ua, ub = unit(a, da), unit(b, db)
    return None if ua == ub else (common, ua, ub)


def symbols(lib):
    """{object: (defined, used)} from nm; objects named by their source."""
    out = subprocess.run(["nm", "-A", lib], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        # "lib.a:obj.o", or a thin archive's "lib.a.p/obj.o", or "lib.a[obj.o]"
        obj = os.path.basename(head).split(":")[-1].split("[")[-1].rstrip("]")
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        d, u = objs.setdefault(obj, (set(), set()))
        if kind == "U":
            u.add(name)
        elif kind in "TDBRVW":
            d.add(name)
    return objs


def arrows(src, lib=None):
    """Every dependency between two files of src/: (from, to, how), from
    the includes and, with lib, the calls between its objects; plus the
    problems found on the way (an include of no header, a stray object)."""
    files = read_includes(src)
    found, problems = [], []
    for rel, incs in sorted(files.items()):
        for inc in incs:
            if inc in files:
                found.append((rel, inc, f'includes "{inc}"'))
            elif inc not in GENERATED:
                problems.append(f"{rel}: includes \"{inc}\", which is no header of src/ "
                                "(an include names its folder)")
    if not lib:
        return found, problems
    by_object = {rel.replace("/", "_") + ".o": rel for rel in files if rel.endswith(".c")}
    objs = symbols(lib)
    problems += libraries(objs, by_object)
    where = {name: obj for obj, (defined, _) in objs.items() for name in defined}
    for obj, (_, used) in sorted(objs.items()):
        rel = by_object.get(obj)
        if not rel:
            problems.append(f"{obj}: an object of no source file under src/")
            continue
        for name in sorted(used):
            other = where.get(name)
            if other and other != obj and other in by_object:
                found.append((rel, by_object[other], f"calls {name}() of {by_object[other]}"))
    return found, problems


# Each third-party library stays in the files whose job needs it: the
# calls into it (undefined symbols of these shapes) from any other object
# are problems.  A new home for one is a change to this table and to the
# sentence of docs/architecture.md that names them.
LIBRARIES = [
    ("libsqlite3", re.compile(r"^sqlite3_"), ("sources/sqlite/",)),
    ("zlib", re.compile(r"^(inflate|deflate|crc32|adler32|gz[a-z]|zlibVersion|zError)"),
     ("util/ng_gzip.c",)),
]


def libraries(objs, by_object):
    """Calls into a third-party library from a file that is not its home
    (objs: symbols() of the library, read once by arrows())."""
    problems = []
    for obj, (_, used) in sorted(objs.items()):
        rel = by_object.get(obj)
        if not rel:
            continue
        for lib_name, shape, homes in LIBRARIES:
            if any(rel.startswith(h) for h in homes):
                continue
            for name in sorted(n for n in used if shape.match(n)):
                problems.append(f"{rel}: calls {name}() of {lib_name}, which stays in "
                                f"{', '.join(homes)}")
    return problems


def way(rank_from, rank_to):
    return "a peer" if rank_from == rank_to else "up"


def check(src, lib=None):
    try:
        levels, orders = read_rules(os.path.join(src, "README.md"))
    except (OSError, ValueError) as e:
        return [str(e)]
    files = read_includes(src)
    found, problems = arrows(src, lib)
    for rel in sorted(files):
        if role_of(rel) not in levels:
            problems.append(f"{rel}: folder '{role_of(rel)}' has no place in the direction")
    for folder, present in sorted(units(files).items()):
        order = orders.get(folder)
        if order is None:
            if len(present) > 1:
                problems.append(f"{folder}/: {len(present)} modules and no line under "
                                "'## Inside the folders'")
            continue
        for u in sorted(present - set(order)):
            problems.append(f"{folder}/: {u} is not listed in the folder's line")
        for u in sorted(set(order) - present):
            problems.append(f"{folder}/: the folder's line lists {u}, which is no module of it")
    for folder in sorted(set(orders) - set(units(files))):
        problems.append(f"'## Inside the folders' has a line for {folder}/, which has no files")
    graph = {}
    for a, b, how in found:
        ra, rb = role_of(a), role_of(b)
        if ra != rb:
            if ra in levels and rb in levels and levels[rb] <= levels[ra]:
                problems.append(f"{a}: {how}: {ra} -> {rb} points {way(levels[ra], levels[rb])}")
            continue
        if module_of(a) != module_of(b):
            graph.setdefault(module_of(a), set()).add(module_of(b))
        where = placed(a, b)
        if not where:
            continue
        folder, ua, ub = where
        order = orders.get(folder, {})
        if ua in order and ub in order and order[ub] <= order[ua]:
            problems.append(f"{a}: {how}: {ua} -> {ub} points {way(order[ua], order[ub])} "
                            f"in the order of {folder}/")
    return problems + circles(graph)


def circles(graph):
    """Every circle among the modules of one role, once each."""
    found, seen = [], set()
    def walk(node, path, on_path):
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_path:
                ring = path[path.index(nxt):]
                key = frozenset(ring)
                if key not in seen:
                    seen.add(key)
                    found.append("circle: " + " -> ".join(ring + [nxt]))
            elif nxt not in done:
                walk(nxt, path + [nxt], on_path | {nxt})
        done.add(node)
    done = set()
    for start in sorted(graph):
        if start not in done:
            walk(start, [start], {start})
    return found


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    lib = sys.argv[sys.argv.index("--objects") + 1] if "--objects" in sys.argv else None
    problems = check(src, lib)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) against the rules of {os.path.join(src, 'README.md')}")
        return 1
    print(f"{len(read_includes(src))} files, every include{' and call' if lib else ''} "
          f"as {os.path.join(src, 'README.md')} says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
