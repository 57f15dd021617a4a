// makeOtf2Writer: a TraceSink that writes an OTF2 archive with libotf2.
//
// Layout: one PROCESS location group and one CPU_THREAD location per rank (location id =
// rank), an MPI COMM_LOCATIONS group listing them in rank order, a COMM_GROUP (or COMM_SELF)
// group per communicator, comm 0 = MPI_COMM_WORLD. Clock: 1 tick = 1 ns, offset 0, so the
// model's times are written unchanged. Threads (Trace::threads) are CPU thread locations
// after the ranks' (id ranks + i) in their rank's location group, or in one group "threads"
// when they belong to no rank; written only without a share.
//
// Events stream straight to libotf2's per-location buffers; definitions are written at end()
// when everything is known (OTF2 allows global definitions after the events). Regions and
// parameters are written interleaved in the model's function order, which the reader keeps,
// so function indexes survive a round trip. Colours go into the region description as
// "color:<colour>" (see otf2_reader.cpp).
#include "perwiz/internal/agree.h"
#include "perwiz/internal/wire.h"
#include "otf2_common.h"
#include "otf2_group.h"
#include "perwiz/internal/otf2_group_writer.h"
#include "perwiz/output_file.h"
#include "perwiz/memory_budget.h"
#include "perwiz/trace_io.h"

#include <otf2/otf2.h>

#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <cstdlib>
#include <optional>
#include <unordered_map>

namespace fs = std::filesystem;

