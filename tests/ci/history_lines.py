#!/usr/bin/python3
"""History lines from hostile profiles, written by the gate and read back
by it as a baseline:

- a saved kernel summary of 60 kernels, six of them named by 1 MB of text
  that differ only at their end (quotes, markup, control characters,
  invalid UTF-8 in them), and 10 labels of 100 KB: every line is under
  64 KB, valid against schemas/history.schema.json, its rows 50 and an
  others row; used as --baseline-history against the same kernels (one of
  them slower), every kernel is found again under its cut name ("changed",
  never "new" against a "gone"), and the ratio and the kernels' deltas are
  those of the profile baseline;
- an NVTX profile of 5,000 epochs: the line is trimmed (at most 1,000
  samples a side), valid, and still serves as a baseline.

Environment: GATE, GENTRACE, SRCDIR.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import GATE, GENTRACE, SRCDIR, check, gate_env, run_tests  # noqa: E402

HEADER = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
MB = 1 << 20
HOSTILE = b'"</title><script>alert(1)</script>\x01\x1b[31m\xff\\'


def names():
    out = []
    for i in range(6):   # 1 MB each, one start, apart only at the end
        out.append(b"void big_kernel<" + HOSTILE + b"x" * (MB - 40) + b">(%d)" % i)
    for i in range(54):
        out.append(b"kernel_%02d_" % i + HOSTILE + b"y" * 200)
    return out


def summary(path, slow=None):
    rows = []
    for i, name in enumerate(names()):
        ns = (60 - i) * 1000000 * (10 if i == slow else 1)
        rows.append(b"1.0,%d,%d,1,1,1,1,0,%s" % (ns, 100, name))
    with open(path, "wb") as f:
        f.write(HEADER.encode() + b"\n" + b"\n".join(rows) + b"\n")


def gate(d, *args):
    return subprocess.run([GATE, "--epochs", "5", "--top", "60", *args], cwd=d,
                          env=gate_env(SOURCE_DATE_EPOCH="1700000000"), capture_output=True)


def lines_of(path):
    data = open(path, "rb").read().split(b"\n")
    return [json.loads(x) for x in data[:-1]], [len(x) + 1 for x in data[:-1]]


def test_hostile_names(d):
    base, cur = os.path.join(d, "base.csv"), os.path.join(d, "cur.csv")
    summary(base)
    summary(cur, slow=2)
    labels = [a for i in range(10) for a in ("--label", f"big{i}=" + "v" * 100000)]
    h = os.path.join(d, "h.jsonl")
    # three runs: a history baseline needs three to know the spread between runs
    for _ in range(3):
        p = gate(d, "--history", h, *labels, base, base)
        check(p.returncode == 0, f"seed run: exit {p.returncode} {p.stderr[-500:]!r}")
    docs, sizes = lines_of(h)
    check(sizes[0] <= 65535, f"the line is {sizes[0]} bytes")
    validate_output.check_jsonl(SRCDIR, h)
    rows = docs[0]["rows"]
    check(rows["cap"] == 50 and len(rows["items"]) == 51 and
          rows["items"][-1]["kind"] == "others" and
          abs(rows["items"][-1]["ms_per_epoch"] - sum(60 - i for i in range(50, 60)) / 5) < 1e-9,
          f"rows: cap {rows['cap']}, {len(rows['items'])} items, last {rows['items'][-1]}")
    cut = [r["name"] for r in rows["items"][:6]]
    check(len(set(cut)) == 6 and all(len(json.dumps(n, ensure_ascii=False).encode()) - 2 <= 512 and "\u2026" in n for n in cut),
          f"the 1 MB names as cut: {[n[-24:] for n in cut]}")
    check(all(len(json.dumps(v, ensure_ascii=False).encode()) - 2 <= 2048 for k, v in docs[0]["context"].items() if v),
          "a label longer than 2048 bytes of JSON")

    # the line as the baseline: every kernel found again
    want = json.loads(gate(d, "--json", "-", base, cur).stdout)
    p = gate(d, "--baseline-history", h, "--json", "-", cur)
    got = json.loads(p.stdout)
    check(p.returncode == 1 and got["verdict"] == "fail",
          f"against the history: exit {p.returncode} {got['message'][:200]}")
    check(abs(got["ratio"] - want["ratio"]) < 1e-12, f"ratio {got['ratio']} vs {want['ratio']}")
    statuses = {k["status"] for k in got["kernels"]}
    check(statuses == {"changed"}, f"kernel statuses against the history: {statuses}")
    top = got["kernels"][0]
    check(top["name"] == cut[2] and abs(top["delta_ms_per_epoch"] -
                                        want["kernels"][0]["delta_ms_per_epoch"]) < 1e-6,
          f"the slower kernel: {top['name'][-24:]} {top['delta_ms_per_epoch']}")


def test_many_epochs(d):
    prof = os.path.join(d, "e5000.sqlite")
    subprocess.run([GENTRACE, "-o", prof, "--kernels", "20000", "--names", "4", "--epochs",
                    "5000", "--jitter", "0.05"], check=True, stdout=subprocess.DEVNULL)
    h = os.path.join(d, "epochs.jsonl")
    for _ in range(3):   # three runs: the spread between runs is known
        p = gate(d, "--epoch-range", "auto", "--history", h, prof, prof)
        check(p.returncode == 0, f"5000 epochs: exit {p.returncode} {p.stderr[-300:]!r}")
    docs, sizes = lines_of(h)
    check(sizes[0] <= 65535 and docs[0]["trimmed"] is True and
          len(docs[0]["samples"]["current"]) <= 1000,
          f"5000 epochs: {sizes[0]} bytes, trimmed {docs[0]['trimmed']}, "
          f"{len(docs[0]['samples']['current'])} samples")
    validate_output.check_jsonl(SRCDIR, h)
    p = gate(d, "--epoch-range", "auto", "--baseline-history", h, "--json", "-", prof)
    v = json.loads(p.stdout)
    check(p.returncode == 0 and v["verdict"] == "pass" and v["p_value"] is not None,
          f"5000 epochs as a baseline: exit {p.returncode} {v['message'][:200]}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        run_tests([test_hostile_names, test_many_epochs], work)
