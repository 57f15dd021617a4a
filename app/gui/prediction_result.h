// The snapshot of one prediction that the GUI's views read (docs/architecture.md, "Data flow"):
// immutable, shared between threads by shared_ptr, made by the prediction worker and handed to
// views by AnalysisSession. Views include this header, never the worker's.
#pragma once

#include "perwiz/predicted_times.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"

#include <QMetaType>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

namespace perwiz::ui {
struct Drawing;  // perwiz/widgets/timeline_view.h
}

namespace perwiz::gui {

// An immutable snapshot of one prediction, safe to read on the GUI thread.
struct PredictionResult {
  quint64 generation = 0;
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const PredictedTimes> times;                            // per rank: every event, every MPI call
  std::shared_ptr<const ui::Drawing> drawing;                             // the timeline's predicted drawing, or null
  std::shared_ptr<const std::vector<TimeColumn>> measuredWaits;           // [rank][mpiIndex]
  TimeNs measuredTime = 0;
  TimeNs predictedTime = 0;
  std::vector<Hypothesis> applied;   // the hypotheses this prediction is of (sorted)
  QString network;                   // the network model and cost mode it used (describeNetwork)
  std::vector<Hypothesis> rejected;  // enabled hypotheses the engine refused
  QStringList errors;                // and why
  bool full = false;
  quint64 recomputed = 0;
  quint64 shifted = 0;  // items the engine moved by a uniform shift instead (UpdateStats::shifted)
  // The drawing moved earlier tables past a shift (ui::Drawing::pieces, within a bucket of the
  // exact one); a result with `refined` set follows with the same times and the exact drawing.
  bool provisional = false;
  bool refined = false;
  std::uint32_t changedRanks = 0;                          // ranks whose times this snapshot had to copy and redraw
  double seconds = 0;                                      // wall time of the engine's update
  double snapshotSeconds = 0;                              // wall time of this snapshot (times, calls, drawing)
  double drawingSeconds = 0;                               // of which the predicted drawing
  QStringList notes;                                       // ReplayReport notes
  std::shared_ptr<const std::vector<double>> stepSigmaNs;  // σ(t_k) of each step's computation
  std::vector<double> measuredEnd, predictedEnd;           // per rank
  // Per rank, the MPI calls nested inside another (Replayer::nestedCalls): with the trace, what
  // validateHypothesis needs to refuse a hypothesis without asking the live engine.
  std::shared_ptr<const std::vector<std::vector<std::uint32_t>>> nestedCalls;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::shared_ptr<const perwiz::gui::PredictionResult>)
