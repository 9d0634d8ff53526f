#!/usr/bin/env python3
"""The gate against the generator's own arithmetic.

For a table of generated traces (several ranks and threads, kernels launched
outside any epoch, nested and registered-string ranges, warm-up epochs, GPU
idle gaps; 64 repeated train_step ranges, the same steps on several threads
and ranks; whole-graph launches and node-mode graph kernels; memcpy/memset;
NCCL kernels overlapping compute or not; several devices per process; all of
it at once), the generator prints what every epoch must measure, computed
while it writes the file (tests/tools/gentrace.c --summary), independently
of how the gate reads it back.  The gate's per-epoch values from
`--print-profile --epoch-range` must equal them to the nanosecond, for every
metric asked, in order, after --skip-epochs; the expected value is the
summary's figure for the work set the gate counts (its --work, by default
kernels,graphs).  A case named NAME+shuffle is the previous case's trace with
its rows in random order: the gate must print exactly what it printed for the
ordered file.  In total mode, the gate's rows (name, total, instances) must
equal the generator's per-name, per-graph and per-memory-operation sums for
the work set counted.

`--print-profile` is read by its header names (`epoch_ns` ... `epoch`,
`total_ns` `instances` `name`), never by column position.

Environment: GATE, GENTRACE.  Prints `ok`/`not ok` lines and `N passed, M failed`.
"""
import json
import os
import subprocess
import sys
import tempfile

EPOCH_METRICS = ("kernel-sum", "gpu-span")
ALL_METRICS = ("kernel-sum", "gpu-span", "gpu-busy")
KEYS = {"kernel-sum": "kernel_sum_ns", "gpu-span": "gpu_span_ns", "gpu-busy": "gpu_busy_ns"}
DEFAULT_WORK = "kernels,graphs"

