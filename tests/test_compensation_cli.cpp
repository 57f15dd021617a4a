// `perwiz-cli compensate` and `predict --compensate-ns / --compensate-from-trace` end to end, on
// the master–worker trace of compensation_traces.h (numbers derived there): measured T
// 27900 ns, compensated 23400 ns with 200 ns per event under λ = 1100 ns.
#include "perwiz/trace_io.h"

#include "compensation_traces.h"
#include "cli_runner.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace perwiz;

namespace {

using perwiz::test::CliResult;
using perwiz::test::readAll;

// Runs perwiz-cli with the arguments, stdout and stderr captured in `dir`.
CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return perwiz::test::runProgram(PERWIZ_CLI, dir, args);
}

json cliJson(const fs::path& dir, const std::vector<std::string>& args) {
  const CliResult r = cli(dir, args);
  EXPECT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

struct Files {
  fs::path dir, trace, model;
};

// The trace as OTF2 and the network model of the test (L = 1 µs, o = 0.1 µs: λ = 1100 ns).
Files setUp(const std::string& name) {
  Files f;
  f.dir = test::freshDir(name);
  f.trace = f.dir / "mw.otf2";
  saveTrace(test::masterWorker(), f.trace.string());
  f.model = test::writeFile(f.dir / "simple.json",
                            R"({"model": "LogGPS", "name": "simple", "L_us": 1, "o_us": 0.1, "S_bytes": 1024})");
  return f;
}

}  // namespace

TEST(CliCompensate, JsonByHand) {
  const Files f = setUp("CliCompensate_json");
  json j = cliJson(f.dir, {"compensate", f.trace.string(), "--overhead-ns", "200", "--model", f.model.string(), "--json"});
  EXPECT_EQ(j["measured_ns"], 27900);
  EXPECT_EQ(j["compensated_ns"], 23400);
  EXPECT_EQ(j["change_ns"], 23400 - 27900);
  EXPECT_EQ(j["overhead_ns"], 200);
  EXPECT_EQ(j["overhead_source"], "user");
  EXPECT_EQ(j["events"], 4 + 12 + 22);  // M: 4 calls; W1: 2 calls + 10 states; W2: 2 + 20
  // Local-only: max(27900 − 4·200, 14550 − 12·200, 26850 − 22·200) = max(27100, 12150, 22450).
  EXPECT_EQ(j["local_only_ns"], 27100);
  ASSERT_EQ(j["per_rank"].size(), 3u);
  const json& m = j["per_rank"][0];
  EXPECT_EQ(m["events"], 4);
  EXPECT_EQ(m["own_overhead_ns"], 800);
  EXPECT_EQ(m["measured_end_ns"], 27900);
  EXPECT_EQ(m["compensated_end_ns"], 23400);
  EXPECT_EQ(m["delay_ns"], 4500);  // 27900 − 23400: mostly the workers' overhead, not M's 800
  EXPECT_EQ(m["local_only_end_ns"], 27100);
  EXPECT_EQ(j["per_rank"][1]["compensated_end_ns"], 12250);
  EXPECT_EQ(j["per_rank"][2]["compensated_end_ns"], 22350);
  EXPECT_EQ(j["per_rank"][2]["local_only_end_ns"], 22450);
  EXPECT_EQ(j["output"], nullptr);

  const CliResult text = cli(f.dir, {"compensate", f.trace.string(), "--overhead-ns", "200", "--model", f.model.string()});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("compensated T:  23.400 us"), std::string::npos) << text.out;
}

TEST(CliCompensate, WritesTheCompensatedTraceOnce) {
  const Files f = setUp("CliCompensate_out");
  for (const std::string ext : {".alog", ".otf2"}) {
    const fs::path out = f.dir / ("comp" + ext);
    json j = cliJson(f.dir, {"compensate", f.trace.string(), "--overhead-ns", "200", "--model", f.model.string(),
                             "-o", out.string(), "--json"});
    EXPECT_EQ(j["output"], out.string()) << ext;
    ASSERT_TRUE(fs::exists(out)) << ext;
    // The compensated trace is the uninstrumented run: it replays to itself and records how
    // it was made.
    json again = cliJson(f.dir, {"predict", out.string(), "--model", f.model.string(), "--json"});
    EXPECT_EQ(again["measured_ns"], 23400) << ext;
    EXPECT_EQ(again["predicted_ns"], 23400) << ext;
    ASSERT_EQ(again["earlier_scenarios"].size(), 1u) << ext;
    EXPECT_EQ(again["earlier_scenarios"][0]["hypotheses"][0]["kind"], "compensate") << ext;
    EXPECT_EQ(again["earlier_scenarios"][0]["hypotheses"][0]["overhead_ns"], 200) << ext;
    // Compensating it again says that it already is.
    const CliResult twice = cli(f.dir, {"compensate", out.string(), "--overhead-ns", "200"});
    EXPECT_EQ(twice.status, 0) << twice.err;
    EXPECT_NE(twice.out.find("already compensated"), std::string::npos) << twice.out;
    const Trace t = loadTrace(out.string());
    // W1's work state 3: [2150 + 3000, 3150 + 3000] without instrumentation.
    std::uint32_t seen = 0;
    for (std::uint32_t e = 0; e < t.ranks[1].size(); ++e)
      if (t.fn(1, e).name == "work" && seen++ == 3) {
        EXPECT_EQ(t.ranks[1].enter[e], 5150) << ext;
        EXPECT_EQ(t.ranks[1].leave[e], 6150) << ext;
      }
    EXPECT_EQ(seen, 10u) << ext;
    const CliResult r = cli(f.dir, {"compensate", f.trace.string(), "--overhead-ns", "200", "-o", out.string()});
    EXPECT_EQ(r.status, 1) << ext;
    EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
  }
}

