#include "time_shading.h"

#include <algorithm>
#include <cmath>

namespace perwiz::ui {

TimeShading::TimeShading(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& spans) {
  ranks_.resize(spans.size());
  for (std::size_t r = 0; r < spans.size(); ++r) {
    std::vector<std::pair<TimeNs, TimeNs>> s;
    s.reserve(spans[r].size());
    for (const auto& [b, e] : spans[r])
      if (e > b) s.emplace_back(b, e);
    std::sort(s.begin(), s.end());
    Rank& out = ranks_[r];
    TimeNs sum = 0;
    for (const auto& [b, e] : s) {
      if (!out.end.empty() && b <= out.end.back()) {  // overlaps or touches the last: merge
        if (e > out.end.back()) {
          sum += e - out.end.back();
          out.end.back() = e;
        }
        continue;
      }
      out.begin.push_back(b);
      out.end.push_back(e);
      out.cum.push_back(sum);
      sum += e - b;
    }
    out.cum.push_back(sum);  // cum[n] = the rank's total
    total_ += sum;
  }
}

TimeNs TimeShading::rankTotal(std::uint32_t rank) const {
  return rank < ranks_.size() ? ranks_[rank].cum.back() : 0;
}

TimeNs TimeShading::before(const Rank& r, TimeNs t, std::size_t& hint) const {
  const std::size_t n = r.end.size();
  // Gallop from the hint to bracket the first span ending after t, then binary search.
  std::size_t lo = std::min(hint, n), step = 1, hi = lo;
  while (hi < n && r.end[hi] <= t) {
    lo = hi + 1;
    hi = std::min(n, hi + step);
    step *= 2;
  }
  const std::size_t k = std::size_t(std::partition_point(r.end.begin() + std::ptrdiff_t(lo),
                                                         r.end.begin() + std::ptrdiff_t(hi),
                                                         [&](TimeNs e) { return e <= t; }) -
                                    r.end.begin());
  hint = k;
  if (k == n) return r.cum[n];
  return r.cum[k] + std::clamp<TimeNs>(t - r.begin[k], 0, r.end[k] - r.begin[k]);
}

TimeNs TimeShading::markedBefore(std::uint32_t rank, TimeNs t) const {
  if (rank >= ranks_.size()) return 0;
  std::size_t hint = 0;
  return before(ranks_[rank], t, hint);
}

bool TimeShading::columnFractions(std::uint32_t rank, TimeNs begin, double nsPerPx, int columns,
                                  float* out) const {
  if (rank >= ranks_.size() || columns <= 0 || nsPerPx <= 0) return false;
  const Rank& r = ranks_[rank];
  if (r.end.empty()) return false;
  const TimeNs end = begin + TimeNs(std::ceil(double(columns) * nsPerPx));
  if (r.end.back() <= begin || r.begin.front() >= end) return false;
  std::size_t hint = std::size_t(std::partition_point(r.end.begin(), r.end.end(),
                                                      [&](TimeNs e) { return e <= begin; }) -
                                 r.end.begin());
  TimeNs prev = before(r, begin, hint);
  bool any = false;
  for (int c = 0; c < columns; ++c) {
    const TimeNs t1 = begin + TimeNs(std::llround(double(c + 1) * nsPerPx));
    const TimeNs next = before(r, t1, hint);
    const TimeNs t0 = begin + TimeNs(std::llround(double(c) * nsPerPx));
    const double width = double(std::max<TimeNs>(t1 - t0, 1));
    out[c] = float(std::min(1.0, double(next - prev) / width));
    any = any || next > prev;
    prev = next;
  }
  return any;
}

}  // namespace perwiz::ui
