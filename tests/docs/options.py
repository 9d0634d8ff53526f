#!/usr/bin/env python3
"""Every option --help lists (the gate's and each command's) is in the man
page, the man page lists no option --help does not, and each is documented
in the README or a page under docs/.  usage: options.py GATE SRCDIR"""
import pathlib
import re
import subprocess
import sys

gate, src = sys.argv[1], pathlib.Path(sys.argv[2])
COMMANDS = ["dashboard", "changes", "ranges"]   # each command with its own --help


def help_options(*args):
    text = subprocess.run([gate, *args, "--help"], capture_output=True, text=True,
                          check=True).stdout
    # an option's line starts with two spaces and a dash ("  -o, --output DIR")
    opts = set()
    for line in text.splitlines():
        if re.match(r"^  -", line):
            opts.update(re.findall(r"--([a-z][a-z0-9-]*)", line.split("  ")[1]))
    for line in text.splitlines():
        if len(line) > 100:
            sys.exit(f"--help {' '.join(args)}: a line over 100 columns: {line!r}")
    return opts


listed = help_options()
for c in COMMANDS:
    listed |= help_options(c)

man = (src / "docs" / "nsys-gate.1").read_text()
in_man = set(re.findall(r"^\.It Fl (?:[a-z] , Fl )?-([a-z][a-z0-9-]*)", man, re.M))
problems = []
for o in sorted(listed - in_man):
    problems.append(f"--{o}: in --help, not in docs/nsys-gate.1")
for o in sorted(in_man - listed):
    problems.append(f"--{o}: in docs/nsys-gate.1, not in --help")

docs = (src / "README.md").read_text() + "".join(
    p.read_text() for p in sorted((src / "docs").glob("**/*.md")))
for o in sorted(listed):
    if not re.search(r"--" + re.escape(o) + r"(?![a-z0-9-])", docs):
        problems.append(f"--{o}: in --help, in neither README.md nor docs/*.md")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{len(listed)} options: --help, the man page and the docs agree")
