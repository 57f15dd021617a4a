#include "converter.h"

#include "clock_model.h"
#include "comm_unifier.h"
#include "raw_reader.h"
#include "tee_sink.h"
#include "common/regions.h"

#include "perwiz/mpi_ops.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <unordered_set>

namespace fs = std::filesystem;

namespace perwiz::trace {

namespace {

struct RankInput {
  RankDefs defs;        // defs.rank == -1: no files for this rank
  std::string evtPath;
  std::unordered_set<std::uint64_t> cancelled;
  std::uint64_t records = 0;
};

std::string describeEnd(const RankDefs& d) {
  switch (d.end) {
    case RankEnd::Finalized: return "reached MPI_Finalize";
    case RankEnd::Aborted: return "called MPI_Abort(" + std::to_string(d.endValue) + ")";
    case RankEnd::Signal: return "was stopped by signal " + std::to_string(d.endValue);
    case RankEnd::Exit: return "exited without MPI_Finalize";
    case RankEnd::Unknown: break;
  }
  return "ended without a word (killed outright, or still running)";
}

// Reads every rank's definition file; the world size is the one they state.
std::vector<RankInput> readInputs(const fs::path& raw, const std::string& traceDir,
                                  std::vector<std::string>& notes) {
  static const std::regex defName(R"(rank-(\d+)\.def)");
  std::map<int, RankDefs> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(raw, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, m, defName)) continue;
    RankDefs d = readRankDefs(entry.path().string());
    if (std::to_string(d.rank) != m[1].str())
      throw TraceError(entry.path().string(), "states rank " + std::to_string(d.rank));
    found.emplace(d.rank, std::move(d));
  }
  if (ec) throw TraceError(raw.string(), "cannot be listed: " + ec.message());
  if (found.empty()) throw TraceError(traceDir, "no rank-*.def files in " + raw.string());
  const int size = found.begin()->second.size;
  for (const auto& [r, d] : found)
    if (d.size != size)
      throw TraceError(raw.string(), "rank " + std::to_string(r) + " states " +
                                         std::to_string(d.size) + " ranks, rank " +
                                         std::to_string(found.begin()->first) + " " +
                                         std::to_string(size));
  std::vector<RankInput> inputs(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    auto it = found.find(r);
    if (it == found.end()) {
      notes.push_back("rank " + std::to_string(r) + ": no raw files (it never got through MPI_Init)");
      continue;
    }
    RankInput& in = inputs[static_cast<std::size_t>(r)];
    in.defs = std::move(it->second);
    in.evtPath = (raw / rawFileName(r, ".evt")).string();
    for (const std::string& p : in.defs.problems)
      notes.push_back("rank " + std::to_string(r) + ": " + rawFileName(r, ".def") + " " + p);
  }
  return inputs;
}

// Pass 1: earliest aligned time, cancelled requests, record counts.
std::int64_t scan(std::vector<RankInput>& inputs, std::vector<std::string>& notes, bool& complete) {
  std::optional<std::int64_t> earliest;
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    RankInput& in = inputs[r];
    if (in.defs.rank < 0) {
      complete = false;
      continue;
    }
    RawEventFile file(in.evtPath, static_cast<int>(r));
    const ClockModel clock(in.defs.clock);
    RawRecord rec;
    bool first = true;
    while (file.next(rec)) {
      if (first) {
        const std::int64_t t = clock.aligned(rec.time);
        earliest = earliest ? std::min(*earliest, t) : t;
        first = false;
      }
      if (rec.kind == RecordKind::Cancelled) in.cancelled.insert(rec.request);
    }
    in.records = file.records();
    const std::string who = "rank " + std::to_string(r) + ": ";
    if (file.tornBytes() > 0)
      notes.push_back(who + "the last " + std::to_string(file.tornBytes()) +
                      " bytes are half a record (ignored)");
    if (in.defs.end != RankEnd::Finalized) {
      complete = false;
      notes.push_back(who + describeEnd(in.defs) + "; " + std::to_string(in.records) +
                      " records were flushed, later ones are missing and the calls open at the "
                      "end are closed at the trace end");
    } else if (in.defs.finalizedRecords != in.records) {
      complete = false;
      notes.push_back(who + std::to_string(in.defs.finalizedRecords) + " records written, " +
                      std::to_string(in.records) + " found");
    }
  }
  return earliest.value_or(0);
}

