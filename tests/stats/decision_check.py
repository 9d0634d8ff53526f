#!/usr/bin/env python3
"""The decision on the sample shapes real jobs make, against figures this
test computes on its own.

Each case generates a baseline and a current export (tests/tools/gentrace,
whose --summary prints every epoch's kernel time as it writes the file; its
--epoch-scales sets each epoch's length), runs the gate with --json, and
checks the verdict and exit status the case needs.  Then, from the
generator's epochs (never from the gate), it computes what
docs/statistics.md says decides, written out here with scipy: the
baseline's clusters, each epoch's kind, the current's kinds weighed by the
baseline's shares, Fisher's exact or the chi-square test of the mix, the
lag-1 autocorrelation (pairs within a run and a kind, the evidence
required, the short-series correction) and the variance inflation of an
AR(1) series, the variance within the kinds (a kind the current has once
taking the pooled spread), Welch-Satterthwaite degrees of freedom, the
one-sided t test of the log ratio and its 95% interval, the same test on
the logs when the epochs are skewed, warm-up epochs; with a history, the
run means as the unit and the Mann-Kendall / Theil-Sen trend of a crept
series.  The gate's JSON must agree.

The mixtures of section 1 of the first trust issue (32 epochs a side
alternating 0.3 ms and 15.7 ms), 200 per-kernel gates under Holm, and the
shapes of the second: two kinds whose mix shifts, two kinds at random,
AR(1) epochs, a warm-up epoch, skewed epochs, a nightly history with run-to-
run noise, and a creeping one.

Environment: GATE, GENTRACE.  Prints ok/not ok lines, then `N passed, M failed`.
"""
import json
import math
import os
import random
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


AR_Z, AR_EPOCHS, RHO_MAX, SKEW = 1.0, 8, 0.9, 0.5


def inflation(rho, L):
    """An AR(1) series' variance of its mean of L epochs over that of
    independent ones, with the bias of s^2 taken out."""
    if rho <= 0 or L < 2:
        return 1.0
    g = 1.0 + 2.0 * sum((1 - k / L) * rho ** k for k in range(1, int(math.ceil(L))) if k < L)
    return g * (L - 1) / (L - g)


def spans(runs, n):
    out, at = [], 0
    for r in (runs or [n]):
        out.append((at, at + r))
        at += r
    return out


def rho_of(sides, per_run=False):
    """sides: (values, kinds, runs) each; the bias-corrected lag-1
    autocorrelation of the residuals from each kind's mean on its side (or,
    runs as the unit, from each run's mean), or 0."""
    num = den = pairs = 0.0
    total, lens, k = 0, [], 1
    for x, kind, runs in sides:
        k = max(k, max(kind) + 1)
        e = [0.0] * len(x)
        for a, b in (spans(runs, len(x)) if per_run else [(0, len(x))]):
            for c in set(kind[a:b]):
                idx = [i for i in range(a, b) if kind[i] == c]
                m = math.fsum(x[i] for i in idx) / len(idx)
                for i in idx:
                    e[i] = x[i] - m
        for a, b in spans(runs, len(x)):
            for i in range(a, b):
                den += e[i] * e[i]
                if i + 1 < b and kind[i] == kind[i + 1]:
                    num += e[i] * e[i + 1]
                    pairs += 1
        total += len(x)
        lens.append(len(x) / len(runs or [len(x)]))
    L = sum(lens) / 2 / k
    if not den > 0 or L < AR_EPOCHS or pairs < 3:
        return 0.0
    r = num / den * (total / pairs)
    if (r + 1 / L) * math.sqrt(pairs) < AR_Z:
        return 0.0
    return min(max((L * r + 1) / (L - 4), 0.0), RHO_MAX)


def welch(parts, ratio):
    """parts: (variance of a log figure, df); p and the interval."""
    se2 = sum(v for v, _ in parts)
    den = sum(v * v / d for v, d in parts if v > 0)
    df = se2 * se2 / den if den > 0 else math.inf
    se = math.sqrt(se2)
    if se == 0:
        return (0.0 if ratio > 1 else 1.0), (ratio, ratio)
    q = stats.t.ppf(0.975, df)
    return stats.t.sf(math.log(ratio) / se, df), (ratio * math.exp(-q * se),
                                                   ratio * math.exp(q * se))


