// `perwiz-cli info TRACE [--json]`: what is in a trace, as text or JSON.
#include "cli_common.h"
#include "trace_summary.h"

#include "perwiz/trace_io.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>

namespace perwiz::cli {
namespace {

// Keys keep their insertion order: the output is read by people as well as scripts.
using Json = nlohmann::ordered_json;

struct InfoOptions {
  std::string path;
  bool json = false;
};

Json optionalNs(const std::optional<TimeNs>& t) {
  return t ? Json(*t) : Json(nullptr);
}

std::string optionalHuman(const std::optional<TimeNs>& t) {
  return t ? humanDuration(*t) : std::string("-");
}

std::optional<TimeNs> recordedOverhead(const Trace& t, std::uint32_t rank) {
  const TimeNs o = recordedEventOverhead(t, rank);
  return o >= 0 ? std::optional<TimeNs>(o) : std::nullopt;
}

// Key names are an interface: scripts and tests read them.
Json infoJson(const Trace& t, const std::string& path) {
  Json perRank = Json::array();
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    RankSummary s = summarizeRank(t, r);
    perRank.push_back({{"rank", r},
                       {"name", s.name},
                       {"events", s.events},
                       {"mpi_calls", s.mpiCalls},
                       {"sends", s.sends},
                       {"receives", s.receives},
                       {"collectives", s.collectives},
                       {"mpi_busy_ns", s.mpiBusyNs},
                       {"first_enter_ns", optionalNs(s.firstEnter)},
                       {"last_leave_ns", optionalNs(s.lastLeave)},
                       // the tracer's measured cost per record (libperwiz-trace), null if unknown
                       {"event_overhead_ns", optionalNs(recordedOverhead(t, r))}});
  }
  // Threads (Trace::threads): drawn and exported as measured, never predicted.
  Json perThread = Json::array();
  for (const ThreadTrace& th : t.threads) {
    const RankTrace& e = th.events;
    perThread.push_back({{"name", e.name},
                         {"rank", th.rank < 0 ? Json(nullptr) : Json(th.rank)},
                         {"events", e.size()},
                         {"first_enter_ns", e.size() ? optionalNs(e.enter[0]) : Json(nullptr)},
                         {"last_leave_ns", e.size() ? optionalNs(e.leave.maxValue()) : Json(nullptr)}});
  }
  Json warnings = Json::array();
  for (const Diagnostic& d : t.warnings) warnings.push_back(d.toString());
  return {{"file", path},
          {"format", t.format},
          {"ranks", t.rankCount()},
          {"events", t.eventCount()},
          {"records", t.sourceRecords},
          {"mpi_calls", t.mpiCallCount()},
          {"messages",
           {{"matched", t.messageStats.matched},
            {"unmatched_sends", t.messageStats.unmatchedSends},
            {"unmatched_receives", t.messageStats.unmatchedReceives},
            {"receive_before_send", t.messageStats.receiveBeforeSend}}},
          {"collectives", t.collectives.size()},
          {"steps", t.steps.size()},
          {"duration_ns", t.duration()},
          {"duration", humanDuration(t.duration())},
          {"per_rank", perRank},
          {"threads", t.threads.size()},
          {"thread_events", t.threadEventCount()},
          {"per_thread", perThread},
          {"warnings", warnings}};
}

void printRankTable(std::ostream& out, const Trace& t) {
  std::size_t nameWidth = 4;
  for (const RankTrace& r : t.ranks) nameWidth = std::max(nameWidth, r.name.size());
  auto row = [&](const std::string& rank, const std::string& name, const std::string& events,
                 const std::string& calls, const std::string& sends, const std::string& recvs,
                 const std::string& colls, const std::string& busy, const std::string& first,
                 const std::string& last) {
    // Every column after the name starts with two spaces, so a value wider than its column
    // (a time past 10^9 s, a count past 10^8) shifts the row but never runs into its neighbour.
    out << std::left << std::setw(4) << rank << "  " << std::setw(static_cast<int>(nameWidth)) << name << std::right
        << "  " << std::setw(8) << events << "  " << std::setw(9) << calls << "  " << std::setw(7) << sends << "  "
        << std::setw(8) << recvs << "  " << std::setw(11) << colls << "  " << std::setw(12) << busy << "  "
        << std::setw(12) << first << "  " << std::setw(12) << last << '\n';
  };
  row("rank", "name", "events", "MPI calls", "sends", "receives", "collectives", "MPI busy",
      "first enter", "last leave");
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    RankSummary s = summarizeRank(t, r);
    row(std::to_string(r), s.name, std::to_string(s.events), std::to_string(s.mpiCalls),
        std::to_string(s.sends), std::to_string(s.receives), std::to_string(s.collectives),
        humanDuration(s.mpiBusyNs), optionalHuman(s.firstEnter), optionalHuman(s.lastLeave));
  }
}

