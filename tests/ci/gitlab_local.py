#!/usr/bin/python3
"""The GitLab template run for real by gitlab-ci-local (npm; its shell
executor, --force-shell-executor), as a project that includes it runs it:

- a clean copy of this checkout (its tracked and unignored files, as a
  fresh clone has them) becomes a git repository tagged v1, the tool
  source the template clones (NSYS_GATE_TOOL_SOURCE); a second tag,
  `broken`, has a meson.build that meson refuses;
- a project whose .gitlab-ci.yml is the template's own usage example
  (the include made local, no `needs`) and a job building `broken`;
- every before_script and script line runs for real: apt-get (as root),
  git clone, meson, ninja, the gate.  apt-get is wrapped to record what
  it was asked to install.

Then: the gate's job is a warning (exit 1 under the example's
allow_failure: exit_codes: [1]) and its artifacts are there and valid (the
JUnit through the schemas and junitparser, the metrics through promtool and
GitLab's rule, the JSON verdict through its schema); the broken build fails
the job (exit 2, never 1), with meson's own error in the log; apt-get was
asked for every package of ci/deps.sh's build set.

Needs root, git, rsync and gitlab-ci-local in .cache/node (ci/test.sh
installs them); without them it skips (exit 77), except under CI=true.

Environment: SRCDIR, SHARED (optional: the reference JUnit schemas),
NODE_MODULES (optional, as the html suite)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import FIXTURES, SRCDIR, check, run_tests, valid_junit  # noqa: E402
from platforms import usage_example  # noqa: E402

NODE_MODULES = os.environ.get("NODE_MODULES") or os.path.join(SRCDIR, ".cache", "node",
                                                               "node_modules")
GLCL = os.path.join(NODE_MODULES, "gitlab-ci-local", "dist", "index.js")
TEMPLATE = os.path.join(SRCDIR, "ci", "gitlab", "nsys-gate.gitlab-ci.yml")
GIT = ["git", "-c", "user.name=nsys-gate", "-c", "user.email=nsys-gate@localhost",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"]


def skip(why):
    if os.environ.get("CI") == "true":
        print(f"gitlab-local: {why}, and under CI=true this test must run", file=sys.stderr)
        sys.exit(1)
    print(f"gitlab-local: skipped: {why}")
    sys.exit(77)


def build_packages():
    p = subprocess.run(["bash", "-c", '. ci/deps.sh && echo "$NG_BUILD_PACKAGES"'], cwd=SRCDIR,
                       capture_output=True, text=True, check=True)
    return p.stdout.split()


def clean_copy(dest):
    """The checkout as a fresh clone has it (tracked and unignored files,
    as they are now), as a git repository with the tags the jobs clone."""
    files = subprocess.run(["git", "-C", SRCDIR, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = os.path.join(SRCDIR, rel)
        if os.path.lexists(src) and not os.path.isdir(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel), follow_symlinks=False)
    run = lambda *a: subprocess.run([*GIT, *a], cwd=dest, check=True, capture_output=True)
    run("init", "-q")
    run("add", "-A")
    run("commit", "-qm", "nsys-gate")
    run("tag", "v1")
    with open(os.path.join(dest, "meson.build"), "a") as f:
        f.write("\nthis is not meson(\n")
    run("commit", "-qam", "a meson.build meson refuses")
    run("tag", "broken")
    run("reset", "-q", "--hard", "v1")


def pipeline(d):
    """The template's usage example as a project's .gitlab-ci.yml."""
    example = usage_example(TEMPLATE)
    check(example.get("include") == [{"remote": "https://raw.githubusercontent.com/nsys-gate/"
                                                 "nsys-gate/v1/ci/gitlab/nsys-gate.gitlab-ci.yml"}],
          f"template usage example: include {example.get('include')}")
    example["include"] = [{"local": "nsys-gate.gitlab-ci.yml"}]
    job = example["gpu-time"]
    job.pop("needs", None)   # the profiling job is the fixtures here
    job["variables"].update({"NSYS_GATE_BASELINE": "kern2023_base.csv",
                             "NSYS_GATE_CURRENT": "kern2023_cur120plus1.csv",
                             "NSYS_GATE_EPOCHS": "10"})
    example["broken-build"] = dict(job, variables=dict(job["variables"],
                                                       NSYS_GATE_TOOL_REF="broken"))
    shutil.copy(TEMPLATE, os.path.join(d, "nsys-gate.gitlab-ci.yml"))
    for f in ("kern2023_base.csv", "kern2023_cur120plus1.csv"):
        shutil.copy(os.path.join(FIXTURES, f), d)
    with open(os.path.join(d, ".gitlab-ci.yml"), "w") as f:
        yaml.safe_dump(example, f, sort_keys=False)
    subprocess.run([*GIT, "init", "-q"], cwd=d, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=d, check=True)
    subprocess.run([*GIT, "commit", "-qm", "project"], cwd=d, check=True)


def apt_recorder(d):
    """apt-get that notes its arguments, then runs the real one."""
    real = shutil.which("apt-get")
    bin_dir = os.path.join(d, "bin")
    os.makedirs(bin_dir)
    with open(os.path.join(bin_dir, "apt-get"), "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >>"{d}/apt-get.log"\nexec "{real}" "$@"\n')
    os.chmod(os.path.join(bin_dir, "apt-get"), 0o755)
    return bin_dir


def outcomes(log):
    """{job: 'ok' | 'warn' | 'fail'} from gitlab-ci-local's 'finished in' lines."""
    got = {}
    for m in re.finditer(r"^(\S+) +finished in [^\n]*?(?:(WARN|FAIL) (\d+))?\s*$", log, re.M):
        got[m.group(1)] = (m.group(2) or "ok").lower(), m.group(3)
    return got