def kind_parts(groups, weights, figures, f, log=False):
    """Each side's variance of its figure (relative, or of logs), the
    cells of one epoch taking the spread pooled over the others."""
    cells = []
    for side in (0, 1):
        for g in groups[side]:
            vals = [math.log(v) for v in g] if log else g
            m = math.fsum(vals) / len(vals) if vals else 0.0
            dev = math.fsum((v - m) ** 2 for v in vals)
            cells.append((side, len(g), m, dev))
    rv_num = sum(dev / (1 if log else m * m) for _, n, m, dev in cells if n >= 2)
    rv_df = sum(n - 1 for _, n, _, _ in cells if n >= 2)
    rv = rv_num / rv_df if rv_df else 0.0
    parts = []
    for side in (0, 1):
        v = den = 0.0
        for i, (sd, n, m, dev) in enumerate(c for c in cells if c[0] == side):
            w = weights[i]
            if w == 0:
                continue
            if n >= 2:
                cv, dfi = dev / (n - 1) / n * f[side], max(1.0, n / f[side] - 1)
            else:
                cv, dfi = rv * (1 if log else m * m) * f[side], max(1.0, rv_df / f[side])
            part = w * w * cv
            v += part
            den += part * part / dfi
        scale = 1.0 if log else figures[side] ** 2
        parts.append((v / scale, (v * v / den) if den > 0 else math.inf))
    return parts


def kinds_of(x):
    """The baseline's kinds: its sorted epochs split at the (at most 7)
    largest gaps past 2x, a lone epoch too (no merging)."""
    s = sorted(x)
    n = len(s)
    gaps = sorted((i + 1 for i in range(n - 1) if s[i] > 0 and s[i + 1] / s[i] > 2.0),
                  key=lambda i: -math.log(s[i] / s[i - 1]))[:7]
    starts = [0] + sorted(gaps)
    return [(s[a], s[(starts[i + 1] if i + 1 < len(starts) else n) - 1])
            for i, a in enumerate(starts)]


def decide(x, y, runs_x=None, runs_y=None):
    """Everything the gate's decision computes on epochs, as a dict."""
    mx, my = math.fsum(x) / len(x), math.fsum(y) / len(y)
    cl = kinds_of(x)
    k = len(cl)
    kx = [stratum(v, cl) if k > 1 else 0 for v in x]
    ky = [stratum(v, cl) if k > 1 else 0 for v in y]
    if k > 1 and not any(ky.count(i) >= 1 and (kx.count(i) >= 2 or ky.count(i) >= 2)
                         for i in range(k)):
        k, kx, ky = 1, [0] * len(x), [0] * len(y)
    gx = [[v for v, kk in zip(x, kx) if kk == i] for i in range(k)]
    gy = [[v for v, kk in zip(y, ky) if kk == i] for i in range(k)]
    # a kind the current lacks is out of both figures; the others weighed
    # by the baseline's shares among them
    kept = [i for i in range(k) if gy[i]]
    total = sum(len(gx[i]) for i in kept)
    weights = [len(gx[i]) / total if gy[i] else 0.0 for i in range(k)]
    if k > 1:
        fb = math.fsum(weights[i] * math.fsum(gx[i]) / len(gx[i]) for i in kept)
        fc = math.fsum(weights[i] * math.fsum(gy[i]) / len(gy[i]) for i in kept)
        if len(kept) == k:
            fb = mx
    else:
        fb, fc = mx, my
    ratio = fc / fb
    rho = rho_of([(x, kx, runs_x), (y, ky, runs_y)])
    f = [inflation(rho, len(x) / len(runs_x or [x])), inflation(rho, len(y) / len(runs_y or [y]))]
    parts = kind_parts((gx, gy), weights, (fb, fc), f)
    p, ci = welch(parts, ratio)
    # skewness about each side's own mean, relative to it
    e = [v / mx - 1 for v in x] + [v / my - 1 for v in y]
    m2 = math.fsum(v * v for v in e) / len(e)
    m3 = math.fsum(v ** 3 for v in e) / len(e)
    skew = m3 / m2 ** 1.5 if m2 > 0 else 0.0
    log_test = skew > SKEW
    if log_test:
        lparts = kind_parts((gx, gy), weights, None, f, log=True)
        lx = math.fsum(w * math.fsum(math.log(v) for v in g) / len(g)
                       for w, g in zip(weights, gx) if w)
        ly = math.fsum(w * math.fsum(math.log(v) for v in g) / len(g)
                       for w, g in zip(weights, gy) if w)
        lp, _ = welch(lparts, math.exp(ly - lx))
        p = max(p, lp)
    mix_p = None
    if k == 2:
        mix_p = stats.fisher_exact([[len(gx[0]), len(gx[1])], [len(gy[0]), len(gy[1])]]).pvalue
    elif k > 2:
        mix_p = stats.chi2_contingency([[len(g) for g in gx], [len(g) for g in gy]],
                                       correction=False).pvalue
    return {"ratio": ratio, "raw_ratio": my / mx, "p": p, "ci": ci, "strata": k,
            "figures": (fb, fc), "rho": rho, "inflation": f[0], "log_test": log_test,
            "mix_p": mix_p, "mix_ms": my - mx * ratio,
            "counts": [(len(a), len(b)) for a, b in zip(gx, gy)]}


