#include "timeline_legend.h"

#include "perwiz/widgets/palette.h"
#include "text_cache.h"
#include "timeline_data.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace perwiz::ui {

namespace {
constexpr int kSwatch = 14;
constexpr int kGap = 16;

int entryWidth(const QFontMetrics& fm, const LegendEntry& e) {
  return kSwatch + 5 + fm.horizontalAdvance(e.label) + kGap;
}
}  // namespace

std::vector<LegendEntry> legendEntries(const TimelineData& data, TimelineMode mode,
                                       const std::vector<char>* visible) {
  std::vector<LegendEntry> out;
  const Trace* t = data.trace();
  if (!t) return out;
  std::vector<std::uint32_t> fns;
  for (std::uint32_t f = 0; f < data.functionCount(); ++f) {
    if (!data.used(f) || data.role(f) == FnRole::Marker) continue;
    if (visible && (f >= visible->size() || !(*visible)[f])) continue;
    fns.push_back(f);
  }
  auto rank = [&](std::uint32_t f) {
    switch (data.role(f)) {
      case FnRole::Mpi: return 0;
      case FnRole::State: return 1;
      default: return 2;
    }
  };
  std::sort(fns.begin(), fns.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return t->functions[a].name < t->functions[b].name;
  });
  // What the view's styles mean first (a legend cut at its last line keeps them), then the
  // functions.
  std::vector<LegendEntry> styles;
  if (data.hasPrediction() && mode == TimelineMode::Overlay) {
    styles.push_back({LegendEntry::Kind::Faded, QColor(90, 90, 200), QObject::tr("measured")});
    styles.push_back({LegendEntry::Kind::Outline, QColor(90, 90, 200), QObject::tr("predicted")});
  }
  if (data.hasPrediction() && mode == TimelineMode::Lanes)
    styles.push_back({LegendEntry::Kind::Box, QColor(0, 0, 0, 0), QObject::tr("lanes: m measured, p predicted")});
  if (t->messageStats.matched > 0) styles.push_back({LegendEntry::Kind::Arrow, colors::arrow, QObject::tr("message")});
  if (!t->steps.empty()) {
    styles.push_back({LegendEntry::Kind::Band, colors::stepEven, QObject::tr("even step")});
    styles.push_back({LegendEntry::Kind::Band, colors::stepOdd, QObject::tr("odd step")});
  }
  if (data.marked() && mode != TimelineMode::Predicted)
    styles.push_back({LegendEntry::Kind::Band, colors::marked, data.markedLabel()});
  out = std::move(styles);
  for (std::uint32_t f : fns) {
    // The tracer's own record (kEventOverheadPoint) by what it is, not by its internal name.
    const bool tracerRecord = t->functions[f].name == kEventOverheadPoint;
    out.push_back({data.role(f) == FnRole::Point ? LegendEntry::Kind::Tick : LegendEntry::Kind::Box,
                   data.color(f), tracerRecord ? QObject::tr("tracer's cost per record")
                                               : QString::fromStdString(t->functions[f].name)});
  }
  return out;
}

int legendLineCount(const TimelineData& data, TimelineMode mode, const QFontMetrics& fm, int width,
                    int maxLines) {
  const auto entries = legendEntries(data, mode, nullptr);
  if (entries.empty()) return 0;
  int lines = 1, x = 0;
  for (const LegendEntry& e : entries) {
    const int w = entryWidth(fm, e);
    if (x > 0 && x + w > width) {
      ++lines;
      x = 0;
    }
    x += w;
  }
  return maxLines > 0 ? std::min(lines, maxLines) : lines;
}

int paintLegend(QPainter& p, const QRect& rect, const std::vector<LegendEntry>& entries, int maxLines,
                TextCache* text) {
  if (rect.height() <= 0 || entries.empty()) return 0;
  const QFontMetrics fm(p.font());
  const int lineH = fm.height() + 4;
  int x = rect.left(), y = rect.top() + 4, line = 1, texts = 0;
  p.save();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    const int w = entryWidth(fm, e);
    if (x > rect.left() && x + w > rect.right()) {
      if (maxLines > 0 && line >= maxLines) {
        p.setPen(colors::text);
        p.drawText(QPoint(x, y + fm.ascent() + 1), QObject::tr("+%1 more").arg(entries.size() - i));
        ++texts;
        break;
      }
      ++line;
      x = rect.left();
      y += lineH;
    }
    const QRect sw(x, y + (fm.height() - 10) / 2 + 1, kSwatch, 10);
    switch (e.kind) {
      case LegendEntry::Kind::Box:
        if (e.color.alpha() > 0) {
          p.fillRect(sw, e.color);
          p.setPen(e.color.darker(140));
          p.drawRect(sw.adjusted(0, 0, -1, -1));
        }
        break;
      case LegendEntry::Kind::Faded:
        p.fillRect(sw, QColor(200, 200, 235));
        break;
      case LegendEntry::Kind::Outline: {
        QColor f = e.color;
        f.setAlpha(110);
        p.fillRect(sw, f);
        p.setPen(QPen(e.color.darker(150), 1));
        p.drawRect(sw.adjusted(0, 0, -1, -1));
        break;
      }
      case LegendEntry::Kind::Band: p.fillRect(sw, e.color); break;
      case LegendEntry::Kind::Arrow:
        p.setPen(QPen(e.color, 1));
        p.drawLine(sw.left(), sw.bottom(), sw.right(), sw.top());
        p.drawLine(sw.right(), sw.top(), sw.right() - 4, sw.top());
        p.drawLine(sw.right(), sw.top(), sw.right(), sw.top() + 4);
        break;
      case LegendEntry::Kind::Tick:
        p.fillRect(QRect(sw.center().x(), sw.top(), 2, sw.height()), e.color);
        break;
    }
    p.setPen(colors::text);
    if (text) text->draw(p, QPointF(x + kSwatch + 5, y + 1), e.label);
    else p.drawText(QPoint(x + kSwatch + 5, y + fm.ascent() + 1), e.label);
    ++texts;
    x += w;
  }
  p.restore();
  return texts;
}

}  // namespace perwiz::ui
