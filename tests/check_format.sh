#!/bin/bash
# The lines a change touches follow .clang-format (issue #39): clang-format-diff over the diff
# from BASE (PERWIZ_FORMAT_BASE, default HEAD~1: the last commit) to the working tree, C++ files
# only. The rest of the tree is not reformatted wholesale (history stays readable). Skipped
# (status 77) outside a git checkout or without clang-format-diff. To fix what it reports:
#   git diff -U0 --no-color BASE -- '*.cpp' '*.h' | clang-format-diff -p1 -i
set -u
root=${1:?usage: check_format.sh SOURCE_DIR}
cd "$root" || exit 2
cfd=$(command -v clang-format-diff || command -v clang-format-diff-14 || true)
if [ -z "$cfd" ] || ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "skip: clang-format-diff or a git checkout missing"
  exit 77
fi
base=${PERWIZ_FORMAT_BASE:-HEAD~1}
if ! git rev-parse --verify -q "$base" >/dev/null; then
  echo "skip: no commit $base (a shallow clone?)"
  exit 77
fi
out=$(git diff -U0 --no-color "$base" -- '*.cpp' '*.h' | "$cfd" -p1 2>&1)
if [ -n "$out" ]; then
  echo "$out" | head -80
  echo "the changed lines above are not formatted as .clang-format says; fix with:"
  echo "  git diff -U0 --no-color $base -- '*.cpp' '*.h' | clang-format-diff -p1 -i"
  exit 1
fi
echo "the lines changed since $base follow .clang-format"
