#!/usr/bin/env python3
"""NVTX mode against the generator's own arithmetic.

For a table of generated traces (several ranks and threads, kernels launched
outside any epoch, nested and registered-string ranges, warm-up epochs, GPU
idle gaps), the generator prints what every epoch must measure, computed
while it writes the file (tests/tools/gentrace.c --summary), independently
of how the gate reads it back.  The gate's per-epoch values from
`--print-profile --epoch-range` must equal them to the nanosecond, for both
metrics, in order, after --skip-epochs.

Environment: GATE, GENTRACE.  Prints `ok`/`not ok` lines and `N passed, M failed`.
"""
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    # (name, generator args, gate args)
    ("plain", ["--kernels", "600", "--names", "4", "--epochs", "6"], ["--epoch-range", "auto"]),
    ("jitter", ["--kernels", "900", "--names", "5", "--epochs", "9", "--jitter", "0.2", "--seed", "5"],
     ["--epoch-range", "auto"]),
    ("ranks-threads-outside", ["--kernels", "2000", "--names", "6", "--epochs", "5", "--ranks", "3",
                               "--threads", "3", "--outside", "100", "--jitter", "0.1"],
     ["--epoch-range", "auto"]),
    ("nested-registered", ["--kernels", "1200", "--names", "4", "--epochs", "4", "--nested",
                           "--registered"], ["--epoch-range", "auto"]),
    ("warmup-skip", ["--kernels", "1400", "--names", "4", "--epochs", "5", "--warmup", "2",
                     "--warmup-scale", "4"], ["--epoch-range", "auto", "--skip-epochs", "2"]),
    ("custom-format", ["--kernels", "500", "--names", "3", "--epochs", "5", "--epoch-format",
                       "Epoch %d/5", "--epoch-base", "1"], ["--epoch-range", "^Epoch [0-9]+/5$"]),
    ("rank-suffix", ["--kernels", "800", "--names", "4", "--epochs", "4", "--ranks", "2",
                     "--epoch-format", "EPOCH: %d"], ["--epoch-range", "auto"]),
    ("driver-api", ["--kernels", "400", "--names", "3", "--epochs", "4", "--driver-api"],
     ["--epoch-range", "auto"]),
    # more epoch ranges than the compact launch map numbers (65534): the rest go elsewhere
    ("many-epochs", ["--kernels", "140000", "--names", "2", "--epochs", "70000"],
     ["--epoch-range", "auto"]),
    ("span-idle", ["--kernels", "1000", "--names", "4", "--epochs", "5", "--sync-every", "7",
                   "--ranks", "2"], ["--epoch-range", "auto"]),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def gate_epochs(gate, path, args):
    """epoch name -> ns, in the gate's order, from --print-profile."""
    r = run([gate, "--print-profile"] + args + [path])
    if r.returncode != 0:
        raise RuntimeError("gate exit %d: %s" % (r.returncode, r.stderr.strip()))
    rows, inside = [], False
    for line in r.stdout.splitlines():
        if line in ("epoch_ns\tkernels\tepoch", "epoch_ns\tlaunches\tepoch"):
            inside = True
            continue
        if line.startswith("total_ns\t"):
            break
        if inside:
            ns, _kernels, name = line.split("\t", 2)
            rows.append((name, int(ns)))
    return rows


def main():
    gate, gen = os.environ["GATE"], os.environ["GENTRACE"]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="ng-nvtx.") as tmp:
        for name, gargs, args in CASES:
            path = os.path.join(tmp, name + ".sqlite")
            g = run([gen, "-o", path, "--summary"] + gargs)
            if g.returncode != 0:
                print("not ok - %s: generator failed: %s" % (name, g.stderr.strip()))
                failed += 1
                continue
            summary = json.loads(g.stdout)
            skip = int(args[args.index("--skip-epochs") + 1]) if "--skip-epochs" in args else 0
            expected = [e for e in summary["epochs"]][skip:]
            for metric, key in (("kernel-sum", "kernel_sum_ns"), ("gpu-span", "gpu_span_ns")):
                want = [(e["name"], e[key]) for e in expected]
                try:
                    got = gate_epochs(gate, path, args + ["--metric", metric])
                except RuntimeError as e:
                    got = str(e)
                # with a capture group (auto), ranks of one epoch add up under
                # the first range's text: compare values, and names when plain
                ok = isinstance(got, list) and [v for _, v in got] == [v for _, v in want]
                if ok and "--ranks" not in gargs:
                    ok = [n for n, _ in got] == [n for n, _ in want]
                if ok:
                    passed += 1
                    print("ok - %s %s: %d epochs" % (name, metric, len(got)))
                else:
                    failed += 1
                    print("not ok - %s %s\n    want %s\n    got  %s" % (name, metric, want, got))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
