#!/usr/bin/env bash
# Builds PerWiz's libFuzzer targets (fuzz/) with clang, ASan and UBSan, and runs each for
# SECONDS (default 60), one after the other. Corpora, crash artifacts and logs stay in the build
# directory's fuzz-work/; a summary (executions, CPU time, findings) is printed at the end and
# appended to fuzz-work/runs.tsv. Exit status 1 if any target found something.
#
#   scripts/fuzz.sh [SECONDS] [TARGETS...]      targets: alog otf2 otf scenario network_model replay session
#   scripts/fuzz.sh --build-only                configure and build everything of the sanitizer
#                                               build (core, CLI, tests, fuzzers); no fuzzing
#
# Environment:
#   PERWIZ_FUZZ_BUILD_DIR  build directory (default build-fuzz; bootstrap.sh test uses build-asan)
#   PERWIZ_FUZZ_NICE       niceness of the fuzzing runs (default 19: fuzz on idle CPU)
#   PERWIZ_FUZZ_NO_BUILD=1 use the build directory as it is (the caller built it)
#   PERWIZ_SHARED_TRACES   extra seed traces read at run time when present (default ../shared/traces)
#   PERWIZ_FUZZ_FORK=1     long campaigns: libFuzzer's fork mode, which keeps fuzzing after a
#                          finding (-ignore_crashes/-ignore_ooms/-ignore_timeouts), all saved
#
# Seeds are generated into fuzz-work/seeds.PID/ (removed at exit) at every run: the project's samples
# (resources/samples), small traces from `perwiz-cli generate`, the JSON seeds written by
# `fuzz_pack seeds`, the committed regression inputs fuzz/regressions/<target>/ (each run starts by
# re-running them) and, when present, small traces of PERWIZ_SHARED_TRACES (never copied into
# the repository). OTF2 seeds are archives serialized by `fuzz_pack pack` (fuzz/archive_container.h).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
seconds=${1:-60}
shift || true
all_targets=(alog otf2 otf scenario network_model replay session)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

build=${PERWIZ_FUZZ_BUILD_DIR:-build-fuzz}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
niceness=${PERWIZ_FUZZ_NICE:-19}
shared=${PERWIZ_SHARED_TRACES:-$root/../shared/traces}
work="$build/fuzz-work"

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ "${PERWIZ_FUZZ_NO_BUILD:-0}" != 1 ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  generator=()
  if command -v ninja >/dev/null && [ ! -f "$build/CMakeCache.txt" ]; then generator=(-G Ninja); fi
  # -O1 -g without NDEBUG: assertions stay on.
  cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_CXX_FLAGS="$san" -DCMAKE_C_FLAGS="$san" \
    -DPERWIZ_BUILD_FUZZ=ON -DPERWIZ_BUILD_GUI=OFF -DPERWIZ_BUILD_MPI=OFF -DPERWIZ_BUILD_BENCH=OFF >/dev/null
  if [ "$build_only" = 1 ]; then
    cmake --build "$build" -j"$(nproc)"
    exit 0
  fi
  build_targets=(perwiz-cli fuzz_pack)
  for t in "${targets[@]}"; do
    if [ "$t" != session ] || grep -q '^Qt6Core_DIR:PATH=/' "$build/CMakeCache.txt"; then build_targets+=("fuzz_$t"); fi
  done
  cmake --build "$build" -j"$(nproc)" --target "${build_targets[@]}"
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:print_stacktrace=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}  # libotf2's own leaks
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"

# ---- seeds -------------------------------------------------------------------------------
seeds="$work/seeds.$$"  # per run: two runs in one build directory do not collide
rm -rf "$seeds"
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds"/{alog,otf2,otf,scenario,network_model,replay,session}
cli="$build/app/cli/perwiz-cli"
pack="$build/fuzz/fuzz_pack"

cp resources/samples/*.alog "$seeds/alog/"
gen=0
generate() {  # generate EXT ARGS...: one small trace from the synthetic generator
  local ext=$1
  shift
  gen=$((gen + 1))
  "$cli" generate "$seeds/gen$gen.$ext" "$@" >/dev/null
}
generate alog --ranks 2 --steps 2
generate alog --ranks 3 --steps 2 --pattern pairs --nonblocking --collective none
generate alog --ranks 4 --steps 2 --pattern master-worker --bytes 100000 --imbalance 0.5
generate alog --ranks 4 --steps 3 --pattern random --messages-per-step 2 --collective bcast
generate alog --ranks 2 --steps 1 --pattern none --collective barrier
mv "$seeds"/gen*.alog "$seeds/alog/"
if [ -d "$shared" ]; then  # real traces, read at run time only (at most 256 KiB each)
  find "$shared" -maxdepth 2 -type f \( -name '*.alog' -o -name '*.log' \) -size -256k \
    -exec cp {} "$seeds/alog/" \; 2>/dev/null || true
fi
cp "$seeds"/alog/* "$seeds/replay/"

for d in resources/samples/*/; do
  [ -f "$d/traces.otf2" ] && "$pack" pack "$d" "$seeds/otf2/$(basename "$d").bin"
done
generate archive --ranks 2 --steps 1  # OTF2: an archive directory genN.archive/
generate archive --ranks 3 --steps 2 --pattern pairs --nonblocking
for a in "$seeds"/gen*.archive; do
  "$pack" pack "$a" "$seeds/otf2/$(basename "$a" .archive).bin"
  rm -rf "$a"
