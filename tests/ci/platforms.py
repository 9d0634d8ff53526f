#!/usr/bin/python3
"""The CI platform files, parsed as the platforms parse them and run the way
they would run them:

- action.yml: the keys a composite action needs; then its steps run as the
  runner runs them (each step its own GITHUB_OUTPUT file, env mapping with
  ${{ inputs.* }} and ${{ steps.*.outputs.* }} evaluated, `bash -eo
  pipefail`), with a simulated GitHub environment, and the action's outputs
  evaluated from the steps' outputs.  NSYS_GATE_BIN is given, and meson,
  ninja, apt-get and sudo on PATH are traps: the build step must not build.
- ci/gitlab/nsys-gate.gitlab-ci.yml: the hidden job's keys; its
  before_script + script run with NSYS_GATE_* variables and `nsys-gate` on
  PATH; the files its artifacts:reports name must then exist and be valid.
- .github/workflows/ci.yml: what the project's own CI must do.
- every ```yaml block in README.md and docs/: parses, and uses only inputs
  the action has / variables the gate reads.

Environment: GATE, SRCDIR, SHARED (optional: the reference JUnit schemas).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import FIXTURES, GATE, SRCDIR, check, run_tests, valid_junit  # noqa: E402


def load(rel):
    with open(os.path.join(SRCDIR, rel), encoding="utf-8") as f:
        return yaml.safe_load(f)


def gate_variables():
    """The NSYS_GATE_* variables the gate reads, from its own --help."""
    text = subprocess.run([GATE, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"\[(NSYS_GATE_[A-Z0-9_]+)\]", text))


# ---- GitHub: the composite action ----

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text, inputs, steps):
    """The two expression forms an action.yml of ours may use."""
    def one(m):
        expr = m.group(1)
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        parts = expr.split(".")
        if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
            return steps.get(parts[1], {}).get(parts[3], "")
        raise ValueError(f"expression the test does not know: {expr}")
    return EXPR.sub(one, str(text))


def check_action_keys(action):
    check(action.get("name") and action.get("description"), "action.yml: name and description")
    runs = action.get("runs", {})
    check(runs.get("using") == "composite", "action.yml: runs.using must be composite")
    want = {"baseline", "current", "threshold", "epochs", "baseline-epochs", "current-epochs",
            "epoch-range", "name", "junit", "json", "args", "ranks", "write-summary"}
    check(set(action.get("inputs", {})) == want, f"action.yml: inputs are {sorted(want)}")
    ids = [s.get("id") for s in runs.get("steps", [])]
    for s in runs.get("steps", []):
        if "run" in s:
            check(s.get("shell") == "bash", f"action.yml: step {s.get('id')} has no shell: bash")
            check("ci/action.sh" in s["run"], f"action.yml: step {s.get('id')} runs ci/action.sh")
    for name, out in action.get("outputs", {}).items():
        m = re.fullmatch(r"\$\{\{ steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_]+) \}\}",
                         str(out.get("value", "")))
        check(m and m.group(1) in ids,
              f"action.yml: output {name} needs value: ${{{{ steps.<id>.outputs.<name> }}}}")
    check({"verdict", "ratio"} <= set(action.get("outputs", {})), "action.yml: verdict, ratio")
    used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", open(os.path.join(SRCDIR, "action.yml")).read()))
    check(used == set(action.get("inputs", {})), f"action.yml: inputs used {sorted(used)}")
    check(os.access(os.path.join(SRCDIR, "ci", "action.sh"), os.X_OK), "ci/action.sh executable")


def traps(d):
    """meson, ninja, apt-get, sudo, git that record being called and fail."""
    bin_dir = os.path.join(d, "traps")
    os.makedirs(bin_dir, exist_ok=True)
    for tool in ("meson", "ninja", "apt-get", "sudo", "git", "pip", "pipx"):
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho {tool} >>'{d}/trapped'\nexit 1\n")
        os.chmod(path, 0o755)
    return bin_dir


def run_action(d, inputs, extra_env=None):
    """Runs the action's steps as the runner would; returns (rc of the last
    step run, the action's outputs, stdout of all steps)."""
    action = load("action.yml")
    values = {k: inputs.get(k, v.get("default", "")) for k, v in action["inputs"].items()}
    summary = os.path.join(d, "summary.md")
    job_env = {
        "PATH": traps(d) + ":" + os.environ["PATH"],
        "HOME": d,
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": SRCDIR,
        "GITHUB_WORKSPACE": d,
        "GITHUB_STEP_SUMMARY": summary,
        "RUNNER_TEMP": os.path.join(d, "runner-temp"),
        "NSYS_GATE_BIN": GATE,
        "SOURCE_DATE_EPOCH": "1700000000",
    }
    job_env.update(extra_env or {})
    os.makedirs(job_env["RUNNER_TEMP"], exist_ok=True)
    steps, stdout, rc = {}, "", 0
    for n, step in enumerate(action["runs"]["steps"]):
        out_file = os.path.join(d, f"github_output_{n}")
        open(out_file, "w").close()
        env = dict(job_env, GITHUB_OUTPUT=out_file)
        for k, v in (step.get("env") or {}).items():
            env[k] = evaluate(v, values, steps)
        script = os.path.join(d, f"step{n}.sh")
        with open(script, "w") as f:
            f.write(evaluate(step["run"], values, steps))
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                           cwd=d, env=env, capture_output=True, text=True, timeout=120)
        stdout += p.stdout
        with open(out_file, encoding="utf-8") as f:
            steps[step["id"]] = validate_output.runner_outputs(f.read())
        rc = p.returncode
        if rc != 0:
            break
    outputs = {k: evaluate(v["value"], values, steps) for k, v in action["outputs"].items()}
    # every output the gate's step wrote is one a workflow can read
    extra = set(steps.get("gate", {})) - set(action["outputs"])
    check(not extra, f"action.yml: outputs the gate writes but the action does not declare: {extra}")
    return rc, outputs, stdout


