#!/usr/bin/python3
"""Summaries give the profiles' verdict: for every sample in SHARED_DIR.

usage: summaries.py --gate PATH --srcdir PROJECT_ROOT --shared SHARED_DIR

For pairs of real samples (nsys SQLite exports of 2020.3 to 2026.2, .nsys-rep reports when
ci/fetch-nsys.sh gives an nsys, saved nsys stats text, torch.profiler traces with the
rank-0/rank-1 pair), in total mode and NVTX mode (the pattern `nsys-gate ranges` suggests
for the baseline), with --work all, --metric gpu-busy, the breakdown (--verbose) and the
per-kernel gates (--kernel-threshold), each side is summarized (`nsys-gate summarize`) and
the gate is run on the profiles, on the summaries, and on one of each. Every output must
be the same after the one normalisation docs/summaries.md names (the paths that name the
inputs; the export cache's notes): the JSON verdict, JUnit, the history line, OpenMetrics,
the GitHub step summary and output file, the HTML page, the human lines on stdout and
stderr, and the exit status. Also: --print-profile on a summary prints the profile's rows,
`nsys-gate ranges` (text and --json) lists what it lists of the profile,
a summary of a summary is the same bytes, and every summary validates against
schemas/summary.schema.json (when jsonschema is there).

Where summarize refuses a profile (a metric the file cannot measure), the gate on the
profile must refuse it with the same message.

Output: `ok - ...` / `not ok - ...` lines, then `N passed, M failed`. Exit 0, 1, or 77 when
the samples are not there (a failure under CI=true unless NSYS_GATE_CONFORMANCE=optional).
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXIT_SKIP = 77
TIMEOUT = 300

# (label, baseline, current) under SHARED_DIR; a sample named twice is gated against itself
PAIRS = [
    ("2020.3", "nsys-samples/01_*.sqlite", "nsys-samples/02_*.sqlite"),
    ("2023.2", "nsys-samples/04_*.sqlite", "nsys-samples/04_*.sqlite"),
    ("2023.4 export", "nsys-samples/05_*.sqlite", "nsys-samples/05b_*.sqlite"),
    ("2023.4 nvfuser", "nsys-samples/06_*.sqlite", "nsys-samples/06_*.sqlite"),
    ("2025.5", "nsys-samples/08_*.sqlite", "nsys-samples/08_*.sqlite"),
    ("2026.2 2-GPU", "nsys-samples/07_*.sqlite", "nsys-samples/07b_*.sqlite"),
    ("2026.2 h100", "nsys-samples/extra/nsysai_h100_*.sqlite",
     "nsys-samples/extra/nsysai_h100_*.sqlite"),
    ("stats text", "nsys-samples/03_*.csv", "nsys-samples/03b_*.csv"),
    ("kineto ranks", "kineto-samples/trace_filter_sampled_rank-0.json.gz",
     "kineto-samples/trace_filter_sampled_rank-1.json.gz"),
    ("kineto alexnet", "kineto-samples/critical_path_alexnet_*.json.gz",
     "kineto-samples/critical_path_alexnet_*.json.gz"),
    ("kineto cupti", "kineto-samples/cupti_profiler_*.json.gz",
     "kineto-samples/cupti_profiler_*.json.gz"),
]
REP_PAIR = ("nsys-rep", "nsys-samples/05_*.nsys-rep", "nsys-samples/05b_*.nsys-rep")
# generated beside them (--gentrace): NVTX epochs with nested ranges, 2 ranks of 2 GPUs,
# communication, memory, graphs, a straggler and a slower kernel, in SQLite and Kineto
GENERATED = ["--epochs", "6", "--warmup", "1", "--kernels", "3000", "--names", "12", "--ranks",
             "2", "--devices-per-rank", "2", "--nested", "--comm-share", "0.2", "--overlap",
             "0.5", "--memory-share", "0.1", "--graph-share", "0.1", "--graph-mode", "node",
             "--jitter", "0.05"]
GENERATED_CURRENT = ["--slow", "1:1.4", "--slow-device", "3:1.3", "--seed", "7"]

# reading options (summarize takes them) and gate-only options, per variant
VARIANTS = [
    ("total", [], []),
    ("total --work all", ["--work", "all"], ["--verbose"]),
    ("total --metric gpu-busy", ["--metric", "gpu-busy"], ["--verbose"]),
    ("nvtx", ["--epoch-range", "{auto}"], ["--verbose"]),
    ("nvtx --kernel-threshold", ["--epoch-range", "{auto}"], ["--kernel-threshold", "1.05"]),
    ("nvtx --metric gpu-busy --work all", ["--epoch-range", "{auto}", "--metric", "gpu-busy",
                                          "--work", "all"], []),
]

passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("not ok - %s: %s" % (what, detail[:2000]))


def run(args, env, cwd):
    return subprocess.run(args, capture_output=True, env=env, cwd=cwd, timeout=TIMEOUT)


def one(pattern, shared):
    hits = sorted(glob.glob(os.path.join(shared, pattern)))
    return hits[0] if hits else None


def suggested(gate, path, env, cwd):
    """The epoch range `nsys-gate ranges` suggests for path, or None."""
    r = run([gate, "ranges", "--json", "r.json", path], env, cwd)
    if r.returncode != 0:
        return None
    with open(os.path.join(cwd, "r.json")) as f:
        prof = json.load(f)["profiles"][0]
    return prof.get("suggested_epoch_range")


OUTPUTS = ["v.json", "v.xml", "h.jsonl", "m.prom", "p.html", "summary.md", "github_output"]


def gate_run(gate, env, cwd, opts, base, cur):
    """Every output of one gate run, as bytes, with the exit status."""
    for f in OUTPUTS:
        if os.path.exists(os.path.join(cwd, f)):
            os.unlink(os.path.join(cwd, f))
    e = dict(env, GITHUB_STEP_SUMMARY="summary.md", GITHUB_OUTPUT="github_output")
    r = run([gate, "--github", "--json", "v.json", "--junit", "v.xml", "--history", "h.jsonl",
             "--metrics", "m.prom", "--html", "p.html"] + opts + [base, cur], e, cwd)
    out = {"exit": str(r.returncode).encode(), "stdout": r.stdout, "stderr": r.stderr}
    for f in OUTPUTS:
        p = os.path.join(cwd, f)
        out[f] = open(p, "rb").read() if os.path.exists(p) else b"(none)"
    return out


# the runs read from a summary name the profile it was made from (docs/summaries.md)
SUMMARY_OF = re.compile(rb',\s*"summary_of":\s*\{[^{}]*\}')
RUN_TO_RUN = [(SUMMARY_OF, b""),
              (re.compile(rb'hostname="[^"]*"'), b'hostname="HOST"'),
              (re.compile(rb'time="[0-9]+\.[0-9]{3}"'), b'time="0.000"'),
              (re.compile(rb'nsys-gate\.[A-Za-z0-9]{6}'), b"nsys-gate.XXXXXX"),
              (re.compile(rb"^(\[[0-9]+/[0-9]+\] |nsys-gate: ([^ ]+: )?(exporting|exported|export of) ).*\n",
                          re.M), b"")]


def markdown(name):
    """A name as the step summary escapes it."""
    return re.sub(r"([-.\\_*`])", r"\\\1", name)


def normalise(out, names):
    """The summaries' paths as the profiles' (the fields that name the inputs), and what
    differs from run to run as the golden cases have it (run-case.sh)."""
    norm = {}
    for k, v in out.items():
        for summary, profile in names:
            for a, b in ((summary, profile), (markdown(summary), markdown(profile))):
                v = v.replace(a.encode(), b.encode())
        for pattern, repl in RUN_TO_RUN:
            v = pattern.sub(repl, v)
        norm[k] = b"\n".join(line for line in v.split(b"\n")
                             if b"the export cache" not in line and b"cache not used" not in line)
    return norm


def first_diff(a, b):
    for k in a:
        if a[k] != b.get(k):
            la, lb = a[k].split(b"\n"), b[k].split(b"\n")
            for i, (x, y) in enumerate(zip(la, lb)):
                if x != y:
                    return "%s line %d: %r != %r" % (k, i + 1, x[:300], y[:300])
            return "%s: %d lines != %d lines" % (k, len(la), len(lb))
    return ""


def read(d, name):
    p = os.path.join(d, name)
    return open(p, "rb").read() if os.path.exists(p) else b"(none)"


def validate(srcdir, path):
    try:
        import jsonschema
    except ImportError:
        return ""
    with open(os.path.join(srcdir, "schemas", "summary.schema.json")) as f:
        schema = json.load(f)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    return "; ".join(errors[:3])


def check_pair(gate, srcdir, env, work, label, base, cur):
    d = tempfile.mkdtemp(dir=work)
    b = "b" + ext(base)
    c = "c" + ext(cur)
    shutil.copy(base, os.path.join(d, b))
    shutil.copy(cur, os.path.join(d, c))
    auto = suggested(gate, b, env, d) or "auto"
    for vlabel, reading, gate_only in VARIANTS:
        if "{auto}" in reading and not auto:
            continue
        reading = [auto if a == "{auto}" else a for a in reading]
        what = "%s, %s" % (label, vlabel)
        sums = []
        refused = False
        for side, prof, gz in (("b", b, ".summary.json.gz"), ("c", c, ".summary.json")):
            s = side + gz
            r = run([gate, "summarize", "--quiet", "-o", s] + reading + [prof], env, d)
            if r.returncode != 0:
                # the gate on the profile says the same
                g = run([gate] + reading + [prof, prof], env, d)
                err = r.stderr.strip().split(b"\n")[-1]
                report(g.returncode == 2 and err in g.stderr,
                       what + ": summarize refuses '%s' as the gate does" % prof,
                       "%r vs %r" % (r.stderr, g.stderr))
                refused = True
                break
            problem = validate(srcdir, os.path.join(d, s))
            report(not problem, what + ": %s validates" % s, problem)
            again = run([gate, "summarize", "--quiet", "-o", "-"] + reading + [s], env, d)
            plain = open(os.path.join(d, s), "rb").read()
            if gz.endswith(".gz"):
                plain = gzip.decompress(plain)
            report(again.returncode == 0 and again.stdout == plain,
                   what + ": summarize(%s) is the same bytes" % s, again.stderr.decode())
            sums.append((s, prof))
        if refused:
            continue
        (sb, _), (sc, _) = sums
        names = [(sb, b), (sc, c)]
        opts = reading + gate_only
        want = normalise(gate_run(gate, env, d, opts, b, c), names)
        for blabel, bb, cc in (("summaries", sb, sc), ("summary+profile", sb, c),
                               ("profile+summary", b, sc)):
            got = normalise(gate_run(gate, env, d, opts, bb, cc), names)
            diff = first_diff(want, got)
            report(not diff, what + ": gate(%s) == gate(profiles) (exit %s)"
                   % (blabel, want["exit"].decode()), diff)
        if vlabel == "total":
            rp = run([gate, "ranges", "--json", "rp.json", b], env, d)
            run([gate, "summarize", "--quiet", "--range-groups", "-o", "g.summary.json", b],
                env, d)
            names.append(("g.summary.json", b))
            rs = run([gate, "ranges", "--json", "rs.json", "g.summary.json"], env, d)
            want_r = {"exit": str(rp.returncode).encode(), "stdout": rp.stdout,
                      "stderr": rp.stderr, "json": read(d, "rp.json")}
            got_r = {"exit": str(rs.returncode).encode(), "stdout": rs.stdout,
                     "stderr": rs.stderr, "json": read(d, "rs.json")}
            want_r, got_r = normalise(want_r, names), normalise(got_r, names)
            report(want_r == got_r, label + ": ranges (text and --json) of the summary",
                   first_diff(want_r, got_r))
        pp = normalise({"o": run([gate, "--print-profile"] + reading + [b, c], env, d).stdout},
                       names)
        ps = normalise({"o": run([gate, "--print-profile"] + reading + [sb, sc], env, d).stdout},
                       names)
        report(pp == ps, what + ": --print-profile of the summaries", first_diff(pp, ps))


def ext(path):
    for e in (".json.gz", ".nsys-rep", ".sqlite", ".csv", ".json"):
        if path.endswith(e):
            return e
    return ""


def fetch_nsys(srcdir):
    r = subprocess.run(["bash", os.path.join(srcdir, "ci", "fetch-nsys.sh"), "2023.4"],
                       capture_output=True, text=True, timeout=900)
    path = r.stdout.strip()
    return path if r.returncode == 0 and path and os.access(path, os.X_OK) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gate", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--gentrace", help="tests/tools/gentrace: generated pairs too")
    args = ap.parse_args()
    in_ci = (os.environ.get("CI", "").lower() == "true"
             and os.environ.get("NSYS_GATE_CONFORMANCE", "") != "optional")
    gate, shared = os.path.abspath(args.gate), os.path.abspath(args.shared)
    if not os.path.isdir(os.path.join(shared, "nsys-samples")):
        print("SKIP: no samples in %s" % shared)
        sys.exit(1 if in_ci else EXIT_SKIP)
    work = tempfile.mkdtemp(prefix="ng-summaries.")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NSYS_GATE_", "GITHUB_", "GITLAB_", "JENKINS_"))}
    env.update(SOURCE_DATE_EPOCH="1700000000", TZ="UTC", LC_ALL="C",
               XDG_CACHE_HOME=os.path.join(work, "cache"))
    os.mkdir(os.path.join(work, "cache"))
    pairs = list(PAIRS)
    nsys = fetch_nsys(os.path.abspath(args.srcdir))
    if nsys:
        env["NSYS_GATE_NSYS"] = nsys
        pairs.append(REP_PAIR)
    else:
        print("# no nsys (ci/fetch-nsys.sh): the .nsys-rep pair is left out")
    if args.gentrace:
        gen = os.path.join(work, "gen")
        os.mkdir(gen)
        for fmt, e in (("sqlite", ".sqlite"), ("kineto", ".json.gz")):
            # a Kineto trace is one process
            more = ["--format", "kineto", "--ranks", "1", "--graph-share", "0"] \
                if fmt == "kineto" else []
            for side, extra in (("b", []), ("c", GENERATED_CURRENT)):
                subprocess.run([args.gentrace, "-o", os.path.join(gen, side + e)] + GENERATED
                               + more + extra, check=True, capture_output=True)
            pairs.append(("generated " + fmt, os.path.join(gen, "b" + e),
                          os.path.join(gen, "c" + e)))
    try:
        for label, bp, cp in pairs:
            base, cur = one(bp, shared), one(cp, shared)
            if not base or not cur:
                report(False, label + ": sample present", "%s or %s not found" % (bp, cp))
                continue
            check_pair(gate, os.path.abspath(args.srcdir), env, work, label, base, cur)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
