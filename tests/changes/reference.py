#!/usr/bin/python3
"""`nsys-gate changes` against a reference written here from the method's
description (docs/dashboards.md), not from the gate's code: the energy
statistic computed naively (every pair, O(n^2) per split, where the gate
keeps running sums), the Mann-Whitney U test from its textbook normal
approximation, the medians with statistics.median.  Histories are made by
tests/tools/genhistory.py: a step, a creep, spikes, an improvement, noise
alone, two steps, heavy noise.  The positions of the changes must be the
same, their magnitudes and p-values equal to 1e-9 (relative).

Environment: GATE, SRCDIR (as the golden suite sets them)."""
import html.parser
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

MIN_SIDE = 4


def med3(x):
    y = list(x)
    for i in range(1, len(x) - 1):
        y[i] = sorted(x[i - 1:i + 2])[1]
    return y


def mwu_p(a, b):
    both = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    n = len(both)
    rank_b, ties, i = 0.0, 0.0, 0
    while i < n:
        j = i
        while j < n and both[j][0] == both[i][0]:
            j += 1
        mid = (i + 1 + j) / 2
        rank_b += sum(mid for k in range(i, j) if both[k][1])
        t = j - i
        ties += t ** 3 - t
        i = j
    n1, n2 = len(a), len(b)
    u = rank_b - n2 * (n2 + 1) / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return 1.0 if z <= 0 else math.erfc(z / math.sqrt(2))


def welch_p(a, b):
    """Two-sided Welch test; the t tail by numerical integration of the
    density (Simpson), independent of any incomplete-beta code."""
    n1, n2 = len(a), len(b)
    m1, m2 = statistics.fmean(a), statistics.fmean(b)
    v1, v2 = statistics.variance(a), statistics.variance(b)
    se2 = v1 / n1 + v2 / n2
    if se2 <= 0:
        return 1.0 if m1 == m2 else 0.0
    t = abs(m2 - m1) / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    steps = 20000
    h = t / steps
    s = f(0) + f(t) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, steps))
    return max(0.0, 1 - 2 * s * h / 3)


def energy(y, l0, t, r1):
    L, R = y[l0:t], y[t:r1]
    m1, m2 = len(L), len(R)
    cross = sum(abs(a - b) for a in L for b in R) / (m1 * m2)
    within_l = sum(abs(L[i] - L[j]) for i in range(m1) for j in range(i + 1, m1)) / (m1 * (m1 - 1) / 2)
    within_r = sum(abs(R[i] - R[j]) for i in range(m2) for j in range(i + 1, m2)) / (m2 * (m2 - 1) / 2)
    return m1 * m2 / (m1 + m2) * (2 * cross - within_l - within_r)


def test(x, y, l0, t, r1, p_max, floor):
    p = mwu_p(x[l0:t], x[t:r1])
    if not p < p_max:
        return None
    before, after = statistics.median(x[l0:t]), statistics.median(x[t:r1])
    mag = after / before
    if not (mag >= floor or mag * floor <= 1):
        return None
    return (t, p, mag)


def windows(t, a, b, w):
    return max(a, t - w), min(b, t + w)


def best_split(x, y, a, b, o):
    best, best_q = None, -1
    for t in range(a + MIN_SIDE, b - MIN_SIDE + 1):
        l0, r1 = windows(t, a, b, o["window"])
        q = energy(y, l0, t, r1)
        if q > best_q and welch_p(y[l0:t], y[t:r1]) < 100 * o["p"]:
            c = test(x, y, l0, t, r1, o["p"], 1 + o["min"])
            if c:
                best, best_q = c, q
    return best


def detect(x, o):
    y = med3(x)
    found = []

    def seg(a, b):
        if b - a < 2 * MIN_SIDE:
            return
        c = best_split(x, y, a, b, o)
        if c:
            seg(a, c[0])
            found.append(c)
            seg(c[0], b)
    seg(0, len(x))
    while True:
        worst, worst_p = None, -1
        for i, c in enumerate(found):
            a = found[i - 1][0] if i else 0
            b = found[i + 1][0] if i + 1 < len(found) else len(x)
            l0, r1 = windows(c[0], a, b, o["window"])
            again = test(x, y, l0, c[0], r1, o["p"], 1 + o["min"])
            if again:
                found[i] = again
                continue
            p = mwu_p(x[l0:c[0]], x[c[0]:r1])
            if p > worst_p:
                worst, worst_p = i, p
        if worst is None:
            return found
        del found[worst]