def reference(x, y):
    """ratio, p, (lo, hi), strata: the documented method, written out."""
    d = decide(x, y)
    return d["ratio"], d["p"], d["ci"], d["strata"]


def decide_runs(x, runs, y):
    """A history baseline: each past run one unit (its mean), the spread
    between runs from them, the current run's own spread within added."""
    kx, ky = [0] * len(x), [0] * len(y)
    resid = []
    rho = rho_of([(x, kx, runs), (y, ky, None)], per_run=True)
    means, within = [], []
    for a, b in spans(runs, len(x)):
        g = x[a:b]
        m = math.fsum(g) / len(g)
        means.append(m)
        within.append(stats.tvar(g) / len(g) * inflation(rho, len(g)) if len(g) > 1 else 0.0)
    kr = len(means)
    rbar = math.fsum(means) / kr
    ym = math.fsum(y) / len(y)
    s2 = stats.tvar(means) if kr > 1 else 0.0
    between = max(0.0, s2 - math.fsum(within) / kr)
    yw = stats.tvar(y) / len(y) * inflation(rho, len(y)) if len(y) > 1 else 0.0
    parts = [((s2 / kr + between) / rbar ** 2, kr - 1), (yw / ym ** 2, max(1, len(y) - 1))]
    p, ci = welch(parts, ym / rbar)
    del resid
    return {"ratio": ym / rbar, "p": p, "ci": ci, "runs": kr, "figures": (rbar, ym),
            "between_cv": math.sqrt(s2) / rbar}


