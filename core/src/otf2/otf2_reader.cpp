// readOtf2: streams an OTF2 archive into a TraceSink through libotf2's global (time-merged)
// event reader.
//
// Order of work, which libotf2 requires: global definitions; then, for every location, its
// local definitions (they carry the clock-offset corrections and the local->global id mapping
// tables the event reader applies) and an event reader; then the global event reader, read in
// batches so progress can be reported and loading cancelled.
//
// Colour convention: a region whose description starts with "color:" has the rest of the
// description as its Function::color. OTF2 has no colour field; our writer stores colours
// there so that they survive a round trip.
#include "otf2_anchor.h"
#include "otf2_def_check.h"
#include "otf2_common.h"
#include "otf2_definitions.h"
#include "otf2_events.h"
#include "perwiz/trace_io.h"

#include <otf2/otf2.h>

#include "perwiz/pipelined_sink.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

namespace fs = std::filesystem;

namespace perwiz {

namespace {

constexpr std::uint64_t kBatchEvents = 1u << 16;  // ~15 ms of reading: keeps a UI responsive
constexpr std::string_view kColorPrefix = "color:";

struct CloseReader {
  void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
};
using ReaderPtr = std::unique_ptr<OTF2_Reader, CloseReader>;

// The size of a file the archive must hold. libotf2 opens these itself, so anything but a
// regular file (a FIFO would block it, /dev/zero never ends) is refused here first.
std::uint64_t requireFile(const std::string& path, const fs::path& file, const char* what) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st))
    throw TraceError(path, std::string("missing ") + what + " " + file.string());
  if (!fs::is_regular_file(st))
    throw TraceError(path, std::string(what) + " " + file.string() + ": not a regular file");
  const std::uintmax_t size = fs::file_size(file, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

// Every OTF2 event record takes at least 2 bytes of its event file (its type byte and its
// length byte; libotf2's writer emits both even for a record without fields).
constexpr std::uint64_t kMinEventRecordBytes = 2;

Function functionOfRegion(const otf2::GlobalDefinitions& defs, OTF2_RegionRef id,
                          const otf2::GlobalDefinitions::Region& r) {
  Function f;
  f.name = defs.str(r.name);
  if (f.name.empty()) f.name = "region " + std::to_string(id);
  // The paradigm says which regions are MPI calls; but EZTrace 2.0 defines its MPI regions
  // (MPI_Send, ...) with another paradigm, and a region with the MPI_ prefix is an MPI call
  // whoever wrote it (what the ALOG reader concludes from the same name, too).
  if (r.paradigm == OTF2_PARADIGM_MPI || hasMpiPrefix(f.name)) {
    f.kind = EventKind::MpiCall;
    f.op = classifyMpiName(f.name);
    if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
  } else {
    f.kind = EventKind::UserState;
  }
  const std::string& description = defs.str(r.description);
  if (description.starts_with(kColorPrefix)) f.color = description.substr(kColorPrefix.size());
  return f;
}

void defineFunctions(const otf2::GlobalDefinitions& defs, TraceSink& sink,
                     otf2::EventHandler& events) {
  for (const auto& d : defs.functionOrder) {
    if (d.isParameter) {
      Function f;
      f.name = defs.str(defs.parameters.at(d.id).name);
      if (f.name.empty()) f.name = "parameter " + std::to_string(d.id);
      f.kind = EventKind::Point;
      events.mapParameter(d.id, sink.defineFunction(f));
    } else {
      events.mapRegion(d.id, sink.defineFunction(functionOfRegion(defs, d.id, defs.regions.at(d.id))));
    }
  }
}

void defineComms(const otf2::GlobalDefinitions& defs, const otf2::RankLayout& ranks,
                 TraceSink& sink, otf2::EventHandler& events) {
  std::vector<otf2::ResolvedComm> comms = otf2::resolveComms(defs, ranks);
  const int world = otf2::findWorld(comms, static_cast<std::uint32_t>(ranks.rankLocation.size()));
  for (std::size_t i = 0; i < comms.size(); ++i) {
    auto& c = comms[i];
    if (!c.comm) {
      events.markUnusableComm(c.id, c.problem);
      continue;
    }
    otf2::EventHandler::CommInfo info;
    info.isSelf = c.comm->isSelf;
    info.worldRanks = c.comm->worldRanks;
    info.model = static_cast<int>(i) == world ? 0 : sink.defineComm(*c.comm);
    events.mapComm(c.id, std::move(info));
  }
}


// Progress over every thread's reading; only the thread that called readOtf2 reports it (the
// callback may belong to a GUI or ask to cancel).
class Progress {
 public:
  Progress(const std::function<bool(double)>& report, std::uint64_t total)
      : report_(report), total_(total) {}
  void add(std::uint64_t records) { read_.fetch_add(records, std::memory_order_relaxed); }
  // On the calling thread: reports, and throws "cancelled" when asked to.
  void report(const std::string& path) {
    if (!report_) return;
    const double read = static_cast<double>(read_.load(std::memory_order_relaxed));
    const double fraction = total_ == 0 ? 1.0 : std::min(1.0, read / static_cast<double>(total_));
    if (!report_(fraction)) throw TraceError(path, "cancelled");
  }
  std::atomic<bool> stop{false};  // a thread failed or the load was cancelled: others stop

 private:
  const std::function<bool(double)>& report_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> read_{0};
};

struct StoppedEarly {};  // another thread failed: this one stops without an error of its own

// Reads the events of `locations` (in that order) with reader r into `events`, which feeds the
// sink. `caller`: this is the thread that reports progress; others stop when told to.
void readShare(OTF2_Reader* r, const std::string& path, const otf2::ArchivePaths& files,
               const std::vector<OTF2_LocationRef>& locations, otf2::EventHandler& events,
               TraceSink& sink, Progress& progress, bool caller) {
  // An event file whose last chunk does not end as libotf2 expects makes it wait forever for
  // another chunk (a cut file): refused here, naming the file and the byte.
  std::uint64_t eventChunk = 0, defChunk = 0;
  if (OTF2_Reader_GetChunkSize(r, &eventChunk, &defChunk) == OTF2_SUCCESS)
    for (OTF2_LocationRef loc : locations) otf2::checkEventFileEnd(path, files.locationFile(loc, ".evt").string(), eventChunk);
  for (OTF2_LocationRef loc : locations)
    otf2::check(OTF2_Reader_SelectLocation(r, loc), path,
                "cannot select location " + std::to_string(loc));
  otf2::check(OTF2_Reader_OpenDefFiles(r), path, "cannot open the local definition files");
  otf2::check(OTF2_Reader_OpenEvtFiles(r), path, "cannot open the event files");
  std::unique_ptr<OTF2_EvtReaderCallbacks, decltype(&OTF2_EvtReaderCallbacks_Delete)> cb(
      OTF2_EvtReaderCallbacks_New(), &OTF2_EvtReaderCallbacks_Delete);
  otf2::EventHandler::installCallbacks(cb.get());
  // One location at a time, its local definitions (mapping tables, clock offsets) before its
  // event reader, as otf2-print does per location — but each event reader is read and closed
  // before the next location's files open: libotf2 keeps a location's event file open from
  // GetEvtReader on, so getting every reader first needed a file per location at once and
  // failed past ~1,020 ranks under the common limit of 1,024 open files (otf2-print does).
  for (OTF2_LocationRef loc : locations) {
    const std::string where = "location " + std::to_string(loc);
    OTF2_DefReader* dr = OTF2_Reader_GetDefReader(r, loc);
    if (!dr)
      otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path,
                 "cannot open " + files.locationFile(loc, ".def").string());
    std::uint64_t n = 0;
    otf2::check(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n), path,
                "cannot read the local definitions of " + where);
    OTF2_Reader_CloseDefReader(r, dr);
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(r, loc);
    if (!er)
      otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path,
                 "cannot open " + files.locationFile(loc, ".evt").string());
    OTF2_ErrorCode rc = OTF2_Reader_RegisterEvtCallbacks(r, er, cb.get(), &events);
    otf2::check(rc, path, "cannot register event callbacks");
    for (;;) {
      std::uint64_t got = 0;
      rc = OTF2_Reader_ReadLocalEvents(r, er, kBatchEvents, &got);
      events.rethrowPending();
      otf2::check(rc, path, "cannot read the events of location " + std::to_string(loc));
      sink.addSourceRecords(got);
      progress.add(got);
      if (caller) progress.report(path);
      if (progress.stop.load(std::memory_order_relaxed)) throw StoppedEarly{};
      if (got < kBatchEvents) break;
    }
    OTF2_Reader_CloseEvtReader(r, er);
  }
  otf2::check(OTF2_Reader_CloseDefFiles(r), path, "cannot close the local definition files");
  otf2::check(OTF2_Reader_CloseEvtFiles(r), path, "cannot close the event files");
}