TEST(CliPredict, CompensateOptionAddsTheHypothesis) {
  const Files f = setUp("CliPredict_comp");
  const fs::path scen = f.dir / "s.json";
  json j = cliJson(f.dir, {"predict", f.trace.string(), "--compensate-ns", "200", "--model", f.model.string(),
                           "--json", "--save-scenario", scen.string()});
  EXPECT_EQ(j["measured_ns"], 27900);
  EXPECT_EQ(j["predicted_ns"], 23400);
  ASSERT_EQ(j["hypotheses"].size(), 1u);
  EXPECT_EQ(j["hypotheses"][0], (json{{"kind", "compensate"}, {"overhead_ns", 200}}));
  EXPECT_EQ(j["per_rank"][0]["predicted_end_ns"], 23400);  // predict's own keys, unchanged
  EXPECT_TRUE(j.contains("critical_path_summary"));
  // With another hypothesis: W2's work (2:c1) also takes no time, so its send starts when its
  // receive returns (2250) and the result arrives at 2250 + 1100 = 3350, before M calls Recv2
  // at 13300: T = 13300 + 50 = 13350.
  json both = cliJson(f.dir, {"predict", f.trace.string(), "--compensate-ns", "200", "--zero-event", "2:c1",
                              "--model", f.model.string(), "--json"});
  EXPECT_EQ(both["predicted_ns"], 13350);
  // The saved scenario carries the compensation.
  json k = cliJson(f.dir, {"predict", f.trace.string(), "--scenario", scen.string(), "--json"});
  EXPECT_EQ(k["predicted_ns"], 23400);
  EXPECT_EQ(k["hypotheses"], j["hypotheses"]);
}

TEST(CliCompensate, FromTheTracersRecord) {
  const Files f = setUp("CliCompensate_trace");
  // The tracer recorded 100 ns per record on every rank: 200 ns per event (enter + leave).
  const fs::path traced = f.dir / "traced.otf2";
  saveTrace(test::withRecordedOverhead(test::masterWorker(), 100), traced.string());
  json j = cliJson(f.dir, {"compensate", traced.string(), "--from-trace", "--model", f.model.string(), "--json"});
  EXPECT_EQ(j["overhead_source"], "trace");
  EXPECT_EQ(j["overhead_ns"], 200);
  EXPECT_EQ(j["compensated_ns"], 23400);
  EXPECT_EQ(j["events"], 38 + 3);  // one overhead point per rank
  json p = cliJson(f.dir, {"predict", traced.string(), "--compensate-from-trace", "--model", f.model.string(), "--json"});
  EXPECT_EQ(p["predicted_ns"], 23400);
  EXPECT_EQ(p["hypotheses"][0]["overhead_ns"], "trace");
}

TEST(CliCompensate, BadInputAndUsage) {
  const Files f = setUp("CliCompensate_bad");
  const std::string trace = f.trace.string();
  CliResult r = cli(f.dir, {"compensate", trace, "--overhead-ns", "-5"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("0 ns or more"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(trace), std::string::npos) << r.err;
  // A trace without the tracer's record of its overhead: bad input, named.
  r = cli(f.dir, {"compensate", trace, "--from-trace"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(trace + " records no instrumentation overhead"), std::string::npos) << r.err;
  r = cli(f.dir, {"compensate", trace});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("exactly one of --overhead-ns N and --from-trace"), std::string::npos) << r.err;
  r = cli(f.dir, {"compensate", trace, "--overhead-ns", "10", "--from-trace"});
  EXPECT_EQ(r.status, 2);
  r = cli(f.dir, {"compensate", (f.dir / "missing.alog").string(), "--overhead-ns", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.alog"), std::string::npos) << r.err;

  r = cli(f.dir, {"predict", trace, "--compensate-ns", "-1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(trace), std::string::npos) << r.err;
  r = cli(f.dir, {"predict", trace, "--compensate-from-trace"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(trace + " records no instrumentation overhead"), std::string::npos) << r.err;
  r = cli(f.dir, {"predict", trace, "--compensate-ns", "1", "--compensate-from-trace"});
  EXPECT_EQ(r.status, 2);
  // A scenario file with a compensation, plus another on the command line: two is refused.
  const fs::path scen = test::writeFile(
      f.dir / "c.json", R"({"perwiz_scenario": 1, "hypotheses": [{"kind": "compensate", "overhead_ns": 50}]})");
  r = cli(f.dir, {"predict", trace, "--scenario", scen.string(), "--compensate-ns", "200"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("two compensations"), std::string::npos) << r.err;
}
