#include "headless_export.h"

#include "export_image.h"

#include "prediction_worker.h"

#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTextStream>

namespace perwiz::gui {

int runHeadlessExport(const HeadlessExportArgs& args) {
  QTextStream err(stderr);
  const std::optional<ui::TimelineMode> parsed = ui::parseTimelineMode(args.view);
  if (!parsed) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: --view must be measured, predicted, overlay or lanes, not '%1'").arg(args.view) << Qt::endl;
    return 2;
  }
  const ui::TimelineMode mode = *parsed;
  if (imageFormatFor(args.out) == ImageFormat::Unknown) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: %1: unknown image format (use .png, .svg or .pdf)").arg(args.out) << Qt::endl;
    return 2;
  }
  if (!args.force && QFileInfo::exists(args.out)) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: %1: the file exists; not overwritten (--force replaces it)").arg(args.out) << Qt::endl;
    return 1;
  }
  try {
    const std::string tracePath = args.traceBytes.empty() ? args.trace.toStdString() : args.traceBytes;
    auto trace = std::make_shared<const Trace>(loadTrace(tracePath));
    err << QString::fromStdString(warningsReport(trace->warnings, tracePath, 3,
                                                 "the Warnings panel of the GUI or 'perwiz-cli info " + tracePath +
                                                     "' lists them all"));
    err.flush();
    Scenario scenario;
    if (!args.scenario.isEmpty()) {
      std::string error;
      if (!loadScenario(args.scenario.toStdString(), scenario, &error)) {
        err << "perwiz: " << QString::fromStdString(error) << Qt::endl;
        return 1;
      }
    }
    ui::TimelineView view;
    view.resize(args.width, 600);
    view.setTrace(trace);
    std::shared_ptr<const PredictionResult> result;
    if (mode != ui::TimelineMode::Measured && trace->rankCount() == 0) {
      err << "perwiz: " << args.trace << ": "
          << QCoreApplication::translate("HeadlessExport", "%n thread(s) and no MPI rank (a program without MPI): nothing "
                                         "to predict; only --view measured is drawn", nullptr, int(trace->threads.size()))
          << Qt::endl;
      return 1;
    }
    if (mode != ui::TimelineMode::Measured) {
      // The snapshot the GUI's worker makes, on this thread (a prediction past the int64 ns
      // range is not a result: predictOnce throws with the reason, docs/model.md "Limits").
      result = PredictionWorker::predictOnce(trace, scenario, view.base());
      if (!result->errors.isEmpty()) {
        err << "perwiz: " << args.scenario << ": " << result->errors.first() << Qt::endl;
        return 1;
      }
      view.setPrediction(result->times, result->drawing);
      view.setMeasuredWaits(result->measuredWaits);
    }
    view.setMode(mode);
    ui::TimelineExportOptions options;
    options.wholeTrace = args.wholeTrace;
    options.width = args.width;
    options.rowHeight = args.laneHeight;
    options.mode = mode;
    if (args.header)
      describeExport(options, args.trace, result ? result->applied : std::vector<Hypothesis>{},
                     result ? result->measuredTime : trace->endTime, result ? result->predictedTime : -1, trace.get());
    QString error;
    if (!exportTimelineImage(view, args.out, options, args.force, &error)) {
      err << "perwiz: " << error << Qt::endl;
      return 1;
    }
  } catch (const TraceError& e) {
    err << "perwiz: " << QString::fromStdString(e.what()) << Qt::endl;
    return 1;
  } catch (const std::exception& e) {
    err << "perwiz: " << QString::fromStdString(e.what()) << Qt::endl;
    return 1;
  }
  return 0;
}

}  // namespace perwiz::gui
