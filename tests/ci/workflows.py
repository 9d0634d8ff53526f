#!/usr/bin/python3
"""The nightly dashboard workflows of docs/workflows/, run the way their
platforms would run them, over three simulated nights (a regression on the
third):

- GitHub (github-nightly.yml): each night a fresh clone of a local origin
  (actions/checkout), then every step of the `gates` job in order with the
  runner's shell (bash -eo pipefail), its `if:` and `continue-on-error:`,
  the expressions it uses evaluated, the nsys-gate action run through its
  own steps (platforms.run_action), the artifact and Pages uploads checked
  for the paths they name; the `verdict` job with the job outputs.  After
  the nights the origin's nsys-gate-history branch holds every night's
  lines in a chain of commits, and the site has one chart per gate and a
  point per night.  The `deploy` job is checked for what deploy-pages
  needs (it cannot run off GitHub).
- GitLab (gitlab-nightly.yml, including the template): `extends` merged as
  GitLab merges it; the merge-request job writes the HTML report it exposes
  (expose_as on a single path); the nightly job's script fetches the last
  history from a loopback HTTP server that plays GitLab's job-artifacts API
  (JOB-TOKEN checked, 404 on the first night), and its artifacts become the
  next night's; the pages and nightly-verdict jobs run on those artifacts.
- The workflows are linked from README.md and docs/dashboards.md, not copied.

Environment: GATE, GENTRACE, SRCDIR.
"""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import platforms  # noqa: E402
from common import GATE, GENTRACE, SRCDIR, check, run_tests, valid_junit  # noqa: E402

WORKFLOWS = os.path.join(SRCDIR, "docs", "workflows")
CHECK_PAGES = os.path.join(SRCDIR, "tests", "html", "check_pages.py")

# The user's profiling script the workflows call: two models, a manifest;
# NIGHT_SCALE makes that night's current profiles slower.
PROFILE_ALL = """#!/bin/sh
set -e
mkdir -p profiles
"$GENTRACE" -o profiles/a-base.sqlite --force --kernels 300 --names 4 --epochs 6 --seed 1 >/dev/null
"$GENTRACE" -o profiles/a.sqlite --force --kernels 300 --names 4 --epochs 6 --seed 2 --jitter 0.01 \\
    --scale "${NIGHT_SCALE:-1}" >/dev/null
"$GENTRACE" -o profiles/b-base.sqlite --force --kernels 200 --names 3 --epochs 6 --no-nvtx --seed 3 >/dev/null
"$GENTRACE" -o profiles/b.sqlite --force --kernels 200 --names 3 --epochs 6 --no-nvtx --seed 4 >/dev/null
cat >nightly.json <<'JSON'
{"gates": [
  {"name": "model-a", "baseline": "profiles/a-base.sqlite", "current": "profiles/a.sqlite", "epoch_range": "auto"},
  {"name": "model-b", "baseline": "profiles/b-base.sqlite", "current": "profiles/b.sqlite", "epochs": 6}
]}
JSON
"""

NIGHTS = [("1", "pass"), ("1.01", "pass"), ("1.5", "fail")]


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def sh(args, cwd, env=None):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"{' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def site_points(site):
    if not os.path.exists(os.path.join(site, "index.html")):
        return None
    index = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    return re.findall(r'<svg [^>]*class="chart trend"[^>]*data-runs="(\d+)" data-shown="(\d+)"', index)


# ---- GitHub ----

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text, ctx):
    def one(m):
        expr = m.group(1)
        parts = expr.split(".")
        if expr in ctx:
            return ctx[expr]
        if len(parts) == 4 and parts[0] in ("steps", "needs") and parts[2] == "outputs":
            return ctx.get(parts[0], {}).get(parts[1], {}).get(parts[3], "")
        raise ValueError(f"expression the test does not know: {expr}")
    return EXPR.sub(one, str(text))


def condition(step, failed):
    cond = str(step.get("if", "success()"))
    if cond == "always()":
        return True
    check(cond == "success()", f"github-nightly: a condition the test does not know: {cond}")
    return not failed


def run_step(step, ws, env, ctx):
    script = os.path.join(ws, "..", "step.sh")
    with open(script, "w") as f:
        f.write(evaluate(step["run"], ctx))
    step_env = dict(env)
    for k, v in (step.get("env") or {}).items():
        step_env[k] = evaluate(v, ctx)
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=ws,
                          env=step_env, capture_output=True, text=True, timeout=300)


