// Cross-format conformance on every shared sample trace: ALOG -> OTF2 keeps the model exactly;
// OTF2 -> ALOG -> model keeps ranks, events, times and matched messages. (With PerWiz's ALOG
// records both directions keep the whole model: test_roundtrip.cpp checks that, and every count
// of perwiz-cli info, on the shared and the bundled traces.)
#include "perwiz/trace_io.h"
#include "model_invariants.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace perwiz;
namespace fs = std::filesystem;

TEST(Conformance, EverySharedAlogSurvivesConversionToOtf2) {
  auto files = test::sharedAlogFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/traces absent";
  fs::path dir = test::freshDir("conf_alog_otf2");
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    Trace a = loadTrace(f.string());
    EXPECT_EQ(test::modelViolation(a), "");
    fs::path out = dir / f.stem();
    saveTrace(a, out.string());
    Trace b = loadTrace(out.string());
    std::string why;
    EXPECT_TRUE(a.sameModel(b, &why)) << why;
  }
}

TEST(Conformance, EverySharedOtf2KeepsEventsAndMessagesThroughAlog) {
  auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "../shared/traces absent";
  fs::path dir = test::freshDir("conf_otf2_alog");
  for (const auto& a : archives) {
    SCOPED_TRACE(a.string());
    Trace t = loadTrace(a.string());
    EXPECT_EQ(test::modelViolation(t), "");
    fs::path out = dir / (a.filename().string() + ".alog");
    saveTrace(t, out.string());
    Trace back = loadTrace(out.string());
    ASSERT_EQ(back.rankCount(), t.rankCount());
    EXPECT_EQ(back.eventCount(), t.eventCount());
    EXPECT_EQ(back.endTime, t.endTime);
    EXPECT_EQ(back.messageStats.matched, t.messageStats.matched);
    for (std::size_t r = 0; r < t.rankCount(); ++r) {
      EXPECT_EQ(back.ranks[r].enter, t.ranks[r].enter) << "rank " << r;
      EXPECT_EQ(back.ranks[r].leave, t.ranks[r].leave) << "rank " << r;
    }
  }
}
