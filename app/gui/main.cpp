// perwiz [TRACE | SESSION.perwiz] [--lang ja]
// perwiz --export-image OUT TRACE [--scenario FILE] [--view measured|predicted|overlay|lanes]
//        [--width PX] [--lane-height PX] [--no-header] [--force]
#include "app_paths.h"
#include "headless_export.h"
#include "i18n.h"
#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

#include <cstring>

namespace {

// --export-image runs without a window: use the offscreen platform unless one is chosen.
bool wantsHeadless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--export-image") == 0 || std::strncmp(argv[i], "--export-image=", 15) == 0) return true;
  return false;
}

// The options of the command line (the language's is read before, by hand, for the help).
void addOptions(QCommandLineParser& parser) {
  parser.setApplicationDescription(
      QCoreApplication::translate("main", "PerWiz: what-if performance prediction for MPI traces."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption langOpt(QStringLiteral("lang"),
                                   QCoreApplication::translate("main", "User interface language (en, ja)."),
                                   QStringLiteral("LANG"));
  const QCommandLineOption exportOpt(
      QStringLiteral("export-image"),
      QCoreApplication::translate("main", "Render TRACE to OUT (.png, .svg, .pdf) without a window and exit."),
      QStringLiteral("OUT"));
  const QCommandLineOption scenarioOpt(QStringLiteral("scenario"),
                                       QCoreApplication::translate("main", "Scenario file for --export-image."),
                                       QStringLiteral("FILE"));
  const QCommandLineOption viewOpt(
      QStringLiteral("view"),
      QCoreApplication::translate("main",
                                  "View for --export-image: measured, predicted, overlay or lanes "
                                  "(default: lanes with hypotheses, else measured)."),
      QStringLiteral("MODE"));
  const QCommandLineOption regionOpt(
      QStringLiteral("region"),
      QCoreApplication::translate("main",
                                  "--export-image: the state or region whose executions are the parallel steps."),
      QStringLiteral("NAME"));
  const QCommandLineOption fromOpt(
      QStringLiteral("from"),
      QCoreApplication::translate("main",
                                  "--export-image from this time (2.5s, 300ms, 12us, 800ns; a number is ns) "
                                  "or the enter of event RANK:INDEX."),
      QStringLiteral("TIME"));
  const QCommandLineOption toOpt(
      QStringLiteral("to"),
      QCoreApplication::translate("main", "--export-image up to this time or the leave of event RANK:INDEX."),
      QStringLiteral("TIME"));
  const QCommandLineOption rangeOpt(QStringLiteral("width"),
                                    QCoreApplication::translate("main", "Image width for --export-image (pixels)."),
                                    QStringLiteral("PIXELS"), QStringLiteral("1600"));
  const QCommandLineOption laneOpt(
      QStringLiteral("lane-height"),
      QCoreApplication::translate("main",
                                  "Height of a lane for --export-image (pixels, at least 14; a Lanes row has two)."),
      QStringLiteral("PIXELS"), QStringLiteral("24"));
  const QCommandLineOption noHeaderOpt(
      QStringLiteral("no-header"),
      QCoreApplication::translate("main",
                                  "--export-image without the title, hypotheses and run times above the timeline."));
  const QCommandLineOption forceOpt(QStringLiteral("force"),
                                    QCoreApplication::translate("main", "--export-image replaces OUT if it exists."));
  parser.addOptions(
      {langOpt, exportOpt, scenarioOpt, viewOpt, regionOpt, fromOpt, toOpt, rangeOpt, laneOpt, noHeaderOpt, forceOpt});
  parser.addPositionalArgument(
      QStringLiteral("TRACE"),
      QCoreApplication::translate("main", "ALOG or OTF2 trace, or a .perwiz session (default: the sample trace)."));
  parser.addPositionalArgument(
      QStringLiteral("SECOND"),
      QCoreApplication::translate("main",
                                  "a second run of the program (e.g. after the fix), compared with TRACE "
                                  "(File ▸ Compare With…)."),
      QStringLiteral("[SECOND]"));
}

// --export-image OUT TRACE: renders the trace without a window; returns the exit status.
int exportImage(const QCommandLineParser& parser, int argc, char** argv) {
  QTextStream err(stderr);
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1) {
    err << QCoreApplication::translate("main", "perwiz: --export-image OUT needs exactly one TRACE") << Qt::endl;
    return 2;
  }
  bool ok = false;
  const int width = parser.value(QStringLiteral("width")).toInt(&ok);
  if (!ok || width < 200 || width > 20000) {
    err << QCoreApplication::translate("main", "perwiz: --width must be between 200 and 20000") << Qt::endl;
    return 2;
  }
  const int lane = parser.value(QStringLiteral("lane-height")).toInt(&ok);
  if (!ok || lane < perwiz::ui::kMinExportLanePx || lane > 200) {
    err << QCoreApplication::translate("main", "perwiz: --lane-height must be between %1 and 200")
               .arg(perwiz::ui::kMinExportLanePx)
        << Qt::endl;
    return 2;
  }
  perwiz::gui::HeadlessExportArgs args;
  args.laneHeight = lane;
  args.header = !parser.isSet(QStringLiteral("no-header"));
  args.force = parser.isSet(QStringLiteral("force"));
  args.out = parser.value(QStringLiteral("export-image"));
  args.trace = positional.first();
  // The file name's own bytes (QString replaced those that are not UTF-8).
  for (int i = 1; i < argc; ++i)
    if (QString::fromLocal8Bit(argv[i]) == args.trace) {
      args.traceBytes = argv[i];
      break;
    }
  args.scenario = parser.value(QStringLiteral("scenario"));
  args.view = parser.value(QStringLiteral("view"));
  args.region = parser.value(QStringLiteral("region"));
  args.from = parser.value(QStringLiteral("from"));
  args.to = parser.value(QStringLiteral("to"));
  args.width = width;
  return perwiz::gui::runHeadlessExport(args);
}

}  // namespace

