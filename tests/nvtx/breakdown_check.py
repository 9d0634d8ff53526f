#!/usr/bin/env python3
"""The step-time breakdown against interval arithmetic done here.

For the real two-GPU pair in ../shared (07/07b, NCCL SendRecv kernels) and
for generated traces (NCCL kernels overlapping compute in one, serialised
in the other with the same kernel sum; several ranks and devices; memory
operations counted; NVTX epochs), read every work row back with sqlite3,
then per device (and per epoch in NVTX mode, work joined to its launching
call) work out, independently of the gate:
  compute  the durations of kernels that are not NCCL's, and graph launches
  comm     the durations of NCCL kernels
  exposed  the length of (union of comm intervals) minus its intersection
           with (union of compute intervals)
  memory   the durations of memcpy and memset
  idle     last end - first start minus the union of every interval
and compare with the gate's JSON `breakdown` (per epoch, summed and per
device) for both sides.  Then the verdicts of the serialised pair: the
kernel sum does not move (PASS), --metric exposed-comm FAILs, in both
modes.

Environment: GATE, GENTRACE, SHARED (07/07b skipped without it, except
under CI=true).  Prints `ok`/`not ok` lines and `N passed, M failed`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gentrace_check import Trace, epochs_of, union_length  # noqa: E402

# The reference's own rule for communication: the NCCL kernels these
# traces hold (the gate's table is wider; docs/breakdown.md).
NCCL = re.compile(r"(^|[^A-Za-z0-9_])nccl(Dev)?Kernel_")
EPOCH = r"epoch [0-9]+"
FIELDS = ("compute_ms", "comm_ms", "exposed_comm_ms", "memory_ms", "idle_ms")


class Check:
    def __init__(self):
        self.passed = self.failed = 0

    def true(self, what, cond, detail=""):
        if cond:
            self.passed += 1
            print("ok - %s" % what)
        else:
            self.failed += 1
            print("not ok - %s %s" % (what, detail))


def merged(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def intersection(a, b):
    """Length of the intersection of two lists of disjoint sorted intervals."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def classify(it):
    if it["kind"] in ("memcpy", "memset"):
        return "memory"
    if it["kind"] == "kernel" and NCCL.search(it["name"]):
        return "comm"
    return "compute"


def device_breakdown(items):
    """ns by field for one device's intervals."""
    f = {k: 0 for k in FIELDS}
    by = {"compute": [], "comm": [], "memory": []}
    for it in items:
        c = classify(it)
        by[c].append((it["start"], it["end"]))
        f[{"compute": "compute_ms", "comm": "comm_ms", "memory": "memory_ms"}[c]] += \
            it["end"] - it["start"]
    comm = merged(by["comm"])
    f["exposed_comm_ms"] = union_length(by["comm"]) - intersection(comm, merged(by["compute"]))
    every = [(it["start"], it["end"]) for it in items]
    f["idle_ms"] = (max(e for _, e in every) - min(s for s, _ in every)) - union_length(every)
    return f


def add_groups(into, items):
    by_dev = {}
    for it in items:
        by_dev.setdefault(it["dev"], []).append(it)
    for dev, its in by_dev.items():
        f = device_breakdown(its)
        d = into.setdefault(dev, {k: 0 for k in FIELDS})
        for k in FIELDS:
            d[k] += f[k]


def reference(path, kinds, nvtx, epochs):
    """{device: {field: ns}} over the counted epochs, and what to divide by."""
    trace = Trace(path)
    items = [it for it in trace.items if it["kind"] in kinds]
    out = {}
    if not nvtx:
        add_groups(out, items)
        return out, epochs
    calls, _ = trace.calls()
    work, _ = epochs_of(trace, EPOCH, calls)
    counted = 0
    for key in work:
        sel = [it for it in work[key] if it["kind"] in kinds]
        if sel:
            counted += 1
            add_groups(out, sel)
    return out, counted


def gate(env, args, json_path):
    r = subprocess.run([env["GATE"]] + args + ["--json", json_path], capture_output=True,
                       text=True)
    with open(json_path) as f:
        return r.returncode, json.load(f), r.stdout


def close(a, b):
    # the JSON gives milliseconds to the nanosecond (six decimals): a
    # figure per epoch may hold a fraction of a nanosecond, rounded there
    return abs(a - b) <= 5e-7 + 1e-12 * max(1.0, abs(b))