def test_action():
    action = load("action.yml")
    check_action_keys(action)
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "base dir"))
        shutil.copy(os.path.join(FIXTURES, "kern2023_base.csv"), os.path.join(d, "base dir", "b.csv"))
        shutil.copy(os.path.join(FIXTURES, "kern2023_cur120plus1.csv"), os.path.join(d, "c.csv"))
        rc, out, stdout = run_action(d, {
            "baseline": "base dir/b.csv\n", "current": "c.csv", "epochs": "10",
            "name": "x: y,%z", "json": "v.json", "junit": "j.xml",
            "args": "--metrics 'm m.prom' --top 2"})
        check(rc == 1, f"action, regression: exit {rc}, expected 1")
        want = {"verdict": "fail", "ratio": "1.20000001", "bin": GATE, "name": "x: y,%z",
                "epochs": "10", "threshold": "1.2", "p_value": "", "gates": ""}
        check(all(out.get(k) == v for k, v in want.items()), f"action outputs: {out}")
        check(out.get("message", "").startswith("FAIL: per-epoch regression 1.20x exceeds"),
              f"action output message: {out.get('message')!r}")
        check(float(out["current_ms_per_epoch"]) / float(out["baseline_ms_per_epoch"])
              == float(out["ratio"]), f"action outputs: ms per epoch and ratio disagree: {out}")
        check("::error title=nsys-gate%3A x%3A y%2C%25z::FAIL:" in stdout,
              "action: the ::error annotation, title escaped")
        for f in ("v.json", "j.xml", "m m.prom", "summary.md"):
            check(os.path.exists(os.path.join(d, f)), f"action: {f} not written")
        check(not os.path.exists(os.path.join(d, "trapped")),
              "action: the build step built although NSYS_GATE_BIN was given")
        validate_output.check_metrics(os.path.join(d, "m m.prom"))

    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(FIXTURES, "kern2023_base.csv"), os.path.join(d, "a.csv"))
        shutil.copy(os.path.join(FIXTURES, "kern2023_cur120.csv"), os.path.join(d, "b.csv"))
        # empty inputs are not set: the job's NSYS_GATE_EPOCHS applies; two current runs
        rc, out, _ = run_action(d, {"baseline": "a.csv", "current": "b.csv\nb.csv",
                                    "threshold": "", "epochs": "", "json": "v.json"},
                                {"NSYS_GATE_EPOCHS": "10"})
        check(rc == 0 and out["verdict"] == "pass", f"action, empty inputs: exit {rc}, {out}")
        v = open(os.path.join(d, "v.json")).read()
        check('"epochs":\t10' in v and v.count('"path":\t"b.csv"') == 3,
              "action: NSYS_GATE_EPOCHS or the second current run not used")

        # captures of different lengths: 100 ms over 10 epochs against 120 ms over 12 is
        # 10 ms an epoch on both sides
        rc, out, _ = run_action(d, {"baseline": "a.csv", "current": "b.csv",
                                    "baseline-epochs": "10", "current-epochs": "12"})
        check(rc == 0 and out["ratio"] == "1" and out["epochs"] == "10"
              and out["message"].endswith("(epochs=10/12)"),
              f"action, per-side epochs: exit {rc}, {out}")

        rc, out, stdout = run_action(d, {"current": "b.csv"})
        check(rc == 2 and out["verdict"] == "error" and "input 'baseline' is required" in stdout,
              f"action, no baseline: exit {rc}, {out}")
        rc, out, stdout = run_action(d, {"baseline": "a.csv", "current": "b.csv",
                                         "args": "--name 'unclosed"})
        check(rc == 2 and "is not a list of shell words" in stdout, f"action, bad args: {rc}")
        rc, out, stdout = run_action(d, {"baseline": "a.csv", "current": "b.csv"},
                                     {"NSYS_GATE_BIN": os.path.join(d, "a.csv")})
        check(rc == 2 and "is not an executable" in stdout, f"action, bad NSYS_GATE_BIN: {rc}")