done
if [ -d "$shared" ]; then  # small real OTF2 archives (at most 1 MiB)
  for anchor in $(find "$shared" -maxdepth 3 -name '*.otf2' -type f 2>/dev/null); do
    d=$(dirname "$anchor")
    [ "$(du -sk "$d" | cut -f1)" -le 1024 ] || continue
    "$pack" pack "$d" "$seeds/otf2/shared-$(basename "$d").bin" 2>/dev/null || true
  done
fi
# OTF (version 1): small traces in their own directories, packed like OTF2 archives.
otfseed() {  # otfseed NAME CLI-ARGS...: perwiz-cli writes DIR/trace.otf, packed as NAME.bin
  local d="$seeds/otf-$1"
  shift
  mkdir -p "$d"
  "$cli" "$@" "$d/trace.otf" >/dev/null && "$pack" pack "$d" "$seeds/otf/$(basename "$d").bin"
  rm -rf "$d"
}
otfseed ring4 convert resources/samples/ring4.alog
otfseed stencil convert resources/samples/stencil_8
otfseed gen1 generate --ranks 2 --steps 1 --format otf
otfseed gen2 generate --ranks 3 --steps 2 --pattern pairs --nonblocking --format otf
if [ -d "$shared" ]; then  # real OTF 1 archives (VampirTrace), reduced to a seed's size (issue #38)
  for anchor in $(find "$shared" -maxdepth 3 -name '*.otf' -type f 2>/dev/null); do
    d="$seeds/otf-shared-$(basename "$(dirname "$anchor")")"
    python3 scripts/otf1_seed.py "$anchor" "$d" 2 300 &&
      "$pack" pack "$d" "$seeds/otf/$(basename "$d").bin" 2>/dev/null || true
    rm -rf "$d"
  done
fi
"$pack" seeds "$seeds"

# Per target: the binary's options (memory budget, input size).
options() {
  local common=(-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 -print_final_stats=1 -print_funcs=0)
  case "$1" in
    alog) echo "${common[@]} -max_len=65536" ;;
    otf2 | otf) echo "-rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=20 -print_final_stats=1 -print_funcs=0 -max_len=131072" ;;
    replay) echo "${common[@]} -max_len=32768" ;;
    *) echo "${common[@]} -max_len=8192" ;;
  esac
}

# ---- runs --------------------------------------------------------------------------------
[ -f "$work/runs.tsv" ] || printf 'date\ttarget\tseconds\texecutions\tcpu_s\tfindings\tcommit\n' >"$work/runs.tsv"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
summary=()
failed=0
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    summary+=("$(printf '%-14s not built (see CMake output)' "$t")")
    [ "$t" = session ] || failed=1
    continue
  fi
  corpus="$work/corpus/$t"
  artifacts="$work/artifacts/$t"
  log="$work/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  before=$(find "$artifacts" -type f | wc -l)
  # shellcheck disable=SC2046
  read -r -a opts <<<"$(options "$t")"
  fork=()
  [ "${PERWIZ_FUZZ_FORK:-0}" != 1 ] || fork=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  # libotf2 allocates what a definition claims (a group of 2^32 - 1 members: 32 GB) and reports
  # a failed malloc as an error, which the reader passes on ("could not allocate memory for
  # members array"). ASan aborts on such a request instead of returning null as glibc does;
  # allocator_may_return_null=1 lets the fuzzer exercise the error path the release build takes.
  san_env=()
  [ "$t" != otf2 ] || san_env=(env "ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1")

  # The committed regression inputs first: each must run clean.
  status=0
  if [ -d "fuzz/regressions/$t" ] && [ -n "$(ls -A "fuzz/regressions/$t")" ]; then
    "${san_env[@]}" nice -n "$niceness" "$bin" "${opts[@]}" -artifact_prefix="$artifacts/" fuzz/regressions/"$t"/* \
      >"$work/logs/$t.regressions.log" 2>&1 || status=$?
  fi
  if [ "$status" -eq 0 ]; then
    /usr/bin/time -f '%U %S' -o "$work/logs/$t.time" \
      "${san_env[@]}" nice -n "$niceness" "$bin" "${opts[@]}" "${fork[@]}" -max_total_time="$seconds" -artifact_prefix="$artifacts/" \
      "$corpus" "$seeds/$t" >"$log" 2>&1 || status=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)  # fork mode
    cpu=$(awk 'END { printf "%.1f", $1 + $2 }' "$work/logs/$t.time" 2>/dev/null || echo 0)
  else
    log="$work/logs/$t.regressions.log"
    execs=0
    cpu=0
  fi
  findings=$(($(find "$artifacts" -type f | wc -l) - before))
  if [ "$status" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi  # a crash without an artifact
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$seconds" "${execs:-0}" "$cpu" "$findings" "$commit" >>"$work/runs.tsv"
  line=$(printf '%-14s %10s executions  %8s s CPU  %s finding(s)  corpus %s' "$t" "${execs:-0}" "$cpu" "$findings" "$(ls "$corpus" | wc -l)")
  if [ "$findings" -ne 0 ]; then
    failed=1
    line="$line  <- see $log and $artifacts/"
    grep -m1 -E 'ERROR: |runtime error|property violated|Assertion' "$log" | sed 's/^/    /' >&2 || true
  fi
  summary+=("$line")
done

echo
echo "Fuzzing summary ($seconds s per target, niceness $niceness, $work):"
printf '  %s\n' "${summary[@]}"
awk -F'\t' 'NR > 1 { cpu[$2] += $5; total += $5 } END {
  printf "  CPU time recorded in runs.tsv (all runs so far):"
  for (t in cpu) printf " %s %.2f h,", t, cpu[t] / 3600
  printf " total %.2f h\n", total / 3600 }' "$work/runs.tsv"
exit "$failed"
