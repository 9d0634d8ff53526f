#!/usr/bin/python3
"""The gate on rocprofv3 rocpd databases, against figures computed here.

usage: rocpd.py --gate PATH --srcdir SRCDIR --shared SHARED_DIR

Every variant tests/tools/genrocpd.py writes (schema 3, the lz4 variant, 4.1.0, two table
sets in one file, two GPUs a process, without HIP API regions, without ROCTx ranges) is read
here with Python's sqlite3 from the file alone, written from the DDL and the format notes
(SHARED_DIR/notes/rocprof.md), not from the gate's code:
- total: SUM("end" - start) over every rocpd_kernel_dispatch_<uuid> table;
- per kernel: each dispatch's rocpd_info_kernel_symbol display_name, joined on (guid, id);
- per GPU (the agent's type_index) and per process (rocpd_info_process.pid, the OS pid), with
  pid/tid/agent from the dispatch row (schema 3) or its rocpd_track row (4.1.0);
- memory copies by direction, named as the nsys reader names them;
- per step: ROCTx ranges (regions whose event's category is MARKER_CORE_RANGE_API, their text
  the event's extdata "message", LZ4-decoded here in the lz4 variant); a dispatch belongs to the
  range that held the start of its HIP launch call (the region whose id is the dispatch event's
  stack_id, in the same table set) on the same thread, or, in a file without HIP regions, to
  the range of its process that holds its GPU start.
The gate's --print-profile (total, per kernel, memory, per step) and its JSON verdict (per
device, per process) must equal them to the nanosecond, and --sqlite-sql-only (SQLite reads the
dispatch table) must print what the page reader does.

Output: one `ok - ...` or `not ok - ...` line per check, then `N passed, M failed`.
Exit 0 all passed, 1 any failed, 77 (skipped) without the DDL, except under CI=true.
"""

import argparse
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile

import print_profile

SUFFIX = re.compile(r"^rocpd_kernel_dispatch(_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}"
                    r"_[0-9a-f]{12})$")
COPY = {"MEMORY_COPY_HOST_TO_HOST": "Host-to-Host", "MEMORY_COPY_HOST_TO_DEVICE": "Host-to-Device",
        "MEMORY_COPY_DEVICE_TO_HOST": "Device-to-Host",
        "MEMORY_COPY_DEVICE_TO_DEVICE": "Device-to-Device"}
VARIANTS = [
    ("schema3", ["--steps", "5"]),
    ("lz4", ["--schema", "lz4", "--steps", "4"]),
    ("v410", ["--schema", "4.1", "--steps", "4"]),
    ("merged", ["--processes", "2", "--use-gpus", "2", "--steps", "3"]),
    ("merged41", ["--schema", "4.1", "--processes", "3", "--steps", "3"]),
    ("no_hip", ["--no-hip-trace", "--steps", "4", "--processes", "2"]),
    ("no_markers", ["--no-markers", "--steps", "3"]),
]
results = []


def check(ok, what, detail=""):
    results.append(ok)
    print("ok - %s" % what if ok else "not ok - %s: %s" % (what, detail))


def lz4_frame(b):
    """An LZ4 frame's text (lz4_Frame_format.md, lz4_Block_format.md)."""
    assert b[:4] == b"\x04\x22\x4d\x18", "not an LZ4 frame"
    flg = b[4]
    pos = 7 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    out = bytearray()
    while True:
        (size,) = struct.unpack_from("<I", b, pos)
        pos += 4
        if size == 0:
            break
        raw, size = size & 0x80000000, size & 0x7FFFFFFF
        block = b[pos:pos + size]
        pos += size + (4 if flg & 0x10 else 0)
        if raw:
            out += block
            continue
        i = 0
        while i < len(block):
            tok = block[i]
            n, i = length(block, i + 1, tok >> 4)
            out += block[i:i + n]
            i += n
            if i >= len(block):
                break
            off = block[i] | block[i + 1] << 8
            m, i = length(block, i + 2, tok & 15)
            for _ in range(m + 4):
                out.append(out[-off])
    return bytes(out)


def length(block, i, n):
    """A token's length nibble, continued in bytes of 255 when it is 15; (length, next i)."""
    if n == 15:
        while True:
            n += block[i]
            i += 1
            if block[i - 1] != 255:
                break
    return n, i


def extdata(v):
    """An extdata value as JSON: text, or rocpd's "LZ4F" + u32 length + frame."""
    if isinstance(v, bytes):
        if not v:
            return {}
        assert v[:4] == b"LZ4F"
        text = lz4_frame(v[8:])
        assert len(text) == struct.unpack_from("<I", v, 4)[0]
        v = text.decode()
    return json.loads(v) if v else {}


