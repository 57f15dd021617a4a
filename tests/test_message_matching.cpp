// Message matching at scale (issue #42): the builder matches in parallel per rank when every
// endpoint finds its partner, and in one thread, with every problem worded in a fixed order,
// otherwise. Both are checked against the partners the test itself made.
#include "perwiz/trace_builder.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace perwiz;

namespace {

Function mpi(const std::string& name) { return {name, EventKind::MpiCall, classifyMpiName(name), ""}; }

struct Made {
  std::uint32_t sender, sendIndex, receiver, recvIndex;
};

// `messages` blocking messages between random ranks on random tags and communicators (each a
// send call on its sender and a receive call on its receiver, both one event), made in global
// time order: every channel's k-th send is its k-th receive's partner, which `made` records.
// `late(k)`: message k's receive completes before its send (clock skew); `drop(k)`: message k
// has no receive (its send only).
Trace randomTrace(std::uint32_t ranks, std::uint32_t messages, std::uint64_t seed, std::vector<Made>& made,
                  const std::function<bool(std::uint32_t)>& late = nullptr,
                  const std::function<bool(std::uint32_t)>& drop = nullptr) {
  TraceBuilder b("mem", "test");
  b.begin({ranks, {}});
  const std::uint32_t send = b.defineFunction(mpi("MPI_Send"));
  const std::uint32_t recv = b.defineFunction(mpi("MPI_Recv"));
  const std::uint32_t comm = b.defineComm(Communicator{"second", {}, false});
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> endpoints(ranks, 0);
  TimeNs t = 0;
  for (std::uint32_t k = 0; k < messages; ++k) {
    const auto s = static_cast<std::uint32_t>(rng() % ranks);
    const auto r = static_cast<std::uint32_t>(rng() % ranks);  // a self message now and then
    const auto tag = static_cast<std::int32_t>(rng() % 3);
    const std::uint32_t c = rng() % 4 == 0 ? comm : 0;
    const std::uint64_t bytes = 8u << (rng() % 3);
    const bool skewed = late && late(k);
    const TimeNs ts = skewed ? t + 10 : t, tr = skewed ? t : t + 10;
    b.enter(s, ts, send);
    b.send(s, ts + 1, static_cast<std::int32_t>(r), c, tag, bytes, 0);
    b.leave(s, ts + 2, send);
    made.push_back({s, endpoints[s]++, r, kNone32});
    if (drop && drop(k)) {
      t += 20;
      continue;
    }
    b.enter(r, tr, recv);
    b.recv(r, tr + 1, static_cast<std::int32_t>(s), c, tag, bytes, 0);
    b.leave(r, tr + 2, recv);
    made.back().recvIndex = endpoints[r]++;
    t += 20;
  }
  b.end();
  return b.take();
}

std::size_t countWarnings(const Trace& t, const std::string& needle) {
  std::size_t n = 0;
  for (const auto& w : t.warnings) n += w.toString().find(needle) != std::string::npos;
  return n;
}

}  // namespace

// 150,000 messages = 300,000 events: above kParallelEvents, so both ranks' phases run on every
// core. Every endpoint must name the partner the test made, on both sides.
TEST(MessageMatching, ParallelMatchesEveryPartnerTheTestMade) {
  std::vector<Made> made;
  const Trace t = randomTrace(37, 150000, 7, made);
  ASSERT_GE(t.eventCount(), 200000u);
  EXPECT_EQ(t.messageStats.matched, made.size());
  EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 0u);
  EXPECT_TRUE(t.warnings.empty());
  std::size_t wrong = 0;
  for (const Made& m : made) {
    const MessageEndpoint s = t.ranks[m.sender].messages[m.sendIndex];
    const MessageEndpoint r = t.ranks[m.receiver].messages[m.recvIndex];
    wrong += !s.isSend || r.isSend || s.matchRank != m.receiver || s.matchIndex != m.recvIndex ||
             r.matchRank != m.sender || r.matchIndex != m.sendIndex;
  }
  EXPECT_EQ(wrong, 0u);
}

// Receives that complete before their sends are matched alike and each is reported (the
// one-thread matching's words); the counts are the test's own.
TEST(MessageMatching, SkewedReceivesAreMatchedAndReported) {
  std::vector<Made> made;
  auto late = [](std::uint32_t k) { return k % 50000 == 123; };  // messages 123, 50123, 100123
  const Trace t = randomTrace(37, 150000, 11, made, late);
  EXPECT_EQ(t.messageStats.matched, made.size());
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 3u);
  EXPECT_EQ(countWarnings(t, "completes before its send"), 3u);
  std::size_t wrong = 0;
  for (const Made& m : made) {
    const MessageEndpoint s = t.ranks[m.sender].messages[m.sendIndex];
    wrong += s.matchRank != m.receiver || s.matchIndex != m.recvIndex;
  }
  EXPECT_EQ(wrong, 0u);
}

