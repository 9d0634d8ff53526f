#!/usr/bin/env python3
"""The trace generator against its own files.

For a table of generated traces (every kind of GPU work the generator writes,
alone and combined, with shuffled and ordered rows), read each file back with
sqlite3 and work out, independently of the generator, every figure its
--summary promises: per epoch (ranges keyed by text and occurrence on their
thread, work joined to its launching call on correlationId and process) the
kernel sum, span and busy time of each work set; totals per kind, device and
process; gpu-busy as the union of the work intervals per device; memory sums
per operation name; per-graph totals.  Then compare with the summary, which
the generator computed while writing.  Also checks that the files look like
real exports: DDL equal to real nsys files' (when ../shared is there), unique
(correlationId, globalPid) calls named for the work they launch, the capture
mode row, no graph-trace rows in node mode, shuffled tables holding the same
rows as their ordered twin in another order.

Environment: GENTRACE, SHARED (optional).  Prints `ok`/`not ok` lines and
`N passed, M failed`; exit 1 on any failure.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

EPOCH = r"epoch [0-9]+"
STEP = r"train_step"

# (name, generator args, epoch regex); a name ending in "+shuffle" is the
# previous case's arguments plus --shuffle, and must print the same summary.
CASES = [
    ("plain", ["--kernels", "600", "--names", "4", "--epochs", "5"], EPOCH),
    ("plain+shuffle", None, EPOCH),
    ("ranks-threads", ["--kernels", "2000", "--names", "6", "--epochs", "5", "--ranks", "3",
                       "--threads", "3", "--outside", "100", "--jitter", "0.1"], EPOCH),
    ("memory", ["--kernels", "1200", "--names", "5", "--epochs", "4", "--memory-share", "0.2",
                "--jitter", "0.05"], EPOCH),
    ("memory+shuffle", None, EPOCH),
    ("memory-kinds", ["--kernels", "900", "--names", "3", "--epochs", "3", "--memory-share", "0.5",
                      "--memory-kinds", "htod,dtoh,dtod,htoh,ptop,memset", "--ranks", "2",
                      "--memory-scale", "1.7"], EPOCH),
    ("memory-only", ["--kernels", "300", "--names", "2", "--epochs", "3", "--memory-share", "1"],
     EPOCH),
    ("graph", ["--kernels", "800", "--names", "8", "--epochs", "4", "--graph-share", "0.3",
               "--graphs", "3", "--graph-nodes", "5", "--jitter", "0.05"], EPOCH),
    ("graph+shuffle", None, EPOCH),
    ("graph-prefix-slow", ["--kernels", "600", "--names", "8", "--epochs", "3", "--graph-share",
                           "0.25", "--graph-mode-prefix", "--slow-graph", "2:1.5"], EPOCH),
    ("graph-only", ["--kernels", "200", "--names", "8", "--epochs", "4", "--graph-share", "1"],
     EPOCH),
    ("node", ["--kernels", "800", "--names", "8", "--epochs", "4", "--graph-share", "0.3",
              "--graph-mode", "node", "--ranks", "2"], EPOCH),
    ("node+shuffle", None, EPOCH),
    ("mode-row-only", ["--kernels", "300", "--names", "3", "--epochs", "3", "--graph-mode",
                       "node"], EPOCH),
    ("comm-overlap", ["--kernels", "1000", "--names", "4", "--epochs", "4", "--comm-share",
                      "0.25"], EPOCH),
    ("comm-overlap+shuffle", None, EPOCH),
    ("comm-serial", ["--kernels", "1000", "--names", "4", "--epochs", "4", "--comm-share", "0.25",
                     "--overlap", "0"], EPOCH),
    ("comm-half", ["--kernels", "1000", "--names", "4", "--epochs", "4", "--comm-share", "0.25",
                   "--overlap", "0.5", "--ranks", "2"], EPOCH),
    ("devices", ["--kernels", "1600", "--names", "5", "--epochs", "4", "--ranks", "2",
                 "--devices-per-rank", "2", "--comm-share", "0.2", "--memory-share", "0.1",
                 "--memory-kinds", "ptop,htod"], EPOCH),
    ("steps", ["--kernels", "6400", "--names", "4", "--epochs", "64", "--epoch-text",
               "train_step"], STEP),
    ("steps-threads", ["--kernels", "1800", "--names", "4", "--epochs", "8", "--epoch-text",
                       "train_step", "--threads", "3", "--thread-epochs", "--ranks", "2",
                       "--thread-kernels", "400"], STEP),
    ("steps-threads+shuffle", None, STEP),
    ("steps-nested-registered", ["--kernels", "900", "--names", "3", "--epochs", "6",
                                 "--epoch-text", "train_step", "--nested", "--registered",
                                 "--memory-share", "0.1"], STEP),
    ("warmup-mixed", ["--kernels", "1000", "--names", "6", "--epochs", "3", "--warmup", "2",
                      "--warmup-scale", "3", "--memory-share", "0.1", "--graph-share", "0.1"],
     EPOCH),
    ("sync-every", ["--kernels", "900", "--names", "4", "--epochs", "3", "--sync-every", "5",
                    "--comm-share", "0.2", "--memory-share", "0.2"], EPOCH),
    ("driver-api", ["--kernels", "500", "--names", "4", "--epochs", "3", "--driver-api",
                    "--graph-share", "0.2", "--memory-share", "0.2", "--comm-share", "0.2"],
     EPOCH),
    ("no-nvtx", ["--kernels", "500", "--names", "4", "--no-nvtx", "--graph-share", "0.2",
                 "--memory-share", "0.2"], EPOCH),
    ("all", ["--kernels", "3000", "--names", "8", "--epochs", "6", "--ranks", "2", "--threads",
             "2", "--thread-epochs", "--devices-per-rank", "2", "--memory-share", "0.15",
             "--graph-share", "0.15", "--comm-share", "0.15", "--overlap", "0.3",
             "--epoch-text", "train_step", "--outside", "50", "--jitter", "0.1",
             "--sync-every", "9"], STEP),
    ("all+shuffle", None, STEP),
    ("all-node", ["--kernels", "3000", "--names", "8", "--epochs", "6", "--ranks", "2",
                  "--threads", "2", "--devices-per-rank", "3", "--memory-share", "0.15",
                  "--graph-share", "0.15", "--graph-mode", "node", "--comm-share", "0.15",
                  "--outside", "50", "--jitter", "0.1"], EPOCH),
]

# Options that must be refused (exit 2, a "gentrace: " message).
BAD = [
    ["--memory-share", "0.7", "--graph-share", "0.5"],
    ["--memory-share", "1.5"],
    ["--memory-kinds", "htod"],
    ["--memory-share", "0.2", "--memory-kinds", "htod,warp"],
    ["--graph-share", "0.2", "--slow-graph", "3:2"],
    ["--graph-mode", "nodes"],
    ["--graph-mode-prefix"],
    ["--overlap", "0.5"],
    ["--comm-share", "0.2", "--overlap", "2"],
    ["--thread-epochs"],
    ["--epoch-text", "x", "--epoch-format", "e%d"],
    ["--devices-per-rank", "17"],
    ["--shuffle", "x"],
]

WORK = {"kernels": ("kernel",), "kernels,graphs": ("kernel", "graph"),
        "all": ("kernel", "graph", "memcpy", "memset")}
CALLS = {"kernel": ("cudaLaunchKernel_v7000", "cuLaunchKernel"), "graph": ("cudaGraphLaunch_v10000",),
         "memcpy": ("cudaMemcpyAsync_v3020",), "memset": ("cudaMemsetAsync_v3020",)}
GRAPH_TRACE_COLUMNS = ["start", "end", "deviceId", "contextId", "greenContextId", "streamId",
                       "correlationId", "globalPid", "graphId", "graphExecId"]
REAL_2023 = "05_ayush_vector_add_v3_nsys2023.1.2__exported_by_2023.4.4.sqlite"
REAL_2026 = "07_nsysai_mfu_2gpu_before_nsys2026.2.1.sqlite"
ORDERED_TABLES = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
                  "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                  "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "NVTX_EVENTS"]


class Check:
    def __init__(self):
        self.passed = self.failed = 0

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
            return True
        self.failed += 1
        print("not ok - %s\n    want %s\n    got  %s" % (what, str(want)[:600], str(got)[:600]))
        return False

    def true(self, what, cond, detail=""):
        return self.eq(what + (": " + detail if detail else ""), bool(cond), True)


def union_length(intervals):
    total, cs, ce = 0, None, None
    for s, e in sorted(intervals):
        if ce is None or s > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return total + (ce - cs if ce is not None else 0)


def busy(items):
    """Per device the union of the work intervals, summed over devices."""
    by_dev = {}
    for it in items:
        by_dev.setdefault(it["dev"], []).append((it["start"], it["end"]))
    return sum(union_length(v) for v in by_dev.values())


def figures(items, with_span=True):
    out = {}
    for w, kinds in WORK.items():
        sel = [it for it in items if it["kind"] in kinds]
        f = {"kernel_sum_ns": sum(it["end"] - it["start"] for it in sel),
             "gpu_busy_ns": busy(sel), "launches": len(sel)}
        if with_span:
            f["gpu_span_ns"] = (max(it["end"] for it in sel) - min(it["start"] for it in sel)
                                if sel else 0)
        out[w] = f
    return out


def kinds_of(items):
    out = {k: {"ns": 0, "launches": 0} for k in ("kernel", "graph", "memcpy", "memset")}
    for it in items:
        out[it["kind"]]["ns"] += it["end"] - it["start"]
        out[it["kind"]]["launches"] += 1
    return out


class Trace:
    """One generated file, read back."""

    def __init__(self, path):
        self.db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        self.tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.strings = dict(self.db.execute("SELECT id, value FROM StringIds"))
        self.items = []
        self.read_work()

    def has(self, t):
        return t in self.tables

    def columns(self, t):
        return [r[1] for r in self.db.execute("PRAGMA table_info(%s)" % t)]

    def read_work(self):
        t = "CUPTI_ACTIVITY_KIND_KERNEL"
        if self.has(t):
            graph = "graphId" if "graphId" in self.columns(t) else "NULL"
            node = "graphNodeId"
            for s, e, dev, corr, gpid, name, gid, nid in self.db.execute(
                    'SELECT start, "end", deviceId, correlationId, globalPid, demangledName, '
                    '%s, %s FROM %s' % (graph, node, t)):
                self.items.append(dict(kind="kernel", start=s, end=e, dev=dev, corr=corr,
                                       gpid=gpid, name=self.strings[name], graph=gid, node=nid))
        t = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
        if self.has(t):
            for s, e, dev, corr, gpid, gid in self.db.execute(
                    'SELECT start, "end", deviceId, correlationId, globalPid, graphId FROM %s' % t):
                self.items.append(dict(kind="graph", start=s, end=e, dev=dev, corr=corr, gpid=gpid,
                                       name="CUDA graph %d" % gid, graph=gid, node=None))
        t = "CUPTI_ACTIVITY_KIND_MEMCPY"
        if self.has(t):
            for s, e, dev, corr, gpid, label, nbytes in self.db.execute(
                    'SELECT m.start, m."end", m.deviceId, m.correlationId, m.globalPid, o.label, '
                    'm.bytes FROM %s m JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind' % t):
                self.items.append(dict(kind="memcpy", start=s, end=e, dev=dev, corr=corr, gpid=gpid,
                                       name="[CUDA memcpy %s]" % label, bytes=nbytes, graph=None,
                                       node=None))
        t = "CUPTI_ACTIVITY_KIND_MEMSET"
        if self.has(t):
            for s, e, dev, corr, gpid, nbytes in self.db.execute(
                    'SELECT start, "end", deviceId, correlationId, globalPid, bytes FROM %s' % t):
                self.items.append(dict(kind="memset", start=s, end=e, dev=dev, corr=corr, gpid=gpid,
                                       name="[CUDA memset]", bytes=nbytes, graph=None, node=None))

    def calls(self):
        """(correlationId, globalPid) -> call; and how many calls shared a key."""
        calls, dup = {}, 0
        if not self.has("CUPTI_ACTIVITY_KIND_RUNTIME"):
            return calls, dup
        for s, e, gtid, corr, name in self.db.execute(
                'SELECT start, "end", globalTid, correlationId, nameId FROM '
                'CUPTI_ACTIVITY_KIND_RUNTIME'):
            key = (corr, gtid & ~0xFFFFFF)
            dup += key in calls
            calls[key] = dict(start=s, end=e, gtid=gtid, name=self.strings[name])
        return calls, dup

    def ranges(self, pattern):
        """Epoch ranges: same-thread push/pop and start/end ranges whose text
        matches, each with its occurrence on its thread (1-based)."""
        if not self.has("NVTX_EVENTS"):
            return []
        rx = re.compile(pattern)
        rows = []
        for s, e, gtid, text, tid in self.db.execute(
                'SELECT start, "end", globalTid, text, textId FROM NVTX_EVENTS '
                'WHERE eventType IN (59, 60) AND "end" IS NOT NULL AND endGlobalTid IS NULL'):
            name = text if text is not None else self.strings.get(tid)
            if name is not None and rx.fullmatch(name):
                rows.append(dict(start=s, end=e, gtid=gtid, name=name))
        rows.sort(key=lambda r: (r["gtid"], r["start"]))
        seen = {}
        for r in rows:
            k = (r["gtid"], r["name"])
            seen[k] = seen.get(k, 0) + 1
            r["occurrence"] = seen[k]
        return rows

    def capture_mode(self):
        rows = list(self.db.execute(
            "SELECT name, value FROM META_DATA_CAPTURE WHERE name LIKE '%CUDA_GRAPH_TRACE_OPTIONS:MODE'"))
        return rows


def epochs_of(trace, pattern, calls):
    """Per (name, occurrence) the work launched inside those ranges, and the
    order of the keys on the first thread that has any."""
    ranges = trace.ranges(pattern)
    by_thread = {}
    for r in ranges:
        by_thread.setdefault(r["gtid"], []).append(r)
    work = {(r["name"], r["occurrence"]): [] for r in ranges}
    for it in trace.items:
        c = calls.get((it["corr"], it["gpid"]))
        if c is None:
            continue
        for r in by_thread.get(c["gtid"], ()):
            if r["start"] <= c["start"] and c["end"] <= r["end"]:
                work[(r["name"], r["occurrence"])].append(it)
    order = []
    if by_thread:
        first = min(by_thread)
        order = [(r["name"], r["occurrence"]) for r in sorted(by_thread[first],
                                                              key=lambda r: r["start"])]
    return work, order


def check_structure(ck, name, trace, args, calls, dup):
    ck.eq("%s: one runtime call per (correlationId, globalPid)" % name, dup, 0)
    missing = wrong = early = 0
    for it in trace.items:
        c = calls.get((it["corr"], it["gpid"]))
        if c is None:
            missing += 1
            continue
        want = CALLS["graph"] if it["kind"] == "kernel" and it["graph"] is not None else CALLS[it["kind"]]
        wrong += c["name"] not in want
        early += it["start"] < c["start"]
    ck.eq("%s: every work row has its launching call" % name, missing, 0)
    ck.eq("%s: calls named for the work they launch" % name, wrong, 0)
    ck.eq("%s: no work starts before its call" % name, early, 0)
    mode = "node" if "node" in args else "graph" if ("--graph-share" in args or "--graph-mode" in args) else None
    rows = trace.capture_mode()
    if mode is None:
        ck.eq("%s: no capture mode row" % name, rows, [])
    else:
        key = ("PROCESS_0:" if "--graph-mode-prefix" in args else "") + "CUDA_GRAPH_TRACE_OPTIONS:MODE"
        ck.eq("%s: capture mode row" % name, rows, [(key, mode.capitalize())])
    kernel_graph_rows = sum(1 for it in trace.items if it["kind"] == "kernel" and it["graph"] is not None)
    if mode == "node":
        ck.true("%s: node mode has no graph-trace table" % name,
                not trace.has("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"))
        if "--graph-share" in args:
            ck.true("%s: node kernels carry graphId and graphNodeId" % name,
                    kernel_graph_rows > 0 and all(it["node"] is not None for it in trace.items
                                                  if it["graph"] is not None))
    else:
        ck.eq("%s: no kernel carries a graphId" % name, kernel_graph_rows, 0)
    if trace.has("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"):
        ck.eq("%s: graph-trace columns (nsys 2026.2)" % name,
              trace.columns("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"), GRAPH_TRACE_COLUMNS)
    if trace.has("CUPTI_ACTIVITY_KIND_KERNEL"):
        ck.eq("%s: kernel table has graphId exactly in the 2026 layout" % name,
              "graphId" in trace.columns("CUPTI_ACTIVITY_KIND_KERNEL"), mode is not None)
    memory = trace.has("CUPTI_ACTIVITY_KIND_MEMCPY") or trace.has("CUPTI_ACTIVITY_KIND_MEMSET")
    ck.eq("%s: memory enums exactly with memory rows" % name,
          trace.has("ENUM_CUDA_MEMCPY_OPER"), memory)


def check_ddl(ck, name, trace, args, shared):
    """The CREATE TABLE text and enum rows against real exports."""
    real = os.path.join(shared or "", "nsys-samples", REAL_2026 if "--graph-mode" in args or
                        "--graph-share" in args else REAL_2023)
    if not shared or not os.path.exists(real):
        return
    ref = sqlite3.connect("file:%s?mode=ro" % real, uri=True)
    ref_tables = {r[0] for r in ref.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
              "CUPTI_ACTIVITY_KIND_RUNTIME", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND"):
        if t in trace.tables and t in ref_tables:
            q = "SELECT sql FROM sqlite_master WHERE name = ?"
            ck.eq("%s: %s DDL as in %s" % (name, t, os.path.basename(real)),
                  trace.db.execute(q, (t,)).fetchone(), ref.execute(q, (t,)).fetchone())
            if t.startswith("ENUM_"):
                q = "SELECT * FROM %s ORDER BY id" % t
                ck.eq("%s: %s rows" % (name, t), list(trace.db.execute(q)), list(ref.execute(q)))


def check_case(ck, name, path, args, pattern, summary, shared):
    trace = Trace(path)
    calls, dup = trace.calls()
    check_structure(ck, name, trace, args, calls, dup)
    check_ddl(ck, name, trace, args, shared)
    items = trace.items

    kernels = [it for it in items if it["kind"] == "kernel"]
    ck.eq("%s: kernels, total_ns" % name, (summary["kernels"], summary["total_ns"]),
          (len(kernels), sum(it["end"] - it["start"] for it in kernels)))
    per_name = {}
    for it in kernels:
        p = per_name.setdefault(it["name"], [0, 0])
        p[0] += it["end"] - it["start"]
        p[1] += 1
    ck.eq("%s: per_name" % name, {p["name"]: [p["total_ns"], p["instances"]]
                                  for p in summary["per_name"]}, per_name)
    ck.eq("%s: kinds" % name, summary["kinds"], kinds_of(items))
    ck.eq("%s: work totals (sum, busy, launches)" % name, summary["work"],
          figures(items, with_span=False))

    devices = sorted({it["dev"] for it in items})
    got_dev = {d["device"]: (d["kinds"], d["work"]) for d in summary["devices"]
               if d["kinds"]["kernel"]["launches"] or any(v["launches"] for v in d["kinds"].values())}
    want_dev = {d: (kinds_of([it for it in items if it["dev"] == d]),
                    figures([it for it in items if it["dev"] == d], with_span=False)) for d in devices}
    ck.eq("%s: per device" % name, got_dev, want_dev)
    pids = sorted({it["gpid"] for it in items})
    got_proc = {p["global_pid"]: (p["pid"], p["kinds"], p["work"]) for p in summary["processes"]
                if any(v["launches"] for v in p["kinds"].values())}
    want_proc = {g: ((g >> 24) & 0xFFFFFF, kinds_of([it for it in items if it["gpid"] == g]),
                     figures([it for it in items if it["gpid"] == g], with_span=False)) for g in pids}
    ck.eq("%s: per process" % name, got_proc, want_proc)

    mem = {}
    for it in items:
        if it["kind"] in ("memcpy", "memset"):
            m = mem.setdefault(it["name"], [0, 0, 0])
            m[0] += it["end"] - it["start"]
            m[1] += 1
            m[2] += it["bytes"]
    ck.eq("%s: per_memory" % name, {m["name"]: [m["total_ns"], m["instances"], m["bytes"]]
                                    for m in summary["per_memory"]}, mem)
    graphs = {}
    for it in items:
        if it["graph"] is not None:
            g = graphs.setdefault(it["graph"], [0, set()])
            g[0] += it["end"] - it["start"]
            g[1].add((it["corr"], it["gpid"]))
    ck.eq("%s: per_graph" % name, {g["graph_id"]: [g["name"], g["total_ns"], g["launches"]]
                                   for g in summary["per_graph"]},
          {gid: ["CUDA graph %d" % gid, v[0], len(v[1])] for gid, v in graphs.items()})
    mode = trace.capture_mode()
    ck.eq("%s: graph_mode" % name, summary["graph_mode"], mode[0][1] if mode else None)

    work, order = epochs_of(trace, pattern, calls)
    got_order = [(e["name"], e["occurrence"]) for e in summary["epochs"]]
    ck.eq("%s: epochs, in order" % name, got_order, order)
    bad = []
    for e in summary["epochs"]:
        its = work.get((e["name"], e["occurrence"]), [])
        want = figures(its)
        got = e["work"]
        if got != want or (e["kernel_sum_ns"], e["gpu_span_ns"]) != (
                want["kernels"]["kernel_sum_ns"], want["kernels"]["gpu_span_ns"]):
            bad.append((e["name"], e["occurrence"], got, want))
    ck.eq("%s: %d epochs' kernel-sum, gpu-span, gpu-busy per work set" %
          (name, len(summary["epochs"])), bad[:2], [])
    return trace


def scan(trace, t):
    return list(trace.db.execute("SELECT * FROM %s" % t))


def main():
    gen = os.environ["GENTRACE"]
    shared = os.environ.get("SHARED")
    ck = Check()
    with tempfile.TemporaryDirectory(prefix="ng-gentrace.") as tmp:
        prev = None
        for name, args, pattern in CASES:
            shuffled = name.endswith("+shuffle")
            if shuffled:
                args = prev[1] + ["--shuffle", "7"]
            path = os.path.join(tmp, name.replace("+", "-") + ".sqlite")
            g = subprocess.run([gen, "-o", path, "--summary"] + args, capture_output=True, text=True)
            if not ck.eq("%s: generator exit status" % name, (g.returncode, g.stderr), (0, "")):
                continue
            summary = json.loads(g.stdout)
            trace = check_case(ck, name, path, args, pattern, summary, shared)
            n_before = ck.failed
            if shuffled:
                ptrace, psummary = prev[2], prev[3]
                ck.eq("%s: summary equals the ordered file's" % name, summary, psummary)
                for t in ORDERED_TABLES:
                    if trace.has(t):
                        rows, prows = scan(trace, t), scan(ptrace, t)
                        ck.true("%s: %s holds the ordered file's rows" % (name, t),
                                sorted(rows, key=repr) == sorted(prows, key=repr))
                        ck.true("%s: %s rows in another order" % (name, t),
                                len(rows) < 2 or rows != prows)
            else:
                prev = (name, args, trace, summary)
            print("%s - %s" % ("ok" if ck.failed == n_before else "not ok", name))

        # Lost overlap: the same work, the same sums, more busy time.
        s1, s0 = (json.loads(subprocess.run(
            [gen, "-o", os.path.join(tmp, "ov%s.sqlite" % f), "--summary", "--kernels", "1000",
             "--names", "4", "--epochs", "4", "--comm-share", "0.25", "--overlap", f],
            capture_output=True, text=True, check=True).stdout) for f in ("1", "0"))
        ck.eq("overlap: per_name equal", s0["per_name"], s1["per_name"])
        ck.eq("overlap: epoch kernel sums equal", [e["kernel_sum_ns"] for e in s0["epochs"]],
              [e["kernel_sum_ns"] for e in s1["epochs"]])
        ck.true("overlap: every epoch busier without overlap",
                all(a["work"]["kernels"]["gpu_busy_ns"] > b["work"]["kernels"]["gpu_busy_ns"]
                    for a, b in zip(s0["epochs"], s1["epochs"])))
        ck.true("overlap: overlapped busy below the sum",
                s1["work"]["kernels"]["gpu_busy_ns"] < s1["work"]["kernels"]["kernel_sum_ns"])
        ck.eq("overlap: serialized busy equals the sum", s0["work"]["kernels"]["gpu_busy_ns"],
              s0["work"]["kernels"]["kernel_sum_ns"])

        # Steps: 64 same-text ranges on one thread are 64 epochs.
        steps = [json.loads(subprocess.run(
            [gen, "-o", os.path.join(tmp, "st.sqlite"), "--force", "--summary", "--kernels", "640",
             "--epochs", "64", "--epoch-text", "train_step"], capture_output=True, text=True,
            check=True).stdout)][0]
        ck.eq("steps: 64 epochs, occurrences 1..64", [(e["name"], e["occurrence"])
                                                      for e in steps["epochs"]],
              [("train_step", k) for k in range(1, 65)])

        for bad in BAD:
            r = subprocess.run([gen, "-o", os.path.join(tmp, "bad.sqlite")] + bad,
                               capture_output=True, text=True)
            ck.eq("refused: %s" % " ".join(bad), (r.returncode, r.stderr.startswith("gentrace: "),
                                                  os.path.exists(os.path.join(tmp, "bad.sqlite"))),
                  (2, True, False))
    print("%d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