int main(int argc, char** argv) {
  const bool headless = wantsHeadless(argc, argv);
  if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");

  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("PerWiz"));
  QCoreApplication::setApplicationName(QStringLiteral("perwiz"));
  QCoreApplication::setApplicationVersion(QStringLiteral(PERWIZ_VERSION));
  QGuiApplication::setApplicationDisplayName(QStringLiteral("PerWiz"));
  QGuiApplication::setDesktopFileName(QStringLiteral("perwiz"));
  QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/perwiz.svg")));

  // The language comes first so that the help text is translated too.
  QString language;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--lang") == 0 && i + 1 < argc)
      language = QString::fromLocal8Bit(argv[i + 1]);
    else if (std::strncmp(argv[i], "--lang=", 7) == 0)
      language = QString::fromLocal8Bit(argv[i] + 7);
  }
  perwiz::gui::installTranslations(language);

  QCommandLineParser parser;
  addOptions(parser);
  QTextStream err(stderr);
  if (!parser.parse(QCoreApplication::arguments())) {
    err << "perwiz: " << parser.errorText() << Qt::endl;
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) {
    QTextStream(stdout) << parser.helpText();
    return 0;
  }
  if (parser.isSet(QStringLiteral("version"))) {
    QTextStream(stdout) << "perwiz " << QCoreApplication::applicationVersion() << Qt::endl;
    return 0;
  }
  const QStringList positional = parser.positionalArguments();

  if (parser.isSet(QStringLiteral("export-image"))) return exportImage(parser, argc, argv);
  for (const char* option : {"scenario", "view", "region", "from", "to", "width", "lane-height", "no-header", "force"})
    if (parser.isSet(QLatin1String(option))) {
      err << QCoreApplication::translate("main", "perwiz: --%1 needs --export-image").arg(QLatin1String(option))
          << Qt::endl;
      return 2;
    }
  if (positional.size() > 2) {
    err << QCoreApplication::translate("main", "perwiz: at most two traces (TRACE and a SECOND run to compare)")
        << Qt::endl;
    return 2;
  }

  perwiz::gui::MainWindow window;
  window.show();
  QString path = positional.isEmpty() ? perwiz::gui::sampleTracePath() : positional.first();
  if (positional.size() == 2) {  // the second run, compared once the first has loaded
    const QString second = positional[1];
    QObject::connect(
        &window, &perwiz::gui::MainWindow::traceLoaded, &window, [&window, second] { window.compareWith(second); },
        Qt::SingleShotConnection);
  }
  if (!path.isEmpty()) {
    if (path.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
      window.openSession(path);
    else
      window.openTrace(path);
  }
  return app.exec();
}