def test_action_batch_outputs():
    """A batch's outputs ($GITHUB_OUTPUT of --manifest) are all declared by the action."""
    action = load("action.yml")
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(FIXTURES, "kern2023_base.csv"), os.path.join(d, "a.csv"))
        shutil.copy(os.path.join(FIXTURES, "kern2023_cur120plus1.csv"), os.path.join(d, "b.csv"))
        with open(os.path.join(d, "m.json"), "w") as f:
            json.dump({"gates": [{"name": "one", "baseline": "a.csv", "current": "b.csv"},
                                 {"name": "two", "baseline": "a.csv", "current": "a.csv"}]}, f)
        out_file = os.path.join(d, "out")
        env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_OUTPUT=out_file,
                   GITHUB_STEP_SUMMARY=os.path.join(d, "summary.md"))
        p = subprocess.run([GATE, "--manifest", "m.json", "--epochs", "10"], cwd=d, env=env,
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 1, f"batch through --github: exit {p.returncode}: {p.stderr}")
        got = validate_output.runner_outputs(open(out_file, encoding="utf-8").read())
        check(got.get("gates") == "2" and got.get("failed") == "1" and got.get("passed") == "1",
              f"batch outputs: {got}")
        extra = set(got) - set(action["outputs"])
        check(not extra, f"action.yml: batch outputs not declared: {extra}")


# ---- GitLab: the template ----

def usage_example(path):
    """The commented example at the top of the template, as YAML."""
    lines, grab = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("#   include:"):
            grab = True
        if not grab:
            continue
        if line.strip() == "#":
            lines.append("\n")
        elif line.startswith("#   "):
            lines.append(line[4:])
        else:
            break
    return yaml.safe_load("".join(lines))


def run_gitlab_job(d, job, variables):
    bin_dir = traps(d)
    if not os.path.lexists(os.path.join(bin_dir, "nsys-gate")):
        os.symlink(GATE, os.path.join(bin_dir, "nsys-gate"))
    env = {"PATH": bin_dir + ":" + os.environ["PATH"], "HOME": d, "SOURCE_DATE_EPOCH": "1700000000"}
    env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
    env.update(variables)
    script = "\n".join(job.get("before_script", []) + job["script"])
    return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=d, env=env,
                          capture_output=True, text=True, timeout=120)


