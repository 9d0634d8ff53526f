#!/usr/bin/python3
"""Rewrites an nsys-gate summary with a member changed and its checksum made right again,
for the golden cases and the fuzz corpus: the edit then reaches what the checksum guards.

    summary_edit.py IN OUT --version N

The XXH3-128 comes from libxxhash (which the gate links) through ctypes: no module needed.
"""
import argparse
import ctypes
import ctypes.util
import gzip
import re
import sys

KEY = b',"checksum":"xxh3_128:'


class Hash128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]


def xxh3_128(data):
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    lib.XXH3_128bits.restype = Hash128
    lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    h = lib.XXH3_128bits(data, len(data))
    return "%016x%016x" % (h.high64, h.low64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--version", type=int, required=True)
    a = ap.parse_args()
    data = open(a.src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    body = data[:data.rindex(KEY)]
    body = re.sub(rb'^\{"nsys_gate_summary":[0-9]+', b'{"nsys_gate_summary":%d' % a.version, body)
    with open(a.dst, "wb") as f:
        f.write(body + KEY + xxh3_128(body).encode() + b'"}\n')


if __name__ == "__main__":
    sys.exit(main())
