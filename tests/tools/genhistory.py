#!/usr/bin/env python3
"""Writes a --history file of N nights from one real history line (written
by the gate): each night a copy of it with its own current ms/epoch, date
and commit.  The level is 1 (times the template's ms/epoch), with

  --step NIGHT:FACTOR     the level times FACTOR from NIGHT on (0-based)
  --creep NIGHT:LEN:RATE  +RATE a night for LEN nights from NIGHT
  --spike NIGHT:FACTOR    that one night times FACTOR
  --noise SIGMA           Gaussian noise, relative (seeded by --seed)
  --error NIGHT           that night an error verdict
  --fail-from NIGHT       from NIGHT on the verdict is fail (the runs a gate
                          failed, as a regression that landed makes them)

Commits are sha1("NAME/NIGHT"), night 0 at --start (UTC seconds), a
night a day.

usage: genhistory.py TEMPLATE.jsonl OUT.jsonl --name NAME --nights N [...]
       (OUT is appended to, so several gates can share a file)"""
import argparse
import hashlib
import json
import random
import sys
import time


def commit_of(name, night):
    return hashlib.sha1(f"{name}/{night}".encode()).hexdigest()


def levels(a):
    lv = [1.0] * a.nights
    for s in a.step:
        at, f = s.split(":")
        for i in range(int(at), a.nights):
            lv[i] *= float(f)
    for c in a.creep:
        at, n, rate = c.split(":")
        for i in range(int(at), a.nights):
            lv[i] *= 1 + float(rate) * min(i - int(at) + 1, int(n))
    rng = random.Random(a.seed)
    for i in range(a.nights):
        lv[i] *= 1 + rng.gauss(0, a.noise)
    for s in a.spike:
        at, f = s.split(":")
        lv[int(at)] *= float(f)
    return lv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("template")
    p.add_argument("out")
    p.add_argument("--name", required=True)
    p.add_argument("--nights", type=int, required=True)
    p.add_argument("--step", action="append", default=[])
    p.add_argument("--creep", action="append", default=[])
    p.add_argument("--spike", action="append", default=[])
    p.add_argument("--error", action="append", type=int, default=[])
    p.add_argument("--fail-from", type=int, default=None)
    p.add_argument("--noise", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=1700000000 - 100 * 86400)
    p.add_argument("--run-url", default="")
    a = p.parse_args()
    with open(a.template) as f:
        base = json.loads(f.readline())
    ms0 = base["current_ms_per_epoch"]
    with open(a.out, "a") as out:
        for i, lv in enumerate(levels(a)):
            d = json.loads(json.dumps(base))
            ms = round(ms0 * lv, 6)
            d["name"] = a.name
            d["current_ms_per_epoch"] = ms
            d["current"]["median_ms"] = ms
            d["ratio"] = round(ms / d["baseline_ms_per_epoch"], 6)
            d["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(a.start + 86400 * i))
            d["context"]["commit"] = commit_of(a.name, i)
            if a.run_url:
                d["context"]["run_url"] = a.run_url.replace("{night}", str(i))
            if a.fail_from is not None and i >= a.fail_from:
                d["verdict"] = "fail"
            if i in a.error:
                d["verdict"] = "error"
                d["error"] = "unable to open 'x': No such file or directory"
            out.write(json.dumps(d, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.exit(main())
