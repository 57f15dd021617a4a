// predictDistributed (perwiz/distributed.h): the phases of a parallel replay.
#include "perwiz/distributed.h"
#include "perwiz/compensation.h"
#include "perwiz/release.h"

#include "distributed_critical_path.h"
#include "distributed_sweep.h"
#include "distributed_zero_wait.h"
#include "distributed_evaluate.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/agree.h"
#include "ghosts.h"
#include "predicted_output.h"
#include "perwiz/internal/wire.h"

#include <algorithm>
#include <set>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>

namespace perwiz {
namespace {

// With PERWIZ_PHASES set, each phase's end prints this process's resident set to stderr (the
// per-phase numbers of docs/performance.md), as the replay program's builder does.
void phaseLog(std::uint32_t me, const char* phase) {
  if (!std::getenv("PERWIZ_PHASES")) return;
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  std::fprintf(stderr, "process %u: %-10s resident %8.1f MB\n", me, phase, static_cast<double>(resident) * 4096 / 1e6);
}

std::uint64_t sumOver(ProcessGroup& group, std::uint64_t mine) {
  wire::Writer w;
  w.u64(mine);
  std::uint64_t total = 0;
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader r(b, "sum");
    total += r.u64();
  }
  return total;
}

// 1. This process's share of the ranks (the region declared where its ranks enter it; refused
// only if no process's ranks do: it may be a state some never enter).
Trace loadShare(const std::string& path, const DistributedOptions& options, ProcessGroup& group) {
  Trace trace;
  LoadOptions load = options.load;
  load.shareIndex = group.rank();
  load.shareCount = group.size();
  bool regionHere = true;
  agree(group, attempt([&] {
          trace = loadTrace(path, load);
          if (!options.region.empty()) regionHere = declareParallelRegion(trace, options.region);
        }));
  if (!options.region.empty()) {
    bool anywhere = false;
    for (const std::string& b : group.allGather(regionHere ? "1" : "0")) anywhere = anywhere || b == "1";
    if (!anywhere) agree(group, path + ": --region " + options.region + ": no state of that name");
  }
  return trace;
}

// Every process's warnings, merged into the whole trace's: a user predicting from a damaged
// file is told, with the counts of the whole trace.
std::vector<Diagnostic> gatherWarnings(const Trace& trace, ProcessGroup& group) {
  wire::Writer w;
  w.u64(trace.warnings.size());
  for (const Diagnostic& d : trace.warnings) {
    w.str(d.file);
    w.i64(d.line);
    w.str(d.position);
    w.str(d.message);
  }
  std::vector<std::vector<Diagnostic>> perShare;
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader r(b, "warnings");
    auto& share = perShare.emplace_back();
    for (std::uint64_t n = r.u64(); n > 0; --n) {
      Diagnostic d;
      d.file = r.str();
      d.line = r.i64();
      d.position = r.str();
      d.message = r.str();
      share.push_back(std::move(d));
    }
    r.finish();
  }
  // ALOG and OTF shares read the whole file, then keep their ranks (trace_io.cpp).
  return mergeShareWarnings(perShare, trace.format != "otf2");
}

// The hypotheses this process's replay applies: those on its own ranks' events (the others'
// are checked by their owners) and balance-compute of a step its ranks take part in, with the
// mean over every process's ranks (shareStepMeans), balance-volume with the mean over every
// process's messages (shareVolumeMeans), and compensation of its own ranks.
struct OwnedHypotheses {
  std::vector<Hypothesis> owned;
  std::vector<std::uint32_t> balanced;  // balance-compute steps
  std::vector<std::uint32_t> volumes;   // balance-volume steps
  std::vector<TimeNs> recorded;         // compensation from the trace: own ranks' overhead per event
};

