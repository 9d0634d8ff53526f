#!/usr/bin/env python3
"""The decision on the sample shapes real jobs make, against figures this
test computes on its own.

Each case generates a baseline and a current export (tests/tools/gentrace,
whose --summary prints every epoch's kernel time as it writes the file), runs
the gate with --json, and checks the verdict and exit status the case needs.
Then, from the generator's epochs (never from the gate), it computes what
docs/statistics.md says decides: the ratio of the means, the baseline's
clusters (sorted epochs split where neighbours are more than 2x apart, a
cluster under max(2, n/20) epochs joined to its nearer neighbour), each
side's variance of its mean taken within those clusters, the one-sided Welch
t test of the log ratio (Welch-Satterthwaite degrees of freedom, scipy's t
distribution) and its 95% interval; the gate's JSON must agree.

Section 1 of the trust issue: 32 epochs a side alternating 0.3 ms and 15.7 ms
(0.2% noise): nothing moved -> PASS; the 15.7 ms epochs 1.5x -> FAIL; only the
0.3 ms epochs 2x -> PASS at a ratio of at most 1.05.  Section 2: 200 unchanged
kernels (3% noise, 20 epochs) under --kernel-threshold 1.02 and no floor ->
no item fails, exit 0; one of them 1.5x -> exactly that item fails, exit 1;
every item's p_adjusted is Holm's over the 200, computed here from the
gate's own per-item p-values.

Environment: GATE, GENTRACE.  Prints ok/not ok lines, then `N passed, M failed`.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from scipy import stats

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - %s" % what)
    else:
        failed += 1
        print("not ok - %s%s" % (what, "\n    " + detail if detail else ""))


def generate(tmp, name, args):
    path = os.path.join(tmp, name + ".sqlite")
    g = subprocess.run([os.environ["GENTRACE"], "-o", path, "--force", "--summary"] + args,
                       capture_output=True, text=True)
    if g.returncode != 0:
        raise RuntimeError(g.stderr)
    return path, [e["kernel_sum_ns"] / 1e6 for e in json.loads(g.stdout)["epochs"]]


def gate(tmp, *args):
    out = os.path.join(tmp, "v.json")
    p = subprocess.run([os.environ["GATE"], "--json", out] + list(args), capture_output=True,
                       text=True)
    with open(out) as f:
        return p.returncode, json.load(f), p.stdout + p.stderr


def clusters(x):
    """Index ranges of the sorted samples, as documented."""
    s = sorted(x)
    n = len(s)
    cuts = sorted(i + 1 for i in range(n - 1) if s[i] > 0 and s[i + 1] / s[i] > 2.0)[:7]
    starts = [0] + cuts
    least = max(2, n // 20)
    gap = lambda i: math.log(s[i + 1] / s[i]) if s[i] > 0 else 0
    while len(starts) > 1:
        sizes = [(starts[c + 1] if c + 1 < len(starts) else n) - starts[c]
                 for c in range(len(starts))]
        worst = min(range(len(starts)), key=lambda c: (sizes[c], c))
        if sizes[worst] >= least:
            break
        if worst == 0:
            drop = 1
        elif worst == len(starts) - 1:
            drop = worst
        else:
            drop = worst if gap(starts[worst] - 1) <= gap(starts[worst + 1] - 1) else worst + 1
        del starts[drop]
    return [(s[a], s[(starts[i + 1] if i + 1 < len(starts) else n) - 1])
            for i, a in enumerate(starts)]


def stratum(v, cl):
    def dist(c):
        lo, hi = c
        return 0 if lo <= v <= hi else math.log(lo / v) if v < lo else math.log(v / hi)
    return min(range(len(cl)), key=lambda i: (dist(cl[i]), i))


def reference(x, y):
    """ratio, p, (lo, hi), strata: the documented method, written out."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    cl = clusters(x)
    groups = None
    for k in (len(cl), 1):
        sx = [[] for _ in range(k)]
        sy = [[] for _ in range(k)]
        for v in x:
            sx[stratum(v, cl) if k > 1 else 0].append(v)
        for v in y:
            sy[stratum(v, cl) if k > 1 else 0].append(v)
        if all(len(a) >= 2 for a in sx + sy):
            groups = (sx, sy)
            break
    parts = []
    for side, mean, n in ((groups[0], mx, len(x)), (groups[1], my, len(y))):
        for g in side:
            w = len(g) / n
            var = stats.tvar(g) if len(set(g)) > 1 else 0.0
            parts.append((w * w * var / len(g) / (mean * mean), len(g) - 1))
    se2 = sum(p for p, _ in parts)
    den = sum(p * p / d for p, d in parts)
    df = se2 * se2 / den if den > 0 else math.inf
    ratio = my / mx
    se = math.sqrt(se2)
    p = stats.t.sf(math.log(ratio) / se, df)
    q = stats.t.ppf(0.975, df)
    return ratio, p, (ratio * math.exp(-q * se), ratio * math.exp(q * se)), len(groups[0])


