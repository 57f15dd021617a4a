#!/usr/bin/env bash
# The tracer's overhead on a ping-pong: the same binary untraced and with the tracer preloaded,
# alternately (three pairs, so that load from other processes hits both alike). Per pair:
#   added per wrapped call = (traced median round trip - untraced median round trip) / 4
# (four wrapped calls per round trip: rank 0's Send and Recv, rank 1's Recv and Send).
#   tracer/bench/run_pingpong.sh BUILD_DIR [iterations] [repetitions]
set -euo pipefail
build=${1:?usage: run_pingpong.sh BUILD_DIR [iterations] [repetitions]}
iterations=${2:-20000}
repetitions=${3:-11}
prog=$build/tracer/bench/tracer_pingpong
lib=$build/tracer/libperwiz-trace.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run() { mpirun -np 2 --mca btl self,vader "$@" "$prog" "$iterations" "$repetitions"; }
median() { sed -n 's/.*median \([0-9.]*\).*/\1/p'; }
for i in 1 2 3; do
  plain=$(run)
  traced=$(PERWIZ_TRACE_DIR=$scratch PERWIZ_TRACE_NAME=run$i PERWIZ_TRACE_QUIET=1 \
    run -x LD_PRELOAD="$lib" -x PERWIZ_TRACE_DIR -x PERWIZ_TRACE_NAME -x PERWIZ_TRACE_QUIET)
  echo "untraced: $plain"
  echo "traced:   $traced"
  awk -v a="$(echo "$plain" | median)" -v b="$(echo "$traced" | median)" \
    'BEGIN { printf "added per wrapped call: %.0f ns\n", (b - a) / 4 }'
done