OwnedHypotheses ownHypotheses(const Scenario& scenario, const Trace& trace, RankRange own, const std::string& path,
                              ProcessGroup& group) {
  const std::uint32_t R = static_cast<std::uint32_t>(trace.rankCount());
  std::uint64_t steps = 0;
  for (const std::string& b : group.allGather(std::to_string(trace.steps.size())))
    steps = std::max<std::uint64_t>(steps, std::stoull(b));
  auto checkStep = [&](std::uint32_t k) {
    if (k >= steps)
      throw std::runtime_error("step " + std::to_string(k) + ": the trace has " + std::to_string(steps) +
                               " parallel steps (0-based) (in " + path + ")");
  };
  OwnedHypotheses out;
  agree(group, attempt([&] {
          for (const Hypothesis& h : scenario.hypotheses) {
            if (h.targetsEvent()) {
              if (h.event.rank >= R)
                throw std::runtime_error("event " + h.event.toString() + ": the trace has " + std::to_string(R) +
                                         " ranks (in " + path + ")");
              if (own.contains(h.event.rank)) out.owned.push_back(h);
            } else if (h.kind == HypothesisKind::BalanceCompute) {
              checkStep(h.step);
              out.balanced.push_back(h.step);
              if (h.step < trace.steps.size()) out.owned.push_back(h);
            } else if (h.kind == HypothesisKind::BalanceVolume) {
              checkStep(h.step);
              out.volumes.push_back(h.step);  // applied once the ghosts have brought their steps
            } else if (h.kind == HypothesisKind::Compensate) {
              // Every process takes the overhead out of its own ranks (their records are all here;
              // a ghost's enter comes from its owner). From the trace: each reads its own ranks'.
              if (h.overheadFromTrace()) {
                std::string problem;
                out.recorded = compensationOverhead(trace, h.overheadNs, &problem, own.first, own.last);
                if (out.recorded.empty()) throw std::runtime_error(problem);
              }
              out.owned.push_back(h);
            } else {
              throw std::runtime_error(h.toString() + ": not replayed by perwiz-mpi; use perwiz-cli predict");
            }
          }
        }));
  return out;
}

// 2. Ghost ranks: every process sends each other one the calls of its ranks that reach it.
// Cost mode "model" prices a collective by every member's size and position: members are
// sent one by one there (ghosts.h); in "measured" each process sends one proxy per instance.
ImportedGhosts exchangeGhosts(Trace& trace, RankRange own, bool everyMember, bool steps, ProcessGroup& group) {
  const std::uint32_t me = group.rank(), P = group.size();
  const std::uint32_t R = static_cast<std::uint32_t>(trace.rankCount());
  ImportedGhosts imported;
  std::vector<std::string> ghosts(P);
  agree(group, attempt([&] {
          for (std::uint32_t q = 0; q < P; ++q)
            if (q != me) ghosts[q] = exportGhosts(trace, own, rankShare(R, q, P), everyMember, steps);
        }));
  std::vector<std::string> in = group.exchange(std::move(ghosts));
  agree(group, attempt([&] { imported = importGhosts(trace, own, in, steps); }));
  return imported;
}

// Balance-compute: every step's mean over every process's ranks, by the serial formula
// round(sum / present) over the sums of all processes (ReplayerAccess::setStepMean).
void shareStepMeans(Replayer& rp, const std::vector<std::uint32_t>& balanced, RankRange own, ProcessGroup& group) {
  wire::Writer w;
  for (std::uint32_t k : balanced) {
    __int128 sum = 0;
    std::uint32_t present = 0;
    const std::vector<TimeNs> totals = rp.stepComputation(k);  // -1: absent (empty past the steps)
    for (std::uint32_t r = own.first; r < own.last && r < totals.size(); ++r) {
      const TimeNs total = totals[r];
      if (total < 0) continue;  // the rank lacks this step
      sum += total;
      ++present;
    }
    w.u64(static_cast<std::uint64_t>(sum));
    w.u64(static_cast<std::uint64_t>(sum >> 64));
    w.u32(present);
  }
  std::vector<__int128> sums(balanced.size(), 0);
  std::vector<std::uint64_t> present(balanced.size(), 0);
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader rd(b, "step sums");
    for (std::size_t i = 0; i < balanced.size(); ++i) {
      const std::uint64_t lo = rd.u64(), hi = rd.u64();
      sums[i] += static_cast<__int128>((static_cast<unsigned __int128>(hi) << 64) | lo);
      present[i] += rd.u32();
    }
  }
  for (std::size_t i = 0; i < balanced.size(); ++i)
    if (present[i] > 0)
      internal::ReplayerAccess::setStepMean(rp, balanced[i],
                                            static_cast<TimeNs>((sums[i] * 2 + static_cast<__int128>(present[i])) /
                                                                (2 * static_cast<__int128>(present[i]))));
}

