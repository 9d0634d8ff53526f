#!/usr/bin/python3
"""Thirty nights of one gate on a history baseline, as a nightly job runs
it: each night the project's generator makes that night's profile
(--seed NIGHT, --jitter 0.03; from night 20 on --scale 1.35, a step
regression), and the gate runs once with --baseline-history and --history
on one file, with the GitHub runner's variables of that night (GITHUB_SHA,
GITHUB_REF_NAME=main, GITHUB_RUN_ID, ...) and its date (SOURCE_DATE_EPOCH).
Night 1 seeds the history (the profile against itself: there is nothing to
compare with yet).

What must hold: nights 2..19 pass; night 20 fails, and so does every night
after it until the step is acknowledged: the gate does not absorb a
regression nobody accepted.  For the first nights after the step the
series holds too few runs at the new level for a change point (five at the
default --change-p), and the runs that failed are held out of the baseline
("baseline: 10 runs before the 3 failing runs since <night 20>"); from night
25 on the change at night 20 is found, and the baseline is the 10 runs before it
("baseline: 10 runs before the change at <night 20> (not acknowledged)").
From night ACK on the job passes --accept with an acknowledgement of night
20's commit, and the baseline is the runs since the change: those nights
pass.  Every line is a valid history line whose baseline_history names the
right runs and commits; and --history-since restarts the window at the step
(night 21 against nights 20.. passes).

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
ACK = 27             # the first night the job passes the acknowledgement


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
    acks = os.path.join(d, "acks.jsonl")
    with open(acks, "w") as f:
        f.write(json.dumps({"gate": NAME, "commit": sha(STEP)[:10], "reason": "the new model is "
                            "bigger", "author": "ana", "expires": "2099-12-31"}) + "\n")
    verdicts = {}
    lines = []
    for night in range(1, NIGHTS + 1):
        prof = profile(d, night)
        out = os.path.join(d, f"night-{night:02d}.json")
        if night == 1:
            p = gate(d, night, "--history", history, "--json", out, prof, prof)
        else:
            accept = ["--accept", acks] if night >= ACK else []
            p = gate(d, night, "--baseline-history", history, "--history-match", "branch=main",
                     *accept, "--history", history, "--json", out, prof)
        v = json.load(open(out))
        verdicts[night] = (p.returncode, v)
        lines.append(f"night {night:2d} {sha(night)[:7]}: exit {p.returncode} "
                     f"{p.stdout.splitlines()[0] if p.stdout else p.stderr.strip()}")
    with open(os.path.join(d, "verdicts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return history, verdicts, lines


def sliding(night, bh, v):
    """The last 10 runs (or fewer) and no change point."""
    runs = min(night - 1, WINDOW)
    first = night - runs
    check(bh["runs"] == runs and bh["first"]["commit"] == sha(first) and
          bh["last"]["commit"] == sha(night - 1) and bh["first"]["line"] == first and
          bh["last"]["line"] == night - 1 and bh["before_change"] is None and
          bh["since_change"] is None and bh["held_out"] is None,
          f"night {night}: baseline_history {bh}")
    words = f"| baseline: last {runs} run{'s' if runs > 1 else ''} of '{NAME}' on main " \
            f"({sha(first)[:7]}..{sha(night - 1)[:7]})" if runs > 1 else \
            f"| baseline: last 1 run of '{NAME}' on main ({sha(first)[:7]})"
    check(v["message"].endswith(words), f"night {night}: message {v['message']!r}")


def before_step(night, bh, v):
    """The 10 runs before the unacknowledged step."""
    c = bh["before_change"]
    check(bh["runs"] == WINDOW and bh["first"]["line"] == STEP - WINDOW and
          bh["last"]["line"] == STEP - 1 and c is not None and c["commit"] == sha(STEP) and
          c["line"] == STEP and c["direction"] == "regression" and not c["acknowledged"] and
          abs(c["magnitude"] - STEP_SCALE) < 0.05 and bh["since_change"] is None,
          f"night {night}: baseline_history {bh}")
    words = f"| baseline: {WINDOW} runs before the change at {sha(STEP)[:7]} (not acknowledged)"
    check(v["message"].endswith(words), f"night {night}: message {v['message']!r}")


def held_out(night, bh, v):
    """Before the change can be told: the failing runs since the step held out."""
    k = night - STEP
    h = bh["held_out"]
    check(bh["runs"] == WINDOW and bh["first"]["line"] == STEP - WINDOW and
          bh["last"]["line"] == STEP - 1 and h == {"runs": k, "line": STEP, "commit": sha(STEP)} and
          bh["before_change"] is None and bh["since_change"] is None,
          f"night {night}: baseline_history {bh}")
    words = f"| baseline: {WINDOW} runs before the {k} failing run{'s' if k > 1 else ''} " \
            f"since {sha(STEP)[:7]}"
    check(v["message"].endswith(words), f"night {night}: message {v['message']!r}")


def since_step(night, bh, v):
    """After the acknowledgement: the runs since the step."""
    runs = min(night - STEP, WINDOW)
    first = night - runs
    c = bh["since_change"]
    check(bh["runs"] == runs and bh["first"]["commit"] == sha(first) and
          bh["last"]["commit"] == sha(night - 1) and c is not None and
          c["commit"] == sha(STEP) and c["acknowledged"] and bh["before_change"] is None,
          f"night {night}: baseline_history {bh}")
    words = f"({sha(first)[:7]}..{sha(night - 1)[:7]}), since the acknowledged change at " \
            f"{sha(STEP)[:7]}"
    check(v["message"].endswith(words), f"night {night}: message {v['message']!r}")


def check_nights(history, verdicts, lines):
    for night, (code, v) in verdicts.items():
        want = "fail" if STEP <= night < ACK else "pass"
        check(v["verdict"] == want and code == (1 if want == "fail" else 0),
              f"night {night}: {v['verdict']} (exit {code}), expected {want}: {lines[night - 1]}")
        if night == 1:
            continue
        bh = v["baseline_history"]
        check(bh is not None and bh["window"] == WINDOW and bh["branch"] == "main" and
              bh["match"] == {"branch": "main"}, f"night {night}: baseline_history {bh}")
        if night >= ACK:
            since_step(night, bh, v)
        elif night > STEP + 4 or (night > STEP and bh["before_change"] is not None):
            before_step(night, bh, v)   # found once 5 runs follow it
        elif night > STEP:
            held_out(night, bh, v)
        else:
            sliding(night, bh, v)
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
    print("# the verdicts of nights 19 to 30:")
    for night in range(19, 31):
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