def warmup(x):
    """How many leading epochs the gate leaves out as warm-up."""
    n, found = len(x), 0
    if n < 4:
        return 0
    for j in range(1, max(1, n // 4) + 1):
        if n - j >= 3 and min(x[:j]) > 2.0 * max(x[j:]) and max(x[j:]) > 0:
            found = j
    return found


def hinge(x):
    """The least-squares level + rise x max(0, t - bend) through x (the
    first bend of the least sum of squares), with numpy's lstsq."""
    import numpy
    best = None
    t = numpy.arange(len(x), dtype=float)
    for bend in range(len(x) - 2):
        a = numpy.column_stack([numpy.ones(len(x)), numpy.maximum(0.0, t - bend)])
        coef, *_ = numpy.linalg.lstsq(a, numpy.array(x, dtype=float), rcond=None)
        sse = float(numpy.sum((a @ coef - x) ** 2))
        if best is None or sse < best[0] - 1e-12 * max(1.0, best[0]):
            best = (sse, float(coef[0]), float(coef[1]), bend)
    return best[1], best[2], best[3]


def trend(x):
    """Mann-Kendall's S and one-sided p (ties and continuity corrected),
    Theil-Sen's slope (scipy) and the line's level at the first run."""
    n = len(x)
    s = sum((x[j] > x[i]) - (x[j] < x[i]) for i in range(n) for j in range(i + 1, n))
    ties = {}
    for v in x:
        ties[v] = ties.get(v, 0) + 1
    var = (n * (n - 1) * (2 * n + 5) - sum(t * (t - 1) * (2 * t + 5) for t in ties.values())) / 18
    z = (s - (s > 0) + (s < 0)) / math.sqrt(var)
    slope = stats.theilslopes(x).slope
    rest = sorted(v - slope * i for i, v in enumerate(x))
    mid = len(rest) // 2
    level = rest[mid] if len(rest) % 2 else (rest[mid - 1] + rest[mid]) / 2
    return stats.norm.sf(z), slope, level


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


def scales(factors):
    return ",".join("%.6f" % f for f in factors)


def pair(tmp, name, fb, fc, extra=()):
    """A baseline and a current whose epochs are the factors' lengths
    (gentrace --epoch-scales), 1% noise: the two paths and the epochs."""
    args = ["--kernels", str(40 * len(fb)), "--names", "1", "--epochs", str(len(fb)),
            "--jitter", "0.01"] + list(extra)
    b, x = generate(tmp, name + "-b", args + ["--epoch-scales", scales(fb), "--seed", "11"])
    args[1] = str(40 * len(fc))
    args[5] = str(len(fc))
    c, y = generate(tmp, name + "-c", args + ["--epoch-scales", scales(fc), "--seed", "12"])
    return b, x, c, y


def agrees_all(name, v, d):
    """The gate's decision fields against the reference's dict."""
    dec = v["decision"] or {}
    checks = [
        ("ratio", v["ratio"], d["ratio"], 1e-9),
        ("raw ratio", dec.get("raw_ratio"), d.get("raw_ratio", d["ratio"]), 1e-9),
        ("p", v["p_value"], d["p"], 1e-6),
        ("interval low", (v["ratio_ci"] or [0, 0])[0], d["ci"][0], 1e-6),
        ("interval high", (v["ratio_ci"] or [0, 0])[1], d["ci"][1], 1e-6),
        ("baseline figure", dec.get("baseline_ms_per_epoch"), d["figures"][0], 1e-9),
        ("current figure", dec.get("current_ms_per_epoch"), d["figures"][1], 1e-9),
    ]
    for what, got, want, rel in checks:
        # the JSON rounds milliseconds to the nanosecond
        slack = 1e-6 if "figure" in what else 1e-12
        ok = got is not None and (near(got, want, rel) or abs(got - want) < slack)
        check(ok, "%s: %s %.6g as the reference computes it" % (name, what, want),
              "gate %r" % got)


def shifted_mix(tmp):
    # 16 epochs a side, long (2.5x) and short; the baseline 4 long, the
    # current 12: nothing got slower, the mix did
    fb = [2.5 if i % 4 == 0 else 1.0 for i in range(16)]
    fc = [1.0 if i % 4 == 0 else 2.5 for i in range(16)]
    b, x, c, y = pair(tmp, "shift", fb, fc)
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    d = decide(x, y)
    check(v["verdict"] == "inconclusive" and rc == 0,
          "the mix shifted (4 -> 12 long of 16), no kind slower: INCONCLUSIVE, exit 0",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))
    dec = v["decision"]
    check(dec["basis"] == "mix-adjusted" and dec["call"] == "mix shifted",
          "the ratio is mix-adjusted and the call says the mix shifted", str(dec)[:300])
    check(near(dec["mix"]["p_value"], d["mix_p"], 1e-9),
          "the mix test: Fisher's exact p %.4g" % d["mix_p"], str(dec["mix"]))
    check(abs(dec["mix"]["ms_per_epoch"] - d["mix_ms"]) < 1e-6,
          "the change of mix adds %.3f ms/epoch" % d["mix_ms"], str(dec["mix"]))
    check("the mix of epoch kinds changed" in out and "25% of the baseline's, 75% of the "
          "current's" in out, "the warning names the shares", out[:800])
    agrees_all("shifted mix", v, d)
    # three kinds: the chi-square test of the counts
    fb = [1.0, 2.5, 6.25, 1.0, 1.0, 2.5, 6.25, 1.0, 2.5, 1.0, 6.25, 1.0]
    fc = [6.25, 2.5, 6.25, 1.0, 6.25, 2.5, 6.25, 1.0, 2.5, 6.25, 6.25, 1.0]
    b, x, c, y = pair(tmp, "three", fb, fc)
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    d = decide(x, y)
    check(d["strata"] == 3 and v["decision"]["mix"] is not None and
          near(v["decision"]["mix"]["p_value"], d["mix_p"], 1e-9),
          "three kinds: the chi-square p %.4g" % d["mix_p"], str(v["decision"]["mix"]))
    agrees_all("three kinds", v, d)


def lone_kinds(tmp):
    # 8 epochs of three kinds: the baseline has the slow kind once, the
    # current lacks the fast kind: each kind compared with its own, the lone
    # one too, the fast kind out of both figures
    fb = [1.0, 1.0, 3.0, 3.0, 3.0, 3.0, 3.0, 9.0]
    fc = [3.0, 3.0, 3.0, 9.0, 9.0, 3.0, 3.0, 9.0]
    b, x, c, y = pair(tmp, "lone", fb, fc)
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    d = decide(x, y)
    kinds = v["decision"]["mix"]["kinds"] if v["decision"]["mix"] else []
    check(d["strata"] == 3 and [(k["baseline_epochs"], k["current_epochs"]) for k in kinds] ==
          [(2, 0), (5, 5), (1, 3)], "three kinds, one lone, one the current lacks: %s"
          % d["counts"], str(kinds))
    check(near(v["decision"]["mix"]["p_value"], d["mix_p"], 1e-9),
          "three kinds: the chi-square p %.4g" % d["mix_p"], str(v["decision"]["mix"]))
    check(abs(v["decision"]["mix"]["ms_per_epoch"] - d["mix_ms"]) < 1e-6,
          "what the mix adds: %.3f ms/epoch" % d["mix_ms"], str(v["decision"]["mix"]))
    agrees_all("lone kinds", v, d)


def random_kinds(tmp):
    # two kinds drawn at random (seeded), nothing changed; then the long kind
    # and the short one both 1.3x
    rng = random.Random(7)
    fb = [2.5 if rng.random() < 0.4 else 1.0 for _ in range(20)]
    fc = [2.5 if rng.random() < 0.4 else 1.0 for _ in range(20)]
    b, x, c, y = pair(tmp, "random", fb, fc)
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", "--threshold", "1.05", b, c)
    d = decide(x, y)
    check(v["verdict"] != "fail" and rc == 0, "two kinds at random, nothing changed: not FAIL",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))
    agrees_all("two kinds at random", v, d)
    b, x, c, y = pair(tmp, "random-slow", fb, [1.3 * f for f in fc])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    d = decide(x, y)
    check(v["verdict"] == "fail" and rc == 1, "two kinds at random, the step 1.3x: FAIL",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))
    agrees_all("two kinds at random, 1.3x", v, d)


