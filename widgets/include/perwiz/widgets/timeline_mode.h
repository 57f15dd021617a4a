// What the timeline shows, and the one spelling of each mode that sessions (.perwiz "view"
// "mode"), the headless export's --view and the GUI share. Qt Core only.
#pragma once

#include <QString>

#include <array>
#include <optional>

namespace perwiz::ui {

enum class TimelineMode {
  Measured,   // the trace as measured
  Predicted,  // the prediction only
  Overlay,    // predicted boxes drawn over the measured ones (outlined, translucent)
  Lanes,      // each rank row split into a measured and a predicted lane
};

struct TimelineModeName {
  TimelineMode mode;
  const char* name;
};
inline constexpr std::array<TimelineModeName, 4> kTimelineModeNames = {{
    {TimelineMode::Measured, "measured"},
    {TimelineMode::Predicted, "predicted"},
    {TimelineMode::Overlay, "overlay"},
    {TimelineMode::Lanes, "lanes"},
}};

inline QString timelineModeName(TimelineMode mode) {
  for (const auto& m : kTimelineModeNames)
    if (m.mode == mode) return QString::fromLatin1(m.name);
  return QStringLiteral("measured");
}
// The mode of a name of kTimelineModeNames; nullopt for any other text.
inline std::optional<TimelineMode> parseTimelineMode(const QString& name) {
  for (const auto& m : kTimelineModeNames)
    if (name == QLatin1String(m.name)) return m.mode;
  return std::nullopt;
}
// "measured, predicted, overlay, lanes" (for help texts and error messages).
inline QString timelineModeNames() {
  QString out;
  for (const auto& m : kTimelineModeNames)
    out += (out.isEmpty() ? QString() : QStringLiteral(", ")) + QLatin1String(m.name);
  return out;
}

}  // namespace perwiz::ui
