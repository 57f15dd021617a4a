// perwiz-trace-convert on hand-written raw files (no MPI): clock alignment, communicator
// unification, cancelled requests, the overhead parameter, incomplete runs and bad input.
// Every expected time is derived by hand in the comments.
#include "convert/converter.h"
#include "common/raw_format.h"
#include "common/regions.h"
#include "support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

#include <fstream>

namespace perwiz::tracer_test {
namespace {

using trace::RawRecord;
using trace::RecordKind;
using trace::Region;

std::uint16_t mpi(Region r) { return static_cast<std::uint16_t>(r); }

const std::string kHeader = "perwiz-trace " + std::to_string(trace::kRawVersion) + "\n";

RawRecord rec(RecordKind kind, std::uint64_t time, std::uint16_t region = 0, std::uint32_t comm = 0,
              std::int32_t peer = 0, std::int32_t tag = 0, std::uint64_t bytes = 0,
              std::uint64_t request = 0) {
  RawRecord r{};
  r.time = time;
  r.kind = kind;
  r.region = region;
  r.comm = comm;
  r.peer = peer;
  r.tag = tag;
  r.bytes = bytes;
  r.request = request;
  return r;
}

void writeRank(const fs::path& raw, int rank, const std::string& defs,
               const std::vector<RawRecord>& records, std::size_t tornBytes = 0) {
  fs::create_directories(raw);
  std::ofstream(raw / trace::rawFileName(rank, ".def")) << defs;
  std::ofstream evt(raw / trace::rawFileName(rank, ".evt"), std::ios::binary);
  const trace::RawHeader h = trace::makeRawHeader(rank);
  evt.write(reinterpret_cast<const char*>(&h), sizeof h);
  for (const RawRecord& r : records)  // Enter/Leave: the head only, as the library writes them
    evt.write(reinterpret_cast<const char*>(&r), static_cast<std::streamsize>(trace::recordSize(r.kind)));
  evt.write("xxxxxxxxxxxxxxxx", static_cast<std::streamsize>(tornBytes));
}

// Rank 0 is the reference clock. Rank 1's clock is behind: offset +10000 ns at its local time
// 500, +10200 at 100500, interpolated linearly (floor): offset(t) = 10000 + 200 (t - 500) / 100000.
void writeTwoRanks(const fs::path& raw, bool rank1Finished) {
  const std::uint16_t prgn0 = trace::kFirstUserRegion, prgn1 = trace::kFirstUserRegion + 6;
  writeRank(raw, 0,
            kHeader + "rank 0 size 2\nhost a\nregion 1024 PRGN\n"
            "comm 2 Comm_split 2 1 0\nfinalized 17\n",
            {rec(RecordKind::Enter, 1000, mpi(Region::Init)),
             rec(RecordKind::Parameter, 1050, trace::kOverheadParameterId, 0, 0, 0, 42),
             rec(RecordKind::Leave, 1100, mpi(Region::Init)),
             rec(RecordKind::Enter, 2000, prgn0),
             rec(RecordKind::Enter, 2100, mpi(Region::Send)),
             rec(RecordKind::Send, 2100, 0, 0, 1, 7, 64),
             rec(RecordKind::Leave, 2200, mpi(Region::Send)),
             // An Isend cancelled in the Wait that completes it: no message.
             rec(RecordKind::Enter, 2300, mpi(Region::Isend)),
             rec(RecordKind::Isend, 2300, 0, 0, 1, 8, 4, 5),
             rec(RecordKind::Leave, 2350, mpi(Region::Isend)),
             rec(RecordKind::Enter, 2400, mpi(Region::Wait)),
             rec(RecordKind::Cancelled, 2450, 0, 0, 0, 0, 0, 5),
             rec(RecordKind::Leave, 2450, mpi(Region::Wait)),
             // On the split communicator, comm-local rank 0 is world rank 1.
             rec(RecordKind::Enter, 2500, mpi(Region::Send)),
             rec(RecordKind::Send, 2500, 0, 2, 0, 9, 8),
             rec(RecordKind::Leave, 2600, mpi(Region::Send)),
             rec(RecordKind::Leave, 3000, prgn0)});
  writeRank(raw, 1,
            std::string(kHeader + "rank 1 size 2\nhost b\nclock init 500 10000\n"
                        "clock final 100500 10200\nregion 1030 PRGN\ncomm 2 Comm_split 2 1 0\n") +
                (rank1Finished ? "finalized 11\n" : "signal 15\n"),
            {rec(RecordKind::Enter, 400, mpi(Region::Init)),       // before 500: +10000 -> 10400
             rec(RecordKind::Parameter, 500, trace::kOverheadParameterId, 0, 0, 0, 17),  // 10500
             rec(RecordKind::Leave, 600, mpi(Region::Init)),       // +10000 (200*100/1e5 = 0) -> 10600
             rec(RecordKind::Enter, 50400, prgn1),                 // +10099 -> 60499
             rec(RecordKind::Enter, 50500, mpi(Region::Recv)),     // +10100 -> 60600
             rec(RecordKind::Recv, 50600, 0, 0, 0, 7, 64),         // +10100 -> 60700
             rec(RecordKind::Leave, 50600, mpi(Region::Recv)),
             rec(RecordKind::Enter, 50650, mpi(Region::Recv)),     // +10100 -> 60750
             rec(RecordKind::Recv, 50660, 0, 2, 1, 9, 8),          // local 1 on the split = world 0
             rec(RecordKind::Leave, 50660, mpi(Region::Recv)),     // -> 60760
             rec(RecordKind::Leave, 50700, prgn1)});               // +10100 -> 60800
}

// Times in the model start at the earliest aligned record: rank 0's 1000.
TEST(Converter, AlignsClocksTranslatesRanksAndDropsCancelledMessages) {
  Scratch s;
  const fs::path dir = s.path() / "run";
  writeTwoRanks(dir / trace::kRawDirName, true);
  trace::ConvertOptions o;
  o.traceDir = dir.string();
  const trace::ConvertResult result = trace::convertRawTrace(o);
  EXPECT_TRUE(result.complete);
  EXPECT_TRUE(result.rawRemoved);
  EXPECT_EQ(result.records, 28u);
  EXPECT_TRUE(result.notes.empty()) << result.notes.front();

  const Trace t = loadTrace(dir.string());
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.ranks[1].name, "rank 1 (b)");
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
  const RankTrace& r0 = t.ranks[0];
  const RankTrace& r1 = t.ranks[1];
  // Rank 0: Init [0, 100], the overhead point, PRGN [1000, 2000], Send [1100, 1200], ...
  EXPECT_EQ(r0.enter[0], 0);
  EXPECT_EQ(r0.leave[0], 100);
  // Rank 1: Init [10400 - 1000, 10600 - 1000], PRGN [60499 - 1000, 60800 - 1000],
  // Recv [60600 - 1000, 60700 - 1000].
  EXPECT_EQ(r1.enter[0], 9400);
  EXPECT_EQ(r1.leave[0], 9600);
  std::vector<TimeNs> recvEnters;
  for (std::uint32_t e : r1.mpiCalls)
    if (t.fn(1, e).name == "MPI_Recv") recvEnters.push_back(r1.enter[e]);
  EXPECT_EQ(recvEnters, (std::vector<TimeNs>{59600, 59750}));
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.stepBegin(0, 1), 59499);
  EXPECT_EQ(t.stepEnd(0, 1), 59800);
  EXPECT_EQ(recordedEventOverhead(t, 0), 42);
  EXPECT_EQ(recordedEventOverhead(t, 1), 17);

