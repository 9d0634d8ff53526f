#!/usr/bin/env python3
"""For the gate and for each command, three lists of options agree: its
table (the rows the option parser reads, as option_tables prints them), its
--help, and its part of the man page (the gate's OPTIONS section, a
command's "<Command> options" list): the same flags, short flags,
placeholders and variables.  Each option and each variable --help names is
also in README.md or a page under docs/, and each variable is in the man
page.  No --help line passes 100 columns.
usage: options.py GATE OPTION_TABLES SRCDIR"""
import pathlib
import re
import subprocess
import sys

gate, tables, src = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
# "" is the gate; each command has its own table, --help and man list
COMMANDS = ["", "dashboard", "changes", "ranges", "summarize"]
problems = []


def say(command, text):
    problems.append(f"{command or 'the gate'}: {text}")


def table_rows():
    """command -> {flag: (short, meta, variable)}; command -> --help shows shorts."""
    out = subprocess.run([tables], capture_output=True, text=True, check=True).stdout
    rows, shows_short = {c: {} for c in COMMANDS}, {}
    for line in out.splitlines():
        command, shows, flag, short, meta, env = line.split("\t")
        rows[command][flag] = (short or None, meta or None, env or None)
        shows_short[command] = shows == "1"
    return rows, shows_short


def help_rows(command):
    """{flag: (short, meta, variable)} as --help lists them."""
    args = [gate] + ([command] if command else []) + ["--help"]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    lines, rows = text.splitlines(), {}
    for i, line in enumerate(lines):
        if len(line) > 100:
            say(command, f"--help: a line over 100 columns: {line!r}")
        # "  -o, --output DIR        help [VAR]", the help wrapped onto lines
        # indented 26 columns (a long left part has a line of its own)
        if not line.startswith("  -"):
            continue
        left, _, help_text = line[2:].partition("  ")
        for more in lines[i + 1:]:
            if not more.startswith(" " * 26):
                break
            help_text += " " + more.strip()
        m = re.fullmatch(r"(?:(-[a-zA-Z]), )?--([a-z][a-z0-9-]*)(?: (\S+))?", left)
        if not m:
            say(command, f"--help: an option line that does not parse: {line!r}")
            continue
        env = re.search(r"\[([A-Z][A-Z0-9_]*)\]$", help_text.strip())
        rows[m.group(2)] = (m.group(1), m.group(3), env.group(1) if env else None)
    return rows


def man_rows(man, command):
    """{flag: (short, meta)} of the man page's list for the command."""
    if command:
        start = man.index(f".Ss {command.capitalize()} options\n")
        part = man[start:man.index("\n.El\n", start)]
    else:
        part = man[man.index(".Sh OPTIONS\n"):man.index(".Sh COMMANDS\n")]
    rows = {}
    for m in re.finditer(r"^\.It Fl (?:([a-zA-Z]) , Fl )?-([a-z][a-z0-9-]*)(?: Ar (\S+))?",
                         part, re.M):
        rows[m.group(2)] = ("-" + m.group(1) if m.group(1) else None, m.group(3))
    return rows


def compare(command, what, a, b, a_name, b_name):
    for flag in sorted(a.keys() - b.keys()):
        say(command, f"--{flag}: in {a_name}, not in {b_name}")
    for flag in sorted(b.keys() - a.keys()):
        say(command, f"--{flag}: in {b_name}, not in {a_name}")
    for flag in sorted(a.keys() & b.keys()):
        for label, x, y in zip(what, a[flag], b[flag]):
            if x != y:
                say(command, f"--{flag}: {label} {x!r} in {a_name}, {y!r} in {b_name}")


man = (src / "docs" / "nsys-gate.1").read_text()
docs = (src / "README.md").read_text() + "".join(
    p.read_text() for p in sorted((src / "docs").glob("**/*.md")))
in_man_env = set(re.findall(r"^\.(?:It )?Ev ([A-Z][A-Z0-9_]*)", man, re.M)) | set(
    re.findall(r"\bEv ([A-Z][A-Z0-9_]*)", man))
table, shows_short = table_rows()
total = 0
for c in COMMANDS:
    rows, listed = table[c], help_rows(c)
    total += len(rows)
    # --help hides the short flags of a table whose help lines name them
    shown = {f: (s if shows_short[c] else None, m, e) for f, (s, m, e) in rows.items()}
    compare(c, ("short flag", "placeholder", "variable"), shown, listed, "its table", "--help")
    compare(c, ("short flag", "placeholder"), {f: (s, m) for f, (s, m, e) in rows.items()},
            man_rows(man, c), "its table", "docs/nsys-gate.1")
    for flag, (_, _, env) in sorted(listed.items()):
        if not re.search(r"--" + re.escape(flag) + r"(?![a-z0-9-])", docs):
            say(c, f"--{flag}: in --help, in neither README.md nor docs/*.md")
        if env and env not in in_man_env:
            say(c, f"{env}: in --help, not in docs/nsys-gate.1")
        if env and not re.search(re.escape(env) + r"(?![A-Z0-9_])", docs):
            say(c, f"{env}: in --help, in neither README.md nor docs/*.md")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{total} options of {len(COMMANDS)} tables: their --help, the man page and the docs "
      "agree")
