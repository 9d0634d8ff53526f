#!/usr/bin/env python3
"""Writes rocprofv3 output of known figures without a GPU: the JSON
(`<pid>_results.json`, plain or gzip) and the CSV files
(`<pid>_kernel_trace.csv`, `_memory_copy_trace.csv`, `_marker_api_trace.csv`,
`_hip_api_trace.csv`) in the layouts AMD's writers give them
(generateJSON.cpp, generateCSV.cpp of rocprofiler-sdk).

One event model (model()) feeds every writer: processes, each with its
GPUs and a training loop of ROCTx "step N" ranges on the main thread; each
step launches kernels (some RCCL ones: ncclDevKernel_Generic_1) through
HIP launch calls, copies host to device at its start and device to host at
its end.  The GPU runs behind the CPU, so the last kernels launched in a
step run after the next step's range began (launch attribution puts them
in the step that launched them, attribution by time in the next).  A
rocpd writer can take the same model: model() returns plain dicts and
lists, and summary() gives the figures any writer's file must read to.

Usage: genrocprof.py -o PATH [--format json|csv] [--gzip] [--processes N]
       [--gpus N] [--steps N] [--kernels N] [--seed N] [--scale F]
       [--slow NAME:F] [--no-hip-trace] [--no-markers] [--fault F]
       [--gpu-model NAME] [--summary]

--format csv writes a directory (one process: the files of the first).
--summary prints the model's figures as JSON (total, per kernel full and
base, per GPU, per process, per step by launch and by time, copies).
Faults (the file is written wrong on purpose): truncated, no-buffer-records,
missing-symbol, end-before-start, csv-missing-column, csv-bad-timestamp,
csv-unterminated-quote, csv-two-pids.
"""
import argparse
import csv
import gzip
import io
import json
import os
import random
import sys

# (formatted name, truncated name): rocprofv3 keeps ".kd" in the truncated
# (and demangled) name of a code object's kernels, not in the formatted one.
KERNELS = [
    ("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_Generic_1"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     "vectorized_elementwise_kernel"),
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN_LDSB1",
     "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN_LDSB1"),
    ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
     "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >"
     "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, float, 4>)", "reduce_kernel"),
    ("__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer.kd"),
    ("attn_fwd", "attn_fwd.kd"),
]
# the mean duration of each, ns
MEANS = [400_000, 20_000, 90_000, 30_000, 8_000, 120_000]

HIP_OPS = ["hipMalloc", "hipMemcpy", "hipLaunchKernel", "hipExtModuleLaunchKernel",
           "hipStreamSynchronize"]
# strings.buffer_records as rocprofv3 numbers them (index = kind)
KINDS = ["NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API",
         "HSA_FINALIZE_EXT_API", "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API",
         "MARKER_CONTROL_API", "MARKER_NAME_API", "MEMORY_COPY", "KERNEL_DISPATCH",
         "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API", "OMPT",
         "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION", "ROCDECODE_API", "ROCJPEG_API",
         "HIP_STREAM", "HIP_RUNTIME_API_EXT", "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT",
         "KFD_EVENT_PAGE_MIGRATE", "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE",
         "KFD_EVENT_UNMAP_FROM_GPU", "KFD_EVENT_DROPPED_EVENTS", "KFD_PAGE_MIGRATE",
         "KFD_PAGE_FAULT", "KFD_QUEUE", "MARKER_CORE_RANGE_API"]
OPS = {
    "MARKER_CORE_API": ["roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA",
                        "roctxRangeStop", "roctxGetThreadId"],
    "MEMORY_COPY": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                    "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"],
    "KERNEL_DISPATCH": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                        "KERNEL_DISPATCH_COMPLETE"],
    "HIP_RUNTIME_API_EXT": HIP_OPS,
    "HIP_RUNTIME_API": HIP_OPS,
    "MARKER_CORE_RANGE_API": ["roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA",
                              "roctxGetThreadId"],
}
COPY_NAMES = {"MEMORY_COPY_HOST_TO_DEVICE": "[CUDA memcpy Host-to-Device]",
              "MEMORY_COPY_DEVICE_TO_HOST": "[CUDA memcpy Device-to-Host]"}


