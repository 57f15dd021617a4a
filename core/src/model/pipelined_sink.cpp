#include "perwiz/pipelined_sink.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace perwiz {
namespace {

enum class RecType : std::uint8_t {
  Enter, Leave, Point, Send, Recv, IsendComplete, IrecvRequest, Collective, Warn, Position,
  SourceRecords, ThreadEnter, ThreadLeave, ThreadPoint,  // rank: the thread's index
};

// One producer call, flattened. Strings and diagnostics live in the batch beside the records.
struct Rec {
  RecType type;
  MpiOp op;
  std::uint32_t rank;
  std::uint32_t a;  // function or communicator
  std::int32_t peer;
  std::int32_t tag;
  TimeNs t;
  std::uint64_t bytes;
  std::uint64_t request;
  std::uint64_t extra;  // received bytes, or index into Batch::strings / Batch::diagnostics
};

struct Batch {
  std::vector<Rec> recs;
  std::vector<std::string> strings;
  std::vector<Diagnostic> diagnostics;
};

}  // namespace

struct PipelinedSink::Impl {
  TraceSink& target;
  std::size_t batchRecords;
  Batch current;
  std::mutex m;
  std::condition_variable wake;  // worker: work arrived or stop
  std::condition_variable idle;  // producer: queue drained or room freed
  std::deque<Batch> queue;
  std::vector<Batch> spare;  // replayed batches, kept with their capacity for reuse
  bool busy = false;
  bool stop = false;
  bool ended = false;
  std::exception_ptr error;
  std::thread worker;
  static constexpr std::size_t kMaxQueued = 4;  // bounds memory: a few batches in flight

  Impl(TraceSink& t, std::size_t n) : target(t), batchRecords(n) {
    current.recs.reserve(batchRecords);
    worker = std::thread([this] { run(); });
  }

  void run() {
    for (;;) {
      Batch b;
      {
        std::unique_lock lock(m);
        wake.wait(lock, [&] { return stop || !queue.empty(); });
        if (stop) return;
        b = std::move(queue.front());
        queue.pop_front();
        busy = true;
      }
      idle.notify_all();
      if (!error) {
        try {
          replay(b);
        } catch (...) {
          error = std::current_exception();
        }
      }
      b.recs.clear();
      b.strings.clear();
      b.diagnostics.clear();
      {
        std::lock_guard lock(m);
        busy = false;
        spare.push_back(std::move(b));
      }
      idle.notify_all();
    }
  }

  void replay(Batch& b) {
    for (const Rec& r : b.recs) {
      switch (r.type) {
        case RecType::Enter: target.enter(r.rank, r.t, r.a); break;
        case RecType::Leave: target.leave(r.rank, r.t, r.a); break;
        case RecType::Point:
          target.point(r.rank, r.t, r.a,
                       r.extra ? std::string_view(b.strings[r.extra - 1]) : std::string_view());
          break;
        case RecType::Send: target.send(r.rank, r.t, r.peer, r.a, r.tag, r.bytes, r.request); break;
        case RecType::Recv: target.recv(r.rank, r.t, r.peer, r.a, r.tag, r.bytes, r.request); break;
        case RecType::IsendComplete: target.isendComplete(r.rank, r.t, r.request); break;
        case RecType::IrecvRequest: target.irecvRequest(r.rank, r.t, r.request); break;
        case RecType::Collective:
          target.collective(r.rank, r.t, r.op, r.a, r.peer, r.bytes, r.extra);
          break;
        case RecType::Warn: target.warn(std::move(b.diagnostics[r.extra])); break;
        case RecType::Position: target.setPosition(r.t, b.strings[r.extra]); break;
        case RecType::SourceRecords: target.addSourceRecords(r.bytes); break;
        case RecType::ThreadEnter: target.threadEnter(r.rank, r.t, r.a); break;
        case RecType::ThreadLeave: target.threadLeave(r.rank, r.t, r.a); break;
        case RecType::ThreadPoint:
          target.threadPoint(r.rank, r.t, r.a,
                             r.extra ? std::string_view(b.strings[r.extra - 1]) : std::string_view());
          break;
      }
    }
  }

  void push(const Rec& r) {
    current.recs.push_back(r);
    if (current.recs.size() >= batchRecords) flush();
  }

  // Hands the current batch to the worker and continues in a recycled one: allocating fresh
  // batch memory every time would cost a page fault per few records.
  void flush() {
    if (current.recs.empty()) return;
    Batch next;
    {
      std::unique_lock lock(m);
      idle.wait(lock, [&] { return queue.size() < kMaxQueued; });
      queue.push_back(std::move(current));
      if (!spare.empty()) {
        next = std::move(spare.back());
        spare.pop_back();
      }
    }
    wake.notify_one();
    current = std::move(next);
    current.recs.reserve(batchRecords);
  }

