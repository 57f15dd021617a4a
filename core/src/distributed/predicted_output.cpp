// perwiz-mpi predict -o (predicted_output.h).
#include "predicted_output.h"
#include "perwiz/distributed.h"

#include "perwiz/internal/otf2_group_writer.h"
#include "perwiz/internal/agree.h"
#include "perwiz/internal/wire.h"
#include "perwiz/output_file.h"
#include "perwiz/replay.h"
#include "perwiz/trace_sink.h"

#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace perwiz {

void checkPredictedOutput(const std::string& path, ProcessGroup& group) {
  agree(group, attempt([&] {
    if (outputFormatFor(path) != TraceFormat::Otf2)
      throw TraceError(path, "perwiz-mpi writes the predicted trace as OTF2 only (a path ending in .otf2, or a "
                             "directory); perwiz-cli convert turns it into ALOG or OTF");
    const std::string existing = firstExisting(traceOutputPaths(path));
    if (!existing.empty())
      throw TraceError(existing, "already exists; refusing to overwrite it" +
                                     (existing == path ? std::string() : " (writing " + path + ")"));
  }));
}

namespace {

using Key = std::pair<std::string, EventKind>;

// The labels of the point events of `own` in the measured trace `t`, in the order the
// predicted ranks give them to the writer (rank by rank, each rank's events in order; on rank
// 0 the scenario's point first), each once.
std::vector<std::string> pointLabels(const Trace& t, RankRange own, const std::string& scenarioLabel) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  if (own.contains(0)) {
    seen.insert(scenarioLabel);
    out.push_back(scenarioLabel);
  }
  for (std::uint32_t r = own.first; r < own.last && r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    auto label = rt.labels.begin();
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      if (t.functions[rt.function[e]].kind != EventKind::Point) continue;
      while (label != rt.labels.end() && label->event < e) ++label;
      std::string text = label != rt.labels.end() && label->event == e ? label->text : std::string();
      if (seen.insert(text).second) out.push_back(std::move(text));
    }
  }
  return out;
}

// The archive's function table: the functions any process's ranks use, in the file's order
// (`fileOrder`), then those the file did not define in process order, the scenario's last (the
// table perwiz-cli's TraceBuilder makes of L'). `used`: this process's.
std::vector<Function> agreedFunctions(const std::vector<Function>& used, const std::vector<Function>& fileOrder,
                                      ProcessGroup& group) {
  wire::Writer mine;
  for (const Function& f : used) wire::putFunction(mine, f);
  std::vector<std::vector<Function>> usedBy;
  for (const std::string& b : group.allGather(mine.take())) {
    wire::Reader rd(b, "functions used");
    usedBy.emplace_back();
    while (!rd.done()) usedBy.back().push_back(wire::getFunction(rd));
  }
  std::map<Key, const Function*> anyUse;
  for (const auto& list : usedBy)
    for (const Function& f : list) anyUse.emplace(Key{f.name, f.kind}, &f);
  std::vector<Function> table;
  std::set<Key> placed;
  auto place = [&](const Function& f) {
    const Key k{f.name, f.kind};
    const auto it = anyUse.find(k);
    if (it == anyUse.end() || !placed.insert(k).second) return;
    table.push_back(*it->second);
  };
  for (const Function& f : fileOrder) place(f);
  const Key scenario{kScenarioEventName, EventKind::Point};
  for (const auto& list : usedBy)
    for (const Function& f : list)
      if (Key{f.name, f.kind} != scenario) place(f);
  if (anyUse.contains(scenario)) place(*anyUse.at(scenario));
  return table;
}

}  // namespace

void writePredictedShare(const Replayer& rp, const Scenario& scenario, std::uint32_t ranks,
                         const std::vector<Function>& fileOrder, RankRange own, const std::string& path,
                         ProcessGroup& group) {
  const Trace& measured = rp.trace();
  own.last = std::min(own.last, ranks);
  own.first = std::min(own.first, own.last);
  const std::string label = nlohmann::ordered_json::parse(scenario.toJson()).dump();
  // The functions this process's predicted ranks use: their measured events' (a predicted rank
  // is its measured one with other times), and the scenario's point on rank 0.
  std::vector<Function> used;
  std::vector<Function> table;
  std::vector<std::string> labels;
  agree(group, attempt([&] {
    std::vector<char> uses(measured.functions.size(), 0);
    for (std::uint32_t r = own.first; r < own.last; ++r)
      for (std::uint32_t f : measured.ranks[r].function) uses[f] = 1;
    for (std::uint32_t f = 0; f < measured.functions.size(); ++f)
      if (uses[f]) used.push_back(measured.functions[f]);
    if (own.contains(0)) used.push_back(Function{kScenarioEventName, EventKind::Point, MpiOp::None, ""});
    labels = pointLabels(measured, own, label);
  }));
  agree(group, attempt([&] { table = agreedFunctions(used, fileOrder, group); }));
  std::map<Key, std::uint32_t> index;
  for (std::uint32_t f = 0; f < table.size(); ++f) index.emplace(Key{table[f].name, table[f].kind}, f);

  std::unique_ptr<Otf2GroupWriter> writer = makeOtf2GroupWriter(path, Otf2Share{&group, own, std::move(labels)});
  TraceHeader header;
  header.ranks = ranks;
  for (std::uint32_t r = 0; r < ranks; ++r) header.rankNames.push_back(measured.ranks[r].name);
  writer->begin(header);
  for (const Function& f : table) writer->defineFunction(f);
  for (std::size_t c = 1; c < measured.comms.size(); ++c) writer->defineComm(measured.comms[c]);
  // Rank by rank: a rank of L' is its measured rank with predicted times (what perwiz-cli's
  // TraceBuilder makes of it, which is emitted back unchanged), the scenario's point first on
  // rank 0; one rank's copy at a time is held beside the replay.
  std::vector<std::uint32_t> remap(measured.functions.size(), kNone32);
  for (std::uint32_t f = 0; f < measured.functions.size(); ++f) {
    const auto it = index.find(Key{measured.functions[f].name, measured.functions[f].kind});
    if (it != index.end()) remap[f] = it->second;
  }
  const std::string problem = attempt([&] {
    Trace one;
    one.functions = table;
    one.ranks.resize(ranks);
    for (std::uint32_t r = own.first; r < own.last; ++r) {
      RankTrace& rt = one.ranks[r];
      rp.predictedRankTrace(r, rt);
      for (std::uint32_t& f : rt.function) {
        if (remap[f] == kNone32) throw std::logic_error("rank " + std::to_string(r) + ": a function not agreed on");
        f = remap[f];
      }
      if (r == 0) writer->point(0, 0, index.at(Key{kScenarioEventName, EventKind::Point}), label);
      emitRank(one, r, *writer);
      writer->rankDone(r);
      rt = RankTrace{};
    }
  });
  writer->endAfter(problem);
}

void writePredictedOtf2(const Replayer& replayer, const std::string& path) {
  // The processes' writer with a group of one: the file's table is this trace's own.
  SingleProcess one;
  const Trace& trace = replayer.trace();
  const std::uint32_t R = static_cast<std::uint32_t>(trace.rankCount());
  try {
    writePredictedShare(replayer, replayer.scenario(), R, trace.functions, RankRange{0, R}, path, one);
  } catch (const GroupError& e) {
    std::string m = e.what();  // "process 0: <the problem, naming the file>"
    if (m.starts_with("process 0: ")) m.erase(0, 11);
    throw std::runtime_error(m);
  }
}

}  // namespace perwiz
