#!/usr/bin/env python3
"""The 1,000-rank gate (suite `scale`): a job of 1,000 ranks a side, one
SQLite profile per rank (gentrace --rank-base), each summarised on its own
by `xargs -P` (docs/summaries.md, recipe "one machine"), two slow GPUs on
the current side (ranks 17 and 603).

Checks, each against what the files alone say:
- gate(1,000 rank summaries a side, --ranks) names both slow GPUs, with
  their processes, as the stragglers, and nothing else;
- it is the verdict of one `gentrace --ranks 1000` file a side, field for
  field, but for the names of the inputs;
- `summarize --ranks` of the 1,000 current summaries is the same bytes at
  -j 1 and -j 4, and gating the two job summaries is the verdict again;
- a rank given twice is refused;
- memory is bounded: the gate's peak RSS on 1,000 ranks a side (-j 2) stays
  within 3x of its peak RSS on 10 ranks a side.
It prints the figures (time and peak RSS) that docs/ranks.md quotes; no
time is asserted.

Environment: GATE, GENTRACE.  Inputs are generated in a temporary
directory (about 30 s on two cores: the generator writes 2,002 files, the
summaries are 2,000 processes), not cached: the test stays self-contained.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

RANKS = 1000
SLOW = (17, 603)
GEN = ["--kernels", "48", "--epochs", "12", "--warmup", "1", "--jitter", "0.05"]
READ = ["--epoch-range", "auto", "--skip-epochs", "1", "--metric", "gpu-busy"]
GATE = os.environ["GATE"]
GENTRACE = os.environ["GENTRACE"]
ENV = dict(os.environ, SOURCE_DATE_EPOCH="1700000000", TZ="UTC", LC_ALL="C")
for k in list(ENV):
    if k.startswith(("NSYS_GATE_", "GITHUB_")) or k in ("GITLAB_CI", "JENKINS_URL", "CI"):
        del ENV[k]


def run(args, want=0, **kw):
    p = subprocess.run(args, env=ENV, capture_output=True, text=True, **kw)
    if p.returncode != want:
        sys.exit(f"FAIL: {' '.join(args[:6])}... exited {p.returncode}, not {want}:\n{p.stderr}")
    return p


def measured(args):
    """Runs the gate alone in a child and returns (seconds, peak RSS in MB)."""
    code = ("import resource,subprocess,sys,time\n"
            "t=time.monotonic(); r=subprocess.run(sys.argv[1:]).returncode\n"
            "print(time.monotonic()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(r)\n")
    p = subprocess.run([sys.executable, "-c", code] + args, env=ENV, capture_output=True,
                       text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"FAIL: {' '.join(args[:6])}... exited {p.returncode}")
    secs, kb = p.stdout.split()[-2:]
    return float(secs), int(kb) / 1024


def side(d, name, seed, slow):
    os.makedirs(d)
    cmds = []
    for r in range(RANKS):
        extra = ["--slow-device", f"{r}:1.5"] if r in slow else []
        cmds.append(" ".join([GENTRACE, "-o", f"{d}/rank{r:04d}.sqlite", "--rank-base", str(r),
                              "--seed", str(seed)] + GEN + extra))
    # the generator, many at once
    run(["xargs", "-P", str(os.cpu_count() or 2), "-I{}", "sh", "-c", "{} >/dev/null"],
        input="\n".join(cmds) + "\n")
    whole = [GENTRACE, "-o", f"{name}", "--ranks", str(RANKS), "--seed", str(seed)]
    whole += ["--kernels", str(48 * RANKS)] + GEN[2:]
    for r in slow:
        whole += ["--slow-device", f"{r}:1.5"]
    run(whole)


def summarise(d):
    """Recipe (c): every rank summarised on its own, xargs -P on one machine."""
    files = sorted(f"{d}/{f}" for f in os.listdir(d) if f.endswith(".sqlite"))
    run(["xargs", "-P", str(os.cpu_count() or 2), "-I{}", GATE, "summarize", "--quiet"] + READ
        + ["-o", "{}.summary.json.gz", "{}"], input="\n".join(files) + "\n")


def normalised(path):
    """The verdict without what names the inputs: paths, and the file a
    summary was made from (runs[].summary_of)."""
    def drop(x):
        if isinstance(x, dict):
            return {k: "P" if k == "path" else drop(v) for k, v in x.items() if k != "summary_of"}
        if isinstance(x, list):
            return [drop(v) for v in x]
        return x
    return drop(json.load(open(path)))


def main():
    work = tempfile.mkdtemp(prefix="ng-scale.")
    try:
        os.chdir(work)
        t0 = time.monotonic()
        side("b", "b-all.sqlite", 3, ())
        side("c", "c-all.sqlite", 4, SLOW)
        t1 = time.monotonic()
        summarise("b")
        summarise("c")
        t2 = time.monotonic()
        print(f"generated 2,002 profiles in {t1 - t0:.1f} s, summarised 2,000 in {t2 - t1:.1f} s")

        gate = [GATE, "--ranks", "-j", "2"] + READ
        secs, rss = measured(gate + ["--json", "v.json", "--baseline", "b/*.summary.json.gz",
                                     "--current", "c/*.summary.json.gz"])
        v = json.load(open("v.json"))
        named = v["current"]["stragglers"]
        got = (sorted(s["device"] for s in named if s["device"] is not None),
               sorted(s["process"] for s in named if s["device"] is None),
               sorted(s["process"] for s in named if s["device"] is not None))
        pids = [4000 + 16 * r for r in SLOW]   # gentrace: pid = 4000 + 16 * rank
        # one process a GPU: the processes are not checked apart from their GPUs
        # (ng_straggler.h), and each slow GPU names its process
        want = (list(SLOW), [], pids)
        if got != want or v["baseline"].get("stragglers"):
            sys.exit(f"FAIL: stragglers {got} (baseline {v['baseline'].get('stragglers')}), "
                     f"want {want}")
        print(f"1,000 rank summaries a side (-j 2): {secs:.2f} s, peak RSS {rss:.1f} MB; "
              f"stragglers: devices {SLOW[0]} and {SLOW[1]} and their processes")

        run([GATE] + READ + ["--json", "one.json", "b-all.sqlite", "c-all.sqlite"], want=0)
        if normalised("one.json") != normalised("v.json"):
            sys.exit("FAIL: gate(1,000 rank summaries, --ranks) differs from gate(one file of "
                     "1,000 ranks)")
        print("the same verdict as one file of 1,000 ranks a side")

        for j in ("1", "4"):
            run([GATE, "summarize", "--quiet", "--ranks", "-j", j] + READ
                + ["-o", f"c-job-{j}.json.gz", "c/*.summary.json.gz"])
        if open("c-job-1.json.gz", "rb").read() != open("c-job-4.json.gz", "rb").read():
            sys.exit("FAIL: summarize --ranks -j 1 and -j 4 differ")
        run([GATE, "summarize", "--quiet", "--ranks"] + READ
            + ["-o", "b-job.json.gz", "b/*.summary.json.gz"])
        run([GATE] + READ + ["--json", "job.json", "b-job.json.gz", "c-job-1.json.gz"])
        if normalised("job.json") != normalised("v.json"):
            sys.exit("FAIL: gate(job summaries) differs from gate(1,000 + 1,000 summaries)")
        print("summarize --ranks: the same bytes at -j 1 and -j 4, and the same verdict")

        p = run(gate + ["--baseline", "b/*.summary.json.gz", "--current", "c/*.summary.json.gz",
                        "--current", "c/rank0017.sqlite.summary.json.gz"], want=2)
        if "is given twice as a rank" not in p.stderr:
            sys.exit(f"FAIL: a rank given twice: {p.stderr}")

        for s in ("b", "c"):
            os.makedirs(f"{s}10")
            for r in range(10):
                shutil.copy(f"{s}/rank{r:04d}.sqlite.summary.json.gz", f"{s}10/")
        secs10, rss10 = measured(gate + ["--baseline", "b10/*.summary.json.gz",
                                         "--current", "c10/*.summary.json.gz"])
        print(f"10 rank summaries a side (-j 2): {secs10:.2f} s, peak RSS {rss10:.1f} MB; "
              f"1,000 against 10: {rss / rss10:.2f}x the memory")
        if rss > 3 * rss10:
            sys.exit(f"FAIL: memory not bounded: {rss:.1f} MB for 1,000 ranks, "
                     f"{rss10:.1f} MB for 10")
        print("PASS")
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
