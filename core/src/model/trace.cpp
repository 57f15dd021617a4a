#include "perwiz/trace.h"

#include <charconv>
#include <cstdio>
#include <sstream>

namespace perwiz {

std::string Diagnostic::toString() const {
  std::string s = file;
  if (line >= 0) s += ":" + std::to_string(line);
  if (!position.empty()) s += (s.empty() ? "" : ": ") + position;
  if (!s.empty()) s += ": ";
  return s + message;
}

std::string formatDuration(TimeNs ns, const char* micro) {
  struct Unit {
    TimeNs scale;
    const char* name;
  };
  const Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, micro}};
  // |ns| without overflow at INT64_MIN.
  const std::uint64_t magnitude =
      ns < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  for (const Unit& u : units)
    if (magnitude >= static_cast<std::uint64_t>(u.scale)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f %s", static_cast<double>(ns) / static_cast<double>(u.scale), u.name);
      return buf;
    }
  return std::to_string(ns) + " ns";
}

std::string warningsReport(const std::vector<Diagnostic>& warnings, const std::string& path, std::size_t shown,
                           const std::string& seeAll) {
  if (warnings.empty()) return {};
  const std::size_t n = warnings.size();
  std::string s = path + ": loaded with " + std::to_string(n) + (n == 1 ? " warning" : " warnings") +
                  ": the model may lack what " + (n == 1 ? "it names" : "they name") + "\n";
  for (std::size_t i = 0; i < n && i < shown; ++i) s += "  " + warnings[i].toString() + "\n";
  if (n > shown) s += "  ... " + std::to_string(n - shown) + " more" + (seeAll.empty() ? "" : ": " + seeAll) + "\n";
  return s;
}

std::uint64_t Trace::eventCount() const {
  std::uint64_t n = 0;
  for (const auto& r : ranks) n += r.size();
  return n;
}

std::uint64_t Trace::threadEventCount() const {
  std::uint64_t n = 0;
  for (const auto& t : threads) n += t.events.size();
  return n;
}

std::uint64_t Trace::mpiCallCount() const {
  std::uint64_t n = 0;
  for (const auto& r : ranks) n += r.mpiCalls.size();
  return n;
}

namespace {
// Counts the elements, not the capacity: capacity a vector reserved but never wrote is not
// resident (the kernel maps pages on first touch), and copying every array once more to trim
// it would cost a page fault per 4 KiB. The load benchmark checks this against the process's
// resident-set growth.
template <class T>
std::size_t vecBytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}
std::size_t strBytes(const std::string& s) {
  // Short strings live inside the object (counted with it); long ones on the heap.
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}
}  // namespace

std::size_t Trace::residentBytes() const {
  std::size_t b = sizeof(Trace);
  b += vecBytes(ranks) + vecBytes(threads);
  auto events = [&](const RankTrace& r) {
    b += strBytes(r.name) + r.enter.residentBytes() + r.leave.residentBytes() +
         vecBytes(r.function) + vecBytes(r.depth) + r.messages.residentBytes() +
         r.collectives.residentBytes() +
         vecBytes(r.labels) + vecBytes(r.mpiCalls);
    for (const auto& l : r.labels) b += strBytes(l.text);
  };
  for (const auto& r : ranks) events(r);
  for (const auto& t : threads) events(t.events);
  b += vecBytes(functions);
  for (const auto& f : functions) b += strBytes(f.name) + strBytes(f.color);
  b += vecBytes(comms);
  for (const auto& c : comms) b += strBytes(c.name) + vecBytes(c.worldRanks);
  b += vecBytes(collectives) + vecBytes(regionFunctions) + vecBytes(steps);
  for (const auto& s : steps) b += vecBytes(s.ranks);
  b += vecBytes(warnings);
  for (const auto& w : warnings)
    b += strBytes(w.file) + strBytes(w.position) + strBytes(w.message);
  return b;
}

