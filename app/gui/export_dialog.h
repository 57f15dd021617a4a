// The Export Image dialog: which view (measured, predicted, overlay, lanes), which range (the
// whole trace or the current view), the image width and the height of a lane, and whether the
// title, the hypotheses and the run times head the image.
#pragma once

#include "perwiz/widgets/timeline_view.h"

class QWidget;

namespace perwiz::gui {

struct ExportChoice {
  ui::TimelineExportOptions options;  // mode, range, width, rowHeight set
  bool header = true;                 // title, hypotheses and times above the timeline
};

// Shows the dialog with `choice` as its initial values; false if cancelled. Views that need a
// prediction are offered only with one (`hasPrediction`).
bool askExportChoice(QWidget* parent, bool hasPrediction, ExportChoice& choice);

}  // namespace perwiz::gui