def model(seed=1, processes=2, gpus=2, steps=4, kernels=12, scale=1.0, slow=None,
          gpu_model="AMD Instinct MI300X", hip_trace=True, markers=True):
    """The event model: a list of processes, each a dict of plain values
    (times in integer ns). Kernel i of a step runs on GPU i % gpus."""
    rng = random.Random(seed)
    slow = slow or {}
    procs = []
    t0 = 1_000_000_000_000
    for p in range(processes):
        pid = 4000 + 17 * p
        agents = [{"handle": 100 + p * 10, "type": "CPU", "ordinal": 0, "product": "AMD EPYC"}]
        agents += [{"handle": 101 + p * 10 + g, "type": "GPU", "ordinal": g, "product": gpu_model}
                   for g in range(gpus)]
        proc = {"pid": pid, "tid": pid, "agents": agents, "symbols": [],
                "dispatches": [], "copies": [], "calls": [], "ranges": [], "marks": []}
        for k, (full, base) in enumerate(KERNELS):
            proc["symbols"].append({"kernel_id": k + 1, "full": full, "base": base})
        corr = 0
        cpu = t0 + p * 1000
        gpu_free = {g: 0 for g in range(gpus)}
        for s in range(steps):
            r_start = cpu
            cpu += 2_000

            def call(op, dur=3_000):
                nonlocal corr, cpu
                corr += 1
                c = {"corr": corr, "op": op, "tid": pid, "start": cpu, "end": cpu + dur}
                proc["calls"].append(c)
                cpu += dur + 1_000
                return c
            # a host-to-device copy first, on GPU 0
            c = call("hipMemcpy", 40_000)
            d = 30_000 + rng.randrange(5_000)
            start = max(c["start"] + 2_000, gpu_free[0])
            proc["copies"].append({"corr": c["corr"], "tid": pid, "start": start,
                                   "end": start + d, "src": agents[0]["handle"],
                                   "dst": agents[1]["handle"], "op": "MEMORY_COPY_HOST_TO_DEVICE"})
            gpu_free[0] = start + d
            last = {}
            for i in range(kernels):
                k = (i * 7 + s) % len(KERNELS)
                g = i % gpus
                c = call("hipLaunchKernel" if k != 2 else "hipExtModuleLaunchKernel")
                mean = MEANS[k] * scale * slow.get(KERNELS[k][1], 1.0)
                d = max(1, int(rng.gauss(mean, mean * 0.05)))
                start = max(c["end"] + 5_000, gpu_free[g])
                proc["dispatches"].append({"corr": c["corr"], "tid": pid, "kernel_id": k + 1,
                                           "agent": agents[1 + g]["handle"], "start": start,
                                           "end": start + d, "step": s})
                gpu_free[g] = start + d
                last[g] = d
            # the loop waits for the GPU (a loss read back) until 50 us before
            # the last kernel of each GPU starts: those start in the next
            # step's range
            lag = max(gpu_free[g] - last[g] for g in last) - 50_000 if last else cpu
            call("hipStreamSynchronize", max(3_000, lag - cpu))
            # a device-to-host copy, queued behind the work on GPU 0
            c = call("hipMemcpy", 10_000)
            start = max(c["start"] + 2_000, gpu_free[0])
            proc["copies"].append({"corr": c["corr"], "tid": pid, "start": start,
                                   "end": start + 12_000, "src": agents[1]["handle"],
                                   "dst": agents[0]["handle"], "op": "MEMORY_COPY_DEVICE_TO_HOST"})
            gpu_free[0] = start + 12_000
            corr += 1
            proc["ranges"].append({"corr": corr, "tid": pid, "start": r_start, "end": cpu,
                                   "text": "step %d" % s})
            corr += 1
            proc["marks"].append({"corr": corr, "tid": pid, "start": cpu, "end": cpu,
                                  "text": "after step %d" % s})
            cpu += 500   # the next step's range starts here; the GPU is still busy
        if not hip_trace:
            proc["calls"] = []
        if not markers:
            proc["ranges"], proc["marks"] = [], []
        procs.append(proc)
    return procs


