#include "export_image.h"

#include "units.h"

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace perwiz::gui {


ImageFormat imageFormatFor(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == QLatin1String("png")) return ImageFormat::Png;
  if (ext == QLatin1String("svg")) return ImageFormat::Svg;
  if (ext == QLatin1String("pdf")) return ImageFormat::Pdf;
  return ImageFormat::Unknown;
}

void describeExport(ui::TimelineExportOptions& options, const QString& tracePath,
                    const std::vector<Hypothesis>& applied, TimeNs measured, TimeNs predicted, const Trace* trace,
                    const QString& network) {
  options.title = QFileInfo(tracePath).fileName();
  options.notes.clear();
  const int threads = trace ? int(trace->threads.size()) : 0;
  // An image of a damaged file says so: the picture may lack what the warnings name.
  if (trace && !trace->warnings.empty())
    options.notes << QCoreApplication::translate("ExportImage", "Loaded with %n warning(s): the trace may be incomplete",
                                                 nullptr, int(trace->warnings.size()));
  if (trace && trace->rankCount() == 0 && threads > 0) {
    options.notes << QCoreApplication::translate("ExportImage", "%n thread(s) and no MPI rank (a program without MPI): shown as "
                                                 "measured, nothing to predict", nullptr, threads);
    if (measured >= 0) options.notes << QCoreApplication::translate("ExportImage", "Measured run time %1").arg(formatDuration(measured));
    return;
  }
  if (threads > 0)
    options.notes << QCoreApplication::translate("ExportImage", "%n thread(s) under their ranks, shown as measured "
                                                 "(the prediction replays the MPI ranks)", nullptr, threads);
  const bool showsPrediction = options.mode && *options.mode != ui::TimelineMode::Measured;
  if (!showsPrediction || predicted < 0) {
    if (measured >= 0) options.notes << QCoreApplication::translate("ExportImage", "Measured run time %1").arg(formatDuration(measured));
    return;
  }
  QStringList names;
  for (const Hypothesis& h : applied) names << hypothesisText(h, trace);
  options.notes << (names.isEmpty() ? QCoreApplication::translate("ExportImage", "No hypothesis: the measured run replayed")
                                    : QCoreApplication::translate("ExportImage", "Hypotheses: %1").arg(names.join(QStringLiteral("; "))));
  if (!network.isEmpty()) options.notes << QCoreApplication::translate("ExportImage", "Network model: %1").arg(network);
  options.notes << predictionSummary(measured, predicted);
}

bool exportTimelineImage(const ui::TimelineView& view, const QString& path,
                         const ui::TimelineExportOptions& options, bool overwrite, QString* error) {
  return exportTimelineImage(std::vector<ExportPart>{{&view, options}}, path, overwrite, error);
}

bool exportTimelineImage(const std::vector<ExportPart>& parts, const QString& path, bool overwrite, QString* error) {
  const ImageFormat format = imageFormatFor(path);
  if (format == ImageFormat::Unknown) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: unknown image format (use .png, .svg or .pdf)").arg(path);
    return false;
  }
  if (!overwrite && QFileInfo::exists(path)) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: the file exists; not overwritten").arg(path);
    return false;
  }
  // The parts one under the other: their places, and the whole image's size.
  std::vector<QRect> places;
  QSize size(0, 0);
  for (const ExportPart& part : parts) {
    const QSize own = part.view->exportSize(part.options);
    places.emplace_back(QPoint(0, size.height()), own);
    size = QSize(std::max(size.width(), own.width()), size.height() + own.height());
  }
  auto render = [&](QPainter& p) {
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i].view->render(p, places[i], parts[i].options);
  };
  if (size.isEmpty()) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: nothing to export").arg(path);
    return false;
  }
  const QRect target(QPoint(0, 0), size);
  // Rendered in memory, then written by writeOutputFile, which checks every write and the flush
  // (QSvgGenerator and QPdfWriter ignore a device's write errors: a full disk gave a truncated
  // SVG reported as exported) and publishes only a complete file.
  QBuffer file;
  file.open(QIODevice::WriteOnly);
  bool painted = false;
  switch (format) {
    case ImageFormat::Png: {
      QImage image(size, QImage::Format_ARGB32_Premultiplied);
      image.fill(Qt::white);
      {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        render(p);
      }
      painted = image.save(&file, "PNG");
      break;
    }
    case ImageFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&file);
      svg.setSize(size);
      svg.setViewBox(target);
      svg.setTitle(QStringLiteral("PerWiz timeline"));
      QPainter p;
      painted = p.begin(&svg);
      if (painted) {
        render(p);
        p.end();
      }
      break;
    }
    case ImageFormat::Pdf: {
      QPdfWriter pdf(&file);
      pdf.setCreator(QStringLiteral("PerWiz"));
      pdf.setTitle(QStringLiteral("PerWiz timeline"));
      pdf.setResolution(72);
      pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
      pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
      QPainter p;
      painted = p.begin(&pdf);
      if (painted) {
        render(p);
        p.end();
      }
      break;
    }
    case ImageFormat::Unknown:
      break;
  }
  if (!painted) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: rendering failed").arg(path);
    return false;
  }
  file.close();
  const QByteArray& bytes = file.data();
  try {
    writeOutputFile(path.toStdString(),
                    std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                    overwrite ? ExistingOutput::Replace : ExistingOutput::Refuse);
  } catch (const TraceError& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

}  // namespace perwiz::gui
