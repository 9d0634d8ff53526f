#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md leads somewhere: the file
exists, and a #fragment names a heading of that page (GitHub's anchors).
usage: links.py SRCDIR"""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1]).resolve()
pages = [src / "README.md", *sorted((src / "docs").glob("**/*.md"))]


def anchors(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    out = set()
    for h in re.findall(r"^#+ (.*)$", text, re.M):
        a = re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        out.add(a)
    return out


problems = []
for page in pages:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, frag = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        where = f"{page.relative_to(src)}: ({target})"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif frag and dest.suffix == ".md" and frag not in anchors(dest):
            problems.append(f"{where}: no heading #{frag}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{len(pages)} pages: every relative link leads somewhere")
