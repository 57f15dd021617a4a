// LogGPS network model: presets (the papers' parameters), local role costs, arrival delays,
// collective costs, the JSON parameter files and their error messages.
//
// Expected values are worked out by hand from the paper's formulas; times are in ns.
#include "perwiz/network_model.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace perwiz;

namespace {

const LogGpsParams& paramsOf(const NetworkModel& m) {
  return dynamic_cast<const LogGpsModel&>(m).params();
}

std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Parses `json` and expects failure with exactly "<source>: <problem>".
void expectParseError(const std::string& json, const std::string& problem) {
  std::string error;
  auto m = networkModelFromJson(json, "/tmp/m.json", &error);
  EXPECT_EQ(m, nullptr) << json;
  EXPECT_EQ(error, "/tmp/m.json: " + problem) << json;
}

}  // namespace

TEST(NetworkModel, PresetNamesAndDefault) {
  EXPECT_EQ(networkPresetNames(), (std::vector<std::string>{"myrinet-score", "myrinet-table5", "ethernet-table5",
                                                             "loggp-myrinet", "loggpo-myrinet"}));
  for (const std::string& name : networkPresetNames()) {
    auto m = networkPreset(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->name(), name);
    EXPECT_EQ(m->kind(), name.rfind("loggpo", 0) == 0 ? "LogGPO" : name.rfind("loggp", 0) == 0 ? "LogGP" : "LogGPS");
  }
  EXPECT_EQ(networkPreset("infiniband"), nullptr);
  EXPECT_EQ(networkPreset(""), nullptr);
  auto def = defaultNetworkModel();
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->name(), "myrinet-score");
  auto copy = def->clone();
  EXPECT_EQ(paramsOf(*copy), paramsOf(*def));
}

TEST(NetworkModel, LinearCostRoundsAndNeverGoesNegative) {
  // 100 ns + 0.25 ns/B * 3 B = 100.75 ns -> 101 ns
  EXPECT_EQ((LinearCost{100, 0.25}.at(3)), 101);
  // 100 ns + 0.25 ns/B * 1 B = 100.25 ns -> 100 ns
  EXPECT_EQ((LinearCost{100, 0.25}.at(1)), 100);
  // -50 ns + 1 ns/B * 10 B = -40 ns -> 0
  EXPECT_EQ((LinearCost{-50, 1}.at(10)), 0);
  EXPECT_EQ((LinearCost{}.at(123456)), 0);
}

TEST(NetworkModel, MyrinetScorePreset) {
  auto m = networkPreset("myrinet-score");
  const LogGpsParams& p = paramsOf(*m);
  EXPECT_EQ(p.L, 9110.0);  // 9.11 µs
  EXPECT_EQ(p.o, 2150.0);  // 2.15 µs
  EXPECT_EQ(p.S, 16383u);
  EXPECT_EQ(p.g, 0.0);
  EXPECT_EQ(p.G, 0.0);
  EXPECT_EQ(p.P, 0u);
  EXPECT_EQ(p.s, 0u);
  // The linear overheads are stored as not given (they default to o).
  EXPECT_EQ(p.sendOverhead, LinearCost{});
  EXPECT_EQ(p.recvOverhead, LinearCost{});
  EXPECT_EQ(p.syncSend, LinearCost{});
  EXPECT_EQ(p.syncRecv, LinearCost{});

  const std::uint64_t S = 16383;
  EXPECT_FALSE(m->synchronous(S));
  EXPECT_TRUE(m->synchronous(S + 1));
  EXPECT_FALSE(m->synchronous(0));

  // k = S, eager: o_s(k) = o_r(k) = o = 2150 ns.
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S), 2150);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S), 2150);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S), 2150);
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvPost, S), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S), 2150);

  // k = S + 1, rendezvous: sync send = sync recv = 3o + 2L = 3*2150 + 2*9110 = 24670 ns.
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S + 1), 24670);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S + 1), 24670);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S + 1), 2150);            // o_s(0)
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S + 1), 24670 - 2150);  // 22520
  EXPECT_EQ(m->roleCost(CommRole::IrecvPost, S + 1), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S + 1), 24670);
}

TEST(NetworkModel, ArrivalDelayIsThePapersOPlusL) {
  auto m = networkPreset("myrinet-score");
  // Paper §5: o + L = 2.15 µs + 9.11 µs = 11.26 µs, for eager messages (G = g = 0, o_s = o)
  // and for the REQ of a rendezvous message alike.
  EXPECT_EQ(m->arrivalDelay(0), 11260);
  EXPECT_EQ(m->arrivalDelay(1), 11260);
  EXPECT_EQ(m->arrivalDelay(16383), 11260);       // eager
  EXPECT_EQ(m->arrivalDelay(16384), 11260);       // rendezvous REQ
  EXPECT_EQ(m->arrivalDelay(1u << 20), 11260);    // rendezvous REQ

  auto t5 = networkPreset("myrinet-table5");
  // Eager, k = S = 16383: o_s(k) + L = 2150 + 1.88*16383 + 9110 = 2150 + 30800.04 + 9110
  //   = 42060.04 ns -> 42060
  EXPECT_EQ(t5->arrivalDelay(16383), 42060);
  // Rendezvous, k = S + 1: o_s(0) + L = 2150 + 9110 = 11260 ns (11.26 µs)
  EXPECT_EQ(t5->arrivalDelay(16384), 11260);
}