// The locations of one thread: ranks [first, last) in rank order; the last share also takes
// the non-rank locations (read only to count what is skipped).
struct Share {
  std::vector<OTF2_LocationRef> locations;
  std::uint32_t first = 0, last = 0;
};

// Below this many records a second thread costs more than it saves.
constexpr std::uint64_t kRecordsPerExtraThread = 1u << 18;

unsigned threadsFor(const LoadOptions& opts, std::uint64_t records) {
  if (opts.threads) return opts.threads;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::uint64_t>(records / kRecordsPerExtraThread, 1, cores));
}

// Up to n shares of consecutive rank locations with about equal records each.
std::vector<Share> splitLocations(const std::vector<OTF2_LocationRef>& order,
                                  const std::unordered_map<OTF2_LocationRef, std::uint64_t>& expected,
                                  const otf2::RankLayout& ranks, unsigned n) {
  std::vector<OTF2_LocationRef> rankLocs;
  std::uint64_t total = 0;
  for (OTF2_LocationRef loc : order)
    if (ranks.rankOf.count(loc)) {
      rankLocs.push_back(loc);
      total += expected.at(loc);
    }
  n = static_cast<unsigned>(std::min<std::size_t>(n, rankLocs.size()));
  std::vector<Share> shares;
  if (n <= 1) return shares;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < rankLocs.size(); ++i) {
    // A new share starts where the records so far pass its fair start, while enough
    // locations remain for the shares still to come.
    const std::size_t remaining = rankLocs.size() - i;
    const bool mustStart = remaining == n - shares.size();
    const bool fairStart = sum * n >= total * shares.size();
    if (shares.empty() || (shares.size() < n && (mustStart || fairStart))) shares.emplace_back();
    shares.back().locations.push_back(rankLocs[i]);
    sum += expected.at(rankLocs[i]);
  }
  for (Share& s : shares) {
    s.first = ranks.rankOf.at(s.locations.front());
    s.last = ranks.rankOf.at(s.locations.back()) + 1;
  }
  for (OTF2_LocationRef loc : order)
    if (!ranks.rankOf.count(loc)) shares.back().locations.push_back(loc);
  return shares;
}