def test_gitlab():
    path = os.path.join(SRCDIR, "ci", "gitlab", "nsys-gate.gitlab-ci.yml")
    template = load("ci/gitlab/nsys-gate.gitlab-ci.yml")
    check(list(template) == [".nsys-gate"], f"template jobs: {list(template)} (one hidden job)")
    job = template[".nsys-gate"]
    art = job.get("artifacts", {})
    reports = art.get("reports", {})
    check(art.get("when") == "always", "template: artifacts:when: always")
    check(reports.get("junit") and reports.get("metrics"), "template: reports junit and metrics")
    check(reports.get("junit") in art.get("paths", []) and "nsys-gate.json" in art.get("paths", []),
          "template: JUnit and JSON verdict kept as artifacts")
    check(isinstance(job.get("script"), list) and job["script"], "template: a script")
    example = usage_example(path)
    check(example["gpu-time"]["extends"] == ".nsys-gate"
          and example["gpu-time"]["allow_failure"] == {"exit_codes": [1]},
          f"template usage example: {example}")
    known = gate_variables()
    for k in example["gpu-time"]["variables"]:
        check(k in known, f"template example: {k} is not a variable the gate reads")

    for fixture, want_rc in (("kern2023_cur120plus1.csv", 1), ("kern2023_cur120.csv", 0),
                             ("missing.csv", 2)):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(FIXTURES, "kern2023_base.csv"), d)
            if fixture != "missing.csv":
                shutil.copy(os.path.join(FIXTURES, fixture), d)
            p = run_gitlab_job(d, job, {"NSYS_GATE_BASELINE": "kern2023_base.csv",
                                        "NSYS_GATE_CURRENT": fixture, "NSYS_GATE_EPOCHS": "10",
                                        "NSYS_GATE_WRITE_SUMMARY": "nsys-gate.summary.json.gz"})
            check(p.returncode == want_rc, f"template job on {fixture}: exit {p.returncode}, "
                                           f"expected {want_rc}: {p.stderr}")
            check(not os.path.exists(os.path.join(d, "trapped")),
                  "template job: built although nsys-gate was on PATH")
            for f in art["paths"]:
                if f == "nsys-gate.summary.json.gz" and want_rc == 2:
                    continue   # a profile that cannot be read has no summary
                check(os.path.exists(os.path.join(d, f)), f"template job: artifact {f} missing")
            valid_junit(os.path.join(d, reports["junit"]))
            validate_output.check_metrics(os.path.join(d, reports["metrics"]))


# ---- the project's own workflow ----

def test_workflow():
    wf = load(".github/workflows/ci.yml")
    on = wf.get(True, wf.get("on"))   # YAML 1.1 reads a bare `on` as true
    check(on and "push" in on and "pull_request" in on, "ci.yml: on push and pull_request")
    check(wf.get("permissions") == {"contents": "read"}, "ci.yml: read-only token")
    jobs = wf.get("jobs", {})
    test = jobs.get("test", {})
    steps = test.get("steps", [])
    check(test.get("runs-on"), "ci.yml: test job runs-on")
    check(any(str(s.get("uses", "")).startswith("actions/checkout@") for s in steps),
          "ci.yml: checkout")
    check(any(s.get("run", "").strip() == "ci/test.sh" for s in steps), "ci.yml: runs ci/test.sh")
    upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    check(upload and upload[0].get("if") == "always()"
          and upload[0]["with"]["path"] == "build-test/meson-logs/testlog.junit.xml",
          "ci.yml: uploads ci/test.sh's JUnit (build-test/meson-logs/testlog.junit.xml) always")
    test_sh = open(os.path.join(SRCDIR, "ci", "test.sh")).read()
    check("builddir=build-test" in test_sh, "ci/test.sh no longer builds in build-test")
    selftest = [s for j in jobs.values() for s in j.get("steps", []) if s.get("uses") == "./"]
    check(len(selftest) >= 2, "ci.yml: the action itself is used (uses: ./) on a pass and a fail")
    for j in jobs.values():
        for s in j.get("steps", []):
            if "uses" in s and s["uses"] != "./":
                check(re.search(r"@v?\d", s["uses"]), f"ci.yml: {s['uses']} is not pinned")