def columns(db, table):
    return {r[1] for r in db.execute('PRAGMA table_info("%s")' % table)}


def reference(path):
    db = sqlite3.connect(path)
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    ref = {"total": 0, "dispatches": 0, "kernels": {}, "devices": {}, "processes": {},
           "memory": {}, "steps": {}, "first": {}, "has_ranges": False, "has_calls": False}
    for name in sorted(names):
        m = SUFFIX.match(name)
        if m:
            table_set(db, m.group(1), ref)
    order = sorted(ref["steps"], key=lambda k: ref["first"][k])
    ref["step_list"] = [[k, ref["steps"][k][0], ref["steps"][k][1]] for k in order]
    return ref


def table_set(db, u, ref):
    t = lambda stem: '"%s%s"' % (stem, u)
    v41 = "track_id" in columns(db, "rocpd_kernel_dispatch" + u)
    os_pid = dict(db.execute("SELECT id, pid FROM %s" % t("rocpd_info_process")))
    os_tid = dict(db.execute("SELECT id, tid FROM %s" % t("rocpd_info_thread")))
    agents = {r[0]: (r[1], r[2]) for r in
              db.execute("SELECT id, type, type_index FROM %s" % t("rocpd_info_agent"))}
    symbols = dict(db.execute("SELECT id, display_name FROM %s" % t("rocpd_info_kernel_symbol")))
    tracks = {}
    if v41:
        tracks = {r[0]: r[1:] for r in
                  db.execute("SELECT id, pid, tid, agent_id FROM %s" % t("rocpd_track"))}
        cats = dict(db.execute("SELECT id, name FROM %s" % t("rocpd_info_category")))
    else:
        cats = dict(db.execute("SELECT id, string FROM %s" % t("rocpd_string")))
    events = {r[0]: (cats.get(r[1]), r[2], r[3]) for r in
              db.execute("SELECT id, category_id, stack_id, extdata FROM %s" % t("rocpd_event"))}
    where = "track_id" if v41 else "pid, tid"

    def place(row):
        """(OS pid, OS tid) of a row's pid/tid or track."""
        if v41:
            pid, tid, _ = tracks[row[0]]
            return os_pid[pid], os_tid.get(tid)
        return os_pid[row[0]], os_tid.get(row[1])

    # regions: ranges and HIP calls
    ranges, calls = [], {}
    for r in db.execute("SELECT id, %s, start, \"end\", event_id FROM %s" % (where, t("rocpd_region"))):
        rid, rest = r[0], r[1:]
        pos = 1 if v41 else 2
        pid, tid = place(rest[:pos])
        start, end, ev = rest[pos:]
        cat, _, ext = events[ev]
        if cat == "MARKER_CORE_RANGE_API":
            ranges.append((pid, tid, start, end, extdata(ext)["message"]))
        else:
            calls[rid] = (pid, tid, start)
    ref["has_ranges"] |= bool(ranges)
    ref["has_calls"] |= bool(calls)
    agent_col = "" if v41 else "agent_id, "
    for r in db.execute("SELECT kernel_id, %s%s, start, \"end\", event_id FROM %s"
                        % (agent_col, where, t("rocpd_kernel_dispatch"))):
        if v41:
            kid, track, start, end, ev = r
            agent = tracks[track][2]
            pid, tid = place((track,))
        else:
            kid, agent, p, th, start, end, ev = r
            pid, tid = place((p, th))
        ns = end - start
        ref["total"] += ns
        ref["dispatches"] += 1
        k = ref["kernels"].setdefault(symbols[kid], [0, 0])
        k[0] += ns
        k[1] += 1
        dev = agents[agent][1]
        ref["devices"][dev] = ref["devices"].get(dev, 0) + ns
        ref["processes"][pid] = ref["processes"].get(pid, 0) + ns
        stack = events[ev][1]
        step(ref, ranges, calls, stack, pid, start, ns)
    for r in db.execute("SELECT name_id, start, \"end\", src_agent_id, dst_agent_id FROM %s"
                        % t("rocpd_memory_copy")):
        name = db.execute("SELECT string FROM %s WHERE id = ?" % t("rocpd_string"),
                          (r[0],)).fetchone()[0]
        label = COPY.get(name, "Unknown")
        if label == "Device-to-Device" and r[3] != r[4]:
            label = "Peer-to-Peer"
        m = ref["memory"].setdefault("[CUDA memcpy %s]" % label, [0, 0])
        m[0] += r[2] - r[1]
        m[1] += 1