def _in(t, r):
    return r["start"] <= t <= r["end"]


def summary(procs, work="kernel"):
    """The figures a reader of any writer's file must find: total, per
    kernel (full and base with ".kd" dropped), per GPU, per process, per step
    (by launch, and by GPU start), copies by name."""
    out = {"total_ns": 0, "launches": 0, "kernel_full": {}, "kernel_base": {}, "gpu": {},
           "process": {}, "step_launch": {}, "step_time": {}, "copies": {}}
    for p in procs:
        sym = {s["kernel_id"]: s for s in p["symbols"]}
        calls = {c["corr"]: c for c in p["calls"]}
        for d in p["dispatches"]:
            ns = d["end"] - d["start"]
            s = sym[d["kernel_id"]]
            base = s["base"][:-3] if s["base"].endswith(".kd") else s["base"]
            ordinal = next(a["ordinal"] for a in p["agents"] if a["handle"] == d["agent"])
            out["total_ns"] += ns
            out["launches"] += 1
            out["kernel_full"][s["full"]] = out["kernel_full"].get(s["full"], 0) + ns
            out["kernel_base"][base] = out["kernel_base"].get(base, 0) + ns
            out["gpu"][str(ordinal)] = out["gpu"].get(str(ordinal), 0) + ns
            out["process"][str(p["pid"])] = out["process"].get(str(p["pid"]), 0) + ns
            c = calls.get(d["corr"])
            for r in p["ranges"]:
                if c and _in(c["start"], r):
                    out["step_launch"][r["text"]] = out["step_launch"].get(r["text"], 0) + ns
                if _in(d["start"], r):
                    out["step_time"][r["text"]] = out["step_time"].get(r["text"], 0) + ns
        for c in p["copies"]:
            name = COPY_NAMES[c["op"]]
            out["copies"][name] = out["copies"].get(name, 0) + c["end"] - c["start"]
    return out


# ---- JSON ----

def _kind(name):
    return KINDS.index(name)


def _op(kind, op):
    return OPS[kind].index(op)


def _corr(internal):
    return {"internal": internal, "external": 0, "ancestor": 0}


