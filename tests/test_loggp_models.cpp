// LogGP and LogGPO (issue #7): every formula by hand, the parameter files, and the replay in
// model mode under dependent and independent communication progress.
#include "perwiz/loggp_models.h"
#include "perwiz/replay.h"

#include "test_traces.h"

#include <gtest/gtest.h>

using namespace perwiz;

namespace {

LogGpParams gp() {
  LogGpParams p;
  p.name = "gp";
  p.L = 10000;
  p.o = 2000;
  p.g = 3000;
  p.G = 0.5;
  return p;
}

// O' = 1 µs, O_i(k) = 500 + 0.5k ns, O_c(k) = 200 + 0.25k ns, L = 5 µs, G = 1 ns/B, S = 1024 B.
LogGpoParams gpo(ProgressStrategy progress = ProgressStrategy::Dependent) {
  LogGpoParams p;
  p.name = "gpo";
  p.L = 5000;
  p.G = 1;
  p.Octrl = 1000;
  p.Oi = {500, 0.5};
  p.Oc = {200, 0.25};
  p.S = 1024;
  p.progress = progress;
  return p;
}

}  // namespace

TEST(LogGp, Formulas) {
  const LogGpModel m(gp());
  EXPECT_EQ(m.kind(), "LogGP");
  EXPECT_FALSE(m.synchronous(1u << 30));  // LogGP has no rendezvous mode
  // λ(k) = o + G(k−1) + L = 2000 + 0.5·1000 + 10000.
  EXPECT_EQ(m.arrivalDelay(1001), 12500);
  // End to end: 2o + G(k−1) + L.
  EXPECT_EQ(m.messageTime(1001), 14500);
  // Send: max(o, g) = 3000; receive: o; completions and posts of receives: nothing.
  EXPECT_EQ(m.roleCost(CommRole::BlockingSend, 1001), 3000);
  EXPECT_EQ(m.roleCost(CommRole::IsendPost, 1001), 3000);
  EXPECT_EQ(m.roleCost(CommRole::IsendComplete, 1001), 0);
  EXPECT_EQ(m.roleCost(CommRole::BlockingRecv, 1001), 2000);
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 1001), 2000);
  EXPECT_EQ(m.roleCost(CommRole::IrecvPost, 1001), 0);
  // Barrier on 4: ⌈log2 4⌉ = 2 rounds of hop(0) = 2o + L = 14000.
  EXPECT_EQ(m.collectiveCost(MpiOp::Barrier, 0, 4), 28000);
  // Allreduce of 101 B on 8: 2·3 rounds of 2o + L + G·100 = 14050.
  EXPECT_EQ(m.collectiveCost(MpiOp::Allreduce, 101, 8), 84300);
}

TEST(LogGpo, EagerFormulas) {
  const LogGpoModel m(gpo());
  // k = 1000 ≤ S: O_i = 1000, O_c = 450, G(k−1) = 999.
  EXPECT_FALSE(m.synchronous(1000));
  EXPECT_EQ(m.arrivalDelay(1000), 1000 + 999 + 5000);  // O_i + G(k−1) + L
  const LogGpoCosts c = m.costs(1000, 0, 0, 0, 0);
  EXPECT_FALSE(c.rendezvous);
  EXPECT_DOUBLE_EQ(c.Os, 1000);  // O_s = O_i + O_sw, O_sw = 0
  EXPECT_DOUBLE_EQ(c.Osw, 0);
  EXPECT_DOUBLE_EQ(c.Or, 450);                        // O_r = O_c
  EXPECT_DOUBLE_EQ(c.Tc, 1000 + 999 + 5000 + 450);    // O_i + G(K−1) + L + O_c
  EXPECT_EQ(m.roleCost(CommRole::IsendPost, 1000), 1000);
  EXPECT_EQ(m.roleCost(CommRole::IsendComplete, 1000), 0);
  EXPECT_EQ(m.roleCost(CommRole::IrecvPost, 1000), 0);
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 1000), 450);  // the copy, in the Wait
  EXPECT_EQ(m.roleCost(CommRole::BlockingRecv, 1000), 450);
  // Overlap ratios R_so = comp/(comp + O_i), R_ro = comp/(comp + O_c) for comp = 3000.
  EXPECT_DOUBLE_EQ(LogGpoModel::overlapRatio(3000, c.Os), 0.75);
  EXPECT_DOUBLE_EQ(LogGpoModel::overlapRatio(1350, c.Or), 0.75);
  EXPECT_DOUBLE_EQ(LogGpoModel::overlapRatio(0, 0), 1.0);
}