// Function indexes by name, defined on first use.
class Functions {
 public:
  explicit Functions(TraceSink& sink) : sink_(sink) {}
  std::uint32_t get(const std::string& name, EventKind kind) {
    auto [it, fresh] = index_.try_emplace({name, kind}, 0);
    if (fresh) {
      Function f;
      f.name = name;
      f.kind = kind;
      if (kind == EventKind::MpiCall) {
        f.op = classifyMpiName(name);
        if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
      }
      it->second = sink_.defineFunction(f);
    }
    return it->second;
  }

 private:
  TraceSink& sink_;
  std::map<std::pair<std::string, EventKind>, std::uint32_t> index_;
};

class RankStreamer {
 public:
  RankStreamer(TraceSink& sink, Functions& fns, const CommUnifier& comms, std::int64_t origin,
               std::vector<std::string>& notes)
      : sink_(sink), fns_(fns), comms_(comms), origin_(origin), notes_(notes) {}

  void stream(int rank, const RankInput& in) {
    rank_ = rank;
    in_ = &in;
    const auto r = static_cast<std::uint32_t>(rank);
    RawEventFile file(in.evtPath, rank);
    const ClockModel clock(in.defs.clock);
    TimeNs last = 0;
    RawRecord rec;
    while (file.next(rec)) {
      // Aligned clocks can step back by less than the alignment error; each rank's records
      // stay in their recorded order.
      const TimeNs t = std::max(last, clock.aligned(rec.time) - origin_);
      last = t;
      switch (rec.kind) {
        case RecordKind::Enter: sink_.enter(r, t, regionFunction(rec.region)); break;
        case RecordKind::Leave: sink_.leave(r, t, regionFunction(rec.region)); break;
        case RecordKind::Send:
        case RecordKind::Isend:
          if (rec.kind == RecordKind::Isend && in.cancelled.count(rec.request)) break;
          if (auto c = comm(rec.comm))
            sink_.send(r, t, CommUnifier::worldRank(*c, rank, rec.peer), c->model, rec.tag,
                       rec.bytes, rec.kind == RecordKind::Isend ? rec.request : 0);
          break;
        case RecordKind::Recv:
        case RecordKind::Irecv:
          if (auto c = comm(rec.comm))
            sink_.recv(r, t, CommUnifier::worldRank(*c, rank, rec.peer), c->model, rec.tag,
                       rec.bytes, rec.kind == RecordKind::Irecv ? rec.request : 0);
          break;
        case RecordKind::IsendComplete: sink_.isendComplete(r, t, rec.request); break;
        case RecordKind::IrecvRequest:
          if (!in.cancelled.count(rec.request)) sink_.irecvRequest(r, t, rec.request);
          break;
        case RecordKind::Collective: collective(r, t, rec); break;
        case RecordKind::Parameter:
          if (rec.region == kOverheadParameterId)
            sink_.point(r, t, fns_.get(kEventOverheadPoint, EventKind::Point),
                        std::to_string(rec.bytes));
          break;
        case RecordKind::Cancelled: break;
        default: note("records of an unknown kind " + std::to_string(static_cast<int>(rec.kind)) + " skipped");
      }
    }
  }

 private:
  std::uint32_t regionFunction(std::uint16_t region) {
    if (region < static_cast<std::uint16_t>(Region::Count))
      return fns_.get(kRegionNames[region], EventKind::MpiCall);
    auto it = in_->defs.regions.find(region);
    if (it != in_->defs.regions.end()) return fns_.get(it->second, EventKind::UserState);
    note("region " + std::to_string(region) + " is not defined; named 'region " +
         std::to_string(region) + "'");
    return fns_.get("region " + std::to_string(region), EventKind::UserState);
  }

