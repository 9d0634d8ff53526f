#!/usr/bin/python3
"""--metrics read by its consumers: Debian's prometheus_client OpenMetrics
parser, Prometheus's own linter (`promtool check metrics`, Debian's
prometheus: names in base units with the unit as suffix, no abbreviated
units) and a reimplementation of GitLab's metrics-report rule (strip '#'
to the end of the line, shell-split, keep the name and the first value).

For PASS, FAIL, ERROR and NVTX gates, and names with every character that
matters (# % " \\ newline space , : { } =), each parser must read every
sample, the values must equal the JSON verdict's figures at the printed
precision, and percent-decoding the label must give the name back.  First
the two parsers are shown to refuse or misread what the gate avoids (a raw
'#' in a label, a missing # EOF, a CR), so they can fail.

Environment: GATE, GENTRACE, SRCDIR.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

from prometheus_client.openmetrics.parser import text_string_to_metric_families

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_output  # noqa: E402
from common import FIXTURES, GATE, GENTRACE, check, failures, gate_env, run_tests  # noqa: E402

NAMES = ["plain", "a#b #c", "100% done", 'say "hi"', "back\\slash", "two\nlines",
         "spa ce, co:lon {x=y}"]


def self_test():
    good = '# TYPE m gauge\nm{name="a"} 1.000000\n# EOF\n'
    list(text_string_to_metric_families(good))
    check(validate_output.gitlab_metrics(good) == {"m{name=a}": "1.000000"}, "GitLab rule, good")
    # a raw '#' in a label: GitLab cuts the line and reads nothing
    check(validate_output.gitlab_metrics('m{name="a#b"} 1\n') == {}, "GitLab rule, raw #")
    for bad in ('# TYPE m gauge\nm{name="a"} 1\n', '# TYPE m gauge\r\nm 1\r\n# EOF\r\n',
                '# TYPE m gauge\nm{name="a\nb"} 1\n# EOF\n'):
        try:
            list(text_string_to_metric_families(bad))
            check(False, f"the OpenMetrics parser took {bad!r}")
        except Exception:
            pass
    # promtool refuses what the gate wrote until 0.1.0
    if PROMTOOL:
        before = len(failures)
        promtool("self-test", "# HELP nsys_gate_baseline_ms_per_epoch x.\n"
                 "# TYPE nsys_gate_baseline_ms_per_epoch gauge\n"
                 "nsys_gate_baseline_ms_per_epoch{name=\"a\"} 1.000000\n# EOF\n")
        check(len(failures) > before, "promtool took an abbreviated unit")
        del failures[before:]
    before = len(validate_output.problems)
    with tempfile.NamedTemporaryFile("w", suffix=".prom", delete=False) as f:
        f.write('# TYPE m gauge\nm{name="a#b"} 1.000000\n# EOF\n')
    validate_output.check_metrics(f.name)
    os.unlink(f.name)
    check(len(validate_output.problems) > before, "validate_output missed a raw # in a label")
    del validate_output.problems[before:]


def gate(d, args, name):
    p = subprocess.run([GATE, "--quiet", "--name", name, "--metrics", "m.prom", "--json", "v.json",
                        *args], cwd=d, env=gate_env(), capture_output=True, text=True)
    return (p.returncode, open(os.path.join(d, "m.prom"), encoding="utf-8").read(),
            json.load(open(os.path.join(d, "v.json"))))


def fixed(x):
    """%.6f, as the gate prints (and rounds) it."""
    return float(f"{x:.6f}")


def seconds(ms):
    """ms as seconds at %.9f (to the nanosecond), as the gate prints them."""
    return float(f"{ms / 1000.0:.9f}")


PROMTOOL = shutil.which("promtool")


def promtool(where, text):
    """promtool's lint: exit 0 and nothing said, or the problem."""
    if not PROMTOOL:
        check(os.environ.get("CI") != "true", "promtool is missing (Debian's prometheus)")
        return
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True)
    check(p.returncode == 0 and not (p.stdout + p.stderr).strip(),
          f"{where}: promtool check metrics: exit {p.returncode} {(p.stdout + p.stderr).strip()}")


def expected(v):
    """What the metrics must say, from the JSON verdict."""
    want = {"nsys_gate_pass": 1.0 if v["verdict"] in ("pass", "inconclusive") else 0.0,
            "nsys_gate_threshold": fixed(v["threshold"])}
    if v["ratio"] is not None:
        want["nsys_gate_ratio"] = fixed(v["ratio"])
    for side in ("baseline", "current"):
        if v[f"{side}_ms_per_epoch"] is not None:
            want[f"nsys_gate_{side}_epoch_gpu_time_seconds"] = seconds(v[f"{side}_ms_per_epoch"])
    if v["epochs"] is not None:
        want["nsys_gate_epochs"] = float(v["epochs"])
    if v["p_value"] is not None:
        want["nsys_gate_p_value"] = float(f"{v['p_value']:.6e}")
    return want


def check_case(label, rc, text, v):
    where = f"{label} ({v['name']!r})"
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:
        check(False, f"{where}: OpenMetrics parser: {e}")
        return
    got = {}
    for f in families:
        for s in f.samples:
            got[s.name] = s.value
            name = urllib.parse.unquote(s.labels["name"])
            check(name == v["name"], f"{where}: label decodes to {name!r}")
    check(got == expected(v), f"{where}: samples {got}, expected {expected(v)}")
    promtool(where, text)
    gitlab = validate_output.gitlab_metrics(text)
    check(len(gitlab) == len(got), f"{where}: GitLab reads {len(gitlab)} of {len(got)} samples")
    for key, value in gitlab.items():
        family = key.split("{", 1)[0]
        check(family in got and float(value) == got[family],
              f"{where}: GitLab reads {key} = {value}, OpenMetrics {got.get(family)}")


def test_self():
    self_test()


def test_gates():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([GENTRACE, "-o", os.path.join(d, "b.sqlite"), "--kernels", "3000",
                        "--names", "6", "--epochs", "10", "--jitter", "0.03", "--seed", "1"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([GENTRACE, "-o", os.path.join(d, "c.sqlite"), "--kernels", "3000",
                        "--names", "6", "--epochs", "10", "--jitter", "0.03", "--seed", "2",
                        "--slow", "3:1.8"], check=True, stdout=subprocess.DEVNULL)
        base = os.path.join(FIXTURES, "kern2023_base.csv")
        cases = [
            ("pass", [base, os.path.join(FIXTURES, "kern2023_cur120.csv"), "--epochs", "10"], 0),
            ("fail", [base, os.path.join(FIXTURES, "kern2023_cur120plus1.csv"), "--epochs", "10"], 1),
            ("error", [base, os.path.join(d, "missing.sqlite")], 2),
            ("nvtx", ["b.sqlite", "c.sqlite", "--epoch-range", "auto"], 1),
        ]
        for label, args, rc_want in cases:
            for name in NAMES:
                rc, text, v = gate(d, args, name)
                check(rc == rc_want, f"{label}: exit {rc}, expected {rc_want}")
                check_case(label, rc, text, v)


if __name__ == "__main__":
    run_tests([test_self, test_gates])