TEST(NetworkModel, MyrinetTable5Preset) {
  auto m = networkPreset("myrinet-table5");
  const LogGpsParams& p = paramsOf(*m);
  EXPECT_EQ(p.L, 9110.0);
  EXPECT_EQ(p.o, 2150.0);
  EXPECT_EQ(p.S, 16383u);
  EXPECT_EQ(p.sendOverhead.a, 2150.0);           // 2.15 µs
  EXPECT_DOUBLE_EQ(p.sendOverhead.b, 1.88);      // 0.00188 µs/B
  EXPECT_EQ(p.recvOverhead.a, 2150.0);           // 2.15 µs
  EXPECT_DOUBLE_EQ(p.recvOverhead.b, 0.937);     // 0.000937 µs/B
  EXPECT_EQ(p.syncSend.a, 28900.0);              // 28.9 µs
  EXPECT_DOUBLE_EQ(p.syncSend.b, 3.58);          // 0.00358 µs/B
  EXPECT_EQ(p.syncRecv.a, 90300.0);              // 90.3 µs
  EXPECT_DOUBLE_EQ(p.syncRecv.b, 4.85);          // 0.00485 µs/B

  // Myrinet Table 5: t_send = 2.15 µs + 0.00188 µs/B * 1000 B = 4.03 µs
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, 1000), 4030);
  // t_recv = 2.15 µs + 0.000937 µs/B * 1000 B = 3.087 µs
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, 1000), 3087);

  const std::uint64_t S = 16383;
  // k = S, eager. o_s = 2150 + 1.88*16383 = 2150 + 30800.04 = 32950.04 -> 32950
  //               o_r = 2150 + 0.937*16383 = 2150 + 15350.871 = 17500.871 -> 17501
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S), 32950);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S), 17501);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S), 32950);
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvPost, S), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S), 17501);
  // k = S + 1 = 16384, rendezvous.
  //   sync send = 28900 + 3.58*16384 = 28900 + 58654.72 = 87554.72 -> 87555
  //   sync recv = 90300 + 4.85*16384 = 90300 + 79462.4 = 169762.4 -> 169762
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S + 1), 87555);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S + 1), 169762);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S + 1), 2150);  // o_s(0)
  //   Isend completion = sync send - o_s(0) = 87554.72 - 2150 = 85404.72 -> 85405
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S + 1), 85405);
  EXPECT_EQ(m->roleCost(CommRole::IrecvPost, S + 1), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S + 1), 169762);
}

TEST(NetworkModel, EthernetTable5Preset) {
  auto m = networkPreset("ethernet-table5");
  const LogGpsParams& p = paramsOf(*m);
  EXPECT_EQ(p.o, 12100.0);  // 12.1 µs
  EXPECT_EQ(p.L, 69350.0);  // 69.35 µs
  // L is derived from the synchronous send at k = 0: 3o + 2L = 3*12.1 + 2*69.35 = 175 µs.
  EXPECT_EQ(3 * p.o + 2 * p.L, p.syncSend.a);
  EXPECT_EQ(p.S, 127999u);
  EXPECT_EQ(p.sendOverhead.a, 12100.0);
  EXPECT_DOUBLE_EQ(p.sendOverhead.b, 90.1);   // 0.0901 µs/B
  EXPECT_EQ(p.recvOverhead.a, 12100.0);
  EXPECT_DOUBLE_EQ(p.recvOverhead.b, 56.8);   // 0.0568 µs/B
  EXPECT_EQ(p.syncSend.a, 175000.0);
  EXPECT_DOUBLE_EQ(p.syncSend.b, 85.9);       // 0.0859 µs/B
  EXPECT_EQ(p.syncRecv.a, 264000.0);
  EXPECT_DOUBLE_EQ(p.syncRecv.b, 90.0);       // 0.0900 µs/B

  const std::uint64_t S = 127999;
  EXPECT_FALSE(m->synchronous(S));
  EXPECT_TRUE(m->synchronous(S + 1));
  // k = S, eager. o_s = 12100 + 90.1*127999 = 12100 + 11532709.9 = 11544809.9 -> 11544810
  //               o_r = 12100 + 56.8*127999 = 12100 + 7270343.2 = 7282443.2 -> 7282443
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S), 11544810);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S), 7282443);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S), 11544810);
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S), 7282443);
  //   arrival = o_s(k) + L = 11544809.9 + 69350 = 11614159.9 -> 11614160
  EXPECT_EQ(m->arrivalDelay(S), 11614160);
  // k = S + 1 = 128000, rendezvous.
  //   sync send = 175000 + 85.9*128000 = 175000 + 10995200 = 11170200
  //   sync recv = 264000 + 90.0*128000 = 264000 + 11520000 = 11784000
  EXPECT_EQ(m->roleCost(CommRole::BlockingSend, S + 1), 11170200);
  EXPECT_EQ(m->roleCost(CommRole::BlockingRecv, S + 1), 11784000);
  EXPECT_EQ(m->roleCost(CommRole::IsendPost, S + 1), 12100);               // o_s(0)
  EXPECT_EQ(m->roleCost(CommRole::IsendComplete, S + 1), 11170200 - 12100);  // 11158100
  EXPECT_EQ(m->roleCost(CommRole::IrecvPost, S + 1), 0);
  EXPECT_EQ(m->roleCost(CommRole::IrecvComplete, S + 1), 11784000);
  //   REQ arrival = o_s(0) + L = 12100 + 69350 = 81450
  EXPECT_EQ(m->arrivalDelay(S + 1), 81450);
}

TEST(NetworkModel, PacketsGapAndGapPerByteInArrivalDelay) {
  LogGpsParams p;
  p.L = 1000;
  p.o = 100;
  p.g = 50;
  p.G = 0.25;
  p.S = 10000;
  p.s = 1000;
  LogGpsModel m(p);
  // arrival = o + L + G*(k-1) + (packets-1)*g, packets = ceil(k/s) for k > s
  EXPECT_EQ(m.arrivalDelay(0), 1100);     // 100 + 1000 (no G term for k = 0)
  EXPECT_EQ(m.arrivalDelay(1), 1100);     // 100 + 1000 + 0.25*0
  EXPECT_EQ(m.arrivalDelay(1000), 1350);  // 100 + 1000 + 0.25*999 = 1349.75, one packet
  EXPECT_EQ(m.arrivalDelay(1001), 1400);  // 100 + 1000 + 0.25*1000 + (2-1)*50 = 1400
  EXPECT_EQ(m.arrivalDelay(2500), 1825);  // 1100 + 0.25*2499 + (3-1)*50 = 1824.75
  EXPECT_EQ(m.arrivalDelay(3000), 1950);  // 1100 + 0.25*2999 + (3-1)*50 = 1949.75
  EXPECT_EQ(m.arrivalDelay(3001), 2000);  // 1100 + 0.25*3000 + (4-1)*50 = 2000
  EXPECT_EQ(m.arrivalDelay(10000), 4050);   // 1100 + 0.25*9999 + (10-1)*50 = 4049.75
  EXPECT_EQ(m.arrivalDelay(10001), 1100);   // rendezvous REQ: o_s(0) + L

  p.s = 0;  // s = 0: every message is one packet
  LogGpsModel onePacket(p);
  EXPECT_EQ(onePacket.arrivalDelay(2500), 1725);  // 1100 + 0.25*2499 = 1724.75

  // g also bounds the local send cost from below: max(o_s(k), g).
  p.g = 300;
  LogGpsModel bigGap(p);
  EXPECT_EQ(bigGap.roleCost(CommRole::BlockingSend, 10), 300);  // max(100, 300)
  EXPECT_EQ(bigGap.roleCost(CommRole::IsendPost, 10), 300);
  EXPECT_EQ(bigGap.roleCost(CommRole::BlockingRecv, 10), 100);  // o_r(k), no g
}

