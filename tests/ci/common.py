"""What the ci suite's Python tests share: the environment meson gives
them, a failure list that every check appends to, the JUnit schemas to
validate against, and the environment a gate runs in (none of the caller's
NSYS_GATE_* or GITHUB_* settings)."""
import os
import subprocess
import sys

GATE = os.environ["GATE"]
GENTRACE = os.environ.get("GENTRACE", "")
SRCDIR = os.environ["SRCDIR"]
SHARED = os.environ.get("SHARED", "")
FIXTURES = os.path.join(SRCDIR, "tests", "golden", "fixtures")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def gate_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NSYS_GATE_", "GITHUB_"))}
    env.update(extra)
    return env


def junit_schemas():
    """schemas/junit.xsd, and the reference schemas when ../shared has them."""
    found = [os.path.join(SRCDIR, "schemas", "junit.xsd")]
    ref = os.path.join(SHARED, "reference", "junit")
    if SHARED and os.path.isdir(ref):
        found += sorted(os.path.join(ref, f) for f in os.listdir(ref) if f.endswith(".xsd"))
    else:
        print("note: no reference JUnit schemas (SHARED unset): schemas/junit.xsd only")
    return found


def valid_junit(path):
    for x in junit_schemas():
        p = subprocess.run(["xmllint", "--noout", "--schema", x, path], capture_output=True,
                           text=True)
        check(p.returncode == 0, f"{path} against {os.path.basename(x)}: {p.stderr.strip()}")


def run_tests(tests, *args):
    """Runs each test, says ok / not ok per test, exits 1 on any failure
    (also those validate_output found)."""
    import validate_output
    for t in tests:
        before = len(failures) + len(validate_output.problems)
        t(*args)
        now = len(failures) + len(validate_output.problems)
        print(f"{'ok' if now == before else 'not ok'} - {t.__name__}")
    failures.extend(validate_output.problems)
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)
