#!/usr/bin/python3
"""The gate on real torch.profiler (Kineto) traces, against figures computed here.

usage: kineto.py --gate PATH --shared SHARED_DIR [--gentrace PATH]

For every trace in SHARED_DIR/kineto-samples (and, with --gentrace, a generated one whose
figures the generator states), the figures are computed from the JSON alone, with Python's
gzip and json modules and exact decimals: the kernel sum and launch count, the memcpy and
memset sums by operation name, and, where the trace has ProfilerStep#N ranges, each step's
kernel sum and launches (a kernel belongs to the step in which the runtime/driver call with
the same args.correlation started, on any thread of the process). The gate's --print-profile
must equal them to the nanosecond. `nsys-gate ranges` is checked the same way: every
user_annotation and cpu_op range, grouped by its name with each run of digits as '#', with
its count and the kernel time whose launch call started inside it, on its process. Written
from the format notes (SHARED_DIR/notes/kineto.md), not from the gate's code.

Output: one `ok - ...` or `not ok - ...` line per check, then `N passed, M failed`.
Exit 0 all passed, 1 any failed, 77 (skipped) without the samples, except under CI=true.
"""

import argparse
import decimal
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

import print_profile

D = decimal.Decimal
STEP = re.compile(r"^ProfilerStep#([0-9]+)$")
RANGE_CATS = ("user_annotation", "cpu_op", "operator")
# CUPTI's short copy kinds as nsys's cuda_gpu_mem_time_sum labels them
MEMCPY_LABEL = {"HtoD": "Host-to-Device", "DtoH": "Device-to-Host", "HtoA": "Host-to-Array",
                "AtoH": "Array-to-Host", "AtoA": "Array-to-Array", "AtoD": "Array-to-Device",
                "DtoA": "Device-to-Array", "DtoD": "Device-to-Device", "HtoH": "Host-to-Host",
                "PtoP": "Peer-to-Peer", "Unknown": "Unknown"}
results = []


def check(ok, what, detail=""):
    results.append(ok)
    print("ok - %s" % what if ok else "not ok - %s: %s" % (what, detail))


def ns(v):
    """Microseconds (exact decimal, as written) to integer ns, halves away from zero."""
    return int((D(v) * 1000).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return json.loads(f.read(), parse_float=D, parse_int=D)


def memory_name(e):
    if e["cat"] == "gpu_memset":
        return "[CUDA memset]"
    m = re.match(r"Memcpy (\S+)", e.get("name", ""))
    k = m.group(1) if m else "Unknown"
    return "[CUDA memcpy %s]" % MEMCPY_LABEL.get(k, k)


def reference(doc):
    """The figures of one trace, from its events."""
    ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    memory = [e for e in ev if e.get("cat") in ("gpu_memcpy", "gpu_memset")]
    ref = {"kernel_ns": sum(ns(e["dur"]) for e in kernels), "kernels": len(kernels),
           "memory": {}, "steps": [], "unlaunched": 0}
    for e in memory:
        t = ref["memory"].setdefault(memory_name(e), [0, 0])
        t[0] += ns(e["dur"])
        t[1] += 1
    # steps: windows over their process, [ts, ts + dur] in ns
    steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["pid"], e["name"]) for e in ev
             if e.get("cat") in ("user_annotation", "cpu_op") and STEP.match(str(e.get("name")))]
    calls = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            calls.setdefault(int(e["args"]["correlation"]), (ns(e["ts"]), e["pid"]))
    sums = {}
    for e in kernels:
        corr = e.get("args", {}).get("correlation")
        call = calls.get(int(corr)) if corr is not None else None
        if call is None:
            ref["unlaunched"] += 1
            continue
        for (s, t, pid, name) in steps:
            if pid == call[1] and s <= call[0] <= t:
                x = sums.setdefault(name, [s, 0, 0])
                x[1] += ns(e["dur"])
                x[2] += 1
    ref["steps"] = sorted(([n, x[1], x[2]] for n, x in sums.items()),
                          key=lambda r: sums[r[0]][0])
    ref["has_steps"] = bool(steps)
    ref["groups"] = range_groups(ev, kernels, calls)
    return ref


def range_groups(ev, kernels, calls):
    """{group: [ranges, kernel ns]}: each kernel's time in every range of its call's process
    that holds the call's start."""
    by_pid = {}
    for e in kernels:
        corr = e.get("args", {}).get("correlation")
        call = calls.get(int(corr)) if corr is not None else None
        if call is not None:
            by_pid.setdefault(call[1], []).append((call[0], ns(e["dur"])))
    for v in by_pid.values():
        v.sort()
    groups = {}
    for e in ev:
        if e.get("cat", "").lower() not in RANGE_CATS or "name" not in e:
            continue
        s = ns(e["ts"])
        t = s + ns(e["dur"])
        g = groups.setdefault(re.sub(r"[0-9]+", "#", str(e["name"])), [0, 0])
        g[0] += 1
        g[1] += sum(d for (c, d) in by_pid.get(e.get("pid"), []) if s <= c <= t)
    return groups


