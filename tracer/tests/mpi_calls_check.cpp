#include "mpi_calls_check.h"

#include "support.h"

#include <gtest/gtest.h>

namespace perwiz::tracer_test {

std::map<std::string, int> expectedCalls(const CallsRun& run, int r) {
  const int P = run.ranks, N = run.steps;
  const bool even = r % 2 == 0;
  const int cancel = run.cancel ? 1 : 0;
  auto loop = [&](const char* fn) {
    auto it = run.loopCounts.find({r, fn});
    return it == run.loopCounts.end() ? -1 : it->second;  // -1: the program did not say
  };
  std::map<std::string, int> e;
  e["MPI_Init"] = 1;
  e["MPI_Finalize"] = 1;
  // steps: N x (Sendrecv, Irecv, Isend, Waitall, Allreduce)
  // Sendrecv: steps + PROC_NULL shift + parity ring + dup exchange + MPI_COMM_SELF
  e["MPI_Sendrecv"] = N + 4;
  // Irecv: steps + 6 completion pairs + the cancelled one + the Rsend's pre-posted one (odd)
  e["MPI_Irecv"] = N + 6 + cancel + (even ? 0 : 1);
  // Isend: steps + 6 completion pairs + the one whose request is freed
  e["MPI_Isend"] = N + 7;
  e["MPI_Waitall"] = N;
  e["MPI_Allreduce"] = N + 1;
  // Send: r+1 wildcard messages to rank 0 (r > 0) + MPI_PROC_NULL + Probe's + Iprobe's
  e["MPI_Send"] = (r > 0 ? r + 1 : 0) + 1 + 2;
  // Recv: rank 0 receives sum_{q=1}^{P-1} (q+1) = P(P+1)/2 - 1 wildcards; MPI_PROC_NULL; the odd
  // rank's Ssend, Bsend and Issend receives; Probe's, Iprobe's, the freed Isend's
  e["MPI_Recv"] = (r == 0 ? P * (P + 1) / 2 - 1 : 0) + 1 + (even ? 0 : 3) + 3;
  if (even) e["MPI_Ssend"] = e["MPI_Bsend"] = e["MPI_Rsend"] = e["MPI_Issend"] = 1;
  // Wait: Issend's (even) or Rsend receive's (odd), the Test section's send, the cancelled one,
  // and those the program waited for after a completion loop (its "count ... MPI_Wait" line)
  e["MPI_Wait"] = 2 + cancel + loop("MPI_Wait");
  // Barrier: send modes, misc, collectives, parity communicator
  e["MPI_Barrier"] = 4;
  e["MPI_Waitany"] = 2;
  for (const char* fn : {"MPI_Waitsome", "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Iprobe"})
    e[fn] = loop(fn);
  e["MPI_Probe"] = e["MPI_Sendrecv_replace"] = e["MPI_Request_free"] = 1;
  if (run.cancel) e["MPI_Cancel"] = 1;
  e["MPI_Bcast"] = e["MPI_Reduce"] = 2;  // WORLD and the parity communicator
  for (const char* fn : {"MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather",
                         "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter",
                         "MPI_Scan", "MPI_Exscan", "MPI_Comm_split", "MPI_Comm_dup"})
    e[fn] = 1;
  e["MPI_Comm_free"] = 2;
  return withTracerCalls(std::move(e), run.hostExchange);
}

bool tracerOwnCall(const Trace& t, std::uint32_t r, std::uint32_t e) {
  const RankTrace& rt = t.ranks[r];
  for (std::uint32_t s = 0; s < rt.size(); ++s) {
    const Function& f = t.fn(r, s);
    if (f.kind == EventKind::UserState && (f.name == "perwiz_trace_start" || f.name == "perwiz_trace_finish") &&
        rt.enter[s] <= rt.enter[e] && rt.leave[e] <= rt.leave[s])
      return true;
  }
  return false;
}

namespace {

// Messages of `rank` (sends or receives) with this tag.
std::vector<MessageEndpoint> endpoints(const Trace& t, std::uint32_t rank, bool sends, int tag) {
  std::vector<MessageEndpoint> out;
  for (const MessageEndpoint& m : t.ranks[rank].messages)
    if (m.isSend == sends && m.tag == tag) out.push_back(m);
  return out;
}

void checkCollectives(const Trace& t, const CallsRun& run, std::uint32_t r) {
  const int P = run.ranks;
  const int parity = commIndexStartingWith(t, "comm ");
  ASSERT_GE(parity, 0) << "no communicator for the parity split";
  // Per rank: N step Allreduces + 2 Barriers + 15 collectives on WORLD; Bcast, Reduce, Barrier on
  // its parity communicator (two model communicators with the same creator, one per parity).
  int onWorld = 0, onParity = 0, own = 0;
  for (const CollectiveCall& c : t.ranks[r].collectives) {
    if (tracerOwnCall(t, r, c.event)) {  // on WORLD, with sizes from the tracer's source
      ++own;
      EXPECT_EQ(c.comm, 0u);
      if (c.op == MpiOp::Bcast) {  // the trace directory, 4096 chars from rank 0
        EXPECT_EQ(c.root, 0);
        EXPECT_EQ(c.bytesSent, r == 0 ? 4096u : 0u);
        EXPECT_EQ(c.bytesReceived, r == 0 ? 0u : 4096u);
      } else if (c.op == MpiOp::Allreduce) {  // one int: did every rank open its files
        EXPECT_EQ(c.bytesSent, 4u);
        EXPECT_EQ(c.bytesReceived, 4u);
      } else if (c.op == MpiOp::Allgather) {  // MPI_MAX_PROCESSOR_NAME + 1 chars per rank
        EXPECT_EQ(c.bytesReceived, c.bytesSent * static_cast<std::uint64_t>(P));
      } else {
        EXPECT_EQ(c.op, MpiOp::Barrier);
      }
      continue;
    }
    if (c.comm == 0) ++onWorld;
    else if (t.comms[c.comm].name.rfind("comm ", 0) == 0) {
      ++onParity;
      const auto& members = t.comms[c.comm].worldRanks;
      ASSERT_EQ(members.size(), static_cast<std::size_t>(P / 2));
      // key -rank: comm-local rank 0 is the highest world rank of the parity class.
      EXPECT_EQ(members[0], static_cast<int>(r % 2 == 0 ? P - 2 : P - 1));
      if (c.op == MpiOp::Bcast || c.op == MpiOp::Reduce) {
        EXPECT_EQ(c.root, members[0]);
      }
    }
    if (c.comm == 0 && c.op == MpiOp::Bcast) {  // 4 ints from root 1: root sends 16, others get 16
      EXPECT_EQ(c.root, 1);
      EXPECT_EQ(c.bytesSent, r == 1 ? 16u : 0u);
      EXPECT_EQ(c.bytesReceived, r == 1 ? 0u : 16u);
    }
    if (c.comm == 0 && c.op == MpiOp::Gather) {  // 2 ints each to root 0: root receives 8P
      EXPECT_EQ(c.root, 0);
      EXPECT_EQ(c.bytesSent, 8u);
      EXPECT_EQ(c.bytesReceived, r == 0 ? 8u * P : 0u);
    }
    if (c.op == MpiOp::Gatherv) {
      EXPECT_EQ(c.root, P - 1);
    }
    if (c.op == MpiOp::Alltoall) {  // 2 ints to and from each of P ranks
      EXPECT_EQ(c.bytesSent, 8u * P);
      EXPECT_EQ(c.bytesReceived, 8u * P);
    }
    if (c.op == MpiOp::ReduceScatter) {  // recvcounts 2 each: 2P ints in, 2 ints out
      EXPECT_EQ(c.bytesSent, 8u * P);
      EXPECT_EQ(c.bytesReceived, 8u);
    }
  }
  EXPECT_EQ(onWorld, run.steps + 17) << "rank " << r;
  EXPECT_EQ(own, 3 + (run.hostExchange ? 1 : 0)) << "rank " << r;
  EXPECT_EQ(onParity, 3) << "rank " << r;
}

void checkCommunicatorPartners(const Trace& t, const CallsRun& run, std::uint32_t r) {
  const int P = run.ranks;
  const int self = commIndex(t, "MPI_COMM_SELF");
  ASSERT_GE(self, 0);
  int parityMessages = 0, dupMessages = 0, selfMessages = 0;
  for (const MessageEndpoint& m : t.ranks[r].messages) {
    const std::string& name = t.comms[m.comm].name;
    if (m.tag == 50) {  // the parity ring: comm-local next = world rank - 2 (reverse order)
      ++parityMessages;
      EXPECT_NE(name.find("Comm_split"), std::string::npos);
      EXPECT_EQ(m.peer, static_cast<int>(m.isSend ? (r + P - 2) % P : (r + 2) % P));
    } else if (m.tag == 1 && name.find("Comm_dup") != std::string::npos) {
      ++dupMessages;
      EXPECT_EQ(m.peer, static_cast<int>(r ^ 1));
    } else if (m.tag == 70) {
      ++selfMessages;
      EXPECT_EQ(m.comm, static_cast<std::uint32_t>(self));
      EXPECT_EQ(m.peer, static_cast<int>(r));
    }
  }
  EXPECT_EQ(parityMessages, 2);
  EXPECT_EQ(dupMessages, 2);
  EXPECT_EQ(selfMessages, 2);
}

}  // namespace

void checkCallsTrace(const Trace& t, const CallsRun& run, bool withComms) {
  const int P = run.ranks;
  ASSERT_EQ(t.rankCount(), static_cast<std::size_t>(P));
  // Every message matched, none received before it was sent (one clock per machine, or SMPI's).
  EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 0u);
  EXPECT_EQ(t.steps.size(), static_cast<std::size_t>(run.steps));
  for (const ParallelStep& s : t.steps)
    for (const StepSpan& span : s.ranks) EXPECT_TRUE(span.present());

  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(mpiCallCounts(t, r), expectedCalls(run, static_cast<int>(r)));
    // N outer markers "PRGN" and N nested "PRGN_inner".
    EXPECT_EQ(userStates(t, r, "PRGN"), 2 * run.steps);
    // The tracer measures its per-record cost in its start region (after MPI_Init) with the
    // trace's own clock: five bursts of 1000 records, overhead = round(fastest burst / 1000), so
    // the fastest burst took at least 1000 * overhead - 500 ns and the region lasted at least five
    // of them. How large the value is depends on the machine (and under SMPI on its host speed):
    // a bound on it belongs in a benchmark (bench_tracer_calls), not here.
    const TimeNs overhead = recordedEventOverhead(t, r);
    EXPECT_GT(overhead, 0) << "per-record overhead not recorded";
    const auto& rt = t.ranks[r];
    int starts = 0, finishes = 0;
    TimeNs initLeave = -1;
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      const std::string& name = t.fn(r, e).name;
      if (name == "MPI_Init") initLeave = rt.leave[e];
      if (name == "perwiz_trace_finish") ++finishes;
      if (name != "perwiz_trace_start") continue;
      ++starts;
      EXPECT_EQ(rt.enter[e], initLeave) << "the tracer's start follows MPI_Init";
      EXPECT_GE(rt.leave[e] - rt.enter[e], 5 * (1000 * overhead - 500))
          << "the recorded overhead (" << overhead << " ns per record) is more than the tracer's "
          << "start region allows: the measurement and the trace's clock disagree";
    }
    EXPECT_EQ(starts, 1);
    EXPECT_EQ(finishes, 1);

    for (const MessageEndpoint& m : t.ranks[r].messages) {
      EXPECT_GE(m.peer, 0) << "partner not translated to a world rank";
      EXPECT_LT(m.peer, P);
      EXPECT_NE(m.tag, 6) << "message to/from MPI_PROC_NULL recorded";
      EXPECT_NE(m.tag, 999) << "the cancelled receive left a message";
    }
    // Wildcards: rank 0 got q+1 messages of q+1 doubles with tag 100+q from every q > 0.
    if (r == 0)
      for (int q = 1; q < P; ++q) {
        const auto got = endpoints(t, 0, false, 100 + q);
        ASSERT_EQ(got.size(), static_cast<std::size_t>(q + 1)) << "from rank " << q;
        for (const MessageEndpoint& m : got) {
          EXPECT_EQ(m.peer, q);
          EXPECT_EQ(m.bytes, 8u * (q + 1));
        }
      }
    // The non-periodic shift: a message up unless at the top, one from below unless at rank 0.
    EXPECT_EQ(endpoints(t, r, true, 5).size(), r + 1 < static_cast<std::uint32_t>(P) ? 1u : 0u);
    EXPECT_EQ(endpoints(t, r, false, 5).size(), r > 0 ? 1u : 0u);
    // The Isend whose request was freed still pairs with its receive.
    ASSERT_EQ(endpoints(t, r, true, 33).size(), 1u);
    EXPECT_TRUE(endpoints(t, r, true, 33)[0].matched());

    if (withComms) {
      checkCommunicatorPartners(t, run, r);
      checkCollectives(t, run, r);
    }
  }
  if (withComms) {
    // N + 17 instances on WORLD, 3 on each parity communicator, the tracer's own, everyone present.
    EXPECT_EQ(t.collectives.size(),
              static_cast<std::size_t>(run.steps + 17 + 2 * 3 + 3 + (run.hostExchange ? 1 : 0)));
    for (const CollectiveInstance& c : t.collectives)
      EXPECT_EQ(c.participants, c.comm == 0 ? static_cast<std::uint32_t>(P)
                                            : static_cast<std::uint32_t>(P / 2));
    EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
  }
}

}  // namespace perwiz::tracer_test