# ---- the copy-paste examples ----

def test_examples():
    action = load("action.yml")
    known = gate_variables()
    docs = [os.path.join(SRCDIR, "README.md")]
    docs += [os.path.join(SRCDIR, "docs", f) for f in sorted(os.listdir(os.path.join(SRCDIR, "docs")))
             if f.endswith(".md")]
    uses_action = 0
    for doc in docs:
        text = open(doc, encoding="utf-8").read()
        for n, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S)):
            where = f"{os.path.basename(doc)} yaml block {n + 1}"
            try:
                y = yaml.safe_load(block)
            except yaml.YAMLError as e:
                check(False, f"{where}: not YAML: {e}")
                continue
            for step in walk_steps(y):
                if re.fullmatch(r"[\w.-]+/nsys-gate@v\d+", str(step.get("uses", ""))):
                    uses_action += 1
                    extra = set(step.get("with", {})) - set(action["inputs"])
                    check(not extra, f"{where}: inputs the action does not have: {extra}")
            for job in (y.values() if isinstance(y, dict) else []):
                if isinstance(job, dict) and job.get("extends") == ".nsys-gate":
                    bad = set(job.get("variables", {})) - known
                    check(not bad, f"{where}: variables the gate does not read: {bad}")
    check(uses_action >= 2, f"README/docs: {uses_action} examples use the action")
    # and every manifest shown is one the schema takes
    with open(os.path.join(SRCDIR, "schemas", "manifest.schema.json")) as f:
        manifest = jsonschema.Draft202012Validator(json.load(f))
    shown = 0
    for doc in docs:
        for block in re.findall(r"```json\n(.*?)```", open(doc, encoding="utf-8").read(), re.S):
            if '"gates"' not in block:
                continue   # verdict examples, shortened with "..."
            y = json.loads(block)
            if isinstance(y, dict):
                shown += 1
                for e in manifest.iter_errors(y):
                    check(False, f"{os.path.basename(doc)}: manifest example: {e.message}")
    check(shown >= 1, "README: no manifest example")


def test_junit_published():
    """docs/github-actions.md shows how to publish the JUnit report: in a workflow,
    a JUnit publisher step after the gate, on the gate's `junit` file, run
    always (a FAIL too), with the checks: write permission it needs."""
    text = open(os.path.join(SRCDIR, "docs", "github-actions.md"), encoding="utf-8").read()
    shown = 0
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        y = yaml.safe_load(block)
        if not isinstance(y, dict) or "jobs" not in y:
            continue
        for job in y["jobs"].values():
            steps = job.get("steps", [])
            gate = [s for s in steps if re.fullmatch(r"[\w.-]+/nsys-gate@v\d+", str(s.get("uses", "")))]
            pub = [s for s in steps if str(s.get("uses", "")).startswith("mikepenz/action-junit-report@")]
            if not gate or not pub:
                continue
            shown += 1
            check(pub[0]["with"].get("report_paths") == gate[0]["with"].get("junit"),
                  "github-actions.md: the JUnit publisher reads another file than the gate writes")
            check(pub[0].get("if") == "always()", "github-actions.md: the publisher must run always()")
            check(steps.index(pub[0]) > steps.index(gate[0]), "github-actions.md: publisher before gate")
            check((job.get("permissions") or y.get("permissions") or {}).get("checks") == "write",
                  "github-actions.md: the publisher needs checks: write")
    check(shown == 1, f"github-actions.md: {shown} workflows publish the JUnit report, expected 1")


def walk_steps(y):
    if isinstance(y, dict):
        if "uses" in y:
            yield y
        for v in y.values():
            yield from walk_steps(v)
    elif isinstance(y, list):
        for v in y:
            yield from walk_steps(v)


if __name__ == "__main__":
    run_tests([test_action, test_action_batch_outputs, test_gitlab, test_workflow, test_examples,
               test_junit_published])
