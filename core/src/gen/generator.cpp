// Synthetic trace generator: a bulk-synchronous loop of compute, point-to-point exchanges and
// one collective per step, streamed step by step into a TraceSink.
//
// Memory is O(ranks): per-rank clocks and the times of the exchange in flight; nothing grows
// with the number of steps, so 10^8-event traces can go straight into a file writer.
//
// Causal consistency: the replay (core/src/replay/replay_program.cpp, docs/model.md §2) derives
// lower bounds on the return of calls from their partners' *enter* times; the generator places
// every call so that each bound holds under the default network model (myrinet-score), so
// `perwiz-cli predict` finds no clock skew and no cycle on a generated trace:
//   * a call completing a receive (MPI_Recv, MPI_Sendrecv, the Waitall of an Irecv) returns
//     after the receive record, which lies no earlier than the sender's posting call enter +
//     receiveDelay(role, k) (and no earlier than send record + latency + k / bandwidth, the
//     spec's own placement);
//   * a rendezvous send (k > S: MPI_Send, MPI_Sendrecv, the Waitall of an Isend) returns after
//     its receiver's posting call has been entered and has posted (its enter + the call
//     overhead), which is more than the replay's bound (that enter − λ(k));
//   * a collective returns on every member at one time after the last member's enter, which
//     meets every collective rule (all wait for all, members for the root, root for the
//     members, prefix).
// Each rank's send is the first call of an exchange and its receive posts are known from the
// exchange's start (or, for the master's chain of MPI_Recv, from the senders' posts), so every
// bound is computed before the calls are emitted, without cycles. The one shape that would
// need one, a cycle of blocking MPI_Send-then-MPI_Recv with rendezvous messages, deadlocks in
// MPI too and is refused (generatorSpecProblem).
//
// Reproducibility: std::mt19937_64 is fully specified by the standard, but the standard
// distributions are not (libstdc++ and libc++ give different numbers), so the few draws we
// need are derived from raw 64-bit outputs here.
#include "perwiz/generator.h"
#include "perwiz/network_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace perwiz {
namespace {

// Time from entering an MPI call to its first record, and from its last record to leaving:
// keeps every message record strictly inside its call, as real tracers record them.
constexpr TimeNs kCallOverheadNs = 500;

// Uniform double in [0, 1) from the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Uniform integer in [0, n), n > 0, without modulo bias (rejection of the short last block).
std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

// Who a rank sends to / receives from in one exchange. The generator and the event count
// both use these, so the count is exact by construction.
struct Partners {
  std::int32_t dest = -1;                // -1: this rank sends nothing
  std::vector<std::int32_t> sources;     // in receive order
};

class Topology {
 public:
  explicit Topology(const GeneratorSpec& spec) : spec_(spec), n_(spec.ranks) {}

  bool hasP2P() const { return spec_.pattern != P2PPattern::None && spec_.messagesPerStep > 0; }