namespace perwiz {

namespace {

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}

// post_flush = null: no BUFFER_FLUSH records (the time spent flushing is not the program's).
const OTF2_FlushCallbacks kFlushCallbacks = {&preFlush, nullptr};

// Without memory callbacks libotf2 keeps every event chunk until the archive closes, so memory
// grows with the trace. Refusing a new chunk once a location's buffer holds a few makes libotf2
// flush that buffer to its file and free it (the way Score-P bounds its memory), so writing a
// 10^8-event trace needs ranks x kMaxEventChunks x chunk size, not the whole trace.
constexpr std::size_t kMaxEventChunks = 4;

// The writer's resident memory: a base, and per open location (see begin()).
constexpr std::uint64_t kWriterBaseBytes = 16ull << 20;
constexpr std::uint64_t kBytesPerOpenLocation = 8192;

struct ChunkList {
  std::vector<std::pair<void*, std::size_t>> chunks;  // block, bytes
};

void* allocateChunk(void*, OTF2_FileType type, OTF2_LocationRef, void** perBuffer,
                    uint64_t chunkSize) {
  auto*& list = reinterpret_cast<ChunkList*&>(*perBuffer);
  if (!list) list = new ChunkList;
  if (type == OTF2_FILETYPE_EVENTS && list->chunks.size() >= kMaxEventChunks) return nullptr;
  void* chunk = std::malloc(chunkSize);
  if (chunk) list->chunks.emplace_back(chunk, chunkSize);
  return chunk;
}

// libotf2 clears a chunk's unused part when it writes the chunk out, so every chunk is touched
// by then; glibc keeps freed 256 KiB blocks in its heap (its mmap threshold rises above them
// once a larger block has been freed), so the memory of every location's chunk stayed resident
// after the location was closed: 5.1 GB for 20,000 ranks. The pages are
// given back before the block is freed.
void releasePages(void* chunk, std::size_t bytes) {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(chunk) + page - 1) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(chunk) + bytes) & ~(page - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void freeAllChunks(void*, OTF2_FileType type, OTF2_LocationRef, void** perBuffer, bool final) {
  auto*& list = reinterpret_cast<ChunkList*&>(*perBuffer);
  if (!list) return;
  for (const auto& [c, bytes] : list->chunks) {
    // Every location's event chunk is allocated before the first is freed, so a freed one is
    // not reused; a definition chunk is freed before the next is allocated, and is.
    if (type == OTF2_FILETYPE_EVENTS) releasePages(c, bytes);
    std::free(c);
  }
  list->chunks.clear();
  if (final) {
    delete list;
    list = nullptr;
  }
}

const OTF2_MemoryCallbacks kMemoryCallbacks = {&allocateChunk, &freeAllChunks};

OTF2_RegionRole roleOf(const Function& f) {
  if (f.kind != EventKind::MpiCall) return OTF2_REGION_ROLE_CODE;
  switch (f.op) {
    case MpiOp::Barrier: return OTF2_REGION_ROLE_BARRIER;
    case MpiOp::Bcast:
    case MpiOp::Scatter:
    case MpiOp::Scatterv: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case MpiOp::Gather:
    case MpiOp::Gatherv:
    case MpiOp::Reduce: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case MpiOp::Allgather:
    case MpiOp::Allgatherv:
    case MpiOp::Alltoall:
    case MpiOp::Alltoallv:
    case MpiOp::Alltoallw:
    case MpiOp::Allreduce:
    case MpiOp::ReduceScatter:
    case MpiOp::ReduceScatterBlock: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case MpiOp::Scan:
    case MpiOp::Exscan: return OTF2_REGION_ROLE_COLL_OTHER;
    default: break;
  }
  switch (callClass(f.op)) {
    case CallClass::Send:
    case CallClass::Recv:
    case CallClass::SendRecv:
    case CallClass::Isend:
    case CallClass::Irecv: return OTF2_REGION_ROLE_POINT2POINT;
    default: return OTF2_REGION_ROLE_FUNCTION;
  }
}

class Otf2Writer final : public TraceSink {
 public:
  // The archive is written in a temporary directory (output_file.h) and moved into place by
  // end(): its files never exist half-written under their final names, a failure or a signal
  // leaves nothing behind, and an existing file is never replaced. A path ending in .otf2 names
  // the anchor: X.otf2, X.def and X/ beside it, moved in with the anchor last. Another path is
  // a directory holding traces.otf2, traces.def and traces/: a new one is moved in whole; an
  // existing one (the tracer's run directory) receives the three entries.
  //
  // With a share (perwiz-mpi, otf2_group_writer.h) the processes write one archive together:
  // process 0 makes the temporary directory and publishes it; every process checks the path.
  explicit Otf2Writer(const std::string& path, std::optional<Otf2Share> share = {})
      : path_(path), share_(std::move(share)) {
    if (!share_) {
      setUp(path);
      return;
    }
    agree(group(), attempt([&] { setUp(path); }));
    for (const std::string& b : group().allGather(joinLabels(share_->labels)))
      for (std::string& l : splitLabels(b)) stringRef(l);  // process order: rank order
  }

  void setUp(const std::string& path) {
    otf2::silenceLibrary();
    std::error_code ec;
    if (path.ends_with(".otf2")) {
      files_ = otf2::archivePathsOfAnchor(fs::path(path));
    } else {
      files_.dir = fs::path(path);
      files_.name = "traces";
      const fs::file_status st = fs::symlink_status(files_.dir, ec);
      if (fs::exists(st) && !fs::is_directory(fs::status(files_.dir, ec)))
        refuseExisting({path}, path);
      wholeDir_ = !fs::exists(st);
    }
    // The refusal names the entry that exists (X.def left by another tool, say), not X.otf2.
    if (!wholeDir_)
      refuseExisting({files_.anchor().string(), files_.globalDefs().string(),
                      files_.locationDir().string()},
                     path);
  }

  ~Otf2Writer() override {
    // Unfinished (an exception): close the library's files; output_'s destructor removes the
    // temporary directory, so a half archive neither stays nor blocks the next attempt.
    if (archive_) OTF2_Archive_Close(archive_);
  }

  void begin(const TraceHeader& header) override {
    if (archive_) throw TraceError(path_, "begin() called twice");
    ranks_ = header.ranks;
    for (std::uint32_t r = 0; r < ranks_; ++r)
      rankNames_.push_back(r < header.rankNames.size() ? header.rankNames[r]
                                                       : "rank " + std::to_string(r));
    if (!share_) threads_ = header.threads;
    locations_ = ranks_ + static_cast<std::uint32_t>(threads_.size());
    if (share_) {
      beginShare();
      return;
    }
    // Every location's event writer stays open until end() (records of all ranks may come
    // interleaved): each holds a chunk of which at least a page is touched, plus libotf2's and
    // this writer's state — 5.5 KB per location measured at 20,000 ranks (110 MB,
    // BM_Otf2WriteManyRanks). Refused before anything is written when it cannot fit.
    requireMemory(path_, kWriterBaseBytes + std::uint64_t{locations_} * kBytesPerOpenLocation,
                  "write its " + std::to_string(locations_) + " locations");
    makeWorkDir();
    openArchive(output_->workDir());
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_), "set up");
    openEventWriters();
  }

  // Process 0 makes the temporary directory; all open the archive in it, set the collective
  // callbacks and open the event files together (each of these steps is collective in libotf2
  // or agreed here), then each opens the writers of its own ranks.
  void beginShare() {
    ProcessGroup& g = group();
    agree(g, attempt([&] {
      if (g.rank() == 0) makeWorkDir();
    }));
    const std::string workDir = g.broadcast(0, g.rank() == 0 ? output_->workDir() : std::string());
    agree(g, attempt([&] { openArchive(workDir); }));
    const OTF2_ErrorCode rc = OTF2_Archive_SetCollectiveCallbacks(archive_, otf2::groupCallbacks(), &g, nullptr, nullptr);
    agree(g, attempt([&] { check(rc, "set up the writing processes"); }));
    agree(g, attempt([&] { openEventWriters(); }));
  }

  void makeWorkDir() {
    // Missing parent directories are created (they stay: they may hold other files later).
    std::error_code ec;
    fs::path dir = files_.dir.lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // "out/" is "out"
    const fs::path parent = wholeDir_ ? dir.parent_path() : dir;
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec) throw TraceError(path_, "cannot create the directory: " + ec.message());
    output_.emplace(wholeDir_ ? OutputDirectory::whole(files_.dir.string())
                              : OutputDirectory::entries(files_.dir.string(),
                                                         {files_.name, files_.name + ".def",
                                                          files_.name + ".otf2"},
                                                         path_));
  }

  void openArchive(const std::string& workDir) {
    // libotf2 keeps at least one chunk per location in memory; small chunks for many ranks.
    // The definition chunk too: every location's (empty) local definition writer gets one,
    // and libotf2 clears the whole chunk when it closes it — 4 MiB per location by default,
    // 29 s of memset for 2,000 ranks.
    const bool many = locations_ > 64;
    const std::uint64_t chunk = many ? OTF2_CHUNK_SIZE_MIN : OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
    const std::uint64_t defChunk = many ? OTF2_CHUNK_SIZE_MIN : OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT;
    otf2::takeLastMessage();
    archive_ = OTF2_Archive_Open(workDir.c_str(), files_.name.c_str(), OTF2_FILEMODE_WRITE,
                                 chunk, defChunk, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!archive_) otf2::failWrite(OTF2_ERROR_FILE_CAN_NOT_OPEN, path_, "cannot create the archive");
    check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr), "set up");
    check(OTF2_Archive_SetMemoryCallbacks(archive_, &kMemoryCallbacks, nullptr), "set up");
  }

  // The event files and the writers of the ranks this process writes (all without a share).
  void openEventWriters() {
    check(OTF2_Archive_SetCreator(archive_, "PerWiz"), "set up");
    // Every message of the model is written (the attribute tells analysers so).
    check(OTF2_Archive_SetBoolProperty(archive_, "OTF2::MPI_COMMUNICATION_COMPLETE", true, true),
          "set up");
    check(OTF2_Archive_OpenEvtFiles(archive_), "cannot open the event files");
    writers_.assign(locations_, nullptr);
    for (std::uint32_t r = 0; r < locations_; ++r) {
      if (!writes(r)) continue;
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive_, r);
      if (!w) otf2::failWrite(OTF2_ERROR_FILE_CAN_NOT_OPEN, path_, "cannot create an event writer");
      writers_[r] = w;
    }
    open_.resize(locations_);
    counted_.assign(locations_, 0);
    lastTime_.assign(locations_, 0);

    Communicator world;
    world.name = "MPI_COMM_WORLD";
    for (std::uint32_t r = 0; r < ranks_; ++r) world.worldRanks.push_back(static_cast<std::int32_t>(r));
    defineComm(world);
  }

  std::uint32_t defineFunction(const Function& f) override {
    auto key = std::make_pair(f.name, f.kind);
    auto it = functionIndex_.find(key);
    if (it != functionIndex_.end()) return it->second;
    const auto index = static_cast<std::uint32_t>(functions_.size());
    functions_.push_back(f);
    functionIndex_.emplace(std::move(key), index);
    if (f.kind == EventKind::Point)
      otf2Id_.push_back(parameters_++);
    else
      otf2Id_.push_back(regions_++);
    return index;
  }

  std::uint32_t defineComm(const Communicator& c) override {
    std::unordered_map<std::int32_t, std::uint32_t> local;
    for (std::size_t i = 0; i < c.worldRanks.size(); ++i)
      local.emplace(c.worldRanks[i], static_cast<std::uint32_t>(i));
    comms_.push_back(c);
    localRank_.push_back(std::move(local));
    return static_cast<std::uint32_t>(comms_.size() - 1);
  }

  void enter(std::uint32_t rank, TimeNs t, std::uint32_t function) override {
    const Function& f = fn(function);
    if (f.kind == EventKind::Point) return;  // a point has no duration: nothing to enter
    OTF2_EvtWriter* w = writer(rank);
    const OTF2_TimeStamp ts = ticks(rank, t);
    check(OTF2_EvtWriter_Enter(w, nullptr, ts, otf2Id_[function]), "cannot write an event");
    // Score-P's order inside a collective call: Enter, CollectiveBegin, ..., CollectiveEnd.
    const bool collective = f.kind == EventKind::MpiCall && isCollective(f.op);
    if (collective) check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts), "cannot write an event");
    open_[rank].push_back({function, collective});
  }

  void leave(std::uint32_t rank, TimeNs t, std::uint32_t function) override {
    const Function& f = fn(function);
    if (f.kind == EventKind::Point) return;
    OTF2_EvtWriter* w = writer(rank);
    const OTF2_TimeStamp ts = ticks(rank, t);
    auto& stack = open_[rank];
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (it->function != function) continue;
      // A collective call without collective(): the builder puts such a call on WORLD,
      // so the file says the same and Begin never stays unpaired.
      const int otfOp = otf2CollectiveFromMpiOp(f.op);
      if (it->collectivePending && otfOp >= 0)
        check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, ts, static_cast<OTF2_CollectiveOp>(otfOp),
                                              0, OTF2_COLLECTIVE_ROOT_NONE, 0, 0),
              "cannot write an event");
      stack.erase(std::next(it).base());
      break;
    }
    check(OTF2_EvtWriter_Leave(w, nullptr, ts, otf2Id_[function]), "cannot write an event");
  }

  void point(std::uint32_t rank, TimeNs t, std::uint32_t function,
             std::string_view label) override {
    const Function& f = fn(function);
    OTF2_EvtWriter* w = writer(rank);
    const OTF2_TimeStamp ts = ticks(rank, t);
    if (f.kind != EventKind::Point) {  // not representable as a parameter: a zero-length state
      check(OTF2_EvtWriter_Enter(w, nullptr, ts, otf2Id_[function]), "cannot write an event");
      check(OTF2_EvtWriter_Leave(w, nullptr, ts, otf2Id_[function]), "cannot write an event");
      return;
    }
    // With a share the labels are numbered before the events (the constructor): every process
    // must give a label the same number.
    if (share_ && !strings_.contains(std::string(label)))
      throw TraceError(path_, "rank " + std::to_string(rank) + ": a point label not announced: " + std::string(label));
    check(OTF2_EvtWriter_ParameterString(w, nullptr, ts, otf2Id_[function],
                                         stringRef(std::string(label))),
          "cannot write an event");
  }

  // A thread's records: states and points only (no collective records around its calls).
  void threadEnter(std::uint32_t thread, TimeNs t, std::uint32_t function) override {
    if (thread >= threads_.size() || fn(function).kind == EventKind::Point) return;
    const std::uint32_t loc = ranks_ + thread;
    check(OTF2_EvtWriter_Enter(writer(loc), nullptr, ticks(loc, t), otf2Id_[function]), "cannot write an event");
  }
  void threadLeave(std::uint32_t thread, TimeNs t, std::uint32_t function) override {
    if (thread >= threads_.size() || fn(function).kind == EventKind::Point) return;
    const std::uint32_t loc = ranks_ + thread;
    check(OTF2_EvtWriter_Leave(writer(loc), nullptr, ticks(loc, t), otf2Id_[function]), "cannot write an event");
  }
  void threadPoint(std::uint32_t thread, TimeNs t, std::uint32_t function, std::string_view label) override {
    if (thread < threads_.size()) point(ranks_ + thread, t, function, label);
  }
  bool keepsThreads() const override { return !share_; }

  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override {
    OTF2_EvtWriter* w = writer(rank);
    const std::uint32_t local = localRank(rank, peer, comm);
    const auto otfTag = static_cast<std::uint32_t>(tag);
    if (request == 0)
      check(OTF2_EvtWriter_MpiSend(w, nullptr, ticks(rank, t), local, comm, otfTag, bytes),
            "cannot write an event");
    else
      check(OTF2_EvtWriter_MpiIsend(w, nullptr, ticks(rank, t), local, comm, otfTag, bytes, request),
            "cannot write an event");
  }

  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override {
    OTF2_EvtWriter* w = writer(rank);
    const std::uint32_t local = localRank(rank, peer, comm);
    const auto otfTag = static_cast<std::uint32_t>(tag);
    if (request == 0)
      check(OTF2_EvtWriter_MpiRecv(w, nullptr, ticks(rank, t), local, comm, otfTag, bytes),
            "cannot write an event");
    else
      check(OTF2_EvtWriter_MpiIrecv(w, nullptr, ticks(rank, t), local, comm, otfTag, bytes, request),
            "cannot write an event");
  }

  void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    check(OTF2_EvtWriter_MpiIsendComplete(writer(rank), nullptr, ticks(rank, t), request),
          "cannot write an event");
  }

  void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    check(OTF2_EvtWriter_MpiIrecvRequest(writer(rank), nullptr, ticks(rank, t), request),
          "cannot write an event");
  }

  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm, std::int32_t root,
                  std::uint64_t sent, std::uint64_t received) override {
    OTF2_EvtWriter* w = writer(rank);
    const int otfOp = otf2CollectiveFromMpiOp(op);
    if (otfOp < 0) return;  // not an operation OTF2 can name
    const OTF2_TimeStamp ts = ticks(rank, t);
    bool begun = false;
    auto& stack = open_[rank];
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (it->collectivePending) {
        it->collectivePending = false;
        begun = true;
        break;
      }
    if (!begun) check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts), "cannot write an event");
    const std::uint32_t otfRoot =
        root < 0 ? OTF2_COLLECTIVE_ROOT_NONE : localRank(rank, root, comm);
    check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, ts, static_cast<OTF2_CollectiveOp>(otfOp),
                                          comm, otfRoot, sent, received),
          "cannot write an event");
  }

  void end() override { endWith(""); }

  // end(); with a share, also every process's `recordProblem` (a record it could not write,
  // held by ShareGuard) is agreed on before the archive is closed, so that none is left waiting.
  void endWith(const std::string& recordProblem) {
    if (!archive_) throw TraceError(path_, "end() without begin()");
    // Each step alone, or with a share agreed on by every process (libotf2's collective calls
    // return the same answer on all of them).
    auto step = [&](auto&& fn) {
      if (share_) agree(group(), attempt(fn));
      else fn();
    };
    const bool primary = !share_ || group().rank() == 0;
    std::vector<std::uint64_t> eventCounts(locations_, 0);
    if (share_ && !recordProblem.empty()) agree(group(), recordProblem);
    step([&] { closeEventWriters(eventCounts); });
    const OTF2_ErrorCode closed = OTF2_Archive_CloseEvtFiles(archive_);
    step([&] { check(closed, "cannot close the event files"); });
    const OTF2_ErrorCode opened = OTF2_Archive_OpenDefFiles(archive_);
    step([&] {
      check(opened, "cannot open the local definition files");
      writeLocalDefinitions();
    });
    const OTF2_ErrorCode defsClosed = OTF2_Archive_CloseDefFiles(archive_);
    step([&] { check(defsClosed, "cannot close the local definition files"); });
    std::vector<std::string> written;
    if (share_) written = gatherWrittenRanks(eventCounts);
    step([&] {
      if (!primary) return;
      if (share_) takeWrittenRanks(written, eventCounts);
      writeGlobalDefinitions(eventCounts);
    });
    const OTF2_ErrorCode rc = OTF2_Archive_Close(archive_);
    archive_ = nullptr;
    step([&] {
      check(rc, "cannot close the archive");
      otf2::checkNoWriteErrorReported(path_);  // a short write libotf2 reported but let pass
    });
    step([&] {
      if (primary) output_->commit();
    });
  }

  // The rank's records are all written: its event writer is closed now (its buffers written
  // out and freed), its events counted for the definitions.
  void closeRank(std::uint32_t r) {
    if (r >= writers_.size() || !writers_[r]) return;
    check(OTF2_EvtWriter_GetNumberOfEvents(writers_[r], &counted_[r]), "cannot count events");
    const OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(archive_, writers_[r]);
    writers_[r] = nullptr;
    check(rc, "cannot write the events");
  }

 private:
  // Process 0 writes the global definitions: every rank's name and event count come from the
  // process that wrote it, the latest time from all; the definitions must be everybody's. Each
  // process's part, on process 0.
  std::vector<std::string> gatherWrittenRanks(const std::vector<std::uint64_t>& eventCounts) {
    wire::Writer mine;
    mine.i64(endTime_);
    mine.u64(definitionsDigest());
    for (std::uint32_t r = share_->own.first; r < share_->own.last && r < ranks_; ++r) {
      mine.u32(r);
      mine.u64(eventCounts[r]);
      mine.str(rankNames_[r]);
    }
    std::vector<std::string> all(group().size());
    all[0] = mine.take();
    return group().exchange(std::move(all));
  }
  void takeWrittenRanks(const std::vector<std::string>& all, std::vector<std::uint64_t>& eventCounts) {
    const std::uint64_t digest = definitionsDigest();
    for (std::uint32_t q = 0; q < all.size(); ++q) {
      wire::Reader rd(all[q], "the written ranks");
      endTime_ = std::max<TimeNs>(endTime_, rd.i64());
      if (rd.u64() != digest)
        throw TraceError(path_, "process " + std::to_string(q) + " defines other functions or communicators than process 0");
      while (!rd.done()) {
        const std::uint32_t r = rd.u32();
        if (r >= ranks_) throw TraceError(path_, "rank " + std::to_string(r) + " outside the trace");
        eventCounts[r] = rd.u64();
        rankNames_[r] = rd.str();
      }
    }
  }

  // Closes the event writers of the ranks this process writes, counting their events.
  void closeEventWriters(std::vector<std::uint64_t>& eventCounts) {
    for (std::uint32_t r = 0; r < locations_; ++r) {
      closeRank(r);
      if (writes(r)) eventCounts[r] = counted_[r];
    }
  }

  // Empty local definition files: readers expect one per location.
  void writeLocalDefinitions() {
    for (std::uint32_t r = 0; r < locations_; ++r) {
      if (!writes(r)) continue;
      OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(archive_, r);
      if (!dw) otf2::failWrite(OTF2_ERROR_FILE_CAN_NOT_OPEN, path_, "cannot create a definition writer");
      check(OTF2_Archive_CloseDefWriter(archive_, dw), "cannot write local definitions");
    }
  }

  bool writes(std::uint32_t rank) const { return !share_ || share_->own.contains(rank); }
  ProcessGroup& group() const { return *share_->group; }

  // The functions and communicators defined, as one number (every process must have defined
  // the same ones: process 0 writes its own).
  std::uint64_t definitionsDigest() const {
    wire::Writer w;
    for (const Function& f : functions_) wire::putFunction(w, f);
    for (const Communicator& c : comms_) {
      w.str(c.name);
      w.u8(c.isSelf ? 1 : 0);
      w.u32(static_cast<std::uint32_t>(c.worldRanks.size()));
      for (std::int32_t r : c.worldRanks) w.i32(r);
    }
    return std::hash<std::string>{}(w.take());
  }

  static std::string joinLabels(const std::vector<std::string>& labels) {
    wire::Writer w;
    for (const std::string& l : labels) w.str(l);
    return w.take();
  }
  static std::vector<std::string> splitLabels(const std::string& bytes) {
    std::vector<std::string> out;
    wire::Reader rd(bytes, "point labels");
    while (!rd.done()) out.push_back(rd.str());
    return out;
  }

  struct OpenCall {
    std::uint32_t function;
    bool collectivePending;  // CollectiveBegin written, CollectiveEnd not yet
  };

  // A write that fails for an OS reason says so in words: "X.otf2: cannot write (No space left
  // on device)", not libotf2's "Buffer deletion failed!".
  void check(OTF2_ErrorCode rc, const char* what) {
    if (rc != OTF2_SUCCESS) otf2::failWrite(rc, path_, what);
  }

  const Function& fn(std::uint32_t function) const {
    if (function >= functions_.size())
      throw TraceError(path_, "undefined function " + std::to_string(function));
    return functions_[function];
  }

  OTF2_EvtWriter* writer(std::uint32_t rank) const {
    if (rank >= writers_.size())
      throw TraceError(path_, "record for rank " + std::to_string(rank) + " outside the trace");
    if (!writers_[rank])
      throw TraceError(path_, "record for rank " + std::to_string(rank) + ", which another process writes or is finished");
    return writers_[rank];
  }

  // libotf2 refuses a timestamp below the location's previous one half-way through the file
  // ("Passed timestamp is smaller than last written one"); say so here, naming the rank.
  // Producers deliver each rank in time order (trace_sink.h; emitTrace guarantees it).
  OTF2_TimeStamp ticks(std::uint32_t rank, TimeNs t) {
    if (t < 0) throw TraceError(path_, "negative time " + std::to_string(t) + " cannot be written");
    if (rank < lastTime_.size()) {
      if (t < lastTime_[rank])
        throw TraceError(path_, "rank " + std::to_string(rank) + ": record at " +
                                    std::to_string(t) + " ns after one at " +
                                    std::to_string(lastTime_[rank]) +
                                    " ns; OTF2 needs each rank's records in time order");
      lastTime_[rank] = t;
    }
    endTime_ = std::max(endTime_, t);
    return static_cast<OTF2_TimeStamp>(t);
  }

  // World rank -> rank in `comm` (OTF2 records comm-local ranks). Unknown peers are written
  // as OTF2_UNDEFINED_UINT32, which readers report and treat as unknown.
  std::uint32_t localRank(std::uint32_t caller, std::int32_t world, std::uint32_t comm) const {
    if (comm >= comms_.size())
      throw TraceError(path_, "undefined communicator " + std::to_string(comm));
    if (comms_[comm].isSelf)
      return world == static_cast<std::int32_t>(caller) ? 0 : OTF2_UNDEFINED_UINT32;
    auto it = localRank_[comm].find(world);
    return it == localRank_[comm].end() ? OTF2_UNDEFINED_UINT32 : it->second;
  }

  OTF2_StringRef stringRef(const std::string& s) {
    auto [it, inserted] = strings_.emplace(s, static_cast<OTF2_StringRef>(stringList_.size()));
    if (inserted) stringList_.push_back(s);
    return it->second;
  }

  void writeGlobalDefinitions(const std::vector<std::uint64_t>& eventCounts) {
    // Strings first, so every later definition refers to an already defined string.
    const OTF2_StringRef mpi = stringRef("MPI");
    const OTF2_StringRef machine = stringRef("machine");
    const OTF2_StringRef host = stringRef("PerWiz");
    const OTF2_StringRef thread = stringRef("Master thread");
    const OTF2_StringRef empty = stringRef("");
    std::vector<OTF2_StringRef> rankName, fnName, fnDescription, commName;
    for (const auto& n : rankNames_) rankName.push_back(stringRef(n));
    std::vector<OTF2_StringRef> threadName;
    for (std::size_t i = 0; i < threads_.size(); ++i)
      threadName.push_back(stringRef(threads_[i].name.empty() ? "thread " + std::to_string(i) : threads_[i].name));
    const OTF2_StringRef threadsGroup = threads_.empty() ? empty : stringRef("threads");
    for (const auto& f : functions_) {
      fnName.push_back(stringRef(f.name));
      fnDescription.push_back(f.color.empty() ? empty : stringRef("color:" + f.color));
    }
    for (const auto& c : comms_) commName.push_back(stringRef(c.name));

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive_);
    if (!g) otf2::failWrite(OTF2_ERROR_FILE_CAN_NOT_OPEN, path_, "cannot create the definitions");
    const char* what = "cannot write definitions";
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0,
                                                    static_cast<std::uint64_t>(endTime_),
                                                    OTF2_UNDEFINED_TIMESTAMP),
          what);
    for (std::size_t i = 0; i < stringList_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(i),
                                             stringList_[i].c_str()),
            what);
    check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS),
          what);
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, host, machine,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          what);
    for (std::uint32_t r = 0; r < ranks_; ++r)
      check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, rankName[r],
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP),
            what);
    for (std::uint32_t r = 0; r < ranks_; ++r)
      check(OTF2_GlobalDefWriter_WriteLocation(g, r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               eventCounts[r], r),
            what);
    bool orphans = false;  // threads of no rank: in one group of their own, not a process
    for (const ThreadHeader& th : threads_) orphans = orphans || th.rank < 0 || static_cast<std::uint32_t>(th.rank) >= ranks_;
    if (orphans)
      check(OTF2_GlobalDefWriter_WriteLocationGroup(g, ranks_, threadsGroup, OTF2_LOCATION_GROUP_TYPE_UNKNOWN, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP),
            what);
    for (std::uint32_t i = 0; i < threads_.size(); ++i) {
      const ThreadHeader& th = threads_[i];
      const bool ofRank = th.rank >= 0 && static_cast<std::uint32_t>(th.rank) < ranks_;
      check(OTF2_GlobalDefWriter_WriteLocation(g, ranks_ + i, threadName[i],
                                               OTF2_LOCATION_TYPE_CPU_THREAD, eventCounts[ranks_ + i],
                                               ofRank ? static_cast<OTF2_LocationGroupRef>(th.rank) : ranks_),
            what);
    }
    for (std::size_t i = 0; i < functions_.size(); ++i) {
      const Function& f = functions_[i];
      if (f.kind == EventKind::Point) {
        check(OTF2_GlobalDefWriter_WriteParameter(g, otf2Id_[i], fnName[i], OTF2_PARAMETER_TYPE_STRING),
              what);
      } else {
        const OTF2_Paradigm paradigm =
            f.kind == EventKind::MpiCall ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER;
        check(OTF2_GlobalDefWriter_WriteRegion(g, otf2Id_[i], fnName[i], fnName[i],
                                               fnDescription[i], roleOf(f), paradigm,
                                               OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0),
              what);
      }
    }
    // Group 0: the locations in MPI_COMM_WORLD rank order. Group k+1: comm k's members as
    // indexes into group 0, which are their world ranks.
    std::vector<std::uint64_t> members(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) members[r] = r;
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks_,
                                          members.data()),
          what);
    for (std::size_t k = 0; k < comms_.size(); ++k) {
      const Communicator& c = comms_[k];
      const auto group = static_cast<OTF2_GroupRef>(k + 1);
      std::vector<std::uint64_t> local;
      if (!c.isSelf)
        for (std::int32_t w : c.worldRanks) local.push_back(static_cast<std::uint64_t>(w));
      check(OTF2_GlobalDefWriter_WriteGroup(
                g, group, empty, c.isSelf ? OTF2_GROUP_TYPE_COMM_SELF : OTF2_GROUP_TYPE_COMM_GROUP,
                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(local.size()),
                local.data()),
            what);
      check(OTF2_GlobalDefWriter_WriteComm(g, static_cast<OTF2_CommRef>(k), commName[k], group,
                                           OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
            what);
    }
    check(OTF2_Archive_CloseGlobalDefWriter(archive_, g), what);
  }

  std::string path_;
  std::optional<Otf2Share> share_;  // perwiz-mpi's processes writing together
  otf2::ArchivePaths files_;
  OTF2_Archive* archive_ = nullptr;
  bool wholeDir_ = false;  // a directory path that did not exist: the archive is moved in whole
  std::optional<OutputDirectory> output_;  // the temporary directory until end() publishes it
  std::uint32_t ranks_ = 0;
  std::vector<ThreadHeader> threads_;  // written after the ranks (locations ranks_ + i)
  std::uint32_t locations_ = 0;        // ranks and threads
  std::vector<std::string> rankNames_;
  std::vector<OTF2_EvtWriter*> writers_;  // null: another process's rank, or closed (closeRank)
  std::vector<std::uint64_t> counted_;     // per rank: its events, once its writer is closed
  std::vector<std::vector<OpenCall>> open_;
  std::vector<TimeNs> lastTime_;  // per rank: the latest time written
  TimeNs endTime_ = 0;

  std::vector<Function> functions_;
  std::map<std::pair<std::string, EventKind>, std::uint32_t> functionIndex_;
  std::vector<std::uint32_t> otf2Id_;  // function -> region or parameter id
  std::uint32_t regions_ = 0;
  std::uint32_t parameters_ = 0;

  std::vector<Communicator> comms_;
  std::vector<std::unordered_map<std::int32_t, std::uint32_t>> localRank_;

  std::unordered_map<std::string, OTF2_StringRef> strings_;
  std::vector<std::string> stringList_;
};