namespace {
template <class C>
bool diffVec(const C& a, const C& b, const std::string& what,
             std::string* why) {
  if (a == b) return true;
  if (why) {
    std::ostringstream o;
    o << what << ": ";
    if (a.size() != b.size()) {
      o << "sizes differ (" << a.size() << " vs " << b.size() << ")";
    } else {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) {
          o << "first difference at index " << i;
          break;
        }
    }
    *why = o.str();
  }
  return false;
}
}  // namespace

bool Trace::sameModel(const Trace& o, std::string* why) const {
  if (!diffVec(functions, o.functions, "functions", why)) {
    if (why) {
      for (std::size_t i = 0; i < std::min(functions.size(), o.functions.size()); ++i)
        if (!(functions[i] == o.functions[i])) {
          *why += " ('" + functions[i].name + "' color '" + functions[i].color + "' vs '" +
                  o.functions[i].name + "' color '" + o.functions[i].color + "')";
          break;
        }
    }
    return false;
  }
  if (!diffVec(comms, o.comms, "communicators", why)) return false;
  if (ranks.size() != o.ranks.size()) {
    if (why) *why = "rank counts differ";
    return false;
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankTrace& a = ranks[r];
    const RankTrace& b = o.ranks[r];
    std::string p = "rank " + std::to_string(r) + " ";
    if (a.name != b.name) {
      if (why) *why = p + "name '" + a.name + "' vs '" + b.name + "'";
      return false;
    }
    if (!diffVec(a.enter, b.enter, p + "enter times", why) ||
        !diffVec(a.leave, b.leave, p + "leave times", why) ||
        !diffVec(a.function, b.function, p + "functions", why) ||
        !diffVec(a.depth, b.depth, p + "depths", why) ||
        !diffVec(a.messages, b.messages, p + "messages", why) ||
        !diffVec(a.collectives, b.collectives, p + "collectives", why) ||
        !diffVec(a.labels, b.labels, p + "labels", why) ||
        !diffVec(a.mpiCalls, b.mpiCalls, p + "MPI call index", why))
      return false;
  }
  if (threads.size() != o.threads.size()) {
    if (why) *why = "thread counts differ (" + std::to_string(threads.size()) + " vs " + std::to_string(o.threads.size()) + ")";
    return false;
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const RankTrace& a = threads[i].events;
    const RankTrace& b = o.threads[i].events;
    std::string p = "thread " + std::to_string(i) + " ";
    if (threads[i].rank != o.threads[i].rank || a.name != b.name) {
      if (why) *why = p + "'" + a.name + "' of rank " + std::to_string(threads[i].rank) + " vs '" + b.name + "' of rank " +
                      std::to_string(o.threads[i].rank);
      return false;
    }
    if (!diffVec(a.enter, b.enter, p + "enter times", why) || !diffVec(a.leave, b.leave, p + "leave times", why) ||
        !diffVec(a.function, b.function, p + "functions", why) || !diffVec(a.depth, b.depth, p + "depths", why) ||
        !diffVec(a.labels, b.labels, p + "labels", why))
      return false;
  }
  if (!diffVec(collectives, o.collectives, "collective instances", why)) return false;
  if (!diffVec(regionFunctions, o.regionFunctions, "parallel region", why)) return false;
  if (!diffVec(steps, o.steps, "parallel steps", why)) return false;
  if (endTime != o.endTime) {
    if (why) *why = "end times differ";
    return false;
  }
  return true;
}

std::string eventId(std::uint32_t rank, std::uint32_t mpiIndex) {
  return std::to_string(rank) + ":" + std::to_string(mpiIndex);
}

bool parseEventId(const std::string& id, std::uint32_t& rank, std::uint32_t& mpiIndex) {
  auto colon = id.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= id.size()) return false;
  const char* b = id.data();
  const char* e = id.data() + id.size();
  auto r1 = std::from_chars(b, b + colon, rank);
  if (r1.ec != std::errc() || r1.ptr != b + colon) return false;
  auto r2 = std::from_chars(b + colon + 1, e, mpiIndex);
  return r2.ec == std::errc() && r2.ptr == e;
}

}  // namespace perwiz
