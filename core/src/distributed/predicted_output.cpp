// perwiz-mpi predict -o (predicted_output.h).
#include "predicted_output.h"

#include "../otf2/otf2_group_writer.h"
#include "agree.h"
#include "wire.h"
#include "perwiz/output_file.h"
#include "perwiz/replay.h"
#include "perwiz/trace_sink.h"

#include <map>
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

// The labels of the point events of `own`, in the order emitTrace writes them (rank by rank,
// each rank's events in order), each once.
std::vector<std::string> pointLabels(const Trace& t, RankRange own) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
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

}  // namespace

void writePredictedShare(Trace predicted, std::uint32_t ranks, const std::vector<Function>& functions,
                         RankRange own, const std::string& path, ProcessGroup& group) {
  if (predicted.ranks.size() > ranks) predicted.ranks.resize(ranks);
  // The function table: the builder of this share's predicted trace kept the functions its own
  // ranks use; the archive's table is those of every process, in the file's order (then those
  // the file did not define, in process order, and the scenario's last: as perwiz-cli's
  // builder defines them).
  wire::Writer used;
  for (const Function& f : predicted.functions) {
    used.str(f.name);
    used.u8(static_cast<std::uint8_t>(f.kind));
    used.u32(static_cast<std::uint32_t>(f.op));
    used.str(f.color);
  }
  std::vector<std::vector<Function>> usedBy;
  std::vector<std::string> labels;
  agree(group, attempt([&] {
    for (const std::string& b : group.allGather(used.take())) {
      wire::Reader rd(b, "functions used");
      usedBy.emplace_back();
      while (!rd.done()) {
        Function f;
        f.name = rd.str();
        f.kind = static_cast<EventKind>(rd.u8());
        f.op = static_cast<MpiOp>(rd.u32());
        f.color = rd.str();
        usedBy.back().push_back(std::move(f));
      }
    }
    using Key = std::pair<std::string, EventKind>;
    std::map<Key, const Function*> anyUse;
    for (const auto& list : usedBy)
      for (const Function& f : list) anyUse.emplace(Key{f.name, f.kind}, &f);
    std::vector<Function> table;
    std::map<Key, std::uint32_t> index;
    auto place = [&](const Function& f) {
      const Key k{f.name, f.kind};
      const auto it = anyUse.find(k);
      if (it == anyUse.end() || index.contains(k)) return;
      index.emplace(k, static_cast<std::uint32_t>(table.size()));
      table.push_back(*it->second);
    };
    for (const Function& f : functions) place(f);
    const Key scenario{kScenarioEventName, EventKind::Point};
    for (const auto& list : usedBy)
      for (const Function& f : list)
        if (Key{f.name, f.kind} != scenario) place(f);
    if (anyUse.contains(scenario)) place(*anyUse.at(scenario));
    std::vector<std::uint32_t> remap;
    for (const Function& f : predicted.functions) remap.push_back(index.at(Key{f.name, f.kind}));
    for (std::uint32_t r = own.first; r < own.last && r < predicted.rankCount(); ++r)
      for (std::uint32_t& f : predicted.ranks[r].function) f = remap[f];
    predicted.functions = std::move(table);
    labels = pointLabels(predicted, own);
  }));
  std::unique_ptr<TraceSink> writer = makeOtf2GroupWriter(path, Otf2Share{&group, own, std::move(labels)});
  emitTrace(predicted, *writer);
}

}  // namespace perwiz