def ar1(rng, n, phi, spread):
    a, out = rng.gauss(0, 1), []
    for i in range(n):
        if i:
            a = phi * a + math.sqrt(1 - phi * phi) * rng.gauss(0, 1)
        out.append(1 + spread * a)
    return out


def dependent(tmp):
    rng = random.Random(3)
    fb, fc = ar1(rng, 24, 0.8, 0.05), ar1(rng, 24, 0.8, 0.05)
    b, x, c, y = pair(tmp, "ar", fb, fc, ["--jitter", "0.002"])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", "--threshold", "1.05", "--verbose", b, c)
    d = decide(x, y)
    dec = v["decision"]
    check(d["rho"] > 0 and near(dec["autocorrelation"], d["rho"], 1e-9) and
          near(dec["variance_inflation"], d["inflation"], 1e-9),
          "AR(1) epochs: autocorrelation %.3f, variance %.2fx" % (d["rho"], d["inflation"]),
          str(dec)[:300])
    check("neighbouring epochs move together" in out and
          "  epochs correlated: lag-1 autocorrelation %.2f" % d["rho"] in out,
          "the warning and the details say so", out[:800])
    agrees_all("AR(1) epochs", v, d)


def warm_up(tmp):
    # the first epoch 5x on both sides; the whole step 1.5x at 8 epochs
    fb = [5.0] + [1.0] * 7
    b, x, c, y = pair(tmp, "warm", fb, [1.5 * f for f in fb])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    wb, wc = warmup(x), warmup(y)
    check(wb == 1 and wc == 1 and v["decision"]["baseline_warmup_epochs"] == 1 and
          v["decision"]["current_warmup_epochs"] == 1,
          "a 5x first epoch is warm-up on each side", str(v["decision"])[:300])
    check(v["verdict"] == "fail" and rc == 1, "the whole step 1.5x at 8 epochs: FAIL",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))
    check("left out of the decision as warm-up; --skip-epochs 1" in out and "need about" not in out,
          "the warning names the warm-up and --skip-epochs", out[:600])
    check(v["samples"]["baseline"] == [round(e, 6) for e in x[1:]] or
          len(v["samples"]["baseline"]) == 7, "the samples leave the warm-up out")
    agrees_all("warm-up", v, decide(x[wb:], y[wc:]))


