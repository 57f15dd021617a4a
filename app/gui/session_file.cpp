#include "session_file.h"

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace perwiz::gui {


bool saveSession(const QString& path, const SessionData& data, QString* error) {
  QJsonParseError pe;
  const QJsonDocument scenario = QJsonDocument::fromJson(QByteArray::fromStdString(data.scenario.toJson()), &pe);
  QJsonObject root;
  root[QStringLiteral("perwiz_session")] = 1;
  root[QStringLiteral("trace")] = data.trace;
  root[QStringLiteral("scenario")] = scenario.object();
  root[QStringLiteral("disabled")] = QJsonArray::fromStringList(data.disabled);
  QJsonObject view;
  view[QStringLiteral("mode")] = ui::timelineModeName(data.view.mode);
  view[QStringLiteral("begin_ns")] = data.view.beginNs;
  view[QStringLiteral("end_ns")] = data.view.endNs;
  if (!data.view.docks.isEmpty()) view[QStringLiteral("docks")] = QString::fromLatin1(data.view.docks.toBase64());
  root[QStringLiteral("view")] = view;
  if (!data.region.isEmpty()) root[QStringLiteral("region")] = data.region;
  if (!data.compareWith.isEmpty()) root[QStringLiteral("compare_with")] = data.compareWith;
  // writeOutputFile checks every write and the flush, and replaces the old session only with a
  // complete new one (QSaveFile in Qt 6.4 committed after a short write on a full disk).
  const QByteArray bytes = QJsonDocument(root).toJson(QJsonDocument::Indented);
  try {
    writeOutputFile(path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                    ExistingOutput::Replace);
  } catch (const TraceError& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

bool loadSession(const QString& path, SessionData& data, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = QCoreApplication::translate("SessionFile", "%1: cannot read: %2").arg(path, f.errorString());
    return false;
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
  if (doc.isNull() || !doc.isObject()) {
    if (error) *error = QCoreApplication::translate("SessionFile", "%1: not a JSON object: %2").arg(path, pe.errorString());
    return false;
  }
  const QJsonObject root = doc.object();
  if (root.value(QStringLiteral("perwiz_session")).toInt() != 1) {
    if (error) *error = QCoreApplication::translate("SessionFile", "%1: not a PerWiz session (\"perwiz_session\": 1 missing)").arg(path);
    return false;
  }
  SessionData out;
  out.trace = root.value(QStringLiteral("trace")).toString();
  if (out.trace.isEmpty()) {
    if (error) *error = QCoreApplication::translate("SessionFile", "%1: the session names no trace").arg(path);
    return false;
  }
  if (QFileInfo(out.trace).isRelative())
    out.trace = QFileInfo(path).absoluteDir().absoluteFilePath(out.trace);
  const QJsonValue sv = root.value(QStringLiteral("scenario"));
  if (sv.isObject()) {
    const std::string json = QJsonDocument(sv.toObject()).toJson(QJsonDocument::Compact).toStdString();
    std::string problem;
    if (!scenarioFromJson(json, path.toStdString(), out.scenario, &problem)) {
      if (error) *error = QString::fromStdString(problem);
      return false;
    }
  } else if (!sv.isUndefined() && !sv.isNull()) {
    if (error) *error = QCoreApplication::translate("SessionFile", "%1: \"scenario\" is not an object").arg(path);
    return false;
  }
  for (const auto& v : root.value(QStringLiteral("disabled")).toArray()) out.disabled << v.toString();
  const QJsonObject view = root.value(QStringLiteral("view")).toObject();
  const QString mode = view.value(QStringLiteral("mode")).toString(QStringLiteral("measured"));
  const std::optional<ui::TimelineMode> parsed = ui::parseTimelineMode(mode);
  if (!parsed) {
    if (error)
      *error = QCoreApplication::translate("SessionFile", "%1: view mode \"%2\" is not one of %3")
                   .arg(path, mode, ui::timelineModeNames());
    return false;
  }
  out.view.mode = *parsed;
  out.view.beginNs = view.value(QStringLiteral("begin_ns")).toInteger();
  out.view.endNs = view.value(QStringLiteral("end_ns")).toInteger();
  out.view.docks = QByteArray::fromBase64(view.value(QStringLiteral("docks")).toString().toLatin1());
  out.region = root.value(QStringLiteral("region")).toString();
  out.compareWith = root.value(QStringLiteral("compare_with")).toString();
  if (!out.compareWith.isEmpty() && QFileInfo(out.compareWith).isRelative())
    out.compareWith = QFileInfo(path).absoluteDir().absoluteFilePath(out.compareWith);
  data = std::move(out);
  return true;
}

}  // namespace perwiz::gui
