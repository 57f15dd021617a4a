// Fuzz target: the LogGPS replay with what-if hypotheses (compensation included) on fuzzed
// traces. The input is ALOG text; FuzzedDataProvider takes the choices from the input's end
// (cost mode, network model, up to four hypotheses with their event, step and overhead) and the
// rest is the trace, so the seeds are plain ALOG files. Properties (replay.h):
//  * hypotheses added one by one (incremental updates) and a removal give the same prediction
//    as a replay of the resulting scenario from scratch;
//  * the predicted trace, the per-event times and the compensation reference run without error.
#include "fuzz_common.h"

#include "perwiz/compensation.h"
#include "perwiz/loggp_models.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>

using namespace perwiz;

namespace {

std::shared_ptr<const NetworkModel> chooseModel(FuzzedDataProvider& in) {
  const std::vector<std::string> presets = networkPresetNames();
  const std::size_t choice = in.ConsumeIntegralInRange<std::size_t>(0, presets.size() + 2);
  if (choice < presets.size()) return networkPreset(presets[choice]);
  if (choice == presets.size()) {
    LogGpParams p;
    p.L = in.ConsumeIntegralInRange<int>(0, 100000);
    p.o = in.ConsumeIntegralInRange<int>(0, 10000);
    p.g = in.ConsumeIntegralInRange<int>(0, 10000);
    p.G = in.ConsumeIntegralInRange<int>(0, 100) / 10.0;
    return std::make_shared<LogGpModel>(p);
  }
  if (choice == presets.size() + 1) {
    LogGpoParams p;
    p.L = in.ConsumeIntegralInRange<int>(0, 100000);
    p.G = in.ConsumeIntegralInRange<int>(0, 100) / 10.0;
    p.Octrl = in.ConsumeIntegralInRange<int>(0, 10000);
    p.Oi = {static_cast<double>(in.ConsumeIntegralInRange<int>(0, 10000)), 0.1};
    p.Oc = {static_cast<double>(in.ConsumeIntegralInRange<int>(0, 10000)), 0.1};
    p.S = in.ConsumeIntegralInRange<std::uint64_t>(0, 1 << 20);
    p.progress = in.ConsumeBool() ? ProgressStrategy::Independent : ProgressStrategy::Dependent;
    return std::make_shared<LogGpoModel>(p);
  }
  return nullptr;  // the default model
}

Hypothesis chooseHypothesis(FuzzedDataProvider& in, const Trace& t) {
  Hypothesis h;
  h.kind = static_cast<HypothesisKind>(in.ConsumeIntegralInRange<int>(0, 4));
  const auto ranks = static_cast<std::uint32_t>(t.rankCount());
  h.event.rank = in.ConsumeIntegralInRange<std::uint32_t>(0, ranks);  // == ranks: out of range
  const std::uint32_t calls =
      h.event.rank < ranks ? static_cast<std::uint32_t>(t.ranks[h.event.rank].mpiCalls.size()) : 0;
  h.event.index = in.ConsumeIntegralInRange<std::uint32_t>(0, calls + 1);
  h.event.computation = in.ConsumeBool();
  h.step = in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(t.steps.size()) + 1);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: h.overheadNs = kOverheadFromTrace; break;
    case 1: h.overheadNs = in.ConsumeIntegralInRange<std::int64_t>(0, 5000); break;
    case 2: h.overheadNs = in.ConsumeIntegral<std::int64_t>(); break;  // huge or negative
    default: h.overheadNs = in.ConsumeIntegralInRange<std::int64_t>(0, 1000000000); break;
  }
  return h.canonical();
}

void same(const Replayer& a, const Replayer& b, const std::string& what) {
  if (a.predictedTime() != b.predictedTime())
    fuzz::fail(what + ": predicted time " + std::to_string(a.predictedTime()) + " vs " +
               std::to_string(b.predictedTime()) + " from scratch");
  const Trace& t = a.trace();
  for (std::uint32_t r = 0; r < t.rankCount(); ++r)
    for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) {
      const PredictedCall x = a.predicted(r, i), y = b.predicted(r, i);
      if (x.enter != y.enter || x.leave != y.leave || x.wait != y.wait)
        fuzz::fail(what + ": call " + std::to_string(r) + ":" + std::to_string(i) + " differs from scratch");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool modelCosts = in.ConsumeBool();
  const int hypotheses = in.ConsumeIntegralInRange<int>(0, 4);
  std::vector<std::uint8_t> choices = in.ConsumeBytes<std::uint8_t>(64);  // for the model and hypotheses
  const std::vector<std::uint8_t> text = in.ConsumeRemainingBytes<std::uint8_t>();
  const std::string path = fuzz::writeScratch("replay.alog", text.data(), text.size());
  std::optional<Trace> trace = fuzz::loadAlog(path);
  if (!trace || trace->rankCount() == 0) return 0;
  std::size_t events = 0;
  for (const RankTrace& r : trace->ranks) events += r.size();
  if (events > 20000) return 0;  // keep executions fast

  FuzzedDataProvider pick(choices.data(), choices.size());
  Scenario base;
  base.model = chooseModel(pick);
  base.costs = modelCosts ? CostMode::Model : CostMode::Measured;

  Replayer r(*trace, base);
  std::vector<Hypothesis> accepted;
  for (int i = 0; i < hypotheses; ++i) {
    const Hypothesis h = chooseHypothesis(pick, *trace);
    if (std::find(accepted.begin(), accepted.end(), h) != accepted.end()) continue;
    std::string error;
    const std::string problem = r.validate(h);
    const bool added = r.add(h, &error);
    if (added != problem.empty())
      fuzz::fail("validate() and add() disagree on " + h.toString() + ": '" + problem + "' / '" + error + "'");
    if (added) accepted.push_back(h);
    else if (error.empty()) fuzz::fail("add() refused " + h.toString() + " without a reason");
  }
  (void)r.predictedTrace();
  (void)r.predictedEventTimes();

  Scenario full = base;
  full.hypotheses = accepted;
  full.normalize();
  {
    Replayer scratch(*trace, full);
    same(r, scratch, "incremental adds");
  }
  if (!accepted.empty()) {
    const Hypothesis gone = accepted.front();
    std::string error;
    if (!r.remove(gone, &error)) fuzz::fail("remove() of an added hypothesis failed: " + error);
    accepted.erase(accepted.begin());
    Scenario rest = base;
    rest.hypotheses = accepted;
    rest.normalize();
    Replayer scratch(*trace, rest);
    same(r, scratch, "remove " + gone.toString());
  }

  // The compensation reference on the same trace (measured costs, no other hypothesis).
  for (const Hypothesis& h : full.hypotheses)
    if (h.kind == HypothesisKind::Compensate) {
      std::string error;
      const std::vector<TimeNs> overhead = compensationOverhead(*trace, h.overheadNs, &error);
      if (!overhead.empty()) {
        (void)compensateByDelays(*trace, overhead, base.model);
        (void)rankOverheads(*trace, overhead);
      }
    }
  return 0;
}
