// The advisor over the processes' shares (adviseOverShares, perwiz/distributed.h): the serial
// searches (dominoPaths, stepTable) on a base whose every answer comes from the processes
// together.
#include "perwiz/distributed.h"

#include "perwiz/internal/wire.h"

#include <algorithm>
#include <string>
#include <thread>

namespace perwiz {
namespace {

class SessionBase final : public AdvisorBase {
 public:
  SessionBase(DistributedSession& s, const AdvisorOptions& o) : s_(s), o_(o), own_(s.ownRanks()) {
    const Trace& t = s.replayer().trace();
    wire::Writer w;
    for (std::uint32_t r = own_.first; r < own_.last; ++r) {
      w.u32(r);
      w.u32(static_cast<std::uint32_t>(t.ranks[r].mpiCalls.size()));
    }
    calls_.assign(s.base().ranks, 0);
    for (const std::string& b : s.group().allGather(w.take())) {
      wire::Reader rd(b, "advisor call counts");
      while (!rd.done()) {
        const std::uint32_t r = rd.u32(), n = rd.u32();
        if (r >= calls_.size()) throw GroupError("advisor: call counts of rank " + std::to_string(r));
        calls_[r] = n;
      }
    }
    batch_ = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  }
  std::uint32_t rankCount() const override { return s_.base().ranks; }
  std::uint32_t callCount(std::uint32_t rank) const override { return calls_.at(rank); }
  TimeNs predictedTime() const override { return s_.base().predicted; }
  std::vector<CriticalWait> criticalWaits() override { return s_.criticalWaits(); }
  std::vector<TimeNs> zeroWaitTimes(const std::vector<EventRef>& calls) override { return s_.zeroWaitTimes(calls); }
  std::vector<Times> times(const std::vector<EventRef>& calls) override;
  WaitCandidate longestWait() override {
    s_.holdBase();
    return perwiz::longestWait(s_.replayer(), own_, s_.group());
  }
  std::vector<WaitCandidate> otherWaits(std::size_t top, const std::vector<CriticalWait>& excluded) override {
    s_.holdBase();
    return perwiz::otherWaits(s_.replayer(), own_, s_.group(), top, excluded, predictedTime());
  }
  std::vector<StepRow> stepRows(std::vector<TimeNs>& least) override {
    s_.holdBase();
    return stepSpreads(s_.replayer(), own_, s_.group(), &least);
  }
  bool predict(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out, const std::string& stage,
               double from, double to) override {
    if (o_.progress) o_.progress(from, stage);
    out = s_.evaluate(jobs);
    for (TimeNs t : out) predictions_ += t >= 0;
    if (o_.progress) o_.progress(to, stage);
    return true;
  }
  TimeNs allStepsBalanced() override;
  std::size_t batch() const override { return batch_; }
  bool cancelled() const override { return false; }  // a cancel would have to reach every process
  std::uint64_t predictions() const override { return predictions_; }

 private:
  DistributedSession& s_;
  const AdvisorOptions& o_;
  const RankRange own_;
  std::vector<std::uint32_t> calls_;  // per rank of the trace
  std::size_t batch_ = 1;
  std::uint64_t predictions_ = 0;
};

// Each call's predicted enter and leave from the process holding its rank.
std::vector<AdvisorBase::Times> SessionBase::times(const std::vector<EventRef>& calls) {
  s_.holdBase();
  const Replayer& rp = s_.replayer();
  wire::Writer w;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (own_.contains(calls[i].rank) && calls[i].index < rp.trace().ranks[calls[i].rank].mpiCalls.size()) {
      const PredictedCall c = rp.predicted(calls[i].rank, calls[i].index);
      w.u32(static_cast<std::uint32_t>(i));
      w.i64(c.enter);
      w.i64(c.leave);
    }
  std::vector<Times> out(calls.size());
  for (const std::string& b : s_.group().allGather(w.take())) {
    wire::Reader rd(b, "advisor times");
    while (!rd.done()) {
      const std::uint32_t i = rd.u32();
      if (i >= out.size()) throw GroupError("advisor: times of call " + std::to_string(i) + " out of range");
      out[i].enter = rd.i64();
      out[i].leave = rd.i64();
    }
  }
  return out;
}

// One full sweep with every step of the trace balanced (as the serial allStepsBalanced()).
TimeNs SessionBase::allStepsBalanced() {
  wire::Writer w;
  w.u32(static_cast<std::uint32_t>(s_.replayer().trace().steps.size()));
  std::uint32_t n = 0;
  for (const std::string& b : s_.group().allGather(w.take())) {
    wire::Reader rd(b, "advisor steps");
    n = std::max(n, rd.u32());
  }
  std::vector<Hypothesis> all;
  for (std::uint32_t k = 0; k < n; ++k) all.push_back({HypothesisKind::BalanceCompute, {}, k});
  const TimeNs t = s_.predictWith(all);
  s_.holdBase();
  return t;
}

}  // namespace

Advice adviseOverShares(DistributedSession& session, const AdvisorOptions& options) {
  Advice a;
  a.measuredNs = session.base().measured;
  a.baseNs = session.base().predicted;
  // The parts' progress on consecutive ranges, as advise() maps them.
  const bool withSteps = options.steps && !session.replayer().trace().steps.empty();
  const double split = withSteps ? 0.8 : 1.0;
  AdvisorOptions part = options;
  part.lentBase = nullptr;
  part.group = nullptr;
  auto range = [&](double from, double to) {
    if (options.progress)
      part.progress = [&options, from, to](double f, const std::string& stage) {
        options.progress(from + (to - from) * f, stage);
      };
  };
  range(0, split);
  {
    SessionBase base(session, part);
    WaitCandidate longest;
    a.domino = dominoPaths(base, part, &a.candidates, &longest, &a.predictions);
    a.hasLongestWait = longest.waitNs > 0;
    a.longestWait = longest;
  }
  range(split, 1);
  if (options.steps) {
    SessionBase base(session, part);
    a.steps = stepTable(base, part, &a.allStepsBalancedNs, &a.predictions);
  }
  if (options.bounds) {
    session.holdBase();
    a.bounds = lowerBounds(session.replayer(), session.ownRanks(), session.group());
  }
  if (options.progress) options.progress(1.0, "done");
  return a;
}

}  // namespace perwiz
