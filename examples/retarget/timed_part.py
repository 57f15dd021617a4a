#!/usr/bin/env python3
"""The timed part of a trace of examples/exchange.c: from the last rank's leave of the program's
first MPI_Barrier (report_start) to that of its last one (report_finish), in ns. It leaves out
MPI_Init and the tracer's own start and finish, whose messages are not in the trace and so are
never re-priced (docs/validation-retarget.md).

    timed_part.py PERWIZ_CLI TRACE            # the timed part
    timed_part.py PERWIZ_CLI TRACE --span     # T after MPI_Init: from the latest of the ranks'
                                              # first MPI calls (after MPI_Init) to the last leave
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


def span(cli, trace):
    # From the moment every rank is out of MPI_Init (the latest of the ranks' first MPI calls)
    # to the last leave: how long each rank's MPI_Init took (and so how late it calls first)
    # is in no trace.
    out = subprocess.run([cli, "events", trace, "--json"], capture_output=True, text=True, check=True).stdout
    first = {}
    for e in json.loads(out):
        rank = e["id"].split(":")[0]
        first[rank] = min(first.get(rank, e["enter_ns"]), e["enter_ns"])
    calls = json.loads(out)
    return max(e["leave_ns"] for e in calls) - max(first.values())


if __name__ == "__main__":
    print(span(sys.argv[1], sys.argv[2]) if "--span" in sys.argv[3:] else timed_part(sys.argv[1], sys.argv[2]))
