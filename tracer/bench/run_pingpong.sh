#!/usr/bin/env bash
# The tracer's overhead on a ping-pong: the same binary untraced and with the tracer preloaded,
# alternately (three times each, so that load from other processes hits both alike).
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
for i in 1 2 3; do
  printf 'untraced: '; run
  printf 'traced:   '; PERWIZ_TRACE_DIR=$scratch PERWIZ_TRACE_NAME=run$i PERWIZ_TRACE_QUIET=1 \
    run -x LD_PRELOAD="$lib" -x PERWIZ_TRACE_DIR -x PERWIZ_TRACE_NAME -x PERWIZ_TRACE_QUIET
done