  // For Random: a single-cycle permutation (Sattolo's algorithm), so no rank sends to itself
  // unless it is alone, and every rank sends and receives exactly once per exchange.
  void drawPermutation(std::mt19937_64& rng) {
    cycle_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) cycle_[i] = i;
    for (std::uint32_t i = n_; i > 1; --i) {
      std::uint64_t j = uniformBelow(rng, i - 1);
      std::swap(cycle_[i - 1], cycle_[j]);
    }
    inverse_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) inverse_[cycle_[i]] = i;
  }

  void partners(std::uint32_t r, Partners& p) const {
    p.dest = -1;
    p.sources.clear();
    if (!hasP2P()) return;
    const auto n = static_cast<std::int32_t>(n_);
    const auto rr = static_cast<std::int32_t>(r);
    switch (spec_.pattern) {
      case P2PPattern::None: break;
      case P2PPattern::Ring:
        p.dest = (rr + 1) % n;
        p.sources.push_back((rr + n - 1) % n);
        break;
      case P2PPattern::Pairs:
        if ((rr ^ 1) < n) {  // with an odd rank count the last rank has no partner
          p.dest = rr ^ 1;
          p.sources.push_back(rr ^ 1);
        }
        break;
      case P2PPattern::MasterWorker:
        if (rr != 0) {
          p.dest = 0;
        } else {
          for (std::int32_t w = 1; w < n; ++w) p.sources.push_back(w);
        }
        break;
      case P2PPattern::Random:
        p.dest = static_cast<std::int32_t>(cycle_[r]);
        p.sources.push_back(static_cast<std::int32_t>(inverse_[r]));
        break;
    }
  }

  // In a blocking exchange, a lone send plus a lone receive is one MPI_Sendrecv unless the spec
  // asks for MPI_Send then MPI_Recv; anything else uses MPI_Send/MPI_Recv.
  bool usesSendrecv(const Partners& p) const {
    return spec_.blockingCalls == BlockingCalls::Sendrecv && p.dest >= 0 && p.sources.size() == 1;
  }

  // MPI call events of one rank in one exchange.
  std::uint64_t callsPerExchange(const Partners& p) const {
    const std::uint64_t sends = p.dest >= 0 ? 1 : 0;
    const std::uint64_t recvs = p.sources.size();
    if (sends + recvs == 0) return 0;
    if (spec_.nonBlocking) return sends + recvs + 1;  // Isend/Irecv each, one Waitall
    if (usesSendrecv(p)) return 1;
    return sends + recvs;
  }

 private:
  const GeneratorSpec& spec_;
  std::uint32_t n_;
  std::vector<std::uint32_t> cycle_, inverse_;
};

// True when some rank of the pattern both sends and receives in an exchange.
bool sendsAndReceives(const GeneratorSpec& spec) {
  switch (spec.pattern) {
    case P2PPattern::Ring: case P2PPattern::Random: return spec.ranks >= 1;
    case P2PPattern::Pairs: return spec.ranks >= 2;
    case P2PPattern::None: case P2PPattern::MasterWorker: return false;
  }
  return false;
}

TimeNs transferNs(const GeneratorSpec& spec, std::uint64_t bytes) {
  double t = spec.bandwidthBytesPerNs > 0 ? static_cast<double>(bytes) / spec.bandwidthBytesPerNs
                                          : 0.0;
  return spec.latencyNs + static_cast<TimeNs>(std::llround(t));
}

bool isRooted(MpiOp op) {
  switch (op) {
    case MpiOp::Bcast: case MpiOp::Gather: case MpiOp::Gatherv: case MpiOp::Scatter:
    case MpiOp::Scatterv: case MpiOp::Reduce:
      return true;
    default:
      return false;
  }
}

class Generator {
 public:
  Generator(const GeneratorSpec& spec, TraceSink& sink)
      : spec_(spec), sink_(sink), topo_(spec), rng_(spec.seed), n_(spec.ranks),
        clock_(n_, 0), start_(n_, 0), recvPost_(n_, 0), nextRequest_(n_, 1) {
    // Every message has the same size, so the model's answers are fixed for the whole trace.
    const std::unique_ptr<NetworkModel> model = defaultNetworkModel();
    rendezvous_ = model->synchronous(spec_.messageBytes);
    blockingRecvDelay_ = model->receiveDelay(CommRole::BlockingRecv, spec_.messageBytes);
    irecvDelay_ = model->receiveDelay(CommRole::IrecvComplete, spec_.messageBytes);
    transfer_ = transferNs(spec_, spec_.messageBytes);
  }

  void run() {
    TraceHeader header;
    header.ranks = n_;
    sink_.begin(header);
    defineFunctions();
    for (std::uint32_t s = 0; s < spec_.steps; ++s) step();
    sink_.end();
  }