// A reader of its own for a set of locations (a share's thread, the threads' pass): local
// definitions and events need no global definitions read again.
ReaderPtr ownReader(const std::string& anchor, const std::string& path) {
  ReaderPtr own(OTF2_Reader_Open(anchor.c_str()));
  if (!own) otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path, "cannot open the OTF2 anchor file");
  otf2::check(OTF2_Reader_SetSerialCollectiveCallbacks(own.get()), path, "cannot set up the reader");
  return own;
}

// Reads the shares on as many threads, each with its own libotf2 reader (the first on this
// thread with r), into parts of the sink. false: the sink takes no parts (nothing was read).
bool readShares(OTF2_Reader* r, const std::string& anchor, const std::string& path,
                const otf2::ArchivePaths& files, const std::vector<Share>& shares,
                otf2::EventHandler& events, TraceSink& sink, Progress& progress) {
  std::vector<std::unique_ptr<TraceSink>> parts;
  for (const Share& s : shares) {
    parts.push_back(sink.openPart(s.first, s.last));
    if (!parts.back()) return false;
  }
  std::vector<std::unique_ptr<otf2::EventHandler>> handlers;
  for (auto& part : parts) handlers.push_back(std::make_unique<otf2::EventHandler>(events, *part));
  std::vector<std::exception_ptr> errors(shares.size());
  std::mutex m;
  std::condition_variable done;
  std::size_t running = shares.size() - 1;
  auto work = [&](std::size_t i) {
    try {
      ReaderPtr own = ownReader(anchor, path);
      readShare(own.get(), path, files, shares[i].locations, *handlers[i], *parts[i], progress, false);
    } catch (const StoppedEarly&) {
    } catch (...) {
      errors[i] = std::current_exception();
      progress.stop = true;
    }
    std::lock_guard lock(m);
    --running;
    done.notify_all();
  };
  std::vector<std::jthread> threads;
  struct StopOnExit {  // this thread failed: the others stop, and are joined before it unwinds
    Progress& p;
    std::vector<std::jthread>& t;
    ~StopOnExit() {
      p.stop = true;
      t.clear();
    }
  } stopOnExit{progress, threads};
  for (std::size_t i = 1; i < shares.size(); ++i) threads.emplace_back(work, i);
  try {
    readShare(r, path, files, shares[0].locations, *handlers[0], *parts[0], progress, true);
  } catch (const StoppedEarly&) {
  }
  // Progress while the others finish; a cancel stops them.
  for (;;) {
    std::unique_lock lock(m);
    if (done.wait_for(lock, std::chrono::milliseconds(50), [&] { return running == 0; })) break;
    lock.unlock();
    if (!progress.stop) progress.report(path);
  }
  threads.clear();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  progress.report(path);  // the others' last records
  for (std::size_t i = 0; i < shares.size(); ++i) {
    sink.joinPart(std::move(parts[i]));
    events.absorb(*handlers[i]);
  }
  return true;
}
}  // namespace