  // Two messages, both matched; the cancelled Isend (tag 8) left none.
  EXPECT_EQ(t.messageStats.matched, 2u);
  EXPECT_EQ(t.messageStats.unmatchedSends + t.messageStats.unmatchedReceives, 0u);
  for (const MessageEndpoint& m : r0.messages) {
    EXPECT_NE(m.tag, 8);
    EXPECT_EQ(m.peer, 1);
  }
  for (const MessageEndpoint& m : r1.messages) {
    EXPECT_EQ(m.peer, 0);
    if (m.tag == 9) {
      EXPECT_NE(t.comms[m.comm].name.find("Comm_split"), std::string::npos);
    }
  }
}

TEST(Converter, IncompleteRunSaysWhatIsMissingAndKeepsTheRawFiles) {
  Scratch s;
  const fs::path dir = s.path() / "run";
  writeTwoRanks(dir / trace::kRawDirName, false);
  trace::ConvertOptions o;
  o.traceDir = dir.string();
  o.alog = true;
  const trace::ConvertResult result = trace::convertRawTrace(o);
  EXPECT_FALSE(result.complete);
  EXPECT_FALSE(result.rawRemoved);
  EXPECT_TRUE(fs::exists(dir / trace::kRawDirName / "rank-1.evt"));
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_NE(result.notes[0].find("rank 1: was stopped by signal 15; 11 records"), std::string::npos)
      << result.notes[0];
  // Both formats were written and hold the same calls.
  EXPECT_EQ(loadTrace((dir / "traces.alog").string()).mpiCallCount(),
            loadTrace(dir.string()).mpiCallCount());
}

