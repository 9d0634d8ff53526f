#!/usr/bin/python3
"""--metrics as Prometheus gets it: Debian's prometheus-node-exporter is
started on a free loopback port with only its textfile collector, reading
the directory the gate writes nsys_gate.prom into; its /metrics endpoint is
scraped over HTTP and parsed with prometheus_client's text parser.  Every
sample the file holds must be scraped with its value and labels (the
hostile gate names too), node_exporter must report no textfile error, and
after the gate rewrites the file (the next night, now failing) the next
scrape must show the new values.  node_exporter is stopped at the end.

Environment: GATE, GENTRACE, SRCDIR.  Under CI=true a missing
node_exporter is a failure, else the test is skipped (exit 77).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
from prometheus_client.parser import text_string_to_metric_families as prometheus_text

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FIXTURES, GATE, check, gate_env, run_tests  # noqa: E402

EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
NAMES = ["resnet50", "a#b %c", 'say "hi"']


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return r.read().decode()


def start(textdir):
    """node_exporter on a free port (a port taken in between: another try)."""
    for _ in range(5):
        port = free_port()
        p = subprocess.Popen([EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
                              "--collector.disable-defaults", "--collector.textfile",
                              f"--collector.textfile.directory={textdir}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(100):
            if p.poll() is not None:
                break
            try:
                scrape(port)
                return p, port
            except OSError:
                time.sleep(0.05)
        p.kill()
        p.wait()
    raise RuntimeError("node_exporter did not start")


def write_metrics(d, textdir, cur):
    """A batch of three gates (hostile names) writing textdir/nsys_gate.prom."""
    gates = ",".join(
        '{"name": %s, "baseline": "%s", "current": "%s", "epochs": 10}'
        % (json.dumps(n), os.path.join(FIXTURES, "kern2023_base.csv"), os.path.join(FIXTURES, cur))
        for n in NAMES)
    manifest = os.path.join(d, "m.json")
    with open(manifest, "w") as f:
        f.write('{"gates": [%s]}' % gates)
    subprocess.run([GATE, "--quiet", "--manifest", manifest, "--metrics",
                    os.path.join(textdir, "nsys_gate.prom")], env=gate_env(), check=False)
    return open(os.path.join(textdir, "nsys_gate.prom")).read()


def samples(families):
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for f in families for s in f.samples}


def compare(label, port, written):
    want = samples(openmetrics(written))
    got = samples(prometheus_text(scrape(port)))
    for key, value in want.items():
        check(got.get(key) == value, f"{label}: {key} scraped as {got.get(key)}, written {value}")
    errors = [v for (n, _), v in got.items() if n == "node_textfile_scrape_error"]
    check(errors == [0.0], f"{label}: node_textfile_scrape_error {errors}")
    return want


def test_textfile_collector(d):
    textdir = os.path.join(d, "textfile")
    os.makedirs(textdir)
    first = write_metrics(d, textdir, "kern2023_cur120.csv")
    proc, port = start(textdir)
    try:
        want = compare("passing night", port, first)
        check(len(want) == 6 * len(NAMES), f"{len(want)} samples written")
        second = write_metrics(d, textdir, "kern2023_cur120plus1.csv")
        after = compare("failing night", port, second)
        check(all(after[(n, l)] == 0 for (n, l) in after if n == "nsys_gate_pass"),
              "the second scrape still says the gates pass")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    if not EXPORTER:
        if os.environ.get("CI") == "true":
            print("FAIL: prometheus-node-exporter is missing", file=sys.stderr)
            sys.exit(1)
        print("skip: no prometheus-node-exporter")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        run_tests([test_textfile_collector], work)
