// LogGPS measurement plan (see loggps_mode.h):
//   1. ping-pong on every size of the list (its times also scale the delays below);
//   2. S: the first size of the list whose send is synchronous, then bisection down to the byte;
//   3. on the list plus S and S + 1: the send with the receiver waiting, the receive of a
//      message that has already arrived, and a stream of PairBench::kStreamMessages back-to-back messages
//      against one (the time per message of the stream: G), and an exchange (both ranks send
//      at once: full or half duplex).
#include "loggps_mode.h"

#include "model_json.h"
#include "output_file.h"
#include "summary.h"
#include "threshold_search.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace perwiz::calibrate {
namespace {

class Plan {
 public:
  Plan(PairBench& bench, const CalibrateOptions& o) : bench_(bench), o_(o) {}

  LogGpsMeasurement run() {
    const std::vector<std::uint64_t> list = messageSizes(o_.minSize, o_.maxSize);
    progress("ping-pong on " + std::to_string(list.size()) + " sizes");
    for (std::uint64_t k : list) pingPong(k);

    LogGpsMeasurement m;
    findThreshold(list, m);
    std::vector<std::uint64_t> sizes = list;
    if (m.threshold == ThresholdStatus::Found) {  // the lines end exactly at the jump
      sizes.push_back(m.S);
      sizes.push_back(m.S + 1);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

    progress("send and receive times on " + std::to_string(sizes.size()) + " sizes");
    for (std::uint64_t k : sizes) {
      SizeTimes t;
      t.bytes = k;
      t.pingPongHalf = pingPong(k);
      t.pingPongSpread = spread_[k];
      t.sendReady = summarize(bench_.sendReceiverReady(k, o_.warmup, o_.repetitions), o_.statistic);
      t.recvLate = summarize(bench_.recvAfterArrival(k, o_.warmup, o_.repetitions), o_.statistic);
      t.streamGap = bench_.streamGap(k, o_.warmup, o_.repetitions, o_.statistic);
      t.exchange = summarize(bench_.exchange(k, o_.warmup, o_.repetitions), o_.statistic);
      m.sizes.push_back(t);
    }
    return m;
  }

 private:
  // Summarised half round trip of k bytes (measured once per size), known on both ranks.
  double pingPong(std::uint64_t k) {
    auto it = halfRtt_.find(k);
    if (it != halfRtt_.end()) return it->second;
    const std::vector<double> samples = bench_.pingPongHalf(k, o_.warmup, o_.repetitions);
    const double v = summarize(samples, o_.statistic);
    spread_[k] = medianAbsoluteDeviation(samples);  // rank 0's (the fit runs there)
    return halfRtt_[k] = bench_.shareFromRank0(bench_.rank() == 0 ? v : 0.0);
  }

  // How late the receiver comes in a threshold probe: --delay-us plus 4 ping-pong times of the
  // nearest measured size at or above k, so that even a large eager send has long returned.
  double delay(std::uint64_t k) const {
    auto it = halfRtt_.lower_bound(k);
    const double rtt = it != halfRtt_.end() ? it->second : halfRtt_.rbegin()->second;
    return o_.delayUs * 1e-6 + 4 * rtt;
  }

  void findThreshold(const std::vector<std::uint64_t>& list, LogGpsMeasurement& m) {
    const ThresholdResult r = findSynchronousThreshold(
        bench_, list, [this](std::uint64_t k) { return delay(k); },
        [this](const std::string& what) { progress(what); });
    m.S = r.S;
    m.threshold = r.status;
  }

  void progress(const std::string& what) const {
    if (o_.verbose && bench_.rank() == 0) std::fprintf(stderr, "perwiz-calibrate: %s\n", what.c_str());
  }

  PairBench& bench_;
  const CalibrateOptions& o_;
  std::map<std::uint64_t, double> halfRtt_;
  std::map<std::uint64_t, double> spread_;
};

}  // namespace

LogGpsMeasurement measureLogGps(PairBench& bench, const CalibrateOptions& options) {
  return Plan(bench, options).run();
}

bool smpiCollectivesChosen(const CalibrateOptions& o) {
  // The collective algorithms are the MPI's, not measured: SMPI's default selector in the SMPI
  // build (docs/model.md §3), binomial trees otherwise, unless --collectives says.
#ifdef PERWIZ_CALIBRATE_SMPI
  return o.collectives != "binomial";
#else
  return o.collectives == "smpi";
#endif
}

int runLogGpsMode(MPI_Comm world, const CalibrateOptions& o) {
  int rank = 0;
  RunInfo run;
  MPI_Comm pair = measuringPair(world, rank, run.worldSize, run.wtick);
  if (pair == MPI_COMM_NULL) return kExitOk;

  PairBench bench(pair, o.maxSize);
  const LogGpsMeasurement m = measureLogGps(bench, o);
  MPI_Comm_free(&pair);
  if (rank != 0) return kExitOk;

  LogGpsFit fit = fitLogGps(m);
  fit.smpiCollectives = smpiCollectivesChosen(o);
  const std::string model = modelJson(fit, modelName(o));
  return publishModel(o, model, [&](const CalibrateOptions& shown) {
    return o.json ? summaryJson(shown, run, m, fit, model) + "\n" : summaryText(shown, run, m, fit);
  }, fit.degenerate);
}

}  // namespace perwiz::calibrate
