#!/usr/bin/env python3
"""The timed part of a trace of examples/exchange.c: from the last rank's leave of the program's
first MPI_Barrier (report_start) to that of its last one (report_finish), in ns. It leaves out
MPI_Init and the tracer's own start and finish, whose messages are not in the trace and so are
never re-priced (docs/validation-retarget.md).

    timed_part.py PERWIZ_CLI TRACE
"""
import json
import subprocess
import sys


def timed_part(cli, trace):
    out = subprocess.run([cli, "events", trace, "--json"], capture_output=True, text=True, check=True).stdout
    bars = [e for e in json.loads(out) if e["function"] == "MPI_Barrier"]
    instances = sorted({e["collective"]["instance"] for e in bars})
    first = max(e["leave_ns"] for e in bars if e["collective"]["instance"] == instances[0])
    last = max(e["leave_ns"] for e in bars if e["collective"]["instance"] == instances[-1])
    return last - first


if __name__ == "__main__":
    print(timed_part(sys.argv[1], sys.argv[2]))
