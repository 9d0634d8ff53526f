#!/usr/bin/python3
"""Checks an output file of nsys-gate the way its consumer reads it.

    validate_output.py SRCDIR FILE...

By name:
  *.json            JSON Schema 2020-12: schemas/verdict.schema.json, or
                    batch.schema.json (an object with "gates"),
                    changes.schema.json (an object with "changes"),
                    ranges.schema.json (an object with "profiles"),
                    summary.schema.json (an object with "nsys_gate_summary"), or
                    benchmark.schema.json (an array)
  *.json.gz         a gzip summary: inflated, then as above
  *.jsonl           JSON Lines: each line a history line
                    (schemas/history.schema.json: a verdict with its rows), at
                    most 65535 bytes, newline-terminated
  *.prom, metrics.txt
                    OpenMetrics: Debian's prometheus_client parser,
                    Prometheus's linter (promtool check metrics, when
                    installed), and GitLab's metrics-report rule
                    (gitlab_metrics() below)
  github_output*    $GITHUB_OUTPUT as the runner reads it
  *.md              a step summary: UTF-8, at most 1 MiB
Anything else passes.  Exit 1 with one line per problem.

jsonschema and prometheus_client are imported where they are used, so a
Python without one still checks the other kinds of file (the golden cases
ask tests/tools/needs.py for the one a file needs first).
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

SUMMARY_MAX = 1024 * 1024
problems = []


def problem(path, msg):
    problems.append(f"{path}: {msg}")


def schema(srcdir, name):
    import jsonschema
    with open(os.path.join(srcdir, "schemas", name), encoding="utf-8") as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return s


def check_json_doc(srcdir, path, doc, line=False):
    verdict = schema(srcdir, "verdict.schema.json")
    if line:
        s = schema(srcdir, "history.schema.json")
    elif isinstance(doc, list):
        s = schema(srcdir, "benchmark.schema.json")
    elif isinstance(doc, dict) and "changes" in doc:
        s = schema(srcdir, "changes.schema.json")
    elif isinstance(doc, dict) and "nsys_gate_summary" in doc:
        s = schema(srcdir, "summary.schema.json")
    elif isinstance(doc, dict) and "profiles" in doc:
        s = schema(srcdir, "ranges.schema.json")
    elif isinstance(doc, dict) and "gates" in doc:
        s = schema(srcdir, "batch.schema.json")
    else:
        s = verdict
    for e in validator(s, verdict).iter_errors(doc):
        problem(path, f"schema: {e.message} at {list(e.path)}")


def validator(s, verdict):
    """A 2020-12 validator of s that finds the verdict schema by its $id,
    never on the network: through the referencing library from jsonschema
    4.18 on (its RefResolver, deprecated there, looks the $id up online),
    through RefResolver before (Debian's 4.10)."""
    import jsonschema
    try:
        import referencing
        import referencing.jsonschema
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(s, store={verdict["$id"]: verdict})
        return jsonschema.Draft202012Validator(s, resolver=resolver)
    registry = referencing.Registry().with_resource(
        verdict["$id"], referencing.Resource.from_contents(
            verdict, default_specification=referencing.jsonschema.DRAFT202012))
    return jsonschema.Draft202012Validator(s, registry=registry)


def check_json(srcdir, path):
    """A JSON document, or a gzip one (*.gz: a summary) inflated first."""
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz")
          else open(path, encoding="utf-8")) as f:
        check_json_doc(srcdir, path, json.load(f))


def check_jsonl(srcdir, path):
    data = open(path, "rb").read()
    if not data.endswith(b"\n"):
        problem(path, "does not end with a newline")
    for n, line in enumerate(data.split(b"\n")[:-1], 1):
        if len(line) + 1 > 65535:
            problem(path, f"line {n} is {len(line) + 1} bytes, more than 65535")
        try:
            doc = json.loads(line.decode("utf-8"))
        except ValueError as e:
            problem(path, f"line {n} is not JSON: {e}")
            continue
        if not isinstance(doc, dict) or "gates" in doc:
            problem(path, f"line {n} is not a verdict")
            continue
        check_json_doc(srcdir, f"{path} line {n}", doc, line=True)


# Ruby's Shellwords.shellsplit, token by token (GitLab's parser uses it).
SHELL_TOKEN = re.compile(r"""\s*(?:([^\s\\'"]+)|'([^']*)'|"((?:[^"\\]|\\.)*)"|(\\.?)|(\S))(\s|\Z)?""",
                         re.S)


