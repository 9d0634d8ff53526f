#!/usr/bin/python3
"""The comparability check on the real 2-GPU pair 07/07b, against figures computed here.

usage: comparability.py --gate PATH --shared SHARED_DIR

From the SQLite exports alone, with Python's sqlite3 (not the gate's reader): each kernel's
launch count by demangled name; the median, over the names both captures have, of
current/baseline counts (both captures span the same --epochs, so per-epoch ratios are the
count ratios); the share of time in names only one side has. The gate's JSON
`comparability` must agree (to 1e-12), warn about launch counts past 10%, and not warn once
each side gets its own count in that proportion.

Output: one `ok - ...` or `not ok - ...` line per check, then `N passed, M failed`.
Exit 0 all passed, 1 any failed, 77 (skipped) without the samples, except under CI=true.
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys

BEFORE = "07_nsysai_mfu_2gpu_before_nsys2026.2.1.sqlite"
AFTER = "07b_nsysai_mfu_2gpu_after_nsys2026.2.1.sqlite"
results = []


def check(ok, what, detail=""):
    results.append(ok)
    print(("ok - " if ok else "not ok - ") + what + ("" if ok else f": {detail}"))


def kernels(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT s.value, count(*), sum(k.\"end\" - k.start) "
                      "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                      "ON s.id = k.demangledName GROUP BY s.value").fetchall()
    db.close()
    return {name: (n, ns) for name, n, ns in rows}


def gate(gate_bin, *args):
    p = subprocess.run([gate_bin, *args, "--json", "-"], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout), p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gate", required=True)
    ap.add_argument("--shared", required=True)
    a = ap.parse_args()
    d = os.path.join(a.shared, "nsys-samples")
    b_path, c_path = os.path.join(d, BEFORE), os.path.join(d, AFTER)
    if not (os.path.exists(b_path) and os.path.exists(c_path)):
        print("skipped: the 07/07b samples are missing")
        return 1 if os.environ.get("CI") == "true" else 77
    b, c = kernels(b_path), kernels(c_path)
    both = [n for n in b if n in c]
    want_ratio = statistics.median(c[n][0] / b[n][0] for n in both)
    one = sum(ns for n, (_, ns) in b.items() if n not in c) + \
        sum(ns for n, (_, ns) in c.items() if n not in b)
    total = sum(ns for _, ns in b.values()) + sum(ns for _, ns in c.values())

    rc, v, err = gate(a.gate, b_path, c_path)
    cmp = v.get("comparability") or {}
    check(rc == 0, "07 vs 07b: a verdict", f"exit {rc}: {err[-300:]}")
    check(cmp.get("items_both") == len(both), f"items on both sides: {len(both)}",
          cmp.get("items_both"))
    got = cmp.get("launch_ratio")
    check(got is not None and abs(got - want_ratio) < 1e-12,
          f"launch_ratio {want_ratio:.6f} (median of per-kernel count ratios)", got)
    check(abs(cmp.get("one_side_share", -1) - one / total) < 1e-12,
          f"one_side_share {one / total:.6f}", cmp.get("one_side_share"))
    want = f"launches about {want_ratio:.2f}x the kernels per epoch"
    check(any(want in w for w in v["warnings"]), f"a warning says '{want}'", v["warnings"])

    # per-side counts in that proportion (60/67 = 0.8955): the launch warning goes
    rc, v, err = gate(a.gate, "--baseline-epochs", "67", "--current-epochs", "60", b_path,
                      c_path)
    check(rc == 0 and not any("launches about" in w for w in v["warnings"]),
          "--baseline-epochs 67 --current-epochs 60: no launch warning", v["warnings"])
    check(v["message"].endswith("(epochs=67/60)"), "the headline says both counts",
          v["message"])
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
