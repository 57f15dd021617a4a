// Renders the timeline to PNG (QImage), SVG (QSvgGenerator) or PDF (QPdfWriter) by the
// file's extension, through TimelineView::render — the screen's drawing code.
#pragma once

#include "perwiz/widgets/timeline_view.h"

#include <QString>

namespace perwiz::gui {

enum class ImageFormat { Unknown, Png, Svg, Pdf };
ImageFormat imageFormatFor(const QString& path);

// Renders in memory, then writes through writeOutputFile (output_file.h): complete or not at
// all, errors name the file and the OS error. With overwrite = false an existing file is an error.
bool exportTimelineImage(const ui::TimelineView& view, const QString& path,
                         const ui::TimelineExportOptions& options, bool overwrite, QString* error);

}  // namespace perwiz::gui
