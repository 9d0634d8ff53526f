#!/usr/bin/python3
"""The gate on rocprofv3 JSON and CSV output, against figures computed here.

usage: rocprof.py --gate PATH --shared SHARED_DIR --genrocprof PATH

The real SHARED_DIR/rocprof-samples/908_results.json.gz (one process of an 8x MI350X
run) and AMD's documentation CSVs beside it, and generated JSON (plain, gzip, without
HIP launch records) and CSV directories: the figures are computed from the files alone,
with Python's gzip, json and csv modules, from the layouts AMD's writers give them
(generateJSON.cpp, generateCSV.cpp), not from the gate's code. The kernel sum and
launches, the sums per kernel by full name (formatted_kernel_name, Kernel_Name) and by
base name (truncated_kernel_name without its ".kd"), per GPU (logical_node_type_id, the
number of "GPU n"), per process, memory copies by name, and per "step N" ROCTx range: by
the HIP launch call with the same correlation id on the range's thread, or, in a file
without HIP API records, by the dispatch's GPU start. The gate's --print-profile and
JSON verdict must equal them to the nanosecond.

Output: one `ok - ...` or `not ok - ...` line per check, then `N passed, M failed`.
Exit 0 all passed, 1 any failed, 77 (skipped) without the samples, except under CI=true.
"""

import argparse
import csv
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
COPY = {"MEMORY_COPY_HOST_TO_HOST": "Host-to-Host", "MEMORY_COPY_HOST_TO_DEVICE": "Host-to-Device",
        "MEMORY_COPY_DEVICE_TO_HOST": "Device-to-Host",
        "MEMORY_COPY_DEVICE_TO_DEVICE": "Device-to-Device"}
results = []


def check(ok, what, detail=""):
    results.append(bool(ok))
    print("ok - %s" % what if ok else "not ok - %s: %s" % (what, detail))


def add(d, k, v):
    d[k] = d.get(k, 0) + v


def new_ref():
    return {"total": 0, "launches": 0, "full": {}, "base": {}, "gpu": {}, "process": {},
            "copies": {}, "steps": {}, "ranges": 0}


def steps_of(ref, kernels, calls, ranges, by_time):
    """Each "step N" range's kernel time: kernels (pid, tid, corr, start, ns) whose launch
    call (pid, corr) -> (tid, start) started inside it on its thread, or by GPU start."""
    for (pid, tid, corr, start, ns) in kernels:
        for (rpid, rtid, rs, re_, text) in ranges:
            if rpid != pid or not re.match(r"^step[ _#]?[0-9]+$", text, re.I):
                continue
            if by_time:
                inside = rs <= start <= re_
            else:
                c = calls.get((pid, corr))
                inside = c is not None and c[0] == rtid and rs <= c[1] <= re_
            if inside:
                add(ref["steps"], text, ns)


