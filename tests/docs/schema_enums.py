#!/usr/bin/env python3
"""The schemas agree with the tables they describe:

- formats: every "format" enum of schemas/*.json lists the names of the
  input kinds the registry walks (the array of struct ng_source_kind
  pointers under src/sources/, each kind's .format named by the
  formats[] table of core/ng_profile.c), and the names ng_format_name()
  gives the formats no kind reads (a past run of a history, a profile not
  read), and nothing else;
- metrics: every "metric" enum lists ng_metrics[] (core/ng_metric.c), in
  its order;
- outputs: every output of the outputs table (cli/ng_outputs.c) that
  writes a document has a schema under schemas/ whose title or opening
  description names the option (or variable) that asks for it (--json,
  --history, --benchmark-json), or, for a schema whose opening can name
  no option (an XML comment cannot hold "--"), one named after its
  reporter (junit.xsd); every output without one is in NO_SCHEMA with the
  reason.

The tables are read from the C sources, so a row added there and not in
a schema (or the other way round) fails here.  usage: schema_enums.py SRCDIR"""
import json
import pathlib
import re
import sys

# Outputs that are no document a schema could describe, and what checks
# them instead.
NO_SCHEMA = {
    "human": "one line for people",
    "metrics": "OpenMetrics text (promtool checks it in the ci suite)",
    "html": "a page (html-validate checks it in the html suite)",
    "github-annotations": "GitHub's workflow commands",
    "github-summary": "Markdown for GitHub's step summary",
    "github-output": "name=value lines for GitHub's step outputs",
}

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
src = root / "src"
problems = []


def table(path, name):
    """The initializer of the array `name` in path (text between its braces)."""
    text = path.read_text()
    m = re.search(r"\b" + re.escape(name) + r"\s*\[\s*\]\s*=\s*\{", text)
    if not m:
        sys.exit(f"{path}: no table {name}[]")
    depth, i = 1, m.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i - 1]


def format_names():
    """{NG_FORMAT_X: name} from the formats[] table ng_format_name() reads,
    and the name it gives any other value."""
    path = src / "core" / "ng_profile.c"
    names = dict(re.findall(r"\[(NG_FORMAT_\w+)\]\s*=\s*\{\s*\"([^\"]+)\"",
                            table(path, "formats")))
    m = re.search(r"const char \*ng_format_name\(enum ng_format f\)\s*\{(.*?)\n\}",
                  path.read_text(), re.S)
    if not m or not names:
        sys.exit("core/ng_profile.c: no ng_format_name() and its formats[]")
    other = re.findall(r":\s*\"([^\"]+)\";", m.group(1))
    return names, other[-1] if other else None


def registry_formats():
    """The format names of the input kinds the registry lists, in its order."""
    sources = {p: p.read_text() for p in sorted((src / "sources").rglob("*.c"))}
    reg = [(p, m) for p, t in sources.items()
           for m in re.finditer(r"const struct ng_source_kind \*const (\w+)\[\]", t)]
    if len(reg) != 1:
        sys.exit(f"src/sources: {len(reg)} registries of struct ng_source_kind, expected 1")
    path, m = reg[0]
    kinds = re.findall(r"&(\w+)", table(path, m.group(1)))
    names, _ = format_names()
    out = []
    for k in kinds:
        defs = [t for t in sources.values()
                if re.search(r"const struct ng_source_kind " + k + r"\s*=\s*\{", t)]
        if len(defs) != 1:
            sys.exit(f"the registry's {k}: {len(defs)} definitions under src/sources")
        f = re.search(r"const struct ng_source_kind " + k + r"\s*=\s*\{[^}]*?\.format\s*=\s*(\w+)",
                      defs[0], re.S)
        if not f or f.group(1) not in names:
            sys.exit(f"the registry's {k}: no .format that ng_format_name() names")
        out.append(names[f.group(1)])
    return out


def enums(node, key, where, found):
    """Every enum of a property named key: (where, values)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, dict) and "enum" in v:
                found.append((f"{where}/{k}", v["enum"]))
            enums(v, key, f"{where}/{k}", found)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            enums(v, key, f"{where}[{i}]", found)
    return found


schemas = {p.name: json.loads(p.read_text()) for p in sorted((root / "schemas").glob("*.json"))}

# formats
read = registry_formats()
names, other = format_names()
unread = [n for n in list(names.values()) + [other] if n and n not in read]
want = set(read) | set(unread)
formats = [e for name, s in schemas.items() for e in enums(s, "format", name, [])]
for where, values in formats:
    got = {v for v in values if v is not None}
    for v in sorted(want - got):
        origin = "an input kind of the registry" if v in read else "ng_format_name()'s"
        problems.append(f"{where}: the enum lacks '{v}' ({origin})")
    for v in sorted(got - want):
        problems.append(f"{where}: '{v}' is no format the gate names")
if not formats:
    problems.append("schemas/: no format enum at all")

# metrics
metrics = re.findall(r"\{\s*NG_METRIC_\w+\s*,\s*\"([^\"]+)\"",
                     table(src / "core" / "ng_metric.c", "ng_metrics"))
found = [e for name, s in schemas.items() for e in enums(s, "metric", name, [])]
for where, values in found:
    got = [v for v in values if v is not None]
    if got != metrics:
        problems.append(f"{where}: {got}, the table (core/ng_metric.c) has {metrics}")
if not found:
    problems.append("schemas/: no metric enum at all")

# outputs
def opening(path):
    """What a schema says it is: the title and description of a JSON
    schema, the first comment of an XML one."""
    if path.suffix == ".json":
        s = json.loads(path.read_text())
        return f"{s.get('title', '')} {s.get('description', '')}"
    m = re.search(r"<!--(.*?)-->", path.read_text(), re.S)
    return m.group(1) if m else ""


said = {p.name: opening(p) for p in sorted((root / "schemas").iterdir())
        if p.suffix in (".json", ".xsd")}
rows = re.findall(r"\{([^{}]*\.reporter\s*=[^{}]*)\}", table(src / "cli" / "ng_outputs.c", "ng_outputs"))
reporters = set()
for row in rows:
    field = dict(re.findall(r"\.(\w+)\s*=\s*\"([^\"]*)\"", row))
    reporter = field["reporter"]
    reporters.add(reporter)
    origin = field.get("option") or field.get("env")
    if reporter in NO_SCHEMA:
        continue
    if not origin:
        problems.append(f"output '{reporter}': neither an option nor a variable asks for it")
        continue
    word = re.compile(r"(?<![\w-])" + re.escape(origin) + r"(?![\w-])")
    # an XML comment cannot hold "--": there the file's name says it
    if not any(word.search(text) or (name.split(".")[0] == reporter and
                                     not re.search(r"(?<![\w-])--\w", text))
               for name, text in said.items()):
        problems.append(f"output '{reporter}' ({origin}): no schema under schemas/ is named "
                        f"{reporter} or names {origin} in its title or description (or add "
                        "it to NO_SCHEMA)")
for r in sorted(set(NO_SCHEMA) - reporters):
    problems.append(f"NO_SCHEMA names '{r}', which is no output of cli/ng_outputs.c")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{len(formats)} format and {len(found)} metric enums list the tables' "
      f"{len(want)} formats and {len(metrics)} metrics; {len(rows) - len(NO_SCHEMA)} outputs "
      "have their schema")
