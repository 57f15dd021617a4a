// OTF (version 1) reader through libotf. Mapping (docs/trace-model.md, "OTF"):
//
// - processes without a parent are ranks, in increasing process id; processes with a parent
//   are threads (VampirTrace's OpenMP/Pthreads streams), each a timeline of its own under the
//   rank it descends from (Trace::threads): their states and markers are kept, their message
//   and collective records counted and reported. A trace of one process with threads and no
//   MPI function (a Pthreads or OpenMP program) has no MPI rank: every process is a thread. A sink that
//   keeps no threads (TraceSink::keepsThreads) gets the ranks only, as before.
// - functions: MPI calls when their group is "MPI" (VampirTrace) or the name has the MPI
//   prefix, user states otherwise; process groups are communicators (the group of all ranks
//   in rank order is MPI_COMM_WORLD).
// - SendMsg/RecvMsg are endpoints inside their calls. OTF 1 has no request records:
//   VampirTrace writes an Isend's send in the Isend and an Irecv's receive in the Wait that
//   completes it, which the builder makes half-recorded requests (trace.h). CollectiveOperation,
//   and Begin/EndCollectiveOperation pairs, are collective records; markers and comments are
//   point events with their text as label.
// - counters, file operations, RMA and unknown records are counted and reported.
// - event streams are read one at a time, plain or zlib-compressed, in chunks the library
//   parses from memory (otf_stream_text.h); definitions and markers through the library.
// - times: ticks of the timer resolution, converted exactly (128-bit) to ns from the trace's
//   start: DefTimeRange's minimum when the archive has one (PerWiz writes it), else the
//   earliest record (every stream's first time, the markers).
#include "perwiz/internal/otf_common.h"
#include "otf_stream_text.h"

#include "perwiz/mpi_ops.h"
#include "perwiz/trace_io.h"

#include <otf.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace fs = std::filesystem;

namespace perwiz {
namespace otf {

std::string nameStub(const std::string& path) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".otf") == 0) return path.substr(0, path.size() - 4);
  return path;
}

namespace {
bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// A hexadecimal number of at most 32 bits at line[i...]; advances i.
bool hexNumber(const std::string& line, std::size_t& i, std::size_t n, std::uint32_t& value) {
  if (i == n || !isHex(line[i])) return false;
  std::uint64_t v = 0;
  for (; i < n && isHex(line[i]); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i])));
    v = v * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    if (v > 0xFFFFFFFFu) return false;
  }
  value = static_cast<std::uint32_t>(v);
  return true;
}

// "stream:process[,process...]" in hexadecimal.
bool parseLine(const std::string& line, StreamEntry& entry) {
  std::size_t i = 0, n = line.size();
  while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ')) --n;
  entry.processes.clear();
  if (!hexNumber(line, i, n, entry.stream) || i == n || line[i] != ':') return false;
  ++i;
  for (;;) {
    std::uint32_t p = 0;
    if (!hexNumber(line, i, n, p)) return false;
    entry.processes.push_back(p);
    if (i == n) return true;
    if (line[i] != ',') return false;
    ++i;
  }
}

bool blank(const std::string& line) { return line.find_first_not_of(" \r\t") == std::string::npos; }

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}
}  // namespace

std::optional<std::vector<StreamEntry>> readMasterControl(const std::string& anchor, std::size_t* badLine) {
  std::vector<StreamEntry> out;
  std::ifstream in(anchor);
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (blank(line)) continue;
    StreamEntry e;
    if (!parseLine(line, e)) {
      if (badLine) *badLine = number;
      return std::nullopt;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string eventsFileName(const std::string& stub, std::uint32_t stream) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", stream);
  return stub + "." + buf + ".events";
}

StreamFile eventsFile(const std::string& stub, std::uint32_t stream) {
  StreamFile f;
  f.path = eventsFileName(stub, stream);
  std::error_code ec;
  if (fs::exists(f.path + ".z", ec)) {
    f.path += ".z";
    f.compressed = true;
  }
  f.exists = fs::is_regular_file(f.path, ec);
  f.bytes = f.exists ? fs::file_size(f.path, ec) : 0;
  if (ec) f.bytes = 0;
  return f;
}

bool looksLikeAnchor(const std::string& file, bool requireDefinitions) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.empty() || text.find('\0') != std::string::npos) return false;
  // Only whole lines (the last one may be cut by the 4 KiB window).
  std::size_t pos = 0, lines = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      if (text.size() == 4096) break;  // cut: not judged
      nl = text.size();
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (blank(line)) continue;
    StreamEntry e;
    if (!parseLine(line, e)) return false;
    ++lines;
  }
  if (lines == 0) return false;
  if (!requireDefinitions) return true;
  const std::string stub = nameStub(file);
  return exists(stub + ".0.def") || exists(stub + ".0.def.z");
}

std::uint64_t archiveBytes(const std::string& anchor, bool* compressed) {
  const std::string stub = nameStub(anchor);
  std::uint64_t total = 0;
  bool z = false;
  auto add = [&](const std::string& p) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) total += fs::file_size(p, ec);
  };
  if (const auto entries = readMasterControl(anchor))
    for (const StreamEntry& e : *entries) {
      const StreamFile f = eventsFile(stub, e.stream);
      total += f.bytes;
      z = z || f.compressed;
    }
  add(stub + ".0.def");
  add(stub + ".0.def.z");
  add(stub + ".0.marker");
  add(stub + ".0.marker.z");
  if (compressed) *compressed = z;
  return total;
}

}  // namespace otf

