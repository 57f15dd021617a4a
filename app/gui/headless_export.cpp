#include "headless_export.h"

#include "export_image.h"
#include "prediction_worker.h"
#include "session_file.h"

#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>

#include <cmath>

namespace perwiz::gui {
namespace {

// What to draw, from the command line and a session file: the trace, the scenario, the region,
// the view mode and the range.
struct ExportPlan {
  std::string tracePath;
  QString traceName;  // as the header and the messages name it
  Scenario scenario;
  QString scenarioSource;  // the file the scenario came from, for its errors
  QString region;
  std::optional<ui::TimelineMode> mode;
  QString from, to;
  TimeNs sessionBegin = 0, sessionEnd = 0;  // a session's range (0, 0: fit)
};

// The plan, or nullopt (bad input: exit status 1) with the message written to err.
std::optional<ExportPlan> planExport(const HeadlessExportArgs& args, QTextStream& err) {
  ExportPlan plan;
  plan.tracePath = args.traceBytes.empty() ? args.trace.toStdString() : args.traceBytes;
  plan.traceName = args.trace;
  if (args.trace.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive)) {
    SessionData session;
    QString error;
    if (!loadSession(args.trace, session, &error)) {
      err << "perwiz: " << error << Qt::endl;
      return std::nullopt;
    }
    plan.tracePath = session.trace.toStdString();
    plan.traceName = session.trace;
    plan.scenario = session.scenario;
    std::erase_if(plan.scenario.hypotheses, [&](const Hypothesis& h) { return session.isDisabled(h); });
    plan.scenarioSource = args.trace;
    plan.region = session.region;
    plan.mode = session.view.mode;
    plan.sessionBegin = session.view.beginNs;
    plan.sessionEnd = session.view.endNs;
  }
  if (!args.scenario.isEmpty()) {
    std::string error;
    if (!loadScenario(args.scenario.toStdString(), plan.scenario, &error)) {
      err << "perwiz: " << QString::fromStdString(error) << Qt::endl;
      return std::nullopt;
    }
    plan.scenarioSource = args.scenario;
  }
  if (!args.region.isEmpty()) plan.region = args.region;
  if (!args.view.isEmpty()) plan.mode = ui::parseTimelineMode(args.view);
  // A scenario's hypotheses are what the user asked to see: a predicted view unless told.
  if (!plan.mode) plan.mode = plan.scenario.hypotheses.empty() ? ui::TimelineMode::Measured : ui::TimelineMode::Lanes;
  plan.from = args.from;
  plan.to = args.to;
  return plan;
}

// The trace of the plan, its region declared.
std::shared_ptr<const Trace> loadPlanned(const ExportPlan& plan, QTextStream& err) {
  Trace trace = loadTrace(plan.tracePath);
  err << QString::fromStdString(
      warningsReport(trace.warnings, plan.tracePath, 3,
                     "the Warnings panel of the GUI or 'perwiz-cli info " + plan.tracePath + "' lists them all"));
  err.flush();
  if (!plan.region.isEmpty() && !declareParallelRegion(trace, plan.region.toStdString()))
    throw std::runtime_error(plan.tracePath + ": --region " + plan.region.toStdString() + ": no state of that name");
  return std::make_shared<const Trace>(std::move(trace));
}

// The range to draw: --from/--to, else the session's, else the whole trace (false: bad input,
// said on err).
bool chooseRange(const ExportPlan& plan, const Trace& trace, ui::TimelineView& view, bool* whole, QTextStream& err) {
  *whole = true;
  TimeNs begin = 0, end = trace.endTime;
  if (plan.sessionEnd > plan.sessionBegin) {
    begin = plan.sessionBegin;
    end = plan.sessionEnd;
    *whole = false;
  }
  for (const auto& [text, isEnd] : {std::pair{plan.from, false}, std::pair{plan.to, true}}) {
    if (text.isEmpty()) continue;
    QString why;
    const std::optional<TimeNs> t = parseExportTime(text, trace, isEnd, &why);
    if (!t) {
      err << "perwiz: " << (isEnd ? QStringLiteral("--to ") : QStringLiteral("--from ")) << text << ": " << why
          << Qt::endl;
      return false;
    }
    (isEnd ? end : begin) = *t;
    *whole = false;
  }
  if (*whole) return true;
  if (end <= begin) {
    err << "perwiz: "
        << QCoreApplication::translate("HeadlessExport", "the range to draw is empty: %1 is not before %2")
               .arg(QString::number(begin), QString::number(end))
        << Qt::endl;
    return false;
  }
  view.setVisibleRange(begin, end);
  return true;
}

}  // namespace

