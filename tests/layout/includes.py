#!/usr/bin/env python3
"""The include direction of src/, as src/README.md states it:

    main -> run -> cli -> reporters, dashboard, changes, ranges -> sources, history, html -> core -> util

A file may include a header of its own folder's role (a role is the first
folder under src/: sources/sqlite is sources) or of a role further down
the line; never one above it, nor a sibling's (reporters, dashboard and changes,
or sources, history and html, know nothing of each other).  Inside a role
the modules (a .c and its .h) must not include each other in a circle.
Every include of a project header names its folder ("core/ng_verdict.h").

With --objects LIB (the library every test links), the same rules hold
for calls: a function or table one object uses must be defined in an
object it may include, so a declaration in a lower header cannot hide a
call that points up (a verdict released by history code, say).

Usage: includes.py SRCDIR [--objects LIB]   (exit 1 with one line per
violation)"""
import os
import re
import subprocess
import sys

LEVELS = [["main"], ["run"], ["cli"], ["reporters", "dashboard", "changes", "ranges"],
          ["sources", "history", "html"], ["core"], ["util"]]
LEVEL = {role: i for i, roles in enumerate(LEVELS) for role in roles}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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


def check(src):
    files = read_includes(src)
    generated = {"html/ng_html_assets.h"}
    problems = []
    graph = {}
    for rel, incs in sorted(files.items()):
        role = role_of(rel)
        if role not in LEVEL:
            problems.append(f"{rel}: folder '{role}' has no place in the direction")
            continue
        for inc in incs:
            if inc not in files and inc not in generated:
                problems.append(f"{rel}: includes \"{inc}\", which is no header of src/ "
                                "(an include names its folder)")
                continue
            to = role_of(inc)
            if to != role and LEVEL.get(to, -1) <= LEVEL[role]:
                way = "a sibling" if LEVEL.get(to) == LEVEL[role] else "up"
                problems.append(f"{rel}: includes \"{inc}\": {role} -> {to} points {way}")
            a, b = module_of(rel), module_of(inc)
            if a != b and to == role:
                graph.setdefault(a, set()).add(b)
    problems += circles(graph)
    return problems


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


def symbols(lib):
    """{object: (defined, used)} from nm; objects named by their source."""
    out = subprocess.run(["nm", "-A", lib], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        obj = os.path.basename(head)
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


def check_calls(src, lib):
    files = read_includes(src)
    by_object = {}
    for rel in files:
        if rel.endswith(".c"):
            by_object[rel.replace("/", "_") + ".o"] = rel
    objs = symbols(lib)
    where = {}
    for obj, (defined, _) in objs.items():
        for name in defined:
            where[name] = obj
    problems, graph = [], {}
    for obj, (_, used) in sorted(objs.items()):
        rel = by_object.get(obj)
        if not rel:
            problems.append(f"{obj}: an object of no source file under src/")
            continue
        role = role_of(rel)
        for name in sorted(used):
            other = where.get(name)
            if not other or other == obj:
                continue
            to_rel = by_object[other]
            to = role_of(to_rel)
            if to != role and LEVEL[to] <= LEVEL[role]:
                way = "a sibling" if LEVEL[to] == LEVEL[role] else "up"
                problems.append(f"{rel}: calls {name}() of {to_rel}: {role} -> {to} points {way}")
            if to == role:
                graph.setdefault(module_of(rel), set()).add(module_of(to_rel))
    return problems + circles(graph)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    problems = check(src)
    if "--objects" in sys.argv:
        problems += check_calls(src, sys.argv[sys.argv.index("--objects") + 1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the direction of src/README.md")
        return 1
    print(f"{len(read_includes(src))} files, every include in the direction of src/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