 private:
  // Only the functions this shape uses, so writers declare no states that never occur.
  void defineFunctions() {
    step_ = sink_.defineFunction({"PRGN_step", EventKind::UserState, MpiOp::None, ""});
    if (spec_.insertEvery > 0) inserted_ = sink_.defineFunction({"inserted", EventKind::UserState, MpiOp::None, ""});
    if (topo_.hasP2P()) {
      auto mpi = [&](MpiOp op) {
        return sink_.defineFunction({std::string(mpiOpName(op)), EventKind::MpiCall, op, ""});
      };
      if (spec_.nonBlocking) {
        isend_ = mpi(MpiOp::Isend);
        irecv_ = mpi(MpiOp::Irecv);
        waitall_ = mpi(MpiOp::Waitall);
      } else if (spec_.pattern == P2PPattern::MasterWorker ||
                 spec_.blockingCalls == BlockingCalls::SendThenRecv) {  // see usesSendrecv()
        send_ = mpi(MpiOp::Send);
        recv_ = mpi(MpiOp::Recv);
      } else {
        sendrecv_ = mpi(MpiOp::Sendrecv);
      }
    }
    if (spec_.collective != MpiOp::None) {
      coll_ = sink_.defineFunction({std::string(mpiOpName(spec_.collective)), EventKind::MpiCall,
                                    spec_.collective, ""});
    }
  }

  // An MPI call's enter, after the zero-length state of GeneratorSpec::insertEvery where due.
  void enterCall(std::uint32_t r, TimeNs t, std::uint32_t fn) {
    if (spec_.insertEvery > 0) {
      if ((calls_[r] + spec_.insertPhase) % spec_.insertEvery == 0) {
        sink_.enter(r, t, inserted_);
        sink_.leave(r, t, inserted_);
      }
      ++calls_[r];
    }
    sink_.enter(r, t, fn);
  }

  // Draw order per step (part of the reproducibility contract): one imbalance draw per rank in
  // rank order, then, for Random, the step's permutation.
  void step() {
    for (std::uint32_t r = 0; r < n_; ++r) {
      sink_.enter(r, clock_[r], step_);
      double u = 2.0 * uniform01(rng_) - 1.0;
      double work = static_cast<double>(spec_.computeNs) * (1.0 + spec_.imbalance * u);
      clock_[r] += std::max<TimeNs>(0, static_cast<TimeNs>(std::llround(work)));
    }
    if (spec_.pattern == P2PPattern::Random && topo_.hasP2P()) topo_.drawPermutation(rng_);
    for (std::uint32_t x = 0; x < spec_.messagesPerStep && topo_.hasP2P(); ++x) exchange(x);
    if (spec_.collective != MpiOp::None) collective();
    for (std::uint32_t r = 0; r < n_; ++r) sink_.leave(r, clock_[r], step_);
  }

  // Every send is the first call of its rank in an exchange, so all send posts are known from
  // the exchange's start. Then every receive post is known too (closed form, or the master's
  // chain of receives, which depends only on the sends' posts); only then are calls emitted,
  // rank by rank, each rendezvous send waiting for its receiver's post.
  void exchange(std::uint32_t tag) {
    for (std::uint32_t r = 0; r < n_; ++r) start_[r] = clock_[r];
    for (std::uint32_t r = 0; r < n_; ++r) {
      topo_.partners(r, partners_);
      planReceivePosts(r);
    }
    for (std::uint32_t r = 0; r < n_; ++r) {
      topo_.partners(r, partners_);
      if (spec_.nonBlocking)
        nonBlockingExchange(r, static_cast<std::int32_t>(tag));
      else
        blockingExchange(r, static_cast<std::int32_t>(tag));
    }
  }

  // The receive record of the message from `source`, whose posting call (the source's first
  // call of the exchange) was entered at start_[source]: the later of the spec's placement
  // (send record + latency + bytes / bandwidth) and the model's delivery (post enter + the
  // receiving role's delay), and never before `notBefore`.
  TimeNs arrival(std::int32_t source, bool nonBlocking, TimeNs notBefore) const {
    const TimeNs post = start_[static_cast<std::uint32_t>(source)];
    const TimeNs delay = nonBlocking ? irecvDelay_ : blockingRecvDelay_;
    return std::max({notBefore, post + kCallOverheadNs + transfer_, post + delay});
  }

  // The earliest record time at which the send of rank r may complete: a rendezvous send waits
  // until its receiver's posting call has posted the receive (enter + call overhead).
  TimeNs sendCompletion(std::uint32_t r, TimeNs notBefore) const {
    return rendezvous_ ? std::max(notBefore, recvPost_[r] + kCallOverheadNs) : notBefore;
  }

