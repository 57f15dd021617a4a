// Renders the timeline to PNG (QImage), SVG (QSvgGenerator) or PDF (QPdfWriter) by the
// file's extension, through TimelineView::render — the screen's drawing code.
#pragma once

#include "perwiz/widgets/timeline_view.h"

#include <QString>

#include <vector>

namespace perwiz::gui {

enum class ImageFormat { Unknown, Png, Svg, Pdf };
ImageFormat imageFormatFor(const QString& path);

// Heads an export with the trace's file name (title) and, when the view shows a prediction,
// the hypotheses applied, the network model and cost mode (`network`, describeNetwork) and
// "measured T → predicted T (change)"; else the measured T. With `trace`, a trace's threads
// (shown as measured) or its lack of MPI ranks are said too.
void describeExport(ui::TimelineExportOptions& options, const QString& tracePath,
                    const std::vector<Hypothesis>& applied, TimeNs measured, TimeNs predicted,
                    const Trace* trace = nullptr, const QString& network = QString());

// Renders in memory, then writes through writeOutputFile (output_file.h): complete or not at
// all, errors name the file and the OS error. With overwrite = false an existing file is an error.
bool exportTimelineImage(const ui::TimelineView& view, const QString& path,
                         const ui::TimelineExportOptions& options, bool overwrite, QString* error);
// Several timelines one under the other in one image (a comparison: the first run, then the
// second, each with its own options and header), as wide as the widest.
struct ExportPart {
  const ui::TimelineView* view = nullptr;
  ui::TimelineExportOptions options;
};
bool exportTimelineImage(const std::vector<ExportPart>& parts, const QString& path, bool overwrite, QString* error);

}  // namespace perwiz::gui