def json_process(p, fault=None):
    agents = []
    for a in p["agents"]:
        agents.append({"size": 312, "id": {"handle": a["handle"]},
                       "type": 2 if a["type"] == "GPU" else 1,
                       "name": "gfx942" if a["type"] == "GPU" else a["product"],
                       "product_name": a["product"], "logical_node_type_id": a["ordinal"],
                       "node_id": a["handle"] % 10})
    symbols = [{"size": 88, "kernel_id": s["kernel_id"], "code_object_id": 1,
                "kernel_name": s["base"] if s["base"].endswith(".kd") else "_Z" + s["base"],
                "formatted_kernel_name": s["full"],
                "demangled_kernel_name": s["full"] + (".kd" if s["base"].endswith(".kd") else ""),
                "truncated_kernel_name": s["base"]} for s in p["symbols"]]
    if fault == "missing-symbol":
        symbols = symbols[1:]
    dispatches = []
    for d in p["dispatches"]:
        dispatches.append({
            "size": 184, "kind": _kind("KERNEL_DISPATCH"),
            "operation": _op("KERNEL_DISPATCH", "KERNEL_DISPATCH_COMPLETE"),
            "thread_id": d["tid"], "correlation_id": _corr(d["corr"]),
            "start_timestamp": d["start"], "end_timestamp": d["end"],
            "dispatch_info": {"size": 72, "agent_id": {"handle": d["agent"]},
                              "queue_id": {"handle": 1}, "kernel_id": d["kernel_id"],
                              "dispatch_id": d["corr"], "private_segment_size": 0,
                              "group_segment_size": 0,
                              "workgroup_size": {"x": 256, "y": 1, "z": 1},
                              "grid_size": {"x": 65536, "y": 1, "z": 1}},
            "stream_id": {"handle": 0}})
    if fault == "end-before-start":
        dispatches[3]["end_timestamp"] = dispatches[3]["start_timestamp"] - 1
    copies = [{"size": 80, "kind": _kind("MEMORY_COPY"), "operation": _op("MEMORY_COPY", c["op"]),
               "thread_id": c["tid"], "correlation_id": _corr(c["corr"]),
               "start_timestamp": c["start"], "end_timestamp": c["end"],
               "dst_agent_id": {"handle": c["dst"]}, "src_agent_id": {"handle": c["src"]},
               "bytes": 1 << 20} for c in p["copies"]]
    hip = [{"size": 72, "kind": _kind("HIP_RUNTIME_API_EXT"),
            "operation": _op("HIP_RUNTIME_API_EXT", c["op"]), "correlation_id": _corr(c["corr"]),
            "start_timestamp": c["start"], "end_timestamp": c["end"], "thread_id": c["tid"],
            "args": [], "retval": {"hipError_t_retval": 0}} for c in p["calls"]]
    marker = []
    for r in p["ranges"]:
        marker.append({"size": 56, "kind": _kind("MARKER_CORE_RANGE_API"),
                       "operation": _op("MARKER_CORE_RANGE_API", "roctxThreadRangeA"),
                       "correlation_id": _corr(r["corr"]), "start_timestamp": r["start"],
                       "end_timestamp": r["end"], "thread_id": r["tid"]})
    for m in p["marks"]:
        marker.append({"size": 56, "kind": _kind("MARKER_CORE_RANGE_API"),
                       "operation": _op("MARKER_CORE_RANGE_API", "roctxMarkA"),
                       "correlation_id": _corr(m["corr"]), "start_timestamp": m["start"],
                       "end_timestamp": m["end"], "thread_id": m["tid"]})
    messages = [{"key": r["corr"], "value": r["text"]} for r in p["ranges"] + p["marks"]]
    kinds = [{"kind": k, "operations": OPS.get(k, [])} for k in KINDS]
    first = min([d["start"] for d in p["dispatches"]] + [c["start"] for c in p["calls"]] or [0])
    out = {
        "metadata": {"node": {"id": 0, "hostname": "gen-node"}, "pid": p["pid"],
                     "init_time": first - 1_000_000, "fini_time": first + 10**12,
                     "command": ["python3", "train.py"], "config": {"json_output": True}},
        "agents": agents,
        "counters": [],
        "strings": {"callback_records": [], "buffer_records": kinds, "marker_api": messages,
                    "correlation_id": {"external": []}, "counters": {"dimension_ids": []}},
        "code_objects": [],
        "kernel_symbols": symbols,
        "host_functions": [],
        "summary": [],
        "callback_records": {"counter_collection": []},
        "buffer_records": {"kernel_dispatch": dispatches, "hip_api": hip, "hsa_api": [],
                           "marker_api": marker, "rccl_api": [], "memory_copy": copies,
                           "memory_allocation": [], "scratch_memory": []},
    }
    if fault == "no-buffer-records":
        del out["buffer_records"]
    return out


