#!/usr/bin/env python3
"""A small fuzz seed from a real OTF (version 1) archive (issue #38): the master control file
with its first STREAMS streams only, the definitions and markers as they are, and each kept
stream's first LINES lines (cut at a line end), compressed again with zlib where the original
was. Real producers' records (VampirTrace's keys, comments, thread processes) then reach the
fuzzer within its input size. Read at run time from ../shared/traces; never kept.

  otf1_seed.py SRC_ANCHOR.otf OUT_DIR [STREAMS] [LINES]
"""
import os
import sys
import zlib

src, out = sys.argv[1], sys.argv[2]
streams = int(sys.argv[3]) if len(sys.argv) > 3 else 2
lines = int(sys.argv[4]) if len(sys.argv) > 4 else 300
stub = src[:-4]
name = os.path.basename(stub)
os.makedirs(out, exist_ok=True)
with open(src) as f:
    entries = [l.strip() for l in f if l.strip()]
kept = entries[:streams]
with open(os.path.join(out, name + ".otf"), "w") as f:
    f.write("\n".join(kept) + "\n")
for suffix in (".0.def", ".0.def.z", ".0.marker", ".0.marker.z"):
    if os.path.exists(stub + suffix):
        with open(stub + suffix, "rb") as f, open(os.path.join(out, name + suffix), "wb") as g:
            g.write(f.read())
for entry in kept:
    stream = entry.split(":")[0]
    for suffix, packed in ((".events", False), (".events.z", True)):
        path = "%s.%s%s" % (stub, stream, suffix)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if packed:
            data = zlib.decompressobj().decompress(data)
        head = b"".join(data.splitlines(keepends=True)[:lines])
        with open(os.path.join(out, os.path.basename(path)), "wb") as g:
            g.write(zlib.compress(head) if packed else head)