TEST(NetworkModel, LinearOverheadsDefaultFromO) {
  LogGpsParams p;
  p.L = 5000;
  p.o = 1000;
  p.S = 100;
  LogGpsModel bare(p);
  // Not given: o_s(k) = o_r(k) = o = 1000.
  EXPECT_EQ(bare.roleCost(CommRole::BlockingSend, 50), 1000);
  EXPECT_EQ(bare.roleCost(CommRole::BlockingRecv, 50), 1000);
  EXPECT_EQ(bare.arrivalDelay(50), 6000);  // o + L
  // Synchronous times default to o_s(k) + 2(o_s(0) + L) = 1000 + 2*(1000 + 5000) = 13000.
  EXPECT_EQ(bare.roleCost(CommRole::BlockingSend, 200), 13000);
  EXPECT_EQ(bare.roleCost(CommRole::BlockingRecv, 200), 13000);
  EXPECT_EQ(bare.roleCost(CommRole::IsendComplete, 200), 12000);  // 13000 - o_s(0)
  EXPECT_EQ(bare.params().sendOverhead, LinearCost{});  // the defaults are not stored

  // Given overheads feed the synchronous defaults:
  //   o_s(k) = 2000 + 1k, sync send = 2000 + 2*(2000 + 5000) + 1k = 16000 + 1k
  //   o_r(k) = 1500 + 0.5k, sync recv = 1500 + 2*(1500 + 5000) + 0.5k = 14500 + 0.5k
  p.sendOverhead = {2000, 1};
  p.recvOverhead = {1500, 0.5};
  LogGpsModel given(p);
  EXPECT_EQ(given.roleCost(CommRole::BlockingSend, 50), 2050);    // 2000 + 50
  EXPECT_EQ(given.roleCost(CommRole::BlockingRecv, 50), 1525);    // 1500 + 25
  EXPECT_EQ(given.roleCost(CommRole::BlockingSend, 200), 16200);  // 16000 + 200
  EXPECT_EQ(given.roleCost(CommRole::BlockingRecv, 200), 14600);  // 14500 + 100
  EXPECT_EQ(given.roleCost(CommRole::IsendPost, 200), 2000);      // o_s(0)
  EXPECT_EQ(given.roleCost(CommRole::IsendComplete, 200), 14200);  // 16200 - 2000
  EXPECT_EQ(given.arrivalDelay(200), 7000);                      // REQ: o_s(0) + L

  // An overhead with only a per-byte term is given (not replaced by o): o_s(10) = 0 + 2*10.
  p.sendOverhead = {0, 2};
  LogGpsModel perByteOnly(p);
  EXPECT_EQ(perByteOnly.roleCost(CommRole::BlockingSend, 10), 20);

  // Explicit synchronous times are used as they are.
  p.syncSend = {7000, 0};
  p.syncRecv = {8000, 0};
  LogGpsModel explicitSync(p);
  EXPECT_EQ(explicitSync.roleCost(CommRole::BlockingSend, 200), 7000);
  EXPECT_EQ(explicitSync.roleCost(CommRole::BlockingRecv, 200), 8000);
  // Isend completion = sync send - o_s(0) = 7000 - (0 + 2*0) = 7000
  EXPECT_EQ(explicitSync.roleCost(CommRole::IsendComplete, 200), 7000);

  // A synchronous time below o_s(0) gives a zero (not negative) Isend completion.
  p.sendOverhead = {2000, 0};
  p.syncSend = {1500, 0};
  LogGpsModel cheapSync(p);
  EXPECT_EQ(cheapSync.roleCost(CommRole::IsendComplete, 200), 0);
}