CASES = [
    ("step", ["--noise", "0.02", "--step", "30:1.2"]),
    ("creep", ["--noise", "0.01", "--creep", "30:20:0.015"]),
    ("spikes", ["--noise", "0.03", "--spike", "15:1.6", "--spike", "40:1.6"]),
    ("improvement", ["--noise", "0.02", "--step", "30:0.8"]),
    ("noise", ["--noise", "0.05", "--seed", "7"]),
    ("two-steps", ["--noise", "0.02", "--step", "20:1.15", "--step", "45:1.1"]),
    ("small-window", ["--noise", "0.02", "--step", "70:1.3"]),
]


class ChangeRows(html.parser.HTMLParser):
    """The rows of the dashboard's change tables: each row's cells' text,
    the table's id with it."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.table, self.cell = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("class") == "changes":
            self.table = a.get("id")
        elif tag == "tr" and self.table:
            self.rows.append((self.table, []))
        elif tag == "td" and self.table and self.rows:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "td" and self.cell is not None:
            self.rows[-1][1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def check_dashboard(gate, d, name, h, want):
    """The dashboard's Changes table lists the reference's changes: each
    first bad commit (12 characters), direction and magnitude (3 decimals),
    and its chart has one marker a change."""
    site = os.path.join(d, name + "-site")
    subprocess.run([gate, "dashboard", "--quiet", "-o", site, h], check=True)
    page = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    p = ChangeRows()
    p.feed(page)
    got = sorted((r[1], r[2], r[3]) for t, r in p.rows if t == "changes-table" and r)
    with open(h) as f:
        commits = [json.loads(line)["context"]["commit"] for line in f]
    ref = sorted((commits[at][:12], "regression" if mag > 1 else "improvement", "%.3fx" % mag)
                 for at, _, mag in want)
    bad = 0
    if got != ref:
        print(f"{name}: the dashboard lists {got}, the reference {ref}")
        bad += 1
    markers = page.count('<g class="change')
    if markers != len(want):
        print(f"{name}: {markers} markers for {len(want)} changes")
        bad += 1
    return bad


def main():
    gate, src = os.environ["GATE"], os.environ["SRCDIR"]
    gen = os.path.join(src, "tests", "tools", "genhistory.py")
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        fixture = os.path.join(src, "tests", "golden", "fixtures", "kern2023_base.csv")
        tpl = os.path.join(d, "t.jsonl")
        subprocess.run([gate, "--quiet", "--epochs", "10", "--name", "t", fixture, fixture,
                        "--history", tpl], check=True)
        for name, args in CASES:
            h = os.path.join(d, name + ".jsonl")
            nights = "100" if name == "small-window" else "60"
            subprocess.run([sys.executable, gen, tpl, h, "--name", name, "--nights", nights] + args,
                           check=True)
            o = {"p": 0.001, "min": 0.05, "window": 20 if name == "small-window" else 50}
            out = os.path.join(d, name + ".json")
            subprocess.run([gate, "changes", "--window", str(o["window"]), "--json", out, h],
                           stdout=subprocess.DEVNULL)
            with open(out) as f:
                got = sorted(json.load(f)["changes"], key=lambda c: c["first_bad"]["position"])
            with open(h) as f:
                x = [json.loads(line)["current_ms_per_epoch"] for line in f]
            want = detect(x, o)
            pos = [c["first_bad"]["position"] - 1 for c in got]
            if pos != [w[0] for w in want]:
                print(f"{name}: changes at {pos}, the reference finds {[w[0] for w in want]}")
                bad += 1
                continue
            for c, w in zip(got, want):
                for key, ref in (("p_value", w[1]), ("magnitude", w[2])):
                    if abs(c[key] - ref) > 1e-9 * max(abs(ref), 1e-300):
                        print(f"{name}: {key} {c[key]!r}, the reference {ref!r}")
                        bad += 1
            print(f"{name}: {len(want)} change(s) at {pos}, figures agree")
            if o["window"] == 50:
                bad += check_dashboard(gate, d, name, h, want)
    # the Welch test the scan prefilters with, against the integration above
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