def github_night(root, origin, night, scale):
    wf = load(os.path.join(WORKFLOWS, "github-nightly.yml"))
    ws = os.path.join(root, f"night{night}", "ws")
    os.makedirs(os.path.dirname(ws))
    sh(["git", "clone", "--quiet", "--branch", "main", origin, ws], root)     # actions/checkout
    env = {"PATH": os.environ["PATH"], "HOME": root, "GENTRACE": GENTRACE, "NIGHT_SCALE": scale,
           "GITHUB_RUN_ID": str(1000 + night), "GITHUB_ACTIONS": "true",
           "GITHUB_REPOSITORY": "o/r", "GITHUB_SERVER_URL": "https://github.com",
           "GIT_CONFIG_NOSYSTEM": "1", "SOURCE_DATE_EPOCH": str(1714532400 + 86400 * night)}
    ctx = {"github.server_url": "https://github.com", "github.repository": "o/r", "steps": {}}
    failed = False
    for step in wf["jobs"]["gates"]["steps"]:
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/checkout@") or not condition(step, failed):
            continue
        if "run" in step:
            out_file = os.path.join(root, f"night{night}", "github_output")
            open(out_file, "w").close()
            p = run_step(step, ws, dict(env, GITHUB_OUTPUT=out_file), ctx)
            check(p.returncode == 0, f"github night {night}: step {step.get('name')}: {p.stderr.strip()}")
            failed |= p.returncode != 0
            if "id" in step:   # KEY=VALUE lines, as the runner reads $GITHUB_OUTPUT
                with open(out_file) as f:
                    ctx["steps"][step["id"]] = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
        elif re.fullmatch(r"[\w.-]+/nsys-gate@v\d+", uses):
            inputs = {k: evaluate(v, ctx) for k, v in step["with"].items()}
            rc, outputs, _ = platforms.run_action(ws, inputs, {k: env[k] for k in
                                                  ("GENTRACE", "GITHUB_RUN_ID", "SOURCE_DATE_EPOCH")})
            ctx["steps"][step["id"]] = outputs
            failed |= rc != 0 and not step.get("continue-on-error")
        elif uses.startswith("actions/upload-artifact@"):
            for path in step["with"]["path"].split():
                check(os.path.exists(os.path.join(ws, path)), f"github night {night}: no artifact {path}")
        elif uses.startswith("actions/upload-pages-artifact@"):
            site = os.path.join(ws, step["with"]["path"])
            check(os.path.isfile(os.path.join(site, "index.html")), f"github night {night}: no site")
            p = subprocess.run([sys.executable, CHECK_PAGES, os.path.join(site, "index.html")],
                               capture_output=True, text=True)
            check(p.returncode == 0, f"github night {night}: the site's index: {p.stderr}")
        else:
            check(False, f"github-nightly: a step the test does not know: {uses}")
    job_outputs = {k: evaluate(v, ctx) for k, v in wf["jobs"]["gates"]["outputs"].items()}
    verdict = wf["jobs"]["verdict"]["steps"][0]
    p = run_step(verdict, ws, env, {"needs": {"gates": job_outputs}})
    return ws, job_outputs, p.returncode