TEST(NetworkModel, CollectiveCosts) {
  auto score = networkPreset("myrinet-score");
  auto t5 = networkPreset("myrinet-table5");
  // myrinet-score: hop = o + L + o = 2150 + 9110 + 2150 = 13410, whatever k.
  // myrinet-table5: hop(k) = (2150 + 1.88k) + 9110 + (2150 + 0.937k) = 13410 + 2.817k
  //   hop(4000) = 13410 + 11268 = 24678; hop(2000) = 13410 + 5634 = 19044;
  //   hop(800) = 13410 + 2253.6 = 15663.6; hop(1000) = 13410 + 2817 = 16227
  const std::uint64_t k = 4000;

  // P = 1 (and 0): nothing to communicate.
  for (std::uint32_t P : {0u, 1u}) {
    EXPECT_EQ(t5->collectiveCost(MpiOp::Barrier, 0, P), 0);
    EXPECT_EQ(t5->collectiveCost(MpiOp::Bcast, k, P), 0);
    EXPECT_EQ(t5->collectiveCost(MpiOp::Allreduce, k, P), 0);
    EXPECT_EQ(t5->collectiveCost(MpiOp::Alltoall, k, P), 0);
    EXPECT_EQ(t5->collectiveCost(MpiOp::Allgather, k, P), 0);
  }

  // P = 2: d = ceil(log2 2) = 1.
  EXPECT_EQ(score->collectiveCost(MpiOp::Barrier, 0, 2), 13410);
  EXPECT_EQ(score->collectiveCost(MpiOp::Bcast, k, 2), 13410);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Barrier, k, 2), 13410);  // hop(0), k ignored
  EXPECT_EQ(t5->collectiveCost(MpiOp::Bcast, k, 2), 24678);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Reduce, k, 2), 24678);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allreduce, k, 2), 49356);  // 2 * 24678
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allgather, k, 2), 19044);  // (2-1) * hop(4000/2)
  EXPECT_EQ(t5->collectiveCost(MpiOp::Alltoall, k, 2), 19044);

  // P = 5: d = ceil(log2 5) = 3.
  EXPECT_EQ(score->collectiveCost(MpiOp::Barrier, 0, 5), 40230);  // 3 * 13410
  EXPECT_EQ(t5->collectiveCost(MpiOp::Barrier, 0, 5), 40230);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Bcast, k, 5), 74034);       // 3 * 24678
  EXPECT_EQ(t5->collectiveCost(MpiOp::Gatherv, k, 5), 74034);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Scan, k, 5), 74034);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allreduce, k, 5), 148068);  // 2 * 3 * 24678
  // (5-1) * hop(4000/5 = 800) = 4 * 15663.6 = 62654.4 -> 62654
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allgather, k, 5), 62654);
  EXPECT_EQ(t5->collectiveCost(MpiOp::ReduceScatterBlock, k, 5), 62654);
  // myrinet-score: (5-1) * 13410 = 53640
  EXPECT_EQ(score->collectiveCost(MpiOp::Alltoallv, k, 5), 53640);

  // P = 8: d = 3.
  EXPECT_EQ(t5->collectiveCost(MpiOp::Barrier, 0, 8), 40230);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Bcast, k, 8), 74034);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Scatter, k, 8), 74034);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Exscan, k, 8), 74034);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allreduce, k, 8), 148068);
  // (8-1) * hop(8000/8 = 1000) = 7 * 16227 = 113589
  EXPECT_EQ(t5->collectiveCost(MpiOp::Alltoall, 8000, 8), 113589);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Alltoallw, 8000, 8), 113589);
  EXPECT_EQ(t5->collectiveCost(MpiOp::ReduceScatter, 8000, 8), 113589);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Allgatherv, 8000, 8), 113589);

  // Not a collective: no collective cost.
  EXPECT_EQ(t5->collectiveCost(MpiOp::Send, k, 8), 0);
  EXPECT_EQ(t5->collectiveCost(MpiOp::None, k, 8), 0);
  EXPECT_EQ(t5->collectiveCost(MpiOp::Init, k, 8), 0);
}

// ---- JSON -----------------------------------------------------------------------------------

TEST(NetworkModelJson, WritesMicrosecondsInAStableKeyOrder) {
  std::string json = networkPreset("myrinet-score")->toJson();
  // Key order as in docs/model.md; µs values (9110 ns = 9.11 µs).
  const char* keys[] = {"\"model\": \"LogGPS\"", "\"name\": \"myrinet-score\"", "\"L_us\": 9.11",
                        "\"o_us\": 2.15", "\"g_us\"", "\"G_us_per_byte\"", "\"P\": 0",
                        "\"S_bytes\": 16383", "\"s_bytes\": 0", "\"send_overhead_us\"",
                        "\"recv_overhead_us\"", "\"sync_send_us\"", "\"sync_recv_us\""};
  std::size_t at = 0;
  for (const char* key : keys) {
    std::size_t found = json.find(key, at);
    ASSERT_NE(found, std::string::npos) << key << " in\n" << json;
    at = found;
  }
  // The Table 5 values are written as in the paper.
  std::string t5 = networkPreset("myrinet-table5")->toJson();
  EXPECT_NE(t5.find("\"b_per_byte\": 0.00188"), std::string::npos) << t5;
  EXPECT_NE(t5.find("\"b_per_byte\": 0.00358"), std::string::npos) << t5;
  EXPECT_NE(t5.find("\"a\": 90.3"), std::string::npos) << t5;
  std::string eth = networkPreset("ethernet-table5")->toJson();
  EXPECT_NE(eth.find("\"L_us\": 69.35"), std::string::npos) << eth;
  EXPECT_NE(eth.find("\"b_per_byte\": 0.0568"), std::string::npos) << eth;
}

TEST(NetworkModelJson, RoundTripsEveryPresetAndACustomModel) {
  std::vector<std::unique_ptr<NetworkModel>> models;
  for (const std::string& name : networkPresetNames()) models.push_back(networkPreset(name));
  LogGpsParams c;
  c.name = "my cluster";
  c.L = 1234.5678;
  c.o = 0.001;
  c.g = 17.25;
  c.G = 0.0123;
  c.P = 64;
  c.S = std::uint64_t(1) << 40;
  c.s = 4096;
  c.sendOverhead = {3000, 0.7};
  c.recvOverhead = {2500.5, 0.333};
  c.syncSend = {40000, 1.0 / 3};
  c.syncRecv = {45000.25, 2.2};
  models.push_back(std::make_unique<LogGpsModel>(c));
  c.name = "receiver-driven";
  c.eagerAtReceive = true;  // written as "eager_transfer": "at-receive", read back
  models.push_back(std::make_unique<LogGpsModel>(c));
  EXPECT_NE(models.back()->toJson().find("\"eager_transfer\": \"at-receive\""), std::string::npos);

  for (const auto& m : models) {
    std::string error;
    auto back = networkModelFromJson(m->toJson(), "roundtrip", &error);
    ASSERT_NE(back, nullptr) << error;
    if (m->kind() == "LogGPS") {
      EXPECT_EQ(paramsOf(*back), paramsOf(*m)) << m->toJson();
    }
    EXPECT_EQ(back->kind(), m->kind());
    EXPECT_EQ(back->toJson(), m->toJson());
  }
}

