#!/usr/bin/python3
"""Batch mode end to end: a manifest of 20 gates (8 pass, 6 fail, 2
inconclusive of which one counts as a failure, 4 errors) run 4 at a time.
The one JUnit file must count them right and be valid against
schemas/junit.xsd and both reference schemas; the JSON document, metrics,
history and stdout must hold every gate once, in manifest order; -j 1 and
-j 8 must write the same reports.  Then without the errors (exit 1) and
with passes only (exit 0).  Last, schemas/manifest.schema.json against the
gate: every field it allows the gate takes, every other flag the gate
refuses in a manifest.

Environment: GATE, GENTRACE, SRCDIR, SHARED (optional, reference schemas).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import (FIXTURES, GATE, GENTRACE, SRCDIR, check, gate_env, run_tests,  # noqa: E402
                    valid_junit)


def gen(d, name, *args):
    subprocess.run([GENTRACE, "-o", os.path.join(d, name), *args], check=True,
                   stdout=subprocess.DEVNULL)


def make_profiles(d):
    gen(d, "base.sqlite", "--kernels", "400", "--names", "6", "--seed", "3")
    gen(d, "slow.sqlite", "--kernels", "400", "--names", "6", "--seed", "3", "--scale", "1.35")
    nvtx = ["--kernels", "3000", "--names", "6", "--epochs", "10", "--jitter", "0.03"]
    gen(d, "nb.sqlite", *nvtx, "--seed", "1")
    gen(d, "nb2.sqlite", *nvtx, "--seed", "2")
    gen(d, "nc.sqlite", *nvtx, "--seed", "2", "--slow", "3:1.8")
    noisy = ["--kernels", "4", "--names", "1", "--epochs", "4", "--jitter", "0.6"]
    gen(d, "ib.sqlite", *noisy, "--seed", "13")
    gen(d, "ic.sqlite", *noisy, "--seed", "113", "--scale", "1.3")
    for f in ("kern2023_base.csv", "kern2023_cur120.csv", "kern2023_cur120plus1.csv",
              "zero_total.csv"):
        shutil.copy(os.path.join(FIXTURES, f), d)
    open(os.path.join(d, "empty.sqlite"), "w").close()
    with open(os.path.join(d, "garbage.sqlite"), "wb") as f:
        f.write(b"SQLite format 3\0" + b"\xff" * 100)


PASS = [
    {"name": "p-same", "baseline": "base.sqlite", "current": "base.sqlite"},
    {"name": "p-slow-loose", "baseline": "base.sqlite", "current": "slow.sqlite", "threshold": 1.5},
    {"name": "p-slow-pct", "baseline": "base.sqlite", "current": "slow.sqlite", "threshold": "40%"},
    {"name": "p-csv-120", "baseline": "kern2023_base.csv", "current": "kern2023_cur120.csv",
     "epochs": 10},
    {"name": "p-nvtx", "baseline": "nb.sqlite", "current": "nb2.sqlite", "epoch_range": "auto"},
    {"name": "p-runs", "baseline": ["base.sqlite", "base.sqlite"],
     "current": ["base.sqlite", "base.sqlite", "base.sqlite"]},
    {"name": "p-csv-vs-itself", "baseline": "kern2023_cur120.csv",
     "current": "kern2023_cur120.csv", "epochs": "3"},
    {"name": "p-nvtx-skip", "baseline": "nb.sqlite", "current": "nb.sqlite",
     "epoch_range": "auto", "skip_epochs": 2, "verbose": True},
]
FAIL = [
    {"name": "f-slow", "baseline": "base.sqlite", "current": "slow.sqlite"},
    {"name": "f-slow-tight", "baseline": "base.sqlite", "current": "slow.sqlite", "threshold": "1.01x"},
    {"name": "f-csv-over", "baseline": "kern2023_base.csv", "current": "kern2023_cur120plus1.csv",
     "epochs": 10},
    {"name": "f-nvtx", "baseline": "nb.sqlite", "current": "nc.sqlite", "epoch_range": "auto"},
    {"name": "f-nvtx-span", "baseline": "nb.sqlite", "current": "nc.sqlite", "epoch_range": "auto",
     "metric": "gpu-span"},
    {"name": "f-runs", "baseline": ["base.sqlite", "base.sqlite"],
     "current": ["slow.sqlite", "slow.sqlite"]},
]
INCONCLUSIVE = [
    {"name": "i-noisy", "baseline": "ib.sqlite", "current": "ic.sqlite", "epoch_range": "auto"},
    {"name": "i-noisy-strict", "baseline": "ib.sqlite", "current": "ic.sqlite",
     "epoch_range": "auto", "fail_inconclusive": True},
]
ERROR = [
    {"name": "e-missing", "baseline": "base.sqlite", "current": "nope.sqlite"},
    {"name": "e-empty", "baseline": "empty.sqlite", "current": "base.sqlite"},
    {"name": "e-garbage", "baseline": "base.sqlite", "current": "garbage.sqlite"},
    {"name": "e-zero-baseline", "baseline": "zero_total.csv", "current": "kern2023_base.csv"},
]


def interleave(*groups):
    """Mixed order, so no outcome sits in one block."""
    out, groups = [], [list(g) for g in groups]
    while any(groups):
        for g in groups:
            if g:
                out.append(g.pop(0))
    return out


def run(d, manifest, jobs, *extra):
    path = os.path.join(d, "runs", "m.json")
    with open(path, "w") as f:
        json.dump({"gates": manifest}, f)
    return subprocess.run([GATE, "--manifest", path, "-j", str(jobs), *extra], cwd=d,
                          env=gate_env(SOURCE_DATE_EPOCH="1700000000"), capture_output=True,
                          text=True, timeout=300)


def check_junit(path, gates, failing, errors):
    valid_junit(path)
    root = ET.parse(path).getroot()
    check(root.tag == "testsuite", f"JUnit root is {root.tag}")
    want = {"tests": str(len(gates)), "failures": str(failing), "errors": str(errors),
            "skipped": "0"}
    got = {k: root.get(k) for k in want}
    check(got == want, f"JUnit counts {got}, expected {want}")
    cases = root.findall("testcase")
    check([c.get("name") for c in cases] == [g["name"] for g in gates], "JUnit testcase order")
    for c in cases:
        kind = c.get("name")[0]
        has_failure, has_error = c.find("failure") is not None, c.find("error") is not None
        strict = c.get("name") == "i-noisy-strict"
        check(has_failure == (kind == "f" or strict) and has_error == (kind == "e"),
              f"JUnit testcase {c.get('name')}: failure {has_failure}, error {has_error}")


def check_batch(d, gates, counts, failing, rc_want):
    p = run(d, gates, 4, "--junit", "junit.xml", "--json", "verdicts.json", "--metrics",
            "metrics.prom", "--history", "history.jsonl")
    check(p.returncode == rc_want, f"{len(gates)} gates: exit {p.returncode}, expected {rc_want}: "
                                   f"{p.stderr}")
    check_junit(os.path.join(d, "junit.xml"), gates, failing, counts["error"])
    validate_output.check_json(SRCDIR, os.path.join(d, "verdicts.json"))
    validate_output.check_jsonl(SRCDIR, os.path.join(d, "history.jsonl"))
    validate_output.check_metrics(os.path.join(d, "metrics.prom"))
    doc = json.load(open(os.path.join(d, "verdicts.json")))
    check(doc["counts"] == counts, f"JSON counts {doc['counts']}, expected {counts}")
    check([g["name"] for g in doc["gates"]] == [g["name"] for g in gates], "JSON gate order")
    history = open(os.path.join(d, "history.jsonl")).read().splitlines()
    check([json.loads(x)["name"] for x in history] == [g["name"] for g in gates],
          "history: one line a gate, in order")
    metrics = open(os.path.join(d, "metrics.prom")).read()
    passes = re.findall(r'^nsys_gate_pass\{name="([^"]*)"\} ([01])$', metrics, re.M)
    check([n for n, _ in passes] == [g["name"] for g in gates], "metrics: one pass sample a gate")
    lines = p.stdout.splitlines()
    gate_lines = [x.split(":")[0] for x in lines if not x.startswith(" ")][:-1]
    check(gate_lines == [g["name"] for g in gates], "stdout: one line a gate, in order")
    os.remove(os.path.join(d, "history.jsonl"))
    return p


def test_batches(d):
    gates = interleave(PASS, FAIL, INCONCLUSIVE, ERROR)
    check(len(gates) == 20, "20 gates")
    schema = json.load(open(os.path.join(SRCDIR, "schemas", "manifest.schema.json")))
    for e in jsonschema.Draft202012Validator(schema).iter_errors({"gates": gates}):
        check(False, f"the 20-gate manifest against manifest.schema.json: {e.message}")

    counts = {"pass": 8, "fail": 6, "inconclusive": 2, "error": 4}
    p = check_batch(d, gates, counts, 7, 2)
    check(p.stdout.splitlines()[-1] == "ERROR: 20 gates: 8 pass, 6 fail, 2 inconclusive, 4 error",
          f"stdout's last line: {p.stdout.splitlines()[-1:]}")
    metrics = open(os.path.join(d, "metrics.prom")).read()
    check(len(re.findall(r"^nsys_gate_pass\{.*\} 1$", metrics, re.M)) == 9,
          "metrics: 8 passes and the lenient inconclusive gate pass")

    # the same reports whatever the parallelism (times aside)
    outs = []
    for jobs in (1, 8):
        run(d, gates, jobs, "--junit", f"j{jobs}.xml")
        outs.append(re.sub(r'(time|hostname)="[^"]*"', "",
                           open(os.path.join(d, f"j{jobs}.xml")).read()))
    check(outs[0] == outs[1], "-j 1 and -j 8 write different JUnit reports")

    no_errors = interleave(PASS, FAIL, INCONCLUSIVE)
    check_batch(d, no_errors, {"pass": 8, "fail": 6, "inconclusive": 2, "error": 0}, 7, 1)
    check_batch(d, PASS, {"pass": 8, "fail": 0, "inconclusive": 0, "error": 0}, 0, 0)


SAMPLES = {"epochs": 3, "baseline_epochs": 4, "current_epochs": 5, "threshold": "20%", "epoch_range": "auto", "metric": "kernel-sum",
           "skip_epochs": 0, "alpha": 0.05, "fail_inconclusive": True, "top": 3,
           "verbose": False, "nsys": "nsys", "nsys_timeout": 60, "work": "kernels,memory",
           "kernels": ["^k", "gemm"], "exclude_kernels": "^nccl", "comm_kernels": ["^myAllReduce"],
           "min_delta_ms": 0.5,
           "kernel_threshold": "1.5x", "kernel_min_delta_ms": "0.1", "straggler_threshold": "1.15x",
           "fail_on_improvement": True, "kernel_names": "base",
           "label": ["model=resnet50", "gpu=h100"], "baseline_history": "h.jsonl",
           "history_window": 5, "history_match": ["branch=main"], "history_since": "2024-05-01",
           "accept": ["acks.jsonl"], "write_summary": "w.summary.json"}
# fields that need another one beside them (a floor with no gate to floor)
COMPANIONS = {"kernel_min_delta_ms": {"kernel_threshold": "1.5x"}}


def test_schema_matches_gate(d):
    schema = json.load(open(os.path.join(SRCDIR, "schemas", "manifest.schema.json")))
    fields = set(schema["$defs"]["gate"]["properties"]) - {"name", "baseline", "current"}
    check(fields == set(SAMPLES), f"schema fields {sorted(fields)} vs the test's {sorted(SAMPLES)}")
    help_text = subprocess.run([GATE, "--help"], capture_output=True, text=True).stdout
    flags = {f.replace("-", "_") for f in re.findall(r"^  --([a-z-]+)", help_text, re.M)}
    validator = jsonschema.Draft202012Validator(schema)
    base = {"name": "g", "baseline": "base.sqlite", "current": "base.sqlite"}
    for flag in sorted(flags - {"baseline", "current", "name"}):
        gate = dict(base, **COMPANIONS.get(flag, {}), **{flag: SAMPLES.get(flag, "x")})
        if flag == "baseline_history":
            del gate["baseline"]   # it is the baseline
        p = run(d, [gate], 1)
        refused = "manifest '" in p.stderr
        if flag in fields:
            check(not refused, f"the gate refuses schema field {flag}: {p.stderr.strip()}")
            check(validator.is_valid({"gates": [gate]}), f"the schema refuses its own {flag}")
        else:
            check(refused and "is not a per-gate option" in p.stderr,
                  f"the gate takes --{flag} in a manifest: {p.stderr.strip()}")
            check(not validator.is_valid({"gates": [gate]}), f"the schema allows {flag}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "runs"))
        make_profiles(os.path.join(work, "runs"))
        run_tests([test_batches, test_schema_matches_gate], work)