// A receive missing in the middle of a channel: MPI's order pairs every later send of that
// channel with the receive after its own, so the channel's last send is left over, and the
// shifted pairs may differ in size. The test pairs each
// channel's endpoints in order itself and counts what must be reported.
TEST(MessageMatching, AMissingReceiveShiftsItsChannel) {
  std::vector<Made> made;
  const std::uint32_t dropped = 777;
  auto drop = [&](std::uint32_t k) { return k == dropped; };
  const Trace t = randomTrace(16, 120000, 3, made, nullptr, drop);
  const Made& d = made[dropped];
  const MessageEndpoint ds = t.ranks[d.sender].messages[d.sendIndex];
  // The channel's sends and receives in posting order, as the test made them.
  std::vector<Made> sends, recvs;
  for (std::uint32_t k = 0; k < made.size(); ++k) {
    const Made& m = made[k];
    const MessageEndpoint s = t.ranks[m.sender].messages[m.sendIndex];
    if (m.sender != d.sender || m.receiver != d.receiver || s.comm != ds.comm || s.tag != ds.tag) continue;
    sends.push_back(m);
    if (k != dropped) recvs.push_back(m);
  }
  ASSERT_EQ(sends.size(), recvs.size() + 1);
  std::uint64_t early = 0, sizes = 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    const MessageEndpoint s = t.ranks[sends[i].sender].messages[sends[i].sendIndex];
    const MessageEndpoint r = t.ranks[recvs[i].receiver].messages[recvs[i].recvIndex];
    wrong +=
        s.matchRank != recvs[i].receiver || s.matchIndex != recvs[i].recvIndex || r.matchIndex != sends[i].sendIndex;
    early += r.time < s.time;
    sizes += r.bytes != s.bytes;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_FALSE(t.ranks[sends.back().sender].messages[sends.back().sendIndex].matched());
  EXPECT_GT(sends.size(), 2u);  // pairs after the dropped receive were shifted
  EXPECT_EQ(t.messageStats.matched, made.size() - 1);
  EXPECT_EQ(t.messageStats.unmatchedSends, 1u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  EXPECT_EQ(t.messageStats.receiveBeforeSend, early);
  EXPECT_EQ(countWarnings(t, "unmatched send on rank " + std::to_string(d.sender)), 1u);
  // Diagnostics are capped per kind (20 and a summary): count the summary's number too.
  auto reported = [&](const std::string& kind, const std::string& needle) {
    std::uint64_t n = countWarnings(t, needle);
    const std::string more = " more warnings of the kind '" + kind + "'";
    for (const auto& w : t.warnings)
      if (const std::string text = w.toString(); text.find(more) != std::string::npos)
        n += std::stoull(text.substr(text.rfind(' ', text.find(more) - 1) + 1));
    return n;
  };
  EXPECT_EQ(reported("receive-before-send", "completes before its send"), early);
  EXPECT_EQ(reported("size", "is received as"), sizes);
  // Every other channel is untouched: the partners the test made.
  std::size_t others = 0;
  for (const Made& m : made) {
    const MessageEndpoint s = t.ranks[m.sender].messages[m.sendIndex];
    if (m.sender == d.sender && m.receiver == d.receiver && s.comm == ds.comm && s.tag == ds.tag) continue;
    others += s.matchRank != m.receiver || s.matchIndex != m.recvIndex;
  }
  EXPECT_EQ(others, 0u);
}

// Receives naming a partner outside the trace are counted, never matched.
TEST(MessageMatching, PartnersOutsideTheTraceAreCounted) {
  TraceBuilder b("mem", "test");
  b.begin({3, {}});
  const std::uint32_t recv = b.defineFunction(mpi("MPI_Recv"));
  const std::uint32_t send = b.defineFunction(mpi("MPI_Send"));
  for (TimeNs k = 0; k < 4; ++k) {
    b.enter(0, 10 * k, recv);
    b.recv(0, 10 * k + 1, k % 2 ? 7 : 1, 0, 0, 8, 0);  // rank 7 does not exist
    b.leave(0, 10 * k + 2, recv);
    b.enter(1, 10 * k, send);
    b.send(1, 10 * k + 1, 0, 0, 0, 8, 0);
    b.leave(1, 10 * k + 2, send);
  }
  b.end();
  const Trace t = b.take();
  // Rank 1's four sends meet rank 0's two receives from rank 1 (k = 0, 2): two pairs, two
  // sends left over; the two receives from rank 7 are unmatched receives.
  EXPECT_EQ(t.messageStats.matched, 2u);
  EXPECT_EQ(t.messageStats.unmatchedSends, 2u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 2u);
  EXPECT_EQ(countWarnings(t, "name a partner that is not a rank"), 1u);
  const MessageEndpoint first = t.ranks[0].messages[0];
  EXPECT_EQ(first.matchRank, 1u);
  EXPECT_EQ(first.matchIndex, 0u);
  EXPECT_FALSE(t.ranks[0].messages[1].matched());
  EXPECT_EQ(t.ranks[0].messages[2].matchIndex, 1u);
}