TEST(NetworkModelJson, ReadsAHandWrittenFile) {
  std::string error;
  auto m = networkModelFromJson(
      R"({"model": "LogGPS", "L_us": 9.11, "o_us": 2.15, "S_bytes": 16383})", "inline", &error);
  ASSERT_NE(m, nullptr) << error;
  const LogGpsParams& p = paramsOf(*m);
  EXPECT_EQ(p.name, "custom");  // no name, source not a .json file
  EXPECT_EQ(p.L, 9110.0);       // 9.11 µs read as exactly 9110 ns
  EXPECT_EQ(p.o, 2150.0);
  EXPECT_EQ(p.S, 16383u);
  EXPECT_EQ(p.g, 0.0);
  EXPECT_EQ(p.s, 0u);
  LogGpsParams expected = paramsOf(*networkPreset("myrinet-score"));
  expected.name = "custom";
  EXPECT_EQ(p, expected);

  // Every key, ints written as floats where they are integral.
  m = networkModelFromJson(R"({"model": "LogGPS", "name": "eth", "L_us": 69.35, "o_us": 12.1,
      "g_us": 0.5, "G_us_per_byte": 0.001, "P": 16, "S_bytes": 127999.0, "s_bytes": 1500,
      "send_overhead_us": {"a": 12.1, "b_per_byte": 0.0901}, "recv_overhead_us": {"a": 12.1},
      "sync_send_us": {"b_per_byte": 0.0859}, "sync_recv_us": {}})",
                           "/data/models/eth.json", &error);
  ASSERT_NE(m, nullptr) << error;
  const LogGpsParams& q = paramsOf(*m);
  EXPECT_EQ(q.name, "eth");
  EXPECT_EQ(q.L, 69350.0);
  EXPECT_EQ(q.o, 12100.0);
  EXPECT_EQ(q.g, 500.0);
  EXPECT_EQ(q.G, 1.0);
  EXPECT_EQ(q.P, 16u);
  EXPECT_EQ(q.S, 127999u);
  EXPECT_EQ(q.s, 1500u);
  EXPECT_EQ(q.sendOverhead.a, 12100.0);
  EXPECT_DOUBLE_EQ(q.sendOverhead.b, 90.1);
  EXPECT_EQ(q.recvOverhead, (LinearCost{12100.0, 0}));
  EXPECT_DOUBLE_EQ(q.syncSend.b, 85.9);
  EXPECT_EQ(q.syncSend.a, 0.0);
  EXPECT_EQ(q.syncRecv, LinearCost{});

  // Without a name, a .json source names the model after the file.
  m = networkModelFromJson(R"({"model": "LogGPS", "L_us": 1, "o_us": 1, "S_bytes": 0})",
                           "/data/models/fast-net.json", &error);
  ASSERT_NE(m, nullptr) << error;
  EXPECT_EQ(m->name(), "fast-net");
}

TEST(NetworkModelJson, ErrorsNameTheSourceAndTheProblem) {
  const std::string base = R"("model": "LogGPS", "L_us": 9.11, "o_us": 2.15, "S_bytes": 16383)";

  // Malformed JSON: nlohmann's message follows the source.
  {
    std::string error;
    EXPECT_EQ(networkModelFromJson("{\"model\": \"LogGPS\", ", "/tmp/m.json", &error), nullptr);
    EXPECT_TRUE(startsWith(error, "/tmp/m.json: invalid JSON: ")) << error;
    EXPECT_NE(error.find("parse error"), std::string::npos) << error;
  }
  expectParseError("[1, 2]", "expected a JSON object with the model's parameters");
  expectParseError(R"({"model": "LogP", "L_us": 1, "o_us": 1, "S_bytes": 1})",
                   "unsupported model 'LogP' (supported: LogGPS, LogGP, LogGPO)");
  expectParseError(R"({"L_us": 1, "o_us": 1, "S_bytes": 1})",
                   "missing required key 'model' (supported: LogGPS, LogGP, LogGPO)");
  // A file of another kind: an overhead profile given as a model.
  expectParseError(R"({"format": "perwiz-overhead-profile", "version": 1, "functions": []})",
                   "this is an overhead profile (key 'format': perwiz-overhead-profile), not a network model; give it "
                   "to perwiz-cli overhead --profile, and here a file of perwiz-calibrate --mode loggps or loggpo");
  // A calibration by perwiz-calibrate before issue #20 under SMPI's defaults (its Myrinet-like
  // file, shortened): every key that perwiz-calibrate writes, L = G = 0, the transfer in o_r(k).
  const std::string older =
      "keys 'L_us' and 'G_us_per_byte' are both 0 in a file of perwiz-calibrate's shape: a calibration by an older "
      "perwiz-calibrate (no \"version\" key), which under SMPI's default settings put the whole transfer into the "
      "overheads, so that "
      "model-cost predictions come out wrong. Calibrate again (perwiz-calibrate --mode ";
  expectParseError(R"({"model": "LogGPS", "name": "myrinet", "L_us": 0, "o_us": 0.01, "g_us": 0, "G_us_per_byte": 0,
                       "P": 0, "S_bytes": 65535, "s_bytes": 0, "send_overhead_us": {"a": 0.01, "b_per_byte": 0},
                       "recv_overhead_us": {"a": 41.3, "b_per_byte": 0.0052},
                       "sync_send_us": {"a": 116.5, "b_per_byte": 0.0042},
                       "sync_recv_us": {"a": 116.5, "b_per_byte": 0.0042}})",
                   older + "loggps), or give L_us and G_us_per_byte yourself");
  expectParseError(R"({"model": "LogGPO", "L_us": 0, "G_us_per_byte": 0, "O_ctrl_us": 0.01,
                       "O_i_us": {"a": 0.02, "b_per_byte": 0}, "O_c_us": {"a": 41.3, "b_per_byte": 0.0052},
                       "S_bytes": 65535, "P": 0, "progress": "independent", "transfer": "RAT"})",
                   older + "loggpo), or give L_us and G_us_per_byte yourself");
  // What PerWiz writes carries "version": 2 and always loads back, a free network included
  // (the session fuzzer found a saved session whose L = G = 0 model no longer loaded).
  {
    LogGpsParams free;
    free.recvOverhead = {0, 1.5};
    const std::string saved = LogGpsModel(free).toJson();
    EXPECT_NE(saved.find("\"version\": 2"), std::string::npos) << saved;
    std::string error;
    EXPECT_NE(networkModelFromJson(saved, "saved.json", &error), nullptr) << error;
  }
  expectParseError(R"({"model": "LogGPS", "version": 3, "L_us": 1, "o_us": 1, "S_bytes": 1})",
                   "key 'version' is too large (at most 2)");
  // A model of one's own with a free network (examples/smpi/loggps-smpi.json) stays legal.
  {
    std::string error;
    EXPECT_NE(networkModelFromJson(R"({"model": "LogGPS", "L_us": 0, "o_us": 0, "S_bytes": 65535})", "own.json", &error),
              nullptr)
        << error;
  }
  expectParseError(R"({"model": "LogGPS", "o_us": 2.15, "S_bytes": 16383})",
                   "missing required key 'L_us'");
  expectParseError(R"({"model": "LogGPS", "L_us": 9.11, "S_bytes": 16383})",
                   "missing required key 'o_us'");
  expectParseError(R"({"model": "LogGPS", "L_us": 9.11, "o_us": 2.15})",
                   "missing required key 'S_bytes'");
  expectParseError(R"({"model": "LogGPS", "L_us": -9.11, "o_us": 2.15, "S_bytes": 16383})",
                   "key 'L_us' must be a non-negative number");
  expectParseError(R"({"model": "LogGPS", "L_us": "9.11", "o_us": 2.15, "S_bytes": 16383})",
                   "key 'L_us' must be a non-negative number");
  expectParseError("{" + base + R"(, "g_us": -1})", "key 'g_us' must be a non-negative number");
  expectParseError("{" + base + R"(, "G_us_per_byte": null})",
                   "key 'G_us_per_byte' must be a non-negative number");
  expectParseError(R"({"model": "LogGPS", "L_us": 9.11, "o_us": 2.15, "S_bytes": -1})",
                   "key 'S_bytes' must be a non-negative integer");
  expectParseError("{" + base + R"(, "s_bytes": 1.5})",
                   "key 's_bytes' must be a non-negative integer");
  expectParseError("{" + base + R"(, "P": 4294967296})",
                   "key 'P' is too large (at most 4294967295)");
  expectParseError("{" + base + R"(, "send_overhead_us": {"a": -2.15}})",
                   "key 'send_overhead_us.a' must be a non-negative number");
  expectParseError("{" + base + R"(, "sync_recv_us": {"b_per_byte": -0.1}})",
                   "key 'sync_recv_us.b_per_byte' must be a non-negative number");
  expectParseError("{" + base + R"(, "recv_overhead_us": {"a": 1, "c": 2}})",
                   "unknown key 'recv_overhead_us.c' (expected 'a', 'b_per_byte')");
  expectParseError("{" + base + R"(, "sync_send_us": 28.9})",
                   "key 'sync_send_us' must be an object {\"a\": µs, \"b_per_byte\": µs}");
  expectParseError("{" + base + R"(, "latency": 3})", "unknown key 'latency'");
  expectParseError("{" + base + R"(, "name": 7})", "key 'name' must be a non-empty string");
  expectParseError("{" + base + R"(, "eager_transfer": "later"})",
                   "key 'eager_transfer' must be \"at-send\" or \"at-receive\", not \"later\"");
  expectParseError("{" + base + R"(, "eager_transfer": true})",
                   "key 'eager_transfer' must be \"at-send\" or \"at-receive\", not true");

  // A null error pointer is allowed.
  EXPECT_EQ(networkModelFromJson("nonsense", "x", nullptr), nullptr);
}

