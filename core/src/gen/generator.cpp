// Synthetic trace generator: a bulk-synchronous loop of compute, point-to-point exchanges and
// one collective per step, streamed step by step into a TraceSink.
//
// Memory is O(ranks): per-rank clocks and the send times of the exchange in flight; nothing
// grows with the number of steps, so 10^8-event traces can go straight into a file writer.
//
// Reproducibility: std::mt19937_64 is fully specified by the standard, but the standard
// distributions are not (libstdc++ and libc++ give different numbers), so the few draws we
// need are derived from raw 64-bit outputs here.
#include "perwiz/generator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
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

  // A lone send plus a lone receive is one MPI_Sendrecv; anything else uses MPI_Send/MPI_Recv.
  static bool usesSendrecv(const Partners& p) { return p.dest >= 0 && p.sources.size() == 1; }

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
        clock_(n_, 0), sendTime_(n_, 0), nextRequest_(n_, 1) {}

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
    if (topo_.hasP2P()) {
      auto mpi = [&](MpiOp op) {
        return sink_.defineFunction({std::string(mpiOpName(op)), EventKind::MpiCall, op, ""});
      };
      if (spec_.nonBlocking) {
        isend_ = mpi(MpiOp::Isend);
        irecv_ = mpi(MpiOp::Irecv);
        waitall_ = mpi(MpiOp::Waitall);
      } else if (spec_.pattern == P2PPattern::MasterWorker) {  // one-way: see usesSendrecv()
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

  // Every send is the first thing a rank does in an exchange, so all send times are known
  // before any receive is placed: first fix them for all ranks, then emit rank by rank.
  void exchange(std::uint32_t tag) {
    for (std::uint32_t r = 0; r < n_; ++r) sendTime_[r] = clock_[r] + kCallOverheadNs;
    for (std::uint32_t r = 0; r < n_; ++r) {
      topo_.partners(r, partners_);
      if (spec_.nonBlocking)
        nonBlockingExchange(r, static_cast<std::int32_t>(tag));
      else
        blockingExchange(r, static_cast<std::int32_t>(tag));
    }
  }

  TimeNs arrival(std::int32_t source) const {
    return sendTime_[static_cast<std::uint32_t>(source)] + transferNs(spec_, spec_.messageBytes);
  }

  void blockingExchange(std::uint32_t r, std::int32_t tag) {
    const std::uint64_t bytes = spec_.messageBytes;
    TimeNs& t = clock_[r];
    if (Topology::usesSendrecv(partners_)) {
      std::int32_t src = partners_.sources[0];
      sink_.enter(r, t, sendrecv_);
      TimeNs sent = t + kCallOverheadNs;
      sink_.send(r, sent, partners_.dest, 0, tag, bytes, 0);
      TimeNs got = std::max(sent, arrival(src));
      sink_.recv(r, got, src, 0, tag, bytes, 0);
      t = got + kCallOverheadNs;
      sink_.leave(r, t, sendrecv_);
      return;
    }
    if (partners_.dest >= 0) {  // eager send: returns without waiting for the receiver
      sink_.enter(r, t, send_);
      sink_.send(r, t + kCallOverheadNs, partners_.dest, 0, tag, bytes, 0);
      t += 2 * kCallOverheadNs;
      sink_.leave(r, t, send_);
    }
    for (std::int32_t src : partners_.sources) {
      sink_.enter(r, t, recv_);
      TimeNs got = std::max(t + kCallOverheadNs, arrival(src));
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
      sink_.enter(r, t, isend_);
      sink_.send(r, t + kCallOverheadNs, partners_.dest, 0, tag, bytes, sendRequest);
      t += 2 * kCallOverheadNs;
      sink_.leave(r, t, isend_);
    }
    const std::uint64_t firstRecvRequest = nextRequest_[r];
    for (std::size_t i = 0; i < partners_.sources.size(); ++i) {
      sink_.enter(r, t, irecv_);
      sink_.irecvRequest(r, t + kCallOverheadNs, nextRequest_[r]++);
      t += 2 * kCallOverheadNs;
      sink_.leave(r, t, irecv_);
    }
    sink_.enter(r, t, waitall_);
    t += kCallOverheadNs;
    if (sendRequest != 0) sink_.isendComplete(r, t, sendRequest);
    for (std::size_t i = 0; i < partners_.sources.size(); ++i) {
      std::int32_t src = partners_.sources[i];
      t = std::max(t, arrival(src));
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
      sink_.enter(r, clock_[r], coll_);
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
  std::vector<TimeNs> sendTime_;   // per rank: send time in the current exchange
  std::vector<std::uint64_t> nextRequest_;  // per rank: next non-blocking request id (never 0)
  Partners partners_;
  std::uint32_t step_ = 0, sendrecv_ = 0, send_ = 0, recv_ = 0, isend_ = 0, irecv_ = 0,
                waitall_ = 0, coll_ = 0;
};

}  // namespace

// Model events = enter/leave pairs. Per rank and step: 1 PRGN_step state, the exchange calls
// (per exchange: Sendrecv = 1; Send/Recv = one per message; non-blocking = Isend + Irecvs +
// 1 Waitall; nothing for a rank without partner), and 1 collective call unless None. Random
// permutations are single cycles, so their counts equal Ring's and need no draws.
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
  return perStep * spec.steps;
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

void generateTrace(const GeneratorSpec& spec, TraceSink& sink) {
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
