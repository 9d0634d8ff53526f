#!/usr/bin/env python3
"""Which ranges changed: the gate's JSON `ranges` against a reference
computed here from the export's rows (sqlite3), not from the gate's code.

For each work row launched inside a counted epoch (the call with its
correlation id in the same process lies inside the epoch's range, on the
range's thread), the reference takes every named NVTX range of that
thread around the call, the innermost one (the latest start, then the
earliest end), and when that is not the epoch's own range, adds the row's
duration to the range's name with each run of digits as '#'.  Epochs are
the ranges the pattern finds (a search, as --epoch-range's ERE) that no
other such range on their thread holds.  Per epoch is over the epochs
that counted work; the share is the range's change over the change of all
the counted work per epoch.

Cases: a generated pair with nested ranges (forward, backward,
optimizer.step, steps that also match the pattern) whose current's
backward pass is 1.5x slower, with 2 ranks and a second thread; a pair
without nested ranges (an empty list); total mode (null); the real
2-GPU pair 07/07b with its FlashAttnFunc ranges as epochs and the
PyTorch op ranges nested in them.

Environment: GATE, GENTRACE, SHARED (07/07b skipped without it, except
under CI=true).  Prints `ok`/`not ok` lines and `N passed, M failed`.
"""
import decimal
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from breakdown_check import Check  # noqa: E402
from gentrace_check import Trace  # noqa: E402

KERNELS = ("kernel", "graph")


def named_ranges(trace):
    """{globalTid: [(start, end, name)]}: closed push/pop and start/end ranges that end on
    their own thread and have a name (their text, or the registered string)."""
    out = {}
    if not trace.has("NVTX_EVENTS"):
        return out
    for s, e, gtid, text, tid in trace.db.execute(
            'SELECT start, "end", globalTid, text, textId FROM NVTX_EVENTS '
            'WHERE eventType IN (59, 60) AND "end" IS NOT NULL '
            'AND (endGlobalTid IS NULL OR endGlobalTid = globalTid)'):
        name = text if text is not None else trace.strings.get(tid)
        if name is not None and e >= s:
            out.setdefault(gtid, []).append((s, e, name))
    return out


def epochs_of(ranges, pattern):
    """{globalTid: [(start, end, key)]}: the outermost ranges the pattern finds; key is
    (text, occurrence on the thread)."""
    rx = re.compile(pattern)
    out = {}
    for gtid, rs in ranges.items():
        cands = sorted({r for r in rs if rx.search(r[2])}, key=lambda r: (r[0], -r[1], r[2]))
        kept, seen = [], {}
        for r in cands:
            if any(k[0] <= r[0] and r[1] <= k[1] for k in kept):
                continue
            seen[r[2]] = seen.get(r[2], 0) + 1
            kept.append((r[0], r[1], (r[2], seen[r[2]])))
        out[gtid] = kept
    return out


def reference(path, pattern):
    """({group: ns}, total ns, counted epochs) of the counted work of one export."""
    trace = Trace(path)
    calls, _ = trace.calls()
    ranges = named_ranges(trace)
    epochs = epochs_of(ranges, pattern)
    groups, total, counted = {}, 0, set()
    for it in trace.items:
        if it["kind"] not in KERNELS:
            continue
        c = calls.get((it["corr"], it["gpid"]))
        if c is None:
            continue
        inside = [ep for ep in epochs.get(c["gtid"], ())
                  if ep[0] <= c["start"] and c["end"] <= ep[1]]
        if not inside:
            continue
        dur = it["end"] - it["start"]
        total += dur * len(inside)
        counted.update(ep[2] for ep in inside)
        around = [r for r in ranges[c["gtid"]] if r[0] <= c["start"] and c["end"] <= r[1]]
        inner = min(around, key=lambda r: (-r[0], r[1], r[2]))
        if any(inner[0] == ep[0] and inner[1] == ep[1] for ep in inside):
            continue   # the epoch's own range
        name = re.sub(r"[0-9]+", "#", inner[2])
        groups[name] = groups.get(name, 0) + dur * len(inside)
    return groups, total, len(counted)


RANGE_CATS = ("user_annotation", "cpu_op", "operator")
CALL_CATS = ("cuda_runtime", "runtime", "cuda_driver", "driver")