def step(ref, ranges, calls, stack, pid, start, ns):
    """The dispatch's time in the steps that hold its launch (same thread), or, without any
    call in the set, its GPU start (same process)."""
    if calls:
        call = calls.get(stack)
        if call is None:
            return
        held = [r for r in ranges if r[0] == call[0] and r[1] == call[1] and r[2] <= call[2] <= r[3]]
    else:
        held = [r for r in ranges if r[0] == pid and r[2] <= start <= r[3]]
    for r in held:
        s = ref["steps"].setdefault(r[4], [0, 0])
        s[0] += ns
        s[1] += 1
        ref["first"][r[4]] = min(ref["first"].get(r[4], r[2]), r[2])


def gate_profile(gate, path, *args):
    r = subprocess.run([gate, "--print-profile", "--work", "all"] + list(args) + [path],
                       capture_output=True, text=True)
    got = print_profile.read(r.stdout)
    out = {"rc": r.returncode, "stderr": r.stderr, "total": 0, "dispatches": 0, "kernels": {},
           "memory": {}, "steps": got["steps"]}
    for n, inst, kind, name in got["rows"]:
        if kind == "kernel":
            out["total"] += n
            out["dispatches"] += inst
            out["kernels"][name] = [n, inst]
        else:
            out["memory"][name] = [n, inst]
    return out


def gate_places(gate, path, work):
    """Per device and per process, from the verdict of the file against itself."""
    out = os.path.join(work, "v.json")
    r = subprocess.run([gate, "--quiet", "--json", out, path, path], capture_output=True,
                       text=True)
    if r.returncode not in (0, 1) or not os.path.exists(out):
        return None, None, r.stderr
    with open(out) as f:
        cur = json.load(f)["current"]
    ns = lambda ms: round(ms * 1e6)
    return ({d["device"]: ns(d["total_ms"]) for d in cur["devices"] or []},
            {d["pid"]: ns(d["total_ms"]) for d in cur["processes"] or []}, "")


def check_variant(gate, gen, ddl, name, args, work):
    path = os.path.join(work, name + ".db")
    r = subprocess.run([sys.executable, gen, "--ddl", ddl] + args + [path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check(False, "%s: generated" % name, r.stderr)
        return
    ref = reference(path)
    got = gate_profile(gate, path)
    check(got["rc"] == 0, "%s: read" % name, got["stderr"])
    check(got["total"] == ref["total"] and got["dispatches"] == ref["dispatches"],
          "%s: kernel total and dispatches" % name,
          "gate %d ns / %d, reference %d ns / %d" % (got["total"], got["dispatches"],
                                                    ref["total"], ref["dispatches"]))
    check(got["kernels"] == ref["kernels"], "%s: per kernel (display name)" % name,
          "gate %s, reference %s" % (got["kernels"], ref["kernels"]))
    check(got["memory"] == ref["memory"], "%s: memory copies by direction" % name,
          "gate %s, reference %s" % (got["memory"], ref["memory"]))
    sql = gate_profile(gate, path, "--sqlite-sql-only")
    check(sql == got, "%s: the page reader and --sqlite-sql-only agree" % name,
          "page reader %s, SQL %s" % (got, sql))
    devices, processes, err = gate_places(gate, path, work)
    check(devices == ref["devices"], "%s: per GPU" % name,
          "gate %s, reference %s %s" % (devices, ref["devices"], err))
    check(processes == ref["processes"], "%s: per process" % name,
          "gate %s, reference %s %s" % (processes, ref["processes"], err))
    if not ref["has_ranges"]:
        got = gate_profile(gate, path, "--epoch-range", "auto")
        check(got["rc"] == 2 and "--marker-trace" in got["stderr"],
              "%s: no ROCTx ranges: --epoch-range says how to record them" % name, got["stderr"])
        return
    got = gate_profile(gate, path, "--epoch-range", "step [0-9]+", "--work", "kernels")
    check(got["rc"] == 0 and got["steps"] == ref["step_list"],
          "%s: per step, by %s" % (name, "launch" if ref["has_calls"] else "GPU start time"),
          "gate %s, reference %s (%s)" % (got["steps"], ref["step_list"], got["stderr"]))
    if not ref["has_calls"]:
        check("--hip-trace" in got["stderr"], "%s: attribution by time is said" % name,
              got["stderr"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gate", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--shared", required=True)
    a = ap.parse_args()
    ddl = os.path.join(a.shared, "reference", "rocpd")
    if not os.path.isdir(ddl):
        print("# skipped: no DDL under %s" % ddl)
        return 1 if os.environ.get("CI") == "true" else 77
    gen = os.path.join(a.srcdir, "tests", "tools", "genrocpd.py")
    with tempfile.TemporaryDirectory() as work:
        for name, args in VARIANTS:
            check_variant(a.gate, gen, ddl, name, args, work)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