TEST(NetworkModelFiles, LoadsPresetsAndFiles) {
  std::string error;
  auto preset = loadNetworkModel("ethernet-table5", &error);
  ASSERT_NE(preset, nullptr) << error;
  EXPECT_EQ(paramsOf(*preset), paramsOf(*networkPreset("ethernet-table5")));

  auto dir = test::freshDir("network_model_load");
  auto file = test::writeFile(
      dir / "lab.json", R"({"model": "LogGPS", "L_us": 9.11, "o_us": 2.15, "S_bytes": 16383})");
  auto m = loadNetworkModel(file.string(), &error);
  ASSERT_NE(m, nullptr) << error;
  EXPECT_EQ(m->name(), "lab");  // named after the file
  EXPECT_EQ(paramsOf(*m).L, 9110.0);

  // Errors in a file name the file.
  auto bad =
      test::writeFile(dir / "bad.json", R"({"model": "LogGPS", "o_us": 2.15, "S_bytes": 1})");
  EXPECT_EQ(loadNetworkModel(bad.string(), &error), nullptr);
  EXPECT_EQ(error, bad.string() + ": missing required key 'L_us'");

  // Neither a preset nor a file.
  std::string missing = (dir / "nope.json").string();
  EXPECT_EQ(loadNetworkModel(missing, &error), nullptr);
  EXPECT_TRUE(startsWith(error, missing + ": cannot open model file")) << error;
  EXPECT_EQ(loadNetworkModel("myrinet", &error), nullptr);
  EXPECT_TRUE(startsWith(error, "myrinet: cannot open model file")) << error;
  for (const std::string& name : networkPresetNames())
    EXPECT_NE(error.find(name), std::string::npos) << error;
  // A directory is not a model file.
  EXPECT_EQ(loadNetworkModel(dir.string(), &error), nullptr);
  EXPECT_TRUE(startsWith(error, dir.string() + ": cannot open model file")) << error;
}

TEST(NetworkModelFiles, SavesAndRefusesToOverwrite) {
  auto dir = test::freshDir("network_model_save");
  std::string path = (dir / "t5.json").string();
  auto t5 = networkPreset("myrinet-table5");
  std::string error;
  ASSERT_TRUE(saveNetworkModel(*t5, path, &error)) << error;
  EXPECT_EQ(readText(path), t5->toJson() + "\n");

  auto back = loadNetworkModel(path, &error);
  ASSERT_NE(back, nullptr) << error;
  EXPECT_EQ(paramsOf(*back), paramsOf(*t5));  // the file's "name" wins over its stem

  // A second save to the same path is refused and leaves the file alone.
  auto other = networkPreset("ethernet-table5");
  EXPECT_FALSE(saveNetworkModel(*other, path, &error));
  EXPECT_EQ(error, path + ": file exists; not overwritten");
  EXPECT_EQ(readText(path), t5->toJson() + "\n");

  // Write errors name the path.
  std::string unwritable = (dir / "no-such-dir" / "m.json").string();
  EXPECT_FALSE(saveNetworkModel(*t5, unwritable, &error));
  EXPECT_TRUE(startsWith(error, unwritable + ": cannot write")) << error;
}

// ---- issue #20: concurrency within a call and SMPI's collective algorithms --------------------