def json_reference(path):
    with (gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open)(path, "rb") as f:
        doc = json.load(f)
    ref = new_ref()
    kernels, calls, ranges = [], {}, []
    any_calls = False
    for p in doc["rocprofiler-sdk-tool"]:
        pid = p["metadata"]["pid"]
        kinds = p["strings"]["buffer_records"]
        messages = {m["key"]: m["value"] for m in p["strings"]["marker_api"]}
        sym = {s["kernel_id"]: s for s in p["kernel_symbols"]}
        agents = {a["id"]["handle"]: a for a in p["agents"]}
        br = p["buffer_records"]
        for r in br["kernel_dispatch"]:
            ns = r["end_timestamp"] - r["start_timestamp"]
            s = sym[r["dispatch_info"]["kernel_id"]]
            base = s["truncated_kernel_name"]
            base = base[:-3] if base.endswith(".kd") else base
            add(ref, "total", ns)
            ref["launches"] += 1
            add(ref["full"], s["formatted_kernel_name"], ns)
            add(ref["base"], base, ns)
            add(ref["gpu"], agents[r["dispatch_info"]["agent_id"]["handle"]]["logical_node_type_id"],
                ns)
            add(ref["process"], pid, ns)
            kernels.append((pid, r["thread_id"], r["correlation_id"]["internal"],
                            r["start_timestamp"], ns))
        for r in br.get("memory_copy", []):
            op = kinds[r["kind"]]["operations"][r["operation"]]
            src, dst = r["src_agent_id"]["handle"], r["dst_agent_id"]["handle"]
            label = "Peer-to-Peer" if op.endswith("DEVICE_TO_DEVICE") and src != dst else COPY[op]
            add(ref["copies"], "[CUDA memcpy %s]" % label, r["end_timestamp"] - r["start_timestamp"])
        for r in br.get("hip_api", []):
            any_calls = True
            calls[(pid, r["correlation_id"]["internal"])] = (r["thread_id"], r["start_timestamp"])
        for r in br.get("marker_api", []):
            if kinds[r["kind"]]["kind"] == "MARKER_CORE_RANGE_API" and \
                    r["end_timestamp"] > r["start_timestamp"]:
                ranges.append((pid, r["thread_id"], r["start_timestamp"], r["end_timestamp"],
                               messages.get(r["correlation_id"]["internal"], "")))
    ref["ranges"] = len(ranges)
    steps_of(ref, kernels, calls, ranges, not any_calls)
    ref["gpus"] = sorted({a["product_name"] for p in doc["rocprofiler-sdk-tool"]
                          for a in p["agents"] if a["type"] == 2})
    return ref


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(agent):
    return int(re.search(r"([0-9]+)$", agent).group(1))