// Balance-volume: every step's mean size over every process's messages, each counted by the
// process holding its send (the serial formula round(Σ / n) over the sums of all processes).
// A process applies it where its ranks or ghosts send in the step: those are added to `owned`.
void shareVolumeMeans(Replayer& rp, const Trace& trace, const std::vector<std::uint32_t>& volumes, RankRange own,
                      std::vector<Hypothesis>& owned, ProcessGroup& group) {
  wire::Writer w;
  for (std::uint32_t k : volumes) {
    unsigned __int128 sum = 0;
    const std::vector<std::uint64_t> sizes = internal::ReplayerAccess::stepMessageSizes(rp, k, own.first, own.last);
    for (std::uint64_t b : sizes) sum += b;
    w.u64(static_cast<std::uint64_t>(sum));
    w.u64(static_cast<std::uint64_t>(sum >> 64));
    w.u64(sizes.size());
  }
  std::vector<unsigned __int128> sums(volumes.size(), 0);
  std::vector<std::uint64_t> count(volumes.size(), 0);
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader rd(b, "step volumes");
    for (std::size_t i = 0; i < volumes.size(); ++i) {
      const std::uint64_t lo = rd.u64(), hi = rd.u64();
      sums[i] += (static_cast<unsigned __int128>(hi) << 64) | lo;
      count[i] += rd.u64();
    }
  }
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    if (count[i] > 0)
      internal::ReplayerAccess::setVolumeMean(rp, volumes[i],
                                              static_cast<std::uint64_t>((sums[i] * 2 + count[i]) / (2 * count[i])));
    if (volumes[i] < trace.steps.size()) owned.push_back({HypothesisKind::BalanceVolume, {}, volumes[i]});
  }
}

// 4. Which enters go where; both sides of every pair must agree on the count.
SweepLinks agreeOnLinks(const Replayer& rp, const Trace& trace, bool everyMember, const ImportedGhosts& imported,
                        ProcessGroup& group) {
  const std::uint32_t me = group.rank(), P = group.size();
  SweepLinks links;
  std::vector<std::string> counts(P);
  agree(group, attempt([&] {
          links = sweepLinks(rp, trace, me, P, everyMember, imported);
          std::vector<std::uint32_t> n(P, 0);
          for (const auto& e : links.exports) ++n[e.process];
          for (const auto& e : links.proxyDests) ++n[e.process];
          for (std::uint32_t q = 0; q < P; ++q) {
            wire::Writer w;
            w.u32(n[q]);
            counts[q] = w.take();
          }
        }));
  const std::vector<std::string> in = group.exchange(std::move(counts));
  agree(group, attempt([&] {
          for (std::uint32_t q = 0; q < P; ++q) {
            if (q == me) continue;
            wire::Reader r(in[q], "ghost counts");
            const std::uint32_t n = r.u32();
            if (n != links.imports[q].size())
              throw std::logic_error("process " + std::to_string(q) + " sends " + std::to_string(n) + " enters, " +
                                     std::to_string(links.imports[q].size()) + " ghost units expect them");
          }
        }));
  return links;
}