def skewed(tmp):
    rng = random.Random(5)
    fb = [math.exp(0.5 * rng.gauss(0, 1)) for _ in range(12)]
    fc = [math.exp(0.5 * rng.gauss(0, 1)) for _ in range(12)]
    b, x, c, y = pair(tmp, "skew", fb, fc)
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", b, c)
    d = decide(x, y)
    check(v["decision"]["log_test"] == d["log_test"],
          "lognormal epochs: the log test %s, as the skewness says" %
          ("runs" if d["log_test"] else "does not run"), str(v["decision"])[:200])
    agrees_all("lognormal epochs", v, d)


def history(tmp, runs, total=False, scale_of=None):
    """A --history of `runs` nights of 8 epochs (total mode: --epochs 8),
    each night's level from scale_of(night); returns its path and the
    nights' epochs."""
    h = os.path.join(tmp, "h%d%s.jsonl" % (runs, "t" if total else ""))
    if os.path.exists(h):
        os.remove(h)
    nights = []
    mode = ["--epochs", "8"] if total else ["--epoch-range", "^epoch"]
    for n in range(runs):
        path, e = generate(tmp, "night%d" % n, ["--kernels", "320", "--names", "1", "--epochs",
                                                 "8", "--jitter", "0.01", "--seed", str(100 + n),
                                                 "--scale", "%.6f" % scale_of(n)])
        nights.append(e)
        subprocess.run([os.environ["GATE"], "--quiet", "--history", h, "--name", "nightly"] +
                       mode + [path, path], check=True, capture_output=True,
                       env=dict(os.environ, SOURCE_DATE_EPOCH=str(1700000000 + 86400 * n)))
    return h, nights