def test_github():
    wf = load(os.path.join(WORKFLOWS, "github-nightly.yml"))
    on = wf.get(True, wf.get("on"))
    check("schedule" in on, "github-nightly: on schedule")
    check(wf["permissions"] == {"contents": "write"}, "github-nightly: contents: write (the history branch)")
    deploy = wf["jobs"]["deploy"]
    check(deploy["permissions"] == {"pages": "write", "id-token": "write"}, "deploy: pages and id-token")
    check(deploy["environment"]["name"] == "github-pages", "deploy: environment github-pages")
    check(any(str(s.get("uses", "")).startswith("actions/deploy-pages@") and s.get("id") == "deployment"
              for s in deploy["steps"]), "deploy: actions/deploy-pages with id deployment")
    check("${{ steps.deployment.outputs.page_url }}" == deploy["environment"]["url"], "deploy: page url")
    with tempfile.TemporaryDirectory() as root:
        origin = os.path.join(root, "origin.git")
        sh(["git", "init", "--quiet", "--bare", "-b", "main", origin], root)
        seed = os.path.join(root, "seed")
        sh(["git", "init", "--quiet", "-b", "main", seed], root)
        with open(os.path.join(seed, "profile-all.sh"), "w") as f:
            f.write(PROFILE_ALL)
        os.chmod(os.path.join(seed, "profile-all.sh"), 0o755)
        sh(["git", "add", "."], seed)
        sh(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "seed"], seed)
        origin_url = "file://" + origin
        sh(["git", "push", "--quiet", origin_url, "main"], seed)
        for night, (scale, want) in enumerate(NIGHTS, 1):
            ws, outputs, rc = github_night(root, origin_url, night, scale)
            check(outputs["verdict"] == want, f"github night {night}: verdict {outputs}, expected {want}")
            check((rc == 0) == (want == "pass"), f"github night {night}: the verdict job exited {rc}")
            got = site_points(os.path.join(ws, "site"))
            check(got == [(str(night), str(night))] * 2, f"github night {night}: charts {got}")
        log = sh(["git", "--git-dir", origin, "log", "--format=%s", "nsys-gate-history"], root).split("\n")
        check(log[:3] == [f"nsys-gate history: run {1000 + n}" for n in (3, 2, 1)],
              f"the history branch's commits: {log}")
        lines = sh(["git", "--git-dir", origin, "show", "nsys-gate-history:history.jsonl"], root)
        names = [json.loads(line)["name"] for line in lines.splitlines()]
        check(names == ["model-a", "model-b"] * 3, f"the history branch holds {names}")
        check(os.path.exists(os.path.join(ws, "nightly.html")), "github: no nightly.html")


# ---- GitLab ----

def merge(base, over):
    """GitLab's extends: hashes merged key by key, anything else replaced."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def gitlab_jobs():
    pipeline = load(os.path.join(WORKFLOWS, "gitlab-nightly.yml"))
    inc = pipeline.pop("include")
    check(inc == [{"remote": "https://raw.githubusercontent.com/nsys-gate/nsys-gate/v1/ci/gitlab/nsys-gate.gitlab-ci.yml"}],
          f"gitlab-nightly: includes {inc}")
    template = load(os.path.join(SRCDIR, "ci", "gitlab", "nsys-gate.gitlab-ci.yml"))
    jobs = {}
    for name, job in pipeline.items():
        if name == "stages":
            continue
        base = template[job["extends"]] if "extends" in job else {}
        jobs[name] = merge(base, {k: v for k, v in job.items() if k != "extends"})
    return pipeline, jobs


class Artifacts(http.server.BaseHTTPRequestHandler):
    """GitLab's GET /projects/:id/jobs/artifacts/:ref/raw/:path?job=NAME, for one job."""
    store = {}

    def do_GET(self):
        want = "/api/v4/projects/7/jobs/artifacts/main/raw/history.jsonl?job=gpu-nightly"
        if self.headers.get("JOB-TOKEN") != "job-token" or self.path != want:
            self.send_error(401 if self.path == want else 404)
            return
        body = self.store.get("history.jsonl")
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def gitlab_script(job, d, env):
    bin_dir = platforms.traps(d)
    if not os.path.lexists(os.path.join(bin_dir, "nsys-gate")):
        os.symlink(GATE, os.path.join(bin_dir, "nsys-gate"))
    run_env = {"PATH": bin_dir + ":" + os.environ["PATH"], "HOME": d, "GENTRACE": GENTRACE}
    run_env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
    run_env.update(env)
    script = "\n".join(job.get("before_script", []) + job["script"])
    return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=d, env=run_env,
                          capture_output=True, text=True, timeout=300)


