#include "time_axis.h"

#include "perwiz/checked_time.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace perwiz::ui {

namespace {

struct Unit {
  TimeNs ns;
  const char* name;
};
constexpr Unit kUnits[] = {{1, "ns"}, {1000, "µs"}, {1000000, "ms"}, {1000000000, "s"}};

// |t| without overflow (|INT64_MIN| is not an int64).
std::uint64_t magnitudeOf(TimeNs t) { return t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t); }

const Unit& unitFor(TimeNs magnitude) {
  int i = 0;
  while (i < 3 && magnitudeOf(magnitude) >= static_cast<std::uint64_t>(kUnits[i + 1].ns)) ++i;
  return kUnits[i];
}

// Decimals needed to show `resolution` in `unit`.
int decimalsFor(TimeNs resolution, TimeNs unit) {
  int dec = 0;
  TimeNs r = std::max<TimeNs>(resolution, 1);
  TimeNs u = unit;
  while (r < u && dec < 9) {
    u /= 10;
    ++dec;
  }
  return dec;
}

QString number(TimeNs t, const Unit& u, int decimals) {
  QString s = QString::number(double(t) / double(u.ns), 'f', decimals);
  if (decimals > 0) {  // drop trailing zeros
    while (s.endsWith('0')) s.chop(1);
    if (s.endsWith('.')) s.chop(1);
  }
  return s + QStringLiteral(" ") + QString::fromUtf8(u.name);
}

}  // namespace

QString formatTime(TimeNs t, TimeNs resolution) {
  if (t == 0) return QStringLiteral("0");
  const Unit& u = unitFor(t);
  const int dec = resolution > 0 ? decimalsFor(resolution, u.ns) : std::min(3, decimalsFor(1, u.ns));
  return number(t, u, dec);
}

AxisTicks computeTicks(TimeNs begin, TimeNs end, double pixels, double minSpacingPx) {
  AxisTicks out;
  if (end <= begin || pixels <= 1) return out;
  // end - begin may not fit in int64, and double(end) - double(begin) loses it near ±2^63: the
  // difference is exact in uint64 (end > begin).
  const double span = double(static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(begin));
  const double wanted = span * minSpacingPx / pixels;  // ns between labels at least
  TimeNs step = 1;
  TimeNs minor = 1;
  for (TimeNs p = 1;; p *= 10) {
    if (double(p) >= wanted) { step = p; minor = std::max<TimeNs>(p / 5, 1); break; }
    if (double(2 * p) >= wanted) { step = 2 * p; minor = std::max<TimeNs>(p / 2, 1); break; }
    if (double(5 * p) >= wanted) { step = 5 * p; minor = p; break; }
    if (p > TimeNs(1) << 58) { step = p; minor = p; break; }
  }
  out.step = step;
  out.minorStep = minor;
  const Unit* unit = &unitFor(step);
  // Long absolute labels (a 1 µs tick at 12 s): label relative to a round base instead.
  // Times near the ends of the int64 range (a trace spanning ~2^63 ns): every step below is
  // checked, and a tick that would lie beyond the range ends the loop (a wrapped `t += step`
  // looped forever).
  const double absMax = std::max(double(magnitudeOf(begin)), double(magnitudeOf(end)));
  TimeNs b = 0;
  if (absMax / double(unit->ns) >= 1e5 && absMax > 50.0 * span && checkedMul(step, 1000, &b)) {
    TimeNs base = (begin / b) * b;
    if (!(begin < 0 && base > begin) || checkedSub(base, b, &base)) {  // else: absolute labels
      out.base = base;
      out.baseLabel = formatTime(base, b) + QStringLiteral(" +");
    }
  }
  // Labels of at most four digits before the point: a larger value takes the next unit with
  // the decimals the step needs ("1.4 s + 151.4 ms", not "1.4 s + 151400 µs").
  const double largest =
      std::max(std::fabs(double(begin) - double(out.base)), std::fabs(double(end) - double(out.base)));
  while (unit != &kUnits[3] && largest / double(unit->ns) >= 1e4) ++unit;
  const Unit& u = *unit;
  const int dec = decimalsFor(step, u.ns);
  // The first multiple of `s` at or after begin, false if there is none in the range.
  auto firstAtOrAfter = [&](TimeNs s, TimeNs* t) {
    *t = (begin / s) * s;
    return *t >= begin || checkedAdd(*t, s, t);
  };
  TimeNs t = 0;
  for (bool ok = firstAtOrAfter(step, &t); ok && t < end; ok = checkedAdd(t, step, &t))
    out.major.push_back({t, number(satSub(t, out.base), u, dec)});
  if (minor < step) {
    TimeNs m = 0;
    for (bool ok = firstAtOrAfter(minor, &m); ok && m < end; ok = checkedAdd(m, minor, &m))
      if (m % step != 0) out.minor.push_back({m, {}});
  }
  return out;
}

}  // namespace perwiz::ui