def ruby_shellsplit(line):
    """Words of bare characters, 'single quoted', "double quoted" (where a
    backslash escapes only $ ` " \\ and newline), and backslash escapes;
    an unbalanced quote raises, as in Ruby."""
    words, field, i = [], None, 0
    while i < len(line) and line[i:].strip():
        word, sq, dq, esc, garbage, sep = SHELL_TOKEN.match(line, i).groups()
        if garbage is not None:
            raise ValueError(f"unmatched quote: {line!r}")
        if word is not None:
            piece = word
        elif sq is not None:
            piece = sq
        elif dq is not None:
            piece = re.sub(r'\\([$`"\\\n])', r"\1", dq)
        else:
            piece = re.sub(r"\\(.)", r"\1", esc, flags=re.S)
        field = (field or "") + piece
        if sep is not None:
            words.append(field)
            field = None
        i = SHELL_TOKEN.match(line, i).end()
    if field is not None:
        words.append(field)
    return words


def gitlab_metrics(text):
    """GitLab's Gitlab::Ci::Parsers::Metrics::Generic: for each non-blank
    line, drop '#' to the end of the line, shell-split, keep (name, first
    value); a line that does not split is skipped (GitLab logs it)."""
    out = {}
    for line in text.splitlines(keepends=True):
        if not line.strip():
            continue
        try:
            words = ruby_shellsplit(re.sub(r"#.*$", "", line, flags=re.M))
        except ValueError:
            continue
        if len(words) >= 2:
            out[words[0]] = words[1]
    return out


def check_metrics(path):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    data = open(path, "rb").read()
    if b"\r" in data:
        problem(path, "holds a carriage return")
    text = data.decode("utf-8")
    if not text.endswith("# EOF\n"):
        problem(path, "does not end with '# EOF'")
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:   # the parser raises ValueError and friends
        problem(path, f"OpenMetrics parser: {e}")
        return
    promtool = shutil.which("promtool")
    if promtool:
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                           text=True)
        if p.returncode != 0 or (p.stdout + p.stderr).strip():
            problem(path, f"promtool check metrics: {(p.stdout + p.stderr).strip()}")
    gitlab = gitlab_metrics(text)
    samples = [(s, f) for f in families for s in f.samples]
    for s, f in samples:
        if f.type != "gauge":
            problem(path, f"{f.name} is a {f.type}, not a gauge")
        # what GitLab shows for this sample: the name with the label as the
        # shell reads it, and the value text exactly as written
        label = s.labels["name"].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        key = ruby_shellsplit(f'{s.name}{{name="{label}"}}')[0]
        if key not in gitlab:
            problem(path, f"GitLab does not read {key!r} (it read {sorted(gitlab)})")
        elif float(gitlab[key]) != s.value:
            problem(path, f"GitLab reads {key!r} as {gitlab[key]}, OpenMetrics as {s.value}")
    if len(gitlab) != len(samples):
        problem(path, f"GitLab reads {len(gitlab)} metrics, OpenMetrics {len(samples)}")


def runner_outputs(text):
    """$GITHUB_OUTPUT as the runner reads it: key=value, or key<<DELIM,
    lines, DELIM.  Raises on anything else."""
    out, lines, i = {}, text.split("\n"), 0
    if lines[-1] != "":
        raise ValueError("does not end with a newline")
    lines.pop()
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            if delim not in lines[i + 1:]:
                raise ValueError(f"{key}<<{delim} is never closed")
            end = lines.index(delim, i + 1)
            out[key] = "\n".join(lines[i + 1:end])
            i = end + 1
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
            i += 1
        else:
            raise ValueError(f"line {i + 1} is neither key=value nor key<<DELIMITER: {line!r}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            raise ValueError(f"bad key {key!r}")
    return out


def check_github_output(path):
    try:
        out = runner_outputs(open(path, encoding="utf-8").read())
    except ValueError as e:
        problem(path, str(e))
        return
    if out.get("verdict") not in ("pass", "fail", "inconclusive", "error"):
        problem(path, f"verdict is {out.get('verdict')!r}")


def check_summary(path):
    data = open(path, "rb").read()
    if len(data) > SUMMARY_MAX:
        problem(path, f"is {len(data)} bytes, more than GitHub's 1 MiB")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        problem(path, f"is not UTF-8: {e}")


def main():
    srcdir, files = sys.argv[1], sys.argv[2:]
    for path in files:
        base = os.path.basename(path)
        if base.endswith((".json", ".json.gz")):
            check_json(srcdir, path)
        elif base.endswith(".jsonl"):
            check_jsonl(srcdir, path)
        elif base.endswith(".prom") or base == "metrics.txt":
            check_metrics(path)
        elif base.startswith("github_output"):
            check_github_output(path)
        elif base.endswith(".md"):
            check_summary(path)
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