// 7. Every rank's measured and predicted end, on every process.
void gatherRankEnds(const Replayer& rp, RankRange own, const std::string& path, DistributedPrediction& out,
                    ProcessGroup& group) {
  const ReplayProgram& p = internal::ReplayerAccess::program(rp);
  const std::vector<TimeNs>& leave = rp.predictedLeaves();
  const std::uint32_t R = out.ranks;
  wire::Writer mine;
  for (std::uint32_t r = own.first; r < own.last; ++r) {
    mine.u32(r);
    mine.i64(p.rankEnd[r]);
    mine.i64(leave[p.rankBegin[r + 1] - 1]);
  }
  out.measuredEnd.assign(R, 0);
  out.predictedEnd.assign(R, 0);
  for (const std::string& b : group.allGather(mine.take())) {
    wire::Reader rd(b, "rank ends");
    while (!rd.done()) {
      const std::uint32_t r = rd.u32();
      if (r >= R) throw GroupError("rank ends: rank out of range");
      out.measuredEnd[r] = rd.i64();
      out.predictedEnd[r] = rd.i64();
    }
  }
  for (std::uint32_t r = 0; r < R; ++r) {
    out.measured = std::max(out.measured, out.measuredEnd[r]);
    out.predicted = std::max(out.predicted, out.predictedEnd[r]);
  }
  if (overflowed(out.predicted))
    throw GroupError(path + ": the predicted time exceeds the int64 range (2^63 ns); perwiz-cli predict names where");
}

}  // namespace

// The phases up to the sweep (1 to 6), kept for more predictions (DistributedSession).
struct DistributedSession::Impl {
  Impl(const std::string& path, const DistributedOptions& options, ProcessGroup& group, bool keepSteps);
  // Balance hypotheses' means over every process (before the links, as the first prediction
  // has them); then 6 and 7 for `hs` on the replay program built in the constructor.
  void means(OwnedHypotheses& hs);
  void sweep(const OwnedHypotheses& hs, SweepOrder* order = nullptr);
  void schedule();
  void apply(const std::vector<Hypothesis>& owned);

  ProcessGroup& group;
  const std::string path;
  DistributedOptions options;
  const std::uint32_t me, P;
  DistributedPrediction out;  // what predictDistributed returns, up to the sweep's figures
  Trace trace;
  std::vector<Function> functions;  // as loaded (-o): the predicted trace's table follows it
  RankRange own{0, 0};
  bool volumeGhosts = false;  // the ghosts have their steps' spans (balance-volume)
  ImportedGhosts imported;
  std::unique_ptr<Replayer> rp;
  SweepLinks links;
  bool scheduled = false;
  bool holdsBase = true;                              // the replay's results are the base's (not another prediction's)
  std::unique_ptr<DistributedEvaluation> evaluation;  // made at the first evaluate()
  void sweepBase(SweepOrder* order = nullptr);
  // Applies `job`'s hypotheses on this process without a replay: those applied, and the units
  // they changed (ascending).
  std::vector<Hypothesis> applyJob(const std::vector<Hypothesis>& job, std::vector<std::uint32_t>& touched);
};

