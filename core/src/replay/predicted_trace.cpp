// The predicted trace L' (paper §4): the measured trace with predicted times, and the
// scenario that produced it recorded as a point event, so L' can be loaded and predicted again.
#include "perwiz/internal/replay_program.h"

#include "perwiz/rank_parallel.h"

#include "perwiz/release.h"
#include "perwiz/trace_builder.h"

#include <nlohmann/json.hpp>

namespace perwiz {
namespace {

// Forwards a record stream to a builder and puts the scenario point first on rank 0.
class ScenarioInjector final : public TraceSink {
 public:
  ScenarioInjector(TraceBuilder& out, std::string label) : out_(out), label_(std::move(label)) {}
  void begin(const TraceHeader& h) override {
    out_.begin(h);
    ranks_ = h.ranks;
  }
  std::uint32_t defineFunction(const Function& f) override { return out_.defineFunction(f); }
  std::uint32_t defineComm(const Communicator& c) override { return out_.defineComm(c); }
  void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override { inject(r); out_.enter(r, t, f); }
  void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override { out_.leave(r, t, f); }
  void point(std::uint32_t r, TimeNs t, std::uint32_t f, std::string_view l) override {
    inject(r);
    out_.point(r, t, f, l);
  }
  void send(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag,
            std::uint64_t b, std::uint64_t q) override { out_.send(r, t, p, c, tag, b, q); }
  void recv(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag,
            std::uint64_t b, std::uint64_t q) override { out_.recv(r, t, p, c, tag, b, q); }
  void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.isendComplete(r, t, q); }
  void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.irecvRequest(r, t, q); }
  void collective(std::uint32_t r, TimeNs t, MpiOp op, std::uint32_t c, std::int32_t root,
                  std::uint64_t s, std::uint64_t v) override { out_.collective(r, t, op, c, root, s, v); }
  void threadEnter(std::uint32_t th, TimeNs t, std::uint32_t f) override { out_.threadEnter(th, t, f); }
  void threadLeave(std::uint32_t th, TimeNs t, std::uint32_t f) override { out_.threadLeave(th, t, f); }
  void threadPoint(std::uint32_t th, TimeNs t, std::uint32_t f, std::string_view l) override {
    out_.threadPoint(th, t, f, l);
  }
  bool keepsThreads() const override { return true; }
  void end() override {
    if (ranks_ > 0) inject(0);
    out_.end();
  }

 private:
  void inject(std::uint32_t rank) {
    if (done_ || rank != 0) return;
    done_ = true;
    const std::uint32_t fn = out_.defineFunction(Function{kScenarioEventName, EventKind::Point, MpiOp::None, ""});
    out_.point(0, 0, fn, label_);
  }
  TraceBuilder& out_;
  std::string label_;
  std::uint32_t ranks_ = 0;
  bool done_ = false;
};

}  // namespace

Replayer::EventTimes Replayer::predictedEventTimes() const {
  // Each rank as the views get it (predictedRank), its enter and leave columns as arrays.
  const std::uint32_t R = static_cast<std::uint32_t>(trace().rankCount());
  EventTimes out;
  out.enter.resize(R);
  out.leave.resize(R);
  std::vector<TimeNs> ends(R, 0);
  forEachRank(R, trace().eventCount(), [&](std::uint32_t r) {
    PredictedRank rank;
    predictedRank(r, rank);
    out.enter[r] = rank.ownEnter.toVector();
    out.leave[r] = rank.ownLeave.toVector();
    ends[r] = rank.end;
  });
  for (TimeNs e : ends) out.end = std::max(out.end, e);
  return out;
}

std::shared_ptr<const PredictedTimes> predictedTimes(const Replayer& replayer) {
  auto out = std::make_shared<PredictedTimes>();
  const std::uint32_t R = static_cast<std::uint32_t>(replayer.trace().rankCount());
  std::vector<std::shared_ptr<PredictedRank>> ranks(R);
  forEachRank(R, replayer.trace().eventCount(), [&](std::uint32_t r) {
    ranks[r] = std::make_shared<PredictedRank>();
    replayer.predictedRank(r, *ranks[r]);
  });
  for (auto& r : ranks) {
    out->end = std::max(out->end, r->end);
    out->ranks.push_back(std::move(r));
  }
  return out;
}

void Replayer::predictedRankTrace(std::uint32_t r, RankTrace& out) const {
  out = trace().ranks[r];
  PredictedRank rank;
  predictedRank(r, rank);
  out.enter = std::move(rank.ownEnter);
  out.leave = std::move(rank.ownLeave);
  std::uint32_t hint = 0;
  for (std::size_t i = 0; i < out.messages.size(); ++i)
    out.messages.setTime(i, mapTimeFrom(r, out.messages.row(i).time, hint));
  out.messages.seal();
}

Trace Replayer::predictedTrace() const {
  // What the emission reads: the functions, communicators and ranks.
  const std::uint32_t R = static_cast<std::uint32_t>(trace().rankCount());
  Trace t;
  t.source = trace().source;
  t.format = trace().format;
  t.functions = trace().functions;
  t.comms = trace().comms;
  t.ranks.resize(R);
  forEachRank(R, trace().eventCount(), [&](std::uint32_t r) { predictedRankTrace(r, t.ranks[r]); });
  t.threads = trace().threads;  // the replay predicts ranks: threads stay as measured

  const std::string label = nlohmann::ordered_json::parse(scenario().toJson()).dump();
  TraceBuilder builder(trace().source, trace().format);
  ScenarioInjector injector(builder, label);
  emitTrace(t, injector);
  releaseMemory(t.ranks);
  Trace out = builder.take();
  computeParallelSteps(out, trace().regionFunctions);  // same function indices: keep the region
  return out;
}

std::vector<std::string> scenariosRecordedIn(const Trace& trace) {
  std::vector<std::string> out;
  if (trace.ranks.empty()) return out;
  const RankTrace& rt = trace.ranks[0];
  for (const PointLabel& l : rt.labels)
    if (l.event < rt.size() && trace.functions[rt.function[l.event]].name == kScenarioEventName)
      out.push_back(l.text);
  return out;
}

}  // namespace perwiz
