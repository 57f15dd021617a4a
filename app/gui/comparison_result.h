// What the GUI shows of a comparison of the trace shown (A) with a second run (B), issue #41:
// an immutable snapshot made in the background by AnalysisSession::compareWith (docs/compare.md).
#pragma once

#include "perwiz/compare.h"
#include "perwiz/widgets/timeline_model.h"

#include <QMetaType>
#include <QString>

#include <memory>

namespace perwiz::gui {

struct ComparisonResult {
  std::shared_ptr<const Trace> traceA;  // the trace shown when it was made
  std::shared_ptr<const Trace> traceB;  // the second run
  QString pathB;
  // B's timeline, prepared with B (the first result of a comparison; empty when B was kept).
  ui::PreparedTimeline timelineB;
  std::shared_ptr<const TraceAlignment> alignment;
  Comparison comparison;            // with A′ when the prediction had hypotheses
  quint64 generation = 0;           // the scenario generation of A′ (0: none)
  std::vector<Hypothesis> applied;  // A′'s hypotheses
  QString error;                    // why there is no comparison (then only this is set)
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::shared_ptr<const perwiz::gui::ComparisonResult>)