namespace {

using otf::nameStub;

// Finer clocks than 1 ps (10^12 ticks per second) are warned about (Reader::readDefinitions).
constexpr std::uint64_t kMaxTicksPerSecond = 1'000'000'000'000;

struct Process {
  std::string name;
  std::uint32_t parent = 0;
};

struct Group {
  std::string name;
  std::vector<std::uint32_t> procs;
};

struct CollDef {
  std::string name;
  std::uint32_t type = 0;
};

struct Definitions {
  std::uint64_t ticksPerSecond = 0;
  bool timerDefined = false;
  std::uint64_t timeRangeMin = 0;  // DefTimeRange: the trace's start (its time origin)
  bool timeRangeDefined = false;
  std::map<std::uint32_t, Process> processes;
  std::map<std::uint32_t, Group> groups;
  std::map<std::uint32_t, std::string> functionGroups;
  std::map<std::uint32_t, std::pair<std::string, std::uint32_t>> functions;  // name, group
  std::map<std::uint32_t, CollDef> collectives;
  std::map<std::uint32_t, std::string> markers;
};

MpiOp opOfCollective(const CollDef& d) {
  const MpiOp op = classifyMpiName(d.name);
  if (op != MpiOp::None && isCollective(op)) return op;
  switch (d.type) {
    case OTF_COLLECTIVE_TYPE_BARRIER: return MpiOp::Barrier;
    case OTF_COLLECTIVE_TYPE_ONE2ALL: return MpiOp::Bcast;
    case OTF_COLLECTIVE_TYPE_ALL2ONE: return MpiOp::Reduce;
    default: return MpiOp::Allreduce;
  }
}

class Reader {
 public:
  Reader(const std::string& path, TraceSink& sink, const LoadOptions& opts)
      : path_(path), stub_(nameStub(path)), sink_(sink), opts_(opts) {}

  ~Reader() {
    if (handlers_) OTF_HandlerArray_close(handlers_);
    if (reader_) OTF_Reader_close(reader_);
    if (manager_) OTF_FileManager_close(manager_);
  }

  void run() {
    checkFiles();
    manager_ = OTF_FileManager_open(64);
    if (!manager_) throw TraceError(path_, "cannot start the OTF library (file manager)");
    reader_ = OTF_Reader_open(stub_.c_str(), manager_);
    if (!reader_) throw TraceError(path_, "the OTF library cannot open this archive");
    readDefinitions();
    mapRanks();
    defineModel();
    readMarkers();
    readEvents();
    report();
  }

 private:
  // --- Files: a clear error before the library prints its own to stderr. ---
  void checkFiles() {
    if (!otf::looksLikeAnchor(path_, false)) throw TraceError(path_, "not an OTF master control file (X.otf)");
    if (!fs::exists(stub_ + ".0.def") && !fs::exists(stub_ + ".0.def.z"))
      throw TraceError(path_, "the definition file " + stub_ + ".0.def is missing");
    std::size_t badLine = 0;
    const auto entries = otf::readMasterControl(path_, &badLine);
    if (!entries)
      throw TraceError(path_, "line " + std::to_string(badLine) +
                                  " of the master control file is not 'stream:process[,process...]' in hexadecimal");
    for (const otf::StreamEntry& entry : *entries) {
      const otf::StreamFile f = otf::eventsFile(stub_, entry.stream);
      streams_.push_back(f);
      if (!f.exists)
        throw TraceError(path_, "the event stream file " + f.path + " (stream " + std::to_string(entry.stream) +
                                    " in the master control file) is missing");
      for (std::uint32_t proc : entry.processes) {
        mappedProcesses_.push_back(proc);
        // An upper bound of the process's records: no ASCII record is shorter than 4 bytes
        // ("E1 1" style, hexadecimal), zlib shrinks them at most about 10 times.
        recordBound_[proc] += (f.compressed ? f.bytes * 10 : f.bytes) / 4 + 1;
      }
    }
  }

  // --- Definitions ---
  // libotf stores every handler as OTF_FunctionPointer and calls it with the record's own
  // signature; the cast goes through void(*)(), the generic function pointer type.
  template <class F>
  void set(OTF_HandlerArray* h, std::uint32_t record, F* fn) {
    OTF_HandlerArray_setHandler(h, reinterpret_cast<OTF_FunctionPointer*>(reinterpret_cast<void (*)()>(fn)), record);
    OTF_HandlerArray_setFirstHandlerArg(h, this, record);
  }
  template <class F>
  void set(std::uint32_t record, F* fn) { set(handlers_, record, fn); }

  static Reader& self(void* p) { return *static_cast<Reader*>(p); }

