#!/usr/bin/env bash
# perwiz-mpi under Open MPI against perwiz-cli predict (issue #21, acceptance 1 and 4):
#   check_perwiz_mpi.sh equal  CLI MPI_BIN MPIRUN SAMPLES SHARED WORKDIR
#   check_perwiz_mpi.sh advise CLI MPI_BIN MPIRUN SAMPLES SHARED WORKDIR
#   check_perwiz_mpi.sh errors CLI MPI_BIN MPIRUN WORKDIR
#   check_perwiz_mpi.sh smpi   CLI SMPI_BIN SMPIRUN PLATFORM WORKDIR
# `equal`: for P processes (oversubscribed) every trace and scenario gives the serial
# JSON's measured and predicted T, every rank's end times and the predicted critical path (length,
# summary, every segment and call), to the nanosecond, and -o the same OTF2 archive (every file
# byte for byte, the anchor but its random trace id); `critical-path` gives perwiz-cli
# critical-path's measured path (every key but the DAG's shape). Traces: generated
# ones (rank counts not divisible by P), the bundled samples (traces of the examples), and the
# OTF2 archives of ../shared/traces when present (skipped, with a line saying so, when absent).
# P: with PERWIZ_MPI_FULL=1 every scenario for P = 1..4 and critical-path for P = 2..4; by default
# (sized for CI: the whole matrix takes about 14 minutes on 2 cores) the scenario without
# hypotheses for P = 1..4 and the hypotheses for P = 2..4 on the generated traces (P = 2, 4 and
# P = 3 on the others), every other scenario for one P (2, 3 or 4 in turn), critical-path for
# P = 3.
# `smpi`: perwiz-mpi-smpi (the SimGrid SMPI build) with P = 64 simulated processes on 256-rank
# traces gives the serial JSON's results too (acceptance 2).
# `errors`: a missing location file, a bad hypothesis and a process that fails are reported by
# every process, with a non-zero status and no hang.
set -euo pipefail
mode=${1:?mode}
cli=${2:?perwiz-cli}
bin=${3:?perwiz-mpi}
mpirun=${4:?mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi() { local np=$1; shift; timeout 300 "$mpirun" --oversubscribe -np "$np" "$bin" "$@"; }

compare() { # SERIAL.json DISTRIBUTED.json WHAT
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
what = sys.argv[3]
for k in ("measured_ns", "predicted_ns", "ranks", "mpi_calls", "hypotheses", "costs"):
  if a[k] != b[k]:
      sys.exit(f"FAIL {what}: {k} serial {a[k]} distributed {b[k]}")
if a["per_rank"] != b["per_rank"]:
  bad = [(x, y) for x, y in zip(a["per_rank"], b["per_rank"]) if x != y][:3]
  sys.exit(f"FAIL {what}: per-rank ends differ, e.g. {bad}")
if a["replay"]["broken_cycles"] != b["replay"]["broken_cycles"]:
  sys.exit(f"FAIL {what}: broken_cycles serial {a['replay']['broken_cycles']} distributed {b['replay']['broken_cycles']}")
for k in ("critical_path_ns", "critical_path_summary", "critical_path", "critical_path_segments"):
  if a[k] != b[k]:
      if isinstance(a[k], list) and isinstance(b[k], list):
          bad = [(i, x, y) for i, (x, y) in enumerate(zip(a[k], b[k])) if x != y][:2]
          sys.exit(f"FAIL {what}: {k} differs ({len(a[k])} vs {len(b[k])} entries), e.g. {bad}")
      sys.exit(f"FAIL {what}: {k} serial {a[k]} distributed {b[k]}")
PY
}
compare_archive() { # SERIAL.otf2 DISTRIBUTED.otf2 WHAT: -o's archives, byte for byte
  local a=$1 b=$2 what=$3 f
  local da=${a%.otf2} db=${b%.otf2}
  [ -f "$b" ] || fail "$what: no archive at $b"
  cmp -s "$da.def" "$db.def" || fail "$what: the global definitions differ"
  [ "$(ls "$da")" = "$(ls "$db")" ] || fail "$what: the location files differ: $(ls "$da" | wc -l) vs $(ls "$db" | wc -l)"
  for f in "$da"/*; do cmp -s "$f" "$db/$(basename "$f")" || fail "$what: $(basename "$f") differs"; done
  # The anchor differs in its random trace identifier only.
  diff <(otf2-print -A "$a" | grep -v "Trace identifier") <(otf2-print -A "$b" | grep -v "Trace identifier") >/dev/null ||
    fail "$what: the anchors differ"
}
compare_path() { # SERIAL.json DISTRIBUTED.json WHAT: critical-path --json (warnings: compare_json.py)
  python3 "$(dirname "$0")/compare_json.py" path "$1" "$2" "$3"
}

case "$mode" in
equal)
  samples=${5:?samples}
  shared=${6:?shared}
  work=${7:?workdir}
  rm -rf "$work" && mkdir -p "$work"
  "$cli" generate "$work/ring7" --ranks 7 --steps 30 --imbalance 0.3 >/dev/null
  "$cli" generate "$work/nb5" --ranks 5 --steps 20 --nonblocking --bytes 262144 --collective bcast --seed 7 >/dev/null
  "$cli" generate "$work/random10" --ranks 10 --steps 10 --pattern random --messages-per-step 3 --seed 3 >/dev/null
  # Blocking Send then Recv in a ring: every step's sends form a cycle the schedule cuts.
  "$cli" generate "$work/sendrecv6" --ranks 6 --steps 12 --p2p send-recv --imbalance 0.4 --seed 5 >/dev/null
  traces=("$work/ring7" "$work/nb5" "$work/random10" "$work/sendrecv6")
  for s in binary_swap_8 stencil_8 registration_8 pipeline_8.alog ring4.alog; do traces+=("$samples/$s"); done
  if [ -d "$shared/otf2" ]; then
    while IFS= read -r anchor; do traces+=("$(dirname "$anchor")"); done < <(find "$shared/otf2" -name '*.otf2' | sort)
  else
    echo "skip: $shared absent (the shared traces are checked where they are)"
  fi
  checked=0
  for t in "${traces[@]}"; do
    name=$(basename "$t")
    for scen in "none" "model" "hyp" "balance" "volume" "compensate" "recorded"; do
      args=()
      case $scen in
        model) args=(--costs model) ;;
        hyp) args=(--zero-wait 1:3 --zero-event 2:c2 --zero-event 0:4) ;;
        balance) args=(--balance-compute 1 --balance-compute 2 --zero-wait 0:2) ;;
        volume) args=(--balance-volume 1 --balance-volume 3 --balance-compute 2 --costs model) ;;
        compensate) args=(--compensate-ns 700 --zero-wait 0:2 --balance-compute 1) ;;
        recorded) args=(--compensate-from-trace) ;;  # refused by both where the tracer recorded none
      esac
      rm -rf "$work"/serial-out*
      if ! "$cli" predict "$t" "${args[@]}" --json --all-ranks --full-critical-path -o "$work/serial-out.otf2" > "$work/serial.json" 2>/dev/null; then
        # perwiz-cli refuses it (a hypothesis the trace has no event or step for): so must perwiz-mpi.
        if mpi 2 predict "$t" "${args[@]}" --json > /dev/null 2>&1; then fail "$name $scen: perwiz-mpi accepts what perwiz-cli refuses"; fi
        echo "ok $name $scen: refused by both"
        continue
      fi
      counts=(1 2 3 4)
      if [ "${PERWIZ_MPI_FULL:-0}" != 1 ]; then
        # Every P for the generated traces (rank counts not divisible by P); for the samples
        # and the shared archives two P without hypotheses and one with.
        generated=0
        case $t in "$work"/*) generated=1 ;; esac
        case $scen in
          none) [ $generated = 1 ] || counts=(2 4) ;;
          hyp) if [ $generated = 1 ]; then counts=(2 3 4); else counts=(3); fi ;;
          model|compensate) counts=(3) ;;
          balance|recorded) counts=(4) ;;
          volume) counts=(2) ;;
        esac
      fi
      for P in "${counts[@]}"; do
        # Every run also writes the predicted trace (-o): perwiz-cli's archive, byte for byte.
        rm -rf "$work"/mpi-out*
        mpi "$P" predict "$t" "${args[@]}" --json --all-ranks --full-critical-path -o "$work/mpi-out.otf2" > "$work/mpi.json" ||
          fail "$name $scen P=$P exited with $?"
        compare "$work/serial.json" "$work/mpi.json" "$name $scen P=$P" || exit 1
        compare_archive "$work/serial-out.otf2" "$work/mpi-out.otf2" "$name $scen P=$P -o"
        checked=$((checked + 2))
      done
      echo "ok $name $scen: P = ${counts[*]} equal the serial prediction, critical path and predicted trace"
    done
    if "$cli" critical-path "$t" --json > "$work/serial-path.json" 2>/dev/null; then
      pathCounts=(3)
      [ "${PERWIZ_MPI_FULL:-0}" != 1 ] || pathCounts=(2 3 4)
      for P in "${pathCounts[@]}"; do
        mpi "$P" critical-path "$t" --json > "$work/mpi-path.json" || fail "$name critical-path P=$P exited with $?"
        compare_path "$work/serial-path.json" "$work/mpi-path.json" "$name critical-path P=$P" || exit 1
        checked=$((checked + 1))
      done
      echo "ok $name critical-path: P = ${pathCounts[*]} equal perwiz-cli critical-path"
    fi
  done
  [ "$checked" -ge 80 ] || fail "only $checked comparisons ran"
  echo "ok: $checked comparisons"
  ;;
advise)
  # perwiz-mpi advise against perwiz-cli advise (issue #42): the whole --json output byte for
  # byte (domino paths, candidates, longest wait, every step row, the lower bounds, the count of
  # predictions, the load's warnings) for P = 1..4, the text for P = 3; a bad trace refused.
  samples=${5:?samples}
  shared=${6:?shared}
  work=${7:?workdir}
  rm -rf "$work" && mkdir -p "$work"
  "$cli" generate "$work/ring7" --ranks 7 --steps 30 --imbalance 0.3 >/dev/null
  "$cli" generate "$work/nb5" --ranks 5 --steps 20 --nonblocking --bytes 262144 --collective bcast --seed 7 --imbalance 0.2 >/dev/null
  "$cli" generate "$work/random10.alog" --ranks 10 --steps 10 --pattern random --messages-per-step 3 --seed 3 --imbalance 0.5 >/dev/null
  "$cli" generate "$work/sendrecv6.otf" --ranks 6 --steps 12 --p2p send-recv --imbalance 0.4 --seed 5 >/dev/null
  traces=("$work/ring7" "$work/nb5" "$work/random10.alog" "$work/sendrecv6.otf")
  for s in binary_swap_8 stencil_8 pipeline_8.alog ring4.alog; do traces+=("$samples/$s"); done
  if [ -d "$shared/otf2" ]; then
    for f in "$shared"/alog/*.alog "$shared"/alog/*.log; do traces+=("$f"); done
    while IFS= read -r anchor; do traces+=("$anchor"); done < <(find "$shared/otf2" "$shared/otf1" -name '*.otf2' -o -name '*.otf' | sort)
  else
    echo "skip: $shared absent (the shared traces are checked where they are)"
  fi
  checked=0
  for t in "${traces[@]}"; do
    name=$(basename "$t")
    # Two threads per process as in the serial run: the searches' batches are sized by them.
    if ! "$cli" advise "$t" --json --threads 2 > "$work/serial.json" 2>/dev/null; then
      if mpi 2 advise "$t" --json --threads 2 > /dev/null 2>&1; then fail "$name: perwiz-mpi advises where perwiz-cli refuses"; fi
      echo "ok $name: refused by both"
      continue
    fi
    for P in 1 2 3 4; do
      mpi "$P" advise "$t" --json --threads 2 > "$work/mpi.json" 2>"$work/mpi.err" || fail "$name P=$P exited with $?: $(cat "$work/mpi.err")"
      # Byte for byte; where an OTF2 share's warnings differ (compare_json.py), every other key.
      if ! cmp -s "$work/serial.json" "$work/mpi.json"; then
        python3 "$(dirname "$0")/compare_json.py" advice "$work/serial.json" "$work/mpi.json" "$name P=$P" || exit 1
        echo "note $name P=$P: equal but the warnings an OTF2 share does not give (compare_json.py)"
      fi
      checked=$((checked + 1))
    done
    "$cli" advise "$t" --threads 2 > "$work/serial.txt" 2>/dev/null
    mpi 3 advise "$t" --threads 2 > "$work/mpi.txt" 2>/dev/null || fail "$name text P=3 exited with $?"
    cmp -s "$work/serial.txt" "$work/mpi.txt" || fail "$name text P=3 differs: $(diff "$work/serial.txt" "$work/mpi.txt" | head -6)"
    checked=$((checked + 1))
    echo "ok $name: P = 1..4 give perwiz-cli advise's JSON, P = 3 its text"
  done
  # Options that change the searches: fewer candidates and step replays, the model's costs.
  for args in "--top 3 --max-step-predictions 4" "--costs model"; do
    # shellcheck disable=SC2086
    "$cli" advise "$work/ring7" --json --threads 2 $args > "$work/serial.json" 2>/dev/null || fail "ring7 $args refused"
    # shellcheck disable=SC2086
    mpi 3 advise "$work/ring7" --json --threads 2 $args > "$work/mpi.json" || fail "ring7 $args P=3 exited with $?"
    cmp -s "$work/serial.json" "$work/mpi.json" || fail "ring7 $args P=3: the advice differs"
    checked=$((checked + 1))
    echo "ok ring7 $args: P = 3 gives perwiz-cli advise's JSON"
  done
  out=$(mpi 2 advise "$work/none" 2>&1) && fail "advise on a missing trace succeeded"
  grep -q "no such file" <<<"$out" || fail "advise on a missing trace: no clear error: $out"
  [ "$checked" -ge 40 ] || fail "only $checked comparisons ran"
  echo "ok: $checked comparisons"
  ;;
errors)
  work=${5:?workdir}
  rm -rf "$work" && mkdir -p "$work"
  "$cli" generate "$work/t" --ranks 4 --steps 3 >/dev/null
  last=$(ls "$work/t/traces/"*.evt | sort | tail -1)
  rm "$last"
  expect_error() { # NP STATUS PATTERN ARGS...
    local np=$1 want=$2 pattern=$3 rc=0 out
    shift 3
    out=$(mpi "$np" "$@" 2>&1) || rc=$?
    [ "$rc" = "$want" ] || fail "expected status $want from $*, got $rc: $out"
    [ "$rc" != 124 ] || fail "hung: $*"
    local n
    n=$(grep -c "$pattern" <<<"$out" || true)
    [ "$n" -ge "$np" ] || fail "expected '$pattern' from each of $np processes, $n lines: $out"
    echo "ok: $* -> status $rc, every process names the problem"
  }
  expect_error 3 1 "$(basename "$last")" predict "$work/t"
  # A corrupt location file (its event file cut in the middle of a record), read by one process.
  "$cli" generate "$work/c" --ranks 4 --steps 3 >/dev/null
  first=$(ls "$work/c/traces/"*.evt | sort | head -1)
  truncate -s $(( $(stat -c %s "$first") / 2 + 1 )) "$first"
  expect_error 3 1 "location\|$(basename "$first")" predict "$work/c"
  "$cli" generate "$work/ok" --ranks 4 --steps 3 >/dev/null
  expect_error 2 1 "has 4 ranks" predict "$work/ok" --zero-wait 9:0
  expect_error 3 1 "event 2:100000" predict "$work/ok" --zero-wait 2:100000
  expect_error 2 1 "no such file" predict "$work/none"
  expect_error 2 1 "step 9: the trace has 3 parallel steps" predict "$work/ok" --balance-compute 9
  expect_error 2 1 "step 9: the trace has 3 parallel steps" predict "$work/ok" --balance-volume 9
  # Compensation from a trace whose tracer recorded no overhead: refused by every process.
  expect_error 3 1 "records no instrumentation overhead" predict "$work/ok" --compensate-from-trace
  expect_error 2 2 "give one" predict "$work/ok" --compensate-from-trace --compensate-ns 5
  # -o: an output perwiz-mpi cannot write is refused by every process, before the replay;
  # what exists at the path is kept byte for byte, and nothing is left behind.
  expect_error 3 1 "OTF2 only" predict "$work/ok" -o "$work/out.alog"
  [ ! -e "$work/out.alog" ] || fail "-o out.alog left a file"
  echo "someone else's" > "$work/taken.otf2"
  expect_error 3 1 "already exists" predict "$work/ok" -o "$work/taken.otf2"
  [ "$(cat "$work/taken.otf2")" = "someone else's" ] || fail "-o replaced an existing file"
  [ ! -e "$work/taken.def" ] && [ ! -e "$work/taken" ] || fail "-o wrote beside an existing anchor"
  echo "a file" > "$work/afile"
  expect_error 3 1 "afile" predict "$work/ok" -o "$work/afile/sub/out.otf2"
  leftovers=$(find "$work" -name '*.perwiz-tmp*' | wc -l)
  [ "$leftovers" = 0 ] || fail "-o left $leftovers temporaries"
  # A process failing between the agreed checkpoints (injected: process 1 at its 12th exchange,
  # inside the sweep) reports its problem and aborts the run: non-zero status, no hang.
  rc=0
  out=$(PERWIZ_MPI_INJECT_FAILURE=1:12 mpi 3 predict "$work/ok" 2>&1) || rc=$?
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "injected failure: status $rc: $out"
  grep -q "process 1 of 3.*injected failure" <<<"$out" || fail "injected failure not reported: $out"
  echo "ok: a process failing inside the sweep aborts the run (status $rc) after naming its problem"
  # More processes than ranks: the idle ones take part, the result is the serial one's.
  "$cli" generate "$work/small" --ranks 2 --steps 3 >/dev/null
  want=$("$cli" predict "$work/small" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_ns"])')
  got=$(mpi 4 predict "$work/small" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_ns"])')
  [ "$want" = "$got" ] || fail "4 processes on 2 ranks: $got, serial $want"
  echo "ok: 4 processes on 2 ranks (2 idle) equal the serial prediction"
  # Issue #38 item 2: a trace loaded with warnings says so (process 0, on stderr), and --json
  # carries every process's warnings once: the set perwiz-cli gives for the whole trace.
  "$cli" generate "$work/w.alog" --ranks 4 --steps 4 >/dev/null
  head -c $(( $(stat -c %s "$work/w.alog") * 3 / 5 )) "$work/w.alog" > "$work/cut.alog"
  "$cli" info "$work/cut.alog" --json > "$work/cut-info.json"
  mpi 2 predict "$work/cut.alog" --json > "$work/cut-mpi.json" 2> "$work/cut-mpi.err" ||
    fail "predict on a cut ALOG: status $?: $(cat "$work/cut-mpi.err")"
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["warnings"]))' "$work/cut-info.json")
  [ "$n" -gt 0 ] || fail "the cut ALOG loads without warnings"
  grep -q "cut.alog: loaded with $n warning" "$work/cut-mpi.err" || fail "no warnings report: $(cat "$work/cut-mpi.err")"
  python3 - "$work/cut-info.json" "$work/cut-mpi.json" <<'PY' || fail "perwiz-mpi --json warnings differ from perwiz-cli info's"
import json, sys
a, b = (json.load(open(p))["warnings"] for p in sys.argv[1:3])
sys.exit(0 if sorted(a) == sorted(b) else f"info {a}\nmpi {b}")
PY
  echo "ok: a cut ALOG's $n warnings are reported and carried in --json"
  ;;
smpi)
  platform=${5:?platform}
  work=${6:?workdir}
  rm -rf "$work" && mkdir -p "$work"
  seq -f "node-%g" 0 63 > "$work/hosts"
  "$cli" generate "$work/ring256" --ranks 256 --steps 4 --imbalance 0.3 >/dev/null
  "$cli" generate "$work/random256" --ranks 256 --steps 3 --pattern random --messages-per-step 2 --nonblocking \
    --bytes 100000 --seed 9 >/dev/null
  "$cli" generate "$work/sendrecv256" --ranks 256 --steps 3 --p2p send-recv --imbalance 0.2 --seed 4 >/dev/null
  checked=0
  for t in "$work/ring256" "$work/random256" "$work/sendrecv256"; do
    name=$(basename "$t")
    for scen in "none" "hyp"; do
      args=()
      [ "$scen" = hyp ] && args=(--zero-wait 17:3 --zero-event 200:c2 --balance-compute 1 --balance-volume 2 --costs model)
      "$cli" predict "$t" "${args[@]}" --json --all-ranks --full-critical-path > "$work/serial.json"
      timeout 900 "$mpirun" -np 64 -platform "$platform" -hostfile "$work/hosts" --log=root.thres:warning \
        "$bin" predict "$t" "${args[@]}" --json --all-ranks --full-critical-path > "$work/smpi.json" ||
        fail "$name $scen: smpirun -np 64 exited with $?"
      compare "$work/serial.json" "$work/smpi.json" "$name $scen SMPI P=64" || exit 1
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["distributed"]; sys.exit(0 if d["processes"] == 64 and d["enters_sent"] > 0 else 1)' \
        "$work/smpi.json" || fail "$name $scen: not 64 processes exchanging enters"
      checked=$((checked + 1))
      echo "ok $name $scen: SMPI, 64 processes on 256 ranks, equal to the serial prediction and critical path"
    done
  done
  [ "$checked" -eq 6 ] || fail "only $checked comparisons ran"
  ;;
*) fail "unknown mode $mode" ;;
esac