def test_gitlab():
    pipeline, jobs = gitlab_jobs()
    check(set(pipeline["stages"]) >= {"test", "deploy"}, "gitlab-nightly: stages")

    # the merge request job: its HTML report is the one file it exposes
    mr = jobs["gpu-time"]
    art = mr["artifacts"]
    check(art.get("expose_as") and art["paths"] == ["nsys-gate.html"],
          "gpu-time: expose_as needs exactly one path, the HTML report")
    check(art.get("when") == "always" and art["reports"]["junit"], "gpu-time: the template's reports kept")
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "profiles"))
        subprocess.run([GENTRACE, "-o", os.path.join(d, "profiles/main.sqlite"), "--epochs", "6"], check=True,
                       capture_output=True)
        subprocess.run([GENTRACE, "-o", os.path.join(d, "profiles/mr.sqlite"), "--epochs", "6",
                        "--scale", "1.4"], check=True, capture_output=True)
        p = gitlab_script(mr, d, {"SOURCE_DATE_EPOCH": "1714532400"})
        check(p.returncode == 1, f"gpu-time: exit {p.returncode} on a regression: {p.stderr}")
        for f in art["paths"] + [art["reports"]["junit"], art["reports"]["metrics"]]:
            check(os.path.exists(os.path.join(d, f)), f"gpu-time: {f} missing")
        valid_junit(os.path.join(d, art["reports"]["junit"]))
        p = subprocess.run([sys.executable, CHECK_PAGES, os.path.join(d, "nsys-gate.html")],
                           capture_output=True, text=True)
        check(p.returncode == 0, f"gpu-time: nsys-gate.html: {p.stderr}")

    nightly, pages, verdict = jobs["gpu-nightly"], jobs["pages"], jobs["nightly-verdict"]
    check(nightly["artifacts"]["expire_in"] == "never" and "history.jsonl" in nightly["artifacts"]["paths"],
          "gpu-nightly: the history kept for the next night")
    check(pages["artifacts"]["paths"] == ["public"], "pages: publishes public/")
    check(verdict.get("allow_failure") is True, "nightly-verdict: allowed to fail (the history stays fetchable)")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Artifacts)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Artifacts.store.clear()
    try:
        with tempfile.TemporaryDirectory() as root:
            for night, (scale, want) in enumerate(NIGHTS, 1):
                d = os.path.join(root, f"night{night}")
                os.mkdir(d)
                with open(os.path.join(d, "profile-all.sh"), "w") as f:
                    f.write(PROFILE_ALL)
                os.chmod(os.path.join(d, "profile-all.sh"), 0o755)
                env = {"CI_API_V4_URL": f"http://127.0.0.1:{server.server_address[1]}/api/v4",
                       "CI_PROJECT_ID": "7", "CI_DEFAULT_BRANCH": "main", "CI_JOB_TOKEN": "job-token",
                       "CI_PROJECT_URL": "https://gitlab.example/g/p", "NIGHT_SCALE": scale,
                       "SOURCE_DATE_EPOCH": str(1714532400 + 86400 * night)}
                p = gitlab_script(nightly, d, env)
                check(p.returncode == 0, f"gitlab night {night}: gpu-nightly exit {p.returncode}: {p.stderr}")
                for f in nightly["artifacts"]["paths"]:
                    check(os.path.exists(os.path.join(d, f)), f"gitlab night {night}: artifact {f} missing")
                got = site_points(os.path.join(d, "public"))
                check(got == [(str(night), str(night))] * 2, f"gitlab night {night}: charts {got}")
                Artifacts.store["history.jsonl"] = open(os.path.join(d, "history.jsonl"), "rb").read()
                dotenv = dict(line.split("=", 1) for line in
                              open(os.path.join(d, nightly["artifacts"]["reports"]["dotenv"])).read().split())
                # the later jobs get the artifacts (public/) and the dotenv variables
                later = os.path.join(d, "later")
                shutil.copytree(os.path.join(d, "public"), os.path.join(later, "public"))
                p = gitlab_script(pages, later, {})
                check(p.returncode == 0, f"gitlab night {night}: pages: {p.stderr}")
                p = gitlab_script(verdict, later, dotenv)
                check((p.returncode == 0) == (want == "pass"),
                      f"gitlab night {night}: nightly-verdict exit {p.returncode}, verdict {want}")
            lines = Artifacts.store["history.jsonl"].decode().splitlines()
            check(len(lines) == 6, f"gitlab: the last history has {len(lines)} lines, expected 6")
    finally:
        server.shutdown()


# ---- the copies in the docs ----

def test_copies():
    """The workflows exist once, in docs/workflows/: README.md and docs/dashboards.md link
    them and hold no copy (a copy would drift)."""
    for name in ("github-nightly.yml", "gitlab-nightly.yml"):
        text = open(os.path.join(WORKFLOWS, name), encoding="utf-8").read()
        for doc, link in (("README.md", f"docs/workflows/{name}"),
                          (os.path.join("docs", "dashboards.md"), f"workflows/{name}")):
            path = os.path.join(SRCDIR, doc)
            if not check(os.path.exists(path), f"no {doc}"):
                continue
            body = open(path, encoding="utf-8").read()
            check(f"]({link})" in body, f"{doc}: no link to docs/workflows/{name}")
            blocks = re.findall(r"```yaml\n(.*?)```", body, re.S)
            check(text not in blocks, f"{doc}: a copy of docs/workflows/{name} (link it instead)")


if __name__ == "__main__":
    run_tests([test_github, test_gitlab, test_copies])