def test_template_runs():
    with tempfile.TemporaryDirectory() as d:
        tool, project = os.path.join(d, "tool"), os.path.join(d, "project")
        os.makedirs(tool)
        os.makedirs(project)
        clean_copy(tool)
        pipeline(project)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("NSYS_GATE_", "GITHUB_", "GITLAB_", "CI_"))}
        # TMPDIR: the template builds under it, so nothing is left behind
        env.update(PATH=apt_recorder(d) + ":" + env["PATH"], HOME=d, TMPDIR=d,
                   SOURCE_DATE_EPOCH="1700000000")
        env.pop("CI", None)
        p = subprocess.run(["node", GLCL, "--force-shell-executor", "--concurrency", "1",
                            "--variable", f"NSYS_GATE_TOOL_SOURCE=file://{tool}"],
                           cwd=project, env=env, capture_output=True, text=True, timeout=1500)
        log = p.stdout + p.stderr
        with open(os.path.join(os.environ.get("ARTIFACTS", d), "gitlab-ci-local.log"), "w") as f:
            f.write(log)
        got = outcomes(log)
        # the run in short, for the test's log
        for line in log.splitlines():
            if re.search(r"finished in|ERROR: building|\$ \"\$NSYS_GATE_BIN\"|> (PASS|FAIL|ERROR):",
                         line):
                print("  " + line.rstrip()[:200])
        check(got.get("gpu-time") == ("warn", "1"),
              f"gpu-time: {got.get('gpu-time')}, expected a warning with exit 1 (a regression "
              f"under allow_failure: exit_codes: [1]):\n{log[-3000:]}")
        check(got.get("broken-build", ("", ""))[0] == "fail"
              and got.get("broken-build", ("", ""))[1] != "1",
              f"broken-build: {got.get('broken-build')}, expected a failed job, not exit 1")
        check("ERROR: building nsys-gate failed: meson setup" in log,
              "broken-build: the template's own error line is not in the log")
        check(re.search(r"broken-build > .*meson\.build:\d+", log),
              "broken-build: meson's error is not in the log (hidden?)")

        apt = open(os.path.join(d, "apt-get.log")).read() if os.path.exists(
            os.path.join(d, "apt-get.log")) else ""
        asked = set()
        for line in apt.splitlines():
            if line.split()[:1] == ["install"] or " install " in f" {line} ":
                asked.update(w for w in line.split() if not w.startswith("-"))
        missing = [pkg for pkg in build_packages() if pkg not in asked]
        check(not missing, f"the template did not install {missing} of ci/deps.sh's build set "
                           f"(apt-get was asked: {apt!r})")

        art = os.path.join(project, ".gitlab-ci-local", "artifacts", "gpu-time")
        template = yaml.safe_load(open(TEMPLATE))[".nsys-gate"]["artifacts"]
        for f in template["paths"]:
            check(os.path.exists(os.path.join(art, f)), f"gpu-time: artifact {f} missing")
        junit = os.path.join(art, template["reports"]["junit"])
        if os.path.exists(junit):
            valid_junit(junit)
            from junit_items import gitlab_listing
            import junitparser
            rows = gitlab_listing(junitparser.JUnitXml.fromfile(junit))
            check(("nsys-gate", "gpu-time-per-epoch", "failed") in [r[:3] for r in rows],
                  f"gpu-time: the JUnit report has no failed gpu-time-per-epoch: {rows}")
        metrics = os.path.join(art, template["reports"]["metrics"])
        if os.path.exists(metrics):
            validate_output.check_metrics(metrics)
            check("nsys_gate_pass{name=\"gpu-time-per-epoch\"} 0" in open(metrics).read(),
                  "gpu-time: metrics do not say the gate failed")
        verdict = os.path.join(art, "nsys-gate.json")
        if os.path.exists(verdict):
            validate_output.check_json(SRCDIR, verdict)


if __name__ == "__main__":
    if os.geteuid() != 0:
        skip("the template's apt-get needs root")
    for tool in ("git", "rsync", "node", "apt-get"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    if not os.path.exists(GLCL):
        skip(f"no gitlab-ci-local in {NODE_MODULES} (ci/test.sh installs it)")
    if not os.path.isdir(os.path.join(SRCDIR, ".git")) and not os.path.isfile(
            os.path.join(SRCDIR, ".git")):
        skip(f"{SRCDIR} is not a git checkout")
    run_tests([test_template_runs])