DistributedSession::Impl::Impl(const std::string& p, const DistributedOptions& o, ProcessGroup& g, bool keepSteps)
    : group(g), path(p), options(o), me(g.rank()), P(g.size()) {
  out.scenario = options.scenario;
  if (!out.scenario.model) out.scenario.model = defaultNetworkModel();
  out.scenario.normalize();

  if (!options.output.empty()) checkPredictedOutput(options.output, group);

  // 1. This process's share of the ranks, and the whole trace's warnings.
  trace = loadShare(path, options, group);
  phaseLog(me, "loaded");
  out.warnings = gatherWarnings(trace, group);
  if (!options.output.empty()) functions = trace.functions;
  const std::uint32_t R = static_cast<std::uint32_t>(trace.rankCount());
  own = rankShare(R, me, P);
  out.format = trace.format;
  out.ranks = R;
  std::uint64_t calls = 0;
  for (std::uint32_t r = own.first; r < own.last; ++r) calls += trace.ranks[r].mpiCalls.size();
  out.mpiCalls = sumOver(group, calls);
  OwnedHypotheses hs = ownHypotheses(out.scenario, trace, own, path, group);

  // The parallel steps' table holds a span per step for every rank of the trace, this
  // process's or not (8 B × steps × ranks: 267 MB on each process for the 10^8-event trace of
  // docs/performance.md). Only balance hypotheses read it: without one (and no later prediction
  // that may balance) it is freed here, and the heap it leaves is given back to the system
  // before the replay program is built.
  if (hs.balanced.empty() && hs.volumes.empty() && !keepSteps) {
    releaseMemory(trace.steps);
    releaseFreedHeap();
  }

  // 2. Ghost ranks.
  const bool everyMember = out.scenario.costs == CostMode::Model;
  volumeGhosts = !hs.volumes.empty();
  imported = exchangeGhosts(trace, own, everyMember, volumeGhosts, group);
  releaseFreedHeap();  // the buffers
  phaseLog(me, "ghosts");
  std::uint64_t ghostCalls = 0;
  for (std::uint32_t r = 0; r < trace.rankCount(); ++r)
    if (!own.contains(r)) ghostCalls += trace.ranks[r].mpiCalls.size();
  out.ghostCalls = sumOver(group, ghostCalls);

  // 3. The replay program over own and ghost ranks (the hypotheses come with the sweep).
  agree(group, attempt([&] {
          Scenario s = out.scenario;
          s.hypotheses.clear();
          rp = std::make_unique<Replayer>(trace, std::move(s));
          if (!hs.recorded.empty()) internal::ReplayerAccess::setRecordedOverhead(*rp, std::move(hs.recorded));
        }));
  means(hs);
  // 4. Which enters go where.
  links = agreeOnLinks(*rp, trace, everyMember, imported, group);
  phaseLog(me, "links");
  // 5. The serial schedule's cuts of dependency cycles, decided together (scheduleDistributed).
  // Needed where they can differ from this program's own: where a process's program cut an
  // active dependency, where balance-volume may activate a cut one, or (found by the sweep
  // stalling) where an active cycle runs across the processes. Otherwise every active
  // dependency is kept here as in the serial program, and the pass (a sweep's worth of rounds)
  // is spared.
  if (volumeGhosts || sumOver(group, rp->report().brokenCycles) > 0) schedule();
  sweep(hs);
}

void DistributedSession::Impl::schedule() {
  const SweepStats st = scheduleDistributed(*rp, trace, links, group);
  out.brokenCycles = st.brokenCycles;
  out.scheduleRounds = st.rounds;
  scheduled = true;
  phaseLog(me, "schedule");
}

void DistributedSession::Impl::apply(const std::vector<Hypothesis>& owned) {
  agree(group, attempt([&] {
          std::string problem;
          if (!rp->setHypotheses(owned, &problem)) throw std::runtime_error(problem + " (in " + path + ")");
        }));
}

void DistributedSession::Impl::means(OwnedHypotheses& hs) {
  if (!hs.balanced.empty()) shareStepMeans(*rp, hs.balanced, own, group);
  if (!hs.volumes.empty()) shareVolumeMeans(*rp, trace, hs.volumes, own, hs.owned, group);
}

void DistributedSession::Impl::sweep(const OwnedHypotheses& hs, SweepOrder* order) {
  apply(hs.owned);
  // 6. The sweep.
  SweepStats stats;
  try {
    stats = sweepDistributed(*rp, links, group, order);
  } catch (const SweepCycle&) {  // raised on every process alike
    if (scheduled) throw;
    schedule();
    apply(hs.owned);
    stats = sweepDistributed(*rp, links, group, order);
  }
  phaseLog(me, "sweep");
  out.rounds = stats.rounds;
  out.enterSent = sumOver(group, stats.enterSent);
  // 7. Every rank's measured and predicted end, on every process.
  out.measured = out.predicted = 0;
  gatherRankEnds(*rp, own, path, out, group);
}

DistributedSession::DistributedSession(const std::string& path, const DistributedOptions& options, ProcessGroup& group)
    : d(std::make_unique<Impl>(path, options, group, true)) {}

DistributedSession::~DistributedSession() = default;

