#include "time_axis.h"

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

const Unit& unitFor(TimeNs magnitude) {
  int i = 0;
  while (i < 3 && std::llabs(magnitude) >= kUnits[i + 1].ns) ++i;
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
  const double span = double(end - begin);
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
  const Unit& u = unitFor(step);
  const int dec = decimalsFor(step, u.ns);
  // Long absolute labels (a 1 µs tick at 12 s): label relative to a round base instead.
  const TimeNs absMax = std::max(std::llabs(begin), std::llabs(end));
  if (double(absMax) / double(u.ns) >= 1e5 && double(absMax) > 50.0 * span) {
    TimeNs b = step * 1000;
    out.base = (begin / b) * b;
    if (begin < 0 && out.base > begin) out.base -= b;
    out.baseLabel = formatTime(out.base, step * 1000) + QStringLiteral(" +");
  }
  TimeNs first = (begin / step) * step;
  if (first < begin) first += step;
  for (TimeNs t = first; t < end; t += step)
    out.major.push_back({t, number(t - out.base, u, dec)});
  if (minor < step) {
    TimeNs m = (begin / minor) * minor;
    if (m < begin) m += minor;
    for (; m < end; m += minor)
      if (m % step != 0) out.minor.push_back({m, {}});
  }
  return out;
}

}  // namespace perwiz::ui