TEST(LogGpo, RendezvousDependentProgressBothCases) {
  const LogGpoModel m(gpo());
  // k = 2000 > S: O_i = 1500, G(k−1) = 1999, so O_i + G(k−1) = 3499; O' = 1000, L = 5000.
  EXPECT_TRUE(m.synchronous(2000));
  EXPECT_EQ(m.arrivalDelay(2000), 6000);  // the REQ: O' + L
  // Case (a), T_r = 10000 > T_s + O' + L = 6000; T_s = 0, T_sw = 2000, T_rw = 12000:
  //   O_sw = (T_r − T_sw) + 2O' + L + O_i + G(K−1) = 8000 + 2000 + 5000 + 3499 = 18499
  //   O_s = O' + O_sw = 19499;  O_r = 2O' = 2000
  //   T_c = 4O' + 3L + (T_r − T_sw) + O_i + G(K−1) = 4000 + 15000 + 8000 + 3499 = 30499
  LogGpoCosts a = m.costs(2000, 0, 10000, 2000, 12000);
  EXPECT_TRUE(a.lateReceiver);
  EXPECT_DOUBLE_EQ(a.Osw, 18499);
  EXPECT_DOUBLE_EQ(a.Os, 19499);
  EXPECT_DOUBLE_EQ(a.Or, 2000);
  EXPECT_DOUBLE_EQ(a.Tc, 30499);
  // Case (b), T_r = 3000 ≤ 6000, T_rw = 9000: the REQ waits for the receiver's Wait.
  //   O_sw = (T_rw − T_sw) + 2O' + L + O_i + G(K−1) = 7000 + 2000 + 5000 + 3499 = 17499
  //   O_rw = 2O' + L + O_i + G(K−1) = 10499;  O_r = O' + O_rw = 11499
  //   T_c = 4O' + 3L + (T_rw − T_sw) + O_i + G(K−1) = 4000 + 15000 + 7000 + 3499 = 29499
  LogGpoCosts b = m.costs(2000, 0, 3000, 2000, 9000);
  EXPECT_FALSE(b.lateReceiver);
  EXPECT_DOUBLE_EQ(b.Osw, 17499);
  EXPECT_DOUBLE_EQ(b.Os, 18499);
  EXPECT_DOUBLE_EQ(b.Orw, 10499);
  EXPECT_DOUBLE_EQ(b.Or, 11499);
  EXPECT_DOUBLE_EQ(b.Tc, 29499);
  // Replay role costs with the partner in time: blocking send 3O' + 2L + O_i + G(k−1);
  // Isend O'; its Wait O_sw = 2O' + L + O_i + G(k−1); blocking receive after the REQ
  // 2O' + 2L + O_i + G(k−1); Irecv 0; its Wait O_r = 3O' + L + O_i + G(k−1).
  EXPECT_EQ(m.roleCost(CommRole::BlockingSend, 2000), 3000 + 10000 + 3499);
  EXPECT_EQ(m.roleCost(CommRole::IsendPost, 2000), 1000);
  EXPECT_EQ(m.roleCost(CommRole::IsendComplete, 2000), 2000 + 5000 + 3499);
  EXPECT_EQ(m.roleCost(CommRole::BlockingRecv, 2000), 2000 + 10000 + 3499);
  EXPECT_EQ(m.roleCost(CommRole::IrecvPost, 2000), 0);
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 2000), 3000 + 5000 + 3499);
  EXPECT_EQ(m.receiveDelay(CommRole::IrecvComplete, 2000), 6000);
}