  // recvPost_[s] = enter of the call of rank r that posts the receive of the message from s,
  // for every source s of r; the same arithmetic as the emitting functions below.
  void planReceivePosts(std::uint32_t r) {
    if (partners_.sources.empty()) return;
    TimeNs t = start_[r];
    const bool sends = partners_.dest >= 0;
    if (spec_.nonBlocking) {
      if (sends) t += 2 * kCallOverheadNs;  // the Isend
      for (std::int32_t src : partners_.sources) {
        recvPost_[static_cast<std::uint32_t>(src)] = t;
        t += 2 * kCallOverheadNs;  // the Irecv
      }
    } else if (topo_.usesSendrecv(partners_)) {
      recvPost_[static_cast<std::uint32_t>(partners_.sources[0])] = t;
    } else {
      // A rank that sends first is eager here: generatorSpecProblem() refuses rendezvous
      // MPI_Send-then-MPI_Recv, so the send returns after its two call overheads.
      if (sends) t += 2 * kCallOverheadNs;
      for (std::int32_t src : partners_.sources) {
        recvPost_[static_cast<std::uint32_t>(src)] = t;
        t = arrival(src, false, t + kCallOverheadNs) + kCallOverheadNs;
      }
    }
  }

  void blockingExchange(std::uint32_t r, std::int32_t tag) {
    const std::uint64_t bytes = spec_.messageBytes;
    TimeNs& t = clock_[r];
    if (topo_.usesSendrecv(partners_)) {
      std::int32_t src = partners_.sources[0];
      enterCall(r, t, sendrecv_);
      TimeNs sent = t + kCallOverheadNs;
      sink_.send(r, sent, partners_.dest, 0, tag, bytes, 0);
      TimeNs got = arrival(src, false, sent);
      sink_.recv(r, got, src, 0, tag, bytes, 0);
      t = sendCompletion(r, got) + kCallOverheadNs;
      sink_.leave(r, t, sendrecv_);
      return;
    }
    if (partners_.dest >= 0) {  // eager: returns without waiting; rendezvous: after the post
      enterCall(r, t, send_);
      sink_.send(r, t + kCallOverheadNs, partners_.dest, 0, tag, bytes, 0);
      t = sendCompletion(r, t + kCallOverheadNs) + kCallOverheadNs;
      sink_.leave(r, t, send_);
    }
    for (std::int32_t src : partners_.sources) {
      enterCall(r, t, recv_);
      TimeNs got = arrival(src, false, t + kCallOverheadNs);
      sink_.recv(r, got, src, 0, tag, bytes, 0);
      t = got + kCallOverheadNs;
      sink_.leave(r, t, recv_);
    }
  }

  void nonBlockingExchange(std::uint32_t r, std::int32_t tag) {
    if (partners_.dest < 0 && partners_.sources.empty()) return;
    const std::uint64_t bytes = spec_.messageBytes;
    TimeNs& t = clock_[r];
    std::uint64_t sendRequest = 0;
    if (partners_.dest >= 0) {
      sendRequest = nextRequest_[r]++;
      enterCall(r, t, isend_);
      sink_.send(r, t + kCallOverheadNs, partners_.dest, 0, tag, bytes, sendRequest);
      t += 2 * kCallOverheadNs;
      sink_.leave(r, t, isend_);
    }
    const std::uint64_t firstRecvRequest = nextRequest_[r];
    for (std::size_t i = 0; i < partners_.sources.size(); ++i) {
      enterCall(r, t, irecv_);
      sink_.irecvRequest(r, t + kCallOverheadNs, nextRequest_[r]++);
      t += 2 * kCallOverheadNs;
      sink_.leave(r, t, irecv_);
    }
    enterCall(r, t, waitall_);
    t += kCallOverheadNs;
    if (sendRequest != 0) {
      t = sendCompletion(r, t);
      sink_.isendComplete(r, t, sendRequest);
    }
    for (std::size_t i = 0; i < partners_.sources.size(); ++i) {
      std::int32_t src = partners_.sources[i];
      t = arrival(src, true, t);
      sink_.recv(r, t, src, 0, tag, bytes, firstRecvRequest + i);
    }
    t += kCallOverheadNs;
    sink_.leave(r, t, waitall_);
  }