  std::optional<CommUnifier::Local> comm(std::uint32_t id) {
    auto c = comms_.lookup(rank_, id);
    if (!c) note("records on communicator " + std::to_string(id) + " (not defined, or an intercommunicator) skipped");
    return c;
  }

  void collective(std::uint32_t r, TimeNs t, const RawRecord& rec) {
    const MpiOp op = rec.region < static_cast<std::uint16_t>(Region::Count)
                         ? classifyMpiName(kRegionNames[rec.region])
                         : MpiOp::None;
    if (!isCollective(op)) {
      note("a collective record of a non-collective call skipped");
      return;
    }
    auto c = comm(rec.comm);
    if (!c) return;
    const std::int32_t root = rec.peer < 0 ? -1 : CommUnifier::worldRank(*c, rank_, rec.peer);
    sink_.collective(r, t, op, c->model, root, rec.bytes, rec.request);
  }

  // One note per rank and message.
  void note(const std::string& message) {
    const std::string text = "rank " + std::to_string(rank_) + ": " + message;
    if (noted_.insert(text).second) notes_.push_back(text);
  }

  TraceSink& sink_;
  Functions& fns_;
  const CommUnifier& comms_;
  std::int64_t origin_;
  std::vector<std::string>& notes_;
  std::set<std::string> noted_;
  int rank_ = 0;
  const RankInput* in_ = nullptr;
};

}  // namespace

ConvertResult convertRawTrace(const ConvertOptions& options) {
  ConvertResult result;
  const fs::path dir(options.traceDir);
  const fs::path raw = dir / kRawDirName;
  std::error_code ec;
  if (!fs::is_directory(raw, ec))
    throw TraceError(options.traceDir, std::string("has no ") + kRawDirName +
                                           " directory: not a run traced by libperwiz-trace, "
                                           "or already converted");
  std::vector<RankInput> inputs = readInputs(raw, options.traceDir, result.notes);
  result.ranks = static_cast<int>(inputs.size());
  const std::int64_t origin = scan(inputs, result.notes, result.complete);

  std::vector<std::unique_ptr<TraceSink>> writers;
  if (options.otf2) {
    writers.push_back(makeOtf2Writer(dir.string()));
    result.outputs.push_back(dir.string());
  }
  if (options.alog) {
    const std::string alog = (dir / "traces.alog").string();
    writers.push_back(makeAlogWriter(alog));
    result.outputs.push_back(alog);
  }
  if (options.otf) {
    const std::string otf = (dir / "traces.otf").string();
    writers.push_back(makeOtfWriter(otf));
    result.outputs.push_back(otf);
  }
  std::vector<TraceSink*> targets;
  for (auto& w : writers) targets.push_back(w.get());
  TeeSink sink(targets);

  TraceHeader header;
  header.ranks = static_cast<std::uint32_t>(inputs.size());
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    const std::string& host = inputs[r].defs.host;
    header.rankNames.push_back("rank " + std::to_string(r) + (host.empty() ? "" : " (" + host + ")"));
  }
  sink.begin(header);
  std::vector<RankDefs> defs;
  for (const RankInput& in : inputs) defs.push_back(in.defs);
  const CommUnifier comms(defs, static_cast<int>(inputs.size()));
  for (const Communicator& c : comms.extraComms()) sink.defineComm(c);

  Functions functions(sink);
  RankStreamer streamer(sink, functions, comms, origin, result.notes);
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    if (inputs[r].defs.rank < 0) continue;
    streamer.stream(static_cast<int>(r), inputs[r]);
    result.records += inputs[r].records;
  }
  sink.end();

  if (result.complete && !options.keepRaw) {
    fs::remove_all(raw, ec);
    result.rawRemoved = !ec;
  }
  return result;
}

}  // namespace perwiz::trace
