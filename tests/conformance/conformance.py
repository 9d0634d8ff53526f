#!/usr/bin/python3
"""Conformance of nsys-gate against real NVIDIA Nsight Systems data and real nsys binaries.

usage: conformance.py --gate PATH --srcdir PROJECT_ROOT --shared SHARED_DIR

The unit tests check the gate against what we *believe* nsys writes. This script checks it
against what nsys *does* write: the real exports and reports in SHARED_DIR/nsys-samples, the
saved console output of real `nsys stats` runs (SHARED_DIR/nsys-samples/generated), and live
runs of Debian's nsys 2023.4 and 2022.4 (fetched by SRCDIR/ci/fetch-nsys.sh).

Every figure the gate prints is compared with a figure computed here from nsys's own output,
parsed by the small parsers below. They are written from the format notes
(SHARED_DIR/notes/nsys-formats.md), not from the gate's code, so a misreading in the gate is
not repeated here.

Output: one `ok - ...` or `not ok - ...: details` line per check, then exactly one line
`N passed, M failed`. Exit 0 when all passed, 1 when any failed, 77 (meson's "skipped") when
the samples or nsys are not available -- except under CI=true, where a skip is a failure
(unless NSYS_GATE_CONFORMANCE=optional says the pipeline has no samples on purpose).

The NVTX per-epoch checks compare the gate's epochs with nsys's nvtx_kern_sum and
nvtx_gpu_proj_trace the same way; where the two differ, this script's own projection of the
ranges (from the SQLite export, by nsys's definition) says why. Some of them edit a copy of a
sample, through Python's sqlite3 module or else the sqlite3 shell.

Beyond the standard library, one check (epochs of two kinds on the real pair) takes its
reference figures from tests/stats/decision_check.py, which uses scipy and numpy.
"""

import argparse
import bisect
import decimal
import fnmatch
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

EXIT_SKIP = 77          # meson's "test skipped"
GATE_TIMEOUT = 300      # seconds; the gate reads these samples in well under a second
NSYS_TIMEOUT = 300      # seconds; nsys stats/export of these samples take about a second

# Samples that hold no kernel data at all (SOURCES.txt): nsys prints SKIPPED for them and
# the gate must refuse them, never report 0 ms.
NO_KERNEL_SAMPLES = ("extra/uvmTorch_*.sqlite", "extra/quasiben_quickstart_*.sqlite")

# The .nsys-rep samples and the sqlite nsys 2023.4.4 derived from each (SOURCES.txt).
NSYS_REP_SAMPLES = (
    "05_ayush_vector_add_v3_nsys2023.1.2.nsys-rep",
    "05b_ayush_vector_add_v2_nsys2023.1.2.nsys-rep",
    "06_young768_nvfuser_report2_nsys2023.2.3.nsys-rep",
)
DERIVED_SUFFIX = "__exported_by_2023.4.4.sqlite"

# Which sample a saved console output in generated/ was made from, by the start of its file
# name (SOURCES.txt, and the file names inside the "Processing [X.sqlite]" lines).
# from_nsys-rep_generating_sqlite_preamble ran on a copy of sample 06 named rep.nsys-rep
# (its rows are nvFuser's CudaCodeGen kernels).
SAVED_OUTPUT_SOURCES = (
    ("workflow", "01_*.sqlite"),
    ("cudf", "02_*.sqlite"),
    ("vecadd_v3", "05_*" + DERIVED_SUFFIX),
    ("nvfuser", "06_*" + DERIVED_SUFFIX),
    ("from_nsys-rep_generating_sqlite", "06_*" + DERIVED_SUFFIX),
    ("mfu_before", "07_*.sqlite"),
)

GATE_PROFILE_HEAD = re.compile(
    r"^# (?P<path>.*) \((?P<format>[a-z-]+)\): (?P<total>\d+) ns in (?P<count>\d+) "
    r"launches, (?P<names>\d+) rows$")
GATE_NOTE = "# left out by --work: "
GATE_ROWS_HEADER = "total_ns\tinstances\tkind\tname"
TIME_UNIT_NS = {"ns": 1, "us": 1000, "ms": 10 ** 6, "s": 10 ** 9}
KERNEL_SKIPPED = "does not contain CUDA kernel data"
ELLIPSIS = "\u2026"     # nsys's column format ends a truncated name with it


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------

class Results:
    """Collects and prints ok / not ok lines as they happen (so a hang shows where)."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, description):
        self.passed += 1
        print("ok - " + one_line(description), flush=True)

    def not_ok(self, description, details):
        self.failed += 1
        print("not ok - %s: %s" % (one_line(description), one_line(details)), flush=True)

    def expect(self, condition, description, details):
        """Records a check; details (a string or a function making one) only on failure."""
        if condition:
            self.ok(description)
        else:
            self.not_ok(description, details() if callable(details) else details)
        return bool(condition)


def one_line(text, limit=1500):
    text = " | ".join(part for part in str(text).splitlines() if part.strip())
    return text if len(text) <= limit else text[:limit] + "..."


def short(name, limit=70):
    return name if len(name) <= limit else name[:limit] + "..."


class Skip(Exception):
    """A prerequisite (samples, nsys) is missing: skip, or fail under CI=true."""


# ------------------------------------------------------------------------------------------
# Running things
# ------------------------------------------------------------------------------------------

class Run:
    def __init__(self, argv, rc, out, err, timed_out=False):
        self.argv, self.rc, self.out, self.err, self.timed_out = argv, rc, out, err, timed_out

    def err_lines(self):
        return [line for line in self.err.splitlines() if line.strip()]

    def describe(self):
        return "`%s` -> exit %s; stdout %r; stderr %r" % (
            " ".join(self.argv), "TIMEOUT" if self.timed_out else self.rc,
            self.out[:300], self.err[:600])


def run(argv, cwd=None, env=None, timeout=GATE_TIMEOUT):
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return Run(argv, None, decode(e.stdout or b""), decode(e.stderr or b""), True)
    return Run(argv, p.returncode, decode(p.stdout), decode(p.stderr))


def decode(data):
    # Kernel names are UTF-8 in practice; the gate prints invalid bytes as U+FFFD, and so
    # does this decoding.
    return data.decode("utf-8", errors="replace")


def clean_env(**extra):
    """The caller's environment without NSYS_GATE_* (a stray NSYS_GATE_JSON or
    NSYS_GATE_NSYS must not change what is being tested), plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NSYS_GATE_")}
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def listing(directory):
    return sorted(os.listdir(directory))


# ------------------------------------------------------------------------------------------
# Parsers, written from the format notes, independent of the gate
# ------------------------------------------------------------------------------------------

class KernelSummary:
    """One kernel summary report block of `nsys stats` output.

    rows: list of (name, total_ns, instances) in nsys's order; the _gb_ and 2022 gpukernsum
    variants repeat a name once per grid/block shape. exact: False when the time unit cannot
    represent nanoseconds exactly (ms with 4 decimals)."""

    def __init__(self, kind, unit):
        self.kind, self.unit = kind, unit      # kind: "csv" or "column"
        self.rows = []
        self.exact = True

    @property
    def total_ns(self):
        return sum(r[1] for r in self.rows)

    @property
    def instances(self):
        return sum(r[2] for r in self.rows)

    def by_name(self):
        """name -> (total_ns, instances), adding up rows that share a name."""
        grouped = {}
        for name, total, count in self.rows:
            t, c = grouped.get(name, (0, 0))
            grouped[name] = (t + total, c + count)
        return grouped


class ParsedOutput:
    def __init__(self):
        self.summaries = []          # KernelSummary blocks, in order
        self.kernel_skipped = 0      # "SKIPPED: ... does not contain CUDA kernel data." lines


def to_ns(text, unit, summary):
    """A time cell in `unit` as integer ns; marks summary inexact when rounding was needed."""
    value = decimal.Decimal(text.replace(",", "")) * TIME_UNIT_NS[unit]
    if value != value.to_integral_value():
        summary.exact = False
    return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def kernel_header_unit(cells):
    """The time unit if these header cells are a kernel summary header, else None.

    Kernel summaries (cuda_gpu_kern_sum, gpukernsum, cuda_gpu_kern_gb_sum, 2020..2026) are
    the only reports whose header starts Time(%) / Total Time (unit) / Instances and ends with
    Name: cuda_api_sum has "Num Calls", nvtx_sum ends with "Range", cuda_gpu_sum with
    "Operation", nvtx_kern_sum starts with "NVTX Range"."""
    if len(cells) < 4 or cells[0] not in ("Time (%)", "Time(%)"):
        return None
    m = re.fullmatch(r"Total Time \((ns|us|ms|s)\)", cells[1])
    if not m or cells[2] != "Instances" or cells[-1] != "Name":
        return None
    return m.group(1)


def parse_nsys_stats(text):
    """Finds every kernel summary in `nsys stats` console output or a saved CSV file.

    CSV (nsys-formats.md section 1): quoting is not RFC 4180 -- a cell is quoted only when it
    holds a comma and inner quotes are not doubled -- but Name is the last column, so the
    first N-1 cells are split on commas and the rest of the line is the name, less one pair
    of surrounding quotes. A block ends at an empty line.

    Column (the default console format): a header, a line of dash runs that gives each
    column's extent, rows until an empty line. Numbers may carry thousands separators; long
    names are cut and end with an ellipsis."""
    parsed = ParsedOutput()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        i += 1
        if line.startswith("SKIPPED:") and KERNEL_SKIPPED in line:
            parsed.kernel_skipped += 1
            continue
        cells = line.split(",")
        unit = kernel_header_unit(cells)
        if unit:
            summary = KernelSummary("csv", unit)
            ncols = len(cells)
            while i < len(lines) and lines[i].rstrip("\r") != "":
                row = lines[i].rstrip("\r").split(",", ncols - 1)
                i += 1
                if len(row) != ncols:
                    raise ValueError("CSV row with %d cells, header has %d: %r"
                                     % (len(row), ncols, ",".join(row)[:200]))
                name = row[-1]
                if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
                    name = name[1:-1]
                summary.rows.append((name, to_ns(row[1], unit, summary), int(row[2])))
            parsed.summaries.append(summary)
            continue
        # Column format: header cells separated by two or more spaces, then the dash line.
        cells = re.split(r" {2,}", line.strip())
        unit = kernel_header_unit(cells)
        if unit and i < len(lines) and re.fullmatch(r"[ -]*-[ -]*", lines[i].rstrip("\r")):
            spans = [m.span() for m in re.finditer(r"-+", lines[i].rstrip("\r"))]
            i += 1
            if len(spans) != len(cells):
                raise ValueError("column header has %d cells but %d dash runs"
                                 % (len(cells), len(spans)))
            summary = KernelSummary("column", unit)
            while i < len(lines) and lines[i].strip() != "":
                row = lines[i].rstrip("\r")
                i += 1
                total = row[spans[1][0]:spans[1][1]].strip()
                count = row[spans[2][0]:spans[2][1]].strip().replace(",", "")
                name = row[spans[-1][0]:].rstrip(" ")
                summary.rows.append((name, to_ns(total, unit, summary), int(count)))
            parsed.summaries.append(summary)
    return parsed


class GateProfile:
    def __init__(self, m):
        self.path = m.group("path")
        self.format = m.group("format")
        self.total_ns = int(m.group("total"))
        self.count = int(m.group("count"))
        self.n_names = int(m.group("names"))
        self.rows = {}           # name -> (total_ns, instances)
        self.duplicates = []     # names printed twice (the gate should have merged them)


def parse_gate_profiles(stdout):
    """Parses `nsys-gate --print-profile` output into GateProfile objects."""
    profiles = []
    for line in stdout.split("\n"):
        if line == "" or line == GATE_ROWS_HEADER or line.startswith(GATE_NOTE):
            continue
        m = GATE_PROFILE_HEAD.match(line)
        if m:
            profiles.append(GateProfile(m))
            continue
        if not profiles:
            raise ValueError("row before the '# PATH (FORMAT): ...' line: %r" % line[:200])
        kind, name, total, count = parse_gate_row(line)
        prof = profiles[-1]
        key = name if kind == "kernel" else (kind, name)
        if key in prof.rows:
            prof.duplicates.append(name)
        prof.rows[key] = (total, count)
    return profiles


def parse_gate_row(line):
    """(kind, name, total_ns, instances) of a 'total_ns<TAB>instances<TAB>kind<TAB>name' row."""
    parts = line.split("\t", 3)
    if len(parts) != 4 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError("not a 'total_ns<TAB>instances<TAB>kind<TAB>name' row: %r" % line[:200])
    return parts[2], parts[3], int(parts[0]), int(parts[1])


def gate_shown_name(name):
    """A kernel name as --print-profile shows it: control characters as \\xNN."""
    return "".join("\\x%02X" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F else c
                   for c in name)


def rows_diff(expected, got, limit=4):
    """'' when the two name -> (total_ns, instances) maps are equal, else what differs."""
    problems = []
    for name in sorted(set(expected) | set(got)):
        e, g = expected.get(name), got.get(name)
        if e == g:
            continue
        if g is None:
            problems.append("missing in gate: %r %s" % (short(name), e))
        elif e is None:
            problems.append("only in gate: %r %s" % (short(name), g))
        else:
            problems.append("%r: expected %s, gate %s" % (short(name), e, g))
    if not problems:
        return ""
    more = len(problems) - limit
    return "; ".join(problems[:limit]) + ("; ... %d more" % more if more > 0 else "")


# ------------------------------------------------------------------------------------------
# Context: paths, binaries and memoised nsys runs shared by the checks
# ------------------------------------------------------------------------------------------