  // Tree-shaped cost: ceil(log2 ranks) stages of one message each, after the last rank arrives.
  void collective() {
    const MpiOp op = spec_.collective;
    const std::uint64_t bytes = op == MpiOp::Barrier ? 0 : spec_.collectiveBytes;
    TimeNs lastEnter = 0;
    for (std::uint32_t r = 0; r < n_; ++r) lastEnter = std::max(lastEnter, clock_[r]);
    TimeNs stages = 0;
    while ((std::uint64_t{1} << stages) < n_) ++stages;
    const TimeNs end = lastEnter + kCallOverheadNs + stages * transferNs(spec_, bytes);
    const std::int32_t root = isRooted(op) ? 0 : -1;
    for (std::uint32_t r = 0; r < n_; ++r) {
      // Bcast: only the root sends; Reduce: only the root receives; others: everyone both.
      const bool isRoot = r == 0;
      std::uint64_t sent = bytes, received = bytes;
      if (op == MpiOp::Bcast) {
        sent = isRoot ? bytes : 0;
        received = isRoot ? 0 : bytes;
      }
      if (op == MpiOp::Reduce) received = isRoot ? bytes : 0;
      enterCall(r, clock_[r], coll_);
      sink_.collective(r, end, op, 0, root, sent, received);
      clock_[r] = end;
      sink_.leave(r, end, coll_);
    }
  }

  const GeneratorSpec& spec_;
  TraceSink& sink_;
  Topology topo_;
  std::mt19937_64 rng_;
  std::uint32_t n_;
  std::vector<TimeNs> clock_;      // per rank: time of its next record
  std::vector<TimeNs> start_;      // per rank: clock at the current exchange's start, which is
                                   // also the enter of its send's posting call
  std::vector<TimeNs> recvPost_;   // per sender: enter of the call posting its message's receive
  std::vector<std::uint64_t> nextRequest_;  // per rank: next non-blocking request id (never 0)
  Partners partners_;
  bool rendezvous_ = false;          // the default model sends messageBytes synchronously
  TimeNs blockingRecvDelay_ = 0;     // its receive delay for MPI_Recv / MPI_Sendrecv
  TimeNs irecvDelay_ = 0;            // ... and for the Waitall completing an Irecv
  TimeNs transfer_ = 0;              // the spec's latency + bytes / bandwidth
  std::uint32_t step_ = 0, sendrecv_ = 0, send_ = 0, recv_ = 0, isend_ = 0, irecv_ = 0, waitall_ = 0, coll_ = 0,
                inserted_ = 0;
  std::vector<std::uint64_t> calls_ = std::vector<std::uint64_t>(n_, 0);  // per rank: MPI calls so far
};

}  // namespace

// Model events = enter/leave pairs. Per rank and step: 1 PRGN_step state, the exchange calls
// (per exchange: Sendrecv = 1; Send/Recv (master-worker, or SendThenRecv) = one per message;
// non-blocking = Isend + Irecvs + 1 Waitall; nothing for a rank without partner), and 1
// collective call unless None. Random permutations are single cycles, so their counts equal
// Ring's and need no draws.
std::uint64_t generatedEventCount(const GeneratorSpec& spec) {
  GeneratorSpec ring = spec;
  if (ring.pattern == P2PPattern::Random) ring.pattern = P2PPattern::Ring;
  Topology topo(ring);
  Partners p;
  std::uint64_t perStep = 0;
  for (std::uint32_t r = 0; r < spec.ranks; ++r) {
    topo.partners(r, p);
    perStep += 1 + (spec.collective != MpiOp::None ? 1 : 0);
    perStep += std::uint64_t{spec.messagesPerStep} * topo.callsPerExchange(p);
  }
  if (spec.insertEvery == 0) return perStep * spec.steps;
  // Plus the inserted states: per rank, the call numbers c < calls with (c + phase) % every == 0.
  std::uint64_t inserted = 0;
  for (std::uint32_t r = 0; r < spec.ranks; ++r) {
    topo.partners(r, p);
    const std::uint64_t calls =
        std::uint64_t{spec.steps} *
        ((spec.collective != MpiOp::None ? 1 : 0) + std::uint64_t{spec.messagesPerStep} * topo.callsPerExchange(p));
    const std::uint64_t first = (spec.insertEvery - spec.insertPhase % spec.insertEvery) % spec.insertEvery;
    inserted += calls > first ? (calls - first + spec.insertEvery - 1) / spec.insertEvery : 0;
  }
  return perStep * spec.steps + inserted;
}

