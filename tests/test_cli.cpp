// perwiz-cli end to end: runs the built binary, captures its output in files and checks JSON
// values against what the generator spec implies (derived by hand below).
#include "cli_runner.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using perwiz::test::CliResult;
using perwiz::test::readAll;

// Runs perwiz-cli with the arguments, stdout and stderr captured in `dir`.
CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return perwiz::test::runProgram(PERWIZ_CLI, dir, args);
}

json cliJson(const fs::path& dir, const std::vector<std::string>& args) {
  CliResult r = cli(dir, args);
  EXPECT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

// The spec every test generates unless it says otherwise, spelled out so that the expected
// numbers below can be derived from it.
std::vector<std::string> generateArgs(const fs::path& out, std::vector<std::string> extra) {
  std::vector<std::string> a = {"generate",       out.string(), "--ranks",   "4",
                                "--steps",        "6",          "--seed",    "3",
                                "--compute-ns",   "100000",     "--bytes",   "1024",
                                "--latency-ns",   "5000",       "--bandwidth", "1",
                                "--collective-bytes", "8",      "--messages-per-step", "2"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace

TEST(CliInfo, JsonMatchesTheGeneratorSpec) {
  fs::path dir = perwiz::test::freshDir("cli_info_json");
  fs::path trace = dir / "ring";  // a directory name: OTF2
  CliResult gen = cli(dir, generateArgs(trace, {"--pattern", "ring", "--collective", "allreduce"}));
  ASSERT_EQ(gen.status, 0) << gen.err;
  EXPECT_TRUE(gen.err.empty()) << gen.err;

  json j = cliJson(dir, {"info", trace.string(), "--json"});
  // Per rank and step: PRGN_step, 2 Sendrecv, 1 Allreduce = 4 events (3 MPI calls);
  // 4 ranks x 6 steps: 96 events, 72 MPI calls. Ring: each rank sends 2 per step: 48 messages.
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_EQ(j["events"], 96);
  EXPECT_EQ(j["mpi_calls"], 72);
  EXPECT_EQ(j["messages"]["matched"], 48);
  EXPECT_EQ(j["messages"]["unmatched_sends"], 0);
  EXPECT_EQ(j["messages"]["unmatched_receives"], 0);
  EXPECT_EQ(j["collectives"], 6);
  EXPECT_EQ(j["steps"], 6);
  EXPECT_EQ(j["format"], "otf2");
  ASSERT_TRUE(j["warnings"].is_array());
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
  // Without imbalance every rank runs the same step:
  //   compute 100000
  //   + 2 Sendrecv, each entered at t by every rank: the receive lies at the later of the spec's
  //     placement (send record t + 500, then 5000 latency + 1024 bytes at 1 B/ns: t + 6524) and
  //     the default model's delivery (myrinet-score, 1024 B eager: λ = o + L = 2150 + 9110 =
  //     11260 after the sender's enter t: t + 11260), so at t + 11260; leave 500 later = 11760
  //   + Allreduce: 500 + ceil(log2 4) = 2 stages of (5000 + 8) = 10516
  //   = 100000 + 2 * 11760 + 10516 = 134036 ns per step, 6 steps = 804216 ns.
  EXPECT_EQ(j["duration_ns"], 804216);
  ASSERT_EQ(j["per_rank"].size(), 4u);
  for (const json& r : j["per_rank"]) {
    EXPECT_EQ(r["events"], 24);
    EXPECT_EQ(r["mpi_calls"], 18);
    EXPECT_EQ(r["sends"], 12);
    EXPECT_EQ(r["receives"], 12);
    EXPECT_EQ(r["collectives"], 6);
    // MPI busy = everything but the computation: 6 * (134036 - 100000).
    EXPECT_EQ(r["mpi_busy_ns"], 6 * 34036);
    EXPECT_EQ(r["first_enter_ns"], 0);
    EXPECT_EQ(r["last_leave_ns"], 804216);
  }

  CliResult text = cli(dir, {"info", trace.string()});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("804216 ns"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("804.216 us"), std::string::npos) << text.out;
}

// The tracer's recorded cost per record (a PERWIZ_EVENT_OVERHEAD_NS point on each rank, as
// libperwiz-trace writes it) is shown per rank; a trace without it says null.
// usingmpi_monte's ranks disagree by seconds: a partner's record after the call's return. Its
// critical path steps back in time there; `predict` lists that step as clock skew, apart from
// the waits, never as a negative wait ("+-9.079 s wait"). Skipped without the shared traces.
TEST(CliPredict, ClockSkewOnTheCriticalPathIsNamedNotANegativeWait) {
  const fs::path trace = perwiz::test::sharedTraces() / "alog" / "usingmpi_monte.log";
  if (!fs::exists(trace)) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const fs::path dir = perwiz::test::freshDir("cli_skew");
  const CliResult r = cli(dir, {"predict", trace.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("+-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clock skew  6:2 Reduce for 2:2 Reduce"), std::string::npos) << r.out;
  // The totals add up to the path's length: computation + calls + waits - skew.
  const json j = cliJson(dir, {"critical-path", trace.string(), "--json"});
  perwiz::TimeNs sum = 0, negative = 0;
  for (const json& s : j["segments"]) {
    const perwiz::TimeNs len = s["end_ns"].get<perwiz::TimeNs>() - s["begin_ns"].get<perwiz::TimeNs>();
    sum += len;
    if (len < 0) negative += len;
  }
  EXPECT_LT(negative, 0);
  EXPECT_EQ(sum, j["length_ns"].get<perwiz::TimeNs>());
  // A step back is a "skew" segment, never a "wait"; the summary keeps them apart, and the
  // waits are never negative (issue #37: "waits -5.814 s").
  for (const json& s : j["segments"]) {
    const bool back = s["end_ns"].get<perwiz::TimeNs>() < s["begin_ns"].get<perwiz::TimeNs>();
    EXPECT_EQ(s["kind"] == "skew", back) << s.dump();
  }
  EXPECT_EQ(j["summary"]["skew_ns"].get<perwiz::TimeNs>(), negative);
  EXPECT_GE(j["summary"]["wait_ns"].get<perwiz::TimeNs>(), 0);
  // predict's summary is the same path's, and the text header does not depend on --limit.
  const json p = cliJson(dir, {"predict", trace.string(), "--json"});
  EXPECT_EQ(p["critical_path_summary"], j["summary"]);
  auto header = [&](const std::string& limit) {
    const CliResult c = cli(dir, {"critical-path", trace.string(), "--limit", limit});
    EXPECT_EQ(c.status, 0) << c.err;
    const std::size_t at = c.out.find("critical path:");
    return at == std::string::npos ? std::string() : c.out.substr(at, c.out.find('\n', at) - at);
  };
  const std::string few = header("2");
  EXPECT_NE(few.find("clock skew -"), std::string::npos) << few;
  EXPECT_EQ(few, header("100000"));
}

TEST(CliInfo, RecordedTracerOverhead) {
  fs::path dir = perwiz::test::freshDir("cli_info_overhead");
  perwiz::TraceBuilder b("hand", "test");
  b.begin({2, {}});
  const auto init = b.defineFunction({"MPI_Init", perwiz::EventKind::MpiCall, perwiz::MpiOp::None, ""});
  const auto point = b.defineFunction({perwiz::kEventOverheadPoint, perwiz::EventKind::Point, perwiz::MpiOp::None, ""});
  for (std::uint32_t r = 0; r < 2; ++r) {
    b.enter(r, 0, init);
    b.point(r, 10, point, r == 0 ? "25" : "31");  // ns per record on rank 0 and 1
    b.leave(r, 100, init);
  }
  b.end();
  const fs::path trace = dir / "overhead.alog";
  perwiz::saveTrace(b.take(), trace.string());
  const CliResult r = cli(dir, {"info", trace.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["per_rank"][0]["event_overhead_ns"], 25);
  EXPECT_EQ(j["per_rank"][1]["event_overhead_ns"], 31);
  const CliResult text = cli(dir, {"info", trace.string()});
  EXPECT_NE(text.out.find("25-31 ns per record"), std::string::npos) << text.out;
  const CliResult none = cli(dir, {"info", std::string(PERWIZ_SAMPLE) + "/ring4.alog", "--json"});
  EXPECT_TRUE(json::parse(none.out)["per_rank"][0]["event_overhead_ns"].is_null());
}

TEST(CliEvents, IdsAreUniqueAndMatchesPointBack) {
  fs::path dir = perwiz::test::freshDir("cli_events");
  fs::path trace = dir / "nb.otf2";
  CliResult gen = cli(dir, generateArgs(trace, {"--ranks", "3", "--steps", "2", "--messages-per-step",
                                          "1", "--nonblocking"}));
  ASSERT_EQ(gen.status, 0) << gen.err;

  json events = cliJson(dir, {"events", trace.string(), "--json"});
  ASSERT_TRUE(events.is_array());
  // Every MPI call here communicates: Isend, Irecv, Waitall, Allreduce per rank and step:
  // 4 * 3 ranks * 2 steps = 24.
  ASSERT_EQ(events.size(), 24u);
  std::map<std::string, json> byId;
  for (const json& e : events) {
    for (const char* key : {"id", "function", "enter_ns", "leave_ns", "bytes", "partner", "match"})
      EXPECT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    EXPECT_LE(e["enter_ns"].get<long long>(), e["leave_ns"].get<long long>());
    EXPECT_TRUE(byId.emplace(e["id"].get<std::string>(), e).second) << "duplicate " << e["id"];
  }
  std::size_t matches = 0;
  for (const json& e : events) {
    for (const json& m : e["match"]) {
      ASSERT_TRUE(m.is_string()) << e.dump();
      ASSERT_TRUE(byId.count(m.get<std::string>())) << "match " << m << " not listed";
      const json& back = byId[m.get<std::string>()]["match"];
      EXPECT_NE(std::find(back.begin(), back.end(), e["id"]), back.end())
          << e["id"] << " -> " << m << " does not point back";
      ++matches;
    }
  }
  // 6 messages (3 ranks x 2 steps, one each), both ends list the other: 12.
  EXPECT_EQ(matches, 12u);
  // Isend owns its message: 1024 bytes, partner = next rank on the ring.
  for (const json& e : events)
    if (e["function"] == "MPI_Isend") {
      EXPECT_EQ(e["bytes"], 1024);
      int rank = std::stoi(e["id"].get<std::string>());
      EXPECT_EQ(e["partner"], json::array({(rank + 1) % 3}));
    }

  json rank1 = cliJson(dir, {"events", trace.string(), "--rank", "1", "--json"});
  ASSERT_EQ(rank1.size(), 8u);
  for (const json& e : rank1) EXPECT_EQ(e["id"].get<std::string>().rfind("1:", 0), 0u);

  CliResult text = cli(dir, {"events", trace.string()});
  ASSERT_EQ(text.status, 0);
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 24);
}

TEST(CliEvents, SendrecvListsBothPartners) {
  fs::path dir = perwiz::test::freshDir("cli_events_sendrecv");
  fs::path trace = dir / "ring";
  ASSERT_EQ(cli(dir, generateArgs(trace, {"--steps", "1", "--messages-per-step", "1"})).status,
            0);
  json events = cliJson(dir, {"events", trace.string(), "--rank", "0", "--json"});
  // Rank 0: one Sendrecv (send to 1, receive from 3) and one Allreduce.
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["id"], "0:0");
  EXPECT_EQ(events[0]["function"], "MPI_Sendrecv");
  EXPECT_EQ(events[0]["partner"], json::array({1, 3}));
  EXPECT_EQ(events[0]["bytes"], 2048);
  // Rank 1 receives rank 0's message in its Sendrecv (its call 0); rank 3 sent what 0 got.
  EXPECT_EQ(events[0]["match"], json::array({"1:0", "3:0"}));
  EXPECT_EQ(events[1]["function"], "MPI_Allreduce");
  EXPECT_EQ(events[1]["id"], "0:1");
  EXPECT_TRUE(events[1]["partner"].empty());
}

TEST(CliConvert, Otf2ToAlogToOtf2KeepsCounts) {
  fs::path dir = perwiz::test::freshDir("cli_convert");
  fs::path a = dir / "a", b = dir / "b.alog", c = dir / "c.otf2";
  ASSERT_EQ(cli(dir, generateArgs(a, {"--pattern", "random", "--imbalance", "0.3"})).status, 0);
  CliResult ab = cli(dir, {"convert", a.string(), b.string()});
  ASSERT_EQ(ab.status, 0) << ab.err;
  EXPECT_FALSE(ab.out.empty());
  CliResult bc = cli(dir, {"convert", b.string(), c.string()});
  ASSERT_EQ(bc.status, 0) << bc.err;

  json ja = cliJson(dir, {"info", a.string(), "--json"});
  json jb = cliJson(dir, {"info", b.string(), "--json"});
  json jc = cliJson(dir, {"info", c.string(), "--json"});
  EXPECT_EQ(jb["format"], "alog");
  EXPECT_EQ(jc["format"], "otf2");
  for (const char* key : {"ranks", "events", "mpi_calls", "messages", "collectives", "steps"}) {
    EXPECT_EQ(ja[key], jb[key]) << key;
    EXPECT_EQ(ja[key], jc[key]) << key;
  }
  // Random pattern, 2 exchanges: every rank sends 2 per step: 4 * 2 * 6 = 48.
  EXPECT_EQ(jc["messages"]["matched"], 48);
}

TEST(CliConvert, RefusesToOverwrite) {
  fs::path dir = perwiz::test::freshDir("cli_convert_overwrite");
  fs::path a = dir / "a";
  ASSERT_EQ(cli(dir, generateArgs(a, {"--steps", "1"})).status, 0);
  fs::path existing = perwiz::test::writeFile(dir / "taken.alog", "keep me\n");
  CliResult r = cli(dir, {"convert", a.string(), existing.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("perwiz-cli: ", 0), 0u) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(readAll(existing), "keep me\n");
  // generate refuses too, and an existing OTF2 archive is not touched.
  CliResult g = cli(dir, generateArgs(a, {}));
  EXPECT_EQ(g.status, 1);
  json j = cliJson(dir, {"info", a.string(), "--json"});
  EXPECT_EQ(j["steps"], 1);
}

// An empty output name ('') is bad usage, said as such (issue #38, item 9): before, convert said
// "./: already exists" and predict -o '' / --save-scenario '' exited 0 having written nothing.
TEST(CliOutputNames, AnEmptyFileNameIsBadUsage) {
  fs::path dir = perwiz::test::freshDir("cli_empty_output");
  const std::string sample = std::string(PERWIZ_SAMPLE) + "/ring4.alog";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"convert", sample, ""}, "OUT"},
      {{"generate", ""}, "OUT"},
      {{"predict", sample, "-o", ""}, "--output"},
      {{"predict", sample, "--save-scenario", ""}, "--save-scenario"},
      {{"compensate", sample, "--overhead-ns", "5", "-o", ""}, "--output"},
  };
  for (const auto& [args, option] : cases) {
    SCOPED_TRACE(args[0] + " " + option);
    const CliResult r = cli(dir, args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(option + ": an empty file name: give the path to write"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Nothing was written beside the test's own output files.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_TRUE(e.path().filename() == "stdout.txt" || e.path().filename() == "stderr.txt") << e.path();
}

// Issue #38 item 2: a trace that loads with warnings says so in every command, not in 'info'
// alone: the count and the first three on stderr (stdout stays the command's output), and with
// --json every warning under "warnings", the same list 'info --json' gives. The reproducer: the
// bundled ring4.alog cut at 2,000 of its 3,325 bytes. A clean trace prints nothing of the kind.
TEST(CliWarnings, EveryCommandShowsTheLoadsWarnings) {
  fs::path dir = perwiz::test::freshDir("cli_load_warnings");
  const std::string sample = std::string(PERWIZ_SAMPLE) + "/ring4.alog";
  const std::string cut = (dir / "cut.alog").string();
  {
    const std::string whole = readAll(sample);
    ASSERT_GT(whole.size(), 2000u);
    std::ofstream(cut, std::ios::binary) << whole.substr(0, 2000);
  }
  const json info = cliJson(dir, {"info", cut, "--json"});
  const json all = info["warnings"];
  ASSERT_GE(all.size(), 4u) << info.dump();
  const std::string head = cut + ": loaded with " + std::to_string(all.size()) + " warnings";
  const std::vector<std::vector<std::string>> commands = {
      {"predict"}, {"critical-path"}, {"advise"}, {"compensate", "--overhead-ns", "5"}, {"overhead"}, {"events"}};
  for (const auto& c : commands) {
    for (const bool asJson : {false, true}) {
      SCOPED_TRACE(c[0] + (asJson ? " --json" : ""));
      std::vector<std::string> args = {c[0], cut};
      args.insert(args.end(), c.begin() + 1, c.end());
      if (asJson) args.push_back("--json");
      const CliResult r = cli(dir, args);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_NE(r.err.find(head), std::string::npos) << r.err;
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_NE(r.err.find("  " + all[i].get<std::string>() + "\n"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("... " + std::to_string(all.size() - 3) + " more: 'perwiz-cli info " + cut +
                           "' lists them all"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.out.find("loaded with"), std::string::npos) << "the report goes to stderr";
      if (asJson && c[0] != "events") {
        const json j = json::parse(r.out, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << r.out;
        EXPECT_EQ(j["warnings"], all);
      }
    }
  }
  // convert reports them too (and still counts them on its line).
  const CliResult conv = cli(dir, {"convert", cut, (dir / "cut.otf2").string()});
  ASSERT_EQ(conv.status, 0) << conv.err;
  EXPECT_NE(conv.err.find(head), std::string::npos) << conv.err;
  // The whole file: no report, and an empty list.
  const CliResult clean = cli(dir, {"predict", sample, "--json"});
  ASSERT_EQ(clean.status, 0) << clean.err;
  EXPECT_EQ(clean.err.find("loaded with"), std::string::npos) << clean.err;
  EXPECT_EQ(json::parse(clean.out)["warnings"], json::array());
}

// Issue #38 item 7: names are bytes. A file, rank and function name that are not UTF-8 give
// valid JSON in every --json output, the bad bytes as U+FFFD ("[json.exception.type_error.316]"
// before; events --json printed "[" and stopped), and the bytes themselves survive ALOG -> OTF ->
// OTF2 -> ALOG.
TEST(CliNames, NonUtf8BytesGiveValidJsonAndSurviveConversion) {
  fs::path dir = perwiz::test::freshDir("cli_non_utf8");
  const std::string fn = "comp\xff\xfe", rank = "node\xc3", file = (dir / "t\xff.alog").string();
  {
    perwiz::TraceBuilder b("bytes", "test");
    b.begin({2, {rank, "r1"}});
    const auto work = b.defineFunction({fn, perwiz::EventKind::UserState, perwiz::MpiOp::None, ""});
    const auto barrier = b.defineFunction({"MPI_Barrier", perwiz::EventKind::MpiCall, perwiz::MpiOp::Barrier, ""});
    for (std::uint32_t r = 0; r < 2; ++r) {
      b.enter(r, 0, work);
      b.leave(r, 100 + r, work);
      b.enter(r, 101, barrier);
      b.collective(r, 102, perwiz::MpiOp::Barrier, 0, -1, 0, 0);
      b.leave(r, 110, barrier);
    }
    b.end();
    perwiz::saveTrace(b.take(), file);
  }
  const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"info", file, "--json"}, {"events", file, "--json"}, {"predict", file, "--json"},
           {"critical-path", file, "--json"}, {"advise", file, "--json"}, {"overhead", file, "--json"}}) {
    SCOPED_TRACE(args[0]);
    const CliResult r = cli(dir, args);
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    if (args[0] != "events") {  // events lists MPI calls, which name no file, rank or state
      EXPECT_NE(r.out.find(replacement), std::string::npos) << r.out.substr(0, 400);
    }
  }
  // Through every format and back: the same bytes.
  const fs::path otf = dir / "t.otf", otf2 = dir / "t2.otf2", back = dir / "back.alog";
  ASSERT_EQ(cli(dir, {"convert", file, otf.string()}).status, 0);
  ASSERT_EQ(cli(dir, {"convert", otf.string(), otf2.string()}).status, 0);
  ASSERT_EQ(cli(dir, {"convert", otf2.string(), back.string()}).status, 0);
  for (const fs::path& p : {otf, otf2, back}) {
    SCOPED_TRACE(p.filename().string());
    const perwiz::Trace t = perwiz::loadTrace(p.string());
    bool found = false;
    for (const auto& f : t.functions) found = found || f.name == fn;
    EXPECT_TRUE(found);
    EXPECT_EQ(t.ranks[0].name, rank);
  }
}

// Issue #38 item 9: the rank table's columns stay apart for times past 10^9 s (they ran
// together: "1500000000.000 s1500000000.010 s"): every data row is ten fields separated by
// at least two spaces.
TEST(CliInfo, RankTableColumnsStayApartForHugeTimes) {
  fs::path dir = perwiz::test::freshDir("cli_info_columns");
  const std::string file = (dir / "huge.alog").string();
  {
    perwiz::TraceBuilder b("huge", "test");
    b.begin({2, {}});
    const auto barrier = b.defineFunction({"MPI_Barrier", perwiz::EventKind::MpiCall, perwiz::MpiOp::Barrier, ""});
    const perwiz::TimeNs t0 = 1'500'000'000'000'000'000;  // 1.5·10^9 s
    for (std::uint32_t r = 0; r < 2; ++r) {
      b.enter(r, t0, barrier);
      b.collective(r, t0 + 5, perwiz::MpiOp::Barrier, 0, -1, 0, 0);
      b.leave(r, t0 + 10'000'000 + r, barrier);
    }
    b.end();
    perwiz::saveTrace(b.take(), file);
  }
  const CliResult r = cli(dir, {"info", file});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.rfind("0 ", 0) != 0 && line.rfind("1 ", 0) != 0) continue;  // the two ranks' rows
    std::vector<std::string> fields;
    std::size_t pos = 0;
    while (pos < line.size()) {
      const std::size_t gap = line.find("  ", pos);
      const std::string f = line.substr(pos, gap == std::string::npos ? std::string::npos : gap - pos);
      if (!f.empty()) fields.push_back(f.substr(f.find_first_not_of(' ')));
      if (gap == std::string::npos) break;
      pos = line.find_first_not_of(' ', gap);
      if (pos == std::string::npos) break;
    }
    EXPECT_EQ(fields.size(), 10u) << line;
    if (fields.size() == 10) {
      EXPECT_EQ(fields[8], "1500000000.000 s") << line;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 2) << r.out;
}

TEST(CliGenerate, AlogByExtensionAndEventTarget) {
  fs::path dir = perwiz::test::freshDir("cli_generate_alog");
  fs::path out = dir / "t.alog";
  // --events 100 with 2 ranks, pairs, 1 exchange, barrier: per step 2 * (1 + 1 + 1) = 6
  // events, so ceil(100 / 6) = 17 steps = 102 events.
  CliResult g = cli(dir, {"generate", out.string(), "--ranks", "2", "--pattern", "pairs",
                    "--collective", "barrier", "--events", "100"});
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_TRUE(fs::is_regular_file(out));
  json j = cliJson(dir, {"info", out.string(), "--json"});
  EXPECT_EQ(j["format"], "alog");
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["steps"], 17);
  EXPECT_EQ(j["events"], 102);
  EXPECT_EQ(j["messages"]["matched"], 34);
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
}

// Issue #16 item 7: a generated trace is causally consistent under the default model, so predict
// reports no clock skew and no broken cycle, and reproduces it (identity) — for the blocking
// MPI_Send/MPI_Recv ring of item 3 (eager 1 KiB), a rendezvous Sendrecv ring and a non-blocking
// rendezvous master-worker, all with imbalance.
TEST(CliGenerate, PredictFindsNoClockSkewOnGeneratedTraces) {
  fs::path dir = perwiz::test::freshDir("cli_generate_consistent");
  const std::vector<std::vector<std::string>> shapes = {
      {"--pattern", "ring", "--p2p", "send-recv", "--bytes", "1024"},
      {"--pattern", "ring", "--bytes", "100000"},
      {"--pattern", "master-worker", "--nonblocking", "--bytes", "40000", "--collective", "bcast"},
      {"--pattern", "random", "--nonblocking", "--bytes", "64", "--collective", "reduce"}};
  int n = 0;
  for (const auto& shape : shapes) {
    fs::path trace = dir / ("t" + std::to_string(n++));
    std::vector<std::string> extra = shape;
    extra.insert(extra.end(), {"--ranks", "7", "--imbalance", "0.9", "--messages-per-step", "2"});
    CliResult gen = cli(dir, generateArgs(trace, extra));
    ASSERT_EQ(gen.status, 0) << gen.err;
    json j = cliJson(dir, {"predict", trace.string(), "--json"});
    EXPECT_EQ(j["model"]["name"], "myrinet-score") << trace;
    EXPECT_EQ(j["replay"]["skewed_dependencies"], 0) << trace;
    EXPECT_EQ(j["replay"]["broken_cycles"], 0) << trace;
    EXPECT_TRUE(j["replay"]["notes"].empty()) << j["replay"]["notes"].dump();
    EXPECT_EQ(j["predicted_ns"], j["measured_ns"]) << trace;
    CliResult text = cli(dir, {"predict", trace.string()});
    EXPECT_EQ(text.out.find("clock skew"), std::string::npos) << text.out;
  }
}

// Item 3's shape: MPI_Send to the next rank, then MPI_Recv from the previous one.
TEST(CliGenerate, SendThenRecvRing) {
  fs::path dir = perwiz::test::freshDir("cli_generate_send_recv");
  fs::path trace = dir / "ring";
  CliResult gen = cli(dir, generateArgs(trace, {"--p2p", "send-recv", "--messages-per-step", "1"}));
  ASSERT_EQ(gen.status, 0) << gen.err;
  EXPECT_NE(gen.out.find("MPI_Send, MPI_Recv"), std::string::npos) << gen.out;
  json j = cliJson(dir, {"info", trace.string(), "--json"});
  // Per rank and step: PRGN_step, MPI_Send, MPI_Recv, MPI_Allreduce = 4 events (3 calls);
  // 4 ranks x 6 steps: 96 events, 72 calls, 24 messages.
  EXPECT_EQ(j["events"], 96);
  EXPECT_EQ(j["mpi_calls"], 72);
  EXPECT_EQ(j["messages"]["matched"], 24);
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
  json events = cliJson(dir, {"events", trace.string(), "--rank", "2", "--json"});
  // Rank 2, step 0: MPI_Send to 3, MPI_Recv from 1, MPI_Allreduce; 3 calls per step.
  ASSERT_EQ(events.size(), 18u);
  EXPECT_EQ(events[0]["function"], "MPI_Send");
  EXPECT_EQ(events[0]["partner"], json::array({3}));
  EXPECT_EQ(events[1]["function"], "MPI_Recv");
  EXPECT_EQ(events[1]["partner"], json::array({1}));

  // Rendezvous messages (above the default model's S = 16383 bytes) would deadlock: refused
  // with status 2 before anything is written; so is send-recv with --nonblocking.
  CliResult big = cli(dir, generateArgs(dir / "big", {"--p2p", "send-recv", "--bytes", "16384"}));
  EXPECT_EQ(big.status, 2);
  EXPECT_NE(big.err.find("deadlock"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("16383"), std::string::npos) << big.err;
  EXPECT_FALSE(fs::exists(dir / "big"));
  EXPECT_EQ(cli(dir, generateArgs(dir / "ok", {"--p2p", "send-recv", "--bytes", "16383"})).status, 0);
  CliResult nb = cli(dir, generateArgs(dir / "nb", {"--p2p", "send-recv", "--nonblocking"}));
  EXPECT_EQ(nb.status, 2);
  EXPECT_FALSE(fs::exists(dir / "nb"));
  EXPECT_EQ(cli(dir, generateArgs(dir / "x", {"--p2p", "isend"})).status, 2);
}

TEST(CliExit, BadInputIsOne) {
  fs::path dir = perwiz::test::freshDir("cli_exit_input");
  CliResult missing = cli(dir, {"info", (dir / "no-such-trace.alog").string()});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err.rfind("perwiz-cli: ", 0), 0u) << missing.err;
  EXPECT_NE(missing.err.find("no-such-trace.alog"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());

  fs::path garbage = perwiz::test::writeFile(dir / "garbage.alog", "this is not a trace\n\x01\x02");
  CliResult bad = cli(dir, {"info", garbage.string()});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err.rfind("perwiz-cli: ", 0), 0u) << bad.err;
  EXPECT_EQ(cli(dir, {"events", garbage.string()}).status, 1);
  EXPECT_EQ(cli(dir, {"convert", garbage.string(), (dir / "x.alog").string()}).status, 1);
  EXPECT_FALSE(fs::exists(dir / "x.alog"));
}

TEST(CliExit, BadUsageIsTwo) {
  fs::path dir = perwiz::test::freshDir("cli_exit_usage");
  EXPECT_EQ(cli(dir, {}).status, 2);
  EXPECT_EQ(cli(dir, {"frobnicate"}).status, 2);
  EXPECT_EQ(cli(dir, {"info"}).status, 2);
  EXPECT_EQ(cli(dir, {"info", "x.alog", "--no-such-option"}).status, 2);
  EXPECT_EQ(cli(dir, {"convert", "only-one-arg"}).status, 2);
  EXPECT_EQ(cli(dir, {"generate", (dir / "g").string(), "--pattern", "star"}).status, 2);
  EXPECT_FALSE(fs::exists(dir / "g"));

  fs::path trace = dir / "t";
  ASSERT_EQ(cli(dir, generateArgs(trace, {"--steps", "1"})).status, 0);
  CliResult r = cli(dir, {"events", trace.string(), "--rank", "99"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("99"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  CliResult help = cli(dir, {"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("generate"), std::string::npos);
}

TEST(CliSample, Ring4LoadsCleanly) {
  fs::path dir = perwiz::test::freshDir("cli_sample");
  fs::path sample = fs::path(PERWIZ_SAMPLE) / "ring4.alog";
  ASSERT_TRUE(fs::exists(sample));
  json j = cliJson(dir, {"info", sample.string(), "--json"});
  // ring4.alog: 4 ranks, 4 steps; per rank and step PRGN_step, SEND, RECV, ALLREDUCE.
  EXPECT_EQ(j["format"], "alog");
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_EQ(j["steps"], 4);
  EXPECT_EQ(j["events"], 4 * 4 * 4);
  EXPECT_EQ(j["mpi_calls"], 4 * 4 * 3);
  EXPECT_EQ(j["messages"]["matched"], 16);
  EXPECT_EQ(j["messages"]["unmatched_sends"], 0);
  EXPECT_EQ(j["messages"]["unmatched_receives"], 0);
  EXPECT_EQ(j["messages"]["receive_before_send"], 0);
  EXPECT_EQ(j["collectives"], 4);
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
}

// ---- predict / critical-path (issue #3) ----

namespace {

// Rank 0 computes 100 µs, then sends 12 bytes to rank 1 in SEND [100, 110] µs.
// Rank 1 posts RECV at 20 µs and returns at 130 µs.
const char* kLateSender =
    "-1 0 0 0 0 0 Me\n"
    "-3 0 0 2 0 0\n"
    "-4 0 0 1 0 0\n"
    "-6 0 0 0 0 0\n"
    "-7 0 0 0 0 130\n"
    "-11 0 0 0 0 0\n"
    "-13 0 155 156 0 0 green RECV\n"
    "-13 0 161 162 0 0 blue SEND\n"
    "161 0 0 1 0 100\n"
    "-101 0 0 1 0 101 7 12\n"
    "162 0 0 2 0 110\n"
    "155 1 0 1 0 20\n"
    "-102 1 0 0 0 125 7 12\n"
    "156 1 0 2 0 130\n";

}  // namespace

TEST(CliPredict, ZeroingTheSendersComputationShortensTheReceive) {
  const fs::path dir = perwiz::test::freshDir("CliPredict_late");
  const fs::path trace = perwiz::test::writeFile(dir / "late.alog", kLateSender);
  // Default model myrinet-score: λ = o + L = 2.15 + 9.11 = 11.26 µs for the 12-byte eager message.
  // Measured receive: wait = min(t_u + λ − t_v, t_all) = 100 + 11.26 − 20 = 91.26 µs,
  //                   local = 110 − 91.26 = 18.74 µs.
  // zero-event 0:c0 removes rank 0's 100 µs of computation: SEND becomes [0, 10] µs.
  // RECV: ready = 0 + 11.26 = 11.26 µs < enter 20 µs, so X' = 20 + 18.74 = 38.74 µs = T.
  json j = cliJson(dir, {"predict", trace.string(), "--zero-event", "0:c0", "--json"});
  EXPECT_EQ(j["measured_ns"], 130000);
  EXPECT_EQ(j["predicted_ns"], 38740);
  EXPECT_EQ(j["change_ns"], 38740 - 130000);
  ASSERT_EQ(j["hypotheses"].size(), 1u);
  EXPECT_EQ(j["hypotheses"][0]["kind"], "zero-event");
  EXPECT_EQ(j["hypotheses"][0]["event"], "0:c0");
  EXPECT_EQ(j["per_rank"][1]["predicted_end_ns"], 38740);
  // The predicted critical path: rank 1's computation until its RECV at 20 µs, then the
  // RECV's own 18.74 µs local cost (its wait is now zero) ends the path at 38.74 µs.
  EXPECT_EQ(j["critical_path_ns"], 38740);
  // --json is a bounded summary: the listing only with --full-critical-path.
  EXPECT_FALSE(j.contains("critical_path"));
  EXPECT_FALSE(j.contains("critical_path_segments"));
  const json& sum = j["critical_path_summary"];
  EXPECT_EQ(sum["length_ns"], 38740);
  EXPECT_EQ(sum["segments"], 2);
  EXPECT_EQ(sum["mpi_calls"], 1);
  EXPECT_EQ(sum["computation_ns"], 20000);       // 1:c0 [0, 20 µs]
  EXPECT_EQ(sum["call_ns"], 38740 - 20000);     // 1:0's local cost, 18.74 µs
  EXPECT_EQ(sum["wait_ns"], 0);
  ASSERT_EQ(sum["top_functions"].size(), 1u);
  EXPECT_EQ(sum["top_functions"][0]["function"], "RECV");
  EXPECT_EQ(sum["top_functions"][0]["ns"], 18740);
  ASSERT_EQ(sum["top_ranks"].size(), 1u);         // both segments are rank 1's
  EXPECT_EQ(sum["top_ranks"][0]["rank"], 1);
  EXPECT_EQ(sum["top_ranks"][0]["ns"], 38740);
  EXPECT_DOUBLE_EQ(sum["top_ranks"][0]["percent"].get<double>(), 100.0);
  json full = cliJson(dir, {"predict", trace.string(), "--zero-event", "0:c0", "--json", "--full-critical-path"});
  EXPECT_EQ(full["critical_path"], json::array({"1:0"}));
  ASSERT_EQ(full["critical_path_segments"].size(), 2u);
  EXPECT_EQ(full["critical_path_segments"][1]["kind"], "call");
  EXPECT_EQ(full["predicted_ns"], 38740);

  // Without hypotheses the measured critical path is rank 0's computation and SEND call start,
  // then the receive waiting for it: ids 0:0 (the partner) and 1:0.
  json cp = cliJson(dir, {"critical-path", trace.string(), "--json"});
  EXPECT_EQ(cp["length_ns"], 130000);
  EXPECT_EQ(cp["critical_path"], json::array({"0:0", "1:0"}));
  EXPECT_EQ(cp["dag"]["acyclic"], true);
  // Vertices: a source, start and return of 2 calls and 2 end sentinels = 1 + 2·4 = 9; edges:
  // gap and local of 4 units = 8, plus the receive's message dependency = 9 (the eager send's
  // rendezvous dependency is inactive).
  EXPECT_EQ(cp["dag"]["vertices"], 9);
  EXPECT_EQ(cp["dag"]["edges"], 9);
  EXPECT_EQ(cp["summary"]["wait_ns"], 130000 - 100000);  // 1:0 waits from 0:0's start (100 µs) to 130 µs
  ASSERT_EQ(cp["segments"].size(), 2u);
  EXPECT_EQ(cp["segments"][0]["kind"], "computation");
  EXPECT_EQ(cp["segments"][0]["id"], "0:c0");
  EXPECT_EQ(cp["segments"][1]["kind"], "wait");
  EXPECT_EQ(cp["segments"][1]["waits_for"], "0:0");
}

TEST(CliPredict, ZeroWaitAndPresetModelAndScenarioFile) {
  const fs::path dir = perwiz::test::freshDir("CliPredict_zw");
  const fs::path trace = perwiz::test::writeFile(dir / "late.alog", kLateSender);
  // zero-wait 1:0: the receive does not wait: X' = E' + local = 20 + 18.74 µs = 38.74 µs;
  // rank 0 still ends at 110 µs, so T = 110 µs.
  const fs::path scen = dir / "s.json";
  json j = cliJson(dir, {"predict", trace.string(), "--zero-wait", "1:0", "--json", "--save-scenario", scen.string()});
  EXPECT_EQ(j["predicted_ns"], 110000);
  EXPECT_EQ(j["per_rank"][1]["predicted_end_ns"], 38740);
  // The saved scenario reproduces the prediction.
  json k = cliJson(dir, {"predict", trace.string(), "--scenario", scen.string(), "--json"});
  EXPECT_EQ(k["predicted_ns"], 110000);
  EXPECT_EQ(k["hypotheses"], j["hypotheses"]);
  // With the Ethernet preset λ = o_s(12) + L = (12.1 + 0.0901·12) + 69.35 µs = 82.5312 µs
  // → 82531 ns; measured wait = min(100 + 82.531 − 20, 110) = 110 µs (the whole call), so the
  // receive's local cost is 0 and the skew rule shortens the offset to X − t_u = 30 µs.
  json e = cliJson(dir, {"predict", trace.string(), "--model", "ethernet-table5", "--json"});
  EXPECT_EQ(e["predicted_ns"], 130000);  // identity still holds
  EXPECT_EQ(e["model"]["name"], "ethernet-table5");
  EXPECT_EQ(e["replay"]["skewed_dependencies"], 1);
}

TEST(CliPredict, PredictedTraceIsWrittenAndPredictsAgain) {
  const fs::path dir = perwiz::test::freshDir("CliPredict_out");
  const fs::path trace = perwiz::test::writeFile(dir / "late.alog", kLateSender);
  for (const std::string ext : {".alog", ".otf2"}) {
    const fs::path out = dir / ("pred" + ext);
    json j = cliJson(dir, {"predict", trace.string(), "--zero-event", "0:c0", "-o", out.string(), "--json"});
    EXPECT_EQ(j["output"], out.string());
    ASSERT_TRUE(fs::exists(out)) << ext;
    // L' replays to itself (identity on the predicted trace) and carries the scenario.
    json again = cliJson(dir, {"predict", out.string(), "--json"});
    EXPECT_EQ(again["measured_ns"], 38740) << ext;
    EXPECT_EQ(again["predicted_ns"], 38740) << ext;
    ASSERT_EQ(again["earlier_scenarios"].size(), 1u) << ext;
    EXPECT_EQ(again["earlier_scenarios"][0]["hypotheses"][0]["event"], "0:c0") << ext;
    json info = cliJson(dir, {"info", out.string(), "--json"});
    EXPECT_EQ(info["mpi_calls"], 2) << ext;
    // Never overwrite.
    CliResult r = cli(dir, {"predict", trace.string(), "-o", out.string()});
    EXPECT_EQ(r.status, 1) << ext;
    EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
  }
  const std::string text = readAll(dir / "pred.alog");
  EXPECT_NE(text.find("PerWiz scenario"), std::string::npos);
  EXPECT_NE(text.find("\"zero-event\""), std::string::npos);
}

TEST(CliPredict, BadArgumentsAndInputs) {
  const fs::path dir = perwiz::test::freshDir("CliPredict_bad");
  const fs::path trace = perwiz::test::writeFile(dir / "late.alog", kLateSender);
  CliResult r = cli(dir, {"predict", trace.string(), "--zero-wait", "5:0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("2 ranks"), std::string::npos) << r.err;
  r = cli(dir, {"predict", trace.string(), "--zero-wait", "banana"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("RANK:INDEX"), std::string::npos) << r.err;
  r = cli(dir, {"predict", trace.string(), "--zero-wait", "0:c0"});
  EXPECT_EQ(r.status, 2);
  r = cli(dir, {"predict", trace.string(), "--balance-compute", "3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("parallel steps"), std::string::npos) << r.err;
  r = cli(dir, {"predict", trace.string(), "--costs", "fast"});
  EXPECT_EQ(r.status, 2);
  r = cli(dir, {"predict", trace.string(), "--model", (dir / "missing.json").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
  const fs::path badScenario = perwiz::test::writeFile(dir / "bad.json", "{\"perwiz_scenario\": 1, \"costs\": 3}");
  r = cli(dir, {"predict", trace.string(), "--scenario", badScenario.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("costs"), std::string::npos) << r.err;
  r = cli(dir, {"critical-path", (dir / "nope.alog").string()});
  EXPECT_EQ(r.status, 1);
}

// ---- advise (issue #4) ----

namespace {

// kLateSender inside one parallel step (PRGN_step on both ranks):
//   rank 0: PRGN [0, 110] µs { computation 100 µs, SEND 12 B to 1 [100, 110] µs }
//   rank 1: PRGN [0, 130] µs { computation 20 µs, RECV from 0 [20, 130] µs }
const char* kLateSenderStep =
    "-1 0 0 0 0 0 Me\n"
    "-3 0 0 2 0 0\n"
    "-4 0 0 1 0 0\n"
    "-6 0 0 0 0 0\n"
    "-7 0 0 0 0 130\n"
    "-11 0 0 0 0 0\n"
    "-13 0 155 156 0 0 green RECV\n"
    "-13 0 161 162 0 0 blue SEND\n"
    "-13 0 300 301 0 0 orange PRGN_step\n"
    "300 0 0 0 0 0\n"
    "161 0 0 1 0 100\n"
    "-101 0 0 1 0 101 7 12\n"
    "162 0 0 2 0 110\n"
    "301 0 0 0 0 110\n"
    "300 1 0 0 0 0\n"
    "155 1 0 1 0 20\n"
    "-102 1 0 0 0 125 7 12\n"
    "156 1 0 2 0 130\n"
    "301 1 0 0 0 130\n";

}  // namespace

TEST(CliAdvise, JsonByHand) {
  const fs::path dir = perwiz::test::freshDir("CliAdvise_json");
  const fs::path trace = perwiz::test::writeFile(dir / "late_step.alog", kLateSenderStep);
  // Default model myrinet-score: λ = o + L = 2.15 + 9.11 = 11.26 µs (12 B, eager).
  // RECV 1:0: wait = 100 + 11.26 − 20 = 91.26 µs, local = 110 − 91.26 = 18.74 µs. T = 130 µs.
  json j = cliJson(dir, {"advise", trace.string(), "--json", "--threads", "2"});
  for (const char* key : {"measured_ns", "domino", "candidates", "longest_wait", "steps", "bounds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["measured_ns"], 130000);

  // zero-wait 1:0: rank 1 ends at 20 + 18.74 = 38.74 µs, rank 0 still at 110 µs: T = 110 µs.
  // Domino from rank 1's end: 1:0 waited for 0:0; rank 0 has no wait.
  EXPECT_EQ(j["domino"]["predicted_ns"], 110000);
  // By return time: the SEND 0:0 returns at 110 µs, the RECV 1:0 at 130 µs.
  EXPECT_EQ(j["domino"]["paths"], json::parse(R"([["0:0", "1:0"]])"));
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_EQ(j["candidates"][0]["event"], "1:0");
  EXPECT_EQ(j["candidates"][0]["predicted_ns"], 110000);
  EXPECT_EQ(j["candidates"][0]["wait_ns"], 91260);
  EXPECT_EQ(j["longest_wait"]["event"], "1:0");
  EXPECT_EQ(j["longest_wait"]["predicted_ns"], 110000);

  // Step 0: computation 100 µs (rank 0) and 20 µs (rank 1): mean 60 µs, σ = 40 µs.
  // Balanced: both compute 60 µs; SEND [60, 70] µs; RECV enters at 60 µs, the message arrives
  // at 60 + 11.26 = 71.26 µs, X' = 71.26 + 18.74 = 90 µs = T.
  ASSERT_EQ(j["steps"].size(), 1u);
  EXPECT_EQ(j["steps"][0]["step"], 0);
  EXPECT_EQ(j["steps"][0]["sigma_ns"], 40000);
  EXPECT_EQ(j["steps"][0]["predicted_ns"], 90000);
  // Its gain bound: (100 − 60)⁺ + (20 − 60)⁺ = 40 µs (the gain, 130 − 90 µs, reaches it).
  EXPECT_EQ(j["steps"][0]["gain_bound_ns"], 40000);
  EXPECT_EQ(j["steps_total"], 1);
  EXPECT_EQ(j["steps_not_evaluated"], 0);
  // --max-step-predictions 1: the one step is still replayed. On the bundled binary-swap
  // sample (3 imbalanced steps) two are left out and counted, with the largest of their bounds.
  json budget = cliJson(dir, {"advise", trace.string(), "--json", "--max-step-predictions", "1"});
  EXPECT_EQ(budget["steps"].size(), 1u);
  EXPECT_EQ(budget["steps_not_evaluated"], 0);
  json swap = cliJson(dir, {"advise", std::string(PERWIZ_SAMPLE) + "/binary_swap_8", "--json", "--max-step-predictions", "1"});
  EXPECT_EQ(swap["steps_total"], 3);
  EXPECT_EQ(swap["steps"].size(), 1u);
  EXPECT_EQ(swap["steps_not_evaluated"], 2);
  EXPECT_GT(swap["steps_not_evaluated_gain_bound_ns"].get<long long>(), 0);
  EXPECT_LE(swap["steps_not_evaluated_gain_bound_ns"].get<long long>(), swap["steps"][0]["gain_bound_ns"].get<long long>());

  // F3, region PRGN_step, nothing outside it:
  //   rank 0: calc 100000, send 10000, recv 0, wait 0;  rank 1: calc 20000, send 0, recv 18740, wait 91260
  //   mean(calc) = 60000, mean(send + recv) = (10000 + 18740) / 2 = 14370
  //   —            max(110000, 130000) = 130000
  //   Q1           max(110000, 20000 + 18740 = 38740) = 110000
  //   Q2           max(60000 + 10000 = 70000, 60000 + 18740 + 91260 = 170000) = 170000
  //   Q3           max(100000 + 14370 = 114370, 20000 + 14370 + 91260 = 125630) = 125630
  //   Q1 Q2        max(70000, 60000 + 18740 = 78740) = 78740
  //   Q1 Q3        max(114370, 20000 + 14370 = 34370) = 114370
  //   Q2 Q3        max(60000 + 14370 = 74370, 60000 + 14370 + 91260 = 165630) = 165630
  //   Q1 Q2 Q3     max(74370, 74370) = 74370
  const std::map<std::string, long long> expected = {
      {"", 130000},       {"Q1", 110000},    {"Q2", 170000},    {"Q3", 125630},
      {"Q1Q2", 78740},    {"Q1Q3", 114370},  {"Q2Q3", 165630},  {"Q1Q2Q3", 74370}};
  ASSERT_EQ(j["bounds"].size(), 8u);
  std::set<std::string> seen;
  for (const json& row : j["bounds"]) {
    std::string key;
    for (const json& q : row["assume"]) key += q.get<std::string>();
    ASSERT_TRUE(expected.count(key)) << row.dump();
    EXPECT_EQ(row["predicted_ns"], expected.at(key)) << key;
    seen.insert(key);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_TRUE(j["bounds"][0]["assume"].empty());  // the measured row first

  // The text form says the same.
  CliResult text = cli(dir, {"advise", trace.string(), "--quiet"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("0:0 -> 1:0"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("PRGN_step"), std::string::npos) << text.out;
}

TEST(CliAdvise, BadInputAndUsage) {
  const fs::path dir = perwiz::test::freshDir("CliAdvise_bad");
  const fs::path trace = perwiz::test::writeFile(dir / "late_step.alog", kLateSenderStep);
  CliResult r = cli(dir, {"advise", (dir / "nope.alog").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("nope.alog"), std::string::npos) << r.err;
  const fs::path garbage = perwiz::test::writeFile(dir / "garbage.alog", "not a trace\n\x01\x02");
  EXPECT_EQ(cli(dir, {"advise", garbage.string(), "--json"}).status, 1);
  r = cli(dir, {"advise", trace.string(), "--model", (dir / "missing.json").string()});
  EXPECT_EQ(r.status, 1);

  EXPECT_EQ(cli(dir, {"advise"}).status, 2);
  EXPECT_EQ(cli(dir, {"advise", trace.string(), "--no-such-option"}).status, 2);
  EXPECT_EQ(cli(dir, {"advise", trace.string(), "--top", "many"}).status, 2);
  r = cli(dir, {"advise", trace.string(), "--zero-wait", "5:0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}
