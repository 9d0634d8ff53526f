#!/usr/bin/env python3
"""Every example output shown in the README and the man page is what the
program prints: each is produced here by running the gate, and each of its
lines must be a whole line of that output, in order (an example may leave
lines out, never change one).

Which examples: in README.md every fenced block without a language whose
first line is a verdict (PASS:, FAIL:, INCONCLUSIVE:, ERROR:), a metric
(nsys_gate_...), a `ranges` table or what `summarize` says it wrote, and every inline code span that starts
with a verdict or ERROR:; in docs/nsys-gate.1 every literal display
(.Bd -literal) and .Dl line that starts with a verdict.  Shortened examples
(with "...") are left out.  An example no producer below makes fails the
test: a new example needs a producer.  usage: examples.py GATE GENTRACE SRCDIR
"""
import os
import re
import subprocess
import sys
import tempfile

gate, gentrace, src = sys.argv[1], sys.argv[2], sys.argv[3]
VERDICT = re.compile(r"^(PASS|FAIL|INCONCLUSIVE|ERROR):")
HEADER = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),"
          "Name")
problems = []


def kernel_csv(path, total_ns):
    """A saved nsys stats kernel summary: one kernel of total_ns."""
    with open(path, "w") as f:
        f.write(f"{HEADER}\n100.0,{total_ns},100,1.0,1.0,1,1,0.0,\"void step_kernel(float *)\"\n")


def run(d, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NSYS_GATE_", "GITHUB_"))}
    env.update(LC_ALL="C", TZ="UTC", SOURCE_DATE_EPOCH="1700000000")
    p = subprocess.run([gate, *args], cwd=d, env=env, capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr


def human_lines(d):
    """427.2 ms an epoch over 5 epochs against 444.3 and 594.1."""
    for name, ms in (("main", 427.2), ("pass", 444.3), ("fail", 594.1)):
        kernel_csv(os.path.join(d, f"{name}.csv"), round(ms * 5 * 1e6))
    return run(d, "main.csv", "pass.csv") + run(d, "main.csv", "fail.csv")


def metrics(d):
    """35.642080 ms an epoch against 1.35 times that, as OpenMetrics."""
    kernel_csv(os.path.join(d, "b.csv"), 178210400)
    kernel_csv(os.path.join(d, "c.csv"), round(178210400 * 1.35))
    run(d, "--metrics", "m.prom", "--junit", "j.xml", "b.csv", "c.csv")
    return open(os.path.join(d, "m.prom")).read()


def ranges(d):
    """The golden case ranges_nested: `nsys-gate ranges` on nested ranges."""
    subprocess.run([gentrace, "-o", "p.sqlite", "--kernels", "600", "--names", "4", "--epochs",
                    "6", "--nested", "--jitter", "0.05"], cwd=d, check=True, capture_output=True)
    return run(d, "ranges", "p.sqlite")


def unknown_option(d):
    kernel_csv(os.path.join(d, "a.csv"), 1000000)
    return run(d, "--treshold", "1.2", "a.csv", "a.csv")


def first_night(d):
    kernel_csv(os.path.join(d, "tonight.csv"), 50000000)
    return run(d, "--name", "resnet50", "--baseline-history", "nightly.jsonl", "--history",
               "nightly.jsonl", "tonight.csv")


def summarize(d):
    """`nsys-gate summarize` of a generated export of 6 kernels over 12 epochs."""
    subprocess.run([gentrace, "-o", "main.sqlite", "--kernels", "2000", "--names", "6",
                    "--epochs", "12"], cwd=d, check=True, capture_output=True)
    return run(d, "summarize", "--epoch-range", "auto", "-o", "main.summary.json.gz",
               "main.sqlite")


def man_pass(d):
    """10 ms an epoch over 10 epochs on both sides."""
    kernel_csv(os.path.join(d, "a.csv"), 100000000)
    return run(d, "--epochs", "10", "a.csv", "a.csv")


# (a substring the example holds, its producer)
PRODUCERS = [
    ("baseline=427.2ms/epoch", human_lines),
    ("nsys_gate_pass{", metrics),
    ("NVTX ranges in", ranges),
    ("did you mean '--threshold'", unknown_option),
    ("no baseline yet: this run starts the history of 'resnet50'", first_night),
    ("baseline=10.0ms/epoch current=10.0ms/epoch ratio=1.000x (epochs=10)", man_pass),
    ("from 'main.sqlite' (sqlite)", summarize),
]
cache = {}


def produce(where, example):
    for key, fn in PRODUCERS:
        if key in example:
            if fn not in cache:
                with tempfile.TemporaryDirectory() as d:
                    cache[fn] = fn(d)
            return cache[fn]
    problems.append(f"{where}: no producer for the example {example.splitlines()[0]!r}")
    return None


def check_lines(where, example):
    out = produce(where, example)
    if out is None:
        return
    lines, at = out.splitlines(), 0
    for want in example.splitlines():
        if not want.strip():
            continue
        try:
            at = lines.index(want, at) + 1
        except ValueError:
            problems.append(f"{where}: the program does not print this line (in this order):\n"
                            f"    {want}\n  it printed:\n    " + "\n    ".join(lines[:20]))
            return


def check_span(where, span):
    out = produce(where, span)
    if out is not None and span not in " ".join(out.split()):
        problems.append(f"{where}: the program does not print {span!r}; it printed:\n  {out}")


def fenced_blocks(text):
    """(line number, language, body) of each fenced block, fences paired in order."""
    lines, at, blocks = text.splitlines(), 0, []
    while at < len(lines):
        if lines[at].startswith("```"):
            end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("```")),
                       len(lines))
            blocks.append((at + 1, lines[at][3:].strip(), "\n".join(lines[at + 1:end])))
            at = end
        at += 1
    return blocks


readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
found = 0
for line, lang, block in fenced_blocks(readme):
    first = block.splitlines()[0] if block.strip() else ""
    if lang or "..." in block or not (VERDICT.match(first) or first.startswith("nsys_gate_")
                                      or re.match(r"^\S+: \d+ NVTX ranges in", first)
                                      or re.match(r"^\S+\.summary\.json(\.gz)?: \d+ items", first)):
        continue
    found += 1
    check_lines(f"README.md line {line}", block)
for m in re.finditer(r"`((?:PASS|FAIL|INCONCLUSIVE|ERROR):[^`]+)`", readme):
    span = " ".join(m.group(1).split())
    if "..." in span:
        continue
    found += 1
    check_span(f"README.md line {readme[:m.start()].count(chr(10)) + 1}", span)

man = open(os.path.join(src, "docs", "nsys-gate.1"), encoding="utf-8").read()
for m in re.finditer(r"^\.Bd -literal[^\n]*\n(.*?)^\.Ed", man, re.M | re.S):
    if VERDICT.match(m.group(1)) and "..." not in m.group(1):
        found += 1
        check_lines(f"nsys-gate.1 line {man[:m.start()].count(chr(10)) + 1}", m.group(1))
for m in re.finditer(r"^\.Dl (.*)$", man, re.M):
    if VERDICT.match(m.group(1)) or re.match(r"^\S+ baseline=", m.group(1)):
        found += 1
        check_lines(f"nsys-gate.1 line {man[:m.start()].count(chr(10)) + 1}", m.group(1))

if found < 6:
    problems.append(f"only {found} examples found: the patterns above no longer match the docs")
for p in problems:
    print(f"not ok - {p}")
print(f"{found} examples checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
