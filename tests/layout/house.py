#!/usr/bin/env python3
"""The house drawn as figures: for src/ between its roles and inside each
folder, how many units (roles; modules and subfolders), the floors the
rules give them (ranks of the direction line, or of the folder's line
under '## Inside the folders'), how deep the code really is (the longest
chain of dependencies, a circle counted as one unit), the circles (groups
of units that reach each other), the arrows up (pairs of units, one
depending on the other, against the rules: up or to a peer) and the units
no line lists.  Dependencies are includes and, with --objects, calls
between the library's objects, as includes.py reads them.

--rules README takes the rules from another README.md than SRCDIR's own:
to measure an older tree against the order stated today.

Usage: house.py SRCDIR [--objects LIB] [--rules README.md]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import includes  # noqa: E402


def components(nodes, edges):
    """Strongly connected components (Tarjan), each a frozenset."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(frozenset(comp))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def measure(nodes, edges, order):
    """(units, floors, depth, circles, arrows up, unlisted) of one drawing."""
    comps = components(nodes, edges)
    comp_of = {v: c for c in comps for v in c}
    depth = {}

    def chain(c):
        if c not in depth:
            depth[c] = 0   # a circle is one unit: never walked twice
            below = {comp_of[w] for v in c for w in edges.get(v, ())} - {c}
            depth[c] = 1 + max((chain(d) for d in below), default=0)
        return depth[c]
    deepest = max((chain(c) for c in comps), default=0)
    circles = sum(1 for c in comps if len(c) > 1)
    up = sum(1 for a in edges for b in edges[a]
             if a in order and b in order and order[b] <= order[a])
    floors = len(set(order.values())) if order else None
    unlisted = len(nodes - set(order)) if order else None
    return len(nodes), floors, deepest, circles, up, unlisted


def house(src, lib=None, rules=None):
    levels, orders = includes.read_rules(rules or os.path.join(src, "README.md"))
    files = includes.read_includes(src)
    found, _ = includes.arrows(src, lib)
    roles = {includes.role_of(rel) for rel in files}
    between, inside = {}, {}
    for a, b, _how in found:
        ra, rb = includes.role_of(a), includes.role_of(b)
        if ra != rb:
            between.setdefault(ra, set()).add(rb)
            continue
        where = includes.placed(a, b)
        if where:
            folder, ua, ub = where
            inside.setdefault(folder, {}).setdefault(ua, set()).add(ub)
    rows = [("(between roles)", measure(roles, between, levels))]
    for folder, present in sorted(includes.units(files).items()):
        if len(present) > 1 or folder in orders:
            order = {u: r for u, r in orders.get(folder, {}).items() if u in present}
            rows.append((folder, measure(present, inside.get(folder, {}), order)))
    return len(includes.units(files)), len(set(levels.values())), rows


def show(v):
    return "-" if v is None else str(v)


def main():
    args = sys.argv[1:]
    opt = {k: args[args.index(k) + 1] for k in ("--objects", "--rules") if k in args}
    src = args[0] if args and not args[0].startswith("--") else "src"
    rooms, floors, rows = house(src, opt.get("--objects"), opt.get("--rules"))
    print(f"the house of {src} (rules: {opt.get('--rules', os.path.join(src, 'README.md'))}; "
          f"{'includes and calls' if '--objects' in opt else 'includes only'})")
    head = ("room", "units", "floors", "depth", "circles", "arrows up", "unlisted")
    print(f"{head[0]:<18}" + "".join(f"{h:>10}" for h in head[1:]))
    for name, figures in rows:
        print(f"{name:<18}" + "".join(f"{show(v):>10}" for v in figures))
    circles = sum(f[3] for _, f in rows)
    up = sum(f[4] for _, f in rows)
    print(f"overall: {rooms} rooms, {floors} floors, {circles} circles, {up} arrows up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
