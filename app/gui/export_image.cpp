#include "export_image.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace perwiz::gui {


ImageFormat imageFormatFor(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == QLatin1String("png")) return ImageFormat::Png;
  if (ext == QLatin1String("svg")) return ImageFormat::Svg;
  if (ext == QLatin1String("pdf")) return ImageFormat::Pdf;
  return ImageFormat::Unknown;
}

bool exportTimelineImage(const ui::TimelineView& view, const QString& path,
                         const ui::TimelineExportOptions& options, bool overwrite, QString* error) {
  const ImageFormat format = imageFormatFor(path);
  if (format == ImageFormat::Unknown) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: unknown image format (use .png, .svg or .pdf)").arg(path);
    return false;
  }
  if (!overwrite && QFileInfo::exists(path)) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: the file exists; not overwritten").arg(path);
    return false;
  }
  const QSize size = view.exportSize(options);
  if (size.isEmpty()) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: nothing to export").arg(path);
    return false;
  }
  const QRect target(QPoint(0, 0), size);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  bool painted = false;
  switch (format) {
    case ImageFormat::Png: {
      QImage image(size, QImage::Format_ARGB32_Premultiplied);
      image.fill(Qt::white);
      {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        view.render(p, target, options);
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
        view.render(p, target, options);
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
        view.render(p, target, options);
        p.end();
      }
      break;
    }
    case ImageFormat::Unknown:
      break;
  }
  if (!painted) {
    file.cancelWriting();
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: rendering failed").arg(path);
    return false;
  }
  if (!file.commit()) {
    if (error) *error = QCoreApplication::translate("ExportImage", "%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace perwiz::gui