namespace {
// L = 1000 ns, G = 1 ns/B, S = 4096; o_s(k) = 100, o_r(k) = 200; t_ss(k) = t_sr(k) = 3000 + k.
LogGpsParams issue20Params() {
  LogGpsParams p;
  p.L = 1000;
  p.G = 1;
  p.S = 4096;
  p.sendOverhead = {100, 0};
  p.recvOverhead = {200, 0};
  p.syncSend = {3000, 1};
  p.syncRecv = {3000, 1};
  return p;
}
}  // namespace

TEST(NetworkModel, TheEndpointsOfOneCallOverlap) {
  LogGpsParams p = issue20Params();
  const LogGpsModel full(p);
  using R = CommRole;
  // One role: its own cost.
  EXPECT_EQ(full.callCost(std::vector<RoleUse>{{R::BlockingRecv, 1000}}), 200);
  // An eager Sendrecv of 1000 B: send side o_s = 100, receive side o_r = 200: the larger, 200
  // (the base rule, a sum, would say 300).
  const std::vector<RoleUse> eager{{R::BlockingSend, 1000}, {R::BlockingRecv, 1000}};
  EXPECT_EQ(full.callCost(eager), 200);
  // A rendezvous Sendrecv of 10000 B: t_ss = t_sr = 3000 + 10000 = 13000 on each side: 13000.
  const std::vector<RoleUse> rdv{{R::BlockingSend, 10000}, {R::BlockingRecv, 10000}};
  EXPECT_EQ(full.callCost(rdv), 13000);
  // A Waitall of two rendezvous Isend completions and two Irecv completions of 10000 B:
  //   send side: each max(t_ss − o_s(0), 0) = 12900, of which 10000 per byte: fixed 2900, so
  //              2900 + 2·10000 = 22900 (the two sends share the host's outgoing link);
  //   receive side: fixed 3000 + 2·10000 = 23000.  The call: 23000.
  const std::vector<RoleUse> waitall{{R::IsendComplete, 10000}, {R::IsendComplete, 10000},
                                     {R::IrecvComplete, 10000}, {R::IrecvComplete, 10000}};
  EXPECT_EQ(full.callCost(waitall), 23000);
  // Half duplex: one link for both directions, so all per-byte parts add up:
  //   Sendrecv: max(3000, 3000) + 2·10000 = 23000; Waitall: max(2900, 3000) + 4·10000 = 43000.
  p.halfDuplex = true;
  const LogGpsModel half(p);
  EXPECT_EQ(half.callCost(rdv), 23000);
  EXPECT_EQ(half.callCost(waitall), 43000);
  EXPECT_EQ(half.callCost(eager), 200);  // no per-byte part: the overheads overlap
  // Full duplex with cross traffic 0.05: each side also carries 5 % of the other's per-byte
  // parts. Sendrecv: 3000 + 10000 + 0.05·10000 = 13500; Waitall: send side 2900 + 20000 +
  // 0.05·20000 = 23900, receive side 3000 + 20000 + 1000 = 24000: 24000.
  p.halfDuplex = false;
  p.crossTraffic = 0.05;
  const LogGpsModel cross(p);
  EXPECT_EQ(cross.callCost(rdv), 13500);
  EXPECT_EQ(cross.callCost(waitall), 24000);
  EXPECT_EQ(cross.callCost(eager), 200);
  {
    std::string error;
    const auto back = networkModelFromJson(cross.toJson(), "cross.json", &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(dynamic_cast<const LogGpsModel&>(*back).params().crossTraffic, 0.05);
    std::string text = cross.toJson();
    text.replace(text.find("0.05"), 4, "1.5");
    EXPECT_FALSE(networkModelFromJson(text, "cross.json", &error));
    EXPECT_NE(error.find("cross.json"), std::string::npos) << error;
    EXPECT_NE(error.find("'cross_traffic' must be a number from 0 to 1"), std::string::npos) << error;
  }
  // Other models keep the sum (LogGP here: 2 receives of o = 100 each... its own roleCost).
  const std::unique_ptr<NetworkModel> loggp = networkPreset("loggp-myrinet");
  const std::vector<RoleUse> two{{R::BlockingRecv, 8}, {R::BlockingRecv, 8}};
  EXPECT_EQ(loggp->callCost(two), 2 * loggp->roleCost(R::BlockingRecv, 8));
}

TEST(NetworkModel, BinomialCollectivesOfRendezvousSizes) {
  // Binomial trees ("collectives": "binomial"), P = 4 (d = 2). Eager 100 B: hop = o_s + L + o_r
  // = 100 + 1000 + 200 = 1300 (at-send), a Bcast 2·1300. Rendezvous 10000 B: a hop is the
  // transfer, the longer of t_ss = t_sr = 3000 + 10000 = 13000, a Bcast 2·13000 = 26000 — not
  // the eager lines' 100 + 1000 + 200 (which a calibration fits below S; on Open MPI's shared
  // memory its send slope of 1.7 ns/B made a 64 KiB Allreduce 3.5 times too long).
  const LogGpsModel m(issue20Params());
  EXPECT_EQ(m.collectiveCost(MpiOp::Bcast, 100, 4), 2600);
  EXPECT_EQ(m.collectiveCost(MpiOp::Bcast, 10000, 4), 26000);
  EXPECT_EQ(m.collectiveCost(MpiOp::Allreduce, 10000, 4), 52000);
}

TEST(NetworkModel, SmpiDefaultCollectives) {
  LogGpsParams p = issue20Params();
  p.smpiCollectives = true;
  const LogGpsModel m(p);
  EXPECT_TRUE(m.collectiveCostPerMember());
  // P = 4, 100 B (eager): hop = o_s + L + G·99 + o_r = 100 + 1099 + 200 = 1399, of which 99 per
  // byte; an eager blocking send costs its sender s = o_s = 100.
  // Bcast, binomial tree from relative rank 0 (sends to 2, then 1; rank 2 sends to 3). A
  // parent's eager messages travel at once and share its link: a child receives
  // fixed(hop) + c·99 after its parent's receive and the sends before its own (c = the parent's
  // children):
  //   0: two sends: 2·100 = 200
  //   2: receives at 0·100 + 1300 + 2·99 = 1498, one send: 1598
  //   1: receives after one send of the root: 1·100 + 1300 + 2·99 = 1598, no child: 1598
  //   3: receives from 2 at 1498 + 0·100 + 1300 + 1·99 = 2897: 2897
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 100, 4, 0), 200);
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 100, 4, 2), 1598);
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 100, 4, 1), 1598);
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 100, 4, 3), 2897);
  // Reduce, linear into the root: fixed(hop) + 3·99 + 2·o_r(0) = 1300 + 297 + 400 = 1997; a
  // non-root's eager send: 100.
  EXPECT_EQ(m.memberCost(MpiOp::Reduce, 100, 4, 0), 1997);
  EXPECT_EQ(m.memberCost(MpiOp::Reduce, 100, 4, 3), 100);
  // Gather of 100-byte parts: the root's size is every part, 400 B, its messages one part each,
  // so it costs as the Reduce of 100 B, 1997 (not fixed(hop(400)) + 3·399 + 400); a member's
  // part, its eager send, 100; the queue holds the root's link 99 per part. Scatter: every
  // member waits for the root's 3 parts: 1300 + 3·99 + 2·o_s(0) = 1797, the root's 400 B too.
  EXPECT_EQ(m.memberCost(MpiOp::Gather, 400, 4, 0), 1997);
  EXPECT_EQ(m.memberCost(MpiOp::Gather, 100, 4, 1), 100);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Gather, 400, 4), 99);
  EXPECT_EQ(m.memberCost(MpiOp::Scatter, 400, 4, 0), 1797);
  EXPECT_EQ(m.memberCost(MpiOp::Scatter, 100, 4, 2), 1797);
  // Allreduce = Reduce to 0, then Bcast: 1997 + the Bcast leave; the worst member is 3.
  EXPECT_EQ(m.memberCost(MpiOp::Allreduce, 100, 4, 3), 1997 + 2897);
  EXPECT_EQ(m.memberCost(MpiOp::Allreduce, 100, 4, 0), 1997 + 200);
  EXPECT_EQ(m.collectiveCost(MpiOp::Allreduce, 100, 4), 1997 + 2897);
  // The root's link holds each member's message for the hop's per-byte part, 99 (the replay's
  // queue); not in a Bcast, nor for a rendezvous Reduce.
  EXPECT_EQ(m.collectiveQueue(MpiOp::Reduce, 100, 4), 99);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Allreduce, 100, 4), 99);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Bcast, 100, 4), 0);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Reduce, 10000, 4), 0);
  // Barrier, linear in then out with 0 bytes: hop(0) = 1300; in 1300 + 2·200, out 1300 + 2·100.
  // The root leaves after the gather (its eager sends return at once).
  EXPECT_EQ(m.memberCost(MpiOp::Barrier, 0, 4, 1), 1700 + 1500);
  EXPECT_EQ(m.memberCost(MpiOp::Barrier, 0, 4, 0), 1700);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Barrier, 0, 4), 0);  // g = 0: no queue
  // Rendezvous Bcast of 10000 B: each send lasts the transfer T = 13000; the child receives when
  // it ends. Rank 3: 1·T (root → 2, first send) + 1·T (2 → 3) = 26000; rank 1: the root's second
  // send ends at 2·T = 26000; the root: two sends, 26000.
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 10000, 4, 3), 26000);
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 10000, 4, 1), 26000);
  EXPECT_EQ(m.memberCost(MpiOp::Bcast, 10000, 4, 0), 26000);
  // A file says so, and reads back.
  std::string error;
  const auto back = networkModelFromJson(m.toJson(), "smpi.json", &error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(dynamic_cast<const LogGpsModel&>(*back).params().smpiCollectives);
  expectParseError(R"({"model": "LogGPS", "L_us": 1, "o_us": 1, "S_bytes": 1, "collectives": "ring"})",
                   "key 'collectives' must be \"binomial\" or \"smpi\", not \"ring\"");
  expectParseError(R"({"model": "LogGPS", "L_us": 1, "o_us": 1, "S_bytes": 1, "duplex": "simplex"})",
                   "key 'duplex' must be \"full\" or \"half\", not \"simplex\"");
}

