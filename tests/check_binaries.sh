#!/bin/bash
# No build-machine path compiled into a program users run (issue #39): the read-only data of
# each program and library given holds neither the source tree's nor the build tree's absolute
# path (a program finds its files relative to itself: app/gui/app_paths.cpp). Debug information
# is not looked at (it names the sources by design and is stripped on install).
#   check_binaries.sh SOURCE_DIR BINARY_DIR FILE...
set -u
src=${1:?usage: check_binaries.sh SOURCE_DIR BINARY_DIR FILE...}
bin=${2:?binary dir}
shift 2
bad=0
for f in "$@"; do
  [ -f "$f" ] || { echo "missing: $f"; bad=1; continue; }
  data=$(mktemp)
  # Every section holding constant data (.rodata, .data.rel.ro, and the like), debug sections left out.
  sections=$(objdump -h "$f" | awk '$2 ~ /^\.(rodata|data)/ {print "--only-section=" $2}')
  # shellcheck disable=SC2086
  objcopy -O binary $sections "$f" "$data" 2>/dev/null
  for p in "$src" "$bin"; do
    if grep -a -q -F "$p" "$data"; then
      echo "$f holds the path $p:"
      grep -a -o -F "$p[^[:cntrl:]]*" "$data" | head -3 | sed 's/^/  /'
      grep -a -o "[^[:cntrl:]]*$p[^[:cntrl:]]*" "$data" | head -3 | sed 's/^/  /'
      bad=1
    fi
  done
  rm -f "$data"
done
[ $bad = 0 ] && echo "no source or build path in: $*"
exit $bad