const DistributedPrediction& DistributedSession::base() const { return d->out; }
std::vector<CriticalWait> DistributedSession::criticalWaits() {
  holdBase();
  ProcessGroup& group = d->group;
  const DistributedCriticalPath cp = criticalPathDistributed(*d->rp, d->trace, d->links, d->imported,
                                                             d->out.predictedEnd, group, CriticalPathListing::Segments);
  // Process 0 holds the listing: its message and skew segments (call, partner) to every process.
  wire::Writer w;
  if (group.rank() == 0)
    for (const CriticalSegment& s : cp.path.segments)
      if (s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew) {
        w.u32(s.rank);
        w.u32(s.index);
        w.u32(s.fromRank);
        w.u32(s.fromIndex);
      }
  const std::string listed = group.broadcast(0, group.rank() == 0 ? w.take() : std::string());
  std::vector<CriticalWait> all;
  wire::Reader r(listed, "critical waits");
  while (!r.done()) {
    CriticalWait c;
    c.event = EventRef{r.u32(), r.u32(), false};
    const std::uint32_t fromRank = r.u32(), fromIndex = r.u32();
    if (fromRank != kNone32) c.partner = EventRef{fromRank, fromIndex, false}, c.hasPartner = true;
    all.push_back(c);
  }
  // Each wait from the process that owns its rank.
  wire::Writer mine;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (d->own.contains(all[i].event.rank)) {
      mine.u32(static_cast<std::uint32_t>(i));
      mine.i64(d->rp->predicted(all[i].event.rank, all[i].event.index).wait);
    }
  for (const std::string& b : group.allGather(mine.take())) {
    wire::Reader rd(b, "critical waits");
    while (!rd.done()) {
      const std::uint32_t i = rd.u32();
      if (i >= all.size()) throw GroupError("critical waits: segment " + std::to_string(i) + " out of range");
      all[i].wait = rd.i64();
    }
  }
  return keepWaiting(all);
}

// The base swept again (its figures stay what base() says), recording the sweep's order if asked.
void DistributedSession::Impl::sweepBase(SweepOrder* order) {
  OwnedHypotheses hs = ownHypotheses(out.scenario, trace, own, path, group);
  DistributedPrediction saved = out;
  means(hs);
  sweep(hs, order);
  saved.rounds = out.rounds;
  out = std::move(saved);
  holdsBase = true;
}

std::vector<TimeNs> DistributedSession::zeroWaitTimes(const std::vector<EventRef>& calls) {
  SweepOrder order;  // the order in which every process fixed its vertices
  d->sweepBase(&order);
  return zeroWaitTimesDistributed(*d->rp, d->out.ranks, d->links, order, d->out.predicted, calls, d->group);
}

