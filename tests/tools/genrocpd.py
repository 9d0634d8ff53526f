#!/usr/bin/python3
"""Writes a rocprofv3 rocpd SQLite database with known figures.

usage: genrocpd.py [options] OUT.db

The tables come from AMD's own DDL (rocprofiler-sdk's rocpd_tables.sql, the lz4 variant's
rocpd_tables_lz4.sql, versions/4.1.0/rocpd_tables.sql; MIT licence, copies under
--ddl, by default ../shared/reference/rocpd), with {{uuid}} and {{guid}} filled as the writer
fills them (generateRocpd.cpp: "_" + the UUID with '-' as '_', and the UUID itself), so the
tables are the ones rocprofv3 writes.  The rows follow the writer's rules as the notes
(../shared/notes/rocprof.md) give them: dispatch and copy pid/tid are rocpd_info_process.id and
rocpd_info_thread.id (schema 3) or come through rocpd_track (4.1.0); a ROCTx range is a
rocpd_region whose event has category MARKER_CORE_RANGE_API and extdata {"message": text}
(an "LZ4F" blob in the lz4 variant); a HIP API call is a rocpd_region whose id is the internal
correlation id, which the dispatch's event carries as stack_id.

The model: --processes table sets (one per process, as `rocpd merge` or several ranks in one
file give; ids restart at 1 in each), each with --gpus GPU agents and two CPU agents, --steps
ROCTx ranges "step N" on the main thread, in each --kernels launches (hipLaunchKernel on the
main thread or a worker thread) of a few kernels whose GPU execution runs past the range's end,
and per step a host-to-device and a device-to-host copy.  Several symbols may carry one
display name (a kernel in two code objects).

--summary prints the generator's own figures as JSON (total, per kernel, per process).
"""

import argparse
import json
import os
import random
import sqlite3
import struct
import sys

KERNELS = [
    # display name, mangled name, base duration (ns)
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1>)",
     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_.kd",
     12000),
    ("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_K1",
     "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_K1.kd", 85000),
    ("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)",
     "_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE.kd", 150000),
    ("void rocprim::detail::block_reduce_kernel<float>(float const*, float*, unsigned long)",
     "_ZN7rocprim6detail19block_reduce_kernelIfEEvPKfPfm.kd", 9000),
    ("__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer.kd", 3000),
]
# symbol ids: one per kernel, and the copy kernel once more from a second code object
SYMBOLS = [(i + 1, k) for i, k in enumerate(KERNELS)] + [(len(KERNELS) + 1, KERNELS[4])]
STEP_NS = 2_000_000
LAUNCH_GAP = 20_000
T0 = 63_857_982_592_000
COPIES = [("MEMORY_COPY_HOST_TO_DEVICE", 0), ("MEMORY_COPY_DEVICE_TO_HOST", 1)]


def lz4_frame(data):
    """One LZ4 frame (lz4_Frame_format.md): greedy matches of 4+ bytes found by a table of
    4-byte prefixes, the last 5 bytes always literals, one block."""
    out, lit, i, seen = bytearray(), 0, 0, {}

    def length(n):
        while n >= 255:
            out.append(255)
            n -= 255
        out.append(n)

    def sequence(a, b, off, mlen):
        ln = b - a
        tok_l = min(ln, 15)
        tok_m = 0 if off is None else min(mlen - 4, 15)
        out.append(tok_l << 4 | tok_m)
        if ln >= 15:
            length(ln - 15)
        out.extend(data[a:b])
        if off is not None:
            out.extend(struct.pack("<H", off))
            if mlen - 4 >= 15:
                length(mlen - 4 - 15)

    end = len(data) - 5
    while i < end - 3:
        key = data[i:i + 4]
        j = seen.get(key)
        seen[key] = i
        if j is not None and i - j < 65536:
            m = 4
            while i + m < end and data[j + m] == data[i + m]:
                m += 1
            sequence(lit, i, i - j, m)
            i += m
            lit = i
        else:
            i += 1
    sequence(lit, len(data), None, 0)
    block = bytes(out)
    head = bytes([0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82])
    return head + struct.pack("<I", len(block)) + block + b"\0\0\0\0"


