// TraceBuilder: the one place where raw records become the Trace model.
//
// It keeps a per-rank stack of open states, attaches message and collective records to the
// innermost open MPI call, links non-blocking requests to their completing calls, and on end()
// closes what is still open, matches messages (non-overtaking, posting order), matches
// collectives (order per communicator), indexes MPI calls and computes parallel steps.
#pragma once

#include "perwiz/trace_sink.h"

#include <memory>

namespace perwiz {

class TraceBuilder final : public TraceSink {
 public:
  explicit TraceBuilder(std::string source = {}, std::string format = {});
  ~TraceBuilder() override;

  void begin(const TraceHeader& header) override;
  std::uint32_t defineFunction(const Function& f) override;
  std::uint32_t defineComm(const Communicator& c) override;
  void enter(std::uint32_t rank, TimeNs t, std::uint32_t function) override;
  void leave(std::uint32_t rank, TimeNs t, std::uint32_t function) override;
  void point(std::uint32_t rank, TimeNs t, std::uint32_t function,
             std::string_view label) override;
  void threadEnter(std::uint32_t thread, TimeNs t, std::uint32_t function) override;
  void threadLeave(std::uint32_t thread, TimeNs t, std::uint32_t function) override;
  void threadPoint(std::uint32_t thread, TimeNs t, std::uint32_t function, std::string_view label) override;
  bool keepsThreads() const override { return true; }
  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override;
  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override;
  void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) override;
  void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) override;
  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm,
                  std::int32_t root, std::uint64_t sent, std::uint64_t received) override;
  void warn(Diagnostic d) override;
  void end() override;

  void setPosition(std::int64_t line, std::string_view position = {}) override;
  void addSourceRecords(std::uint64_t n) override;
  void expectRecords(std::uint32_t rank, std::uint64_t records) override;
  // Parts fill disjoint ranks from other threads (TraceSink::openPart). Definitions are over
  // when the first part opens; a part's synthetic calls and diagnostics wait for joinPart().
  std::unique_ptr<TraceSink> openPart(std::uint32_t first, std::uint32_t last) override;
  void joinPart(std::unique_ptr<TraceSink> part) override;
  void joinPartsByLine(std::vector<std::unique_ptr<TraceSink>> parts) override;

  // Keep every function defined, used or not (by default end() drops those no event uses). A
  // share of a trace (LoadOptions::shareIndex) keeps them: every process of perwiz-mpi then has
  // the whole table in the file's order, which its predicted trace's table is taken from.
  void keepUnusedFunctions();
  // The records of some ranks only (an OTF2 share of perwiz-mpi): messages and collectives
  // that reach the other ranks cannot be matched here, and the other ranks take part in no
  // parallel step, so matching and the steps say nothing — their warnings would be the
  // share's, not the trace's (the counts stay as matched).
  void skipMatchingDiagnostics();

  // Valid after end(). Moves the trace out.
  Trace take();

  // What is being built, for an out-of-memory message: "the model of rank 3 (1048576 events,
  // 2048 message endpoints)" while records arrive, the matching and indexes during end().
  std::string activity() const;

 private:
  class Part;
  struct Impl;
  std::unique_ptr<Impl> d;
};

}  // namespace perwiz