std::vector<Hypothesis> DistributedSession::Impl::applyJob(const std::vector<Hypothesis>& job,
                                                           std::vector<std::uint32_t>& touched) {
  std::vector<Hypothesis> applied;
  touched.clear();
  try {
    agree(group, attempt([&] {
            for (const Hypothesis& given : job) {
              const Hypothesis h = given.canonical();
              if (h.kind == HypothesisKind::BalanceVolume || h.kind == HypothesisKind::Compensate)
                throw std::runtime_error(h.toString() +
                                         ": a session evaluates zero-wait, zero-event and balance-compute");
              if (h.targetsEvent() && !own.contains(h.event.rank)) continue;  // its owner's
              if (h.kind == HypothesisKind::BalanceCompute && h.step >= trace.steps.size()) continue;
              const auto& present = rp->scenario().hypotheses;
              if (std::binary_search(present.begin(), present.end(), h)) continue;
              std::vector<std::uint32_t> t;
              try {
                t = internal::ReplayerAccess::changeWithoutReplay(*rp, h, true);
              } catch (const std::invalid_argument& e) {
                throw std::runtime_error(std::string(e.what()) + " (in " + path + ")");
              }
              applied.push_back(h);
              touched.insert(touched.end(), t.begin(), t.end());
            }
          }));
  } catch (...) {
    for (auto it = applied.rbegin(); it != applied.rend(); ++it)
      internal::ReplayerAccess::changeWithoutReplay(*rp, *it, false);
    throw;
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  return applied;
}

std::vector<TimeNs> DistributedSession::evaluate(const std::vector<std::vector<Hypothesis>>& jobs) {
  Impl& s = *d;
  if (!s.holdsBase) s.sweepBase();
  if (!s.evaluation)
    s.evaluation = std::make_unique<DistributedEvaluation>(*s.rp, s.trace, s.links, s.group, s.out.predicted);
  // Every balanced step's mean over every process, at once.
  std::vector<std::uint32_t> steps;
  for (const auto& job : jobs)
    for (const Hypothesis& h : job)
      if (h.kind == HypothesisKind::BalanceCompute && h.step < s.trace.steps.size()) steps.push_back(h.step);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  if (!steps.empty()) shareStepMeans(*s.rp, steps, s.own, s.group);
  std::vector<TimeNs> out;
  out.reserve(jobs.size());
  std::vector<std::uint32_t> touched;
  for (const auto& job : jobs) {
    const std::vector<Hypothesis> applied = s.applyJob(job, touched);
    out.push_back(s.evaluation->evaluate(touched));
    for (auto it = applied.rbegin(); it != applied.rend(); ++it)
      internal::ReplayerAccess::changeWithoutReplay(*s.rp, *it, false);
  }
  return out;
}

EvaluationStats DistributedSession::evaluationStats() const {
  return d->evaluation ? d->evaluation->stats() : EvaluationStats{};
}

const Replayer& DistributedSession::replayer() const { return *d->rp; }
ProcessGroup& DistributedSession::group() const { return d->group; }
void DistributedSession::holdBase() {
  if (!d->holdsBase) d->sweepBase();
}
RankRange DistributedSession::ownRanks() const { return d->own; }

TimeNs DistributedSession::predictWith(const std::vector<Hypothesis>& extra) {
  // Hypotheses whose data the session did not bring at its start: refused on every process
  // alike (each holds the same list).
  for (const Hypothesis& h : extra)
    if ((h.kind == HypothesisKind::BalanceVolume && !d->volumeGhosts) || h.kind == HypothesisKind::Compensate)
      throw GroupError(h.toString() + ": a session predicts it only when its scenario holds it from the start");
  // The evaluations' arrays are made again when needed: not kept beside a full sweep's copies
  // of the effective values (every unit's gap with every step balanced).
  d->evaluation.reset();
  Scenario s = d->out.scenario;
  s.hypotheses.insert(s.hypotheses.end(), extra.begin(), extra.end());
  s.normalize();
  OwnedHypotheses hs = ownHypotheses(s, d->trace, d->own, d->path, d->group);
  DistributedPrediction saved = d->out;
  d->means(hs);
  d->sweep(hs);
  const TimeNs t = d->out.predicted;
  // The base's figures stay what base() says; the replay holds the last prediction.
  saved.rounds = d->out.rounds;
  d->out = std::move(saved);
  d->holdsBase = extra.empty();
  return t;
}

DistributedPrediction predictDistributed(const std::string& path, const DistributedOptions& options,
                                         ProcessGroup& group) {
  DistributedSession::Impl s(path, options, group, false);
  DistributedPrediction& out = s.out;
  // 8. The critical path, walked backwards from the rank that ends last.
  if (options.criticalPath) {
    DistributedCriticalPath cp = criticalPathDistributed(*s.rp, s.trace, s.links, s.imported, out.predictedEnd, group,
                                                         options.pathListing, options.pathFirstSegments);
    out.criticalPath = std::move(cp.path);
    out.pathFunctions = std::move(cp.functions);
    out.segmentFunction = std::move(cp.callFunction);
    out.partnerFunction = std::move(cp.partnerFunction);
    out.pathRounds = cp.rounds;
    phaseLog(s.me, "path");
  }

  // 9. The predicted trace: each process writes its ranks of L', one at a time.
  if (!options.output.empty()) {
    writePredictedShare(*s.rp, out.scenario, out.ranks, s.functions, s.own, options.output, group);
    phaseLog(s.me, "output");
  }
  return std::move(out);
}

}  // namespace perwiz
