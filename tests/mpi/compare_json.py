#!/usr/bin/env python3
"""perwiz-cli's JSON against perwiz-mpi's (check_perwiz_mpi.sh): `path` for critical-path --json,
`advice` for advise --json. Every key but the warnings must be equal. Warnings: an OTF2 share
cannot judge matching across shares nor reads the files of locations it skips, so perwiz-mpi gives
the load's other warnings only; each of them must be one the serial load gives too (by kind: a
share lists the first few of a kind and counts the rest itself). The count summaries ("2
PROGRAM_BEGIN records skipped", "N records in total: ...") add up the shares' counts
(mergeShareWarnings): they are the serial load's exactly."""
import json
import re
import sys

mode, serial, distributed, what = sys.argv[1:5]
a, b = (json.load(open(p)) for p in (serial, distributed))
if mode == "path":
    a.pop("dag", None)


def norm(w):
    return re.sub(r"[0-9]+", "N", w)


def counts(ws):
    return sorted(w for w in ws if re.match(r"^[^:]*: [0-9]+ ", w) and "more warnings of the kind" not in w)


wa, wb = a.pop("warnings", []), b.pop("warnings", [])
kinds = {norm(w) for w in wa}
extra = [w for w in wb if norm(w) not in kinds]
if extra:
    sys.exit(f"FAIL {what}: warnings the serial load does not give: {extra[:3]}")
if counts(wa) != counts(wb):
    sys.exit(f"FAIL {what}: count summaries differ: serial {counts(wa)[:4]}, perwiz-mpi {counts(wb)[:4]}")
if a != b:
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    sys.exit(f"FAIL {what}: keys differ: {diff}: serial {[a.get(k) for k in diff][:2]}, perwiz-mpi {[b.get(k) for k in diff][:2]}")
