// The snapshot of one overhead analysis (statistical overhead detection, perwiz/
// overhead_detection.h) that AnalysisSession hands to the Overhead dock. Immutable.
#pragma once

#include "perwiz/overhead_detection.h"
#include "perwiz/trace.h"

#include <QMetaType>
#include <QString>

#include <memory>

namespace perwiz::gui {

struct OverheadResult {
  std::shared_ptr<const Trace> trace;                // the trace analysed
  std::shared_ptr<const OverheadAnalysis> analysis;  // null on error
  QString error;
  bool fromProfile = false;  // t_max taken from an overhead profile where it has the class
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::shared_ptr<const perwiz::gui::OverheadResult>)
