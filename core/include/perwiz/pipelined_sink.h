// PipelinedSink: runs the consumer of a record stream on its own thread.
//
// A reader spends its time decoding (libotf2, ALOG text) and the builder its time storing and
// indexing; with two cores the two can overlap. The producer's calls are batched into compact
// records and replayed into the target sink by a worker thread. Calls whose results the
// producer needs at once (begin, defineFunction, defineComm) and end() wait until the worker
// has caught up and then go to the target directly.
#pragma once

#include "perwiz/trace_sink.h"

#include <memory>

namespace perwiz {

class PipelinedSink final : public TraceSink {
 public:
  // 4096 records (192 KiB) per batch: small enough that a batch is still in L2 when the worker
  // reads it, large enough that hand-overs are rare (measured: docs/performance.md).
  explicit PipelinedSink(TraceSink& target, std::size_t batchRecords = 1u << 12);
  // Stops the worker; records not yet replayed are dropped (the producer failed).
  ~PipelinedSink() override;

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
  bool keepsThreads() const override;  // the target's
  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override;
  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override;
  void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) override;
  void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) override;
  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm,
                  std::int32_t root, std::uint64_t sent, std::uint64_t received) override;
  void warn(Diagnostic d) override;
  void setPosition(std::int64_t line, std::string_view position = {}) override;
  void addSourceRecords(std::uint64_t n) override;
  void expectRecords(std::uint32_t rank, std::uint64_t records) override;
  // Waits until the worker has replayed every record so far; rethrows what the target threw.
  // Then the producer may use the target directly.
  void flush();
  // Waits for the worker, then ends the target. Rethrows what the target threw, if anything.
  void end() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> d;
};

}  // namespace perwiz