CASES = [
    # (name, generator args, gate args, metrics); NAME+shuffle: None, None, None
    ("plain", ["--kernels", "600", "--names", "4", "--epochs", "6"], ["--epoch-range", "auto"],
     EPOCH_METRICS),
    ("jitter", ["--kernels", "900", "--names", "5", "--epochs", "9", "--jitter", "0.2", "--seed", "5"],
     ["--epoch-range", "auto"], EPOCH_METRICS),
    ("ranks-threads-outside", ["--kernels", "2000", "--names", "6", "--epochs", "5", "--ranks", "3",
                               "--threads", "3", "--outside", "100", "--jitter", "0.1"],
     ["--epoch-range", "auto"], EPOCH_METRICS),
    ("nested-registered", ["--kernels", "1200", "--names", "4", "--epochs", "4", "--nested",
                           "--registered"], ["--epoch-range", "auto"], EPOCH_METRICS),
    ("warmup-skip", ["--kernels", "1400", "--names", "4", "--epochs", "5", "--warmup", "2",
                     "--warmup-scale", "4"], ["--epoch-range", "auto", "--skip-epochs", "2"],
     EPOCH_METRICS),
    ("custom-format", ["--kernels", "500", "--names", "3", "--epochs", "5", "--epoch-format",
                       "Epoch %d/5", "--epoch-base", "1"], ["--epoch-range", "^Epoch [0-9]+/5$"],
     EPOCH_METRICS),
    ("rank-suffix", ["--kernels", "800", "--names", "4", "--epochs", "4", "--ranks", "2",
                     "--epoch-format", "EPOCH: %d"], ["--epoch-range", "auto"], EPOCH_METRICS),
    ("driver-api", ["--kernels", "400", "--names", "3", "--epochs", "4", "--driver-api"],
     ["--epoch-range", "auto"], EPOCH_METRICS),
    # more epoch ranges than the compact launch map numbers (65534): the rest go elsewhere
    ("many-epochs", ["--kernels", "140000", "--names", "2", "--epochs", "70000"],
     ["--epoch-range", "auto"], EPOCH_METRICS),
    ("span-idle", ["--kernels", "1000", "--names", "4", "--epochs", "5", "--sync-every", "7",
                   "--ranks", "2"], ["--epoch-range", "auto"], EPOCH_METRICS),
    ("span-idle+shuffle", None, None, None),
    # 64 train_step ranges on one thread: 64 epochs, told apart by their order
    ("steps", ["--kernels", "6400", "--names", "4", "--epochs", "64", "--epoch-text", "train_step",
               "--jitter", "0.05"], ["--epoch-range", "^train_step$"], ALL_METRICS),
    # the k-th train_step of every thread and rank is one epoch
    ("steps-threads-ranks", ["--kernels", "3000", "--names", "4", "--epochs", "16", "--epoch-text",
                             "train_step", "--ranks", "2", "--threads", "3", "--thread-epochs",
                             "--thread-kernels", "600", "--jitter", "0.1"],
     ["--epoch-range", "^train_step$"], ALL_METRICS),
    ("steps-threads-ranks+shuffle", None, None, None),
    ("steps-nested", ["--kernels", "1200", "--names", "4", "--epochs", "8", "--epoch-text",
                      "train_step", "--nested", "--registered"], ["--epoch-range", "^train_step$"],
     ALL_METRICS),
    ("steps-warmup-skip", ["--kernels", "1400", "--names", "4", "--epochs", "10", "--warmup", "2",
                           "--warmup-scale", "3", "--epoch-text", "train_step"],
     ["--epoch-range", "^train_step$", "--skip-epochs", "2"], ALL_METRICS),
    # whole-graph launches count by default, with their graph-trace row
    ("graphs", ["--kernels", "1200", "--names", "8", "--epochs", "5", "--graph-share", "0.3",
                "--graphs", "3", "--jitter", "0.05"], ["--epoch-range", "auto"], ALL_METRICS),
    ("graphs+shuffle", None, None, None),
    ("graphs-kernels-only", ["--kernels", "1200", "--names", "8", "--epochs", "5", "--graph-share",
                             "0.3", "--graphs", "3", "--jitter", "0.05"],
     ["--epoch-range", "auto", "--work", "kernels"], ALL_METRICS),
    ("graphs-slow-prefix", ["--kernels", "900", "--names", "8", "--epochs", "4", "--graph-share",
                            "0.25", "--graph-mode-prefix", "--slow-graph", "2:1.5", "--ranks", "2"],
     ["--epoch-range", "auto"], ALL_METRICS),
    ("graph-only", ["--kernels", "300", "--names", "8", "--epochs", "4", "--graph-share", "1"],
     ["--epoch-range", "auto"], ALL_METRICS),
    ("graph-nodes", ["--kernels", "1200", "--names", "8", "--epochs", "5", "--graph-share", "0.3",
                     "--graph-mode", "node", "--ranks", "2"], ["--epoch-range", "auto"], ALL_METRICS),
    # memory operations: counted with --work all only
    ("memory-all", ["--kernels", "1500", "--names", "5", "--epochs", "5", "--memory-share", "0.2",
                    "--memory-kinds", "htod,dtoh,dtod,ptop,memset", "--jitter", "0.05"],
     ["--epoch-range", "auto", "--work", "all"], ALL_METRICS),
    ("memory-all+shuffle", None, None, None),
    ("memory-default", ["--kernels", "1500", "--names", "5", "--epochs", "5", "--memory-share",
                        "0.2"], ["--epoch-range", "auto"], ALL_METRICS),
    ("memory-only", ["--kernels", "300", "--names", "2", "--epochs", "3", "--memory-share", "1"],
     ["--epoch-range", "auto", "--work", "all"], ALL_METRICS),
    # NCCL on a communication stream: gpu-busy sees lost overlap, kernel-sum does not
    ("overlap", ["--kernels", "1200", "--names", "4", "--epochs", "5", "--comm-share", "0.25"],
     ["--epoch-range", "auto"], ALL_METRICS),
    ("overlap+shuffle", None, None, None),
    ("overlap-lost", ["--kernels", "1200", "--names", "4", "--epochs", "5", "--comm-share", "0.25",
                      "--overlap", "0"], ["--epoch-range", "auto"], ALL_METRICS),
    ("overlap-half-ranks", ["--kernels", "1600", "--names", "4", "--epochs", "4", "--comm-share",
                            "0.25", "--overlap", "0.5", "--ranks", "2", "--sync-every", "9"],
     ["--epoch-range", "auto"], ALL_METRICS),
    ("devices", ["--kernels", "1600", "--names", "5", "--epochs", "4", "--ranks", "2",
                 "--devices-per-rank", "2", "--comm-share", "0.2", "--memory-share", "0.1"],
     ["--epoch-range", "auto", "--work", "all"], ALL_METRICS),
    # everything at once
    ("all", ["--kernels", "3000", "--names", "8", "--epochs", "6", "--ranks", "2", "--threads", "2",
             "--thread-epochs", "--devices-per-rank", "2", "--memory-share", "0.15",
             "--graph-share", "0.15", "--comm-share", "0.15", "--overlap", "0.3", "--epoch-text",
             "train_step", "--outside", "50", "--jitter", "0.1", "--sync-every", "9"],
     ["--epoch-range", "^train_step$", "--work", "all"], ALL_METRICS),
    ("all+shuffle", None, None, None),
    ("all-default-work", ["--kernels", "3000", "--names", "8", "--epochs", "6", "--ranks", "2",
                          "--threads", "2", "--thread-epochs", "--devices-per-rank", "2",
                          "--memory-share", "0.15", "--graph-share", "0.15", "--comm-share", "0.15",
                          "--overlap", "0.3", "--epoch-text", "train_step", "--outside", "50",
                          "--jitter", "0.1", "--sync-every", "9"],
     ["--epoch-range", "^train_step$"], ALL_METRICS),
]