def compare_side(ck, what, got, ref, per):
    if got is None:
        ck.true("%s: a breakdown" % what, False, "(null)")
        return
    devs = {d["device"]: d for d in got["devices"]}
    ck.true("%s: the devices" % what, sorted(devs) == sorted(ref),
            "%s vs %s" % (sorted(devs), sorted(ref)))
    for k in FIELDS:
        want = sum(d[k] for d in ref.values()) / 1e6 / per
        ck.true("%s: %s %.6f" % (what, k, want), close(got[k], want), "got %r" % got[k])
        for dev in sorted(ref):
            w = ref[dev][k] / 1e6 / per
            g = devs.get(dev, {}).get(k)
            ck.true("%s: device %d %s" % (what, dev, k), g is not None and close(g, w),
                    "got %r want %r" % (g, w))


WORK = {"kernels,graphs": ("kernel", "graph"), "all": ("kernel", "graph", "memcpy", "memset")}


def check_pair(ck, env, tmp, name, base, cur, args, work="kernels,graphs"):
    nvtx = "--epoch-range" in args
    rc, v, out = gate(env, [base, cur, "--work", work] + args, os.path.join(tmp, name + ".json"))
    ck.true("%s: the gate ran (exit %d)" % (name, rc), rc in (0, 1), out)
    if rc not in (0, 1):
        return v
    epochs = 5
    if "--epochs" in args:
        epochs = int(args[args.index("--epochs") + 1])
    for side, path in (("baseline", base), ("current", cur)):
        ref, per = reference(path, WORK[work], nvtx, epochs)
        compare_side(ck, "%s %s" % (name, side), v[side]["breakdown"], ref, per)
    return v


def check_exposed_metric(ck, env, tmp, mode, base, cur, args):
    """--metric exposed-comm: each side's figure is the reference's exposed communication
    per epoch, the serialised side FAILs, and the kernel sum of the pair does not move."""
    name = "exposed-comm-%s" % mode
    rc, v, out = gate(env, [base, cur, "--metric", "exposed-comm"] + args,
                      os.path.join(tmp, name + ".json"))
    nvtx = "--epoch-range" in args
    epochs = int(args[args.index("--epochs") + 1]) if "--epochs" in args else 5
    for side, path in (("baseline", base), ("current", cur)):
        ref, per = reference(path, WORK["kernels,graphs"], nvtx, epochs)
        want = sum(d["exposed_comm_ms"] for d in ref.values()) / 1e6 / per
        ck.true("%s %s: ms_per_epoch is the exposed communication %.6f" % (name, side, want),
                close(v[side + "_ms_per_epoch"], want), "got %r" % v[side + "_ms_per_epoch"])
    ck.true("%s: the serialised current FAILs (exit %d)" % (name, rc),
            rc == 1 and v["verdict"] == "fail" and v["metric"] == "exposed-comm", out)
    rc, v, out = gate(env, [base, cur] + args, os.path.join(tmp, name + "-sum.json"))
    ck.true("%s: kernel-sum passes the same pair at 1.000x (exit %d)" % (name, rc),
            rc == 0 and abs(v["ratio"] - 1) < 1e-9, out)


def counted_items(path, kinds, nvtx):
    """The counted work rows (in NVTX mode those launched inside the epochs) and the number
    of epochs counted (None in total mode)."""
    trace = Trace(path)
    if not nvtx:
        return [it for it in trace.items if it["kind"] in kinds], None
    calls, _ = trace.calls()
    work, _ = epochs_of(trace, EPOCH, calls)
    sel = [[it for it in work[k] if it["kind"] in kinds] for k in work]
    return [it for s in sel for it in s], sum(1 for s in sel if s)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def straggler_reference(path, nvtx, epochs, limit=1.10):
    """[(kind, id, ms per epoch, others' median)]: the devices whose summed durations per
    epoch are past limit x the median of the other devices', then the processes' the same
    way when processes are not one to one with devices."""
    items, counted = counted_items(path, WORK["kernels,graphs"], nvtx)
    per = counted if nvtx else epochs
    out = []
    for kind, key in (("device", lambda it: it["dev"]), ("process", lambda it: (it["gpid"] >> 24) & 0xFFFFFF)):
        sums = {}
        for it in items:
            sums[key(it)] = sums.get(key(it), 0) + it["end"] - it["start"]
        if kind == "process" and len(sums) == len({it["dev"] for it in items}):
            continue
        ms = {k: v / 1e6 / per for k, v in sums.items()}
        for k in sorted(ms):
            others = median([v for j, v in ms.items() if j != k]) if len(ms) > 1 else 0
            if others > 0 and ms[k] > limit * others:
                out.append((kind, k, ms[k], others))
    return out


