#!/usr/bin/env bash
# Regenerates the sample traces of the case-study programs in resources/samples/ (docs/examples.md):
# each program runs under SimGrid SMPI on examples/smpi/cluster.xml through libperwiz-trace, so the
# traces are deterministic (the same events and bytes on every run, except the OTF2 anchor
# file's creation stamp) and small (about 70 KB in all).
#
#   scripts/regenerate_samples.sh BUILD_DIR
#
# BUILD_DIR is a configured and built tree (this script builds nothing): it needs
# BUILD_DIR/examples/*-smpi-traced, BUILD_DIR/tracer/smpi/libperwiz-trace.so and
# BUILD_DIR/tracer/perwiz-trace-convert, e.g.
#   cmake --build build --target examples-smpi-traced perwiz-trace-smpi perwiz-cli
# resources/samples/ring4.alog is not touched.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
samples=$repo/resources/samples
platform=$repo/examples/smpi/cluster.xml
tracelib=$build/tracer/smpi
cli=$build/app/cli/perwiz-cli

for f in "$tracelib/libperwiz-trace.so" "$build/tracer/perwiz-trace-convert"; do
  [ -e "$f" ] || { echo "$0: $f is missing: build the tracer in $build first" >&2; exit 1; }
done
command -v smpirun >/dev/null || { echo "$0: smpirun not found (Debian package simgrid)" >&2; exit 1; }

# sample NAME FORMAT RANKS PROGRAM [OPTIONS...]: one traced run into resources/samples/NAME
sample() {
  local name=$1 format=$2 ranks=$3 program=$4
  shift 4
  local bin=$build/examples/$program-smpi-traced
  [ -x "$bin" ] || { echo "$0: $bin is missing: build target examples-smpi-traced" >&2; exit 1; }
  local tmp
  tmp=$(mktemp -d)
  # Ranks on node-0, node-1, … in order (without a hostfile smpirun takes the platform's hosts
  # in name order: node-0, node-1, node-10, node-100, …, which reads oddly in the timeline).
  seq 0 $((ranks - 1)) | sed 's/^/node-/' >"$tmp/hosts"
  LD_LIBRARY_PATH=$tracelib TMPDIR=$tmp PERWIZ_TRACE_DIR=$tmp PERWIZ_TRACE_NAME=$name PERWIZ_FORMAT=$format \
    PERWIZ_TRACE_QUIET=1 \
    smpirun -np "$ranks" -platform "$platform" -hostfile "$tmp/hosts" --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 \
    --cfg=network/crosstraffic:0 --cfg=smpi/privatize-libs:libperwiz-trace.so \
    --log=root.thres:warning \
    "$bin" "$@" >/dev/null
  if [ "$format" = alog ]; then
    rm -f "$samples/$name.alog"
    mv "$tmp/$name/traces.alog" "$samples/$name.alog"
    echo "wrote resources/samples/$name.alog"
  else
    rm -rf "${samples:?}/$name"
    mv "$tmp/$name" "$samples/$name"
    echo "wrote resources/samples/$name/ (OTF2: traces.otf2)"
  fi
  rm -rf "$tmp"
}

mkdir -p "$samples"
# The GUI's default trace: binary swap on 8 ranks, block split (imbalanced stages to balance).
sample binary_swap_8 otf2 8 binary_swap
# The domino effect: rank 1's wait at the landmark delays every rank (advise points at it).
sample registration_8 otf2 8 registration
# Isend/Irecv/Waitall halos and an Allreduce per iteration, imbalanced rows.
sample stencil_8 otf2 8 stencil --iters 10
# Its improved variant (rows balanced): the run after the fix, for 'perwiz-cli compare' (README).
sample stencil_8_balanced otf2 8 stencil --iters 10 --balanced
# Late sender, as ALOG (the tracer's second format).
sample pipeline_8 alog 8 pipeline --blocks 16

if [ -x "$cli" ]; then
  for t in binary_swap_8 registration_8 stencil_8 stencil_8_balanced pipeline_8.alog; do
    "$cli" info "$samples/$t" | sed -n 's/^\(file\|ranks\|MPI calls\|messages\|parallel steps\|duration\): */  \1: /p'
  done
fi
du -sh "$samples"/binary_swap_8 "$samples"/registration_8 "$samples"/stencil_8 "$samples"/stencil_8_balanced "$samples"/pipeline_8.alog