def blob(text, lz4):
    """An extdata value: JSON text, or in the lz4 variant "LZ4F" + u32 length + a frame."""
    raw = text.encode()
    return b"LZ4F" + struct.pack("<I", len(raw)) + lz4_frame(raw) if lz4 else text


def guid_of(p):
    return "0190c3a2-7b1e-7%03x-8a5d-%012x" % (p, 0x5eed0000 + p)


class Writer:
    def __init__(self, db, args, p):
        self.db, self.a, self.p = db, args, p
        self.guid = guid_of(p)
        self.u = "_" + self.guid.replace("-", "_")
        self.lz4 = args.schema == "lz4"
        self.v41 = args.schema == "4.1"
        self.rng = random.Random(args.seed * 1000 + p)
        self.strings = {}
        self.tracks = {}
        self.ids = {}

    def t(self, stem):
        return '"%s%s"' % (stem, self.u)

    def next_id(self, stem):
        self.ids[stem] = self.ids.get(stem, 0) + 1
        return self.ids[stem]

    def ins(self, stem, **cols):
        """A row; columns this schema's table lacks are left out (one model, three DDLs)."""
        have = self.columns(stem)
        cols = {c: v for c, v in cols.items() if c in have}
        if "id" not in cols:
            cols["id"] = self.next_id(stem)
        names = ", ".join('"%s"' % c for c in cols)
        self.db.execute("INSERT INTO %s (%s) VALUES (%s)" % (self.t(stem), names,
                        ", ".join("?" * len(cols))), list(cols.values()))
        return cols["id"]

    def columns(self, stem):
        key = ("columns", stem)
        if key not in self.ids:
            self.ids[key] = {r[1] for r in self.db.execute("PRAGMA table_info(%s)" % self.t(stem))}
        return self.ids[key]

    def string(self, s):
        if s not in self.strings:
            self.strings[s] = self.ins("rocpd_string", string=s)
        return self.strings[s]

    def category(self, name):
        if not self.v41:
            return self.string(name)
        key = ("category", name)
        if key not in self.strings:
            self.strings[key] = self.ins("rocpd_info_category", name=name)
        return self.strings[key]

    def ddl(self):
        d = self.a.ddl
        base = os.path.join(d, "rocm-systems@1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992", "projects",
                            "rocprofiler-sdk", "source", "share", "rocprofiler-sdk-rocpd")
        new = os.path.join(d, "rocm-systems@index", "projects", "rocprofiler-sdk", "source",
                           "share", "rocprofiler-sdk-rocpd")
        files = {"3": [os.path.join(base, "rocpd_tables.sql"), os.path.join(base, "rocpd_views.sql")],
                 "lz4": [os.path.join(new, "rocpd_tables_lz4.sql"),
                         os.path.join(new, "rocpd_views_lz4.sql")],
                 "4.1": [os.path.join(new, "versions", "4.1.0", "rocpd_tables.sql")]}[self.a.schema]
        for f in files:
            if self.p > 0 and "views" in f:
                continue      # the unsuffixed views name the first table set only
            with open(f) as fh:
                sql = fh.read().replace("{{uuid}}", self.u).replace("{{guid}}", self.guid)
            self.db.executescript(sql)
        if self.v41:
            # 4.1.0's rocpd_metadata.sql is not public: the value it writes is a guess
            for tag, value in (("schema_version", "4.1.0"), ("uuid", self.u), ("guid", self.guid)):
                self.ins("rocpd_metadata", tag=tag, value=value)

    def ext(self, text):
        return blob(text, self.lz4)

    def info(self):
        a, p = self.a, self.p
        self.os_pid = 4100 + 7 * p
        self.nid = self.ins("rocpd_info_node", hash=977 + p, machine_id="m%d" % p,
                            hostname="node%d" % (p // 2), system_name="Linux", extdata=self.ext("{}"))
        self.pid = self.ins("rocpd_info_process", nid=self.nid, ppid=1, pid=self.os_pid,
                            init=T0 - 1000, fini=T0 + (a.steps + 2) * STEP_NS * a.kernels,
                            start=T0 - 1000, end=T0 + (a.steps + 2) * STEP_NS * a.kernels,
                            command="python3 train.py", extdata=self.ext("{}"))
        self.threads = [self.ins("rocpd_info_thread", nid=self.nid, ppid=1, pid=self.pid,
                                 tid=self.os_pid + k, name="python3", start=T0, end=T0,
                                 extdata=self.ext("{}")) for k in (0, 1)]
        self.cpus, self.gpus = [], []
        name_col = "generic_name" if self.v41 else "name"
        for k in range(2 + a.gpus):
            is_gpu = k >= 2
            cols = dict(nid=self.nid, pid=self.pid, type="GPU" if is_gpu else "CPU",
                        absolute_index=k, logical_index=k, type_index=k - 2 if is_gpu else k,
                        uuid=k, model_name="", vendor_name="AMD",
                        product_name=product(a, p) if is_gpu else "AMD EPYC 9575F 64-Core Processor",
                        extdata=self.ext("{}"))
            cols[name_col] = "gfx950" if is_gpu else "cpu"
            (self.gpus if is_gpu else self.cpus).append(self.ins("rocpd_info_agent", **cols))
        self.queue = self.ins("rocpd_info_queue", nid=self.nid, pid=self.pid, name="q0",
                              extdata=self.ext("{}"))
        self.stream = self.ins("rocpd_info_stream", nid=self.nid, pid=self.pid, name="s0",
                               extdata=self.ext("{}"))
        co = self.ins("rocpd_info_code_object", nid=self.nid, pid=self.pid, agent_id=self.gpus[0],
                      uri="file:///lib.so", load_base=0, load_size=0, load_delta=0,
                      storage_type="FILE", extdata=self.ext("{}"))
        for sid, (disp, mangled, _) in SYMBOLS:
            if self.a.fault == "missing-symbol" and sid == 2:
                continue
            self.ins("rocpd_info_kernel_symbol", id=sid, nid=self.nid, pid=self.pid,
                     code_object_id=co, kernel_name=mangled, display_name=disp,
                     extdata=self.ext("{}"))

    def track(self, tid=None, agent=None):
        key = (tid, agent)
        if key not in self.tracks:
            self.tracks[key] = self.ins("rocpd_track", nid=self.nid, ppid=1, pid=self.pid, tid=tid,
                                        agent_id=agent, queue_id=self.queue if agent else None,
                                        stream_id=self.stream if agent else None,
                                        extdata=self.ext("{}"))
        return self.tracks[key]

    def where(self, tid, agent=None):
        """The columns that say where a row happened: 3.x's own, 4.1.0's track."""
        if self.v41:
            return {"track_id": self.track(tid, agent)}
        cols = {"nid": self.nid, "pid": self.pid, "tid": tid}
        if agent is not None:
            cols["agent_id"] = agent
        return cols

    def event(self, cat, stack, extdata="{}"):
        cols = dict(category_id=self.category(cat), stack_id=stack, parent_stack_id=stack,
                    correlation_id=0, extdata=self.ext(extdata))
        if not self.v41:
            cols.update(call_stack=self.ext("{}"), line_info=self.ext("{}"))
        return self.ins("rocpd_event", **cols)

    def region(self, rid, tid, start, end, name, cat, extdata="{}"):
        ev = self.event(cat, rid, extdata)
        cols = dict(id=rid, start=start, end=end, name_id=self.string(name), event_id=ev,
                    extdata=self.ext("{}"), **self.where(tid))
        return self.ins("rocpd_region", **cols)

    def run(self):
        a, p = self.a, self.p
        self.info()
        corr = 0
        main, worker = self.threads
        slow = a.slow_process.get(p, 1.0)
        # a step long enough for its GPU work: a queue runs in order, one step after another
        step_ns = max(STEP_NS, a.kernels * 60_000)
        gpu_free = 0
        for s in range(a.steps):
            r0 = T0 + s * step_ns + p * 1000
            corr += 1          # the range's own correlation id: every API region has one
            marker = corr
            launches = []
            t = r0 + 5000
            for k in range(a.kernels):
                corr += 1
                sym = SYMBOLS[k % len(SYMBOLS)]
                tid = worker if k % 4 == 3 else main
                launches.append((corr, sym, tid, t))
                t += LAUNCH_GAP
            r1 = t
            if a.markers:
                self.region(marker, main, r0, r1, "roctxRangePushA", "MARKER_CORE_RANGE_API",
                            json.dumps({"message": "step %d" % s}))
            gpu_free = max(gpu_free, r0 + 20000)
            copy_h2d = (gpu_free, gpu_free + 4000 + 10 * s)
            gpu_free = copy_h2d[1] + 500
            corr += 1
            self.copy(0, copy_h2d, main, corr, r0 + 1000)
            for n, (c, (sid, (_, _, base)), tid, lt) in enumerate(launches):
                if a.hip:
                    corr_region = self.region(c, tid, lt, lt + 3000, "hipLaunchKernel",
                                              "HIP_RUNTIME_API_EXT")
                    assert corr_region == c
                dur = (base + ((s * 7 + n * 13 + p * 3) % 11) * 37) * slow
                dur = int(dur * a.slow_kernel.get(sid, 1.0) * (1 + a.jitter * self.rng.uniform(-1, 1)))
                start = max(gpu_free, lt + 8000)
                end = start + dur
                if a.fault == "end-before-start" and s == a.steps - 1 and n == 1:
                    end = start - 5
                gpu = self.gpus[(p + n % a.use_gpus) % len(self.gpus)]
                ev = self.event("KERNEL_DISPATCH", c)
                self.ins("rocpd_kernel_dispatch", kernel_id=sid, dispatch_id=c,
                         start=start, end=end, workgroup_size_x=256, workgroup_size_y=1,
                         workgroup_size_z=1, grid_size_x=4096, grid_size_y=1, grid_size_z=1,
                         region_name_id=self.string(""), event_id=ev, extdata=self.ext("{}"),
                         **self.dispatch_where(tid, gpu))
                gpu_free = end + 200
            corr += 1
            self.copy(1, (gpu_free, gpu_free + 3000 + 10 * s), main, corr, r1 - 1000)

    def dispatch_where(self, tid, gpu):
        cols = self.where(tid, gpu)
        if not self.v41:
            cols.update(queue_id=self.queue, stream_id=self.stream)
        return cols

    def copy(self, which, span, tid, corr, call_at):
        """A copy, and with --hip-trace the hipMemcpyAsync call that made it (its region id
        the copy's event's stack_id, as for a dispatch)."""
        if not self.a.copies:
            return
        name, direction = COPIES[which]
        src, dst = (self.cpus[0], self.gpus[self.p % len(self.gpus)])[::1 if direction == 0 else -1]
        if self.a.hip:
            self.region(corr, tid, call_at, call_at + 2000, "hipMemcpyAsync", "HIP_RUNTIME_API_EXT")
        ev = self.event("MEMORY_COPY", corr)
        cols = dict(start=span[0], end=span[1], name_id=self.string(name), src_agent_id=src,
                    dst_agent_id=dst, size=1 << 20, event_id=ev, extdata=self.ext("{}"),
                    **self.where(tid, dst if direction == 0 else src))
        if not self.v41:
            cols.update(queue_id=self.queue, stream_id=self.stream)
        self.ins("rocpd_memory_copy", **cols)

    def faults(self):
        f = self.a.fault or ""
        self.db.commit()      # the pragma is a no-op inside a transaction
        self.db.execute("PRAGMA foreign_keys = OFF")   # a fault breaks what the keys keep
        if f.startswith("schema-version="):
            self.db.execute("UPDATE %s SET value=? WHERE tag='schema_version'"
                            % self.t("rocpd_metadata"), (f.split("=", 1)[1],))
        if f == "lz4-length":     # every LZ4F blob's header one byte longer than its text
            ev = self.t("rocpd_event")
            for eid, ext in self.db.execute("SELECT id, extdata FROM %s WHERE substr(extdata, 1, 4) "
                                            "= X'4C5A3446'" % ev).fetchall():
                n = struct.unpack_from("<I", ext, 4)[0]
                self.db.execute("UPDATE %s SET extdata = ? WHERE id = ?" % ev,
                                (ext[:4] + struct.pack("<I", n + 1) + ext[8:], eid))
        if f.startswith("drop-table="):
            self.db.execute("DROP TABLE %s" % self.t(f.split("=", 1)[1]))


def product(a, p):
    names = a.product.split(",")
    return names[p % len(names)]


def summary(path):
    """The generator's figures, read back from what it wrote."""
    db = sqlite3.connect(path)
    out = {"total_ns": 0, "dispatches": 0}
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND "
                           "name LIKE 'rocpd\\_kernel\\_dispatch\\_%' ESCAPE '\\'"):
        n, s = db.execute('SELECT COUNT(*), SUM("end"-start) FROM "%s"' % t).fetchone()
        out["total_ns"] += s or 0
        out["dispatches"] += n
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("out")
    ap.add_argument("--ddl", default=os.path.join(here, "..", "..", "..", "shared", "reference",
                                                  "rocpd"))
    ap.add_argument("--schema", choices=["3", "lz4", "4.1"], default="3")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--gpus", type=int, default=2, help="GPU agents a process sees")
    ap.add_argument("--use-gpus", type=int, default=1, help="GPUs a process dispatches to")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--kernels", type=int, default=6, help="launches a step")
    ap.add_argument("--product", default="AMD Instinct MI300X",
                    help="GPU product names, comma-separated: one a process, in turn")
    ap.add_argument("--no-hip-trace", dest="hip", action="store_false")
    ap.add_argument("--no-markers", dest="markers", action="store_false")
    ap.add_argument("--no-copies", dest="copies", action="store_false")
    ap.add_argument("--slow-process", action="append", default=[], metavar="P:FACTOR")
    ap.add_argument("--slow-kernel", action="append", default=[], metavar="ID:FACTOR",
                    help="a kernel symbol id (1-6) whose dispatches take FACTOR times as long")
    ap.add_argument("--jitter", type=float, default=0.0, help="each duration times 1 +- this")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault", help="missing-symbol | end-before-start | schema-version=V | "
                    "drop-table=STEM | lz4-length")
    ap.add_argument("--summary", action="store_true")
    a = ap.parse_args()
    a.slow_process = {int(x.split(":")[0]): float(x.split(":")[1]) for x in a.slow_process}
    a.slow_kernel = {int(x.split(":")[0]): float(x.split(":")[1]) for x in a.slow_kernel}
    if not os.path.isdir(a.ddl):
        print("genrocpd: no DDL under %s" % a.ddl, file=sys.stderr)
        return 77
    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    for p in range(a.processes):
        w = Writer(db, a, p)
        w.ddl()
        if a.fault == "missing-symbol":
            db.commit()
            db.execute("PRAGMA foreign_keys = OFF")
        w.run()
        w.faults()
    db.commit()
    db.close()
    if a.summary:
        print(json.dumps(summary(a.out), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
