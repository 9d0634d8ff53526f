#!/usr/bin/python3
"""Thirty nights of one gate on a history baseline, as a nightly job runs
it: each night the project's generator makes that night's profile
(--seed NIGHT, --jitter 0.03; from night 20 on --scale 1.35, a step
regression), and the gate runs once with --baseline-history and --history
on one file, with the GitHub runner's variables of that night (GITHUB_SHA,
GITHUB_REF_NAME=main, GITHUB_RUN_ID, ...) and its date (SOURCE_DATE_EPOCH).
Night 1 seeds the history (the profile against itself: there is nothing to
compare with yet).

What must hold: nights 2..19 pass; night 20 fails; the nights after fail
until the window (10 runs, the failures among them) slides: the baseline is
the mean of the window's epochs, so with k of its 10 runs at the new level
it is (10 - k + 1.35 k) / 10 of the old one, and night 20 + k fails while
1.35 over that is past 1.20x: nights 20..23 fail, night 24 passes; every line is a valid history line whose
baseline_history names the right runs and commits; and --history-since
restarts the window at the step (night 21 against nights 20.. passes).

The history file, each night's JSON verdict and verdicts.txt (one line a
night) are left in OUTDIR for the dashboard: by default
$NIGHTLY_OUT (the ci suite sets build-test/tests/ci/nightly-history),
else a temporary directory that is removed.

    tests/ci/nightly_history.py [OUTDIR]     (GATE, GENTRACE, SRCDIR set)
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import GATE, GENTRACE, SRCDIR, check, gate_env, run_tests  # noqa: E402

NIGHTS = 30
STEP = 20            # the first night of the slower code
WINDOW = 10          # --history-window (the default)
STEP_SCALE = 1.35    # the step's --scale
DAY0 = 1717200000    # 2024-06-01T00:00:00Z: night n runs at DAY0 + n days, 02:00
NAME = "resnet50"


def sha(night):
    return hashlib.sha1(f"night {night}".encode()).hexdigest()


def night_env(night):
    return gate_env(
        SOURCE_DATE_EPOCH=str(DAY0 + night * 86400 + 7200),
        GITHUB_ACTIONS="true", NSYS_GATE_GITHUB="0",
        GITHUB_SHA=sha(night), GITHUB_REF_NAME="main", GITHUB_HEAD_REF="",
        GITHUB_SERVER_URL="https://github.com", GITHUB_REPOSITORY="example/train",
        GITHUB_RUN_ID=str(9000000000 + night), GITHUB_JOB="gpu-nightly",
        GITHUB_WORKFLOW="nightly", RUNNER_NAME="gpu-runner-1")


def profile(d, night):
    path = os.path.join(d, f"night-{night:02d}.sqlite")
    scale = ["--scale", str(STEP_SCALE)] if night >= STEP else []
    subprocess.run([GENTRACE, "-o", path, "--kernels", "3000", "--names", "6", "--epochs", "5",
                    "--jitter", "0.03", "--seed", str(night), *scale], check=True,
                   stdout=subprocess.DEVNULL)
    return path


def gate(d, night, *args):
    return subprocess.run([GATE, "--name", NAME, *args], cwd=d, env=night_env(night),
                          capture_output=True, text=True)


def run_nights(d):
    history = os.path.join(d, "history.jsonl")
    verdicts = {}
    lines = []
    for night in range(1, NIGHTS + 1):
        prof = profile(d, night)
        out = os.path.join(d, f"night-{night:02d}.json")
        if night == 1:
            p = gate(d, night, "--history", history, "--json", out, prof, prof)
        else:
            p = gate(d, night, "--baseline-history", history, "--history-match", "branch=main",
                     "--history", history, "--json", out, prof)
        v = json.load(open(out))
        verdicts[night] = (p.returncode, v)
        lines.append(f"night {night:2d} {sha(night)[:7]}: exit {p.returncode} "
                     f"{p.stdout.splitlines()[0] if p.stdout else p.stderr.strip()}")
    with open(os.path.join(d, "verdicts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return history, verdicts, lines


def check_nights(history, verdicts, lines):
    for night, (code, v) in verdicts.items():
        k = night - STEP   # runs of the window at the new level
        want = "fail" if 0 <= k < WINDOW and \
            STEP_SCALE * WINDOW / (WINDOW - k + STEP_SCALE * k) > 1.2 else "pass"
        check(v["verdict"] == want and code == (1 if want == "fail" else 0),
              f"night {night}: {v['verdict']} (exit {code}), expected {want}: {lines[night - 1]}")
        if night == 1:
            continue
        bh = v["baseline_history"]
        runs = min(night - 1, WINDOW)
        first = night - runs
        check(bh is not None and bh["runs"] == runs and bh["window"] == WINDOW and
              bh["branch"] == "main" and bh["match"] == {"branch": "main"} and
              bh["first"]["commit"] == sha(first) and bh["last"]["commit"] == sha(night - 1) and
              bh["first"]["line"] == first and bh["last"]["line"] == night - 1,
              f"night {night}: baseline_history {bh}")
        words = f"| baseline: last {runs} run{'s' if runs > 1 else ''} of '{NAME}' on main " \
                f"({sha(first)[:7]}..{sha(night - 1)[:7]})" if runs > 1 else \
                f"| baseline: last 1 run of '{NAME}' on main ({sha(first)[:7]})"
        check(v["message"].endswith(words), f"night {night}: message {v['message']!r}")
        check(v["context"]["commit"] == sha(night) and
              v["context"]["run_url"] == f"https://github.com/example/train/actions/runs/{9000000000 + night}",
              f"night {night}: context {v['context']}")
    # the file: one valid history line a night, in order, tonight's last
    data = open(history, "rb").read().split(b"\n")[:-1]
    check(len(data) == NIGHTS, f"history has {len(data)} lines, expected {NIGHTS}")
    for n, line in enumerate(data, 1):
        doc = json.loads(line)
        check(doc["context"]["commit"] == sha(n) and doc["rows"]["items"],
              f"history line {n}: {doc['context']}, rows {doc['rows']}")
    validate_output.check_jsonl(SRCDIR, history)


def test_thirty_nights(d):
    history, verdicts, lines = run_nights(d)
    print("# the verdicts of nights 19 to 25:")
    for night in range(19, 26):
        print("#   " + lines[night - 1])
    check_nights(history, verdicts, lines)


def test_restart_with_since(d):
    """After an accepted step, --history-since the step's date restarts the
    window there: night 21 (already in the file) gated again against night
    20 alone passes, where the sliding window still failed it."""
    history = os.path.join(d, "history.jsonl")
    scratch = os.path.join(d, "since")
    os.makedirs(scratch, exist_ok=True)
    h = os.path.join(scratch, "history.jsonl")
    with open(history, "rb") as f, open(h, "wb") as out:
        out.writelines(f.readlines()[:STEP])   # nights 1..20
    since = f"2024-06-{1 + STEP:02d}"          # night 20's date
    p = gate(scratch, 21, "--baseline-history", h, "--history-since", since, "--json",
             os.path.join(scratch, "v.json"), os.path.join(d, "night-21.sqlite"))
    v = json.load(open(os.path.join(scratch, "v.json")))
    check(p.returncode == 0 and v["verdict"] == "pass" and v["baseline_history"]["runs"] == 1 and
          v["baseline_history"]["since"] == f"{since}T00:00:00Z",
          f"--history-since {since}: exit {p.returncode}, {v['message']}")
    # without it the same night fails (the window still holds the old level)
    p = gate(scratch, 21, "--baseline-history", h, os.path.join(d, "night-21.sqlite"))
    check(p.returncode == 1, f"night 21 without --history-since: exit {p.returncode} {p.stdout}")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("NIGHTLY_OUT")
    if out:
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        print(f"# the nights' history, verdicts and profiles are left in {out}")
        run_tests([test_thirty_nights, test_restart_with_since], out)
    else:
        with tempfile.TemporaryDirectory() as work:
            run_tests([test_thirty_nights, test_restart_with_since], work)