class Context:
    def __init__(self, gate, srcdir, shared, tmp, results):
        self.gate = gate
        self.srcdir = srcdir
        self.samples = os.path.join(shared, "nsys-samples")
        self.tmp = tmp
        self.results = results
        self.nsys = {}               # "2023.4" -> path
        self._stats_cache = {}
        self._counter = 0

    # -- files -----------------------------------------------------------------------------

    def sample(self, pattern):
        """The one sample matching a glob relative to nsys-samples/ (error if not one)."""
        matches = sorted(p for p in self.sample_files() if fnmatch.fnmatch(p, pattern))
        if len(matches) != 1:
            raise RuntimeError("expected one sample matching %r, found %r" % (pattern, matches))
        return matches[0]

    def sample_files(self):
        """Paths relative to nsys-samples/ of the top-level and extra/ samples."""
        found = []
        for sub in ("", "extra"):
            d = os.path.join(self.samples, sub)
            if os.path.isdir(d):
                found += [os.path.join(sub, n) if sub else n for n in sorted(os.listdir(d))
                          if os.path.isfile(os.path.join(d, n))]
        return found

    def path(self, rel):
        return os.path.join(self.samples, rel)

    def fresh_dir(self, label):
        """A new empty directory under the run's temp dir."""
        self._counter += 1
        d = os.path.join(self.tmp, "%02d-%s" % (self._counter, label))
        os.mkdir(d)
        return d

    def copy_sample(self, rel, directory, name=None):
        """A writable copy, so nsys (which writes beside its input) and a gate that wrongly
        wrote would both be free to: the checks then see what they did."""
        dst = os.path.join(directory, name or os.path.basename(rel))
        shutil.copyfile(self.path(rel), dst)
        os.chmod(dst, 0o644)
        return dst

    # -- the gate --------------------------------------------------------------------------

    def gate_run(self, args, cwd=None, **env):
        return run([self.gate] + args, cwd=cwd, env=clean_env(**env))

    def gate_profile(self, path, args=(), cwd=None, **env):
        """(Run, GateProfile or None, problem text or '') for --print-profile PATH."""
        r = self.gate_run(list(args) + ["--print-profile", path], cwd=cwd, **env)
        if r.rc != 0:
            return r, None, "gate failed: " + r.describe()
        try:
            profiles = parse_gate_profiles(r.out)
        except ValueError as e:
            return r, None, "unparsable --print-profile output: %s" % e
        if len(profiles) != 1:
            return r, None, "expected 1 profile in the output, got %d" % len(profiles)
        if profiles[0].duplicates:
            return r, None, "gate printed kernel names twice: %r" % profiles[0].duplicates[:3]
        return r, profiles[0], ""

    # -- nsys ------------------------------------------------------------------------------

    def nsys_stats(self, version, rel, extra_args=(), label="stats"):
        """Runs real nsys `stats` on a private copy of sample rel (nsys may write beside its
        input). Returns (Run, ParsedOutput or None, problem text). Memoised."""
        key = (version, rel, tuple(extra_args))
        if key not in self._stats_cache:
            d = self.fresh_dir("nsys%s-%s" % (version, label))
            copy = self.copy_sample(rel, d)
            r = run([self.nsys[version], "stats"] + list(extra_args) + [os.path.basename(copy)],
                    cwd=d, env=clean_env(), timeout=NSYS_TIMEOUT)
            parsed, problem = None, ""
            if r.rc != 0:
                problem = "nsys failed: " + r.describe()
            else:
                try:
                    parsed = parse_nsys_stats(r.out)
                except ValueError as e:
                    problem = "cannot parse nsys output: %s" % e
            self._stats_cache[key] = (r, parsed, problem)
        return self._stats_cache[key]

    def nsys_kern_sum_csv(self, rel):
        """nsys 2023.4's cuda_gpu_kern_sum of sample rel as CSV, with -q (no framing):
        (Run, KernelSummary or None, problem)."""
        r, parsed, problem = self.nsys_stats(
            "2023.4", rel, ["--report", "cuda_gpu_kern_sum", "--format", "csv", "-q"], "csv")
        if problem:
            return r, None, problem
        if len(parsed.summaries) != 1:
            return r, None, "nsys printed %d kernel summaries (SKIPPED lines: %d)" % (
                len(parsed.summaries), parsed.kernel_skipped)
        return r, parsed.summaries[0], ""


def expect_profile_matches(ctx, description, prof, summary):
    """Gate profile vs a KernelSummary: total (to the ns when the unit allows), launch count
    and per-name rows (names as nsys printed them: rows whose names the column format cut to
    the same text are one kernel to the gate too)."""
    res = ctx.results
    problems = []
    if summary.exact and prof.total_ns != summary.total_ns:
        problems.append("total: gate %d ns, nsys %d ns (diff %+d)"
                        % (prof.total_ns, summary.total_ns, prof.total_ns - summary.total_ns))
    # ms has 4 decimals (100 ns): each row may be off by half of that.
    if not summary.exact and abs(prof.total_ns - summary.total_ns) > \
            len(summary.rows) * TIME_UNIT_NS[summary.unit] // 10000:
        problems.append("total: gate %d ns, nsys ~%d ns (inexact unit %s)"
                        % (prof.total_ns, summary.total_ns, summary.unit))
    if prof.count != summary.instances:
        problems.append("launches: gate %d, nsys %d" % (prof.count, summary.instances))
    expected = {gate_shown_name(n): v for n, v in summary.by_name().items()}
    got = prof.rows
    if not summary.exact:  # per-row times are rounded: compare instances only
        expected = {n: (None, c) for n, (t, c) in expected.items()}
        got = {n: (None, c) for n, (t, c) in got.items()}
    diff = rows_diff(expected, got)
    if diff:
        problems.append("rows: " + diff)
    if prof.n_names != len(prof.rows):
        problems.append("header says %d names, %d rows printed" % (prof.n_names, len(prof.rows)))
    return res.expect(not problems, description, "; ".join(problems))


# ------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------

def kernel_sqlite_samples(ctx):
    no_kernel = [p for p in ctx.sample_files()
                 if any(fnmatch.fnmatch(p, pat) for pat in NO_KERNEL_SAMPLES)]
    return [p for p in ctx.sample_files() if p.endswith(".sqlite") and p not in no_kernel]


def check_sqlite_against_nsys_stats(ctx):
    """1. Every SQLite sample with kernels: the gate's figures equal nsys 2023.4's
    cuda_gpu_kern_sum (CSV and column format), and the gate reads nsys's saved output of it
    (2023.4 CSV, 2023.4 column, 2022.4 gpukernsum CSV) to the same figures."""
    res = ctx.results
    for rel in kernel_sqlite_samples(ctx):
        tag = rel  # shown in every line of this sample
        r, csv_sum, problem = ctx.nsys_kern_sum_csv(rel)
        if problem:
            res.not_ok("%s: nsys 2023.4 cuda_gpu_kern_sum --format csv -q" % tag, problem)
            continue
        # -q must leave nothing but the report: the header is the very first line.
        res.expect(r.out.startswith("Time (%),Total Time (ns),Instances,"),
                   "%s: nsys 2023.4 stats -q prints the CSV header first" % tag,
                   lambda: "first line %r" % r.out.split("\n", 1)[0][:200])
        # nsys's own report groups by (demangled) name: one row per name.
        names = [row[0] for row in csv_sum.rows]
        res.expect(len(names) == len(set(names)),
                   "%s: nsys cuda_gpu_kern_sum has one row per name" % tag,
                   lambda: "repeated: %r" % sorted({short(n) for n in names
                                                   if names.count(n) > 1})[:3])

        # The gate on the ORIGINAL shared file (it must read it in place, read-only).
        _, prof, problem = ctx.gate_profile(ctx.path(rel))
        if problem:
            res.not_ok("%s: gate --print-profile" % tag, problem)
        else:
            res.expect(prof.format == "sqlite", "%s: gate reads it as sqlite" % tag,
                       "format %r" % prof.format)
            expect_profile_matches(
                ctx, "%s: gate total %d ns, %d launches, %d rows == nsys 2023.4 "
                "cuda_gpu_kern_sum" % (tag, csv_sum.total_ns, csv_sum.instances,
                                       len(csv_sum.rows)), prof, csv_sum)

        # Round trip: nsys's CSV text saved to a file, read back by the gate's text parser.
        d = ctx.fresh_dir("saved-csv")
        saved = os.path.join(d, "kern_sum.csv")
        with open(saved, "w", encoding="utf-8") as f:
            f.write(r.out)
        _, prof, problem = ctx.gate_profile(saved)
        if problem:
            res.not_ok("%s: gate reads nsys's saved CSV" % tag, problem)
        else:
            expect_profile_matches(ctx, "%s: gate reads nsys 2023.4's saved CSV to the same "
                                   "total and rows" % tag, prof, csv_sum)

        # The human column format (the default), with nsys's console framing. Its times are
        # integer ns, so exact; long names are cut, so the gate can only see cut names.
        r, parsed, problem = ctx.nsys_stats("2023.4", rel, ["--report", "cuda_gpu_kern_sum"],
                                            "column")
        if problem or len(parsed.summaries) != 1:
            res.not_ok("%s: nsys 2023.4 cuda_gpu_kern_sum column format" % tag,
                       problem or "%d kernel summaries found" % len(parsed.summaries))
        else:
            col = parsed.summaries[0]
            uncut = {n: v for n, v in col.by_name().items() if not n.endswith(ELLIPSIS)}
            full = csv_sum.by_name()
            res.expect(col.total_ns == csv_sum.total_ns and col.instances == csv_sum.instances
                       and all(full.get(n) == v for n, v in uncut.items()),
                       "%s: nsys's column and CSV formats agree" % tag,
                       lambda: "column %d ns/%d, csv %d ns/%d" % (
                           col.total_ns, col.instances, csv_sum.total_ns, csv_sum.instances))
            saved = os.path.join(d, "kern_sum_column.txt")
            with open(saved, "w", encoding="utf-8") as f:
                f.write(r.out)
            _, prof, problem = ctx.gate_profile(saved)
            if problem:
                res.not_ok("%s: gate reads nsys's saved column output" % tag, problem)
            else:
                # Rows whose cut names coincide are one kernel to the gate: compare by the
                # names as printed.
                expect_profile_matches(ctx, "%s: gate reads nsys 2023.4's column output "
                                       "(framing, %d cut names) to the same total and rows"
                                       % (tag, len(col.rows) - len(uncut)), prof, col)

        # nsys 2022.4's gpukernsum (GridXYZ/BlockXYZ columns; one name may span several
        # rows) saved as text: the gate must add the rows up to the same total.
        r, parsed, problem = ctx.nsys_stats("2022.4", rel, ["--report", "gpukernsum",
                                                           "--format", "csv", "-q"], "csv")
        if problem or len(parsed.summaries) != 1:
            res.not_ok("%s: nsys 2022.4 gpukernsum CSV" % tag,
                       problem or "%d kernel summaries found" % len(parsed.summaries))
            continue
        old = parsed.summaries[0]
        res.expect(old.by_name() == csv_sum.by_name(),
                   "%s: nsys 2022.4 gpukernsum (per name) == nsys 2023.4 cuda_gpu_kern_sum" % tag,
                   lambda: rows_diff(csv_sum.by_name(), old.by_name()))
        saved = os.path.join(d, "gpukernsum_2022.csv")
        with open(saved, "w", encoding="utf-8") as f:
            f.write(r.out)
        _, prof, problem = ctx.gate_profile(saved)
        if problem:
            res.not_ok("%s: gate reads nsys 2022.4's saved gpukernsum CSV" % tag, problem)
        else:
            expect_profile_matches(ctx, "%s: gate reads nsys 2022.4's gpukernsum CSV (%d rows "
                                   "for %d names) to the same total and rows"
                                   % (tag, len(old.rows), len(old.by_name())), prof, old)


def expect_no_kernel_error(ctx, description, r):
    """Exit 2, nothing on stdout, one `ERROR: ... no CUDA kernel data ...` line."""
    lines = r.err_lines()
    ctx.results.expect(
        r.rc == 2 and r.out == "" and len(lines) == 1 and lines[0].startswith("ERROR:")
        and "no CUDA kernel data" in lines[0],
        description, lambda: r.describe())


def check_no_kernel_samples(ctx):
    """2. Samples without kernels: nsys says SKIPPED; the gate refuses them (exit 2), in
    --print-profile and as either side of a comparison, never reporting 0 ms."""
    res = ctx.results
    good = ctx.sample("01_*.sqlite")
    for pattern in NO_KERNEL_SAMPLES:
        rel = ctx.sample(pattern)
        r, parsed, problem = ctx.nsys_stats("2023.4", rel, ["--report", "cuda_gpu_kern_sum",
                                                           "--format", "csv"], "skipped")
        res.expect(not problem and parsed.kernel_skipped == 1 and not parsed.summaries,
                   "%s: nsys 2023.4 prints SKIPPED (no CUDA kernel data)" % rel,
                   lambda: problem or r.describe())
        expect_no_kernel_error(ctx, "%s: gate --print-profile exits 2 with one 'ERROR: ... no "
                               "CUDA kernel data' line" % rel,
                               ctx.gate_run(["--print-profile", ctx.path(rel)]))
        d = ctx.fresh_dir("nokernel")
        out_json = os.path.join(d, "verdict.json")
        r = ctx.gate_run(["--json", out_json, ctx.path(good), ctx.path(rel)])
        lines = r.err_lines()
        verdict = read_json(out_json)
        res.expect(r.rc == 2 and "PASS" not in r.out and "FAIL" not in r.out
                   and any(l.startswith("ERROR:") and "no CUDA kernel data" in l for l in lines)
                   and isinstance(verdict, dict) and verdict.get("verdict") == "error"
                   and verdict.get("current_ms_per_epoch") is None,
                   "%s: as CURRENT of a comparison: exit 2, JSON verdict error, no ms figure"
                   % rel, lambda: "%s; json %r" % (r.describe(), verdict))


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return "unreadable (%s)" % e


def snapshot(directory, files):
    """What must not change while the gate reads: listing, and bytes + mtime of files."""
    state = {"listing": listing(directory)}
    for f in files:
        st = os.stat(f)
        state[os.path.basename(f)] = (sha256(f), st.st_mtime_ns, st.st_size)
    return state