TEST(Converter, HalfWrittenLastRecordIsIgnoredAndReported) {
  Scratch s;
  const fs::path dir = s.path() / "run";
  writeTwoRanks(dir / trace::kRawDirName, true);
  // Rank 0 again, with 7 stray bytes after its records (a write cut short).
  writeRank(dir / trace::kRawDirName, 0, kHeader + "rank 0 size 2\nfinalized 1\n",
            {rec(RecordKind::Enter, 1000, mpi(Region::Init))}, 7);
  trace::ConvertOptions o;
  o.traceDir = dir.string();
  const trace::ConvertResult result = trace::convertRawTrace(o);
  bool reported = false;
  for (const std::string& n : result.notes) reported |= n.find("half a record") != std::string::npos;
  EXPECT_TRUE(reported);
  EXPECT_EQ(loadTrace(dir.string()).ranks[0].size(), 1u);
}

TEST(Converter, BadInputIsRejectedNamingTheFile) {
  Scratch s;
  trace::ConvertOptions o;
  o.traceDir = s.path().string();
  try {
    trace::convertRawTrace(o);
    FAIL() << "a directory without raw files was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("has no perwiz-raw directory"), std::string::npos) << e.what();
  }
  const fs::path raw = s.path() / "run" / trace::kRawDirName;
  writeTwoRanks(raw, true);
  std::ofstream(raw / "rank-1.evt", std::ios::binary | std::ios::trunc) << "not a raw file at all";
  o.traceDir = (s.path() / "run").string();
  try {
    trace::convertRawTrace(o);
    FAIL() << "a corrupt event file was accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), (raw / "rank-1.evt").string());
    EXPECT_NE(e.problem().find("not a perwiz-trace raw event file"), std::string::npos) << e.what();
  }
  writeTwoRanks(raw, true);
  std::ofstream(raw / "rank-1.def", std::ios::trunc) << "perwiz-trace 1\nrank 1 size 2\n";
  try {
    trace::convertRawTrace(o);
    FAIL() << "files of another raw format version were accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), (raw / "rank-1.def").string());
    EXPECT_NE(e.problem().find("raw format version 1"), std::string::npos) << e.what();
  }
  std::ofstream(raw / "rank-1.def", std::ios::trunc) << "hello\n";
  try {
    trace::convertRawTrace(o);
    FAIL() << "a corrupt definition file was accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), (raw / "rank-1.def").string());
  }
}

}  // namespace
}  // namespace perwiz::tracer_test