GeneratorSpec specForEventCount(GeneratorSpec spec, std::uint64_t events) {
  spec.steps = 1;
  const std::uint64_t perStep = generatedEventCount(spec);
  if (perStep == 0) return spec;  // no ranks: no step count reaches the target
  const std::uint64_t steps = std::max<std::uint64_t>(1, (events + perStep - 1) / perStep);
  if (steps > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("event count too large for the step counter");
  spec.steps = static_cast<std::uint32_t>(steps);
  return spec;
}

std::string generatorSpecProblem(const GeneratorSpec& spec) {
  if (spec.nonBlocking || spec.blockingCalls != BlockingCalls::SendThenRecv) return "";
  if (spec.messagesPerStep == 0 || !sendsAndReceives(spec)) return "";
  const std::unique_ptr<NetworkModel> model = defaultNetworkModel();
  if (!model->synchronous(spec.messageBytes)) return "";
  const LogGpsModel* loggps = dynamic_cast<const LogGpsModel*>(model.get());
  const std::string limit =
      loggps ? " (at most " + std::to_string(loggps->params().S) + " bytes)" : "";
  return "blocking MPI_Send then MPI_Recv with " + std::to_string(spec.messageBytes) +
         "-byte messages would deadlock: the default network model " + model->name() +
         " sends them in rendezvous mode, and every " + patternName(spec.pattern) +
         " rank sends first; use eager messages" + limit +
         ", MPI_Sendrecv or non-blocking exchanges";
}

void generateTrace(const GeneratorSpec& spec, TraceSink& sink) {
  if (std::string problem = generatorSpecProblem(spec); !problem.empty())
    throw std::invalid_argument(problem);
  Generator(spec, sink).run();
}

P2PPattern parsePattern(const std::string& name, bool* ok) {
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  P2PPattern p = P2PPattern::None;
  bool found = true;
  if (key == "none") p = P2PPattern::None;
  else if (key == "ring") p = P2PPattern::Ring;
  else if (key == "pairs") p = P2PPattern::Pairs;
  else if (key == "masterworker") p = P2PPattern::MasterWorker;
  else if (key == "random") p = P2PPattern::Random;
  else found = false;
  if (ok) *ok = found;
  return p;
}

// Unlike pattern names, '-' counts here: "sendrecv" and "send-recv" differ only by it.
BlockingCalls parseBlockingCalls(const std::string& name, bool* ok) {
  std::string key;
  for (char c : name)
    key += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  BlockingCalls b = BlockingCalls::Sendrecv;
  bool found = true;
  if (key == "sendrecv") b = BlockingCalls::Sendrecv;
  else if (key == "send-recv") b = BlockingCalls::SendThenRecv;
  else found = false;
  if (ok) *ok = found;
  return b;
}

const char* blockingCallsName(BlockingCalls c) {
  return c == BlockingCalls::SendThenRecv ? "send-recv" : "sendrecv";
}

const char* patternName(P2PPattern p) {
  switch (p) {
    case P2PPattern::None: return "none";
    case P2PPattern::Ring: return "ring";
    case P2PPattern::Pairs: return "pairs";
    case P2PPattern::MasterWorker: return "master-worker";
    case P2PPattern::Random: return "random";
  }
  return "none";
}

}  // namespace perwiz
