#include "markers.h"

#include "recorder.h"
#include "state.h"

#include <cstdio>
#include <cstring>

namespace perwiz::trace {

namespace {

constexpr int kMaxOpen = 64;
std::uint16_t gOpen[kMaxOpen];  // open marker regions, innermost last
int gOpenCount = 0;
bool gWarned = false;

std::uint16_t markerRegion(const char* name) {
  if (!name || !*name) return userRegion("PRGN");
  if (std::strncmp(name, "PRGN", 4) == 0) return userRegion(name);
  char full[256];  // on the stack: markers run every step, they must not allocate
  std::snprintf(full, sizeof full, "PRGN_%s", name);
  return userRegion(full);
}

void warnOnce(const char* what) {
  if (gWarned) return;
  gWarned = true;
  std::fprintf(stderr, "perwiz-trace: rank %d: %s (reported once)\n", g.rank, what);
}

}  // namespace

void prgnMarker(bool begin, const char* name) {
  if (!g.active || g.depth > 0) return;
  if (g.rec.used + kCallReserve > g.rec.capacity) flushBufferRecorded();
  if (begin) {
    const std::uint16_t region = markerRegion(name);
    if (region == 0) return;
    if (gOpenCount == kMaxOpen) {
      warnOnce("more than 64 nested PRGN_BEGIN markers; the deeper ones are not recorded");
      return;
    }
    gOpen[gOpenCount++] = region;
    appendMark(RecordKind::Enter, now(), region);
    return;
  }
  int k = gOpenCount - 1;
  if (name && *name) {
    const std::uint16_t region = markerRegion(name);
    while (k >= 0 && gOpen[k] != region) --k;
  }
  if (k < 0) {
    warnOnce("PRGN_END without a matching PRGN_BEGIN; ignored");
    return;
  }
  const std::uint16_t region = gOpen[k];
  for (int i = k; i + 1 < gOpenCount; ++i) gOpen[i] = gOpen[i + 1];
  --gOpenCount;
  appendMark(RecordKind::Leave, now(), region);
}

}  // namespace perwiz::trace