def near(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def agrees(name, v, x, y):
    ratio, p, ci, strata = reference(x, y)
    check(near(v["ratio"], ratio, 1e-9), "%s: the ratio of means %.6f" % (name, ratio),
          "gate %r" % v["ratio"])
    check(v["p_value"] is not None and (near(v["p_value"], p, 1e-6) or abs(v["p_value"] - p) < 1e-12),
          "%s: p %.4g, Welch t on the log ratio" % (name, p), "gate %r" % v["p_value"])
    got = v.get("ratio_ci") or [math.nan, math.nan]
    check(near(got[0], ci[0], 1e-6) and near(got[1], ci[1], 1e-6),
          "%s: 95%% interval %.6f .. %.6f" % (name, ci[0], ci[1]), "gate %r" % got)
    want_method = "within clusters" in (v.get("ratio_ci_method") or "")
    check(want_method == (strata > 1), "%s: %d strata, as the method says" % (name, strata),
          v.get("ratio_ci_method"))


def mixtures(tmp):
    # 0.3 ms and 15.7 ms epochs in turn: gentrace's one kernel lasts about
    # 1.034 ms an epoch at scale 1, so scale 15.18 and factors 0.0191, 1
    base = ["--kernels", "640", "--names", "1", "--epochs", "32", "--scale", "15.18",
            "--jitter", "0.002"]
    b, x = generate(tmp, "mix-base", base + ["--epoch-scales", "0.0191,1", "--seed", "1"])
    cases = [
        ("nothing moved", "0.0191,1", "pass", 0, lambda r: r <= 1.005),
        ("the 15.7 ms epochs 1.5x", "0.0191,1.5", "fail", 1, lambda r: r > 1.4),
        ("only the 0.3 ms epochs 2x", "0.0382,1", "pass", 0, lambda r: r <= 1.05),
    ]
    for name, scales, want, code, ratio_ok in cases:
        c, y = generate(tmp, "mix-" + scales.replace(",", "_"),
                        base + ["--epoch-scales", scales, "--seed", "2"])
        rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
        check(v["verdict"] == want and rc == code,
              "32 alternating epochs, %s: %s, exit %d" % (name, want.upper(), code),
              "got %s exit %d: %s" % (v["verdict"], rc, out[:400]))
        check(ratio_ok(v["ratio"]), "%s: ratio %.4f" % (name, v["ratio"]))
        shown = [(c["epochs"], round(c["median_ms"], 1)) for c in v["baseline"]["clusters"]]
        check(shown == [(16, 0.3), (16, 15.7)], "%s: the baseline's clusters %s" % (name, shown))
        check("16 epochs near 0.30 ms, 16 near 15.70 ms" in out,
              "%s: the warning names the clusters" % name, out[:600])
        agrees(name, v, x, y)
    # one kind of epoch, plain noise: one stratum, the same method
    b, x = generate(tmp, "plain-b", ["--kernels", "400", "--names", "4", "--epochs", "10",
                                     "--jitter", "0.2", "--seed", "5"])
    c, y = generate(tmp, "plain-c", ["--kernels", "400", "--names", "4", "--epochs", "10",
                                     "--jitter", "0.2", "--seed", "6", "--scale", "1.1"])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    check(v["baseline"]["clusters"] is not None and len(v["baseline"]["clusters"]) == 1,
          "plain noise: one cluster")
    agrees("plain noise", v, x, y)


def holm(ps, m):
    order = sorted(range(len(ps)), key=lambda i: (ps[i], i))
    out, running = [0.0] * len(ps), 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * ps[i]))
        out[i] = running
    return out


def kernel_gates(tmp):
    # uniform noise of +-5.2%: a standard deviation of 3% an epoch
    args = ["--kernels", "4000", "--names", "200", "--epochs", "20", "--jitter", "0.052"]
    b, _ = generate(tmp, "k200-b", args + ["--seed", "1"])
    c, _ = generate(tmp, "k200-c", args + ["--seed", "3"])
    s, _ = generate(tmp, "k200-s", args + ["--seed", "3", "--slow", "7:1.5"])
    gates = ["--epoch-range", "^epoch", "--kernel-threshold", "1.02", "--kernel-min-delta-ms",
             "0", "--threshold", "1.2"]
    rc, v, out = gate(tmp, *gates, b, c)
    fails = [k["name"] for k in v["kernels"] if k["verdict"] == "fail"]
    tested = [k for k in v["kernels"] if k["p_value"] is not None]
    check(rc == 0 and not fails, "200 unchanged kernels, --kernel-threshold 1.02: no item fails, "
          "exit 0 (%d tested)" % len(tested), "exit %d, failed: %s" % (rc, fails[:5]))
    check(v["policy"]["kernel_p_adjust"] == "holm", "the policy names Holm")
    want = holm([k["p_value"] for k in tested], 200)
    check(all(near(k["p_adjusted"], w, 1e-12) for k, w in zip(tested, want)),
          "p_adjusted is Holm's over the 200 items", str([(k["p_adjusted"], w)
                                                          for k, w in zip(tested, want)][:4]))
    raw = sum(1 for k in tested if k["p_value"] <= 0.05)
    print("# unchanged: %d items tested, %d with a raw p <= 0.05 (each a FAIL before Holm)"
          % (len(tested), raw))
    rc, v, out = gate(tmp, *gates, b, s)
    fails = [k["name"] for k in v["kernels"] if k["verdict"] == "fail"]
    check(rc == 1 and len(fails) == 1, "one of the 200 kernels 1.5x: exactly that one fails, "
          "exit 1", "exit %d, failed: %s" % (rc, fails[:5]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        mixtures(tmp)
        kernel_gates(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