def write_json(path, procs, gz=False, fault=None):
    doc = {"rocprofiler-sdk-tool": [json_process(p, fault) for p in procs]}
    text = json.dumps(doc, indent=1).encode()
    if fault == "truncated":
        text = text[: len(text) * 2 // 3]
    if gz:
        with open(path, "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
                z.write(text)
    else:
        with open(path, "wb") as f:
            f.write(text)


# ---- CSV ----

def _csv(path, header, rows, fault=None):
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    text = buf.getvalue()
    with open(path, "w", newline="") as f:
        f.write(text)


def write_csv(directory, procs, fault=None):
    os.makedirs(directory, exist_ok=True)
    for n, p in enumerate(procs[:2 if fault == "csv-two-pids" else 1]):
        pre = os.path.join(directory, "%d_" % p["pid"])
        sym = {s["kernel_id"]: s for s in p["symbols"]}
        ordinal = {a["handle"]: a for a in p["agents"]}
        head = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id",
                "Kernel_Id", "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp",
                "LDS_Block_Size", "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count",
                "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X",
                "Grid_Size_Y", "Grid_Size_Z"]
        rows = [["KERNEL_DISPATCH", "GPU %d" % ordinal[d["agent"]]["ordinal"], 1, 0, d["tid"],
                 d["corr"], d["kernel_id"], sym[d["kernel_id"]]["full"], d["corr"], d["start"],
                 d["end"], 0, 0, 8, 0, 16, 256, 1, 1, 65536, 1, 1] for d in p["dispatches"]]
        if fault == "csv-missing-column":
            head = [h for h in head if h != "End_Timestamp"]
            rows = [r[:10] + r[11:] for r in rows]
        if fault == "csv-bad-timestamp":
            rows[2][9] = "12x45"
        _csv(pre + "kernel_trace.csv", head, rows)
        if fault == "csv-unterminated-quote":
            with open(pre + "kernel_trace.csv", "a") as f:
                f.write('"KERNEL_DISPATCH","GPU 0",1,0,1,1,1,"attn_fwd,1,2,3\n')
        _csv(pre + "memory_copy_trace.csv",
             ["Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id",
              "Correlation_Id", "Start_Timestamp", "End_Timestamp"],
             [["MEMORY_COPY", c["op"], 0, "%s %d" % (ordinal[c["src"]]["type"],
                                                     ordinal[c["src"]]["ordinal"]),
               "%s %d" % (ordinal[c["dst"]]["type"], ordinal[c["dst"]]["ordinal"]),
               c["corr"], c["start"], c["end"]] for c in p["copies"]])
        api = ["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id",
               "Start_Timestamp", "End_Timestamp"]
        if p["ranges"] or p["marks"]:
            rows = [["MARKER_CORE_RANGE_API", r["text"], p["pid"], r["tid"], r["corr"],
                     r["start"], r["end"]] for r in p["ranges"] + p["marks"]]
            _csv(pre + "marker_api_trace.csv", api, rows)
        if p["calls"]:
            _csv(pre + "hip_api_trace.csv", api,
                 [["HIP_RUNTIME_API_EXT", c["op"], p["pid"], c["tid"], c["corr"], c["start"],
                   c["end"]] for c in p["calls"]])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("--format", choices=["json", "csv"], default="json")
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--kernels", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--slow", action="append", default=[], help="BASE_NAME:FACTOR")
    ap.add_argument("--gpu-model", default="AMD Instinct MI300X")
    ap.add_argument("--no-hip-trace", action="store_true")
    ap.add_argument("--no-markers", action="store_true")
    ap.add_argument("--fault", default=None)
    ap.add_argument("--summary", action="store_true")
    a = ap.parse_args(argv)
    slow = {s.rsplit(":", 1)[0]: float(s.rsplit(":", 1)[1]) for s in a.slow}
    procs = model(a.seed, a.processes, a.gpus, a.steps, a.kernels, a.scale, slow, a.gpu_model,
                  not a.no_hip_trace, not a.no_markers)
    if a.format == "json":
        write_json(a.out, procs, a.gzip, a.fault)
    else:
        write_csv(a.out, procs, a.fault)
    if a.summary:
        print(json.dumps(summary(procs if a.format == "json" else procs[:1]), indent=1,
                         sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
