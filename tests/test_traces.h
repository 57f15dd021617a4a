// Traces for the replay and advisor tests: hand-built ones with exact times (Tb) and random
// generated ones.
#pragma once

#include "perwiz/generator.h"
#include "perwiz/network_model.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace perwiz::test {

using Rank = std::uint32_t;

// Hand-built traces. Every call is given with its measured [enter, leave]; message and
// collective records are put inside the call (sends at its enter, receives at its leave).
// Callers emit each rank's records in time order.
class Tb {
 public:
  explicit Tb(std::uint32_t ranks) { b_.begin({ranks, {}}); }

  void state(Rank r, TimeNs begin, TimeNs end, const std::string& name) {
    // Only for states that contain no records of the rank (else use open/close).
    open(r, begin, name);
    close(r, end, name);
  }
  void open(Rank r, TimeNs t, const std::string& name) { b_.enter(r, t, userFn(name)); }
  void close(Rank r, TimeNs t, const std::string& name) { b_.leave(r, t, userFn(name)); }

  void call(Rank r, TimeNs e, TimeNs x, const std::string& name) {
    const auto f = mpiFn(name);
    b_.enter(r, e, f);
    b_.leave(r, x, f);
  }
  void send(Rank r, TimeNs e, TimeNs x, Rank to, std::uint64_t bytes = 8, int tag = 0,
            const char* name = "MPI_Send") {
    const auto f = mpiFn(name);
    b_.enter(r, e, f);
    b_.send(r, e, static_cast<std::int32_t>(to), 0, tag, bytes, 0);
    b_.leave(r, x, f);
  }
  void recv(Rank r, TimeNs e, TimeNs x, Rank from, std::uint64_t bytes = 8, int tag = 0) {
    const auto f = mpiFn("MPI_Recv");
    b_.enter(r, e, f);
    b_.recv(r, x, static_cast<std::int32_t>(from), 0, tag, bytes, 0);
    b_.leave(r, x, f);
  }
  void sendrecv(Rank r, TimeNs e, TimeNs x, Rank to, std::uint64_t outBytes, Rank from,
                std::uint64_t inBytes) {
    const auto f = mpiFn("MPI_Sendrecv");
    b_.enter(r, e, f);
    b_.send(r, e, static_cast<std::int32_t>(to), 0, 0, outBytes, 0);
    b_.recv(r, x, static_cast<std::int32_t>(from), 0, 0, inBytes, 0);
    b_.leave(r, x, f);
  }
  // Exchange with one peer, the same size both ways.
  void sendrecv(Rank r, TimeNs e, TimeNs x, Rank peer, std::uint64_t bytes = 8) {
    sendrecv(r, e, x, peer, bytes, peer, bytes);
  }
  void isend(Rank r, TimeNs e, TimeNs x, Rank to, std::uint64_t bytes, std::uint64_t req) {
    const auto f = mpiFn("MPI_Isend");
    b_.enter(r, e, f);
    b_.send(r, e, static_cast<std::int32_t>(to), 0, 0, bytes, req);
    b_.leave(r, x, f);
  }
  void irecv(Rank r, TimeNs e, TimeNs x, std::uint64_t req) {
    const auto f = mpiFn("MPI_Irecv");
    b_.enter(r, e, f);
    b_.irecvRequest(r, e, req);
    b_.leave(r, x, f);
  }
  // One request completed by a Wait/Waitall: an Isend's (peer unused) or an Irecv's.
  struct Done {
    bool isSend;
    std::uint64_t req;
    Rank peer = 0;
    std::uint64_t bytes = 0;
  };
  void wait(Rank r, TimeNs e, TimeNs x, const std::vector<Done>& done, const char* name = "MPI_Waitall") {
    const auto f = mpiFn(name);
    b_.enter(r, e, f);
    for (const Done& d : done) {
      if (d.isSend) b_.isendComplete(r, x, d.req);
      else b_.recv(r, x, static_cast<std::int32_t>(d.peer), 0, 0, d.bytes, d.req);
    }
    b_.leave(r, x, f);
  }
  void coll(Rank r, TimeNs e, TimeNs x, MpiOp op, std::int32_t root = -1, std::uint64_t bytes = 8) {
    const auto f = mpiFn(std::string(mpiOpName(op)));
    b_.enter(r, e, f);
    b_.collective(r, x, op, 0, root, bytes, bytes);
    b_.leave(r, x, f);
  }

  // A Waitall completing Isend requests `sends` and Irecv requests `recvs` (from `peer`).
  void waitall(Rank r, TimeNs e, TimeNs x, const std::vector<std::uint64_t>& sends,
               const std::vector<std::uint64_t>& recvs, Rank peer, std::uint64_t bytes = 8) {
    std::vector<Done> done;
    for (std::uint64_t q : sends) done.push_back({true, q});
    for (std::uint64_t q : recvs) done.push_back({false, q, peer, bytes});
    wait(r, e, x, done);
  }
  void barrier(Rank r, TimeNs e, TimeNs x) { coll(r, e, x, MpiOp::Barrier, -1, 0); }

  Trace take() {
    b_.end();
    return b_.take();
  }

 private:
  std::uint32_t mpiFn(const std::string& name) {
    return b_.defineFunction({name, EventKind::MpiCall, classifyMpiName(name), ""});
  }
  std::uint32_t userFn(const std::string& name) {
    return b_.defineFunction({name, EventKind::UserState, MpiOp::None, ""});
  }
  TraceBuilder b_{"hand", "test"};
};

// The small LogGPS model of the hand-derived tests: L = 1000 ns, o = 100 ns, S = 1024 B, g = G
// = 0, so λ(k) = o + L = 1100 ns for an eager message; measured costs.
inline Scenario simpleScenario(std::vector<Hypothesis> hs = {}) {
  LogGpsParams p;
  p.name = "simple";
  p.L = 1000;
  p.o = 100;
  p.S = 1024;
  return Scenario{std::make_shared<LogGpsModel>(p), CostMode::Measured, std::move(hs)};
}

// A random generated trace: 2..maxRanks ranks, 2..maxSteps steps, every pattern, blocking or
// not, every collective kind, sizes on both sides of the default model's S = 16383 bytes (so
// that volume balancing can switch protocols).
inline Trace randomTrace(std::mt19937_64& rng, std::uint32_t maxRanks = 7, std::uint32_t maxSteps = 6) {
  GeneratorSpec s;
  s.ranks = 2 + static_cast<std::uint32_t>(rng() % (maxRanks - 1));
  s.steps = 2 + static_cast<std::uint32_t>(rng() % (maxSteps - 1));
  s.seed = rng();
  const P2PPattern patterns[] = {P2PPattern::Ring, P2PPattern::Pairs, P2PPattern::MasterWorker,
                                 P2PPattern::Random, P2PPattern::None};
  s.pattern = patterns[rng() % 5];
  s.nonBlocking = rng() % 2;
  const MpiOp colls[] = {MpiOp::Allreduce, MpiOp::Bcast, MpiOp::Reduce, MpiOp::Barrier, MpiOp::Scan, MpiOp::None};
  s.collective = colls[rng() % 6];
  s.imbalance = static_cast<double>(rng() % 90) / 100.0;
  s.messagesPerStep = 1 + static_cast<std::uint32_t>(rng() % 3);
  const std::uint64_t sizes[] = {64, 8000, 16383, 16384, 40000};
  s.messageBytes = sizes[rng() % 5];
  TraceBuilder b("random", "generated");
  generateTrace(s, b);
  return b.take();
}

}  // namespace perwiz::test