def gate_ranges(gate, path, work):
    out = os.path.join(work, "ranges.json")
    r = subprocess.run([gate, "ranges", "--top", "100000", "--json", out, path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    with open(out) as f:
        prof = json.load(f, parse_float=D)["profiles"][0]
    return {g["group"]: [g["ranges"], ns(g["kernel_ms"] * 1000)] for g in prof["groups"]}, ""


def gate_profile(gate, path, *args):
    r = subprocess.run([gate, "--print-profile", "--work", "all"] + list(args) + [path],
                       capture_output=True, text=True)
    got = print_profile.read(r.stdout)
    out = {"rc": r.returncode, "stderr": r.stderr, "kernel_ns": 0, "kernels": 0, "memory": {},
           "steps": got["steps"]}
    for n, inst, kind, name in got["rows"]:
        if kind == "kernel":
            out["kernel_ns"] += n
            out["kernels"] += inst
        else:
            out["memory"][name] = [n, inst]
    return out


def check_trace(gate, path):
    name = os.path.basename(path)
    ref = reference(load(path))
    got = gate_profile(gate, path)
    if ref["kernels"] == 0:
        check(got["rc"] == 2 and "ERROR: " in got["stderr"], "%s: no kernels is an error" % name,
              got["stderr"])
        return
    check(got["rc"] == 0, "%s: read" % name, got["stderr"])
    check(got["kernel_ns"] == ref["kernel_ns"] and got["kernels"] == ref["kernels"],
          "%s: kernel sum and launches" % name,
          "gate %d ns / %d, reference %d ns / %d" % (got["kernel_ns"], got["kernels"],
                                                    ref["kernel_ns"], ref["kernels"]))
    check(got["memory"] == ref["memory"], "%s: memory sums by operation" % name,
          "gate %s, reference %s" % (got["memory"], ref["memory"]))
    with tempfile.TemporaryDirectory() as work:
        groups, err = gate_ranges(gate, path, work)
    bad = sorted(k for k in set(ref["groups"]) | set(groups or {})
                 if (groups or {}).get(k) != ref["groups"].get(k))
    check(groups is not None and not bad and ref["groups"],
          "%s: ranges: %d groups, each one's count and kernel time" % (name, len(ref["groups"])),
          err or "; ".join("%s: gate %s, reference %s" % (k, groups.get(k), ref["groups"].get(k))
                           for k in bad[:5]))
    if not ref["has_steps"]:
        return
    got = gate_profile(gate, path, "--epoch-range", "auto", "--work", "kernels")
    check(got["rc"] == 0 and got["steps"] == ref["steps"], "%s: per-step kernel sums" % name,
          "gate %s, reference %s (%s)" % (got["steps"], ref["steps"], got["stderr"]))
    warned = re.search(r"(\d+) GPU operations? \([^)]*\) of '[^']*' ha(?:s|ve) no launch call",
                       got["stderr"])
    check((int(warned.group(1)) if warned else 0) == ref["unlaunched"],
          "%s: kernels without a launch call in the trace are said" % name,
          "reference %d, stderr %s" % (ref["unlaunched"], got["stderr"]))


def check_generated(gate, gentrace, work):
    """A generated trace (a backward thread, warm-up): the generator's own figures, the
    reference's, and the gate's, all equal."""
    path = os.path.join(work, "gen.pt.trace.json")
    r = subprocess.run([gentrace, "--format", "kineto", "-o", path, "--kernels", "3000",
                        "--epochs", "4", "--threads", "2", "--names", "12", "--jitter", "0.1",
                        "--memory-share", "0.2", "--outside", "20", "--unlaunched", "7",
                        "--dist-rank", "1", "--world-size", "4", "--summary"],
                       capture_output=True, text=True, check=True)
    summary = json.loads(r.stdout)
    ref = reference(load(path))
    check(summary["total_ns"] == ref["kernel_ns"] and summary["kernels"] == ref["kernels"],
          "generated: the generator's kernel figures are the reference's",
          "%s vs %s" % (summary["total_ns"], ref["kernel_ns"]))
    steps = [[e["name"], e["work"]["kernels"]["kernel_sum_ns"], e["work"]["kernels"]["launches"]]
             for e in summary["epochs"] if e["work"]["kernels"]["launches"]]
    check(steps == ref["steps"], "generated: the generator's steps are the reference's",
          "%s vs %s" % (steps, ref["steps"]))
    check(ref["unlaunched"] == 7, "generated: kernels without a launch call",
          "reference %d" % ref["unlaunched"])
    subprocess.run(["gzip", "-k", path], check=True)
    for p in (path, path + ".gz"):
        check_trace(gate, p)
    out = os.path.join(work, "v.json")
    subprocess.run([gate, "--quiet", "--json", out, path, path + ".gz"], check=True,
                   capture_output=True)
    with open(out) as f:
        v = json.load(f)
    run, proc = v["current"]["runs"][0], v["current"]["processes"][0]
    check((run.get("rank"), run.get("world_size"), proc.get("rank")) == (1, 4, 1),
          "generated: distributedInfo's rank and world size in the JSON", "%s %s" % (run, proc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gate", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--gentrace")
    a = ap.parse_args()
    samples = os.path.join(a.shared, "kineto-samples")
    files = sorted(os.path.join(samples, f) for f in os.listdir(samples)
                   if f.endswith(".json.gz")) if os.path.isdir(samples) else []
    if not files:
        print("no traces in %s" % samples)
        return 1 if os.environ.get("CI") == "true" else 77
    for f in files:
        check_trace(a.gate, f)
    if a.gentrace:
        with tempfile.TemporaryDirectory() as work:
            check_generated(a.gate, a.gentrace, work)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
