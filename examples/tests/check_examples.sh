#!/usr/bin/env bash
# Smoke and determinism checks of the case-study programs (registered with CTest by
# examples/CMakeLists.txt; docs/examples.md).
#
#   check_examples.sh determinism BINDIR SMPIRUN PLATFORM   two SMPI runs print identical timings;
#                                                            the improved variants are faster;
#                                                            binary swap's image is right
#   check_examples.sh openmpi BINDIR MPIRUN                 every program runs with 4 ranks
#   check_examples.sh usage BINDIR SMPIRUN PLATFORM         bad options: exit 2 and a clear message
set -euo pipefail

mode=${1:?mode}
bindir=${2:?binary directory}
fail() { echo "FAIL: $*" >&2; exit 1; }

# SimGrid copies the program into its temporary directory under names made from the rank number
# only, so concurrent runs (CTest -j) each need their own directory; smpirun takes it from TMPDIR
# (its -tmpdir option is broken in 3.32: it shifts one argument instead of two).
smpitmp=$(mktemp -d)
trap 'rm -rf "$smpitmp"' EXIT
smpi() { # smpi NP PROGRAM ARGS... (stdout only; SimGrid's own messages are warnings and up)
  local np=$1 prog=$2
  shift 2
  TMPDIR=$smpitmp "$smpirun" -np "$np" -platform "$platform" --cfg=smpi/simulate-computation:no \
    --cfg=smpi/wtime:0 --cfg=network/crosstraffic:0 \
    --log=root.thres:warning "$bindir/$prog-smpi" "$@"
}
time_of() { sed -n 's/.* time_s=\([0-9.]*\).*/\1/p' <<<"$1"; }

case "$mode" in
determinism)
  smpirun=${3:?smpirun}
  platform=${4:?platform}
  # program, ranks, original options, improved options
  cases=(
    "binary_swap 16 --check|--interleaved --check"
    "registration 16 |--reorder"
    "pipeline 16 |--forward-first"
    "stencil 16 |--balanced"
  )
  for c in "${cases[@]}"; do
    read -r prog np rest <<<"${c%%|*}"
    improved=${c#*|}
    a=$(smpi "$np" "$prog" $rest)
    b=$(smpi "$np" "$prog" $rest)
    [ "$a" = "$b" ] || fail "$prog: two SMPI runs differ:"$'\n'"$a"$'\n'"$b"
    fixed=$(smpi "$np" "$prog" $improved)
    t0=$(time_of "$a") t1=$(time_of "$fixed")
    [ -n "$t0" ] && [ -n "$t1" ] || fail "$prog: no time_s in the output:"$'\n'"$a"$'\n'"$fixed"
    awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b < a) }' || fail "$prog: improved variant ($t1 s) not faster than $t0 s"
    if [ "$prog" = binary_swap ]; then
      grep -q 'check passed' <<<"$a$fixed" || fail "binary_swap: image check did not pass:"$'\n'"$a"$'\n'"$fixed"
    fi
    echo "ok $prog: $t0 s (twice) -> $t1 s ($improved)"
  done
  ;;
openmpi)
  mpirun=${3:?mpirun}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  for c in "binary_swap --check" "binary_swap --interleaved --check" "registration" "registration --reorder" \
    "pipeline" "pipeline --forward-first" "stencil" "stencil --balanced"; do
    read -r prog args <<<"$c"
    out=$("$mpirun" --oversubscribe -np 4 "$bindir/$prog" $args) || fail "$c exited with $?"
    grep -q "^$prog: ranks=4 backend=native .*time_s=" <<<"$out" || fail "$c: unexpected output: $out"
    if [ "$prog" = binary_swap ]; then grep -q 'check passed' <<<"$out" || fail "$c: image check: $out"; fi
    echo "ok $c: $(time_of "$out") s"
  done
  ;;
usage)
  smpirun=${3:?smpirun}
  platform=${4:?platform}
  expect_usage_error() { # NP PROGRAM EXPECTED-MESSAGE ARGS...
    local np=$1 prog=$2 want=$3 out rc=0
    shift 3
    out=$(smpi "$np" "$prog" "$@" 2>&1) || rc=$?
    [ "$rc" -ne 0 ] || fail "$prog $*: exit status 0, expected a usage error"
    grep -qF -- "$want" <<<"$out" || fail "$prog $*: expected '$want' in: $out"
    echo "ok $prog $*: $want"
  }
  expect_usage_error 3 binary_swap "the number of ranks must be a power of two"
  expect_usage_error 4 binary_swap "--size 10 is not a multiple of the 4 ranks" --size 10
  expect_usage_error 2 binary_swap "--frames: expected a number, got 'abc'" --frames abc
  expect_usage_error 2 registration "unknown option '--bogus'" --bogus
  expect_usage_error 2 registration "--rows needs a value" --rows
  expect_usage_error 2 pipeline "--blocks: 0 is outside [1, 1e+06]" --blocks 0
  expect_usage_error 2 stencil "--iters: expected an integer, got '2.5'" --iters 2.5
  expect_usage_error 8 stencil "--n 8 gives rank 0 fewer than 2 rows with 8 ranks" --n 8
  expect_usage_error 1 pipeline "needs at least 2 ranks"
  # SimGrid takes --help for itself; -h reaches the program
  help=$(smpi 2 stencil -h) || fail "stencil -h exited with $?"
  grep -q -- '--balanced' <<<"$help" || fail "stencil -h does not list --balanced: $help"
  echo "ok stencil -h"
  ;;
*)
  echo "usage: $0 determinism|openmpi|usage BINDIR RUNNER [PLATFORM]" >&2
  exit 2
  ;;
esac