void printInfoText(std::ostream& out, const Trace& t, const std::string& path) {
  const MessageStats& m = t.messageStats;
  auto line = [&](const char* label) -> std::ostream& {
    return out << std::left << std::setw(18) << label << std::right;
  };
  line("file:") << path << '\n';
  line("format:") << t.format << '\n';
  line("ranks:") << t.rankCount() << '\n';
  if (!t.threads.empty())
    line("threads:") << t.threads.size() << " (" << t.threadEventCount()
                     << " events; shown as measured: the replay predicts MPI ranks)\n";
  line("events:") << t.eventCount() << " (" << t.sourceRecords << " records in the file)\n";
  line("MPI calls:") << t.mpiCallCount() << '\n';
  line("messages:") << m.matched << " matched, " << m.unmatchedSends << " unmatched sends, "
                    << m.unmatchedReceives << " unmatched receives\n";
  line("recv before send:") << m.receiveBeforeSend << '\n';
  line("collectives:") << t.collectives.size() << '\n';
  line("parallel steps:") << t.steps.size() << '\n';
  line("duration:") << t.duration() << " ns (" << humanDuration(t.duration()) << ")\n";
  TimeNs lo = -1, hi = -1;  // the tracer's recorded cost per record, over the ranks that have it
  for (std::uint32_t r = 0; r < t.rankCount(); ++r)
    if (const TimeNs o = recordedEventOverhead(t, r); o >= 0) {
      lo = lo < 0 ? o : std::min(lo, o);
      hi = std::max(hi, o);
    }
  if (hi >= 0)
    line("tracer overhead:") << (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi))
                             << " ns per record (compensate --from-trace removes it)\n";
  out << '\n';
  printRankTable(out, t);
  if (!t.threads.empty()) {
    out << '\n' << std::left << std::setw(8) << "thread" << std::setw(8) << "rank" << "name" << '\n';
    for (std::size_t i = 0; i < t.threads.size(); ++i) {
      const ThreadTrace& th = t.threads[i];
      out << std::left << std::setw(8) << i << std::setw(8) << (th.rank < 0 ? std::string("-") : std::to_string(th.rank))
          << th.events.name << " (" << th.events.size() << " events)" << std::right << '\n';
    }
  }
  out << '\n' << "warnings: " << t.warnings.size() << '\n';
  for (const Diagnostic& d : t.warnings) out << "  " << d.toString() << '\n';
}

}  // namespace

Command addInfoCommand(CLI::App& parent) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* app = parent.add_subcommand("info", "Summarize a trace (ALOG file or OTF2 archive)");
  app->add_option("TRACE", opts->path, "trace file, OTF2 anchor or archive directory")
      ->required();
  app->add_flag("--json", opts->json, "print JSON instead of text");
  return {app, [opts] {
            Trace trace = loadShowingProgress(opts->path);
            if (opts->json)
              std::cout << jsonText(infoJson(trace, opts->path)) << '\n';
            else
              printInfoText(std::cout, trace, opts->path);
            return kExitOk;
          }};
}

}  // namespace perwiz::cli