def kineto_ns(v):
    """A Chrome-trace time (microseconds, exact decimal text) in nanoseconds, rounded half to
    even."""
    return int((decimal.Decimal(v) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def kineto_reference(path, pattern):
    """As reference(), for a torch.profiler trace: a step is the pattern's range on any
    thread of the process, an operator nests on its own thread (pid, tid), a call is the
    point its launch starts at, a kernel its call's by correlation id."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f, parse_float=decimal.Decimal)["traceEvents"]
    rx = re.compile(pattern)
    ranges, calls, kernels = {}, {}, []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat, start = e.get("cat"), kineto_ns(e["ts"])
        end = start + kineto_ns(e.get("dur", 0))
        if cat in RANGE_CATS and isinstance(e.get("name"), str):
            ranges.setdefault((e["pid"], e["tid"]), []).append((start, end, e["name"]))
        elif cat in CALL_CATS and "correlation" in e.get("args", {}):
            calls[e["args"]["correlation"]] = (e["pid"], e["tid"], start)
        elif cat == "kernel" and "correlation" in e.get("args", {}):
            kernels.append((e["args"]["correlation"], start, end))
    steps = {}
    for (pid, _), rs in ranges.items():
        steps.setdefault(pid, []).extend(r for r in rs if rx.search(r[2]))
    groups, total, counted = {}, 0, set()
    for corr, start, end in kernels:
        if corr not in calls:
            continue
        pid, tid, t = calls[corr]
        inside = [r for r in steps.get(pid, ()) if r[0] <= t <= r[1]]
        if not inside:
            continue
        total += (end - start) * len(inside)
        counted.update(r[2] for r in inside)
        around = [r for r in ranges.get((pid, tid), ()) if r[0] <= t <= r[1]]
        if not around:
            continue
        inner = min(around, key=lambda r: (-r[0], r[1], r[2]))
        if rx.search(inner[2]) and not any(r != inner and rx.search(r[2]) and r[0] <= inner[0]
                                           and inner[1] <= r[1] for r in around):
            continue   # the step's own range
        name = re.sub(r"[0-9]+", "#", inner[2])
        groups[name] = groups.get(name, 0) + (end - start) * len(inside)
    return groups, total, len(counted)


def expected(base, cur, pattern):
    """[(name, baseline ms, current ms, delta, share)], by contribution to the change."""
    ref = kineto_reference if ".json" in base else reference
    (gb, tb, nb), (gc, tc, nc) = ref(base, pattern), ref(cur, pattern)
    total_delta = tc / 1e6 / nc - tb / 1e6 / nb
    out = []
    for name in set(gb) | set(gc):
        b, c = gb.get(name, 0) / 1e6 / nb, gc.get(name, 0) / 1e6 / nc
        out.append((name, b, c, c - b, (c - b) / total_delta if total_delta else 0))
    sign = 1 if total_delta >= 0 else -1
    out.sort(key=lambda r: (-sign * r[3], r[0]))
    return out


def close(a, b, rel=1e-9):
    # milliseconds to the nanosecond (six decimals) in the JSON
    return abs(a - b) <= 5e-7 + rel * max(1.0, abs(b))


def gate(env, args, json_path):
    r = subprocess.run([env["GATE"]] + args + ["--json", json_path], capture_output=True,
                       text=True)
    with open(json_path) as f:
        return r.returncode, json.load(f), r.stdout


def gen(env, path, args):
    subprocess.run([env["GENTRACE"], "-o", path, "--force"] + args, check=True,
                   stdout=subprocess.DEVNULL)


def check_pair(ck, env, tmp, name, base, cur, pattern):
    rc, v, out = gate(env, [base, cur, "--epoch-range", pattern, "--verbose"],
                      os.path.join(tmp, name + ".json"))
    ck.true("%s: the gate ran (exit %d)" % (name, rc), rc in (0, 1), out)
    want = expected(base, cur, pattern)
    got = v.get("ranges")
    ck.true("%s: %d range groups as the reference" % (name, len(want)),
            got is not None and [g["name"] for g in got] == [w[0] for w in want],
            "gate %r, reference %r" % ([g["name"] for g in got or []], [w[0] for w in want]))
    for g, w in zip(got or [], want):
        ok = (close(g["baseline_ms_per_epoch"], w[1]) and close(g["current_ms_per_epoch"], w[2])
              and close(g["delta_ms_per_epoch"], w[3], 1e-6) and abs(g["share"] - w[4]) < 1e-6)
        ck.true("%s: %s %.6f -> %.6f ms, share %.4f" % (name, w[0], w[1], w[2], w[4]), ok,
                "got %r" % g)
    shown = [line for line in out.splitlines() if line.startswith("    ") and "%)" in line]
    for w in want[:5]:
        ck.true("%s: the details show %s" % (name, w[0]),
                any(line.rstrip().endswith("  " + w[0]) and ("%+.3f ms" % w[3]) in line
                    for line in shown), out)
    return v, want


def main():
    env = dict(os.environ)
    ck = Check()
    with tempfile.TemporaryDirectory() as tmp:
        common = ["--kernels", "3000", "--names", "5", "--epochs", "4", "--nested",
                  "--ranks", "2", "--threads", "2", "--thread-epochs", "--jitter", "0.03"]
        base, cur = (os.path.join(tmp, "nested-%s.sqlite" % s) for s in "bc")
        gen(env, base, common)
        gen(env, cur, common + ["--slow-range", "backward:1.5", "--seed", "2"])
        v, want = check_pair(ck, env, tmp, "nested", base, cur, "epoch [0-9]+$")
        ck.true("nested: backward is the range that changed most",
                bool(want) and want[0][0] == "backward" and
                (v.get("ranges") or [{}])[0].get("name") == "backward", repr(want[:2]))
        check_pair(ck, env, tmp, "nested-steps", base, cur, "epoch [0-9]+ step [0-9]+")
        flat_b, flat_c = (os.path.join(tmp, "flat-%s.sqlite" % s) for s in "bc")
        gen(env, flat_b, ["--kernels", "600", "--epochs", "4"])
        gen(env, flat_c, ["--kernels", "600", "--epochs", "4", "--seed", "3"])
        rc, v, out = gate(env, [flat_b, flat_c, "--epoch-range", "epoch [0-9]+"],
                          os.path.join(tmp, "flat.json"))
        ck.true("without nested ranges: an empty list (exit %d)" % rc, v.get("ranges") == [],
                repr(v.get("ranges")))
        rc, v, out = gate(env, [base, cur, "--epochs", "4"], os.path.join(tmp, "total.json"))
        ck.true("total mode: null (no source looked)", v.get("ranges", 0) is None,
                repr(v.get("ranges", 0)))
        kb, kc = (os.path.join(tmp, "k%s.pt.trace.json" % s) for s in "bc")
        common = ["--format", "kineto", "--kernels", "2000", "--names", "6", "--epochs", "5",
                  "--threads", "2", "--jitter", "0.02"]
        gen(env, kb, common)
        gen(env, kc, common + ["--seed", "2", "--scale", "1.3"])
        check_pair(ck, env, tmp, "kineto-generated", kb, kc, "ProfilerStep#[0-9]+")
        shared = env.get("SHARED", "")
        ktraces = [os.path.join(shared, "kineto-samples", "trace_filter_sampled_rank-%d.json.gz" % i)
                   for i in (0, 1)]
        if all(os.path.exists(p) for p in ktraces):
            check_pair(ck, env, tmp, "kineto-ranks", ktraces[0], ktraces[1], "ProfilerStep#[0-9]+")
        elif env.get("CI") == "true":
            ck.true("the kineto samples are there under CI=true", False, str(ktraces))
        real = [os.path.join(shared, "nsys-samples", n) for n in
                ("07_nsysai_mfu_2gpu_before_nsys2026.2.1.sqlite",
                 "07b_nsysai_mfu_2gpu_after_nsys2026.2.1.sqlite")]
        if all(os.path.exists(p) for p in real):
            check_pair(ck, env, tmp, "07-07b", real[0], real[1], "FlashAttnFunc")
            check_pair(ck, env, tmp, "07-07b-ops", real[0], real[1], "aten::linear")
        elif env.get("CI") == "true":
            ck.true("the 07/07b samples are there under CI=true", False, str(real))
        else:
            print("# skip 07/07b: %s not found" % real[0])
    print("%d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