def check_stragglers(ck, env, tmp):
    """A slow GPU in the current: named on that side only, with the reference's figures; in
    total and NVTX mode, one process a GPU and three processes of two GPUs each."""
    for name, shape in (("4x1", ["--ranks", "4"]),
                        ("3x2", ["--ranks", "3", "--devices-per-rank", "2"])):
        # an odd number of names, so that each GPU of a process runs every kernel in turn
        common = ["--kernels", "1200", "--names", "5", "--epochs", "4", "--jitter", "0.02"] + shape
        base, cur = (os.path.join(tmp, "strag-%s-%s.sqlite" % (name, s)) for s in "bc")
        gen(env, base, common)
        gen(env, cur, common + ["--slow-device", "2:1.5"])
        for mode, args in (("total", ["--epochs", "4"]), ("nvtx", ["--epoch-range", EPOCH])):
            what = "stragglers %s %s" % (name, mode)
            rc, v, out = gate(env, [base, cur, "--verbose"] + args,
                              os.path.join(tmp, what + ".json"))
            for side, path in (("baseline", base), ("current", cur)):
                want = straggler_reference(path, mode == "nvtx", 4)
                got = [("device" if g["device"] is not None else "process",
                        g["device"] if g["device"] is not None else g["process"],
                        g["ms_per_epoch"], g["others_median_ms"])
                       for g in v[side]["stragglers"]]
                ok = len(got) == len(want) and all(
                    g[:2] == w[:2] and close(g[2], w[2]) and close(g[3], w[3])
                    for g, w in zip(got, want))
                ck.true("%s %s: %d stragglers as the reference's" % (what, side, len(want)), ok,
                        "gate %r, reference %r" % (got, want))
            names = [w[:2] for w in straggler_reference(cur, mode == "nvtx", 4)]
            ck.true("%s: device 2 is the current's straggler" % what, ("device", 2) in names,
                    repr(names))
            ck.true("%s: the warning and the detail line say so" % what,
                    any(w.startswith("device 2 ") and "of the current is a straggler" in w
                        for w in v["warnings"]) and
                    "current  straggler new (not in the baseline): device 2," in out,
                    "%s %s" % (v["warnings"], out))


def gen(env, path, args):
    subprocess.run([env["GENTRACE"], "-o", path, "--force"] + args, check=True,
                   stdout=subprocess.DEVNULL)


def main():
    env = dict(os.environ)
    ck = Check()
    shared = env.get("SHARED", "")
    real = [os.path.join(shared, "nsys-samples", n) for n in
            ("07_nsysai_mfu_2gpu_before_nsys2026.2.1.sqlite",
             "07b_nsysai_mfu_2gpu_after_nsys2026.2.1.sqlite")]
    with tempfile.TemporaryDirectory() as tmp:
        if all(os.path.exists(p) for p in real):
            check_pair(ck, env, tmp, "07-07b", real[0], real[1], [])
            check_pair(ck, env, tmp, "07-07b-all", real[0], real[1], [], work="all")
            nccl = sum(1 for it in Trace(real[0]).items if it["kind"] == "kernel"
                       and NCCL.search(it["name"]))
            ck.true("07: 66 NCCL kernels (%d)" % nccl, nccl == 66)
        elif env.get("CI") == "true":
            ck.true("the 07/07b samples are there under CI=true", False, str(real))
        else:
            print("# skip 07/07b: %s not found" % real[0])
        common = ["--kernels", "1200", "--names", "4", "--epochs", "4", "--comm-share", "0.25",
                  "--ranks", "2", "--devices-per-rank", "2", "--memory-share", "0.1",
                  "--jitter", "0.05", "--sync-every", "7"]
        a, b = os.path.join(tmp, "overlap.sqlite"), os.path.join(tmp, "serial.sqlite")
        gen(env, a, common)
        gen(env, b, common + ["--overlap", "0"])
        for mode, args in (("total", ["--epochs", "4"]), ("nvtx", ["--epoch-range", EPOCH])):
            for work in WORK:
                v = check_pair(ck, env, tmp, "serialised-%s-%s" % (mode, work), a, b, args, work)
                ck.true("serialised-%s-%s: more exposed communication" % (mode, work),
                        v["current"]["breakdown"]["exposed_comm_ms"]
                        > v["baseline"]["breakdown"]["exposed_comm_ms"])
            check_exposed_metric(ck, env, tmp, mode, a, b, args)
        half = os.path.join(tmp, "half.sqlite")
        gen(env, half, common + ["--overlap", "0.5", "--graph-share", "0.1"])
        check_pair(ck, env, tmp, "half-graphs-nvtx", a, half, ["--epoch-range", EPOCH])
        check_stragglers(ck, env, tmp)
    print("%d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
