#!/bin/bash
# Model-cost validation under SimGrid SMPI's default settings (issue #20; docs/validation-retarget.md).
#
#   examples/retarget/run_matrix.sh BUILD_DIR OUT_DIR RANKS [MODEL_KIND]
#
# Calibrates the two platforms of this directory with perwiz-calibrate-smpi (MODEL_KIND loggps,
# the default, or loggpo), traces `exchange` (examples/exchange.c) on both for every pattern and
# message size, predicts the Myrinet-like trace with `perwiz-cli predict --costs model` on the
# Myrinet-like model (self) and the Ethernet-like one (retarget), and prints each error against
# the run measured on that platform. SMPI's network settings are its defaults; only the host's own
# computation is not simulated (smpi/simulate-computation:no), so that the runs are deterministic.
set -euo pipefail
build=$(cd "$1" && pwd); out=$2; np=$3; kind=${4:-loggps}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/traces"; out=$(cd "$out" && pwd)
for i in $(seq 0 63); do echo node-$i; done > "$out/hosts"
cli=$build/app/cli/perwiz-cli
smpirun=${SMPIRUN:-smpirun}
json() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }

for p in myrinet-like ethernet-like; do
  [ -f "$out/$p-$kind.json" ] || "$smpirun" -np 2 -platform "$here/$p.xml" -hostfile "$out/hosts" --log=root.thres:warning \
    "$build/app/calibrate/perwiz-calibrate-smpi" --mode "$kind" -o "$out/$p-$kind.json" > /dev/null
done

trace() {  # PLATFORM NAME ARGS...
  local plat=$1 name=$2; shift 2
  [ -d "$out/traces/$name" ] && return
  local tmp; tmp=$(mktemp -d)
  TMPDIR=$tmp PERWIZ_TRACE_DIR=$out/traces PERWIZ_TRACE_NAME=$name LD_LIBRARY_PATH=$build/tracer/smpi \
    "$smpirun" -np "$np" -platform "$here/$plat.xml" -hostfile "$out/hosts" --log=root.thres:warning \
    --cfg=smpi/simulate-computation:no --cfg=smpi/privatize-libs:libperwiz-trace.so \
    "$build/examples/exchange-smpi-traced" "$@" > /dev/null
  rm -rf "$tmp"
}

for pat in 0 1 2; do for bytes in 4096 65536 1048576; do
  a=p$pat-b$bytes-n$np-myrinet-like; b=p$pat-b$bytes-n$np-ethernet-like
  trace myrinet-like "$a" --pattern $pat --bytes $bytes --iters 10
  trace ethernet-like "$b" --pattern $pat --bytes $bytes --iters 10
  ta=$($cli info "$out/traces/$a" --json | json duration_ns)
  tb=$($cli info "$out/traces/$b" --json | json duration_ns)
  rm -f "$out/self.alog" "$out/retarget.alog"
  sa=$($cli predict "$out/traces/$a" --model "$out/myrinet-like-$kind.json" --costs model -o "$out/self.alog" --json | json predicted_ns)
  sb=$($cli predict "$out/traces/$a" --model "$out/ethernet-like-$kind.json" --costs model -o "$out/retarget.alog" --json | json predicted_ns)
  pa=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$a"); pb=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$b")
  qa=$(python3 "$here/timed_part.py" "$cli" "$out/self.alog"); qb=$(python3 "$here/timed_part.py" "$cli" "$out/retarget.alog")
  # T after MPI_Init (timed_part.py --span): what the trace holds of T
  xa=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$a" --span); xb=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$b" --span)
  ya=$(python3 "$here/timed_part.py" "$cli" "$out/self.alog" --span); yb=$(python3 "$here/timed_part.py" "$cli" "$out/retarget.alog" --span)
  # | model | ranks | pattern | bytes | T on A | self: T error, timed part | T on B | retarget: T error, timed part |
  #   self, retarget: T after MPI_Init |
  python3 -c "
ta,tb,sa,sb,pa,pb,qa,qb,xa,xb,ya,yb=$ta,$tb,$sa,$sb,$pa,$pb,$qa,$qb,$xa,$xb,$ya,$yb
e=lambda p,m: f'{100*(p-m)/m:+.2f} %'
print(f'| $kind | $np | $pat | $bytes | {ta/1e6:.3f} | {e(sa,ta)} | {e(qa,pa)} | {tb/1e6:.3f} | {e(sb,tb)} | {e(qb,pb)} | {e(ya,xa)} | {e(yb,xb)} |')"
done; done

# The balance what-if in model mode: A's (imbalanced) trace with every step's computation
# balanced (--balance-compute for each of the 10 steps), predicted with A's model and with B's,
# against the balanced program (exchange --balanced) measured on A and on B.
steps=$(for k in $(seq 0 9); do printf -- '--balance-compute %d ' "$k"; done)
for pat in 0 1 2; do for bytes in 4096 65536 1048576; do
  a=p$pat-b$bytes-n$np-myrinet-like; ba=p$pat-b$bytes-n$np-myrinet-like-balanced; bb=p$pat-b$bytes-n$np-ethernet-like-balanced
  trace myrinet-like "$ba" --pattern $pat --bytes $bytes --iters 10 --balanced
  trace ethernet-like "$bb" --pattern $pat --bytes $bytes --iters 10 --balanced
  rm -f "$out/self.alog" "$out/retarget.alog"
  $cli predict "$out/traces/$a" --model "$out/myrinet-like-$kind.json" --costs model $steps -o "$out/self.alog" > /dev/null
  $cli predict "$out/traces/$a" --model "$out/ethernet-like-$kind.json" --costs model $steps -o "$out/retarget.alog" > /dev/null
  pa=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$ba"); pb=$(python3 "$here/timed_part.py" "$cli" "$out/traces/$bb")
  qa=$(python3 "$here/timed_part.py" "$cli" "$out/self.alog"); qb=$(python3 "$here/timed_part.py" "$cli" "$out/retarget.alog")
  # | model | ranks | pattern | bytes | balanced, timed part on A | self what-if error | on B | retarget what-if error |
  python3 -c "
pa,pb,qa,qb=$pa,$pb,$qa,$qb
e=lambda p,m: f'{100*(p-m)/m:+.2f} %'
print(f'| $kind balance | $np | $pat | $bytes | {pa/1e6:.3f} | {e(qa,pa)} | {pb/1e6:.3f} | {e(qb,pb)} |')"
done; done