def nightly(tmp):
    rng = random.Random(11)
    levels = [math.exp(0.04 * rng.gauss(0, 1)) for _ in range(12)]
    h, nights = history(tmp, 10, scale_of=lambda n: levels[n])
    cur, y = generate(tmp, "tonight", ["--kernels", "320", "--names", "1", "--epochs", "8",
                                       "--jitter", "0.01", "--seed", "300", "--scale",
                                       "%.6f" % (levels[10] * 1.3)])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", "--name", "nightly",
                      "--baseline-history", h, cur)
    # the past runs' epochs as the history lines keep them
    with open(h) as f:
        x = [e for line in f for e in json.loads(line)["samples"]["current"]]
    d = decide_runs(x, [8] * 10, y)
    dec = v["decision"]
    check(dec["basis"] == "runs" and dec["past_runs"] == 10,
          "nightly: ten past runs are the unit", str(dec)[:200])
    check(near(dec["between_runs_cv"], d["between_cv"], 1e-9),
          "nightly: the spread between runs %.4f" % d["between_cv"], str(dec)[:200])
    agrees_all("nightly, 1.3x", v, dict(d, raw_ratio=v["decision"]["raw_ratio"]))
    check(v["verdict"] == "fail" and rc == 1, "nightly: a 1.3x night FAILs",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))
    # two past runs: the spread between runs is not known yet
    h2, _ = history(tmp, 2, scale_of=lambda n: levels[n])
    rc, v, out = gate(tmp, "--epoch-range", "^epoch", "--name", "nightly",
                      "--baseline-history", h2, cur)
    check(v["verdict"] == "inconclusive" and v["decision"]["call"] == "few runs" and rc == 0,
          "nightly against two past runs: INCONCLUSIVE, the spread between runs unknown",
          "%s exit %d: %s" % (v["verdict"], rc, out[:300]))


def creeping(tmp):
    # 24 nights, 1.5% a night, 1% noise, total mode: the series crept
    rng = random.Random(13)
    levels = [1.015 ** n * (1 + 0.01 * rng.gauss(0, 1)) for n in range(25)]
    h, nights = history(tmp, 24, total=True, scale_of=lambda n: levels[n])
    cur, y = generate(tmp, "creep-now", ["--kernels", "320", "--names", "1", "--epochs", "8",
                                         "--jitter", "0.01", "--seed", "400", "--scale",
                                         "%.6f" % levels[24]])
    rc, v, out = gate(tmp, "--epochs", "8", "--name", "nightly", "--baseline-history", h, cur)
    figures = [sum(n) / 8 for n in nights]
    crept = (v["baseline_history"] or {}).get("crept") or {"runs": 0}
    # the segment the gate judged: from the first run, crept["runs"] + 1
    # long (a change point may end it before the latest runs)
    seg = crept["runs"] + 1
    p, slope, level = trend(figures[:seg])
    want_ratio = (level + slope * (seg - 1)) / level
    # (the lines keep each run's figure to the nanosecond: the rise to 1e-5)
    check(seg >= 11 and near(crept["p_value"], p, 1e-6) and
          near(crept["ratio"], want_ratio, 1e-5),
          "a creeping series: Mann-Kendall p %.3g, Theil-Sen rise %.3fx over %d runs"
          % (p, want_ratio, seg - 1), "%r; reference p %r ratio %r" % (crept, p, want_ratio))
    first = v["baseline_history"]["first"]
    check(first is not None and first["line"] == 1 and v["baseline_history"]["runs"] == 10,
          "the baseline is the segment's first ten runs", str(v["baseline_history"])[:300])
    # each of them taken back to the level the series crept from: the hinge
    # through the segment, level / its value at the run (the figures as the
    # history lines keep them)
    with open(h) as f:
        kept = [json.loads(line)["current_ms_per_epoch"] for line in f][:seg]
    level, rise, bend = hinge(kept)
    scaled = [x * level / (level + rise * max(0, i - bend)) for i, x in enumerate(kept[:10])]
    want = math.fsum(scaled) / 10
    check(near(v["decision"]["baseline_ms_per_epoch"], want, 1e-6),
          "the baseline's figure %.6f: the first ten runs at the level they crept from (the "
          "hinge bends at run %d)" % (want, bend), str(v["decision"])[:200])
    check(v["verdict"] == "fail" and "crept: +" in out,
          "the crept night FAILs and the warning says it crept",
          "%s exit %d: %s" % (v["verdict"], rc, out[:400]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        mixtures(tmp)
        kernel_gates(tmp)
        shifted_mix(tmp)
        lone_kinds(tmp)
        random_kinds(tmp)
        dependent(tmp)
        warm_up(tmp)
        skewed(tmp)
        nightly(tmp)
        creeping(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
