#!/usr/bin/env python3
"""includes.py, house.py and names.py on small trees made here, so that the layout
suite can fail: a tree that keeps the rules passes, and each way of
breaking them (an include up between roles or inside a folder's order, a
peer's include, a call up that no include shows, a module no line lists,
a line naming no module, a circle, a third-party library called
outside its home, a README without a direction line) is
caught by its message.  house.py counts the broken tree's circle and
arrows up.

Usage: selftest.py [CC...]   (the C compiler's command, for the objects
the call check reads; default cc)"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CC = sys.argv[1:] or ["cc"]

README = """# src/

## The direction

```
main -> app -> lib
```

## Inside the folders

```
app: ng_a -> ng_b
lib: ng_x -> ng_y, ng_z
```
"""

# A tree that keeps the rules: every include and call goes right.
GOOD = {
    "README.md": README,
    "main.c": '#include "app/ng_a.h"\nint main(void) { return ng_a(); }\n',
    "app/ng_a.h": "int ng_a(void);\n",
    "app/ng_a.c": '#include "app/ng_a.h"\n#include "app/ng_b.h"\n#include "lib/ng_x.h"\n'
                  "int ng_a(void) { return ng_b() + ng_x(); }\n",
    "app/ng_b.h": "int ng_b(void);\n",
    "app/ng_b.c": '#include "app/ng_b.h"\nint ng_b(void) { return 1; }\n',
    "lib/ng_x.h": "int ng_x(void);\n",
    "lib/ng_x.c": '#include "lib/ng_x.h"\n#include "lib/ng_y.h"\n#include "lib/ng_z.h"\n'
                  "int ng_x(void) { return ng_y() + ng_z(); }\n",
    "lib/ng_y.h": "int ng_y(void);\n",
    "lib/ng_y.c": '#include "lib/ng_y.h"\nint ng_y(void) { return 2; }\n',
    "lib/ng_z.h": "int ng_z(void);\n",
    "lib/ng_z.c": '#include "lib/ng_z.h"\nint ng_z(void) { return 3; }\n',
}

# Each case: the files changed from GOOD, and a text every message of
# includes.py must hold one of (all of them found).
CASES = [
    ("an include up inside a folder's order",
     {"app/ng_b.c": '#include "app/ng_b.h"\n#include "app/ng_a.h"\n'
                    "int ng_b(void) { return 1; }\n"},
     ['app/ng_b.c: includes "app/ng_a.h": ng_b -> ng_a points up in the order of app/',
      "circle: app/ng_a -> app/ng_b -> app/ng_a"]),
    ("an include of a peer",
     {"lib/ng_y.c": '#include "lib/ng_y.h"\n#include "lib/ng_z.h"\n'
                    "int ng_y(void) { return 2; }\n"},
     ['lib/ng_y.c: includes "lib/ng_z.h": ng_y -> ng_z points a peer in the order of lib/']),
    ("an include up between roles",
     {"lib/ng_z.c": '#include "lib/ng_z.h"\n#include "app/ng_b.h"\n'
                    "int ng_z(void) { return 3; }\n"},
     ['lib/ng_z.c: includes "app/ng_b.h": lib -> app points up']),
    ("a call up that no include shows",
     {"lib/ng_y.c": '#include "lib/ng_y.h"\nint ng_x(void);\n'
                    "int ng_y(void) { return ng_x() ? 2 : 0; }\n"},
     ["lib/ng_y.c: calls ng_x() of lib/ng_x.c: ng_y -> ng_x points up in the order of lib/",
      "circle: lib/ng_x -> lib/ng_y -> lib/ng_x"]),
    ("a module no line lists",
     {"lib/ng_w.c": "int ng_w(void);\nint ng_w(void) { return 4; }\n"},
     ["lib/: ng_w is not listed in the folder's line"]),
    ("a folder of two modules without a line",
     {"README.md": README.replace("app: ng_a -> ng_b\n", "")},
     ["app/: 2 modules and no line under '## Inside the folders'"]),
    ("a line naming no module",
     {"README.md": README.replace("ng_y, ng_z", "ng_y, ng_z, ng_gone")},
     ["lib/: the folder's line lists ng_gone, which is no module of it"]),
    ("a README without the direction",
     {"README.md": README.replace("main -> app -> lib\n", "")},
     ["no direction line"]),
    ("a third-party library called outside its home",
     {"lib/ng_y.c": '#include "lib/ng_y.h"\nint inflateEnd(void *);\n'
                    "int ng_y(void) { return inflateEnd(0); }\n"},
     ["lib/ng_y.c: calls inflateEnd() of zlib, which stays in util/ng_gzip.c"]),
    ("a folder the direction does not name",
     {"tool/ng_t.c": "int ng_t(void);\nint ng_t(void) { return 5; }\n"},
     ["tool/ng_t.c: folder 'tool' has no place in the direction"]),
]

# names.py's cases: the files changed from GOOD, and the message expected
# (None: no message, exit 0).
NAME_CASES = [
    ("the tree that keeps the rules", {}, None),
    ("a name carrying another module's name",
     {"app/ng_a.h": "int ng_a(void);\nint ng_b_more(void);\n",
      "app/ng_a.c": '#include "app/ng_a.h"\n#include "app/ng_b.h"\n#include "lib/ng_x.h"\n'
                    "int ng_b_more(void) { return 4; }\n"
                    "int ng_a(void) { return ng_b() + ng_x(); }\n",
      "main.c": '#include "app/ng_a.h"\nint main(void) { return ng_a() + ng_b_more(); }\n'},
     "ng_b_more (in ng_a) carries the name of module ng_b"),
    ("an export only its own file uses",
     {"lib/ng_z.h": "int ng_z(void);\nint ng_z_alone(void);\n",
      "lib/ng_z.c": '#include "lib/ng_z.h"\nint ng_z_alone(void) { return 3; }\n'
                    "int ng_z(void) { return ng_z_alone(); }\n"},
     "ng_z_alone is exported but only ng_z uses it"),
]


def make(root, files):
    for rel, text in files.items():
        if text is None:
            continue
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def library(src, out):
    """The tree's objects (not main.c) in one archive, named as meson names
    them (app/ng_a.c -> app_ng_a.c.o)."""
    objs = []
    for root, _, names in os.walk(src):
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(root, n), src)
            if n.endswith(".c") and "/" in rel:
                obj = os.path.join(out, rel.replace("/", "_") + ".o")
                subprocess.run(CC + ["-c", "-I", src, os.path.join(src, rel), "-o", obj],
                               check=True)
                objs.append(obj)
    lib = os.path.join(out, "libtree.a")
    subprocess.run(["ar", "rcs", lib] + objs, check=True)
    return lib


def run(script, src, lib):
    return subprocess.run([sys.executable, os.path.join(HERE, script), src, "--objects", lib],
                          capture_output=True, text=True)


def main():
    failures = []
    tmp = tempfile.mkdtemp(prefix="layout-selftest-")
    try:
        for i, (what, change, expected) in enumerate([("the tree that keeps the rules", {}, [])]
                                                     + CASES):
            root = os.path.join(tmp, str(i))
            src, out = os.path.join(root, "src"), os.path.join(root, "obj")
            os.makedirs(out)
            make(src, {**GOOD, **change})
            r = run("includes.py", src, library(src, out))
            lines = r.stdout.splitlines()[:-1]   # the last is the count, or "every include"
            if not expected:
                if r.returncode != 0:
                    failures.append(f"{what}: exit {r.returncode}, expected 0:\n{r.stdout}")
                continue
            if r.returncode != 1:
                failures.append(f"{what}: exit {r.returncode}, expected 1:\n{r.stdout}")
            for e in expected:
                if not any(e in l for l in lines):
                    failures.append(f"{what}: no message with {e!r} in:\n{r.stdout}")
            stray = [l for l in lines if not any(e in l for e in expected)]
            if stray:
                failures.append(f"{what}: messages beyond the expected ones: {stray}")
            print(f"caught: {what}")
        # house.py: the tree with the call up has one circle (ng_x, ng_y)
        # and one arrow up in lib/; the tree that keeps the rules none
        for change, want in [({}, "0 circles, 0 arrows up"), (CASES[3][1], "1 circles, 1 arrows up")]:
            root = os.path.join(tmp, "house-" + want[0])
            src, out = os.path.join(root, "src"), os.path.join(root, "obj")
            os.makedirs(out)
            make(src, {**GOOD, **change})
            r = run("house.py", src, library(src, out))
            if r.returncode != 0 or f"overall: 2 rooms, 3 floors, {want}" not in r.stdout:
                failures.append(f"house.py: expected '{want}':\n{r.stdout}{r.stderr}")
        print("house.py counts circles and arrows up")
        # names.py: the tree that keeps the rules passes; a name carrying
        # another module's name, and an export only its own file uses, fail
        for i, (what, change, want) in enumerate(NAME_CASES):
            root = os.path.join(tmp, f"names-{i}")
            src, out, tests = (os.path.join(root, d) for d in ("src", "obj", "tests"))
            os.makedirs(out)
            os.makedirs(tests)
            make(src, {**GOOD, **change})
            r = subprocess.run([sys.executable, os.path.join(HERE, "names.py"), src, tests,
                                library(src, out)], capture_output=True, text=True)
            if r.returncode != (1 if want else 0) or (want and want not in r.stdout):
                failures.append(f"names.py, {what}: exit {r.returncode}, expected "
                                f"{want or 'none'}:\n{r.stdout}{r.stderr}")
            print(f"names.py: {what}")
    finally:
        shutil.rmtree(tmp)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
