#!/usr/bin/python3
"""Whether two JSON verdicts are the same but for the fields that name the inputs: a verdict
on summaries against the verdict on the profiles they were made from (docs/summaries.md).

    same_verdict.py PROFILES.json SUMMARIES.json SUMMARY=PROFILE...

Each SUMMARY path is read as its PROFILE's, and the runs' summary_of objects are dropped.
Exit 0 when the documents are then equal, 1 with the first difference.
"""
import json
import sys


def norm(x, names):
    if isinstance(x, dict):
        return {k: norm(v, names) for k, v in x.items() if k != "summary_of"}
    if isinstance(x, list):
        return [norm(v, names) for v in x]
    if isinstance(x, str):
        for summary, profile in names:
            x = x.replace(summary, profile)
    return x


def first_diff(a, b, where="$"):
    if type(a) is not type(b):
        return "%s: %r != %r" % (where, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: only in one" % (where, k)
            d = first_diff(a[k], b[k], where + "." + k)
            if d:
                return d
        return ""
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d items != %d" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return ""
    return "" if a == b else "%s: %r != %r" % (where, a, b)


def main():
    want, got = (json.load(open(p)) for p in sys.argv[1:3])
    names = [tuple(a.split("=", 1)) for a in sys.argv[3:]]
    d = first_diff(norm(want, []), norm(got, names))
    if d:
        print(d, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
