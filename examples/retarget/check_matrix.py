#!/usr/bin/env python3
"""CTest examples.retarget.smpi_default (issue #20; docs/validation-retarget.md).

    check_matrix.py BUILD_DIR OUT_DIR

Runs run_matrix.sh at 16 and 64 ranks for LogGPS and for LogGPO (the traces are shared), writes the table to OUT_DIR/retarget.md and
checks the errors (issue #20's acceptance) of the whole T (first enter to last leave: MPI_Init,
the tracer's start and finish included; their collectives are in the trace and re-priced), of
the timed part and of T after MPI_Init: self, retarget and the balance what-if within 5 %, and
per model the mean |error| over its predictions within 3 %.
"""
import datetime
import os
import subprocess
import sys


def source_stamp(source_dir):
    """"commit 1a2b3c4" (and local changes) of the sources, as the other generated tables say it."""
    head = subprocess.run(["git", "-C", source_dir, "log", "-1", "--format=%h"], capture_output=True, text=True)
    if head.returncode != 0 or not head.stdout.strip():
        return "sources not in a git checkout"
    changes = subprocess.run(["git", "-C", source_dir, "status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True)
    return "commit " + head.stdout.strip() + (" and local changes" if changes.stdout.strip() else "")


build, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
rows = []
for kind in ("loggps", "loggpo"):
    for ranks in (16, 64):
        run = subprocess.run([os.path.join(here, "run_matrix.sh"), build, out, str(ranks), kind], capture_output=True,
                             text=True)
        if run.returncode != 0:
            sys.exit(f"run_matrix.sh {ranks} {kind} failed:\n{run.stdout}\n{run.stderr}")
        rows += [line for line in run.stdout.splitlines() if line.startswith("|")]
stamp = (f"Written by CTest examples.retarget.smpi_default (examples/retarget/check_matrix.py), "
         f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
         f"{source_stamp(os.path.join(here, '..', '..'))}.")
with open(os.path.join(out, "retarget.md"), "w") as f:
    f.write(stamp + "\n\n" + "\n".join(rows) + "\n")

def pct(cell):
    return float(cell.strip().rstrip("%").strip())

failures, errors, errorRows = [], [], []
for line in rows:
    cells = [c.strip() for c in line.strip("|").split("|")]
    kind, ranks, pattern, size = cells[0], cells[1], cells[2], cells[3]
    if "balance" in kind:  # | balance | ranks | pattern | bytes | on A | self | on B | retarget |
        checks = {"balance self": pct(cells[5]), "balance retarget": pct(cells[7])}
    else:  # ... | T on A | self T | self timed | T on B | retarget T | retarget timed | self, retarget after Init |
        checks = {"self T": pct(cells[5]), "retarget T": pct(cells[8]),
                  "self": pct(cells[6]), "retarget": pct(cells[9]), "self T after MPI_Init": pct(cells[10]),
                  "retarget T after MPI_Init": pct(cells[11])}
    for what, e in checks.items():
        errors.append(abs(e))
        errorRows.append(kind.split()[0])
        bound = 5.0
        if abs(e) > bound:
            failures.append(f"{what} {ranks} ranks pattern {pattern} {size} B: {e:+.2f} % (bound {bound} %)")
print(stamp)
print("\n".join(rows))
for kind in ("loggps", "loggpo"):  # the bound holds per model
    mine = [e for line, e in zip(errorRows, errors) if line == kind]
    mean = sum(mine) / len(mine)
    print(f"{kind}: mean |error| over {len(mine)} checks (T, timed part, T after MPI_Init, what-if): {mean:.2f} %")
    if mean > 3.0:
        failures.append(f"{kind}: mean |error| {mean:.2f} % > 3 %")
if failures:
    sys.exit("\n".join(failures))