TOTAL_CASES = [
    # (name, generator args, gate args): total mode, rows per name
    ("total-ranks-threads", ["--kernels", "2000", "--names", "6", "--epochs", "5", "--ranks", "3",
                             "--threads", "3", "--outside", "100", "--jitter", "0.1"], []),
    ("total-ranks-threads+shuffle", None, None),
    ("total-graphs", ["--kernels", "1200", "--names", "8", "--epochs", "5", "--graph-share", "0.3",
                      "--graphs", "3", "--ranks", "2"], []),
    ("total-graphs-kernels-only", ["--kernels", "1200", "--names", "8", "--epochs", "5",
                                   "--graph-share", "0.3", "--graphs", "3"], ["--work", "kernels"]),
    ("total-graph-only", ["--kernels", "300", "--names", "8", "--graph-share", "1", "--no-nvtx"], []),
    ("total-graph-nodes", ["--kernels", "1200", "--names", "8", "--graph-share", "0.3",
                           "--graph-mode", "node"], []),
    ("total-memory-all", ["--kernels", "1500", "--names", "5", "--memory-share", "0.2",
                          "--memory-kinds", "htod,dtoh,dtod,htoh,ptop,memset", "--ranks", "2"],
     ["--work", "all"]),
    ("total-memory-default", ["--kernels", "1500", "--names", "5", "--memory-share", "0.2"], []),
    ("total-memory-only", ["--kernels", "300", "--names", "2", "--memory-share", "1", "--no-nvtx"],
     ["--work", "all"]),
    ("total-all", ["--kernels", "3000", "--names", "8", "--epochs", "6", "--ranks", "2",
                   "--threads", "2", "--devices-per-rank", "2", "--memory-share", "0.15",
                   "--graph-share", "0.15", "--comm-share", "0.15", "--overlap", "0.3",
                   "--outside", "50", "--jitter", "0.1"], ["--work", "all"]),
    ("total-all+shuffle", None, None),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def print_profile(gate, path, args):
    """The gate's --print-profile tables: {first header name: [row dicts]}."""
    r = run([gate, "--print-profile"] + args + [path])
    if r.returncode != 0:
        raise RuntimeError("gate exit %d: %s" % (r.returncode, r.stderr.strip()))
    tables, cols = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            cols = None
            continue
        fields = line.split("\t")
        if fields[0] in ("epoch_ns", "total_ns"):
            cols = fields
            tables[cols[0]] = []
            continue
        if cols is None:
            continue
        if len(fields) != len(cols):
            raise RuntimeError("row %r does not match header %r" % (line, cols))
        tables[cols[0]].append(dict(zip(cols, fields)))
    return tables


def gate_epochs(gate, path, args):
    """(epoch name, ns) in the gate's order."""
    rows = print_profile(gate, path, args).get("epoch_ns")
    if rows is None:
        raise RuntimeError("no epoch table in --print-profile")
    return [(r["epoch"], int(r["epoch_ns"])) for r in rows]


def gate_rows(gate, path, args):
    """name -> (total ns, instances) of the total-mode table."""
    rows = print_profile(gate, path, args).get("total_ns", [])
    return {r["name"]: (int(r["total_ns"]), int(r["instances"])) for r in rows}


def work_of(args):
    return args[args.index("--work") + 1] if "--work" in args else DEFAULT_WORK


def expected_rows(summary, work):
    """What total mode lists for a work set: kernel rows by name, graph-trace
    rows as 'CUDA graph N', memory operations by nsys's operation name."""
    want = {p["name"]: (p["total_ns"], p["instances"]) for p in summary["per_name"]}
    if work in ("kernels,graphs", "all") and summary["graph_mode"] == "Graph":
        want.update({g["name"]: (g["total_ns"], g["launches"]) for g in summary["per_graph"]})
    if work == "all":
        want.update({m["name"]: (m["total_ns"], m["instances"]) for m in summary["per_memory"]})
    return want


def expand(cases):
    """Fill in NAME+shuffle cases from the case before them."""
    out, prev = [], None
    for case in cases:
        if case[1] is None:
            case = (case[0], prev[1] + ["--shuffle", "5"]) + tuple(prev[2:])
            out.append(case + (prev[0],))
        else:
            out.append(case + (None,))
            prev = case
    return out


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def report(self, ok, what, want=None, got=None):
        if ok:
            self.passed += 1
            print("ok - %s" % what)
        elif want is None and got is None:
            self.failed += 1
            print("not ok - %s" % what)
        else:
            self.failed += 1
            print("not ok - %s\n    want %s\n    got  %s" % (what, str(want)[:2000], str(got)[:2000]))


def generate(gen, tmp, name, gargs):
    path = os.path.join(tmp, name.replace("+", "-") + ".sqlite")
    g = run([gen, "-o", path, "--summary"] + gargs)
    if g.returncode != 0:
        raise RuntimeError("generator failed: %s" % g.stderr.strip())
    return path, json.loads(g.stdout)


def epoch_cases(gate, gen, tmp, tally):
    seen = {}
    for name, gargs, args, metrics, twin in expand(CASES):
        try:
            path, summary = generate(gen, tmp, name, gargs)
        except RuntimeError as e:
            tally.report(False, "%s: %s" % (name, e))
            continue
        skip = int(args[args.index("--skip-epochs") + 1]) if "--skip-epochs" in args else 0
        expected = summary["epochs"][skip:]
        work = work_of(args)
        for metric in metrics:
            want = [(e["name"], e["work"][work][KEYS[metric]]) for e in expected]
            try:
                got = gate_epochs(gate, path, args + ["--metric", metric])
            except RuntimeError as e:
                got = str(e)
            seen[(name, metric)] = got
            # with a capture group (auto), ranks of one epoch add up under
            # the first range's text; repeated texts are told apart by their
            # order only: compare values, and names when they are plain
            ok = isinstance(got, list) and [v for _, v in got] == [v for _, v in want]
            if ok and "--ranks" not in gargs and "--epoch-text" not in gargs:
                ok = [n for n, _ in got] == [n for n, _ in want]
            tally.report(ok, "%s %s (--work %s): %d epochs" % (name, metric, work, len(want)),
                         want, got)
            if twin:
                tally.report(got == seen.get((twin, metric)),
                             "%s %s: what the ordered file gave" % (name, metric),
                             seen.get((twin, metric)), got)


def total_cases(gate, gen, tmp, tally):
    seen = {}
    for name, gargs, args, twin in expand(TOTAL_CASES):
        try:
            path, summary = generate(gen, tmp, name, gargs)
            got = gate_rows(gate, path, args)
        except RuntimeError as e:
            tally.report(False, "%s: %s" % (name, e))
            continue
        work = work_of(args)
        want = expected_rows(summary, work)
        seen[name] = got
        tally.report(got == want, "%s (--work %s): %d rows" % (name, work, len(want)), want, got)
        if twin:
            tally.report(got == seen.get(twin), "%s: what the ordered file gave" % name,
                         seen.get(twin), got)


def main():
    gate, gen = os.environ["GATE"], os.environ["GENTRACE"]
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="ng-nvtx.") as tmp:
        epoch_cases(gate, gen, tmp, tally)
        total_cases(gate, gen, tmp, tally)
    print("%d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
