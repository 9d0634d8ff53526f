"""needs.py MODULES [SCRIPT [ARG...]]: runs SCRIPT with this Python when
this Python has every module of MODULES (comma-separated, may be empty);
without SCRIPT, only says whether it has them (exit 0).

A module it lacks makes the test a skip (exit 77) that names the module
and this Python, except under CI=true: there ci/test.sh has installed every
module the tests use (Debian's packages, ci/deps.sh) and points the tests
at that Python, so a missing one is a broken set-up, and fails (exit 1).
This is the one place that rule is written for Python modules; the tests
run under meson get this Python from -Dpython (tests/meson.build).
"""
import importlib.util
import os
import sys


def lacking(modules):
    out = []
    for m in modules:
        try:
            found = importlib.util.find_spec(m) is not None
        except ImportError:   # a parent package of a dotted name is missing
            found = False
        if not found:
            out.append(m)
    return out


def main():
    if len(sys.argv) < 2:
        print("usage: needs.py MODULES [SCRIPT [ARG...]]", file=sys.stderr)
        return 2
    missing = lacking([m for m in sys.argv[1].split(",") if m])
    script = sys.argv[2:]
    if missing:
        what = os.path.basename(script[0]) if script else "this test"
        s = "s" if len(missing) > 1 else ""
        why = (f"{what} needs the Python module{s} {', '.join(missing)}, which {sys.executable} "
               f"lacks (meson configure -Dpython=PATH for a Python that has it{s})")
        if os.environ.get("CI") == "true":
            print(f"not ok - {why}; under CI=true every test must run", file=sys.stderr)
            return 1
        print(f"skipped: {why}")
        return 77
    if not script:
        return 0
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable] + script)


if __name__ == "__main__":
    sys.exit(main())