void readOtf2(const std::string& path, TraceSink& sink, const LoadOptions& opts) {
  otf2::silenceLibrary();
  otf2::takeLastMessage();
  const fs::path anchor = fs::path(resolveOtf2Anchor(path));
  const otf2::ArchivePaths files = otf2::archivePathsOfAnchor(anchor);

  otf2::checkAnchor(path, anchor.string());  // libotf2 trusts the anchor's counts
  ReaderPtr reader(OTF2_Reader_Open(anchor.c_str()));
  if (!reader) otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path, "cannot open the OTF2 anchor file");
  OTF2_Reader* r = reader.get();
  otf2::check(OTF2_Reader_SetSerialCollectiveCallbacks(r), path, "cannot set up the reader");
  requireFile(path, files.globalDefs(), "global definition file");
  otf2::checkGlobalDefinitions(path, files.globalDefs().string());  // libotf2 trusts its group sizes

  otf2::GlobalDefinitions defs;
  otf2::readGlobalDefinitions(r, path, defs);
  if (!defs.haveClock || defs.timerResolution == 0)
    throw TraceError(path, "no valid clock properties (timer resolution missing or 0)");
  // Threads (CPU threads beyond a process's first) for a sink that keeps them, when the whole
  // trace is read (a share of ranks, LoadOptions::rankFirst, has none).
  const otf2::RankLayout ranks = otf2::layoutRanks(defs, sink.keepsThreads() && opts.allRanks());
  if (ranks.rankLocation.empty() && ranks.threadLocation.empty())
    throw TraceError(path, "no MPI process location (CPU thread of a process) defined");

  // Every location's files must be there: libotf2 would otherwise fail deep in the merge
  // with a message that does not say which file is missing.
  // A location's event count is a claim of the definitions; only as many records as its event
  // file can hold are believed (a count of 2^62 in a small archive once made the builder
  // reserve 67 GB). The count only sizes storage and progress: reading goes by the file.
  // With a rank range (LoadOptions::rankFirst/rankLast) only those ranks' locations are read:
  // the other locations' files are neither checked nor opened.
  auto wanted = [&](OTF2_LocationRef loc) {
    if (opts.allRanks()) return true;
    const auto it = ranks.rankOf.find(loc);
    return it != ranks.rankOf.end() && opts.readsRank(it->second, static_cast<std::uint32_t>(ranks.rankLocation.size()));
  };
  std::set<OTF2_LocationRef> locations;
  std::unordered_map<OTF2_LocationRef, std::uint64_t> expected;
  std::uint64_t totalEvents = 0;
  for (const auto& l : defs.locations) {
    if (!wanted(l.id)) continue;
    if (!locations.insert(l.id).second) continue;
    requireFile(path, files.locationFile(l.id, ".def"), "local definition file");
    const std::uint64_t evtBytes = requireFile(path, files.locationFile(l.id, ".evt"), "event file");
    const std::uint64_t records = std::min(l.events, evtBytes / kMinEventRecordBytes);
    expected.emplace(l.id, records);
    totalEvents += records;
  }

  TraceHeader header;
  header.ranks = static_cast<std::uint32_t>(ranks.rankLocation.size());
  header.rankNames = ranks.rankNames;
  header.threads = ranks.threads;
  sink.begin(header);
  for (std::uint32_t r = 0; r < ranks.rankLocation.size(); ++r)
    if (opts.readsRank(r, header.ranks)) sink.expectRecords(r, expected[ranks.rankLocation[r]]);
  for (const auto& note : ranks.notes) sink.warn(Diagnostic{path, -1, {}, note});

  otf2::EventHandler events(sink, path, defs, ranks);
  defineFunctions(defs, sink, events);
  // Communicators are where a few bytes of definitions expand: each comm record copies its
  // group's members into the model and into the event handler's table (2 x 4 B per member, plus
  // the resolving copy), so 10^5 comms naming one 10^4-member group would take 12 GB from a
  // 1 MB definition file. The file's size does not bound this; the memory available does.
  constexpr std::uint64_t kBytesPerCommMember = 3 * sizeof(std::int32_t);
  const std::uint64_t members = otf2::commMemberCount(defs);
  const std::uint64_t available = opts.memoryAvailable ? opts.memoryAvailable : availableMemory();
  if (members > available / kBytesPerCommMember)
    throw TraceError(path, "its " + std::to_string(defs.comms.size()) + " communicators list " +
                               std::to_string(members) + " members in all, about " +
                               std::to_string(members * kBytesPerCommMember >> 20) + " MB; " +
                               std::to_string(available >> 20) + " MB available");
  defineComms(defs, ranks, sink, events);

  // Each location is read on its own, in rank order, instead of through libotf2's global
  // (time-merged) reader: the model needs time order per rank only (matching happens after
  // reading), the merge heap is skipped, and the builder fills one rank's arrays at a time
  // instead of 64 interleaved ones. Non-rank locations are read too, to count what is skipped.
  // Threads are read last, on this thread, straight into the sink (parts take ranks only).
  std::vector<OTF2_LocationRef> order, threadOrder;
  for (OTF2_LocationRef loc : ranks.rankLocation)
    if (locations.count(loc)) order.push_back(loc);
  for (OTF2_LocationRef loc : locations)
    if (!ranks.rankOf.count(loc) && !ranks.threadOf.count(loc)) order.push_back(loc);
  for (OTF2_LocationRef loc : ranks.threadLocation)
    if (locations.count(loc)) threadOrder.push_back(loc);
  const std::vector<Share> shares = splitLocations(order, expected, ranks, threadsFor(opts, totalEvents));
  Progress progress(opts.progress, totalEvents);
  const bool inParallel =
      shares.size() > 1 && readShares(r, anchor.string(), path, files, shares, events, sink, progress);
  // One thread: the sink's own stream, or (a sink that takes parts: the model) a part filled
  // through a pipeline, so that decoding and building still overlap on two cores.
  std::unique_ptr<TraceSink> part;
  if (!inParallel && opts.pipelined && !order.empty()) part = sink.openPart(0, header.ranks);
  if (part) {
    PipelinedSink pipe(*part);
    otf2::EventHandler handler(events, pipe);
    readShare(r, path, files, order, handler, pipe, progress, true);
    pipe.flush();
    sink.joinPart(std::move(part));
    events.absorb(handler);
  } else if (!inParallel && !order.empty()) {
    readShare(r, path, files, order, events, sink, progress, true);
  }
  if (!threadOrder.empty()) {
    ReaderPtr own = ownReader(anchor.string(), path);
    otf2::EventHandler handler(events, sink);
    readShare(own.get(), path, files, threadOrder, handler, sink, progress, true);
    events.absorb(handler);
  }
  // A share (perwiz-mpi) reads no skipped location's file, so it cannot say how many records
  // each held: the whole trace's load reports them.
  events.reportSummary(opts.allRanks());
  sink.end();
}

}  // namespace perwiz
