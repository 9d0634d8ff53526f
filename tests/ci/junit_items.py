#!/usr/bin/python3
"""Per-kernel gates in JUnit, read by real readers: a gate whose total is
within its threshold while one kernel doubled, alone and in a batch of
three gates.  Each file must be valid against schemas/junit.xsd and both
reference schemas, and junitparser (what many report tools are built on)
must read from it: one testcase per gate, one per listed item named
"<gate>/<item>" with classname "nsys-gate.<gate>", the doubled kernel
failed with its ratio in the failure text (GitLab shows the text, not the
message), every other item passed, and the suite's counts equal to what
it holds.  No (classname, name) twice: GitLab drops repeats.

It prints the listing a GitLab-style reader makes (suite = classname,
name, status).

Environment: GATE, GENTRACE, SRCDIR, SHARED (optional, reference schemas).
"""
import json
import os
import subprocess
import sys
import tempfile

import junitparser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import GATE, GENTRACE, check, gate_env, run_tests, valid_junit  # noqa: E402

DOUBLED = "ampere_sgemm_128x64_nn"   # built-in name index 1 of the generator
COMMON = ["--kernels", "2000", "--names", "8", "--epochs", "8", "--jitter", "0.03"]


def gen(d, name, *args):
    subprocess.run([GENTRACE, "-o", os.path.join(d, name), *COMMON, *args], check=True,
                   stdout=subprocess.DEVNULL)


def gate(d, *args, want):
    p = subprocess.run([GATE, *args], cwd=d, env=gate_env(), capture_output=True, text=True)
    check(p.returncode == want, f"{args}: exit {p.returncode}, expected {want}: {p.stderr}")
    return p


def gitlab_listing(suite):
    """(suite, name, status, text) per testcase, as GitLab's test report shows them."""
    rows = []
    for case in suite:
        results = [r for r in case.result if isinstance(r, (junitparser.Failure,
                                                            junitparser.Error))]
        status = "failed" if results else "success"
        rows.append((case.classname, case.name, status, results[0].text if results else ""))
    return rows


def check_suite(path, gates, items, top):
    """gates: the gate names; items: {gate: True if it has per-kernel gates}."""
    valid_junit(path)
    suite = junitparser.JUnitXml.fromfile(path)
    rows = gitlab_listing(suite)
    for cls, name, status, _ in rows:
        print(f"  {status:8} {cls} :: {name[:100]}")
    keys = [(c, n) for c, n, _, _ in rows]
    check(len(set(keys)) == len(keys), f"{path}: a (classname, name) twice")
    failed = sum(1 for r in rows if r[2] == "failed")
    check(int(suite.tests) == len(rows), f"{path}: tests={suite.tests}, {len(rows)} testcases")
    check(int(suite.failures) == failed, f"{path}: failures={suite.failures}, {failed} failed")
    for g in gates:
        own = [r for r in rows if r[0] == "nsys-gate" and r[1] == g]
        check(len(own) == 1, f"{path}: gate {g} has {len(own)} testcases")
        under = [r for r in rows if r[0] == f"nsys-gate.{g}"]
        if not items[g]:
            check(not under, f"{path}: {g} has no per-kernel gates but lists {len(under)} items")
            continue
        check(all(r[1].startswith(g + "/") for r in under), f"{path}: {g}'s items misnamed")
        # the top --top by current time, and the failed one (below the top)
        check(len(under) == top + 1, f"{path}: {g} lists {len(under)} items, expected {top + 1}")
        bad = [r for r in under if r[2] == "failed"]
        check([r[1] for r in bad] == [f"{g}/{DOUBLED}"],
              f"{path}: {g}'s failed items are {[r[1] for r in bad]}")
        check(bad and "2.00x past the 1.50x kernel threshold" in bad[0][3],
              f"{path}: the failure text lacks the ratio: {bad[0][3] if bad else ''}")
        check(own and own[0][2] == "failed", f"{path}: gate {g} itself did not fail")


def test_single(d):
    gate(d, "--epoch-range", "auto", "--kernel-threshold", "1.5", "--top", "3", "--junit",
         "single.xml", "--json", "single.json", "b.sqlite", "c.sqlite", want=1)
    print("single gate:")
    check_suite(os.path.join(d, "single.xml"), ["gpu-time-per-epoch"],
                {"gpu-time-per-epoch": True}, 3)
    doc = json.load(open(os.path.join(d, "single.json")))
    ks = {k["name"]: k for k in doc["kernels"]}
    check(ks.get(DOUBLED, {}).get("verdict") == "fail", f"JSON verdict of {DOUBLED}")
    check(doc["verdict"] == "fail" and doc["ratio"] < doc["threshold"],
          "the total is within its threshold and the gate still fails")


def test_batch(d):
    gates = [
        {"name": "train", "baseline": "b.sqlite", "current": "c.sqlite",
         "epoch_range": "auto", "kernel_threshold": 1.5, "top": 2},
        {"name": "eval", "baseline": "b.sqlite", "current": "b.sqlite", "epoch_range": "auto"},
        {"name": "train-2", "baseline": "b.sqlite", "current": "c.sqlite",
         "epoch_range": "auto", "kernel_threshold": "50%", "top": 2},
    ]
    with open(os.path.join(d, "m.json"), "w") as f:
        json.dump({"gates": gates}, f)
    gate(d, "--manifest", "m.json", "-j", "2", "--junit", "batch.xml", want=1)
    print("batch of three gates:")
    check_suite(os.path.join(d, "batch.xml"), [g["name"] for g in gates],
                {"train": True, "eval": False, "train-2": True}, 2)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        gen(work, "b.sqlite", "--seed", "1")
        gen(work, "c.sqlite", "--seed", "2", "--slow", "1:2")
        run_tests([test_single, test_batch], work)