// LogGP's gap g (perwiz-calibrate's stream of the smallest messages; SMPI's 16-byte header):
// each further message of a linear collective takes the root max(g, o), and holds its link for
// the per-byte part plus g.
TEST(NetworkModel, SmpiLinearCollectivesPayTheGapPerFurtherMessage) {
  LogGpsParams p = issue20Params();
  p.smpiCollectives = true;
  p.g = 300;
  const LogGpsModel m(p);
  // P = 4, 100 B: hop = 100 + 1099 + 200 = 1399 (g is not in one message's hop), 99 per byte.
  // Reduce root: fixed(hop) + 3·99 + 2·max(g, o_r(0)) = 1300 + 297 + 2·300 = 2197; a non-root's
  // eager send max(o_s, g) = 300.
  EXPECT_EQ(m.memberCost(MpiOp::Reduce, 100, 4, 0), 2197);
  EXPECT_EQ(m.memberCost(MpiOp::Reduce, 100, 4, 2), 300);
  // The queue: each message holds the root's link 99 + g = 399; a Barrier's 0 bytes, g = 300.
  EXPECT_EQ(m.collectiveQueue(MpiOp::Reduce, 100, 4), 399);
  EXPECT_EQ(m.collectiveQueue(MpiOp::Barrier, 0, 4), 300);
  // Barrier: in = 1300 + 2·max(300, 200) = 1900 (the root leaves there), out = 1300 +
  // 2·max(300, 100) = 1900.
  EXPECT_EQ(m.memberCost(MpiOp::Barrier, 0, 4, 0), 1900);
  EXPECT_EQ(m.memberCost(MpiOp::Barrier, 0, 4, 3), 1900 + 1900);
  // A gap below the overheads changes no cost, only the queue: g = 50, Reduce root
  // 1300 + 297 + 2·max(50, 200) = 1997 as with g = 0; queue 99 + 50.
  p.g = 50;
  const LogGpsModel small(p);
  EXPECT_EQ(small.memberCost(MpiOp::Reduce, 100, 4, 0), 1997);
  EXPECT_EQ(small.collectiveQueue(MpiOp::Reduce, 100, 4), 149);
  // g is written and read back.
  std::string error;
  const auto back = networkModelFromJson(m.toJson(), "gap.json", &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(dynamic_cast<const LogGpsModel&>(*back).params().g, 300);
}