TEST(LogGpo, RendezvousIndependentProgress) {
  const LogGpoModel m(gpo(ProgressStrategy::Independent));
  // T_s = 0, T_r = 3000, T_sw = 2000, T_rw = 9000: the REQ is answered on arrival,
  // T_x = max(T_r, T_s + O' + L) = 6000; the ACK is back at 6000 + 2O' + L = 13000; the
  // write ends at max(13000, T_sw) + 3499 = 16499, the data is there at 21499.
  //   O_sw = 16499 − 2000 = 14499; O_s = 15499; O_rw = 21499 − 9000 = 12499; O_r = 2O' + O_rw
  //   = 14499; T_c = 21499 − T_s.
  const LogGpoCosts c = m.costs(2000, 0, 3000, 2000, 9000);
  EXPECT_DOUBLE_EQ(c.Osw, 14499);
  EXPECT_DOUBLE_EQ(c.Os, 15499);
  EXPECT_DOUBLE_EQ(c.Orw, 12499);
  EXPECT_DOUBLE_EQ(c.Or, 14499);
  EXPECT_DOUBLE_EQ(c.Tc, 21499);
  // A Wait reached after the data costs nothing at the receiver.
  EXPECT_DOUBLE_EQ(m.costs(2000, 0, 3000, 2000, 30000).Orw, 0);
  // A sender's Wait reached after the write has nothing left either: the write started with
  // the ACK (at 13000), not with the Wait.
  EXPECT_DOUBLE_EQ(m.costs(2000, 0, 3000, 30000, 9000).Osw, 0);
  // Replay: both Waits wait for their transfer through the dependency and cost nothing — the
  // Irecv's Wait for the data (3O' + 3L + O_i + G(k−1) = 21499 after the Isend), the Isend's
  // for the write's end (2O' + L + O_i + G(k−1) = 2000 + 5000 + 3499 = 10499 after the Irecv,
  // the late receiver's case); blocking calls are unchanged (the sender waits from −(O' + L)).
  EXPECT_EQ(m.roleCost(CommRole::IsendComplete, 2000), 0);
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 2000), 0);
  EXPECT_EQ(m.receiveDelay(CommRole::IrecvComplete, 2000), 21499);
  EXPECT_EQ(m.receiveDelay(CommRole::BlockingRecv, 2000), 6000);
  EXPECT_EQ(m.sendDelay(CommRole::IsendComplete, 2000), 10499);
  EXPECT_EQ(m.sendDelay(CommRole::BlockingSend, 2000), -6000);
  EXPECT_EQ(m.roleCost(CommRole::BlockingSend, 2000), 3000 + 10000 + 3499);
  // Transfers completed by one call share its links (docs/model.md §4): a Waitall of two
  // 2000-byte Isends adds the second write's bytes, O_i's slope and G(k − 1) = 1000 + 1999;
  // one Isend and one Irecv run on the two directions at once and add nothing.
  const RoleUse twoSends[] = {{CommRole::IsendComplete, 2000}, {CommRole::IsendComplete, 2000}};
  EXPECT_EQ(m.callCost(twoSends), 2999);
  const RoleUse sendAndRecv[] = {{CommRole::IsendComplete, 2000}, {CommRole::IrecvComplete, 2000}};
  EXPECT_EQ(m.callCost(sendAndRecv), 0);
}

