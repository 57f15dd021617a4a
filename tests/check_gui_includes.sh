#!/bin/bash
# Issue #18: outside the prediction worker and the advisor runner (the two background workers
# that own or fork the engine), no file of the GUI (app/gui) or the widgets includes the replay
# engine's header, directly or through other headers. Follows quoted includes through the
# project's own headers (core/include, widgets/include, widgets/src, app/gui).
set -u
root=${1:?usage: check_gui_includes.sh SOURCE_DIR}
cd "$root" || exit 2
dirs=(core/include widgets/include widgets/src app/gui)
resolve() {  # an include name -> its file, if it is one of ours
  local name=$1 from=$2 d
  [ -f "$(dirname "$from")/$name" ] && { echo "$(dirname "$from")/$name"; return; }
  for d in "${dirs[@]}"; do [ -f "$d/$name" ] && { echo "$d/$name"; return; }; done
}
declare -A seen
# Headers explored to the end without reaching the engine, for every file after (each was
# explored once per including file before: 30 s of forks for one check).
declare -A clean
found=""  # the include chain that reached the engine header (set by reaches_engine)
reaches_engine() {  # run in this shell (not in $(...)) so that `clean` outlives each file
  local file=$1 chain=$2 inc target
  while read -r inc; do
    case "$inc" in
      perwiz/replay.h|perwiz/critical_path.h) found="$chain -> $inc"; return 0 ;;
    esac
    target=$(resolve "$inc" "$file")
    [ -n "$target" ] || continue
    [ -n "${seen[$target]:-}" ] && continue
    [ -n "${clean[$target]:-}" ] && continue
    seen[$target]=1
    reaches_engine "$target" "$chain -> $inc" && return 0
    clean[$target]=1
  done < <(sed -n 's/^#include "\(.*\)".*/\1/p' "$file")
  return 1
}
bad=0
for f in app/gui/*.h app/gui/*.cpp widgets/src/*.h widgets/src/*.cpp widgets/include/perwiz/widgets/*.h; do
  case "$f" in
    app/gui/prediction_worker.cpp|app/gui/advisor_runner.cpp) continue ;;
  esac
  seen=()
  found=""
  if reaches_engine "$f" "$f"; then
    echo "includes the engine: $found"
    bad=1
  fi
done
[ $bad = 0 ] && echo "no GUI or widget file outside the workers includes the replay engine's header"
exit $bad
