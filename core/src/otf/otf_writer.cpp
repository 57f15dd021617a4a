// OTF (version 1) writer through libotf: `convert`, predicted and compensated
// traces as X.otf + X.0.def + X.<stream>.events (+ X.0.marker), uncompressed, one stream per
// rank, timer resolution 1 ns. Built in a temporary directory and moved into place only when
// complete; nothing existing is replaced (output_file.h).
//
// What OTF 1 cannot hold: request ids (an Isend's completion and an Irecv's posting call are
// not recorded: the send is written in its posting call, the receive in its completing call,
// as VampirTrace does), message and collective sizes above 2^32 - 1 bytes (clamped, with a
// warning on stderr of the CLI through the sink's warn()), negative tags (written as their
// 32-bit pattern; the reader gives them back).
//
// Every record's write is checked (libotf's definition writers give no usable status), and so is
// what reached the disk: libotf buffers each stream and does not report a failed flush at close (a full disk left
// 0-byte or cut streams behind a "converted" message), so end() reads the archive back with PerWiz's own OTF reader,
// counting records, and publishes it only when every record it was given is there. A process
// without records still gets its (empty) stream file: the master control file names it, and
// readers refuse an archive whose listed stream is missing (item 4).
//
// Threads (Trace::threads) are processes after the ranks, each with its own stream, whose
// parent is their rank's process (VampirTrace's layout); a thread of no rank has none, so it
// reads back as a rank unless the trace has no MPI function (otf_reader.cpp).
#include "perwiz/internal/otf_common.h"

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <otf.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace perwiz {
namespace {

constexpr std::uint32_t kGroupMpi = 1;
constexpr std::uint32_t kGroupApplication = 2;

class OtfWriter final : public TraceSink {
 public:
  explicit OtfWriter(std::string path) : path_(std::move(path)) {}
  ~OtfWriter() override {
    if (writer_) OTF_Writer_close(writer_);
    if (manager_) OTF_FileManager_close(manager_);
  }

  void begin(const TraceHeader& header) override {
    ranks_ = header.ranks;
    threads_ = static_cast<std::uint32_t>(header.threads.size());
    const std::uint32_t processes = ranks_ + threads_;
    const fs::path target(path_);
    const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
    const std::string stem = fs::path(otf::nameStub(target.filename().string())).string();
    std::vector<std::string> names;
    for (std::uint32_t p = 0; p < processes; ++p) names.push_back(otf::eventsFileName(stem, p + 1));
    names.push_back(stem + ".0.def");
    names.push_back(stem + ".0.marker");
    names.push_back(stem + ".otf");  // the anchor last: readers open it
    std::vector<std::string> finals;
    for (const auto& n : names) finals.push_back((fs::path(dir) / n).string());
    refuseExisting(finals, path_);
    output_.emplace(OutputDirectory::entries(dir, names, path_));
    // libotf's record writers report the process-wide otf_errno, which no libotf call clears:
    // one failed write (a full disk) made every later write of the process fail, a second
    // export after freeing space included. Cleared here; the read-back in end() is what
    // decides (another thread's libotf error could still set it meanwhile).
    otf_errno = OTF_NO_ERROR;
    const std::string stub = (fs::path(output_->workDir()) / stem).string();
    manager_ = OTF_FileManager_open(std::min<std::uint32_t>(std::max<std::uint32_t>(processes + 4, 8), 256));
    writer_ = manager_ ? OTF_Writer_open(stub.c_str(), std::max<std::uint32_t>(processes, 1), manager_) : nullptr;
    if (!writer_) throw TraceError(path_, "the OTF library cannot create the archive");
    stub_ = stub;
    processes_ = processes;
    for (std::uint32_t p = 0; p < processes; ++p) OTF_Writer_assignProcess(writer_, p + 1, p + 1);
    OTF_Writer_writeDefCreator(writer_, 0, "PerWiz");
    OTF_Writer_writeDefTimerResolution(writer_, 0, 1'000'000'000);
    std::vector<std::uint32_t> world;
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      const std::string name = r < header.rankNames.size() && !header.rankNames[r].empty()
                                   ? header.rankNames[r] : "rank " + std::to_string(r);
      OTF_Writer_writeDefProcess(writer_, 0, r + 1, name.c_str(), 0);
      world.push_back(r + 1);
    }
    for (std::uint32_t i = 0; i < threads_; ++i) {
      const ThreadHeader& th = header.threads[i];
      const std::string name = th.name.empty() ? "thread " + std::to_string(i) : th.name;
      const std::uint32_t parent = th.rank >= 0 && static_cast<std::uint32_t>(th.rank) < ranks_ ? th.rank + 1 : 0;
      OTF_Writer_writeDefProcess(writer_, 0, ranks_ + i + 1, name.c_str(), parent);
    }
    OTF_Writer_writeDefProcessGroup(writer_, 0, 1, "MPI_COMM_WORLD", ranks_, world.data());
    OTF_Writer_writeDefFunctionGroup(writer_, 0, kGroupMpi, "MPI");
    OTF_Writer_writeDefFunctionGroup(writer_, 0, kGroupApplication, "Application");
    comms_ = 1;
  }

  std::uint32_t defineFunction(const Function& f) override {
    for (std::uint32_t i = 0; i < functions_.size(); ++i)
      if (functions_[i].name == f.name && functions_[i].kind == f.kind) return i;
    const auto idx = static_cast<std::uint32_t>(functions_.size());
    functions_.push_back(f);
    if (f.kind == EventKind::Point) {
      OTF_Writer_writeDefMarker(writer_, 0, idx + 1, f.name.c_str(), OTF_MARKER_TYPE_HINT);
    } else {
      OTF_Writer_writeDefFunction(writer_, 0, idx + 1, f.name.c_str(),
                                        f.kind == EventKind::MpiCall ? kGroupMpi : kGroupApplication, 0);
    }
    return idx;
  }

  std::uint32_t defineComm(const Communicator& c) override {
    std::vector<std::uint32_t> procs;
    if (c.isSelf) {
      // MPI_COMM_SELF style (each caller alone): OTF has no such notion, so a group without
      // members, which the reader takes for one (as OTF2's empty COMM_GROUP). A group {rank 0}
      // made every other rank's calls on it foreign to it.
    } else {
      for (std::int32_t r : c.worldRanks) procs.push_back(static_cast<std::uint32_t>(r) + 1);
    }
    const std::uint32_t id = ++comms_;
    OTF_Writer_writeDefProcessGroup(writer_, 0, id, c.name.c_str(), static_cast<std::uint32_t>(procs.size()),
                                          procs.data());
    return id - 1;
  }

  void enter(std::uint32_t rank, TimeNs t, std::uint32_t function) override {
    record(OTF_Writer_writeEnter(writer_, ticks(t), function + 1, rank + 1, 0));
  }
  void leave(std::uint32_t rank, TimeNs t, std::uint32_t function) override {
    record(OTF_Writer_writeLeave(writer_, ticks(t), function + 1, rank + 1, 0));
  }
  void point(std::uint32_t rank, TimeNs t, std::uint32_t function, std::string_view label) override {
    const std::string text(label);
    record(OTF_Writer_writeMarker(writer_, ticks(t), rank + 1, function + 1, text.c_str()));
  }
  void threadEnter(std::uint32_t thread, TimeNs t, std::uint32_t function) override {
    if (thread < threads_) enter(ranks_ + thread, t, function);
  }
  void threadLeave(std::uint32_t thread, TimeNs t, std::uint32_t function) override {
    if (thread < threads_) leave(ranks_ + thread, t, function);
  }
  void threadPoint(std::uint32_t thread, TimeNs t, std::uint32_t function, std::string_view label) override {
    if (thread < threads_) point(ranks_ + thread, t, function, label);
  }
  bool keepsThreads() const override { return true; }
  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t) override {
    if (peer < 0) {
      ++droppedUnknownPeer_;
      return;
    }
    record(OTF_Writer_writeSendMsg(writer_, ticks(t), rank + 1, static_cast<std::uint32_t>(peer) + 1, comm + 1,
                                  static_cast<std::uint32_t>(tag), size32(bytes), 0));
  }
  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t) override {
    if (peer < 0) {
      ++droppedUnknownPeer_;
      return;
    }
    record(OTF_Writer_writeRecvMsg(writer_, ticks(t), rank + 1, static_cast<std::uint32_t>(peer) + 1, comm + 1,
                                  static_cast<std::uint32_t>(tag), size32(bytes), 0));
  }
  void isendComplete(std::uint32_t, TimeNs, std::uint64_t) override {}
  void irecvRequest(std::uint32_t, TimeNs, std::uint64_t) override {}
  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm, std::int32_t root,
                  std::uint64_t sent, std::uint64_t received) override {
    record(OTF_Writer_writeCollectiveOperation(writer_, ticks(t), rank + 1, collectiveId(op), comm + 1,
                                              root >= 0 ? static_cast<std::uint32_t>(root) + 1 : 0,
                                              size32(sent), size32(received), 0, 0));
  }

  void end() override {
    if (!writer_) return;
    // The trace starts at 0 (the model's origin), not at its first record.
    OTF_Writer_writeDefTimeRange(writer_, 0, 0, maxTicks_, nullptr);
    errno = 0;
    const int ok = OTF_Writer_close(writer_);
    const int err = errno;
    writer_ = nullptr;
    OTF_FileManager_close(manager_);
    manager_ = nullptr;
    if (!ok)
      throw TraceError(path_, "the OTF library could not finish writing the archive: " +
                                  (err != 0 ? cannotWrite(err) : std::string("disk full?")));
    createEmptyStreams();
    verify();
    if (clamped_ > 0 || droppedUnknownPeer_ > 0)
      std::fprintf(stderr, "%s: %llu size(s) above 4 GiB clamped (OTF 1 stores 32 bits), %llu endpoint(s) without partner not written\n",
                   path_.c_str(), static_cast<unsigned long long>(clamped_),
                   static_cast<unsigned long long>(droppedUnknownPeer_));
    output_->commit();
  }

 private:
  std::uint64_t ticks(TimeNs t) {
    const std::uint64_t v = t < 0 ? 0 : static_cast<std::uint64_t>(t);
    maxTicks_ = std::max(maxTicks_, v);
    return v;
  }
  std::uint32_t size32(std::uint64_t b) {
    if (b > std::numeric_limits<std::uint32_t>::max()) {
      ++clamped_;
      return std::numeric_limits<std::uint32_t>::max();
    }
    return static_cast<std::uint32_t>(b);
  }
  void check(int ok) {
    if (!ok) throw TraceError(path_, "the OTF library failed to write a record (disk full?)");
  }
  void record(int ok) {
    check(ok);
    ++records_;
  }

  // libotf creates a stream's file at its first record: a process without any gets an empty
  // file (a stream without records), which OTF readers (PerWiz's, otfprint) accept.
  void createEmptyStreams() {
    for (std::uint32_t p = 0; p < processes_; ++p) {
      const std::string file = otf::eventsFileName(stub_, p + 1);
      if (fs::exists(file)) continue;
      std::FILE* f = std::fopen(file.c_str(), "wb");
      if (!f || std::fclose(f) != 0) throw TraceError(path_, file + ": " + cannotWrite(errno));
    }
  }

  // Reads the archive back (from its temporary place) and counts its records.
  void verify() {
    struct Counter final : TraceSink {
      std::uint64_t records = 0;
      std::uint32_t locations = 0;
      std::uint32_t functions = 0, comms = 1;
      void begin(const TraceHeader& h) override { locations = h.ranks + static_cast<std::uint32_t>(h.threads.size()); }
      std::uint32_t defineFunction(const Function&) override { return functions++; }
      std::uint32_t defineComm(const Communicator&) override { return comms++; }
      void enter(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
      void leave(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
      void point(std::uint32_t, TimeNs, std::uint32_t, std::string_view) override { ++records; }
      void send(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t, std::uint64_t) override {
        ++records;
      }
      void recv(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t, std::uint64_t) override {
        ++records;
      }
      void isendComplete(std::uint32_t, TimeNs, std::uint64_t) override {}
      void irecvRequest(std::uint32_t, TimeNs, std::uint64_t) override {}
      void collective(std::uint32_t, TimeNs, MpiOp, std::uint32_t, std::int32_t, std::uint64_t, std::uint64_t) override {
        ++records;
      }
      void threadEnter(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
      void threadLeave(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
      void threadPoint(std::uint32_t, TimeNs, std::uint32_t, std::string_view) override { ++records; }
      bool keepsThreads() const override { return true; }
      void end() override {}
    } counter;
    LoadOptions opts;
    opts.pipelined = false;
    try {
      readOtf(stub_ + ".otf", counter, opts);
    } catch (const std::exception& e) {
      throw TraceError(path_, std::string("the archive written does not read back (disk full?): ") + e.what());
    }
    if (counter.locations != processes_)
      throw TraceError(path_, "the archive written defines " + std::to_string(counter.locations) + " of the " +
                                  std::to_string(processes_) + " processes written (disk full?)");
    if (counter.records != records_)
      throw TraceError(path_, "the archive written holds " + std::to_string(counter.records) + " of the " +
                                  std::to_string(records_) + " records written (disk full?)");
  }
  std::uint32_t collectiveId(MpiOp op) {
    auto it = collOps_.find(op);
    if (it != collOps_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(collOps_.size() + 1);
    std::uint32_t type = OTF_COLLECTIVE_TYPE_ALL2ALL;
    switch (op) {
      case MpiOp::Barrier: type = OTF_COLLECTIVE_TYPE_BARRIER; break;
      case MpiOp::Bcast: case MpiOp::Scatter: case MpiOp::Scatterv: type = OTF_COLLECTIVE_TYPE_ONE2ALL; break;
      case MpiOp::Reduce: case MpiOp::Gather: case MpiOp::Gatherv: type = OTF_COLLECTIVE_TYPE_ALL2ONE; break;
      default: break;
    }
    const std::string name(mpiOpName(op).empty() ? std::string_view("MPI_?") : mpiOpName(op));
    OTF_Writer_writeDefCollectiveOperation(writer_, 0, id, name.c_str(), type);
    collOps_[op] = id;
    return id;
  }

  std::string path_;
  std::string stub_;  // the archive's name stub in the temporary directory
  std::uint32_t processes_ = 0;
  std::uint64_t records_ = 0;  // records handed to libotf (the read-back must find them all)
  std::optional<OutputDirectory> output_;
  OTF_FileManager* manager_ = nullptr;
  OTF_Writer* writer_ = nullptr;
  std::uint32_t ranks_ = 0, threads_ = 0, comms_ = 0;
  std::vector<Function> functions_;
  std::map<MpiOp, std::uint32_t> collOps_;
  std::uint64_t clamped_ = 0, droppedUnknownPeer_ = 0, maxTicks_ = 0;
};

}  // namespace

std::unique_ptr<TraceSink> makeOtfWriter(const std::string& path) {
  return std::make_unique<OtfWriter>(path);
}

}  // namespace perwiz
