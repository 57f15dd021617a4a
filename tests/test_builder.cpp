// TraceBuilder: nesting, request linking, message and collective matching, diagnostics.
#include "perwiz/trace_builder.h"
#include "model_invariants.h"

#include <gtest/gtest.h>
#include <random>

using namespace perwiz;

namespace {

Function mpi(const std::string& name) { return {name, EventKind::MpiCall, classifyMpiName(name), ""}; }
Function state(const std::string& name) { return {name, EventKind::UserState, MpiOp::None, ""}; }

bool hasWarning(const Trace& t, const std::string& needle) {
  for (const auto& w : t.warnings)
    if (w.toString().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(Builder, BlockingSendReceiveIsMatched) {
  TraceBuilder b("mem", "test");
  b.begin({2, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  auto recv = b.defineFunction(mpi("MPI_Recv"));
  // rank 1 posts its receive first (t=50) and the message arrives at 300.
  b.enter(1, 50, recv);
  b.recv(1, 300, 0, 0, 5, 64, 0);
  b.leave(1, 310, recv);
  b.enter(0, 100, send);
  b.send(0, 110, 1, 0, 5, 64, 0);
  b.leave(0, 200, send);
  b.end();
  Trace t = b.take();
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.eventCount(), 2u);
  EXPECT_EQ(t.messageStats.matched, 1u);
  EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
  const MessageEndpoint& s = t.ranks[0].messages.at(0);
  const MessageEndpoint& r = t.ranks[1].messages.at(0);
  EXPECT_TRUE(s.isSend);
  EXPECT_EQ(s.matchRank, 1u);
  EXPECT_EQ(s.matchIndex, 0u);
  EXPECT_EQ(r.matchRank, 0u);
  EXPECT_EQ(r.event, 0u);
  EXPECT_EQ(t.ranks[0].leave[0], 200);
  EXPECT_EQ(t.endTime, 310);  // latest leave
  EXPECT_EQ(t.ranks[1].mpiCalls, std::vector<std::uint32_t>{0});
  EXPECT_TRUE(t.warnings.empty());
}

TEST(Builder, NonOvertakingPerChannelIndependentOfRecordOrder) {
  TraceBuilder b;
  b.begin({2, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  auto recv = b.defineFunction(mpi("MPI_Recv"));
  // Receiver's records arrive first in the stream (as in real ALOG files with clock skew).
  // Rank 1 receives tag 1 twice (10 then 20 bytes) and tag 2 once (7 bytes), in the order
  // tag1, tag2, tag1; rank 0 sends tag 2 first, then tag 1 (10 B), tag 1 (20 B).
  TimeNs t1 = 0;
  for (auto [tag, bytes] : {std::pair{1, 10}, std::pair{2, 7}, std::pair{1, 20}}) {
    b.enter(1, t1, recv);
    b.recv(1, t1 + 5, 0, 0, tag, bytes, 0);
    b.leave(1, t1 + 6, recv);
    t1 += 10;
  }
  TimeNs t0 = 100;
  for (auto [tag, bytes] : {std::pair{2, 7}, std::pair{1, 10}, std::pair{1, 20}}) {
    b.enter(0, t0, send);
    b.send(0, t0 + 1, 1, 0, tag, bytes, 0);
    b.leave(0, t0 + 2, send);
    t0 += 10;
  }
  b.end();
  Trace t = b.take();
  EXPECT_EQ(t.messageStats.matched, 3u);
  // Every pair must agree on tag and size: the i-th send of a channel meets its i-th receive.
  for (const auto& m : t.ranks[0].messages) {
    const auto& other = t.ranks[m.matchRank].messages[m.matchIndex];
    EXPECT_EQ(other.tag, m.tag);
    EXPECT_EQ(other.bytes, m.bytes);
  }
  // All three receives complete before their sends start: reported, not dropped.
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 3u);
  EXPECT_TRUE(hasWarning(t, "completes before its send"));
}

TEST(Builder, IrecvMatchesInPostingOrderNotCompletionOrder) {
  TraceBuilder b;
  b.begin({2, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  auto irecv = b.defineFunction(mpi("MPI_Irecv"));
  auto waitall = b.defineFunction(mpi("MPI_Waitall"));
  // rank 1: Irecv req 1 posted at 10, Irecv req 2 at 20; Waitall records req 2 first.
  b.enter(1, 10, irecv); b.irecvRequest(1, 11, 1); b.leave(1, 12, irecv);
  b.enter(1, 20, irecv); b.irecvRequest(1, 21, 2); b.leave(1, 22, irecv);
  b.enter(1, 100, waitall);
  b.recv(1, 150, 0, 0, 0, 16, 2);
  b.recv(1, 151, 0, 0, 0, 8, 1);
  b.leave(1, 160, waitall);
  // rank 0 sends 8 bytes then 16 bytes: by non-overtaking the first (8 B) goes to the first
  // posted receive (req 1), which recorded 8 bytes.
  b.enter(0, 30, send); b.send(0, 31, 1, 0, 0, 8, 0); b.leave(0, 32, send);
  b.enter(0, 40, send); b.send(0, 41, 1, 0, 0, 16, 0); b.leave(0, 42, send);
  b.end();
  Trace t = b.take();
  EXPECT_EQ(t.messageStats.matched, 2u);
  EXPECT_FALSE(hasWarning(t, "received as"));  // sizes agree: posting order was used
  const auto& msgs = t.ranks[1].messages;
  ASSERT_EQ(msgs.size(), 2u);
  // Posting order: request 1 (posted by event 0) comes first.
  EXPECT_EQ(msgs[0].request, 1u);
  EXPECT_EQ(msgs[0].postEvent, 0u);
  EXPECT_EQ(msgs[0].event, 2u);  // completed by the Waitall
  EXPECT_EQ(msgs[0].bytes, 8u);
  EXPECT_EQ(t.ranks[0].messages[msgs[0].matchIndex].bytes, 8u);
}

TEST(Builder, IsendIsLinkedToItsCompletingWait) {
  TraceBuilder b;
  b.begin({2, {}});
  auto isend = b.defineFunction(mpi("MPI_Isend"));
  auto wait = b.defineFunction(mpi("MPI_Wait"));
  auto recv = b.defineFunction(mpi("MPI_Recv"));
  b.enter(0, 0, isend); b.send(0, 1, 1, 0, 3, 4, 77); b.leave(0, 2, isend);
  b.enter(0, 10, wait); b.isendComplete(0, 11, 77); b.leave(0, 12, wait);
  b.enter(1, 0, recv); b.recv(1, 5, 0, 0, 3, 4, 0); b.leave(1, 6, recv);
  b.end();
  Trace t = b.take();
  const auto& m = t.ranks[0].messages.at(0);
  EXPECT_EQ(m.postEvent, 0u);
  EXPECT_EQ(m.event, 1u);
  // The model keeps that the send is non-blocking, not the tracer's handle (77): reading the
  // table gives endpoint index + 1.
  EXPECT_TRUE(m.nonBlocking());
  EXPECT_EQ(m.request, 1u);
  EXPECT_TRUE(m.matched());
}

TEST(Builder, UnmatchedEndpointsAreKeptCountedAndReported) {
  TraceBuilder b;
  b.begin({3, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  b.enter(0, 0, send); b.send(0, 1, 1, 0, 0, 4, 0); b.leave(0, 2, send);
  b.enter(2, 0, send); b.send(2, 1, 9, 0, 0, 4, 0); b.leave(2, 2, send);  // partner 9: no such rank
  b.end();
  Trace t = b.take();
  EXPECT_EQ(t.messageStats.matched, 0u);
  EXPECT_EQ(t.messageStats.unmatchedSends, 2u);
  EXPECT_EQ(t.ranks[0].messages.size(), 1u);  // kept
  EXPECT_TRUE(hasWarning(t, "unmatched send on rank 0 to rank 1"));
  EXPECT_TRUE(hasWarning(t, "not a rank of the trace"));
}

TEST(Builder, CollectivesMatchByOrderPerCommunicator) {
  TraceBuilder b;
  b.begin({3, {}});
  auto barrier = b.defineFunction(mpi("BARRIER"));
  auto allreduce = b.defineFunction(mpi("MPI_Allreduce"));
  auto sub = b.defineComm(Communicator{"evens", {0, 2}, false});
  for (std::uint32_t r = 0; r < 3; ++r) {
    // Two barriers on WORLD without collective records (ALOG style).
    b.enter(r, 0, barrier); b.leave(r, 10, barrier);
    b.enter(r, 20, barrier); b.leave(r, 30, barrier);
  }
  for (std::uint32_t r : {0u, 2u}) {
    b.enter(r, 40, allreduce);
    b.collective(r, 45, MpiOp::Allreduce, sub, -1, 8, 8);
    b.leave(r, 50, allreduce);
  }
  b.end();
  Trace t = b.take();
  // 2 barriers on WORLD + 1 allreduce on "evens".
  ASSERT_EQ(t.collectives.size(), 3u);
  EXPECT_EQ(t.collectives[0].participants, 3u);
  EXPECT_EQ(t.collectives[1].sequence, 1u);
  EXPECT_EQ(t.collectives[2].comm, sub);
  EXPECT_EQ(t.collectives[2].participants, 2u);
  EXPECT_EQ(t.ranks[2].collectives.at(2).instance, 2u);
  EXPECT_EQ(t.ranks[2].collectives.at(2).bytesSent, 8u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
}

TEST(Builder, NestingOpenStatesAndStrayEndsAreDiagnosed) {
  TraceBuilder b("x.alog");
  b.begin({1, {"main"}});
  auto outer = b.defineFunction(state("Compute"));
  auto send = b.defineFunction(mpi("SEND"));
  b.setPosition(3);
  b.enter(0, 0, outer);
  b.enter(0, 5, send);
  b.leave(0, 7, send);
  b.setPosition(9);
  b.leave(0, 8, send);  // stray end: no open SEND
  b.end();              // Compute still open: closed at the end time (8)
  Trace t = b.take();
  EXPECT_EQ(t.ranks[0].name, "main");
  EXPECT_EQ(t.ranks[0].depth, (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(t.ranks[0].leave[0], 8);
  EXPECT_TRUE(hasWarning(t, "x.alog:9: rank 0: end of 'SEND' without a matching start"));
  EXPECT_TRUE(hasWarning(t, "'Compute' still open at the end"));
}

TEST(Builder, RecordOutsideAnyCallGetsASyntheticCall) {
  TraceBuilder b;
  b.begin({2, {}});
  auto work = b.defineFunction(state("Work"));
  b.enter(0, 0, work);
  b.send(0, 5, 1, 0, 0, 1, 0);
  b.leave(0, 9, work);
  b.end();
  Trace t = b.take();
  ASSERT_EQ(t.ranks[0].size(), 2u);
  EXPECT_EQ(t.fn(0, 1).name, "MPI_Send");
  EXPECT_EQ(t.ranks[0].enter[1], 5);
  EXPECT_EQ(t.ranks[0].leave[1], 5);
  EXPECT_EQ(t.ranks[0].messages[0].event, 1u);
  EXPECT_TRUE(hasWarning(t, "outside any MPI call"));
}

TEST(Builder, OutOfOrderRecordsAreResortedWithReferences) {
  TraceBuilder b;
  b.begin({1, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  b.enter(0, 100, send); b.send(0, 101, 0, 0, 0, 1, 0); b.leave(0, 102, send);
  b.enter(0, 10, send); b.send(0, 11, 0, 0, 0, 2, 0); b.leave(0, 12, send);
  b.end();
  Trace t = b.take();
  EXPECT_EQ(t.ranks[0].enter, (std::vector<TimeNs>{10, 100}));
  // The 2-byte message belongs to the call now at index 0.
  for (const auto& m : t.ranks[0].messages) EXPECT_EQ(m.event, m.bytes == 2 ? 0u : 1u);
  EXPECT_TRUE(hasWarning(t, "time goes backwards"));
}

TEST(Builder, UnusedFunctionsArePruned) {
  TraceBuilder b;
  b.begin({1, {}});
  b.defineFunction(mpi("MPI_Comm_rank"));
  auto send = b.defineFunction(mpi("MPI_Send"));
  b.enter(0, 0, send); b.leave(0, 1, send);
  b.end();
  Trace t = b.take();
  ASSERT_EQ(t.functions.size(), 1u);
  EXPECT_EQ(t.functions[0].name, "MPI_Send");
  EXPECT_EQ(t.ranks[0].function[0], 0u);
}

TEST(Builder, EmitTraceRebuildsTheSameModel) {
  TraceBuilder b;
  b.begin({2, {"a", "b"}});
  auto prgn = b.defineFunction(state("PRGN_loop"));
  auto isend = b.defineFunction(mpi("MPI_Isend"));
  auto irecv = b.defineFunction(mpi("MPI_Irecv"));
  auto wait = b.defineFunction(mpi("MPI_Waitall"));
  auto bar = b.defineFunction(mpi("MPI_Barrier"));
  auto mark = b.defineFunction(Function{"tick", EventKind::Point, MpiOp::None, ""});
  for (std::uint32_t r = 0; r < 2; ++r) {
    TimeNs t = 0;
    for (int step = 0; step < 2; ++step) {
      b.enter(r, t, prgn);
      b.point(r, t + 1, mark, "step " + std::to_string(step));
      b.enter(r, t + 2, isend); b.send(r, t + 3, 1 - r, 0, step, 100, 10 + step); b.leave(r, t + 4, isend);
      b.enter(r, t + 5, irecv); b.irecvRequest(r, t + 6, 20 + step); b.leave(r, t + 7, irecv);
      b.enter(r, t + 8, wait);
      b.isendComplete(r, t + 9, 10 + step);
      b.recv(r, t + 9, 1 - r, 0, step, 100, 20 + step);
      b.leave(r, t + 10, wait);
      b.enter(r, t + 11, bar); b.collective(r, t + 12, MpiOp::Barrier, 0, -1, 0, 0); b.leave(r, t + 13, bar);
      b.leave(r, t + 14, prgn);
      t += 20;
    }
  }
  b.end();
  Trace a = b.take();
  ASSERT_TRUE(a.warnings.empty()) << a.warnings.front().toString();
  EXPECT_EQ(a.messageStats.matched, 4u);
  EXPECT_EQ(a.steps.size(), 2u);
  TraceBuilder again;
  emitTrace(a, again);
  Trace c = again.take();
  std::string why;
  EXPECT_TRUE(a.sameModel(c, &why)) << why;
}

TEST(Builder, EventIdsRoundTrip) {
  std::uint32_t r = 0, i = 0;
  EXPECT_EQ(eventId(3, 17), "3:17");
  EXPECT_TRUE(parseEventId("3:17", r, i));
  EXPECT_EQ(r, 3u);
  EXPECT_EQ(i, 17u);
  EXPECT_FALSE(parseEventId("3:", r, i));
  EXPECT_FALSE(parseEventId(":3", r, i));
  EXPECT_FALSE(parseEventId("3:x", r, i));
  EXPECT_FALSE(parseEventId("-1:2", r, i));
}

TEST(Builder, TimesBeforeTheDeclaredStartAreShiftedToZero) {
  TraceBuilder b;
  b.begin({1, {}});
  auto send = b.defineFunction(mpi("MPI_Send"));
  b.enter(0, -50, send);
  b.send(0, -40, 0, 0, 0, 1, 0);
  b.leave(0, 10, send);
  b.end();
  Trace t = b.take();
  // Earliest time -50 becomes 0: everything moves by +50.
  EXPECT_EQ(t.ranks[0].enter[0], 0);
  EXPECT_EQ(t.ranks[0].leave[0], 60);
  EXPECT_EQ(t.ranks[0].messages[0].time, 10);
  EXPECT_EQ(t.endTime, 60);
  EXPECT_TRUE(hasWarning(t, "shifted"));
}

TEST(Builder, ManyOutstandingRequestsAreLinkedInAnyCompletionOrder) {
  // 100 Isends in flight at once (beyond the request table's small-vector size), completed
  // newest first by one Waitall each; every send must point at its own Wait.
  TraceBuilder b;
  b.begin({2, {}});
  auto isend = b.defineFunction(mpi("MPI_Isend"));
  auto wait = b.defineFunction(mpi("MPI_Wait"));
  const int n = 100;
  TimeNs t = 0;
  for (int i = 0; i < n; ++i) {
    b.enter(0, t, isend); b.send(0, t, 1, 0, 0, static_cast<std::uint64_t>(i), 1000 + i); b.leave(0, t + 1, isend);
    t += 2;
  }
  for (int i = n - 1; i >= 0; --i) {
    b.enter(0, t, wait); b.isendComplete(0, t, 1000 + i); b.leave(0, t + 1, wait);
    t += 2;
  }
  b.end();
  Trace tr = b.take();
  ASSERT_EQ(tr.ranks[0].messages.size(), static_cast<std::size_t>(n));
  for (const auto& m : tr.ranks[0].messages) {
    // Isend i is event i; its Wait comes (n-1-i) waits after the n Isends: event n + (n-1-i).
    const auto i = static_cast<std::uint32_t>(m.bytes);  // Isend i sent i bytes
    EXPECT_EQ(m.postEvent, i);
    EXPECT_EQ(m.event, static_cast<std::uint32_t>(n) + (n - 1 - i));
  }
}

TEST(Builder, RandomRecordStreamsAlwaysGiveAConsistentModel) {
  // Property: whatever a (buggy or damaged) producer sends - stray leaves, improper nesting,
  // unknown requests, unknown peers, time going backwards, records outside calls - the built
  // model satisfies every structural invariant.
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    const std::uint32_t ranks = 1 + static_cast<std::uint32_t>(pick(4));
    TraceBuilder b;
    b.begin({ranks, {}});
    std::vector<std::uint32_t> fns = {
        b.defineFunction(mpi("MPI_Send")),      b.defineFunction(mpi("MPI_Recv")),
        b.defineFunction(mpi("MPI_Irecv")),     b.defineFunction(mpi("MPI_Waitall")),
        b.defineFunction(mpi("MPI_Allreduce")), b.defineFunction(state("PRGN_it")),
        b.defineFunction(state("Work"))};
    auto point = b.defineFunction(Function{"mark", EventKind::Point, MpiOp::None, ""});
    std::vector<TimeNs> now(ranks, 0);
    for (int i = 0; i < 300; ++i) {
      const auto r = static_cast<std::uint32_t>(pick(ranks));
      now[r] += static_cast<TimeNs>(pick(10)) - (pick(20) == 0 ? 15 : 0);  // rarely backwards
      const TimeNs t = now[r];
      const auto peer = static_cast<std::int32_t>(pick(ranks + 1)) - (pick(10) == 0 ? 1 : 0);
      const auto tag = static_cast<std::int32_t>(pick(3));
      switch (pick(9)) {
        case 0: case 1: b.enter(r, t, fns[pick(fns.size())]); break;
        case 2: case 3: b.leave(r, t, fns[pick(fns.size())]); break;
        case 4: b.send(r, t, peer, 0, tag, pick(100), pick(3) == 0 ? 1 + pick(4) : 0); break;
        case 5: b.recv(r, t, peer, 0, tag, pick(100), pick(3) == 0 ? 1 + pick(4) : 0); break;
        case 6: b.irecvRequest(r, t, 1 + pick(4)); break;
        case 7: b.isendComplete(r, t, 1 + pick(4)); break;
        default:
          if (pick(2)) b.collective(r, t, MpiOp::Allreduce, 0, -1, 8, 8);
          else b.point(r, t, point, pick(2) ? "x" : "");
      }
    }
    b.end();
    Trace tr = b.take();
    ASSERT_EQ(perwiz::test::modelViolation(tr), "") << "seed " << seed;
  }
}

// Threads (issue #37): their events are stored like a rank's (nesting, labels, closing what is
// left open) but apart from the ranks; a thread's MPI call never joins a collective; function
// pruning renumbers their events too; the trace's end includes them; a rank record beyond the
// ranks is not taken for a thread's.
TEST(Builder, ThreadsAreLocationsApartFromTheRanks) {
  TraceBuilder b("mem", "test");
  TraceHeader h;
  h.ranks = 2;
  h.threads = {{"OMP 1", 1}, {"helper", -1}, {"", 0}};
  b.begin(h);
  const auto unused = b.defineFunction(state("never used"));
  const auto barrier = b.defineFunction(mpi("MPI_Barrier"));
  const auto work = b.defineFunction(state("work"));
  const auto mark = b.defineFunction({"mark", EventKind::Point, MpiOp::None, ""});
  (void)unused;
  b.enter(0, 0, barrier);
  b.leave(0, 50, barrier);
  b.enter(1, 10, barrier);
  b.leave(1, 50, barrier);
  b.threadEnter(0, 5, work);        // thread "OMP 1" of rank 1: work [5, 40] holding
  b.threadEnter(0, 6, barrier);     // a barrier [6, 7] (not a collective of the ranks)
  b.threadLeave(0, 7, barrier);
  b.threadPoint(0, 8, mark, "x");
  b.threadLeave(0, 40, work);
  b.threadEnter(1, 20, work);       // "helper": work from 20, never left: closed at the end
  b.threadEnter(2, 1, work);        // the unnamed thread of rank 0
  b.threadLeave(2, 2, work);
  b.enter(2, 3, work);              // rank 2 does not exist: refused, not given to a thread
  b.threadEnter(7, 3, work);        // no thread 7
  b.end();
  const Trace t = b.take();
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.eventCount(), 2u);
  ASSERT_EQ(t.threads.size(), 3u);
  // Ordered by rank (the rank they are drawn under), then as defined; no rank last.
  EXPECT_EQ(t.threads[0].rank, 0);
  EXPECT_EQ(t.threads[0].events.name, "thread 2");
  EXPECT_EQ(t.threads[1].rank, 1);
  EXPECT_EQ(t.threads[1].events.name, "OMP 1");
  EXPECT_EQ(t.threads[2].rank, -1);
  const RankTrace& omp = t.threads[1].events;
  EXPECT_EQ(omp.enter.toVector(), (std::vector<TimeNs>{5, 6, 8}));
  EXPECT_EQ(omp.leave.toVector(), (std::vector<TimeNs>{40, 7, 8}));
  EXPECT_EQ(omp.depth, (std::vector<std::uint8_t>{0, 1, 1}));
  ASSERT_EQ(omp.labels.size(), 1u);
  EXPECT_EQ(omp.labels[0].text, "x");
  EXPECT_TRUE(omp.collectives.empty());
  EXPECT_TRUE(omp.mpiCalls.empty());
  // One barrier instance of the two ranks; the thread's barrier is not part of it.
  ASSERT_EQ(t.collectives.size(), 1u);
  EXPECT_EQ(t.collectives[0].participants, 2u);
  // "never used" was pruned: every event names the functions by their new numbers.
  for (const auto& f : t.functions) EXPECT_NE(f.name, "never used");
  EXPECT_EQ(t.functions[omp.function[0]].name, "work");
  EXPECT_EQ(t.functions[omp.function[1]].name, "MPI_Barrier");
  EXPECT_EQ(t.functions[omp.function[2]].name, "mark");
  // helper's work is closed at the latest time seen (50), which is also the trace's end.
  EXPECT_EQ(t.threads[2].events.leave.toVector(), (std::vector<TimeNs>{50}));
  EXPECT_TRUE(hasWarning(t, "thread 'helper': 'work' still open"));
  EXPECT_TRUE(hasWarning(t, "record for rank 2 beyond the 2 ranks"));
  EXPECT_TRUE(hasWarning(t, "record for a thread beyond the 3 threads"));
  EXPECT_EQ(t.endTime, 50);
  EXPECT_EQ(t.threadEventCount(), 5u);
  EXPECT_EQ(test::modelViolation(t), "");
  // Emitted again and rebuilt: the same model, threads included.
  TraceBuilder again("mem", "test");
  emitTrace(t, again);
  std::string why;
  EXPECT_TRUE(t.sameModel(again.take(), &why)) << why;
}
