#include "recorder.h"

#include "def_file.h"
#include "state.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace perwiz::trace {

State g;

namespace {

struct UserRegion {
  std::string name;
  std::uint16_t id;
};
std::vector<UserRegion> gUserRegions;
std::uint16_t gNextUserRegion = kFirstUserRegion;

bool writeAll(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool flushBuffer() {
  Recorder& r = g.rec;
  if (r.used == 0 || r.evtFd < 0) {
    r.used = 0;
    return r.evtFd >= 0;
  }
  r.flushing = 1;
  const bool ok = writeAll(r.evtFd, r.buffer, r.used);
  ++r.flushes;
  r.used = 0;
  r.flushing = 0;
  if (!ok) {
    std::fprintf(stderr,
                 "perwiz-trace: rank %d: cannot write its records to %s/%s (%s); tracing stops "
                 "here, the trace will end at this point on this rank\n",
                 g.rank, g.traceDir, kRawDirName, std::strerror(errno));
    g.active = false;
    ::close(r.evtFd);
    r.evtFd = -1;
  }
  return ok;
}

void flushBufferRecorded() {
  if (g.flushRegion == 0) g.flushRegion = userRegion("perwiz_trace_flush");
  const std::uint64_t begin = now();
  if (!flushBuffer() || g.flushRegion == 0) return;
  appendMark(RecordKind::Enter, begin, g.flushRegion);
  appendMark(RecordKind::Leave, now(), g.flushRegion);
}

bool openRawFiles(const char* traceDir, std::size_t bufferBytes) {
  const std::string dir = std::string(traceDir) + "/" + kRawDirName + "/";
  const std::string evt = dir + rawFileName(g.rank, ".evt");
  const std::string def = dir + rawFileName(g.rank, ".def");
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  g.rec.evtFd = ::open(evt.c_str(), flags, 0666);
  if (g.rec.evtFd >= 0) g.defFd = ::open(def.c_str(), flags | O_APPEND, 0666);
  if (g.rec.evtFd < 0 || g.defFd < 0) {
    std::fprintf(stderr, "perwiz-trace: rank %d: cannot create %s: %s; this rank is not traced\n",
                 g.rank, g.rec.evtFd < 0 ? evt.c_str() : def.c_str(), std::strerror(errno));
    closeRawFiles();
    return false;
  }
  const RawHeader header = makeRawHeader(g.rank);
  // At least room for the calibration burst. Touched once now, so that page faults of a fresh
  // buffer do not land on the program's first calls.
  const std::size_t capacity = std::max<std::size_t>(bufferBytes, 1u << 17);
  g.rec.buffer = static_cast<unsigned char*>(std::malloc(capacity));
  if (g.rec.buffer) std::memset(g.rec.buffer, 0, capacity);
  if (!g.rec.buffer || !writeAll(g.rec.evtFd, &header, sizeof header)) {
    std::fprintf(stderr, "perwiz-trace: rank %d: cannot set up %s; this rank is not traced\n",
                 g.rank, evt.c_str());
    closeRawFiles();
    return false;
  }
  g.rec.capacity = capacity;
  defLine("perwiz-trace %u", kRawVersion);
  defLine("rank %d size %d", g.rank, g.size);
  return true;
}

void closeRawFiles() {
  if (g.rec.evtFd >= 0) {
    flushBuffer();
    if (g.rec.evtFd >= 0) ::close(g.rec.evtFd);
  }
  if (g.defFd >= 0) ::close(g.defFd);
  g.rec.evtFd = -1;
  g.defFd = -1;
  std::free(g.rec.buffer);
  g.rec.buffer = nullptr;
  g.rec.capacity = 0;
  g.rec.used = 0;
}

void recordOwnCollective(Region region, std::uint64_t enter, std::uint64_t leave, int root,
                         std::uint64_t sent, std::uint64_t received) {
  appendMark(RecordKind::Enter, enter, regionId(region));
  append(RecordKind::Collective, leave, regionId(region), kCommWorld, root, 0, sent, received);
  appendMark(RecordKind::Leave, leave, regionId(region));
}

std::uint16_t userRegion(const char* name) {
  for (const UserRegion& r : gUserRegions)
    if (r.name == name) return r.id;
  if (gNextUserRegion == UINT16_MAX) return 0;
  const std::uint16_t id = gNextUserRegion++;
  gUserRegions.push_back({name, id});
  writeDefLine("region " + std::to_string(id) + " " + name);
  return id;
}

std::uint64_t measureEventCost() {
  constexpr int kBursts = 5;
  constexpr int kEvents = 1000;
  if (g.rec.used + kEvents * sizeof(RawHead) + kCallReserve > g.rec.capacity) flushBuffer();
  const std::size_t start = g.rec.used;
  const std::uint64_t records = g.rec.records;
  std::uint64_t best = UINT64_MAX;
  for (int b = 0; b < kBursts; ++b) {
    // Enter records, the most common kind (a message record writes 24 bytes more).
    const std::uint64_t t0 = now();
    for (int i = 0; i < kEvents; ++i) appendMark(RecordKind::Enter, now(), kOverheadParameterId);
    const std::uint64_t elapsed = now() - t0;
    g.rec.used = start;  // the dummies never reach the file
    g.rec.records = records;
    if (elapsed < best) best = elapsed;
  }
  return (best + kEvents / 2) / kEvents;
}

}  // namespace perwiz::trace