TEST(LogGpo, ReplayOverlapDependsOnProgress) {
  // Rank 0: Isend 2000 B at [0, 100], computes, Waitall at [50000, 60000].
  // Rank 1: Irecv at [0, 100], computes, Wait at [50000, 60000].
  test::Tb b(2);
  b.isend(0, 0, 100, 1, 2000, 1);
  b.waitall(0, 50000, 60000, {1}, {}, 1);
  b.irecv(1, 0, 100, 2);
  b.waitall(1, 50000, 60000, {}, {2}, 0, 2000);
  const Trace t = b.take();
  auto replay = [&](std::shared_ptr<NetworkModel> m) {
    return std::make_unique<Replayer>(t, Scenario{std::move(m), CostMode::Model, {}});
  };
  // DCP, model mode. Rank 0: Isend costs O' = 1000; the Wait starts at 1000 + 49900 = 50900
  // and costs O_sw = 10499 (its dependency, the Irecv's call at 0 − λ, is long past):
  // leaves at 61399. Rank 1: the Irecv costs 0; the Wait starts at 49900, the REQ arrived at
  // 0 + 6000; it costs 11499: leaves at 61399.
  {
    auto r = replay(std::make_shared<LogGpoModel>(gpo()));
    EXPECT_EQ(r->predicted(0, 1).leave, 61399);
    EXPECT_EQ(r->predicted(1, 1).leave, 61399);
  }
  // ICP: the handshake and the write overlapped the computation. Rank 0: the write ended at
  // 0 + 10499 < 50900: leaves at 50900. Rank 1: the data arrived at 21499 < 49900: no wait, no
  // cost, leaves at 49900.
  {
    auto r = replay(std::make_shared<LogGpoModel>(gpo(ProgressStrategy::Independent)));
    EXPECT_EQ(r->predicted(0, 1).leave, 50900);
    EXPECT_EQ(r->predicted(0, 1).wait, 0);
    EXPECT_EQ(r->predicted(1, 1).leave, 49900);
    EXPECT_EQ(r->predicted(1, 1).wait, 0);
  }
  // LogGP sees full overlap: Isend max(o, g) = 3000, its Wait 0 → 3000 + 49900 = 52900;
  // Irecv 0, its Wait o = 2000 after max(49900, 0 + λ = 2000 + 0.5·1999 + 10000) → 51900.
  {
    auto r = replay(std::make_shared<LogGpModel>(gp()));
    EXPECT_EQ(r->predicted(0, 1).leave, 52900);
    EXPECT_EQ(r->predicted(1, 1).leave, 51900);
  }
}

TEST(LogGpo, ParameterFiles) {
  std::string error;
  auto m = networkModelFromJson(LogGpoModel(gpo(ProgressStrategy::Independent)).toJson(), "gpo.json", &error);
  ASSERT_NE(m, nullptr) << error;
  ASSERT_EQ(m->kind(), "LogGPO");
  EXPECT_EQ(dynamic_cast<const LogGpoModel&>(*m).params(), gpo(ProgressStrategy::Independent));
  auto g = networkModelFromJson(LogGpModel(gp()).toJson(), "gp.json", &error);
  ASSERT_NE(g, nullptr) << error;
  EXPECT_EQ(dynamic_cast<const LogGpModel&>(*g).params(), gp());

  EXPECT_EQ(networkModelFromJson(R"({"model": "LogGPO", "L_us": 5, "S_bytes": 1024})", "/tmp/x.json", &error), nullptr);
  EXPECT_EQ(error, "/tmp/x.json: missing required key 'O_ctrl_us'");
  EXPECT_EQ(networkModelFromJson(R"({"model": "LogGPO", "L_us": 5, "O_ctrl_us": 1, "S_bytes": 1024, "progress": "eventually"})",
                                 "/tmp/x.json", &error),
            nullptr);
  EXPECT_EQ(error, "/tmp/x.json: key 'progress' must be \"dependent\" or \"independent\"");
  EXPECT_EQ(networkModelFromJson(R"({"model": "LogGPO", "L_us": 5, "O_ctrl_us": 1, "S_bytes": 1024, "transfer": "TA"})",
                                 "/tmp/x.json", &error),
            nullptr);
  EXPECT_EQ(error, "/tmp/x.json: key 'transfer': only \"RAT\" (REQ, ACK, RDMA write) is modelled");
  EXPECT_EQ(networkModelFromJson(R"({"model": "LogGP", "L_us": 5, "o_us": -1})", "/tmp/x.json", &error), nullptr);
  EXPECT_EQ(error, "/tmp/x.json: key 'o_us' must be a non-negative number");
  EXPECT_EQ(networkModelFromJson(R"({"model": "LogGP", "L_us": 5, "o_us": 1, "S_bytes": 9})", "/tmp/x.json", &error), nullptr);
  EXPECT_NE(error.find("unknown key 'S_bytes'"), std::string::npos);
}