  // After this the worker is idle and the producer may call the target directly.
  void drain() {
    flush();
    std::unique_lock lock(m);
    idle.wait(lock, [&] { return queue.empty() && !busy; });
    if (error) std::rethrow_exception(error);
  }

  std::uint64_t keep(std::string_view s) {
    current.strings.emplace_back(s);
    return current.strings.size() - 1;
  }
};

PipelinedSink::PipelinedSink(TraceSink& target, std::size_t batchRecords)
    : d(std::make_unique<Impl>(target, batchRecords ? batchRecords : 1)) {}

PipelinedSink::~PipelinedSink() {
  {
    std::lock_guard lock(d->m);
    d->stop = true;
  }
  d->wake.notify_all();
  d->worker.join();
}

void PipelinedSink::begin(const TraceHeader& h) {
  d->drain();
  d->target.begin(h);
}

std::uint32_t PipelinedSink::defineFunction(const Function& f) {
  d->drain();
  return d->target.defineFunction(f);
}

std::uint32_t PipelinedSink::defineComm(const Communicator& c) {
  d->drain();
  return d->target.defineComm(c);
}

void PipelinedSink::enter(std::uint32_t rank, TimeNs t, std::uint32_t fn) {
  d->push(Rec{RecType::Enter, MpiOp::None, rank, fn, 0, 0, t, 0, 0, 0});
}

void PipelinedSink::leave(std::uint32_t rank, TimeNs t, std::uint32_t fn) {
  d->push(Rec{RecType::Leave, MpiOp::None, rank, fn, 0, 0, t, 0, 0, 0});
}

void PipelinedSink::point(std::uint32_t rank, TimeNs t, std::uint32_t fn, std::string_view label) {
  std::uint64_t s = label.empty() ? 0 : d->keep(label) + 1;
  d->push(Rec{RecType::Point, MpiOp::None, rank, fn, 0, 0, t, 0, 0, s});
}

void PipelinedSink::threadEnter(std::uint32_t thread, TimeNs t, std::uint32_t fn) {
  d->push(Rec{RecType::ThreadEnter, MpiOp::None, thread, fn, 0, 0, t, 0, 0, 0});
}

void PipelinedSink::threadLeave(std::uint32_t thread, TimeNs t, std::uint32_t fn) {
  d->push(Rec{RecType::ThreadLeave, MpiOp::None, thread, fn, 0, 0, t, 0, 0, 0});
}

void PipelinedSink::threadPoint(std::uint32_t thread, TimeNs t, std::uint32_t fn, std::string_view label) {
  std::uint64_t s = label.empty() ? 0 : d->keep(label) + 1;
  d->push(Rec{RecType::ThreadPoint, MpiOp::None, thread, fn, 0, 0, t, 0, 0, s});
}

bool PipelinedSink::keepsThreads() const { return d->target.keepsThreads(); }

void PipelinedSink::send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
                         std::int32_t tag, std::uint64_t bytes, std::uint64_t request) {
  d->push(Rec{RecType::Send, MpiOp::None, rank, comm, peer, tag, t, bytes, request, 0});
}

void PipelinedSink::recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
                         std::int32_t tag, std::uint64_t bytes, std::uint64_t request) {
  d->push(Rec{RecType::Recv, MpiOp::None, rank, comm, peer, tag, t, bytes, request, 0});
}

void PipelinedSink::isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) {
  d->push(Rec{RecType::IsendComplete, MpiOp::None, rank, 0, 0, 0, t, 0, request, 0});
}

void PipelinedSink::irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) {
  d->push(Rec{RecType::IrecvRequest, MpiOp::None, rank, 0, 0, 0, t, 0, request, 0});
}

void PipelinedSink::collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm,
                               std::int32_t root, std::uint64_t sent, std::uint64_t received) {
  d->push(Rec{RecType::Collective, op, rank, comm, root, 0, t, sent, 0, received});
}

void PipelinedSink::warn(Diagnostic diag) {
  d->current.diagnostics.push_back(std::move(diag));
  d->push(Rec{RecType::Warn, MpiOp::None, 0, 0, 0, 0, 0, 0, 0, d->current.diagnostics.size() - 1});
}

void PipelinedSink::setPosition(std::int64_t line, std::string_view position) {
  std::uint64_t s = d->keep(position);
  d->push(Rec{RecType::Position, MpiOp::None, 0, 0, 0, 0, line, 0, 0, s});
}

void PipelinedSink::addSourceRecords(std::uint64_t n) {
  d->push(Rec{RecType::SourceRecords, MpiOp::None, 0, 0, 0, 0, 0, n, 0, 0});
}

void PipelinedSink::expectRecords(std::uint32_t rank, std::uint64_t records) {
  d->drain();  // a hint given before the records; cheap because it comes right after begin()
  d->target.expectRecords(rank, records);
}

void PipelinedSink::flush() { d->drain(); }

void PipelinedSink::end() {
  if (d->ended) return;
  d->drain();
  d->ended = true;
  d->target.end();
}

}  // namespace perwiz