std::optional<TimeNs> parseExportTime(const QString& text, const Trace& trace, bool end, QString* why) {
  static const QRegularExpression event(QStringLiteral("^(\\d+):(\\d+)$"));
  if (const auto m = event.match(text.trimmed()); m.hasMatch()) {
    const std::uint32_t rank = m.captured(1).toUInt(), index = m.captured(2).toUInt();
    if (rank >= trace.rankCount()) {
      *why = QCoreApplication::translate("HeadlessExport", "the trace has %1 ranks").arg(trace.rankCount());
      return std::nullopt;
    }
    const RankTrace& rt = trace.ranks[rank];
    if (index >= rt.mpiCalls.size()) {
      *why =
          QCoreApplication::translate("HeadlessExport", "rank %1 has %2 MPI calls").arg(rank).arg(rt.mpiCalls.size());
      return std::nullopt;
    }
    const std::uint32_t e = rt.mpiCalls[index];
    return end ? rt.leave[e] : rt.enter[e];
  }
  static const QRegularExpression time(QStringLiteral("^([0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\\s*(s|ms|us|µs|ns)?$"));
  const auto m = time.match(text.trimmed());
  if (!m.hasMatch()) {
    *why = QCoreApplication::translate("HeadlessExport",
                                       "not a time (2.5s, 300ms, 12us, 800ns; a number is ns) or an event RANK:INDEX");
    return std::nullopt;
  }
  const QString unit = m.captured(2);
  const double scale = unit == QLatin1String("s")                                       ? 1e9
                       : unit == QLatin1String("ms")                                    ? 1e6
                       : unit == QLatin1String("us") || unit == QString::fromUtf8("µs") ? 1e3
                                                                                        : 1.0;
  const double ns = m.captured(1).toDouble() * scale;
  if (!std::isfinite(ns) || ns > static_cast<double>(trace.endTime)) {
    *why = QCoreApplication::translate("HeadlessExport", "after the end of the trace (%1 ns)").arg(trace.endTime);
    return std::nullopt;
  }
  return static_cast<TimeNs>(std::llround(ns));
}

int runHeadlessExport(const HeadlessExportArgs& args) {
  QTextStream err(stderr);
  if (!args.view.isEmpty() && !ui::parseTimelineMode(args.view)) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: --view must be measured, predicted, overlay or lanes, not '%1'").arg(args.view) << Qt::endl;
    return 2;
  }
  if (imageFormatFor(args.out) == ImageFormat::Unknown) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: %1: unknown image format (use .png, .svg or .pdf)").arg(args.out) << Qt::endl;
    return 2;
  }
  if (!args.force && QFileInfo::exists(args.out)) {
    err << QCoreApplication::translate("HeadlessExport", "perwiz: %1: the file exists; not overwritten (--force replaces it)").arg(args.out) << Qt::endl;
    return 1;
  }
  try {
    const std::optional<ExportPlan> plan = planExport(args, err);
    if (!plan) return 1;
    const ui::TimelineMode mode = *plan->mode;
    auto trace = loadPlanned(*plan, err);
    ui::TimelineView view;
    view.resize(args.width, 600);
    view.setTrace(trace);
    std::shared_ptr<const PredictionResult> result;
    if (mode != ui::TimelineMode::Measured && trace->rankCount() == 0) {
      err << "perwiz: " << plan->traceName << ": "
          << QCoreApplication::translate("HeadlessExport",
                                         "%n thread(s) and no MPI rank (a program without MPI): nothing "
                                         "to predict; only --view measured is drawn",
                                         nullptr, int(trace->threads.size()))
          << Qt::endl;
      return 1;
    }
    if (mode != ui::TimelineMode::Measured) {
      // The snapshot the GUI's worker makes, on this thread (a prediction past the int64 ns
      // range is not a result: predictOnce throws with the reason, docs/model.md "Limits").
      result = PredictionWorker::predictOnce(trace, plan->scenario, view.base());
      if (!result->errors.isEmpty()) {
        err << "perwiz: " << plan->scenarioSource << ": " << result->errors.first() << Qt::endl;
        return 1;
      }
      view.setPrediction(result->times, result->drawing);
      view.setMeasuredWaits(result->measuredWaits);
    }
    view.setMode(mode);
    ui::TimelineExportOptions options;
    if (!chooseRange(*plan, *trace, view, &options.wholeTrace, err)) return 1;
    options.width = args.width;
    options.rowHeight = args.laneHeight;
    options.mode = mode;
    if (args.header)
      describeExport(options, plan->traceName, result ? result->applied : std::vector<Hypothesis>{},
                     result ? result->measuredTime : trace->endTime, result ? result->predictedTime : -1, trace.get(),
                     result ? result->network : QString());
    QString error;
    if (!exportTimelineImage(view, args.out, options, args.force, &error)) {
      err << "perwiz: " << error << Qt::endl;
      return 1;
    }
  } catch (const std::exception& e) {
    err << "perwiz: " << QString::fromStdString(e.what()) << Qt::endl;
    return 1;
  }
  return 0;
}

}  // namespace perwiz::gui
