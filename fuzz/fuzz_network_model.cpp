// Fuzz target: network-model JSON (networkModelFromJson: LogGPS, LogGP, LogGPO). A refused
// input must come with an error naming the source; an accepted model must reload from its own
// toJson() to the same text, and pricing messages with it must stay defined (UBSan catches a
// double that overflows its conversion to nanoseconds) and never give a negative time.
#include "fuzz_common.h"

#include "perwiz/network_model.h"

#include <limits>

using namespace perwiz;

namespace {

void check(TimeNs t, const char* what, std::uint64_t bytes) {
  if (t < 0) fuzz::fail(std::string(what) + " is negative for " + std::to_string(bytes) + " bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  std::string error;
  std::unique_ptr<NetworkModel> m = networkModelFromJson(json, "fuzz.json", &error);
  if (!m) {
    if (error.rfind("fuzz.json", 0) != 0) fuzz::fail("model error does not name the source: " + error);
    return 0;
  }
  const std::string canon = m->toJson();
  std::unique_ptr<NetworkModel> again = networkModelFromJson(canon, "canonical.json", &error);
  if (!again) fuzz::fail("a model's own JSON does not load: " + error + "\n" + canon);
  if (again->toJson() != canon) fuzz::fail("a model's JSON is not stable:\n" + canon + "\n" + again->toJson());
  if (!m->clone() || m->clone()->toJson() != canon) fuzz::fail("clone differs");

  // Message sizes a trace can hold: small, around common thresholds, up to 1 TiB.
  const std::uint64_t sizes[] = {0, 1, 7, 1024, 16383, 16384, 65536, 1u << 20, 1ull << 30, 1ull << 40};
  const CommRole roles[] = {CommRole::BlockingSend, CommRole::BlockingRecv, CommRole::IsendPost,
                            CommRole::IsendComplete, CommRole::IrecvPost, CommRole::IrecvComplete};
  const MpiOp ops[] = {MpiOp::Barrier, MpiOp::Bcast, MpiOp::Reduce, MpiOp::Allreduce, MpiOp::Alltoall,
                       MpiOp::Allgather};
  for (std::uint64_t k : sizes) {
    (void)m->synchronous(k);
    check(m->arrivalDelay(k), "arrivalDelay", k);
    for (CommRole r : roles) {
      check(m->roleCost(r, k), "roleCost", k);
      check(m->receiveDelay(r, k), "receiveDelay", k);
    }
    for (MpiOp op : ops)
      for (std::uint32_t members : {1u, 2u, 64u, 4096u}) check(m->collectiveCost(op, k, members), "collectiveCost", k);
  }
  return 0;
}
