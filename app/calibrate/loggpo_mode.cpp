// LogGPO measurement plan (see loggpo_mode.h and loggpo_fit.h):
//   1. non-blocking ping-pong on every size of the list (its times also scale the delays);
//   2. S: as for LogGPS (threshold_search.h);
//   3. on the list plus S and S + 1: MPI_Isend (+ MPI_Wait) into a posted receive, and
//      MPI_Irecv + MPI_Wait of a message that has arrived;
//   4. the progress probe on the largest rendezvous size: each side's Wait right after posting,
//      and after staying away from MPI for --delay-us + 4 times that Wait.
#include "loggpo_mode.h"
#include "loggps_mode.h"

#include "loggpo_summary.h"
#include "output_file.h"
#include "threshold_search.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace perwiz::calibrate {
namespace {

class LogGpoPlan {
 public:
  LogGpoPlan(PairBench& bench, const CalibrateOptions& o) : bench_(bench), o_(o) {}

  LogGpoMeasurement run() {
    const std::vector<std::uint64_t> list = messageSizes(o_.minSize, o_.maxSize);
    progress("non-blocking ping-pong on " + std::to_string(list.size()) + " sizes");
    for (std::uint64_t k : list) pingPong(k);

    LogGpoMeasurement m;
    const ThresholdResult t = findSynchronousThreshold(
        bench_, list, [this](std::uint64_t k) { return delay(k); },
        [this](const std::string& what) { progress(what); });
    m.S = t.S;
    m.threshold = t.status;
    std::vector<std::uint64_t> sizes = list;
    if (m.threshold == ThresholdStatus::Found) {  // the eager lines end exactly at the switch
      sizes.push_back(m.S);
      sizes.push_back(m.S + 1);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

    progress("Isend and Irecv times on " + std::to_string(sizes.size()) + " sizes");
    for (std::uint64_t k : sizes) {
      LogGpoSizeTimes s;
      s.bytes = k;
      s.pingPongHalf = pingPong(k);
      const PairBench::IsendTimes send = bench_.isendReceiverReady(k, o_.warmup, o_.repetitions);
      s.isendPost = summary(send.post);
      s.isendTotal = summary(send.total);
      s.recvTotal = summary(bench_.irecvAfterArrival(k, o_.warmup, o_.repetitions));
      s.streamGap = bench_.streamGap(k, o_.warmup, o_.repetitions, o_.statistic);  // G (wire_fit.h)
      s.exchange = summary(bench_.exchange(k, o_.warmup, o_.repetitions));      // duplex (wire_fit.h)
      s.pingPongSpread = spread_[k];
      m.sizes.push_back(s);
    }

    const bool anyRendezvous = m.threshold == ThresholdStatus::AllSynchronous || sizes.back() > m.S;
    if (anyRendezvous) probeProgress(sizes.back(), m.progress);
    return m;
  }

 private:
  double summary(const std::vector<double>& samples) const { return summarize(samples, o_.statistic); }

  // Summarised non-blocking half round trip of k bytes (measured once per size), on both ranks.
  double pingPong(std::uint64_t k) {
    auto it = halfRtt_.find(k);
    if (it != halfRtt_.end()) return it->second;
    const std::vector<double> samples = bench_.nonblockingPingPongHalf(k, o_.warmup, o_.repetitions);
    const double v = summary(samples);
    spread_[k] = medianAbsoluteDeviation(samples);  // rank 0's (the fit runs there)
    return halfRtt_[k] = bench_.shareFromRank0(bench_.rank() == 0 ? v : 0.0);
  }

  // The receiver's absence in a threshold probe, as in the LogGPS mode.
  double delay(std::uint64_t k) const {
    auto it = halfRtt_.lower_bound(k);
    const double rtt = it != halfRtt_.end() ? it->second : halfRtt_.rbegin()->second;
    return o_.delayUs * 1e-6 + 4 * rtt;
  }

  // Dependent progress leaves the handshake and the transfer to the next MPI call, so a Wait
  // after time away from MPI lasts as long as one right after posting; independent progress
  // moves the message meanwhile and the Wait finds it done (the paper's Fig. 1).
  void probeProgress(std::uint64_t k, ProgressProbe& p) {
    progress("progress probe on " + std::to_string(k) + " bytes");
    p.measured = true;
    p.bytes = k;
    p.senderAlone = summary(bench_.waitAfterAway(k, 0, 0.0, o_.warmup, o_.repetitions));
    p.receiverAlone = summary(bench_.waitAfterAway(k, 1, 0.0, o_.warmup, o_.repetitions));
    // Long enough for the whole transfer (4 times the longer Wait) plus --delay-us.
    const double alone = bench_.shareFromRank0(std::max(p.senderAlone, p.receiverAlone));
    p.awaySeconds = o_.delayUs * 1e-6 + 4 * alone;
    p.senderAfterAway = summary(bench_.waitAfterAway(k, 0, p.awaySeconds, o_.warmup, o_.repetitions));
    p.receiverAfterAway = summary(bench_.waitAfterAway(k, 1, p.awaySeconds, o_.warmup, o_.repetitions));
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

LogGpoMeasurement measureLogGpo(PairBench& bench, const CalibrateOptions& options) {
  return LogGpoPlan(bench, options).run();
}

int runLogGpoMode(MPI_Comm world, const CalibrateOptions& o) {
  int rank = 0;
  RunInfo run;
  MPI_Comm pair = measuringPair(world, rank, run.worldSize, run.wtick);
  if (pair == MPI_COMM_NULL) return kExitOk;

  PairBench bench(pair, o.maxSize);
  const LogGpoMeasurement m = measureLogGpo(bench, o);
  MPI_Comm_free(&pair);
  if (rank != 0) return kExitOk;

  LogGpoFit fit = fitLogGpo(m);
  fit.smpiCollectives = smpiCollectivesChosen(o);  // as in the LogGPS mode
  const std::string model = loggpoModelJson(fit, modelName(o));
  return publishModel(o, model, [&](const CalibrateOptions& shown) {
    return o.json ? loggpoSummaryJson(shown, run, m, fit, model) + "\n" : loggpoSummaryText(shown, run, m, fit);
  }, fit.degenerate);
}

}  // namespace perwiz::calibrate