def csv_reference(directory):
    """The files of one process in a directory (named as rocprofv3 names them)."""
    ref = new_ref()
    names = sorted(os.listdir(directory))
    table = {t: [os.path.join(directory, n) for n in names if n.endswith(t)]
             for t in ("kernel_trace.csv", "memory_copy_trace.csv", "marker_api_trace.csv",
                       "hip_api_trace.csv")}
    pre = re.match(r"^([0-9]+)_", names[0])
    host = [r for f in table["marker_api_trace.csv"] + table["hip_api_trace.csv"] for r in rows(f)]
    pid = int(pre.group(1)) if pre else int(host[0]["Process_Id"]) if host else 0
    kernels, calls, ranges = [], {}, []
    for f in table["kernel_trace.csv"]:
        for r in rows(f):
            ns = int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
            add(ref, "total", ns)
            ref["launches"] += 1
            add(ref["full"], r["Kernel_Name"], ns)
            add(ref["gpu"], number(r["Agent_Id"]), ns)
            add(ref["process"], pid, ns)
            kernels.append((pid, int(r["Thread_Id"]), int(r["Correlation_Id"]),
                            int(r["Start_Timestamp"]), ns))
    for f in table["memory_copy_trace.csv"]:
        for r in rows(f):
            op = r["Direction"]
            label = ("Peer-to-Peer" if op.endswith("DEVICE_TO_DEVICE") and
                     number(r["Source_Agent_Id"]) != number(r["Destination_Agent_Id"]) else COPY[op])
            add(ref["copies"], "[CUDA memcpy %s]" % label,
                int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    for f in table["hip_api_trace.csv"]:
        for r in rows(f):
            calls[(pid, int(r["Correlation_Id"]))] = (int(r["Thread_Id"]), int(r["Start_Timestamp"]))
    for f in table["marker_api_trace.csv"]:
        for r in rows(f):
            s, e = int(r["Start_Timestamp"]), int(r["End_Timestamp"])
            if r["Domain"] == "MARKER_CORE_RANGE_API" and e > s:
                ranges.append((pid, int(r["Thread_Id"]), s, e, r["Function"]))
    ref["ranges"] = len(ranges)
    steps_of(ref, kernels, calls, ranges, not table["hip_api_trace.csv"])
    return ref


def gate_profile(gate, path, *args):
    r = subprocess.run([gate, "--print-profile"] + list(args) + [path], capture_output=True,
                       text=True)
    got = print_profile.read(r.stdout)
    out = {"rc": r.returncode, "stderr": r.stderr, "total": 0, "launches": 0, "rows": {},
           "memory": {}, "steps": {name: n for name, n, _ in got["steps"]}}
    for n, inst, kind, name in got["rows"]:
        if kind == "kernel":
            out["total"] += n
            out["launches"] += inst
            out["rows"][name] = n
        else:
            out["memory"][name] = n
    return out


def gate_places(gate, path, work):
    """Per device and per process, from the JSON verdict of the file against itself."""
    out = os.path.join(work, "v.json")
    subprocess.run([gate, "--quiet", "--json", out, path, path], capture_output=True)
    with open(out) as f:
        v = json.load(f, parse_float=D)["current"]
    ms = lambda x: int(x * 1000000)
    return ({d["device"]: ms(d["total_ms"]) for d in v["devices"]},
            {p["pid"]: ms(p["total_ms"]) for p in v["processes"]})


def check_file(gate, path, ref, name, work, steps=True):
    got = gate_profile(gate, path)
    check(got["rc"] == 0 and (got["total"], got["launches"]) == (ref["total"], ref["launches"]),
          "%s: kernel sum and launches" % name,
          "gate %d ns / %d, reference %d ns / %d (%s)" % (got["total"], got["launches"],
                                                         ref["total"], ref["launches"],
                                                         got["stderr"]))
    check(got["rows"] == ref["full"], "%s: %d kernels by full name" % (name, len(ref["full"])),
          "gate %d rows, reference %d" % (len(got["rows"]), len(ref["full"])))
    if ref["base"]:
        base = gate_profile(gate, path, "--kernel-names", "base")
        check(base["rows"] == ref["base"], "%s: %d kernels by base name" % (name, len(ref["base"])),
              sorted(set(base["rows"].items()) ^ set(ref["base"].items()))[:4])
    mem = gate_profile(gate, path, "--work", "all")
    check(mem["memory"] == ref["copies"], "%s: memory copies by name" % name,
          "gate %s, reference %s" % (mem["memory"], ref["copies"]))
    devices, processes = gate_places(gate, path, work)
    check(devices == ref["gpu"], "%s: per GPU" % name, "gate %s, reference %s" % (devices, ref["gpu"]))
    check(processes == ref["process"], "%s: per process" % name,
          "gate %s, reference %s" % (processes, ref["process"]))
    if not steps:
        return
    ep = gate_profile(gate, path, "--epoch-range", "auto")
    check(ep["rc"] == 0 and ep["steps"] == ref["steps"] and ref["steps"],
          "%s: %d steps" % (name, len(ref["steps"])),
          "gate %s, reference %s (%s)" % (ep["steps"], ref["steps"], ep["stderr"]))
    return ep


def check_908(gate, path, work):
    ref = json_reference(path)
    check((ref["total"], ref["launches"], len(ref["base"]), len(ref["full"])) ==
          (4441741378, 43915, 44, 80), "908: the reference is the sample's published figures",
          "%s" % [ref["total"], ref["launches"], len(ref["base"]), len(ref["full"])])
    check_file(gate, path, ref, "908", work, steps=False)
    check(ref["gpus"] == ["AMD Instinct MI350X"] and ref["ranges"] == 0, "908: MI350X, no ranges",
          "%s" % ref["gpus"])
    r = subprocess.run([gate, "--quiet", path, path], capture_output=True, text=True)
    check(r.returncode == 0, "908: gated against itself in total mode", r.stderr)
    ep = gate_profile(gate, path, "--epoch-range", "auto")
    check(ep["rc"] == 2 and "rocprofv3 --marker-trace" in ep["stderr"],
          "908: --epoch-range says to record ROCTx ranges", ep["stderr"])
    r = subprocess.run([gate, "ranges", path], capture_output=True, text=True)
    check(r.returncode == 0 and "no ROCTx ranges" in r.stdout and "--marker-trace" in r.stdout,
          "908: `ranges` says it has no ROCTx ranges", r.stdout + r.stderr)


def check_doc_csvs(gate, samples, work):
    """AMD's documentation CSVs, each given alone."""
    k = os.path.join(samples, "kernel_trace.csv")
    full = {}
    for r in rows(k):
        add(full, r["Kernel_Name"], int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    got = gate_profile(gate, k)
    check(got["rc"] == 0 and got["rows"] == full and got["launches"] == len(rows(k)),
          "doc kernel_trace.csv: kernels by name", "gate %s, reference %s" % (got["rows"], full))
    m = os.path.join(samples, "memory_copy_trace.csv")
    copies = {}
    for r in rows(m):
        add(copies, "[CUDA memcpy %s]" % COPY[r["Direction"]],
            int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    got = gate_profile(gate, m, "--work", "all")
    check(got["rc"] == 0 and got["memory"] == copies, "doc memory_copy_trace.csv: copies by name",
          "gate %s, reference %s" % (got["memory"], copies))
    got = gate_profile(gate, os.path.join(samples, "marker_api_trace.csv"))
    check(got["rc"] == 2 and "no kernel dispatches" in got["stderr"],
          "doc marker_api_trace.csv alone: no GPU work, refused", got["stderr"])


def check_generated(gate, gen, work):
    def run(out, *args):
        r = subprocess.run([sys.executable, gen, "-o", out, "--summary"] + list(args),
                           capture_output=True, text=True, check=True)
        return json.loads(r.stdout)

    for name, args in (("json", []), ("json-gz", ["--gzip"]), ("no-hip-trace", ["--no-hip-trace"]),
                       ("4-gpus", ["--gpus", "4", "--processes", "3", "--seed", "5"])):
        path = os.path.join(work, name + (".json.gz" if "--gzip" in args else ".json"))
        summary = run(path, *args)
        ref = json_reference(path)
        by = "step_time" if "--no-hip-trace" in args else "step_launch"
        check((summary["total_ns"], summary["kernel_base"], summary[by]) ==
              (ref["total"], ref["base"], ref["steps"]),
              "generated %s: the generator's figures are the reference's" % name)
        ep = check_file(gate, path, ref, "generated " + name, work)
        if "--no-hip-trace" in args:
            check("by the time it started on the GPU" in ep["stderr"] and
                  "--hip-trace" in ep["stderr"], "generated no-hip-trace: the warning", ep["stderr"])
        else:
            moved = summary["step_launch"] != summary["step_time"]
            check(moved, "generated %s: kernels launched in one step ran in the next" % name)
    d = os.path.join(work, "csv")
    run(d, "--format", "csv")
    ref = csv_reference(d)
    check_file(gate, d, ref, "generated CSV directory", work)
    kt = [os.path.join(d, n) for n in os.listdir(d) if n.endswith("kernel_trace.csv")][0]
    got = gate_profile(gate, kt)
    check(got["total"] == ref["total"] and got["rows"] == ref["full"],
          "generated CSV: kernel_trace.csv given alone", got["stderr"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gate", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--genrocprof", required=True)
    a = ap.parse_args()
    samples = os.path.join(a.shared, "rocprof-samples")
    sample = os.path.join(samples, "908_results.json.gz")
    with tempfile.TemporaryDirectory() as work:
        check_generated(a.gate, a.genrocprof, work)
        if not os.path.exists(sample):
            print("no sample %s" % sample)
            if os.environ.get("CI") == "true":
                return 1
            print("%d passed, %d failed" % (results.count(True), results.count(False)))
            return 77 if all(results) else 1
        check_908(a.gate, sample, work)
        check_doc_csvs(a.gate, samples, work)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
