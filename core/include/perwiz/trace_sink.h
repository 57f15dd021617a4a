// A stream of trace records, rank by rank.
//
// Readers, the synthetic generator and the model itself (emitTrace) produce this stream;
// TraceBuilder (which builds the model) and the ALOG and OTF2 writers consume it. So every
// conversion is reader -> sink, and a writer never needs to know where records came from.
//
// Contract for producers:
//  * records of one rank arrive in non-decreasing time order (different ranks may interleave);
//  * functions and communicators are defined before records use them;
//  * peers and roots are world ranks; comm indexes refer to defineComm() results
//    (comm 0 = MPI_COMM_WORLD is predefined by begin()).
#pragma once

#include "perwiz/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz {

// A thread location of the trace (Trace::threads): its name and the MPI rank it belongs to
// (-1: none).
struct ThreadHeader {
  std::string name;
  std::int32_t rank = -1;
};

struct TraceHeader {
  TraceHeader(std::uint32_t rankCount = 0, std::vector<std::string> names = {}, std::vector<ThreadHeader> threadList = {})
      : ranks(rankCount), rankNames(std::move(names)), threads(std::move(threadList)) {}
  std::uint32_t ranks = 0;
  std::vector<std::string> rankNames;  // may be empty: "rank N"
  std::vector<ThreadHeader> threads;   // thread locations, numbered from 0 in this order
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;

  virtual void begin(const TraceHeader& header) = 0;
  // Returns the function index (dense, in definition order). Defining the same name and kind
  // twice returns the first index.
  virtual std::uint32_t defineFunction(const Function& f) = 0;
  // Returns the communicator index; index 0 (WORLD) exists after begin().
  virtual std::uint32_t defineComm(const Communicator& c) = 0;

  virtual void enter(std::uint32_t rank, TimeNs t, std::uint32_t function) = 0;
  virtual void leave(std::uint32_t rank, TimeNs t, std::uint32_t function) = 0;
  virtual void point(std::uint32_t rank, TimeNs t, std::uint32_t function,
                     std::string_view label) = 0;
  // request == 0: blocking send/receive (recorded inside the call).
  // request != 0: MpiIsend (send) or completed MpiIrecv (recv) of that request.
  virtual void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
                    std::int32_t tag, std::uint64_t bytes, std::uint64_t request) = 0;
  virtual void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
                    std::int32_t tag, std::uint64_t bytes, std::uint64_t request) = 0;
  virtual void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) = 0;
  virtual void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) = 0;
  // Recorded inside the collective's call (OTF2 MpiCollectiveEnd); root is a world rank or -1.
  virtual void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm,
                          std::int32_t root, std::uint64_t sent, std::uint64_t received) = 0;

  // The records of thread `thread` (TraceHeader::threads): states and point events only, in
  // time order per thread, on the sink's own stream (never through a part). A sink that does
  // not keep threads ignores them (the default); keepsThreads() says which.
  virtual void threadEnter(std::uint32_t thread, TimeNs t, std::uint32_t function) {
    (void)thread; (void)t; (void)function;
  }
  virtual void threadLeave(std::uint32_t thread, TimeNs t, std::uint32_t function) {
    (void)thread; (void)t; (void)function;
  }
  virtual void threadPoint(std::uint32_t thread, TimeNs t, std::uint32_t function, std::string_view label) {
    (void)thread; (void)t; (void)function; (void)label;
  }
  virtual bool keepsThreads() const { return false; }

  // Producers report anomalies here (the builder keeps them, writers may ignore them).
  virtual void warn(Diagnostic d) { (void)d; }
  // Where the following records come from (ALOG: 1-based line; OTF2: a free-form position
  // such as "location 3"); the builder uses it for the diagnostics it raises itself.
  virtual void setPosition(std::int64_t line, std::string_view position = {}) {
    (void)line; (void)position;
  }
  // Number of records read from the input file (Trace::sourceRecords).
  virtual void addSourceRecords(std::uint64_t n) { (void)n; }
  // Hint after begin(): about this many records will follow for the rank (OTF2 knows it per
  // location), so consumers can size their storage once instead of growing it.
  virtual void expectRecords(std::uint32_t rank, std::uint64_t records) { (void)rank; (void)records; }

  // Filling from several threads (a reader whose ranks are independent streams, OTF2): a sink
  // that takes the records of disjoint ranks at once returns a part for the ranks
  // [first, last) here, after begin() and the definitions; nullptr (the default): records come
  // on one thread only. A part is fed by one thread with its ranks' records (enter ... collective,
  // warn, addSourceRecords), never definitions, begin or end. When its thread is done, the
  // producer hands it back to joinPart() on the thread that opened it, parts in increasing
  // rank order; what a part keeps (its diagnostics, the functions it synthesised) is then
  // ordered as if its records had come on one thread.
  virtual std::unique_ptr<TraceSink> openPart(std::uint32_t first, std::uint32_t last) {
    (void)first; (void)last;
    return nullptr;
  }
  virtual void joinPart(std::unique_ptr<TraceSink> part) { (void)part; }
  // Hands back every part at once when their records interleave in the input, each record's
  // position set by setPosition(line) (ALOG: one line per record, the ranks' lines mixed): what
  // the parts keep is then ordered by that line, as if the records had come on one thread in
  // input order. The default joins them in turn.
  virtual void joinPartsByLine(std::vector<std::unique_ptr<TraceSink>> parts) {
    for (auto& part : parts) joinPart(std::move(part));
  }

  virtual void end() = 0;
};

// Feeds a built trace to a sink, record by record, rank by rank (the order writers expect):
// enters, message/collective records at their times inside their calls, leaves.
void emitTrace(const Trace& trace, TraceSink& sink);
// The records of one rank, as emitTrace delivers them (no begin, definitions or end): for
// writers fed rank by rank.
void emitRank(const Trace& trace, std::uint32_t rank, TraceSink& sink);
// The records of one thread (Trace::threads), as emitTrace delivers them after the ranks.
void emitThread(const Trace& trace, std::uint32_t thread, TraceSink& sink);

}  // namespace perwiz
