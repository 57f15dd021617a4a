#!/bin/bash
# The include rules of docs/architecture.md (issue #39), checked on the sources:
# 1. No file of core, the apps, the widgets, the tracer, the tests, benches or fuzzers includes a
#    header by a relative path that leaves its folder ("../"): a subsystem shares headers with
#    others only through its internal header set (core) or a library target (apps).
# 2. Core's internal headers (perwiz/internal/*.h) are included by core only.
# 3. Each internal header lives in exactly one subsystem's internal set
#    (core/src/<subsystem>/internal/perwiz/internal/), and every one included exists.
# 4. No header of the GUI includes the prediction worker's (app/gui/prediction_worker.h): views
#    and the window see the snapshot types (prediction_result.h), the session forward-declares
#    the worker. Only .cpp files that drive the worker include it.
# 5. Background work of the GUI starts in the session's parts only: QtConcurrent, QThread and
#    std::thread appear in app/gui only in analysis_session.cpp (exports, the overhead analysis,
#    the worker's thread) and its other parts (analysis_session_compare.cpp: the comparison),
#    trace_loader.cpp and advisor_runner.cpp (which the session owns).
# 6. The widget library's own headers (widgets/src) are on no include path outside widgets/ but
#    through perwiz_widgets_internal, which only the test of the widget's parts links.
set -u
root=${1:?usage: check_core_includes.sh SOURCE_DIR}
cd "$root" || exit 2
bad=0
say() { echo "$*"; bad=1; }

while IFS= read -r hit; do say "relative include: $hit"; done < <(
  grep -rn --include='*.h' --include='*.cpp' --include='*.c' --include='*.hpp' -E '^\s*#\s*include\s*"\.\./' \
    core app widgets tracer tests bench fuzz examples 2>/dev/null)

while IFS= read -r hit; do say "core's internal header outside core: $hit"; done < <(
  grep -rn --include='*.h' --include='*.cpp' -E '^\s*#\s*include\s*"perwiz/internal/' \
    app widgets tracer tests bench fuzz examples 2>/dev/null)

declare -A owner
while IFS= read -r f; do
  name=$(basename "$f")
  if [ -n "${owner[$name]:-}" ]; then say "internal header in two sets: ${owner[$name]} and $f"; fi
  owner[$name]=$f
done < <(find core/src -path '*/internal/perwiz/internal/*.h' | sort)
# Every included internal header exists in some set.
while IFS=: read -r file _ inc; do
  name=$(sed -E 's/.*"perwiz\/internal\/([^"]+)".*/\1/' <<<"$inc")
  [ -n "${owner[$name]:-}" ] || say "$file includes perwiz/internal/$name, which no internal set holds"
done < <(grep -rn --include='*.h' --include='*.cpp' -E '^\s*#\s*include\s*"perwiz/internal/' core)

while IFS= read -r hit; do say "a GUI header includes the worker's: $hit"; done < <(
  grep -n -E '^\s*#\s*include\s*"prediction_worker\.h"' app/gui/*.h 2>/dev/null | grep -v '^app/gui/prediction_worker.h:' )

while IFS= read -r hit; do say "background work started outside the session: $hit"; done < <(
  grep -n -E 'QtConcurrent::|new QThread|std::thread|std::jthread|QThreadPool' app/gui/*.cpp app/gui/*.h 2>/dev/null |
    grep -v -E '^app/gui/(analysis_session(_[a-z]+)?|trace_loader|advisor_runner)\.(cpp|h):' )

while IFS= read -r hit; do say "widgets/src on an include path outside widgets/: $hit"; done < <(
  grep -rn --include=CMakeLists.txt -E 'include_directories.*widgets/src' core app tests bench fuzz examples tracer 2>/dev/null)
while IFS= read -r hit; do say "perwiz_widgets_internal linked outside test_timeline_parts: $hit"; done < <(
  grep -rn --include=CMakeLists.txt 'perwiz_widgets_internal' core app tests bench fuzz examples tracer 2>/dev/null |
    grep -v 'target_link_libraries(test_timeline_parts ')

[ $bad = 0 ] && echo "include rules hold: no relative include across folders, core's internal headers (${#owner[@]}) used by core only, no GUI header includes the worker's, GUI jobs start in the session, widgets/src reached by the parts test only"
exit $bad