def check_sqlite_read_only(ctx):
    """3. The gate opens SQLite exports read-only: on a writable copy in a writable
    directory (where SQLite could create -journal/-wal/-shm files), comparing the file with
    itself changes neither its bytes, its mtime nor the directory listing."""
    res = ctx.results
    for pattern in ("01_*.sqlite", "07_*.sqlite"):
        rel = ctx.sample(pattern)
        d = ctx.fresh_dir("readonly")
        copy = ctx.copy_sample(rel, d)
        # Back-date the mtime, so that a write within the same second would still show.
        os.utime(copy, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
        before = snapshot(d, [copy])
        r = ctx.gate_run([copy, copy], cwd=d)
        r2 = ctx.gate_run(["--print-profile", copy, copy], cwd=d)
        after = snapshot(d, [copy])
        res.expect(r.rc == 0 and r.out.startswith("PASS:") and "ratio=1.000x" in r.out,
                   "%s: comparing a profile with itself passes at ratio 1.000x" % rel,
                   r.describe())
        res.expect(r2.rc == 0 and len(parse_gate_profiles(r2.out)) == 2,
                   "%s: --print-profile FILE FILE2 prints both profiles" % rel, r2.describe())
        res.expect(before == after, "%s: the gate leaves the file's bytes and mtime and the "
                   "directory listing unchanged" % rel,
                   lambda: "before %r, after %r" % (before, after))

    # Same, with the copy switched to WAL journal mode (what `PRAGMA journal_mode=WAL` in
    # any SQLite tool leaves behind; it is stored in the file header). A plain read-only
    # open of a WAL database creates -wal and -shm files beside it; a reader that must not
    # write anything beside the user's file has to avoid that.
    rel = ctx.sample("01_*.sqlite")
    d = ctx.fresh_dir("readonly-wal")
    copy = ctx.copy_sample(rel, d)
    set_wal_mode(copy)
    before = snapshot(d, [copy])
    r = ctx.gate_run([copy, copy], cwd=d)
    after = snapshot(d, [copy])
    res.expect(r.rc == 0 and before == after,
               "%s switched to WAL mode: the gate reads it and leaves no -wal/-shm beside it"
               % rel, lambda: "exit %s; listing before %r, after %r; file %s"
               % (r.rc, before["listing"], after["listing"],
                  "unchanged" if before.get(os.path.basename(copy)) ==
                  after.get(os.path.basename(copy)) else "CHANGED"))


def set_wal_mode(path):
    """Writes the WAL marker into the SQLite header (file format bytes 18 and 19 = 2), which
    is all PRAGMA journal_mode=WAL changes in a database with no pending writes. Done by
    hand so the test does not depend on Python's optional sqlite3 module."""
    with open(path, "r+b") as f:
        head = f.read(20)
        if not head.startswith(b"SQLite format 3\0"):
            raise RuntimeError("%s is not an SQLite file" % path)
        f.seek(18)
        f.write(b"\x02\x02")


def derived_sqlite(rep_rel):
    return rep_rel[:-len(".nsys-rep")] + DERIVED_SUFFIX


def check_nsys_rep_end_to_end(ctx):
    """4. .nsys-rep reports through real nsys 2023.4: the gate's rows equal those of the
    sqlite derived from the same report and those of `nsys stats` on the report itself;
    nothing is written beside the report and no private temp dir is left behind; a stale
    X.sqlite beside X.nsys-rep is ignored; comparing two reports works and says so in JSON."""
    res = ctx.results
    nsys = ctx.nsys["2023.4"]
    for rel in NSYS_REP_SAMPLES:
        if not os.path.isfile(ctx.path(rel)):
            res.not_ok("%s: sample present" % rel, "missing in %s" % ctx.samples)
            continue
        d = ctx.fresh_dir("rep")
        tmpdir = ctx.fresh_dir("rep-TMPDIR")
        copy = ctx.copy_sample(rel, d)
        before = snapshot(d, [copy])
        _, prof, problem = ctx.gate_profile(os.path.basename(copy), ["--nsys", nsys], cwd=d,
                                            TMPDIR=tmpdir)
        after = snapshot(d, [copy])
        leftovers = listing(tmpdir)
        if problem:
            res.not_ok("%s: gate --nsys 2023.4 --print-profile" % rel, problem)
        else:
            res.expect(prof.format == "nsys-rep", "%s: gate reads it as nsys-rep" % rel,
                       "format %r" % prof.format)
            # The sqlite nsys 2023.4.4 exported from this report (shared, read in place).
            _, derived, problem = ctx.gate_profile(ctx.path(derived_sqlite(rel)))
            if problem:
                res.not_ok("%s: gate on the derived sqlite" % rel, problem)
            else:
                res.expect(prof.total_ns == derived.total_ns and prof.count == derived.count
                           and prof.rows == derived.rows,
                           "%s: gate rows == gate rows of the derived %s" % (rel, DERIVED_SUFFIX),
                           lambda: "total %d vs %d; %s" % (prof.total_ns, derived.total_ns,
                                                           rows_diff(derived.rows, prof.rows)))
            # nsys stats on the report itself (it exports X.sqlite beside its own copy).
            r, parsed, problem = ctx.nsys_stats(
                "2023.4", rel, ["--report", "cuda_gpu_kern_sum", "--format", "csv", "-q",
                                "--force-export=true"], "rep")
            if problem or len(parsed.summaries) != 1:
                res.not_ok("%s: nsys 2023.4 stats on the report" % rel,
                           problem or "%d kernel summaries" % len(parsed.summaries))
            else:
                expect_profile_matches(ctx, "%s: gate rows == nsys 2023.4 stats on the report"
                                       % rel, prof, parsed.summaries[0])
        res.expect(before == after, "%s: nothing written beside the report, report unchanged"
                   % rel, lambda: "before %r, after %r" % (before, after))
        res.expect(not [n for n in leftovers if n.startswith("nsys-gate")],
                   "%s: no nsys-gate.* temp dir left in $TMPDIR" % rel,
                   lambda: "left in TMPDIR: %r" % leftovers)

    # A report whose name has a space and a comma, beside a NEWER sqlite of the same name
    # from another run (what `nsys stats` leaves; nsys 2022.4's stats silently reuses such a
    # file, 2023.4's refuses it). The gate exports privately: it must read the report itself
    # and neither read nor touch the sibling.
    rel = NSYS_REP_SAMPLES[0]
    d, tmpdir, copy, sibling = stale_sibling_setup(ctx, rel)
    before = snapshot(d, [copy, sibling])
    _, prof, problem = ctx.gate_profile(os.path.basename(copy), ["--nsys", nsys], cwd=d,
                                        TMPDIR=tmpdir)
    after = snapshot(d, [copy, sibling])
    _, derived, problem2 = ctx.gate_profile(ctx.path(derived_sqlite(rel)))
    res.expect(not problem and not problem2 and prof.rows == derived.rows
               and prof.total_ns == derived.total_ns,
               "%r beside a newer stale %r: gate reads the report, not the sibling"
               % (os.path.basename(copy), os.path.basename(sibling)),
               lambda: problem or problem2 or "gate %d ns, report's own %d ns; %s" % (
                   prof.total_ns, derived.total_ns, rows_diff(derived.rows, prof.rows)))
    res.expect(before == after and listing(tmpdir) == [],
               "stale sibling: report and sibling unchanged, nothing added, $TMPDIR empty",
               lambda: "before %r, after %r, TMPDIR %r" % (before, after, listing(tmpdir)))

    # A full comparison of two reports, nsys chosen by the environment variable this time.
    d = ctx.fresh_dir("rep-compare")
    tmpdir = ctx.fresh_dir("rep-compare-TMPDIR")
    base = ctx.copy_sample(NSYS_REP_SAMPLES[1], d)
    cur = ctx.copy_sample(NSYS_REP_SAMPLES[0], d)
    out_json = os.path.join(ctx.fresh_dir("rep-compare-json"), "out.json")
    r = ctx.gate_run(["--nsys", nsys, "--json", out_json, os.path.basename(base),
                      os.path.basename(cur)], cwd=d, TMPDIR=tmpdir)
    verdict = read_json(out_json)
    res.expect(r.rc == 0 and r.out.startswith("PASS:") and isinstance(verdict, dict)
               and verdict.get("verdict") == "pass"
               and (verdict.get("baseline") or {}).get("format") == "nsys-rep"
               and (verdict.get("current") or {}).get("format") == "nsys-rep",
               "gate --nsys 2023.4 --json out.json 05b.nsys-rep 05.nsys-rep: exit 0, "
               "baseline.format == current.format == nsys-rep",
               lambda: "%s; json %r" % (r.describe(), verdict))
    r = ctx.gate_run(["--print-profile", os.path.basename(base)], cwd=d, TMPDIR=tmpdir,
                     NSYS_GATE_NSYS=nsys)
    res.expect(r.rc == 0 and "(nsys-rep)" in r.out,
               "NSYS_GATE_NSYS selects the nsys binary like --nsys", r.describe())
    res.expect(listing(d) == sorted([os.path.basename(base), os.path.basename(cur)])
               and listing(tmpdir) == [],
               "comparison of two reports leaves nothing beside them nor in $TMPDIR",
               lambda: "beside: %r, TMPDIR: %r" % (listing(d), listing(tmpdir)))


def stale_sibling_setup(ctx, rel):
    """A copy of report rel named with a space and a comma, in a directory with a space,
    and beside it an .sqlite of the same base name holding ANOTHER run (sample 05b's
    export), dated in the future so that any nsys takes it for a fresh export.
    Returns (dir, TMPDIR for the gate, report copy, sibling)."""
    d = ctx.fresh_dir("stale sibling")
    tmpdir = ctx.fresh_dir("stale-sibling-TMPDIR")
    copy = ctx.copy_sample(rel, d, "my report, v1.nsys-rep")
    sibling = ctx.copy_sample(derived_sqlite(NSYS_REP_SAMPLES[1]), d, "my report, v1.sqlite")
    future = int(time.time() + 86400 * 365) * 10 ** 9
    os.utime(sibling, ns=(future, future))
    return d, tmpdir, copy, sibling


def check_old_nsys_on_newer_report(ctx):
    """5. nsys 2022.4 cannot read a report made by nsys 2023.1 (sample 05): it prints a
    protobuf error, writes a stub sqlite and exits 1 (export) or prints SKIPPED and exits 0
    (stats). The gate must turn that into an error that carries nsys's own words -- never a
    0 ms verdict -- and must not leave the stub anywhere."""
    res = ctx.results
    old = ctx.nsys["2022.4"]
    rel = NSYS_REP_SAMPLES[0]

    # What nsys itself says, to look for in the gate's message.
    d = ctx.fresh_dir("old-export")
    copy = ctx.copy_sample(rel, d)
    r = run([old, "export", "--type", "sqlite", "--force-overwrite=true", "--output",
             "out.sqlite", os.path.basename(copy)], cwd=d, env=clean_env(),
            timeout=NSYS_TIMEOUT)
    nsys_words = [l.strip() for l in r.err_lines() if "Exception" in l or "error" in l.lower()]
    if not res.expect(r.rc != 0 and nsys_words,
                      "nsys 2022.4 export of the 2023.1 report fails with an error on stderr",
                      r.describe()):
        return
    tail = nsys_words[-1]   # e.g. "std::exception::what: ProtobufParseException"

    d = ctx.fresh_dir("old")
    tmpdir = ctx.fresh_dir("old-TMPDIR")
    copy = ctx.copy_sample(rel, d)
    before = snapshot(d, [copy])
    r = ctx.gate_run(["--nsys", old, "--print-profile", os.path.basename(copy)], cwd=d,
                     TMPDIR=tmpdir)
    lines = r.err_lines()
    res.expect(r.rc == 2 and r.out == "" and len(lines) == 1 and lines[0].startswith("ERROR:")
               and "nsys" in lines[0] and tail in lines[0],
               "%s with nsys 2022.4: --print-profile exits 2, one ERROR line carrying nsys's "
               "%r" % (rel, tail), r.describe())

    out_json = os.path.join(ctx.fresh_dir("old-json"), "out.json")
    r = ctx.gate_run(["--nsys", old, "--json", out_json, os.path.basename(copy),
                      os.path.basename(copy)], cwd=d, TMPDIR=tmpdir)
    lines = r.err_lines()
    verdict = read_json(out_json)
    res.expect(r.rc == 2 and r.out == "" and len(lines) == 1 and lines[0].startswith("ERROR:")
               and tail in lines[0] and not re.search(r"\b0(\.0+)?ms", r.out + r.err),
               "%s with nsys 2022.4: comparison exits 2 with one ERROR line, no verdict line"
               % rel, r.describe())
    res.expect(isinstance(verdict, dict) and verdict.get("verdict") == "error"
               and "ratio" in verdict and verdict["ratio"] is None
               and verdict.get("baseline_ms_per_epoch") is None
               and tail in str(verdict.get("error")),
               "%s with nsys 2022.4: JSON verdict 'error', ratio null, error text from nsys"
               % rel, lambda: "json %r" % verdict)
    after = snapshot(d, [copy])
    res.expect(before == after and listing(tmpdir) == [],
               "%s with nsys 2022.4: no stub sqlite beside the report nor in $TMPDIR" % rel,
               lambda: "beside: %r -> %r; TMPDIR: %r" % (before["listing"], after["listing"],
                                                          listing(tmpdir)))

    # nsys 2022.4's own `stats` would silently use a fresh-looking X.sqlite beside X.nsys-rep
    # (nsys-formats.md): the gate must still fail rather than report the sibling's figures.
    d, tmpdir, copy, sibling = stale_sibling_setup(ctx, rel)
    before = snapshot(d, [copy, sibling])
    r = ctx.gate_run(["--nsys", old, "--print-profile", os.path.basename(copy)], cwd=d,
                     TMPDIR=tmpdir)
    after = snapshot(d, [copy, sibling])
    res.expect(r.rc == 2 and r.out == "" and tail in r.err and before == after
               and listing(tmpdir) == [],
               "%s with nsys 2022.4 beside a newer stale .sqlite: still an error, sibling "
               "neither read nor touched" % rel,
               lambda: "%s; before %r, after %r" % (r.describe(), before, after))


def saved_outputs(ctx):
    """(relative path, absolute path) of every saved nsys console output / -o file."""
    gen = os.path.join(ctx.samples, "generated")
    found = []
    for root, _, files in os.walk(gen):
        for name in sorted(files):
            if name.endswith(".stdout.txt") or name.endswith(".csv"):
                full = os.path.join(root, name)
                found.append((os.path.relpath(full, ctx.samples), full))
    return sorted(found)


def source_sample_of(ctx, filename):
    for prefix, pattern in SAVED_OUTPUT_SOURCES:
        if filename.startswith(prefix):
            return ctx.sample(pattern)
    return None


def check_saved_nsys_outputs(ctx):
    """6. The saved console output of real nsys 2022.4 / 2023.4 runs (and the files nsys
    wrote with -o): the gate reads a file with one kernel summary to the total of the sample
    it was made from; refuses SKIPPED-only files as "no CUDA kernel data"; refuses files with
    two kernel summaries (cuda_gpu_kern_sum + cuda_gpu_kern_gb_sum would double count) and
    files with no kernel summary at all."""
    res = ctx.results
    for rel, full in saved_outputs(ctx):
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        try:
            parsed = parse_nsys_stats(text)
        except ValueError as e:
            res.not_ok("%s: this script parses it" % rel, str(e))
            continue
        n = len(parsed.summaries)
        if n == 1:
            summary = parsed.summaries[0]
            _, prof, problem = ctx.gate_profile(full)
            if problem:
                res.not_ok("%s: gate reads its kernel summary" % rel, problem)
                continue
            cut = any(name.endswith(ELLIPSIS) for name, _, _ in summary.rows)
            expect_profile_matches(ctx, "%s (%s, %s): gate total and rows == this script's "
                                   "parse" % (rel, summary.kind, summary.unit), prof, summary)
            src = source_sample_of(ctx, os.path.basename(full))
            if src is None:
                res.not_ok("%s: mapped to the sample it was made from" % rel,
                           "no entry in SAVED_OUTPUT_SOURCES for this file name")
                continue
            _, live, problem = ctx.nsys_kern_sum_csv(src)
            if problem:
                res.not_ok("%s: live nsys on %s" % (rel, src), problem)
                continue
            res.expect(prof.total_ns == live.total_ns and prof.count == live.instances,
                       "%s: gate total %d ns == nsys 2023.4 total of %s%s"
                       % (rel, live.total_ns, src, " (names cut)" if cut else ""),
                       lambda: "gate %d ns / %d launches, sample %d ns / %d launches" % (
                           prof.total_ns, prof.count, live.total_ns, live.instances))
        elif n >= 2:
            r = ctx.gate_run(["--print-profile", full])
            lines = r.err_lines()
            res.expect(r.rc == 2 and r.out == "" and len(lines) == 1
                       and lines[0].startswith("ERROR:")
                       and re.search(r"\b%d kernel summar" % n, lines[0]),
                       "%s: %d kernel summaries: gate refuses (would double count)" % (rel, n),
                       r.describe())
        elif parsed.kernel_skipped:
            expect_no_kernel_error(ctx, "%s: kernel report SKIPPED: gate exits 2, 'no CUDA "
                                   "kernel data'" % rel, ctx.gate_run(["--print-profile", full]))
        else:
            r = ctx.gate_run(["--print-profile", full])
            lines = r.err_lines()
            res.expect(r.rc == 2 and r.out == "" and len(lines) == 1
                       and lines[0].startswith("ERROR:"),
                       "%s: no kernel summary (%s): gate exits 2 with one ERROR line"
                       % (rel, "empty" if not text.strip() else "other reports"), r.describe())


def check_csv_samples(ctx):
    """7. The saved CSV files from a public repo (nsys 2025.x, -o output without framing):
    the gate's total and rows equal this script's parse."""
    res = ctx.results
    csvs = [p for p in ctx.sample_files() if p.endswith(".csv")]
    res.expect(len(csvs) >= 2, "the CSV samples 03/03b are present", "found %r" % csvs)
    for rel in csvs:
        with open(ctx.path(rel), encoding="utf-8", errors="replace") as f:
            parsed = parse_nsys_stats(f.read())
        if len(parsed.summaries) != 1:
            res.not_ok("%s: one kernel summary" % rel, "found %d" % len(parsed.summaries))
            continue
        summary = parsed.summaries[0]
        _, prof, problem = ctx.gate_profile(ctx.path(rel))
        if problem:
            res.not_ok("%s: gate --print-profile" % rel, problem)
            continue
        res.expect(prof.format == "nsys-stats", "%s: gate reads it as nsys-stats" % rel,
                   "format %r" % prof.format)
        expect_profile_matches(ctx, "%s: gate total %d ns, %d launches, %d rows == this "
                               "script's parse" % (rel, summary.total_ns, summary.instances,
                                                   len(summary.rows)), prof, summary)


# ------------------------------------------------------------------------------------------
# Saved nsys stats text in every layout: --format table, tsv, json, hdoc and htable, and
# --timeunit sec, as real nsys 2023.4 and 2022.4 write them, read by the gate to the figures
# of nsys's own CSV. The parsers below are written from nsys's output as seen, not from the
# gate's code.
# ------------------------------------------------------------------------------------------

# Samples with long template names (commas, '<', '&', names the column layouts cut), with
# memory operations (memcpy and memset), from three nsys generations.
TEXT_LAYOUT_SAMPLES = ("02_*.sqlite", "05_*" + DERIVED_SUFFIX, "07_*.sqlite")
KERNEL_REPORT = {"2023.4": "cuda_gpu_kern_sum", "2022.4": "gpukernsum"}
MEMORY_REPORT = {"2023.4": "cuda_gpu_mem_time_sum", "2022.4": "gpumemtimesum"}
TEXT_LAYOUTS = ("table", "tsv", "json", "hdoc", "htable")
CUT_WARNING = "nsys cut "
# nsys 2022.4's names of memory copies (MemcpyOperStrs in its nsysstats.py) and the labels
# of ENUM_CUDA_MEMCPY_OPER that cuda_gpu_mem_time_sum prints for the same copy kinds.
MEMCPY_NAMES = {"[CUDA memcpy %s]" % old: "[CUDA memcpy %s]" % new for old, new in (
    ("HtoD", "Host-to-Device"), ("DtoH", "Device-to-Host"), ("HtoA", "Host-to-Array"),
    ("AtoH", "Array-to-Host"), ("AtoA", "Array-to-Array"), ("AtoD", "Array-to-Device"),
    ("DtoA", "Device-to-Array"), ("DtoD", "Device-to-Device"), ("HtoH", "Host-to-Host"),
    ("PtoP", "Peer-to-Peer"))}
MEMCPY_NAMES.update({"[CUDA Unified Memory memcpy %s]" % old:
                     "[CUDA memcpy Unified %s]" % new for old, new in (
                         ("HtoD", "Host-to-Device"), ("DtoH", "Device-to-Host"),
                         ("DtoD", "Device-to-Device"))})
ROUNDING_WARNING = "nsys rounded its times to "


def layout_blocks(text, layout):
    """Every report table in `nsys stats --format LAYOUT` output: a list of (header cells,
    rows of cells), framing lines skipped.

    csv: cells split on commas, the name the rest of the line (quoted only when it holds a
    comma). column: a header, a line of dash runs giving each column's span, rows until an
    empty line. table: a border of '+' and '-', a '|' header, a border, '|' rows, a border;
    cells lie between the border's '+' signs. tsv: tab-separated cells, a block ends at an empty line.
    json: an array of objects, one "key": value a line (Python's json reads it; nsys writes
    control characters raw, hence strict=False). hdoc/htable: one <th>/<td> cell a line,
    HTML-escaped."""
    lines = text.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if layout == "table" and re.fullmatch(r"\+[-+]*\+", line) and i < len(lines) \
                and lines[i].startswith("|"):
            plus = [m.start() for m in re.finditer(r"\+", line)]

            def cells(row):
                out = [row[a + 1:b].strip() for a, b in zip(plus, plus[1:-1])]
                out.append(row[plus[-2] + 1:].rstrip().rstrip("|").strip())
                return out
            header = cells(lines[i])
            i += 2   # the header and the border under it
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            blocks.append((header, rows))
        elif layout == "csv" and line.startswith("Time") and "," in line:
            header = line.split(",")
            rows = []
            while i < len(lines) and lines[i] != "":
                row = lines[i].split(",", len(header) - 1)
                name = row[-1]
                # nsys quotes a cell only when it holds a comma
                if len(name) >= 2 and name[0] == name[-1] == '"' and "," in name[1:-1]:
                    row[-1] = name[1:-1]
                rows.append(row)
                i += 1
            blocks.append((header, rows))
        elif layout == "column" and i < len(lines) and line.strip() \
                and re.fullmatch(r"[ -]*-[ -]*", lines[i]):
            spans = [m.span() for m in re.finditer(r"-+", lines[i])]
            header = [line[a:b].strip() for a, b in spans]
            i += 1
            rows = []
            while i < len(lines) and lines[i].strip() != "":
                row = lines[i]
                rows.append([row[a:b].strip() for a, b in spans[:-1]]
                            + [row[spans[-1][0]:].rstrip()])
                i += 1
            blocks.append((header, rows))
        elif layout == "tsv" and "\t" in line and line.startswith("Time"):
            header = line.split("\t")
            rows = []
            while i < len(lines) and lines[i] != "":
                rows.append(lines[i].split("\t", len(header) - 1))
                i += 1
            blocks.append((header, rows))
        elif layout == "json" and line.strip() == "[":
            start = i - 1
            while i < len(lines) and lines[i].strip() != "]":
                i += 1
            objects = json.loads("\n".join(lines[start:i + 1]), strict=False,
                                 parse_int=str, parse_float=str, parse_constant=str)
            i += 1
            if objects:
                header = list(objects[0].keys())
                blocks.append((header, [[str(o[k]) for k in header] for o in objects]))
        elif layout in ("hdoc", "htable") and line.strip() == "<table>":
            header, rows, row = [], [], None
            while i < len(lines) and lines[i].strip() != "</table>":
                cell = lines[i].strip()
                i += 1
                m = re.fullmatch(r"<(th|td)>(.*)</\1>", cell)
                if cell == "<tr>":
                    row = []
                elif cell == "</tr>" and row is not None:
                    (rows.append(row) if header else header.extend(row))
                    row = None
                elif m and row is not None:
                    row.append(html.unescape(m.group(2)))
            i += 1
            blocks.append((header, rows))
    return blocks


def memory_header_unit(cells):
    """The time unit if these cells are a memory summary header (cuda_gpu_mem_time_sum,
    gpumemtimesum: Time (%), Total Time (unit), Count, ..., Operation), else None."""
    if len(cells) < 4 or cells[0] not in ("Time (%)", "Time(%)") or cells[2] != "Count" \
            or cells[-1] != "Operation":
        return None
    m = re.fullmatch(r"Total Time \((ns|us|ms|s|sec)\)", cells[1])
    return m.group(1) if m else None


def layout_summaries(text, layout, header_unit):
    """The summaries header_unit() recognises, as KernelSummary objects."""
    out = []
    for header, rows in layout_blocks(text, layout):
        unit = header_unit(header)
        if not unit:
            continue
        summary = KernelSummary(layout, unit)
        for row in rows:
            summary.rows.append((row[-1], to_ns(row[1], unit, summary),
                                 int(row[2].replace(",", ""))))
        out.append(summary)
    return out


_STATS_TEXT = {}


def stats_text(ctx, version, rel, args, label):
    """Real `nsys stats` output for a private copy of sample rel (nsys writes beside its
    input): (Run, text or None when nsys failed). Memoised."""
    key = (version, rel, tuple(args))
    if key not in _STATS_TEXT:
        d = ctx.fresh_dir("nsys%s-%s" % (version, label))
        copy = ctx.copy_sample(rel, d)
        r = run([ctx.nsys[version], "stats"] + list(args) + [os.path.basename(copy)], cwd=d,
                env=clean_env(), timeout=NSYS_TIMEOUT)
        _STATS_TEXT[key] = (r, r.out if r.rc == 0 else None)
    return _STATS_TEXT[key]


def save_text(ctx, text, name):
    path = os.path.join(ctx.fresh_dir("saved-text"), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def gate_warnings(ctx, path, *args):
    """The warnings of the verdict of the file against itself (the profile's own warnings
    appear once per side), or None when the gate failed."""
    d = ctx.fresh_dir("warnings")
    out_json = os.path.join(d, "verdict.json")
    r = ctx.gate_run(list(args) + ["--json", out_json, path, path])
    verdict = read_json(out_json)
    if r.rc not in (0, 1) or not isinstance(verdict, dict):
        return None, r
    return verdict.get("warnings") or [], r


def check_text_layouts(ctx):
    """8. Every --format nsys stats writes besides csv and column -- table, tsv, json, hdoc,
    htable -- as real nsys 2023.4 and 2022.4 write them (framing included): the gate reads the
    kernel summary to the totals and rows of the same nsys's CSV (table: its cut names, as
    the column layout; two rows cut alike merge, with a warning), and leaves the memory summary
    in the same file out under the default --work."""
    res = ctx.results
    for pattern in TEXT_LAYOUT_SAMPLES:
        rel = ctx.sample(pattern)
        for version in ("2023.4", "2022.4"):
            report = KERNEL_REPORT[version]
            tag = "%s, nsys %s %s" % (rel, version, report)
            r, text = stats_text(ctx, version, rel, ["--report", report, "--format", "csv"],
                                 "csv")
            parsed = parse_nsys_stats(text) if text is not None else None
            if not parsed or len(parsed.summaries) != 1:
                res.not_ok("%s --format csv" % tag, r.describe())
                continue
            csv_sum = parsed.summaries[0]
            for layout in TEXT_LAYOUTS:
                both = "%s,%s" % (report, MEMORY_REPORT[version])
                r, text = stats_text(ctx, version, rel, ["--report", both, "--format", layout],
                                     layout)
                if text is None:
                    res.not_ok("%s --format %s" % (tag, layout), r.describe())
                    continue
                try:
                    sums = layout_summaries(text, layout, kernel_header_unit)
                except (ValueError, IndexError, KeyError) as e:
                    res.not_ok("%s --format %s: this script parses it" % (tag, layout), str(e))
                    continue
                if len(sums) != 1:
                    res.not_ok("%s --format %s: one kernel summary" % (tag, layout),
                               "found %d" % len(sums))
                    continue
                got = sums[0]
                # The layout's own figures against the CSV's (table cuts names, as column).
                cut = [n for n, _, _ in got.rows if n.endswith(ELLIPSIS)]
                res.expect(got.total_ns == csv_sum.total_ns
                           and got.instances == csv_sum.instances
                           and (layout == "table" or got.by_name() == csv_sum.by_name()),
                           "%s --format %s holds the same figures as its CSV" % (tag, layout),
                           lambda: rows_diff(csv_sum.by_name(), got.by_name()))
                path = save_text(ctx, text, "%s.%s" % (report, layout))
                _, prof, problem = ctx.gate_profile(path)
                if problem:
                    res.not_ok("%s --format %s: gate reads it" % (tag, layout), problem)
                    continue
                expect_profile_matches(
                    ctx, "%s --format %s (%d rows%s, memory summary left out): gate total "
                    "and rows == nsys's" % (tag, layout, len(got.rows),
                                            ", %d cut names" % len(cut) if cut else ""),
                    prof, got)
                if layout != "table":
                    continue
                merged = len(cut) - len(set(cut))
                warnings, r = gate_warnings(ctx, path)
                said = [w for w in warnings or [] if CUT_WARNING in w]
                res.expect(warnings is not None and bool(said) == (merged > 0),
                           "%s --format table: %s" % (tag, "%d rows merged by cut names: the "
                                                      "gate warns" % merged if merged else
                                                      "no cut names merge: no warning"),
                           lambda: "warnings %r; %s" % (warnings, r.describe()))


def memory_kind(name):
    return "memset" if "memset" in name else "memcpy"


def check_text_memory(ctx):
    """10. The memory summary in saved text, as real nsys 2023.4 (cuda_gpu_mem_time_sum) and
    2022.4 (gpumemtimesum, short names such as [CUDA memcpy HtoD]) write it beside the kernel
    summary, in the csv, column and json layouts: with --work all the gate's rows are nsys's
    kernel rows and its memory rows (memcpy and memset, 2022.4's names in today's spelling);
    with --work memory only the memory rows; under the default --work none of them."""
    res = ctx.results
    for pattern in TEXT_LAYOUT_SAMPLES:
        rel = ctx.sample(pattern)
        for version in ("2023.4", "2022.4"):
            both = "%s,%s" % (KERNEL_REPORT[version], MEMORY_REPORT[version])
            r, text = stats_text(ctx, version, rel, ["--report", MEMORY_REPORT[version],
                                                     "--format", "csv"], "mem")
            if text is None:
                res.not_ok("%s: nsys %s %s" % (rel, version, MEMORY_REPORT[version]),
                           r.describe())
                continue
            if "SKIPPED:" in text:   # 2023.4 on a 2020 export: no ENUM_CUDA_MEMCPY_OPER
                res.expect("does not contain" in text, "%s: nsys %s %s says SKIPPED, as "
                           "expected of this export" % (rel, version, MEMORY_REPORT[version]),
                           text[:300])
                continue
            for layout in ("csv", "column", "json"):
                tag = "%s, nsys %s %s --format %s" % (rel, version, both, layout)
                r, text = stats_text(ctx, version, rel, ["--report", both, "--format", layout],
                                     "kernmem")
                if text is None:
                    res.not_ok(tag, r.describe())
                    continue
                try:
                    kern = layout_summaries(text, layout, kernel_header_unit)
                    mem = layout_summaries(text, layout, memory_header_unit)
                except (ValueError, IndexError, KeyError) as e:
                    res.not_ok("%s: this script parses it" % tag, str(e))
                    continue
                if len(kern) != 1 or len(mem) != 1:
                    res.not_ok("%s: one kernel and one memory summary" % tag,
                               "found %d and %d" % (len(kern), len(mem)))
                    continue
                memory = {(memory_kind(n), MEMCPY_NAMES.get(n, n)): v
                          for n, v in mem[0].by_name().items()}
                kernels = {gate_shown_name(n): v for n, v in kern[0].by_name().items()}
                path = save_text(ctx, text, "kernmem.txt")
                for work, want in (("all", {**kernels, **memory}), ("memory", memory),
                                   (None, kernels)):
                    args = ["--work", work] if work else []
                    _, prof, problem = ctx.gate_profile(path, args)
                    what = "--work %s" % work if work else "the default --work"
                    if problem:
                        res.not_ok("%s: gate reads it with %s" % (tag, what), problem)
                        continue
                    total = sum(t for t, _ in want.values())
                    launches = sum(c for _, c in want.values())
                    shown = lambda rows: {k if isinstance(k, str) else "%s %s" % k: v
                                          for k, v in rows.items()}
                    diff = rows_diff(shown(want), shown(prof.rows))
                    res.expect(not diff and prof.total_ns == total and prof.count == launches,
                               "%s, %s: gate rows, total %d ns and %d launches == nsys's %d "
                               "rows" % (tag, what, total, launches, len(want)),
                               lambda: "%s; gate %d ns / %d" % (diff, prof.total_ns,
                                                                prof.count))


def check_text_timeunit_sec(ctx):
    """9. nsys stats --timeunit sec: "Total Time (sec)" with 4 decimals, csv and column, real
    nsys 2023.4 and 2022.4: the gate reads it to within nsys's rounding (half of 100 us a
    row) of the exact total, and warns exactly when that bound passes 0.1% of the total."""
    res = ctx.results
    for pattern in TEXT_LAYOUT_SAMPLES:
        rel = ctx.sample(pattern)
        for version in ("2023.4", "2022.4"):
            report = KERNEL_REPORT[version]
            r, text = stats_text(ctx, version, rel, ["--report", report, "--format", "csv"],
                                 "csv")
            parsed = parse_nsys_stats(text) if text is not None else None
            if not parsed or len(parsed.summaries) != 1:
                res.not_ok("%s: nsys %s %s --format csv" % (rel, version, report),
                           r.describe())
                continue
            exact = parsed.summaries[0]
            for layout in ("csv", "column"):
                tag = "%s, nsys %s %s --timeunit sec --format %s" % (rel, version, report,
                                                                      layout)
                r, text = stats_text(ctx, version, rel, ["--report", report, "--timeunit",
                                                         "sec", "--format", layout], "sec")
                if text is None:
                    res.not_ok(tag, r.describe())
                    continue
                header = "Total Time (sec)"
                res.expect(header in text, "%s: nsys prints %r" % (tag, header),
                           lambda: text[:300])
                path = save_text(ctx, text, "sec.txt")
                _, prof, problem = ctx.gate_profile(path)
                if problem:
                    res.not_ok("%s: gate reads it" % tag, problem)
                    continue
                bound = len(exact.rows) * 50000
                res.expect(abs(prof.total_ns - exact.total_ns) <= bound
                           and prof.count == exact.instances,
                           "%s: gate total %d ns within %d ns of the exact %d ns"
                           % (tag, prof.total_ns, bound, exact.total_ns),
                           lambda: "gate %d ns / %d launches" % (prof.total_ns, prof.count))
                warnings, r = gate_warnings(ctx, path)
                said = [w for w in warnings or [] if ROUNDING_WARNING in w]
                want = prof.total_ns == 0 or bound > prof.total_ns // 1000
                res.expect(warnings is not None and bool(said) == want,
                           "%s: %s" % (tag, "the rounding can pass 0.1%: the gate warns" if want
                                       else "the rounding stays within 0.1%: no warning"),
                           lambda: "warnings %r; %s" % (warnings, r.describe()))


# ------------------------------------------------------------------------------------------
# NVTX per-epoch mode: the gate's projection of NVTX ranges onto the GPU against nsys's own
# nvtx_kern_sum and nvtx_gpu_proj_trace reports (nsys-formats.md sections 1 and 3)
# ------------------------------------------------------------------------------------------

NVTX_KERN_SUM_HEADER = ("NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),"
                        "Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel Name")
NVTX_GPU_PROJ_HEADER = ("Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),"
                        "Orig Duration (ns),Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,"
                        "ParentId,RangeStack")
NVTX_SUM_HEADER = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
                   "StdDev (ns),Style,Range")
# NVTX Range and Kernel Name may both hold commas (then the cell is quoted, inner quotes not
# doubled); the eleven cells between them never do, so they anchor the split.
NVTX_KERN_SUM_ROW = re.compile(
    r'^(?P<range>".*?"|[^,]*),(?P<style>PushPop|StartEnd|),(?P<pid>\d*),(?P<tid>\d*),'
    r'(?P<ninst>\d+),(?P<kinst>\d+),(?P<total>\d+),[-\d.]*,[-\d.]*,\d*,\d*,[-\d.]*,'
    r'(?P<kernel>.*)$')
NVTX_RANGE_TYPES = (59, 60, 70, 71)     # push/pop, start/end and their NVTXT variants
GATE_EPOCHS_HEADER = "epoch_ns\tlaunches\tepoch"

# Sample 06 with its 1000 per-iteration `test` ranges renamed epoch=0..epoch=999 in start
# order, on a copy (nsys-formats.md section 3: no public trace has epoch ranges).
EPOCH_RENAME_SQL = """
CREATE TEMP TABLE ren AS
    SELECT e.rowid AS rid, row_number() OVER (ORDER BY e.start, e.rowid) - 1 AS n
    FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId
    WHERE e.eventType IN (59, 60, 70, 71) AND coalesce(e.text, s.value) = 'test';
CREATE TEMP TABLE base AS SELECT coalesce(max(id), 0) + 1 AS id FROM StringIds;
"""
EPOCH_RENAME_INLINE_SQL = EPOCH_RENAME_SQL + """
UPDATE NVTX_EVENTS SET text = 'epoch=' || (SELECT n FROM ren WHERE rid = NVTX_EVENTS.rowid),
                       textId = NULL
    WHERE rowid IN (SELECT rid FROM ren);
"""
EPOCH_RENAME_REGISTERED_SQL = EPOCH_RENAME_SQL + """
INSERT INTO StringIds (id, value) SELECT (SELECT id FROM base) + n, 'epoch=' || n FROM ren;
UPDATE NVTX_EVENTS SET text = NULL,
                       textId = (SELECT id FROM base)
                                + (SELECT n FROM ren WHERE rid = NVTX_EVENTS.rowid)
    WHERE rowid IN (SELECT rid FROM ren);
"""

# The 2-GPU before/after pair (samples 07/07b) has no step or layer ranges, only PyTorch's
# per-op ranges (`aten::linear, seq = 45337, op_id = 990384`). Per-layer samples: every
# aten::linear of the transformer layers, keyed by its autograd sequence number, which both
# ranks share (op_id does not), so one epoch = the same layer GEMM on both GPUs.
FSDP_EPOCH_RANGE = r"^aten::linear, seq = ([0-9]+),"


def sqlite_exec(path, sql):
    """Runs SQL statements on a writable SQLite file: Python's sqlite3 module when this
    Python has it (it is optional), else the sqlite3 command-line shell. '' or a problem."""
    try:
        import sqlite3
    except ImportError:
        sqlite3 = None
    if sqlite3 is not None:
        try:
            db = sqlite3.connect(path)
            try:
                db.executescript(sql)
                db.commit()
            finally:
                db.close()
        except sqlite3.Error as e:
            return "sqlite3 module: %s" % e
        return ""
    if not shutil.which("sqlite3"):
        return "neither Python's sqlite3 module nor the sqlite3 shell is available"
    r = run(["sqlite3", "-bail", path, sql], env=clean_env())
    return "" if r.rc == 0 and not r.err.strip() else "sqlite3 shell: " + r.describe()


def sqlite_rows(path, sql):
    """Rows (tuples) of one SELECT on an SQLite file opened read-only; raises RuntimeError."""
    try:
        import sqlite3
    except ImportError:
        sqlite3 = None
    if sqlite3 is not None:
        try:
            db = sqlite3.connect("file:%s?mode=ro" % urllib.request.pathname2url(path),
                                 uri=True)
            try:
                return [tuple(row) for row in db.execute(sql)]
            finally:
                db.close()
        except sqlite3.Error as e:
            raise RuntimeError("sqlite3 module on %s: %s" % (path, e))
    if not shutil.which("sqlite3"):
        raise RuntimeError("neither Python's sqlite3 module nor the sqlite3 shell is available")
    # The shell's JSON mode keeps text with tabs or newlines intact; columns come back in
    # SELECT order (Python dicts keep insertion order), so their names must be unique.
    r = run(["sqlite3", "-readonly", "-json", path, sql], env=clean_env())
    if r.rc != 0 or r.err.strip():
        raise RuntimeError("sqlite3 shell: " + r.describe())
    return [tuple(row.values()) for row in json.loads(r.out)] if r.out.strip() else []


def report_block(text, header):
    """The data lines of the first report block whose header line is exactly `header` in
    `nsys stats` console output (framing or not), up to the empty line; None if absent."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if header not in lines:
        return None
    rows = []
    for line in lines[lines.index(header) + 1:]:
        if line == "":
            break
        rows.append(line)
    return rows


def nsys_range_name(cell):
    """A range name cell as nsys printed it, less one pair of quotes and the ':' that 2024+
    put before names in the default domain (nsys-formats.md section 3)."""
    if len(cell) >= 2 and cell.startswith('"') and cell.endswith('"'):
        cell = cell[1:-1]
    return cell[1:] if cell.startswith(":") else cell


def parse_nvtx_kern_sum(rows):
    """nvtx_kern_sum rows as dicts: range, pid, tid, kern_inst, total_ns, kernel."""
    parsed = []
    for row in rows:
        m = NVTX_KERN_SUM_ROW.match(row)
        if not m:
            raise ValueError("not an nvtx_kern_sum row: %r" % row[:200])
        kernel = m.group("kernel")
        if len(kernel) >= 2 and kernel.startswith('"') and kernel.endswith('"'):
            kernel = kernel[1:-1]
        parsed.append({"range": nsys_range_name(m.group("range")), "pid": m.group("pid"),
                       "tid": m.group("tid"), "kern_inst": int(m.group("kinst")),
                       "total_ns": int(m.group("total")), "kernel": kernel})
    return parsed


def parse_nvtx_gpu_proj(rows):
    """nvtx_gpu_proj_trace rows as dicts: name, proj_start, proj_dur, orig_start, orig_dur,
    pid, tid, ops. Only Name may hold commas, and it is the first column."""
    parsed = []
    for row in rows:
        cells = row.rsplit(",", 13)
        if len(cells) != 14 or not cells[1].isdigit() or not cells[2].isdigit():
            raise ValueError("not an nvtx_gpu_proj_trace row: %r" % row[:200])
        parsed.append({"name": nsys_range_name(cells[0]), "proj_start": int(cells[1]),
                       "proj_dur": int(cells[2]),
                       "orig_start": int(cells[3]) if cells[3] else None,
                       "orig_dur": int(cells[4]) if cells[4] else None,
                       "pid": cells[6], "tid": cells[7], "ops": int(cells[8])})
    return parsed


class GateEpochs:
    """`nsys-gate --print-profile --epoch-range R FILE`: the header figures, the epoch rows
    [(name, ns, kernels)] in the printed order, and the kernel rows name -> (ns, count)."""

    def __init__(self, m):
        self.total_ns = int(m.group("total"))
        self.count = int(m.group("count"))
        self.epochs = []
        self.rows = {}


def parse_gate_epochs(stdout):
    lines = [line for line in stdout.split("\n") if line != "" and not line.startswith(GATE_NOTE)]
    m = GATE_PROFILE_HEAD.match(lines[0]) if lines else None
    if not m or len(lines) < 2 or lines[1] != GATE_EPOCHS_HEADER:
        raise ValueError("expected the '# PATH (FORMAT): ...' line then %r, got %r"
                         % (GATE_EPOCHS_HEADER, lines[:2]))
    prof = GateEpochs(m)
    i = 2
    while i < len(lines) and lines[i] != GATE_ROWS_HEADER:
        parts = lines[i].split("\t", 2)
        if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
            raise ValueError("not an 'epoch_ns<TAB>kernels<TAB>epoch' row: %r" % lines[i][:200])
        prof.epochs.append((parts[2], int(parts[0]), int(parts[1])))
        i += 1
    if i == len(lines):
        raise ValueError("no %r line after the epoch rows" % GATE_ROWS_HEADER)
    for line in lines[i + 1:]:
        kind, name, total, count = parse_gate_row(line)
        key = name if kind == "kernel" else (kind, name)
        if key in prof.rows:
            raise ValueError("kernel name printed twice: %r" % short(name))
        prof.rows[key] = (total, count)
    return prof


def epoch_key(pattern, name):
    """The epoch a range name belongs to under an --epoch-range regex (the first capture
    group's text if the regex has one, else the name), or None. The patterns used here mean
    the same in Python's re and in POSIX ERE."""
    m = pattern.search(name)
    if not m:
        return None
    return m.group(1) if pattern.groups else name


class EpochFigures:
    """One epoch's figures from one source; first/last bound the kernels (None if none)."""

    def __init__(self):
        self.ns = 0
        self.kernels = 0
        self.first = self.last = None

    def span(self, first, last):
        self.first = first if self.first is None else min(self.first, first)
        self.last = last if self.last is None else max(self.last, last)

    @property
    def span_ns(self):
        return 0 if self.first is None else self.last - self.first


class Projection:
    """This script's own projection of NVTX ranges onto the GPU, from the SQLite export, by
    nsys's definition (nsys-formats.md section 3): ranges of types 59/60/70/71 that end on
    the thread they started on (an open range ends at the last NVTX timestamp); a GPU
    operation belongs to EVERY such range of its launching call's thread with range.start <=
    call.start and call.end <= range.end (call = the runtime/driver row of the same
    correlationId and process). It is not the gate's code; it serves to explain where the
    gate and nsys differ. Per epoch key: kernels (sum, count, span), the span of all GPU
    operations (kernels, memcpy, memset), the memory operations, and the kernels that also
    lie in a range of another epoch."""

    def __init__(self, path, pattern):
        self.kernel = {}         # key -> EpochFigures over kernels
        self.all_ops = {}        # key -> EpochFigures over kernels + memcpy + memset
        self.memops = {}         # key -> number of memcpy/memset launched in its ranges
        self.shared = {}         # key -> (kernels, ns, other keys, where their calls lie)
        self.n_shared = 0        # kernels inside ranges of two or more epochs
        self.n_ranges = 0
        ranges = sqlite_rows(path, "SELECT e.start, e.\"end\", e.globalTid, e.text, s.value "
                             "FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId "
                             "WHERE e.eventType IN (%s) AND e.endGlobalTid IS NULL"
                             % ",".join(str(t) for t in NVTX_RANGE_TYPES))
        # nsys ends an open range at the last timestamp of any range row
        last_ts = sqlite_rows(path, "SELECT max(max(start), max(\"end\")) AS ts FROM NVTX_EVENTS "
                              "WHERE eventType IN (%s)"
                              % ",".join(str(t) for t in NVTX_RANGE_TYPES))[0][0]
        per_tid = {}
        for start, end, tid, text, value in ranges:
            # nsys prefers the StringIds value, and puts "domain:" before the names of
            # non-default domains: the samples used here have none (05, 06), or lost their
            # domain rows to trimming (07), so the bare text is nsys's name too.
            name = value if value is not None else text
            key = epoch_key(pattern, name) if name is not None else None
            if key is None:
                continue
            per_tid.setdefault(tid, []).append((start, last_ts if end is None else end, key))
            self.n_ranges += 1
        index = {}
        for tid, rs in per_tid.items():
            rs.sort()
            reach, top = [], None
            for _, end, _ in rs:
                top = end if top is None else max(top, end)
                reach.append(top)
            index[tid] = ([r[0] for r in rs], reach, rs)

        tables = {row[0] for row in sqlite_rows(
            path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
        selects = []
        for table, kind in (("CUPTI_ACTIVITY_KIND_KERNEL", "kernel"),
                            ("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"),
                            ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
            if table in tables:
                selects.append("SELECT r.globalTid AS tid, r.start AS c_start, r.\"end\" AS "
                               "c_end, o.start AS o_start, o.\"end\" AS o_end, '%s' AS kind "
                               "FROM %s o JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                               "ON r.correlationId = o.correlationId "
                               "AND (r.globalTid & -16777216) = o.globalPid" % (kind, table))
        for tid, c_start, c_end, o_start, o_end, kind in sqlite_rows(
                path, " UNION ALL ".join(selects)):
            if tid not in index:
                continue
            starts, reach, rs = index[tid]
            inside = []         # (start, end, key) of every matched range holding the call
            i = bisect.bisect_right(starts, c_start) - 1
            while i >= 0 and reach[i] >= c_end:
                if rs[i][1] >= c_end:
                    inside.append(rs[i])
                i -= 1
            keys = [r[2] for r in inside]
            if kind == "kernel" and len(set(keys)) > 1:
                self.n_shared += 1
            for key in keys:
                self.all_ops.setdefault(key, EpochFigures()).span(o_start, o_end)
                if kind != "kernel":
                    self.memops[key] = self.memops.get(key, 0) + 1
                    continue
                fig = self.kernel.setdefault(key, EpochFigures())
                fig.ns += o_end - o_start
                fig.kernels += 1
                fig.span(o_start, o_end)
                if len(set(keys)) > 1:
                    n, ns, others, calls = self.shared.get(key, (0, 0, set(), set()))
                    where = "call [%d, %d] in %s" % (c_start, c_end, " and ".join(
                        "%r [%d, %d]" % (k, a, b) for a, b, k in sorted(inside)))
                    self.shared[key] = (n + 1, ns + o_end - o_start,
                                        others | (set(keys) - {key}), calls | {where})

    def explain(self, key, memops=True):
        """Why a gate figure of this epoch may differ from nsys's, or ''. Memory operations
        matter to the projected span only (memops=False for kernel sums)."""
        why = []
        if key in self.shared:
            n, ns, others, calls = self.shared[key]
            why.append("%d kernel(s), %d ns, were launched by calls that lie inside a range of "
                       "this epoch AND a range of %s (%s%s): nsys counts such a kernel in "
                       "every range that contains its call, the gate in one epoch only"
                       % (n, ns, ", ".join(repr(k) for k in sorted(others)),
                          "; ".join(sorted(calls)[:2]),
                          "; ... %d more" % (len(calls) - 2) if len(calls) > 2 else ""))
        if memops and self.memops.get(key):
            why.append("its ranges launch %d memcpy/memset, which nvtx_gpu_proj_trace projects "
                       "too (span over all GPU operations %d ns, over kernels only %d ns)"
                       % (self.memops[key], self.all_ops[key].span_ns,
                          self.kernel.get(key, EpochFigures()).span_ns))
        return "; ".join(why)


class NsysEpochs:
    """nsys 2023.4's figures per epoch key: from nvtx_kern_sum (sum of Total Time and Kern
    Inst over the rows of the key's ranges; kernel name -> (ns, count) over them) and from
    nvtx_gpu_proj_trace (span = last projected end - first projected start over the key's
    range rows; ops = NumGPUOps added up)."""

    def __init__(self):
        self.kern = {}           # key -> EpochFigures (ns, kernels)
        self.proj = {}           # key -> EpochFigures (span)
        self.ops = {}            # key -> NumGPUOps
        self.rows = {}           # kernel name -> (ns, count) over the epoch ranges
        self.proj_rows = []      # the parsed proj trace rows


def nsys_epochs(kern_rows, proj_rows, pattern):
    ne = NsysEpochs()
    for row in kern_rows:
        key = epoch_key(pattern, row["range"]) if row["range"] else None
        if key is None:
            continue
        fig = ne.kern.setdefault(key, EpochFigures())
        fig.ns += row["total_ns"]
        fig.kernels += row["kern_inst"]
        ns, count = ne.rows.get(row["kernel"], (0, 0))
        ne.rows[row["kernel"]] = (ns + row["total_ns"], count + row["kern_inst"])
    for row in proj_rows:
        key = epoch_key(pattern, row["name"]) if row["name"] else None
        if key is None:
            continue
        ne.proj.setdefault(key, EpochFigures()).span(row["proj_start"],
                                                     row["proj_start"] + row["proj_dur"])
        ne.ops[key] = ne.ops.get(key, 0) + row["ops"]
    ne.proj_rows = proj_rows
    return ne


def nsys_csv_report(ctx, path, report):
    """Real nsys 2023.4 `stats -q --report REPORT --format csv` on an SQLite file (run in
    its directory): (Run, data rows of the report or None, problem)."""
    r = run([ctx.nsys["2023.4"], "stats", "-q", "--report", report, "--format", "csv",
             os.path.basename(path)], cwd=os.path.dirname(path), env=clean_env(),
            timeout=NSYS_TIMEOUT)
    if r.rc != 0:
        return r, None, "nsys failed: " + r.describe()
    header = {"nvtx_kern_sum": NVTX_KERN_SUM_HEADER,
              "nvtx_gpu_proj_trace": NVTX_GPU_PROJ_HEADER}[report]
    rows = report_block(r.out, header)
    if rows is None:
        return r, None, "no %s header %r in nsys's output: %r" % (report, header, r.out[:400])
    return r, rows, ""


def gate_epochs(ctx, path, pattern, metric, work=None, **env):
    """(Run, GateEpochs or None, problem) of --print-profile --epoch-range in NVTX mode."""
    r = ctx.gate_run(["--print-profile", "--epoch-range", pattern, "--metric", metric]
                     + (["--work", work] if work else []) + [path], **env)
    if r.rc != 0:
        return r, None, "gate failed: " + r.describe()
    try:
        return r, parse_gate_epochs(r.out), ""
    except ValueError as e:
        return r, None, "unparsable --print-profile output: %s; %s" % (e, r.describe())


def epoch_mismatches(keys, got, want, explain, limit=5):
    """'' when got[k] == want[k] for every key, else the first differences, explained."""
    bad = [k for k in keys if got.get(k) != want.get(k)]
    if not bad:
        return ""
    text = []
    for k in bad[:limit]:
        why = explain(k)
        text.append("%r: gate %s, nsys %s%s" % (k, got.get(k), want.get(k),
                                                 " -- " + why if why else ""))
    return "%d of %d epoch(s) differ: %s%s" % (len(bad), len(keys), "; ".join(text),
                                              "; ..." if len(bad) > limit else "")


class EpochComparison:
    def __init__(self, gsum, gspan, ne, ref):
        self.gsum, self.gspan, self.nsys, self.ref = gsum, gspan, ne, ref


def compare_epochs_with_nsys(ctx, tag, path, pattern_text):
    """The gate's NVTX epochs of an SQLite file against nsys 2023.4's nvtx_kern_sum and
    nvtx_gpu_proj_trace on the same file, per epoch, to the nanosecond. Returns an
    EpochComparison, or None when a prerequisite failed (reported)."""
    res = ctx.results
    pattern = re.compile(pattern_text, re.IGNORECASE)
    # kernel-sum over kernels is nvtx_kern_sum; gpu-span over every kind is
    # nvtx_gpu_proj_trace, which projects kernels, memcpy and memset
    _, gsum, problem = gate_epochs(ctx, path, pattern_text, "kernel-sum", work="kernels")
    _, gspan, problem2 = gate_epochs(ctx, path, pattern_text, "gpu-span", work="all")
    if problem or problem2:
        res.not_ok("%s: gate --print-profile --epoch-range %r" % (tag, pattern_text),
                   problem or problem2)
        return None
    _, kern_rows, problem = nsys_csv_report(ctx, path, "nvtx_kern_sum")
    _, proj_rows, problem2 = nsys_csv_report(ctx, path, "nvtx_gpu_proj_trace")
    if problem or problem2:
        res.not_ok("%s: nsys 2023.4 nvtx_kern_sum / nvtx_gpu_proj_trace" % tag,
                   problem or problem2)
        return None
    try:
        ne = nsys_epochs(parse_nvtx_kern_sum(kern_rows), parse_nvtx_gpu_proj(proj_rows),
                         pattern)
    except ValueError as e:
        res.not_ok("%s: this script parses nsys's NVTX reports" % tag, str(e))
        return None
    ref = Projection(path, pattern)

    # The epochs: the gate names each by the text of its first range.
    gate_keys = [epoch_key(pattern, name) for name, _, _ in gsum.epochs]
    span_keys = [epoch_key(pattern, name) for name, _, _ in gspan.epochs]
    nsys_keys = set(ne.kern) | set(ne.proj)
    if not res.expect(None not in gate_keys and len(set(gate_keys)) == len(gate_keys)
                      and gate_keys == span_keys and set(gate_keys) >= nsys_keys,
                      "%s: the gate prints one row per epoch (%d), under both metrics, "
                      "covering every epoch nsys projects (%d)" % (tag, len(gate_keys),
                                                                   len(nsys_keys)),
                      lambda: "gate epochs %r...; metrics agree on them: %s; nsys-only: %r" % (
                          gate_keys[:5], gate_keys == span_keys,
                          sorted(k for k in nsys_keys if k not in gate_keys)[:5])):
        return None

    # This script's projection must reproduce nsys before it may explain anything.
    ref_kern = {k: (f.ns, f.kernels) for k, f in ref.kernel.items()}
    want_kern = {k: (f.ns, f.kernels) for k, f in ne.kern.items()}
    ref_span = {k: f.span_ns for k, f in ref.all_ops.items()}
    want_span = {k: f.span_ns for k, f in ne.proj.items()}
    res.expect(ref_kern == want_kern and ref_span == want_span,
               "%s: this script's projection (nsys-formats.md section 3) reproduces nsys's "
               "nvtx_kern_sum and nvtx_gpu_proj_trace for all %d epochs" % (tag, len(nsys_keys)),
               lambda: "kern_sum: %s | proj: %s" % (
                   epoch_mismatches(sorted(set(ref_kern) | set(want_kern)), ref_kern, want_kern,
                                    lambda k: "") or "same",
                   epoch_mismatches(sorted(set(ref_span) | set(want_span)), ref_span, want_span,
                                    lambda k: "") or "same"))

    # kernel-sum: nvtx_kern_sum's Total Time over the epoch's rows, and its Kern Inst.
    got = {k: (ns, n) for k, (_, ns, n) in zip(gate_keys, gsum.epochs)}
    want = {k: want_kern.get(k, (0, 0)) for k in gate_keys}
    def explain_sum(k):
        why = ref.explain(k, memops=False)
        n, ns, _, _ = ref.shared.get(k, (0, 0, None, None))
        if n and (got[k][0] + ns, got[k][1] + n) == want[k]:
            why += " (gate + those kernels == nsys exactly)"
        return why

    res.expect(got == want, "%s: per epoch, gate --metric kernel-sum (ns, kernels) == sum of "
               "nsys nvtx_kern_sum Total Time (ns) and Kern Inst over the epoch's rows, all %d "
               "epochs" % (tag, len(gate_keys)),
               lambda: epoch_mismatches(gate_keys, got, want, explain_sum))

    # gpu-span --work all: nvtx_gpu_proj_trace's projected span over kernels, memcpy and
    # memset, and its NumGPUOps, for every epoch (with memory operations or without)
    got = {k: (ns, n) for k, (_, ns, n) in zip(gate_keys, gspan.epochs)}
    want = {k: (want_span.get(k, 0), ne.ops.get(k, 0)) for k in gate_keys}
    with_mem = [k for k in gate_keys if ref.memops.get(k)]
    res.expect(got == want,
               "%s: per epoch, gate --metric gpu-span --work all (ns, launches) == nsys "
               "nvtx_gpu_proj_trace Projected Duration (last end - first start over the epoch's "
               "ranges) and NumGPUOps, all %d epochs (%d of them with memcpy/memset)"
               % (tag, len(gate_keys), len(with_mem)),
               lambda: epoch_mismatches(gate_keys, got, want, ref.explain))

    # Kernel rows in NVTX mode: only kernels inside counted epochs, per name, each kernel
    # once. A kernel launched on the boundary of two epochs counts in both epochs (as in
    # nsys) but once in the rows: then the rows may only fall short of nsys's per-range
    # sums, and the epochs add up to more than the rows by those kernels.
    expected = {gate_shown_name(n): v for n, v in ne.rows.items()}
    shared = ref.n_shared
    epochs_ns = sum(ns for _, ns, _ in gsum.epochs)
    epochs_n = sum(n for _, _, n in gsum.epochs)
    if shared:
        rows_ok = (set(gsum.rows) == set(expected)
                   and all(gsum.rows[k][0] <= expected[k][0] and gsum.rows[k][1] <= expected[k][1]
                           for k in expected)
                   and gsum.total_ns < epochs_ns and epochs_n - gsum.count == shared)
    else:
        rows_ok = (gsum.rows == expected and gsum.total_ns == epochs_ns
                   and gsum.count == epochs_n)
    res.expect(rows_ok,
               "%s: gate kernel rows (%d names) == nsys nvtx_kern_sum per kernel name over the "
               "epochs' rows, each kernel once (%d on an epoch boundary); header total == sum "
               "of the epochs less those" % (tag, len(expected), shared),
               lambda: "rows: %s; header %d ns / %d launches, epochs add up to %d ns / %d%s" % (
                   rows_diff(expected, gsum.rows) or "same", gsum.total_ns, gsum.count,
                   sum(ns for _, ns, _ in gsum.epochs), sum(n for _, _, n in gsum.epochs),
                   "; nsys counts %d kernel(s) in the ranges of two or more epochs (see the "
                   "per-epoch lines)" % shared if shared else ""))
    return EpochComparison(gsum, gspan, ne, ref)


def check_nvtx_renamed_epochs(ctx):
    """11. NVTX epochs against nsys: a copy of sample 06 whose 1000 per-iteration `test`
    ranges are renamed `epoch=0`..`epoch=999` (start order; inline text, then registered
    strings): with --epoch-range '^epoch=([0-9]+)$' the gate's kernel-sum and gpu-span of
    every epoch equal nsys 2023.4's nvtx_kern_sum and nvtx_gpu_proj_trace to the
    nanosecond."""
    res = ctx.results
    rel = ctx.sample("06_*" + DERIVED_SUFFIX)
    pattern_text = r"^epoch=([0-9]+)$"
    for label, sql in (("inline text", EPOCH_RENAME_INLINE_SQL),
                       ("registered strings", EPOCH_RENAME_REGISTERED_SQL)):
        tag = "06 with epoch=N ranges (%s)" % label
        d = ctx.fresh_dir("nvtx-epochs")
        copy = ctx.copy_sample(rel, d, "epochs.sqlite")
        problem = sqlite_exec(copy, sql)
        if problem:
            res.not_ok("%s: rename the `test` ranges on a copy" % tag, problem)
            continue
        kinds = sqlite_rows(copy, "SELECT text IS NOT NULL, textId IS NOT NULL, count(*) FROM "
                            "NVTX_EVENTS WHERE eventType = 59 AND coalesce(text, (SELECT value "
                            "FROM StringIds WHERE id = textId)) GLOB 'epoch=*' GROUP BY 1, 2")
        names = [row[0] for row in sqlite_rows(
            copy, "SELECT coalesce(e.text, s.value) FROM NVTX_EVENTS e LEFT JOIN StringIds s "
            "ON s.id = e.textId WHERE e.eventType IN (59, 60, 70, 71) AND (coalesce(e.text, "
            "s.value) IN ('test', 'test_outer') OR coalesce(e.text, s.value) GLOB 'epoch=*') "
            "ORDER BY e.start, e.rowid")]
        inline = label == "inline text"
        if not res.expect(names == ["test_outer"] + ["epoch=%d" % i for i in range(1000)]
                          and kinds == [(1 if inline else 0, 0 if inline else 1, 1000)],
                          "%s: the copy holds test_outer, then epoch=0..epoch=999 in start "
                          "order, as %s" % (tag, label),
                          lambda: "names %r ... %r; (text?, textId?, count) %r"
                          % (names[:3], names[-2:], kinds)):
            continue
        cmp = compare_epochs_with_nsys(ctx, tag, copy, pattern_text)
        if cmp is not None:
            res.expect([e[0] for e in cmp.gsum.epochs] == ["epoch=%d" % i for i in range(1000)],
                       "%s: the gate prints the epochs in start order, each named by its "
                       "range" % tag, lambda: "first rows %r" % cmp.gsum.epochs[:3])


def check_nvtx_custom_regex(ctx):
    """12. NVTX epochs against nsys with a custom regex: sample 05's `Warmup` and
    `Profile_Loop` ranges (--epoch-range '^(Warmup|Profile_Loop)$'), kernel-sum and gpu-span
    per range vs nsys 2023.4; the 3,481,709 ns its source repository shows for Profile_Loop
    is the CPU duration of the range, not a GPU figure."""
    res = ctx.results
    rel = ctx.sample("05_*" + DERIVED_SUFFIX)
    d = ctx.fresh_dir("nvtx-vecadd")
    copy = ctx.copy_sample(rel, d)
    cmp = compare_epochs_with_nsys(ctx, "05 (Warmup|Profile_Loop)", copy,
                                   r"^(Warmup|Profile_Loop)$")
    if cmp is None:
        return
    loop = [row for row in cmp.nsys.proj_rows if row["name"] == "Profile_Loop"]
    figures = {name: ns for name, ns, _ in cmp.gsum.epochs}
    spans = {name: ns for name, ns, _ in cmp.gspan.epochs}
    res.expect(len(loop) == 1 and loop[0]["orig_dur"] == 3481709 and loop[0]["ops"] == 1000
               and figures.get("Profile_Loop") != 3481709 and spans.get("Profile_Loop") != 3481709,
               "05: Profile_Loop's 3,481,709 ns (the sample repository's README) is nsys's Orig "
               "Duration, the CPU time of the range, with 1000 GPU ops: the gate's GPU figures "
               "are %s ns (kernel-sum) and %s ns (gpu-span)"
               % (figures.get("Profile_Loop"), spans.get("Profile_Loop")),
               lambda: "nsys rows %r" % loop)


def saved_report(ctx, name, header):
    """The data rows of one report block in a saved 2023.4 console output, or None."""
    full = os.path.join(ctx.samples, "generated", "nsys-2023.4.4", name)
    if not os.path.isfile(full):
        return None
    with open(full, encoding="utf-8", errors="replace") as f:
        return report_block(f.read(), header)


def check_nvtx_saved_outputs(ctx):
    """13. NVTX epochs against the saved output of real nsys 2023.4 runs (generated/): on
    sample 06, the 1000 same-name `test` ranges of one thread are 1000 epochs (occurrence k of
    the key is epoch k): together they equal the sum of nvtx_kern_sum's `test` rows, and one by
    one, in order, the projected durations of nvtx_gpu_proj_trace's `test` rows; `test_outer`
    is its one row; on sample 05, Profile_Loop's projected duration; the saved projection rows
    equal those of a live nsys 2023.4 run."""
    res = ctx.results
    nvfuser = ctx.path(ctx.sample("06_*" + DERIVED_SUFFIX))
    kern = saved_report(ctx, "nvfuser_nvtx_kern_sum_csv.stdout.txt", NVTX_KERN_SUM_HEADER)
    proj = saved_report(ctx, "nvfuser_nvtx_gpu_proj_trace_csv.stdout.txt", NVTX_GPU_PROJ_HEADER)
    if kern is None or proj is None:
        res.not_ok("saved nvfuser nvtx_kern_sum / nvtx_gpu_proj_trace outputs",
                   "missing, or without the 2023.4 header")
    else:
        kern, proj = parse_nvtx_kern_sum(kern), parse_nvtx_gpu_proj(proj)
        for name in ("test", "test_outer"):
            pattern_text = "^%s$" % name
            krows = [row for row in kern if row["range"] == name]
            prows = sorted((row for row in proj if row["name"] == name and row["ops"] > 0),
                           key=lambda r: r["orig_start"])
            _, gsum, problem = gate_epochs(ctx, nvfuser, pattern_text, "kernel-sum")
            _, gspan, problem2 = gate_epochs(ctx, nvfuser, pattern_text, "gpu-span")
            if problem or problem2:
                res.not_ok("06: gate --epoch-range %r" % pattern_text, problem or problem2)
                continue
            want_sum = (sum(r["total_ns"] for r in krows), sum(r["kern_inst"] for r in krows))
            got_sum = (sum(e[1] for e in gsum.epochs), sum(e[2] for e in gsum.epochs))
            res.expect(len(gsum.epochs) == len(prows) and got_sum == want_sum,
                       "06 --epoch-range %r: the gate's %d epochs (one per range with GPU work), "
                       "kernel-sum %d ns / %d kernels in all == saved nvtx_kern_sum over its %d "
                       "'%s' row(s)" % (pattern_text, len(prows), want_sum[0], want_sum[1],
                                        len(krows), name),
                       lambda: "gate: %d epochs, %r; first %r" % (len(gsum.epochs), got_sum,
                                                                 gsum.epochs[:3]))
            want_span = [(r["proj_dur"], r["ops"]) for r in prows]
            got_span = [(e[1], e[2]) for e in gspan.epochs]
            res.expect(got_span == want_span,
                       "06 --epoch-range %r: epoch k's gpu-span == the projected duration (and "
                       "GPU ops) of the k-th of the saved nvtx_gpu_proj_trace's %d '%s' rows"
                       % (pattern_text, len(prows), name),
                       lambda: "gate %r..., nsys %r..." % (got_span[:3], want_span[:3]))
            if name == "test":
                names_ok = [e[0] for e in gspan.epochs[:2]] == ["test #1", "test #2"]
                res.expect(names_ok, "06: repeated 'test' epochs are named 'test #1', 'test #2', "
                           "...", lambda: "gate names %r" % [e[0] for e in gspan.epochs[:3]])

    vecadd = saved_report(ctx, "vecadd_v3_kern_nvtxsum_gpuproj_csv.stdout.txt",
                          NVTX_GPU_PROJ_HEADER)
    nvtx_sum = saved_report(ctx, "vecadd_v3_kern_nvtxsum_gpuproj_csv.stdout.txt",
                            NVTX_SUM_HEADER)
    if vecadd is None or nvtx_sum is None:
        res.not_ok("saved vecadd_v3 nvtx_gpu_proj_trace / nvtx_sum output", "missing")
        return
    saved = [row for row in parse_nvtx_gpu_proj(vecadd) if row["name"]]
    rel = ctx.sample("05_*" + DERIVED_SUFFIX)
    copy = ctx.copy_sample(rel, ctx.fresh_dir("nvtx-vecadd-saved"))
    _, live, problem = nsys_csv_report(ctx, copy, "nvtx_gpu_proj_trace")
    live = [row for row in parse_nvtx_gpu_proj(live) if row["name"]] if not problem else None
    res.expect(live == saved, "05: saved nvtx_gpu_proj_trace rows (Warmup, Profile_Loop) == a "
               "live nsys 2023.4 run", lambda: problem or "saved %r, live %r" % (saved, live))
    _, gspan, problem = gate_epochs(ctx, ctx.path(rel), r"^(Warmup|Profile_Loop)$", "gpu-span")
    loop = [row for row in saved if row["name"] == "Profile_Loop"]
    spans = {name: (ns, n) for name, ns, n in gspan.epochs} if gspan else {}
    res.expect(not problem and len(loop) == 1
               and spans.get("Profile_Loop") == (loop[0]["proj_dur"], loop[0]["ops"]),
               "05: gate gpu-span of Profile_Loop %s == saved Projected Duration and NumGPUOps"
               % (spans.get("Profile_Loop"),),
               lambda: problem or "saved %r" % loop)
    cpu = [line for line in nvtx_sum if line.endswith(",PushPop,Profile_Loop")]
    res.expect(len(cpu) == 1 and cpu[0].split(",")[1] == "3481709"
               and loop and loop[0]["orig_dur"] == 3481709,
               "05: saved nvtx_sum Total Time of Profile_Loop == its Orig Duration == 3481709 ns "
               "(CPU range time, the figure in the sample repository's README)",
               lambda: "nvtx_sum %r, proj %r" % (cpu, loop))


def check_nvtx_gate_end_to_end(ctx):
    """14. NVTX mode end to end on the real 2-GPU before/after pair (07/07b, nsys 2026.2
    exports): per-layer samples (--epoch-range '^aten::linear, seq = ([0-9]+),', both
    ranks' GEMMs of one layer op per sample) give a sane verdict -- exit 0/1, JSON
    verdict pass/fail/inconclusive with samples on both sides, kernels and a p-value -- and
    the epochs of each side equal nsys 2023.4's projection."""
    res = ctx.results
    base = ctx.sample("07_*.sqlite")
    cur = ctx.sample("07b_*.sqlite")
    for label, rel in (("07", base), ("07b", cur)):
        d = ctx.fresh_dir("nvtx-fsdp")
        copy = ctx.copy_sample(rel, d)
        compare_epochs_with_nsys(ctx, "%s %r" % (label, FSDP_EPOCH_RANGE), copy,
                                 FSDP_EPOCH_RANGE)

    d = ctx.fresh_dir("nvtx-fsdp-gate")
    out_json = os.path.join(d, "out.json")
    r = ctx.gate_run(["--epoch-range", FSDP_EPOCH_RANGE, "--json", out_json, ctx.path(base),
                      ctx.path(cur)])
    verdict = read_json(out_json)
    print("# 07 -> 07b, --epoch-range %r: exit %s; %s" % (
        FSDP_EPOCH_RANGE, r.rc, " | ".join(r.out.splitlines()[:2])), flush=True)
    if not res.expect(r.rc in (0, 1) and isinstance(verdict, dict)
                      and verdict.get("verdict") in ("pass", "fail", "inconclusive"),
                      "07 -> 07b --epoch-range %r: exit 0/1, JSON verdict pass/fail/"
                      "inconclusive" % FSDP_EPOCH_RANGE,
                      lambda: "%s; json %r" % (r.describe(), verdict)):
        return
    word = {"pass": "PASS:", "fail": "FAIL:", "inconclusive": "INCONCLUSIVE:"}[verdict["verdict"]]
    samples = verdict.get("samples") or {}
    sb, sc = samples.get("baseline") or [], samples.get("current") or []
    kernels = verdict.get("kernels") or []
    p = verdict.get("p_value")
    res.expect(r.out.startswith(word) and r.rc == (1 if verdict["verdict"] == "fail" else 0)
               and verdict.get("mode") == "nvtx" and verdict.get("metric") == "kernel-sum",
               "07 -> 07b: the human line says %s, the exit status agrees, mode nvtx, metric "
               "kernel-sum" % word.rstrip(":"),
               lambda: "%s; json mode %r metric %r" % (r.describe(), verdict.get("mode"),
                                                       verdict.get("metric")))
    res.expect(sb and sc and kernels and all(k.get("name") for k in kernels)
               and (len(sb) < 3 or len(sc) < 3
                    or (isinstance(p, (int, float)) and 0 <= p <= 1)),
               "07 -> 07b: samples on both sides (%d, %d), %d kernels named, p_value %s"
               % (len(sb), len(sc), len(kernels), p),
               lambda: "json %r" % {k: verdict.get(k) for k in ("samples", "kernels",
                                                                  "p_value")})
    # The JSON samples are the --print-profile epochs, in ms.
    problems = []
    for label, rel, got in (("baseline", base, sb), ("current", cur, sc)):
        _, prof, problem = gate_epochs(ctx, ctx.path(rel), FSDP_EPOCH_RANGE, "kernel-sum")
        if problem:
            problems.append(problem)
            continue
        want = [ns / 1e6 for _, ns, _ in prof.epochs]
        if len(want) != len(got) or any(abs(a - b) > 1e-9 * max(1.0, abs(a))
                                         for a, b in zip(want, got)):
            problems.append("%s: json %d samples %r..., --print-profile %d epochs %r..."
                            % (label, len(got), got[:3], len(want), want[:3]))
    res.expect(not problems, "07 -> 07b: the JSON samples are the --print-profile epoch "
               "values of each side, in ms, in order", "; ".join(problems))
    print("# 07 -> 07b: verdict %s, p=%s; top kernels: %s" % (
        verdict["verdict"], p, "; ".join("%s (%s, %+.6f ms/epoch)" % (
            short(k.get("name", ""), 60), k.get("status"), k.get("delta_ms_per_epoch") or 0)
            for k in kernels[:3])), flush=True)



FLASH_EPOCH_RANGE = r"^(FlashAttnFunc),"


def stats_reference(ctx):
    """tests/stats/decision_check.py's reference(): the decision's figures computed
    there with scipy, not by the gate."""
    import importlib.util
    path = os.path.join(ctx.srcdir, "tests", "stats", "decision_check.py")
    spec = importlib.util.spec_from_file_location("decision_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.reference


def check_nvtx_clusters(ctx):
    """16. Epochs of two kinds on the real pair: --epoch-range '^(FlashAttnFunc),' matches
    ranges near 0.31 ms and near 15.73 ms in turn on 07 and 07b (inside each kind nothing
    moved more than 0.7%). With and without --skip-epochs 1 the verdict is not FAIL (the
    median made it FAIL 25.69x and 1.97x), the epochs add up to nsys 2023.4's projection, each
    side's JSON names two clusters, and the ratio of means, p and its interval are the
    figures the stats suite's reference computes from those epochs."""
    res = ctx.results
    base = ctx.sample("07_*.sqlite")
    cur = ctx.sample("07b_*.sqlite")
    # nsys keys its NVTX reports by range text: every FlashAttnFunc range adds up in one
    # row, so the gate's epochs (one per occurrence) must add up to that row
    pattern = re.compile(FLASH_EPOCH_RANGE, re.IGNORECASE)
    for label, rel in (("07", base), ("07b", cur)):
        copy = ctx.copy_sample(rel, ctx.fresh_dir("nvtx-flash"))
        _, gsum, problem = gate_epochs(ctx, copy, FLASH_EPOCH_RANGE, "kernel-sum", work="kernels")
        _, kern_rows, problem2 = nsys_csv_report(ctx, copy, "nvtx_kern_sum")
        if problem or problem2:
            res.not_ok("%s %r: the gate's epochs and nsys 2023.4 nvtx_kern_sum"
                       % (label, FLASH_EPOCH_RANGE), problem or problem2)
            continue
        ne = nsys_epochs(parse_nvtx_kern_sum(kern_rows), [], pattern)
        got = sum(ns for _, ns, _ in gsum.epochs)
        want = sum(f.ns for f in ne.kern.values())
        res.expect(got == want and len(gsum.epochs) > 20,
                   "%s %r: the gate's %d epochs add up to nsys 2023.4's nvtx_kern_sum, %d ns"
                   % (label, FLASH_EPOCH_RANGE, len(gsum.epochs), want),
                   "gate %d ns over %d epochs" % (got, len(gsum.epochs)))
    reference = stats_reference(ctx)
    for skip in ("0", "1"):
        d = ctx.fresh_dir("nvtx-flash-gate")
        out_json = os.path.join(d, "out.json")
        r = ctx.gate_run(["--epoch-range", FLASH_EPOCH_RANGE, "--skip-epochs", skip, "--json",
                          out_json, ctx.path(base), ctx.path(cur)])
        v = read_json(out_json)
        tag = "07 -> 07b %r --skip-epochs %s" % (FLASH_EPOCH_RANGE, skip)
        print("# %s: exit %s; %s" % (tag, r.rc, r.out.splitlines()[0] if r.out else ""),
              flush=True)
        if not res.expect(isinstance(v, dict) and v.get("verdict") in ("pass", "inconclusive")
                          and r.rc == 0, "%s: not FAIL, exit 0" % tag,
                          lambda: "%s; json verdict %r" % (r.describe(), (v or {}).get("verdict"))):
            continue
        kinds = [len(v[side].get("clusters") or []) for side in ("baseline", "current")]
        res.expect(kinds == [2, 2], "%s: two clusters a side in the JSON" % tag, str(kinds))
        sb, sc = v["samples"]["baseline"], v["samples"]["current"]
        ratio, p, ci, strata = reference(sb, sc)
        got_ci = v.get("ratio_ci") or [0, 0]
        res.expect(abs(v["ratio"] - ratio) <= 1e-9 * ratio
                   and abs(v["p_value"] - p) <= max(1e-6 * p, 1e-12)
                   and all(abs(a - b) <= 1e-6 * b for a, b in zip(got_ci, ci)) and strata == 2,
                   "%s: ratio %.4f, p %.3g, interval %.4f .. %.4f, within 2 clusters, as the "
                   "reference computes them" % (tag, ratio, p, ci[0], ci[1]),
                   "gate ratio %r p %r interval %r; reference strata %d"
                   % (v["ratio"], v["p_value"], got_ci, strata))


MEM_SUM_HEADER = ("Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),"
                  "StdDev (ns),Operation")


def memory_samples(ctx):
    return [rel for rel in ctx.sample_files() if rel.endswith(".sqlite") and sqlite_rows(
        ctx.path(rel), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
        "('CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET')")[0][0]]


def check_memory_rows(ctx):
    """15. Memory operations (--work all) on every SQLite sample that has memcpy/memset
    tables: the gate's memcpy and memset rows equal nsys 2023.4's cuda_gpu_mem_time_sum
    (Operation, Total Time, Count) to the ns where nsys reads the file; on 2020 exports,
    which nsys refuses (no ENUM_CUDA_MEMCPY_OPER), they equal plain SQL sums per copy kind,
    named from the export's own MemcpyOperationStrings. Under the default --work they are
    left out and said to be."""
    res = ctx.results
    for rel in memory_samples(ctx):
        path = ctx.path(rel)
        _, prof, problem = ctx.gate_profile(path, ["--work", "all"])
        if problem:
            res.not_ok("%s: gate --print-profile --work all" % rel, problem)
            continue
        got = {k[1]: v for k, v in prof.rows.items()
               if isinstance(k, tuple) and k[0] in ("memcpy", "memset")}
        d = ctx.fresh_dir("mem-time-sum")
        copy = ctx.copy_sample(rel, d)
        r = run([ctx.nsys["2023.4"], "stats", "-q", "--report", "cuda_gpu_mem_time_sum",
                 "--format", "csv", os.path.basename(copy)], cwd=d, env=clean_env(),
                timeout=NSYS_TIMEOUT)
        rows = report_block(r.out, MEM_SUM_HEADER) if r.rc == 0 else None
        if rows is not None:
            want = {}
            for row in rows:
                cells = row.split(",", 8)
                want[cells[8]] = (int(cells[1]), int(cells[2]))
            res.expect(got == want, "%s: gate memcpy/memset rows (%d) == nsys 2023.4 "
                       "cuda_gpu_mem_time_sum (%d operations)" % (rel, len(got), len(want)),
                       lambda: rows_diff(want, got))
        else:
            names = dict(sqlite_rows(path, "SELECT id, name FROM MemcpyOperationStrings"))
            want = {}
            for kind, ns, n in sqlite_rows(path, "SELECT copyKind, sum(\"end\" - start), "
                                           "count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1"):
                want[names.get(kind, "[CUDA memcpy kind %d]" % kind)] = (ns, n)
            for ns, n in sqlite_rows(path, "SELECT sum(\"end\" - start), count(*) FROM "
                                     "CUPTI_ACTIVITY_KIND_MEMSET"):
                if n:
                    want["[CUDA memset]"] = (ns, n)
            res.expect(got == want,
                       "%s: nsys 2023.4 prints no cuda_gpu_mem_time_sum (no ENUM_CUDA_MEMCPY_OPER); "
                       "gate memcpy/memset rows (%d) == SQL sums per copy kind, named from "
                       "MemcpyOperationStrings" % (rel, len(got)),
                       lambda: "nsys: %s; %s" % (one_line(r.out + r.err, 200), rows_diff(want, got)))
        # the default --work leaves them out, and says how much
        r2 = ctx.gate_run(["--print-profile", path])
        left = [line for line in r2.out.split("\n") if line.startswith(GATE_NOTE)]
        total_left = sum(int(re.search(r"(\d+) ns$", line).group(1)) for line in left
                         if re.search(r"(memcpy|memset) launches", line))
        res.expect(r2.rc == 0 and total_left == sum(ns for ns, _ in want.values()),
                   "%s: without --work memory, --print-profile says the %d ns of memory "
                   "operations were left out" % (rel, sum(ns for ns, _ in want.values())),
                   lambda: "left-out lines %r; %s" % (left, r2.describe()))


def check_base_names(ctx):
    """16. --kernel-names base: on every SQLite sample with kernels, the gate's rows (from
    shortName) equal nsys 2023.4's cuda_gpu_kern_sum:base; and the gate's rule for saved
    text, reading nsys's full-name cuda_gpu_kern_sum CSV with --kernel-names base, gives the
    same rows (names, totals, launches)."""
    res = ctx.results
    for rel in kernel_sqlite_samples(ctx):
        tag = rel
        r, parsed, problem = ctx.nsys_stats(
            "2023.4", rel, ["--report", "cuda_gpu_kern_sum:base", "--format", "csv", "-q"],
            "base")
        if problem or len(parsed.summaries) != 1:
            res.not_ok("%s: nsys 2023.4 cuda_gpu_kern_sum:base" % tag,
                       problem or "%d kernel summaries found" % len(parsed.summaries))
            continue
        base = parsed.summaries[0]
        _, prof, problem = ctx.gate_profile(ctx.path(rel), ["--kernel-names", "base"])
        if problem:
            res.not_ok("%s: gate --kernel-names base --print-profile" % tag, problem)
        else:
            expect_profile_matches(ctx, "%s: gate --kernel-names base rows (%d) == nsys 2023.4 "
                                   "cuda_gpu_kern_sum:base" % (tag, len(base.rows)), prof, base)
        r, full, problem = ctx.nsys_kern_sum_csv(rel)
        if problem:
            res.not_ok("%s: nsys 2023.4 cuda_gpu_kern_sum --format csv -q" % tag, problem)
            continue
        d = ctx.fresh_dir("base-from-text")
        saved = os.path.join(d, "kern_sum.csv")
        with open(saved, "w", encoding="utf-8") as f:
            f.write(r.out)
        _, prof, problem = ctx.gate_profile(saved, ["--kernel-names", "base"])
        if problem:
            res.not_ok("%s: gate --kernel-names base on nsys's saved CSV" % tag, problem)
        else:
            expect_profile_matches(ctx, "%s: the base-name rule on %d full names of nsys's "
                                   "saved CSV == nsys 2023.4 cuda_gpu_kern_sum:base"
                                   % (tag, len(full.rows)), prof, base)


CHECKS = [
    check_sqlite_against_nsys_stats,
    check_no_kernel_samples,
    check_sqlite_read_only,
    check_nsys_rep_end_to_end,
    check_old_nsys_on_newer_report,
    check_saved_nsys_outputs,
    check_csv_samples,
    check_text_layouts,
    check_text_timeunit_sec,
    check_text_memory,
    check_nvtx_renamed_epochs,
    check_nvtx_custom_regex,
    check_nvtx_saved_outputs,
    check_nvtx_gate_end_to_end,
    check_nvtx_clusters,
    check_memory_rows,
    check_base_names,
]


# ------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------

def fetch_nsys(srcdir, version):
    """Path of a working real nsys (ci/fetch-nsys.sh), or raise Skip."""
    script = os.path.join(srcdir, "ci", "fetch-nsys.sh")
    if not os.path.isfile(script):
        raise Skip("%s not found" % script)
    r = run(["bash", script, version], env=clean_env(), timeout=900)
    path = r.out.strip()
    if r.rc != 0 or not path or not os.access(path, os.X_OK):
        raise Skip("cannot get nsys %s: ci/fetch-nsys.sh %s exited %s: %s"
                   % (version, version, "TIMEOUT" if r.timed_out else r.rc,
                      one_line(r.err[-800:])))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gate", required=True, help="the nsys-gate executable")
    ap.add_argument("--srcdir", required=True, help="the project's root")
    ap.add_argument("--shared", required=True, help="the shared dir holding nsys-samples/")
    args = ap.parse_args()

    started = time.monotonic()
    results = Results()
    # CI=true makes a skip a failure, unless the pipeline says it has no
    # samples on purpose (a public CI without ../shared).
    in_ci = (os.environ.get("CI", "").lower() == "true"
             and os.environ.get("NSYS_GATE_CONFORMANCE", "") != "optional")
    gate = os.path.abspath(args.gate)
    srcdir = os.path.abspath(args.srcdir)
    shared = os.path.abspath(args.shared)

    if not (os.path.isfile(gate) and os.access(gate, os.X_OK)):
        # Not a missing optional prerequisite: the thing under test is missing.
        results.not_ok("the gate executable", "%s is not an executable file" % gate)
        print("%d passed, %d failed" % (results.passed, results.failed))
        return 1

    tmp = tempfile.mkdtemp(prefix="nsys-gate-conformance.")
    try:
        try:
            if not os.path.isdir(os.path.join(shared, "nsys-samples")):
                raise Skip("%s not found: no real nsys samples to test against"
                           % os.path.join(shared, "nsys-samples"))
            ctx = Context(gate, srcdir, shared, tmp, results)
            for version in ("2023.4", "2022.4"):
                ctx.nsys[version] = fetch_nsys(srcdir, version)
                print("# nsys %s: %s" % (version, ctx.nsys[version]), flush=True)
        except Skip as e:
            if in_ci:
                results.not_ok("prerequisites", "%s (CI=true: a skip counts as a failure)" % e)
                print("%d passed, %d failed" % (results.passed, results.failed))
                return 1
            print("# SKIP: %s" % e)
            print("%d passed, %d failed" % (results.passed, results.failed))
            return EXIT_SKIP

        for check in CHECKS:
            print("# " + one_line(" ".join(check.__doc__.split("\n\n")[0].split())),
                  flush=True)
            try:
                check(ctx)
            except Exception as e:  # a crash in one check must not hide the others
                results.not_ok(check.__name__, "crashed: %s: %s" % (type(e).__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("# finished in %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (results.passed, results.failed))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
