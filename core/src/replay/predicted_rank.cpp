// PredictedRank's reads that are more than an array access (perwiz/predicted_times.h).
#include "perwiz/predicted_times.h"

#include <algorithm>
#include <limits>

namespace perwiz {

void PredictedRank::indexLeaves() {
  const std::size_t n = ownLeave.size();
  blockMaxLeave.assign((n + kMaxBlock - 1) / kMaxBlock, std::numeric_limits<TimeNs>::min());
  for (std::size_t e = 0; e < n; ++e) {
    TimeNs& m = blockMaxLeave[e / kMaxBlock];
    m = std::max(m, ownLeave[e]);
  }
}

void PredictedRank::prepare(std::size_t events, std::size_t calls) {
  tail.reset();
  tailShift = 0;
  end = 0;
  blockMaxLeave.clear();
  ownEnter.reserveTouched(events);
  ownLeave.reserveTouched(events);
  ownWait.reserveTouched(calls);
}

std::vector<TimeNs> PredictedRank::enters() const {
  std::vector<TimeNs> v(events());
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = enter(e);
  return v;
}
std::vector<TimeNs> PredictedRank::leaves() const {
  std::vector<TimeNs> v(events());
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = leave(e);
  return v;
}
std::vector<TimeNs> PredictedRank::waits() const {
  std::vector<TimeNs> v(calls());
  for (std::size_t c = 0; c < v.size(); ++c) v[c] = wait(c);
  return v;
}

namespace {
// The latest leave of a rank without a tail from event `e` on, plus `shift`.
TimeNs ownMaxFrom(const PredictedRank& root, std::size_t e, TimeNs shift) {
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
  const std::size_t n = root.ownLeave.size(), block = PredictedRank::kMaxBlock;
  const bool indexed = root.blockMaxLeave.size() == (n + block - 1) / block;
  TimeNs m = kNone;
  for (; e < n && (!indexed || e % block != 0); ++e) m = std::max(m, root.ownLeave[e]);
  for (; e < n; e += block) m = std::max(m, root.blockMaxLeave[e / block]);  // whole blocks (the last may be short)
  return m == kNone ? kNone : m + shift;
}
}  // namespace

TimeNs PredictedRank::maxLeaveFrom(std::size_t from) const {
  if (!tail) return ownMaxFrom(*this, from, 0);
  TimeNs m = std::numeric_limits<TimeNs>::min();
  std::size_t e = from;
  for (; e < ownLeave.size(); ++e) m = std::max(m, ownLeave[e]);
  return std::max(m, ownMaxFrom(*tail, e, tailShift));
}

}  // namespace perwiz