  void readDefinitions() {
    handlers_ = OTF_HandlerArray_open();
    set(OTF_DEFTIMERRESOLUTION_RECORD, +[](void* u, std::uint32_t, std::uint64_t tps, OTF_KeyValueList*) {
      self(u).defs_.ticksPerSecond = tps;
      self(u).defs_.timerDefined = true;
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFTIMERANGE_RECORD, +[](void* u, std::uint32_t, std::uint64_t minTime, std::uint64_t, OTF_KeyValueList*) {
      self(u).defs_.timeRangeMin = minTime;
      self(u).defs_.timeRangeDefined = true;
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFPROCESS_RECORD, +[](void* u, std::uint32_t, std::uint32_t proc, const char* name,
                                    std::uint32_t parent, OTF_KeyValueList*) {
      self(u).defs_.processes[proc] = Process{name ? name : "", parent};
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFPROCESSGROUP_RECORD, +[](void* u, std::uint32_t, std::uint32_t id, const char* name,
                                         std::uint32_t n, const std::uint32_t* procs, OTF_KeyValueList*) {
      self(u).defs_.groups[id] = Group{name ? name : "", std::vector<std::uint32_t>(procs, procs + n)};
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFFUNCTIONGROUP_RECORD, +[](void* u, std::uint32_t, std::uint32_t id, const char* name, OTF_KeyValueList*) {
      self(u).defs_.functionGroups[id] = name ? name : "";
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFFUNCTION_RECORD, +[](void* u, std::uint32_t, std::uint32_t id, const char* name,
                                     std::uint32_t group, std::uint32_t, OTF_KeyValueList*) {
      self(u).defs_.functions[id] = {name ? name : "", group};
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFCOLLOP_RECORD, +[](void* u, std::uint32_t, std::uint32_t id, const char* name,
                                   std::uint32_t type, OTF_KeyValueList*) {
      self(u).defs_.collectives[id] = CollDef{name ? name : "", type};
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_DEFMARKER_RECORD, +[](void* u, std::uint32_t, std::uint32_t token, const char* name,
                                   std::uint32_t, OTF_KeyValueList*) {
      self(u).defs_.markers[token] = name ? name : "";
      return static_cast<int>(OTF_RETURN_OK);
    });
    if (OTF_Reader_readDefinitions(reader_, handlers_) == OTF_READ_ERROR)
      throw TraceError(path_, "cannot read the definitions in " + stub_ + ".0.def (truncated or corrupt?)");
  }

  // The rank a process descends from (through its parents), or -1.
  std::int32_t ancestorRank(std::uint32_t proc) const {
    for (std::size_t hops = 0; hops <= defs_.processes.size(); ++hops) {
      const auto r = rankOf_.find(proc);
      if (r != rankOf_.end()) return static_cast<std::int32_t>(r->second);
      const auto p = defs_.processes.find(proc);
      if (p == defs_.processes.end() || p->second.parent == 0) return -1;
      proc = p->second.parent;
    }
    return -1;  // a cycle of parents
  }

  bool anyMpiFunction() const {
    for (const auto& [id, f] : defs_.functions) {
      auto g = defs_.functionGroups.find(f.second);
      if ((g != defs_.functionGroups.end() && g->second == "MPI") || hasMpiPrefix(f.first)) return true;
    }
    return false;
  }

  void mapRanks() {
    std::vector<std::uint32_t> top, children;
    for (const auto& [id, p] : defs_.processes) {
      if (p.parent == 0) top.push_back(id);
      else children.push_back(id);
    }
    if (top.empty() && children.empty()) throw TraceError(path_, "the definitions name no process");
    keepThreads_ = sink_.keepsThreads();
    if (!keepThreads_) {
      threads_ = children.size();
      if (top.empty()) throw TraceError(path_, "the definitions name no process without a parent (an MPI rank)");
    } else if (!children.empty() && top.size() == 1 && !anyMpiFunction()) {
      // One process with threads and no MPI: a threaded program without MPI; its processes
      // are all threads. (Several processes without MPI stay ranks.)
      children.insert(children.end(), top.begin(), top.end());
      std::sort(children.begin(), children.end());
      top.clear();
      noMpi_ = true;
    }
    std::sort(mappedProcesses_.begin(), mappedProcesses_.end());
    // A process the master control file gives no stream recorded nothing (otfprint and ViTE
    // read such traces): it stays a rank, with no events, and the warning names it.
    for (std::uint32_t id : top)
      if (!std::binary_search(mappedProcesses_.begin(), mappedProcesses_.end(), id))
        streamless_.push_back("process " + std::to_string(id) + " ('" + defs_.processes[id].name + "')");
    for (std::uint32_t r = 0; r < top.size(); ++r) rankOf_[top[r]] = r;
    ranks_ = static_cast<std::uint32_t>(top.size());
    rankProcess_ = top;
    if (keepThreads_) {
      for (std::uint32_t id : children) {
        threadOf_[id] = static_cast<std::uint32_t>(threadProcess_.size());
        threadProcess_.push_back(id);
      }
    }
    stacks_.assign(ranks_ + threadProcess_.size(), {});
    if (!defs_.timerDefined || defs_.ticksPerSecond == 0) {
      defs_.ticksPerSecond = 1'000'000'000;
      warn("the archive defines no timer resolution; ticks are taken as nanoseconds");
    } else if (defs_.ticksPerSecond > kMaxTicksPerSecond) {
      // A resolution finer than 1 ps: times closer than 1 ns fall together, and at 2^64 - 1
      // ticks/s every event of a real run lands at 0.
      warn("the timer resolution of " + std::to_string(defs_.ticksPerSecond) +
           " ticks per second is finer than 1 ps (implausible for a tracer's clock): events less than 1 ns apart "
           "get the same time");
    }
  }

  std::int32_t rankOrMinus1(std::uint32_t proc) const {
    auto it = rankOf_.find(proc);
    return it == rankOf_.end() ? -1 : static_cast<std::int32_t>(it->second);
  }

  void defineModel() {
    TraceHeader h;
    h.ranks = ranks_;
    for (std::uint32_t p : rankProcess_) h.rankNames.push_back(defs_.processes[p].name);
    for (std::uint32_t p : threadProcess_) {
      const std::string& name = defs_.processes[p].name;
      h.threads.push_back({name.empty() ? "process " + std::to_string(p) : name, ancestorRank(p)});
    }
    sink_.begin(h);
    // Storage sized once from the files (only address space until written).
    for (std::uint32_t r = 0; r < ranks_; ++r) sink_.expectRecords(r, recordBound_[rankProcess_[r]]);
    for (const auto& [id, f] : defs_.functions) {
      Function fn;
      fn.name = f.first;
      auto g = defs_.functionGroups.find(f.second);
      const bool mpiGroup = g != defs_.functionGroups.end() && g->second == "MPI";
      if (mpiGroup || hasMpiPrefix(fn.name)) {
        fn.kind = EventKind::MpiCall;
        fn.op = classifyMpiName(fn.name);
        if (fn.op == MpiOp::None) fn.op = MpiOp::OtherMpi;
      }
      functionIndex_[id] = sink_.defineFunction(fn);
    }
    for (const auto& [token, name] : defs_.markers) {
      Function fn;
      fn.name = name;
      fn.kind = EventKind::Point;
      markerIndex_[token] = sink_.defineFunction(fn);
    }
    // Communicators: the group of every rank in rank order is WORLD (index 0).
    for (const auto& [id, g] : defs_.groups) {
      Communicator c;
      c.name = g.name;
      bool ok = true;
      for (std::uint32_t p : g.procs) {
        const std::int32_t r = rankOrMinus1(p);
        if (r < 0) ok = false;
        else c.worldRanks.push_back(r);
      }
      if (g.procs.empty() && ranks_ > 0) {
        // A group without members: a communicator of each caller alone (MPI_COMM_SELF; how
        // PerWiz's writer stores one, as OTF2's empty COMM_GROUP).
        c.isSelf = true;
        commIndex_[id] = sink_.defineComm(c);
        continue;
      }
      if (!ok || c.worldRanks.empty()) {
        ++nonRankGroups_;
        continue;
      }
      bool world = c.worldRanks.size() == ranks_;
      for (std::uint32_t r = 0; world && r < ranks_; ++r) world = c.worldRanks[r] == static_cast<std::int32_t>(r);
      commIndex_[id] = world ? 0 : sink_.defineComm(c);
    }
  }

  std::uint32_t commOf(std::uint32_t group) {
    auto it = commIndex_.find(group);
    if (it != commIndex_.end()) return it->second;
    if (group != 0) ++unknownGroup_;
    return 0;
  }

  // --- Times ---
  TimeNs ns(std::uint64_t ticks) const {
    // Exact: (ticks - origin) * 10^9 / resolution in 128 bits, truncated toward zero.
    const __int128 d = static_cast<__int128>(ticks) - static_cast<__int128>(origin_);
    const __int128 v = d * 1'000'000'000 / static_cast<__int128>(defs_.ticksPerSecond);
    if (v > std::numeric_limits<TimeNs>::max() || v < std::numeric_limits<TimeNs>::min())
      throw TraceError(path_, "a time of " + std::to_string(ticks) + " ticks is beyond the model's range");
    return static_cast<TimeNs>(v);
  }

  // Markers live in their own file; they join the rank's records in time order.
  struct PendingMarker {
    std::uint64_t ticks;
    std::uint32_t fn;
    std::string text;
  };
  // The marker file (plain or compressed), looked up once; `exists` false when there is none.
  otf::StreamFile markerFile() const {
    otf::StreamFile f;
    for (const char* suffix : {".0.marker", ".0.marker.z"}) {
      std::error_code ec;
      const std::string p = stub_ + suffix;
      if (!fs::exists(p, ec)) continue;
      const std::uint64_t bytes = fs::file_size(p, ec);
      if (ec) continue;  // not a regular file: libotf's reading says what is wrong
      f.path = p;
      f.compressed = std::string_view(suffix).ends_with(".z");
      f.exists = true;
      f.bytes = bytes;
      break;
    }
    return f;
  }
  void readMarkers() {
    const otf::StreamFile file = markerFile();
    // An empty marker file (cut to nothing): said so, and the rest read (libotf fails on it).
    if (file.exists && file.bytes == 0) {
      warn("the marker file " + file.path + " is empty: no marker read (cut short?)");
      return;
    }
    OTF_HandlerArray* h = OTF_HandlerArray_open();
    set(h, OTF_MARKER_RECORD, +[](void* u, std::uint64_t time, std::uint32_t proc, std::uint32_t token,
                                  const char* text, OTF_KeyValueList*) {
      Reader& r = self(u);
      ++r.records_;  // a record of the file, modelled or not
      ++r.markerFileRecords_;
      const std::int64_t loc = r.locationOf(proc);
      auto fn = r.markerIndex_.find(token);
      if (loc < 0 || fn == r.markerIndex_.end()) {
        ++r.skippedMarkers_;
        return static_cast<int>(OTF_RETURN_OK);
      }
      r.markers_[static_cast<std::uint32_t>(loc)].push_back({time, fn->second, text ? text : ""});
      return static_cast<int>(OTF_RETURN_OK);
    });
    // Marker definitions live in the marker file too.
    set(h, OTF_DEFMARKER_RECORD, +[](void* u, std::uint32_t, std::uint32_t token, const char* name, std::uint32_t,
                                     OTF_KeyValueList*) {
      Reader& r = self(u);
      ++r.markerFileRecords_;
      Function fn;
      fn.name = name ? name : "";
      fn.kind = EventKind::Point;
      r.markerIndex_[token] = r.sink_.defineFunction(fn);
      return static_cast<int>(OTF_RETURN_OK);
    });
    const std::uint64_t n = OTF_Reader_readMarkers(reader_, h);
    OTF_HandlerArray_close(h);
    if (n == OTF_READ_ERROR) throw TraceError(path_, "cannot read the markers (" + stub_ + ".0.marker)");
    checkMarkerFile(file);
    markerCursor_.assign(stacks_.size(), 0);
    for (auto& [r, list] : markers_) {
      std::stable_sort(list.begin(), list.end(), [](const PendingMarker& a, const PendingMarker& b) { return a.ticks < b.ticks; });
      if (!list.empty()) minMarkerTicks_ = std::min(minMarkerTicks_, list.front().ticks);
    }
  }
  // libotf reads what it can of the marker file and says nothing of the rest: an empty file,
  // a cut last line, a damaged record dropped the markers silently. Its
  // records are counted here (lines that are neither blank nor a key-value line, which belongs
  // to the next record) and compared with what libotf delivered.
  void checkMarkerFile(const otf::StreamFile& f) {
    if (!f.exists || f.bytes == 0) return;  // empty: readMarkers said so
    std::uint64_t lines = 0;
    otf::StreamText text(path_, f);
    for (std::string_view chunk = text.next(); !chunk.empty(); chunk = text.next()) {
      std::size_t pos = 0;
      while (pos < chunk.size()) {
        std::size_t nl = chunk.find('\n', pos);
        if (nl == std::string_view::npos) nl = chunk.size();
        const std::string_view line = chunk.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos || line.front() == 'K') continue;
        ++lines;
      }
    }
    if (text.droppedTail() > 0)
      warn("the marker file " + f.path + " ends inside a record (cut short?): that record is dropped");
    if (markerFileRecords_ < lines)
      warn("the marker file " + f.path + ": " + std::to_string(lines - markerFileRecords_) + " of its " +
           std::to_string(lines) + " records could not be read (damaged?) and are dropped");
  }

  // Delivers a location's markers up to `ticks` (all with `all`).
  void flushMarkers(std::uint32_t loc, std::uint64_t ticks, bool all = false) {
    auto it = markers_.find(loc);
    if (it == markers_.end()) return;
    auto& list = it->second;
    std::size_t& c = markerCursor_[loc];
    while (c < list.size() && (all || list[c].ticks <= ticks)) {
      pointAt(loc, ns(list[c].ticks), list[c].fn, list[c].text);
      ++c;
    }
  }

  // Locations: ranks [0, ranks_), then the threads (threadProcess_); -1: neither.
  std::int64_t locationOf(std::uint32_t proc) const {
    if (auto it = rankOf_.find(proc); it != rankOf_.end()) return it->second;
    if (auto it = threadOf_.find(proc); it != threadOf_.end()) return std::int64_t{ranks_} + it->second;
    return -1;
  }
  void enterAt(std::uint32_t loc, TimeNs t, std::uint32_t fn) {
    if (loc < ranks_) sink_.enter(loc, t, fn);
    else sink_.threadEnter(loc - ranks_, t, fn);
  }
  void leaveAt(std::uint32_t loc, TimeNs t, std::uint32_t fn) {
    if (loc < ranks_) sink_.leave(loc, t, fn);
    else sink_.threadLeave(loc - ranks_, t, fn);
  }
  void pointAt(std::uint32_t loc, TimeNs t, std::uint32_t fn, std::string_view text) {
    if (loc < ranks_) sink_.point(loc, t, fn, text);
    else sink_.threadPoint(loc - ranks_, t, fn, text);
  }

  // A record of process `proc` at `ticks`: its location (after its markers), or -1 if it is
  // unknown or a thread the sink does not keep (counted).
  std::int64_t locationAt(std::uint64_t ticks, std::uint32_t proc) {
    ++records_;  // a record of the file, modelled or not
    const std::int64_t loc = locationOf(proc);
    if (loc < 0) {
      ++threadRecords_;
      return -1;
    }
    if (!markers_.empty()) flushMarkers(static_cast<std::uint32_t>(loc), ticks);
    return loc;
  }
  // The same for records only a rank holds (messages, collectives): -1 for a thread's (counted).
  std::int32_t at(std::uint64_t ticks, std::uint32_t proc) {
    const std::int64_t loc = locationAt(ticks, proc);
    if (loc >= std::int64_t{ranks_}) {
      ++threadMpiRecords_;
      return -1;
    }
    return static_cast<std::int32_t>(loc);
  }

  // The trace's start: DefTimeRange's minimum when the archive has one, else its earliest
  // record (every stream's first time, the markers).
  std::uint64_t origin() const {
    if (defs_.timeRangeDefined) return defs_.timeRangeMin;
    std::uint64_t first = minMarkerTicks_;
    for (const otf::StreamFile& f : streams_) {
      std::uint64_t t = 0;
      if (otf::firstStreamTime(path_, f, t)) first = std::min(first, t);
    }
    return first == std::numeric_limits<std::uint64_t>::max() ? 0 : first;
  }

  // A time line (lowercase hexadecimal alone on its line, OTF's short format) beyond 64 bits:
  // libotf wraps 2^72 to 0 and takes 2^64 - 1 for an error and drops the record, so either
  // would move or lose events silently. Refused, naming the file and byte.
  // One pass over the chunk's lines, beside libotf's own parse.
  void checkTimes(std::string_view chunk, std::uint64_t offset, const otf::StreamFile& file) const {
    std::size_t pos = 0;
    while (pos < chunk.size()) {
      std::size_t nl = chunk.find('\n', pos);
      if (nl == std::string_view::npos) nl = chunk.size();
      const std::string_view line = chunk.substr(pos, nl - pos);
      const std::size_t start = pos;
      pos = nl + 1;
      if (line.size() < 16) continue;  // at most 15 hex digits: below 2^60
      std::size_t digits = 0, lead = 0;
      bool hex = true, leading = true;
      for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        const bool d = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        if (!d) {
          hex = c == '\r' && i + 1 == line.size();  // a CR-LF line end
          break;
        }
        if (leading && c == '0') ++lead;
        else leading = false;
        ++digits;
      }
      if (!hex || digits == 0) continue;
      const std::size_t significant = digits - lead;
      const bool allF = significant == 16 && line.substr(lead, 16).find_first_not_of('f') == std::string_view::npos;
      if (significant > 16 || allF)
        throw TraceError(path_, "a time at byte " + std::to_string(offset + start) + " of " + file.path +
                                    (file.compressed ? " (inflated)" : "") + " is beyond OTF's 64-bit range (" +
                                    std::string(line.substr(0, 40)) + (line.size() > 40 ? "..." : "") + ")");
    }
  }

  void readEvents() {
    OTF_HandlerArray_close(handlers_);
    handlers_ = OTF_HandlerArray_open();
    setRegionHandlers();
    setCommunicationHandlers();
    setSkippedHandlers();
    readStreams();
    for (std::uint32_t loc = 0; loc < stacks_.size(); ++loc) flushMarkers(loc, 0, true);
    // Records: every one a handler saw (the library's own count takes blank lines as records).
    for (const auto& [kind, n] : skipped_) records_ += n;
    sink_.addSourceRecords(records_);
  }

  // Enter, leave and comment records: the functions' stacks of each location.
  void setRegionHandlers() {
    set(OTF_ENTER_RECORD, +[](void* u, std::uint64_t t, std::uint32_t fn, std::uint32_t proc, std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int64_t loc = r.locationAt(t, proc);
      if (loc >= 0) {
        const std::uint32_t f = r.function(fn);
        r.stacks_[static_cast<std::uint32_t>(loc)].push_back(f);
        r.enterAt(static_cast<std::uint32_t>(loc), r.ns(t), f);
      }
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_LEAVE_RECORD, +[](void* u, std::uint64_t t, std::uint32_t fn, std::uint32_t proc, std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int64_t loc = r.locationAt(t, proc);
      if (loc < 0) return static_cast<int>(OTF_RETURN_OK);
      // Leave with function 0 means "the innermost open one" (OTF allows it).
      auto& stack = r.stacks_[static_cast<std::uint32_t>(loc)];
      std::uint32_t f = kNone32;
      if (fn == 0) {
        if (stack.empty()) {
          ++r.strayLeaves_;
          return static_cast<int>(OTF_RETURN_OK);
        }
        f = stack.back();
      } else {
        f = r.function(fn);
      }
      auto it = std::find(stack.rbegin(), stack.rend(), f);
      if (it != stack.rend()) stack.erase(std::next(it).base());
      r.leaveAt(static_cast<std::uint32_t>(loc), r.ns(t), f);
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(
        OTF_EVENTCOMMENT_RECORD,
        +[](void* u, std::uint64_t t, std::uint32_t proc, const char* text, OTF_KeyValueList*) {
          Reader& r = self(u);
          const std::int64_t loc = r.locationAt(t, proc);
          if (loc >= 0) r.pointAt(static_cast<std::uint32_t>(loc), r.ns(t), r.commentFunction(), text ? text : "");
          return static_cast<int>(OTF_RETURN_OK);
        });
  }

  // Messages and collectives (OTF 1's CollOp, and its Begin/EndCollOp pairs).
  void setCommunicationHandlers() {
    set(OTF_SEND_RECORD, +[](void* u, std::uint64_t t, std::uint32_t sender, std::uint32_t receiver, std::uint32_t group,
                             std::uint32_t tag, std::uint32_t length, std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int32_t rank = r.at(t, sender);
      if (rank < 0) return static_cast<int>(OTF_RETURN_OK);
      // OTF 1 has no request records: a SendMsg inside MPI_Isend or MPI_Start is the post of a
      // half-recorded request, which the builder makes of it (trace.h, MessageEndpoint).
      r.sink_.send(static_cast<std::uint32_t>(rank), r.ns(t), r.rankOrMinus1(receiver), r.commOf(group),
                   static_cast<std::int32_t>(tag), length, 0);
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_RECEIVE_RECORD, +[](void* u, std::uint64_t t, std::uint32_t receiver, std::uint32_t sender, std::uint32_t group,
                                std::uint32_t tag, std::uint32_t length, std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int32_t rank = r.at(t, receiver);
      if (rank < 0) return static_cast<int>(OTF_RETURN_OK);
      // A RecvMsg inside MPI_Wait* or MPI_Test* completes a half-recorded request (its
      // MPI_Irecv holds no record).
      r.sink_.recv(static_cast<std::uint32_t>(rank), r.ns(t), r.rankOrMinus1(sender), r.commOf(group),
                   static_cast<std::int32_t>(tag), length, 0);
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_COLLOP_RECORD, +[](void* u, std::uint64_t t, std::uint32_t proc, std::uint32_t coll, std::uint32_t group,
                               std::uint32_t root, std::uint32_t sent, std::uint32_t received, std::uint64_t,
                               std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int32_t rank = r.at(t, proc);
      if (rank >= 0)
        r.sink_.collective(static_cast<std::uint32_t>(rank), r.ns(t), r.collectiveOp(coll), r.commOf(group),
                           r.rankOrMinus1(root), sent, received);
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_BEGINCOLLOP_RECORD, +[](void* u, std::uint64_t t, std::uint32_t proc, std::uint32_t coll, std::uint64_t id,
                                    std::uint32_t group, std::uint32_t root, std::uint64_t sent, std::uint64_t received,
                                    std::uint32_t, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int32_t rank = r.at(t, proc);
      if (rank >= 0)
        r.openCollectives_[{static_cast<std::uint32_t>(rank), id}] =
            OpenCollective{r.collectiveOp(coll), r.commOf(group), r.rankOrMinus1(root), sent, received};
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_ENDCOLLOP_RECORD, +[](void* u, std::uint64_t t, std::uint32_t proc, std::uint64_t id, OTF_KeyValueList*) {
      Reader& r = self(u);
      const std::int32_t rank = r.at(t, proc);
      if (rank < 0) return static_cast<int>(OTF_RETURN_OK);
      auto it = r.openCollectives_.find({static_cast<std::uint32_t>(rank), id});
      if (it == r.openCollectives_.end()) {
        ++r.unmatchedCollectiveEnds_;
        return static_cast<int>(OTF_RETURN_OK);
      }
      const OpenCollective c = it->second;
      r.openCollectives_.erase(it);
      r.sink_.collective(static_cast<std::uint32_t>(rank), r.ns(t), c.op, c.comm, c.root, c.sent, c.received);
      return static_cast<int>(OTF_RETURN_OK);
    });
  }

  // Records the model does not hold: counted per kind and reported.
  void setSkippedHandlers() {
    set(OTF_COUNTER_RECORD, +[](void* u, std::uint64_t, std::uint32_t, std::uint32_t, std::uint64_t, OTF_KeyValueList*) {
      ++self(u).skipped_["counter"];
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_FILEOPERATION_RECORD, +[](void* u, std::uint64_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t,
                                      std::uint64_t, std::uint64_t, std::uint32_t, OTF_KeyValueList*) {
      ++self(u).skipped_["file operation"];
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_BEGINFILEOP_RECORD, +[](void* u, std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t, OTF_KeyValueList*) {
      ++self(u).skipped_["file operation"];
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_ENDFILEOP_RECORD, +[](void* u, std::uint64_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                                  std::uint32_t, std::uint64_t, std::uint32_t, OTF_KeyValueList*) {
      ++self(u).skipped_["file operation"];
      return static_cast<int>(OTF_RETURN_OK);
    });
    auto rma = +[](void* u, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                   std::uint64_t, std::uint32_t, OTF_KeyValueList*) {
      ++self(u).skipped_["RMA"];
      return static_cast<int>(OTF_RETURN_OK);
    };
    set(OTF_RMAPUT_RECORD, rma);
    set(OTF_RMAPUTRE_RECORD, rma);
    set(OTF_RMAGET_RECORD, rma);
    set(OTF_RMAEND_RECORD, +[](void* u, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                               std::uint32_t, OTF_KeyValueList*) {
      ++self(u).skipped_["RMA"];
      return static_cast<int>(OTF_RETURN_OK);
    });
    set(OTF_UNKNOWN_RECORD, +[](void* u, std::uint64_t, std::uint32_t, const char* record) {
      // A line of blanks (libotf takes an empty one itself; this one has a CR or tabs) is no record.
      const char* p = record;
      while (p && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
      if (p && (*p == '\n' || *p == '\0')) return static_cast<int>(OTF_RETURN_OK);
      ++self(u).skipped_["unknown"];
      return static_cast<int>(OTF_RETURN_OK);
    });
  }

  // One stream at a time, each in chunks of whole records parsed from memory by the
  // library (otf_stream_text.h): plain and zlib-compressed streams of any size alike.
  void readStreams() {
    origin_ = origin();
    std::uint64_t totalBytes = 0, doneBytes = 0;
    for (const otf::StreamFile& f : streams_) totalBytes += f.bytes;
    OTF_RStream* rs = OTF_RStream_open(stub_.c_str(), 0, manager_);
    if (!rs) throw TraceError(path_, "cannot start the OTF library (stream reader)");
    struct StreamCloser {
      OTF_RStream* s;
      ~StreamCloser() {
        if (s->eventBuffer) OTF_RBuffer_close(s->eventBuffer);
        s->eventBuffer = nullptr;
        OTF_RStream_close(s);
      }
    } closer{rs};
    for (const otf::StreamFile& file : streams_) {
      otf::StreamText text(path_, file);
      std::uint64_t time = ~std::uint64_t{0};
      std::uint32_t process = ~std::uint32_t{0};
      for (std::string_view chunk = text.next(); !chunk.empty(); chunk = text.next()) {
        checkTimes(chunk, text.chunkOffset(), file);
        OTF_RBuffer* b = OTF_RBuffer_open_with_external_buffer(static_cast<std::uint32_t>(chunk.size()), chunk.data(), 0);
        // The library's buffer holds the whole chunk: one copy, and its position is the chunk's.
        if (!b || OTF_RBuffer_setSize(b, std::max<std::size_t>(chunk.size() + 1, 4096)) != 1) {
          if (b) OTF_RBuffer_close(b);
          throw TraceError(path_, "cannot start the OTF library (record buffer)");
        }
        b->time = time;  // the stream's state goes on from the last chunk
        b->process = process;
        rs->eventBuffer = b;
        rs->recordLimit = OTF_READ_MAXRECORDS;
        const std::uint64_t n = OTF_RStream_readEvents(rs, handlers_);
        if (n == OTF_READ_ERROR)
          throw TraceError(path_, "record at byte " + std::to_string(text.chunkOffset() + b->pos) + " of " +
                                      file.path + (file.compressed ? " (inflated)" : "") +
                                      " cannot be parsed (a truncated or corrupt stream?)");
        time = b->time;
        process = b->process;
        rs->eventBuffer = nullptr;
        OTF_RBuffer_close(b);
        if (opts_.progress && totalBytes > 0 &&
            !opts_.progress(std::clamp(double(doneBytes + text.fileBytesRead()) / double(totalBytes), 0.0, 1.0)))
          throw TraceError(path_, "cancelled");
      }
      if (text.droppedTail() > 0) cutStreams_.push_back(file.path);
      doneBytes += file.bytes;
    }
  }

  std::uint32_t function(std::uint32_t id) {
    auto it = functionIndex_.find(id);
    if (it != functionIndex_.end()) return it->second;
    // An event naming an undefined function: keep it under a name that says so.
    Function fn;
    fn.name = "OTF function " + std::to_string(id);
    const std::uint32_t idx = sink_.defineFunction(fn);
    functionIndex_[id] = idx;
    ++undefinedFunctions_;
    return idx;
  }

  MpiOp collectiveOp(std::uint32_t id) {
    auto it = defs_.collectives.find(id);
    if (it == defs_.collectives.end()) {
      ++undefinedCollectives_;
      return MpiOp::Allreduce;
    }
    return opOfCollective(it->second);
  }

  std::uint32_t commentFunction() {
    if (commentFn_ == kNone32) {
      Function fn;
      fn.name = "OTF comment";
      fn.kind = EventKind::Point;
      commentFn_ = sink_.defineFunction(fn);
    }
    return commentFn_;
  }

  void warn(const std::string& message) { sink_.warn(Diagnostic{path_, -1, "", message}); }

  void report() {
    if (!streamless_.empty()) {
      std::string names;
      for (std::size_t i = 0; i < streamless_.size() && i < 5; ++i) names += (i ? ", " : "") + streamless_[i];
      if (streamless_.size() > 5) names += ", ...";
      warn(std::to_string(streamless_.size()) + " process(es) defined but without an event stream in the master "
           "control file (" + names + "): their ranks have no events");
    }
    for (const std::string& f : cutStreams_)
      warn("the last line of " + f + " has no line end (a cut stream?); that partial record was dropped");
    if (threads_ > 0)
      warn(std::to_string(threads_) + " thread process(es) (OTF processes with a parent) and their " +
           std::to_string(threadRecords_) + " record(s) are not written: this output keeps one timeline per MPI rank");
    else if (threadRecords_ > 0)
      warn(std::to_string(threadRecords_) + " record(s) of undefined processes ignored");
    if (noMpi_)
      warn("no MPI function is defined: the " + std::to_string(threadProcess_.size()) +
           " processes are threads of a program without MPI, shown as measured (no MPI rank to predict)");
    if (threadMpiRecords_ > 0)
      warn(std::to_string(threadMpiRecords_) + " message or collective record(s) of threads are not modelled: "
           "the replay predicts MPI ranks, and threads are shown as measured");
    for (const auto& [kind, n] : skipped_) {
      if (kind == "unknown")
        warn(std::to_string(n) + " record(s) the OTF library could not parse (a truncated or corrupt stream file?) were skipped");
      else
        warn(std::to_string(n) + " " + kind + " record(s) are not part of the model and were skipped");
    }
    if (nonRankGroups_ > 0)
      warn(std::to_string(nonRankGroups_) + " process group(s) name threads or undefined processes; not used as communicators");
    if (unknownGroup_ > 0)
      warn(std::to_string(unknownGroup_) + " record(s) name an undefined process group; taken as MPI_COMM_WORLD");
    if (undefinedFunctions_ > 0)
      warn(std::to_string(undefinedFunctions_) + " function(s) used by events but not defined");
    if (undefinedCollectives_ > 0)
      warn(std::to_string(undefinedCollectives_) + " collective record(s) name an undefined collective operation; taken as Allreduce");
    if (!openCollectives_.empty())
      warn(std::to_string(openCollectives_.size()) + " BeginCollectiveOperation record(s) without an end; dropped");
    if (unmatchedCollectiveEnds_ > 0)
      warn(std::to_string(unmatchedCollectiveEnds_) + " EndCollectiveOperation record(s) without a begin; dropped");
    if (strayLeaves_ > 0)
      warn(std::to_string(strayLeaves_) + " Leave record(s) without function and with nothing open; ignored");
    if (skippedMarkers_ > 0)
      warn(std::to_string(skippedMarkers_) + " marker(s) of threads or with undefined tokens skipped");
  }

  struct OpenCollective {
    MpiOp op;
    std::uint32_t comm;
    std::int32_t root;
    std::uint64_t sent, received;
  };

  std::string path_, stub_;
  TraceSink& sink_;
  const LoadOptions& opts_;
  OTF_FileManager* manager_ = nullptr;
  OTF_Reader* reader_ = nullptr;
  OTF_HandlerArray* handlers_ = nullptr;
  Definitions defs_;
  std::vector<otf::StreamFile> streams_;  // the master control file's streams, in its order
  std::uint64_t markerFileRecords_ = 0;  // marker and marker definition records libotf gave
  std::vector<std::string> cutStreams_;  // streams whose last line had no line end (dropped)
  std::vector<std::string> streamless_;  // processes defined without an event stream
  std::vector<std::uint32_t> mappedProcesses_, rankProcess_;
  std::unordered_map<std::uint32_t, std::uint32_t> rankOf_, threadOf_, functionIndex_, markerIndex_, commIndex_;
  std::vector<std::uint32_t> threadProcess_;  // thread i's process (kept when the sink keeps threads)
  bool keepThreads_ = false, noMpi_ = false;
  std::uint64_t threadMpiRecords_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> recordBound_;  // per process, from its stream's size
  std::uint32_t ranks_ = 0;
  std::uint64_t origin_ = 0;
  std::uint64_t minMarkerTicks_ = std::numeric_limits<std::uint64_t>::max();
  std::map<std::uint32_t, std::vector<PendingMarker>> markers_;
  std::vector<std::size_t> markerCursor_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, OpenCollective> openCollectives_;
  std::map<std::string, std::uint64_t> skipped_;
  std::uint64_t records_ = 0, threadRecords_ = 0, threads_ = 0, nonRankGroups_ = 0, unknownGroup_ = 0;
  std::uint64_t undefinedFunctions_ = 0, undefinedCollectives_ = 0, unmatchedCollectiveEnds_ = 0, skippedMarkers_ = 0;
  std::uint64_t strayLeaves_ = 0;
  std::vector<std::vector<std::uint32_t>> stacks_;  // per location: functions entered and not left
  std::uint32_t commentFn_ = kNone32;
};

}  // namespace

void readOtf(const std::string& path, TraceSink& sink, const LoadOptions& opts) {
  Reader r(path, sink, opts);
  r.run();
}

}  // namespace perwiz
