#!/usr/bin/env python3
"""Names that say their module (src/README.md, "Conventions").

Two rules, over every symbol the library exports (nm) and every struct,
enum and union a header defines:

- No name carries another module's name: the longest module name a
  symbol starts with must be the module that defines it or the header
  that declares it (ng_batch_count in core/ng_verdict.c would send a
  reader to run/ng_batch.c).
- Nothing is exported that only its own file uses: a function no other
  file of src/ or tests/ names belongs inside its file, static.

Usage: names.py SRCDIR TESTSDIR LIB   (exit 1 with one line per problem)"""
import os
import re
import subprocess
import sys

NM_LINE = re.compile(r".*:(?:[^:]*?)(ng_\w+)\.c\.o:\s*[0-9a-f]*\s+[TDRBC]\s+(\S+)$")
TYPE = re.compile(r"^(?:typedef\s+)?(?:struct|enum|union)\s+(ng_\w+)\s*\{", re.M)
WORD = re.compile(r"\bng_\w+")
DECL = re.compile(r"\b(ng_\w+)\s*(?:\(|\[|;)")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
NM_UNDEF = re.compile(r".*:(?:[^:]*?)(ng_\w+)\.c\.o:\s+U\s+(\S+)$")


def sources(*roots):
    for root in roots:
        for d, _, names in os.walk(root):
            for n in names:
                if n.endswith((".c", ".h")):
                    yield os.path.join(d, n)


def longest_module(name, modules):
    best = None
    for m in modules:
        if (name == m or name.startswith(m + "_")) and (best is None or len(m) > len(best)):
            best = m
    return best


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def main(src, tests, lib):
    files = {p: open(p, encoding="utf-8").read() for p in sources(src, tests)}
    modules = {stem(p) for p in files if p.startswith(src) and stem(p).startswith("ng_")}
    declared = {}          # name -> modules of the headers that declare it
    users = {}             # name -> objects, tests and main.c that use it
    for p, text in files.items():
        if p.endswith(".h") and p.startswith(src):
            for w in DECL.findall(COMMENT.sub(" ", text)):
                declared.setdefault(w, set()).add(stem(p))
        elif not p.startswith(src) or p == os.path.join(src, "main.c"):
            for w in set(WORD.findall(text)):
                users.setdefault(w, set()).add(p)
    out = subprocess.run(["nm", "-A", "--defined-only", lib], capture_output=True,
                         text=True, check=True).stdout
    undefined = subprocess.run(["nm", "-A", "--undefined-only", lib], capture_output=True,
                               text=True, check=True).stdout
    for line in undefined.splitlines():
        m = NM_UNDEF.match(line)
        if m:
            users.setdefault(m.group(2), set()).add(m.group(1))
    problems = []
    for line in out.splitlines():
        m = NM_LINE.match(line)
        if not m or not m.group(2).startswith("ng_"):
            continue
        own, sym = m.group(1), m.group(2)
        mine = {own} | declared.get(sym, set())
        named = longest_module(sym, modules)
        if named and named not in mine:
            problems.append(f"{sym} (in {own}) carries the name of module {named}")
        if not users.get(sym, set()) - {own}:
            problems.append(f"{sym} is exported but only {own} uses it: make it static")
    for p, text in sorted(files.items()):
        if not (p.startswith(src) and p.endswith(".h")):
            continue
        for t in TYPE.findall(text):
            named = longest_module(t, modules)
            if named and named != stem(p):
                problems.append(f"type {t} (in {os.path.relpath(p, src)}) carries the name of module {named}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