// The sink of a share: records go to the writer; the first one it cannot write is held (the
// rest are dropped) until end(), where the processes agree on it before closing the archive
// together, instead of this process leaving the others waiting in a collective call.
class ShareGuard final : public Otf2GroupWriter {
 public:
  ShareGuard(const std::string& path, Otf2Share share) : w_(path, std::move(share)) {}
  void begin(const TraceHeader& h) override { w_.begin(h); }
  std::uint32_t defineFunction(const Function& f) override { return w_.defineFunction(f); }
  std::uint32_t defineComm(const Communicator& c) override { return w_.defineComm(c); }
  void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override {
    guard([&] { w_.enter(r, t, f); });
  }
  void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override {
    guard([&] { w_.leave(r, t, f); });
  }
  void point(std::uint32_t r, TimeNs t, std::uint32_t f, std::string_view l) override {
    guard([&] { w_.point(r, t, f, l); });
  }
  void send(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
            std::uint64_t q) override {
    guard([&] { w_.send(r, t, p, c, tag, b, q); });
  }
  void recv(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
            std::uint64_t q) override {
    guard([&] { w_.recv(r, t, p, c, tag, b, q); });
  }
  void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t q) override {
    guard([&] { w_.isendComplete(r, t, q); });
  }
  void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t q) override {
    guard([&] { w_.irecvRequest(r, t, q); });
  }
  void collective(std::uint32_t r, TimeNs t, MpiOp op, std::uint32_t c, std::int32_t root, std::uint64_t s,
                  std::uint64_t v) override {
    guard([&] { w_.collective(r, t, op, c, root, s, v); });
  }
  void end() override { w_.endWith(problem_); }
  void rankDone(std::uint32_t r) override {
    guard([&] { w_.closeRank(r); });
  }
  void endAfter(const std::string& problem) override {
    if (problem_.empty()) problem_ = problem;
    w_.endWith(problem_);
  }

 private:
  template <class Fn>
  void guard(Fn&& fn) {
    if (!problem_.empty()) return;
    problem_ = attempt(fn);
  }
  Otf2Writer w_;
  std::string problem_;
};

}  // namespace

std::unique_ptr<TraceSink> makeOtf2Writer(const std::string& path) {
  return std::make_unique<Otf2Writer>(path);
}

std::unique_ptr<Otf2GroupWriter> makeOtf2GroupWriter(const std::string& path, Otf2Share share) {
  return std::make_unique<ShareGuard>(path, std::move(share));
}

}  // namespace perwiz
