#!/usr/bin/env bash
# Installs PerWiz's Debian 12 build dependencies, builds, and then either opens the bundled
# sample trace (`run`) or runs the whole test suite (`test`). Run as root on a fresh machine;
# the README's two commands call this script, and so does CI (.ci/run). `test` then also builds
# core, CLI, tests and fuzz targets with clang, ASan and UBSan in build-asan, runs the tests
# there and fuzzes every target briefly (docs/robustness.md); any failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
build=${PERWIZ_BUILD_DIR:-build}

packages=(
  cmake g++ pkg-config make
  libopen-trace-format2-dev otf2-tools
  libopen-trace-format-dev otf-trace zlib1g-dev vite
  nlohmann-json3-dev libcli11-dev libboost-graph-dev
  libgtest-dev libbenchmark-dev
  qt6-base-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n libqcustomplot-dev
  libgl-dev xvfb xauth fonts-ipafont-gothic
  libopenmpi-dev openmpi-bin gfortran libsimgrid-dev
  clang libclang-rt-14-dev clang-format
  python3
)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

build_all() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$build" -j"$(nproc)"
}

# The ASan+UBSan build (clang, -fno-sanitize-recover=all; flags in scripts/fuzz.sh) of core,
# CLI, tests and fuzzers in its own directory, its test suite (tests that spawn perwiz-cli run
# the sanitized one), then every fuzz target for PERWIZ_CI_FUZZ_SECONDS (default 20) after
# re-running its committed regression inputs.
sanitizer_tests() {
  local asan=${PERWIZ_ASAN_BUILD_DIR:-build-asan}
  export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:print_stacktrace=1:symbolize=1
  export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
  export LSAN_OPTIONS="suppressions=$(pwd)/fuzz/lsan.supp:print_suppressions=0"  # libotf2's own leaks
  local start=$SECONDS
  PERWIZ_FUZZ_BUILD_DIR="$asan" bash scripts/fuzz.sh --build-only
  echo "sanitizer build: $((SECONDS - start)) s"
  ctest --test-dir "$asan" --output-on-failure -j"$(nproc)"
  echo "sanitizer build and tests: $((SECONDS - start)) s"
  PERWIZ_FUZZ_BUILD_DIR="$asan" PERWIZ_FUZZ_NO_BUILD=1 PERWIZ_FUZZ_NICE=0 \
    bash scripts/fuzz.sh "${PERWIZ_CI_FUZZ_SECONDS:-20}"
  echo "sanitizer build, tests and fuzzing: $((SECONDS - start)) s"
}

case "$mode" in
  run)
    install_packages
    build_all
    "$build/app/cli/perwiz-cli" info resources/samples/binary_swap_8
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      exec "$build/app/gui/perwiz" resources/samples/binary_swap_8
    else
      echo "No display: to look at the GUI, run  xvfb-run $build/app/gui/perwiz resources/samples/binary_swap_8" >&2
      echo "or export an image headless:  QT_QPA_PLATFORM=offscreen $build/app/gui/perwiz --export-image binary_swap_8.png resources/samples/binary_swap_8" >&2
    fi
    ;;
  test)
    install_packages
    build_all
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
    sanitizer_tests
    ;;
  *)
    echo "usage: $0 [run|test]" >&2
    exit 2
    ;;
esac
