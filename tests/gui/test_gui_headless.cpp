// GUI tests: The built perwiz binary's --export-image: images, warnings, file names.
#include "gui_test_support.h"

using namespace perwiz::gui_test;

class TestGuiHeadless : public QObject {
  Q_OBJECT

 private slots:
  // Issue #38 item 2: an image exported from a damaged file says so — the headless export
  // reports the load's warnings on stderr, and the image's header names their count.
  void headlessExportShowsLoadWarnings() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile whole(kSample);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QString cut = dir.filePath(QStringLiteral("cut.alog"));
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(whole.read(2000));
    out.close();
    auto trace = std::make_shared<const Trace>(loadTrace(cut.toStdString()));
    const int n = int(trace->warnings.size());
    QVERIFY(n >= 4);
    QString err;
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("c.png")), cut}, &err), 0);
    QVERIFY2(err.contains(QStringLiteral("%1: loaded with %2 warnings").arg(cut).arg(n)), qPrintable(err));
    QVERIFY2(err.contains(QString::fromStdString(trace->warnings[0].toString())), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("%1 more: the Warnings panel").arg(n - 3)), qPrintable(err));
    ui::TimelineExportOptions o;
    o.mode = ui::TimelineMode::Measured;
    gui::describeExport(o, cut, {}, trace->endTime, -1, trace.get());
    QVERIFY2(o.notes.contains(QStringLiteral("Loaded with %1 warning(s): the trace may be incomplete").arg(n)),
             qPrintable(o.notes.join('|')));
    // The whole file: no report, no such note.
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("w.png")), kSample}, &err), 0);
    QVERIFY2(!err.contains(QStringLiteral("loaded with")), qPrintable(err));
  }

  // Issue #38 item 7: a trace file name that is not UTF-8 ("no such file or directory" before:
  // QString replaced the byte). Run through the shell, since QProcess passes UTF-8 only.
  void headlessExportOfANonUtf8FileName() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string trace = dir.path().toStdString() + "/ring\xff.alog";
    std::filesystem::copy_file(kSample.toStdString(), trace);
    const std::string png = dir.path().toStdString() + "/out.png";
    const perwiz::test::CliResult r = perwiz::test::runProgram(
        PERWIZ_GUI_BIN, std::filesystem::path(dir.path().toStdString()), {"--export-image", png, trace});
    QVERIFY2(r.status == 0, r.err.c_str());
    QVERIFY(!QImage(QString::fromStdString(png)).isNull());
  }

  // Issue #40 item 7: a scenario implies a predicted view, a session is a TRACE, --region names
  // the parallel steps, --from/--to draw a range. Each checked against an export that spells the
  // same out (byte-identical images) and against one that differs.
  void headlessExportOptions() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto exportWith = [&](const QString& name, const QString& trace,
                          std::function<void(gui::HeadlessExportArgs&)> set) {
      gui::HeadlessExportArgs a;
      a.out = dir.filePath(name);
      a.trace = trace;
      a.width = 800;
      if (set) set(a);
      const int status = gui::runHeadlessExport(a);
      QFile f(a.out);
      return std::pair{status, f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray()};
    };
    auto trace = std::make_shared<const Trace>(loadTrace(kSample.toStdString()));
    const Call call = callWithLongestWait(*trace);
    Scenario scenario;
    scenario.hypotheses = {{HypothesisKind::ZeroWait, EventRef{call.rank, call.mpi, false}, 0}};
    const QString scenarioFile = dir.filePath(QStringLiteral("s.json"));
    auto writeScenario = [](const Scenario& sc, const QString& path) {
      QFile f(path);
      return f.open(QIODevice::WriteOnly) && f.write(QByteArray::fromStdString(sc.toJson())) > 0;
    };
    QVERIFY(writeScenario(scenario, scenarioFile));
    // --scenario alone draws the prediction in lanes, as --view lanes does; not the measured view.
    const auto implied =
        exportWith(QStringLiteral("implied.png"), kSample, [&](auto& a) { a.scenario = scenarioFile; });
    const auto lanes = exportWith(QStringLiteral("lanes.png"), kSample, [&](auto& a) {
      a.scenario = scenarioFile;
      a.view = QStringLiteral("lanes");
    });
    const auto measured = exportWith(QStringLiteral("measured.png"), kSample, [&](auto& a) {
      a.scenario = scenarioFile;
      a.view = QStringLiteral("measured");
    });
    QCOMPARE(implied.first, 0);
    QVERIFY(!implied.second.isEmpty());
    QCOMPARE(implied.second, lanes.second);
    QVERIFY(implied.second != measured.second);

    // A session: its trace, enabled hypotheses and view mode (a disabled one is left out).
    gui::SessionData session;
    session.trace = kSample;
    session.scenario = scenario;
    const Hypothesis disabled{HypothesisKind::ZeroEvent, EventRef{0, 0, false}, 0};
    session.scenario.hypotheses.push_back(disabled);
    session.scenario.normalize();
    session.disabled << QString::fromStdString(disabled.toString());
    session.view.mode = ui::TimelineMode::Overlay;
    const QString sessionFile = dir.filePath(QStringLiteral("s.perwiz"));
    QString error;
    QVERIFY2(gui::saveSession(sessionFile, session, &error), qPrintable(error));
    const auto fromSession = exportWith(QStringLiteral("session.png"), sessionFile, nullptr);
    const auto overlay = exportWith(QStringLiteral("overlay.png"), kSample, [&](auto& a) {
      a.scenario = scenarioFile;
      a.view = QStringLiteral("overlay");
    });
    QCOMPARE(fromSession.first, 0);
    QCOMPARE(fromSession.second, overlay.second);
    // Through the binary too (--help lists sessions as a TRACE).
    QString err;
    QCOMPARE(
        runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("bin.png")), sessionFile}, &err), 0);

    // --from/--to: times and events; the range drawn differs from the whole trace.
    QCOMPARE(gui::parseExportTime(QStringLiteral("1ms"), *trace, false, &error), std::optional<TimeNs>(1000000));
    QCOMPARE(gui::parseExportTime(QStringLiteral("2.5us"), *trace, false, &error), std::optional<TimeNs>(2500));
    QCOMPARE(gui::parseExportTime(QStringLiteral("750"), *trace, false, &error), std::optional<TimeNs>(750));
    const RankTrace& rt = trace->ranks[call.rank];
    const QString id = QStringLiteral("%1:%2").arg(call.rank).arg(call.mpi);
    QCOMPARE(gui::parseExportTime(id, *trace, false, &error), std::optional<TimeNs>(rt.enter[call.event]));
    QCOMPARE(gui::parseExportTime(id, *trace, true, &error), std::optional<TimeNs>(rt.leave[call.event]));
    QVERIFY(!gui::parseExportTime(QStringLiteral("soon"), *trace, false, &error));
    QVERIFY2(error.contains(QStringLiteral("RANK:INDEX")), qPrintable(error));
    QVERIFY(!gui::parseExportTime(QStringLiteral("99:0"), *trace, false, &error));
    QVERIFY2(error.contains(QStringLiteral("ranks")), qPrintable(error));
    QVERIFY(!gui::parseExportTime(QStringLiteral("100s"), *trace, false, &error));
    const auto whole = exportWith(QStringLiteral("whole.png"), kSample, nullptr);
    const auto part = exportWith(QStringLiteral("part.png"), kSample, [&](auto& a) {
      a.from = id;
      a.to = QString::number(trace->endTime / 2);
    });
    QCOMPARE(part.first, 0);
    QVERIFY(!part.second.isEmpty());
    QVERIFY(part.second != whole.second);
    QCOMPARE(exportWith(QStringLiteral("empty.png"), kSample,
                        [&](auto& a) {
                          a.from = QString::number(trace->endTime / 2);
                          a.to = QString::number(trace->endTime / 4);
                        })
                 .first,
             1);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("empty.png"))));

    // --region: a balance of a region's step, refused without it ("0 parallel steps").
    test::Tb b(2);
    for (int k = 0; k < 3; ++k) {
      const TimeNs t0 = 1000 + k * 10000;
      for (test::Rank r = 0; r < 2; ++r) {
        b.open(r, t0, "iter");
        if (r == 0)
          b.send(r, t0 + 5000 + 2000 * k, t0 + 5100 + 2000 * k, 1, 64);
        else
          b.recv(r, t0 + 4500, t0 + 7200 + 2000 * k, 0, 64);
        b.close(r, t0 + 9000, "iter");
      }
    }
    const QString regionTrace = dir.filePath(QStringLiteral("iter.otf2"));
    saveTrace(b.take(), regionTrace.toStdString());
    Scenario balance;
    balance.hypotheses = {{HypothesisKind::BalanceCompute, {}, 1}};
    const QString balanceFile = dir.filePath(QStringLiteral("b.json"));
    QVERIFY(writeScenario(balance, balanceFile));
    QCOMPARE(exportWith(QStringLiteral("noregion.png"), regionTrace, [&](auto& a) { a.scenario = balanceFile; }).first,
             1);
    QCOMPARE(exportWith(QStringLiteral("region.png"), regionTrace,
                        [&](auto& a) {
                          a.scenario = balanceFile;
                          a.region = QStringLiteral("iter");
                        })
                 .first,
             0);
    QCOMPARE(exportWith(QStringLiteral("badregion.png"), regionTrace,
                        [&](auto& a) {
                          a.scenario = balanceFile;
                          a.region = QStringLiteral("nosuch");
                        })
                 .first,
             1);
  }

  void headlessExport() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto run = [](const QStringList& args, QString* err = nullptr) { return runHeadless(args, err); };
    const QString png = dir.filePath(QStringLiteral("t.png"));
    const QString svg = dir.filePath(QStringLiteral("t.svg"));
    const QString pdf = dir.filePath(QStringLiteral("t.pdf"));
    QString err;
    QCOMPARE(run({QStringLiteral("--export-image"), png, kSample}, &err), 0);
    QCOMPARE(run({QStringLiteral("--export-image"), svg, kSample, QStringLiteral("--view"), QStringLiteral("overlay")}),
             0);
    QCOMPARE(
        run({QStringLiteral("--export-image"), pdf, kSample, QStringLiteral("--view"), QStringLiteral("predicted")}),
        0);

    // PNG: the size render() asks for, and something drawn on the white background.
    auto trace = std::make_shared<const Trace>(loadTrace(kSample.toStdString()));
    ui::TimelineView view;
    view.setTrace(trace);
    // Headed by the trace's name and its measured run time (describeExport), unless --no-header.
    ui::TimelineExportOptions headed;
    headed.mode = ui::TimelineMode::Measured;
    gui::describeExport(headed, kSample, {}, trace->endTime, -1);
    QCOMPARE(headed.title, QStringLiteral("ring4.alog"));
    QCOMPARE(headed.notes,
             QStringList{QStringLiteral("Measured run time %1").arg(gui::formatDuration(trace->endTime))});
    // A predicted view names the network model and cost mode of the prediction (issue #40).
    ui::TimelineExportOptions predicted;
    predicted.mode = ui::TimelineMode::Lanes;
    const QString network = gui::describeNetwork(nullptr, CostMode::Model);
    gui::describeExport(predicted, kSample, {}, trace->endTime, trace->endTime - 10, trace.get(), network);
    QVERIFY2(predicted.notes.contains(QStringLiteral("Network model: %1").arg(network)),
             qPrintable(predicted.notes.join('|')));
    const QSize wanted = view.exportSize(headed);
    const QSize plain = view.exportSize(ui::TimelineExportOptions{});
    QVERIFY(wanted.height() > plain.height());
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), wanted);
    const QRgb background = qRgb(255, 255, 255);
    int drawn = 0;
    for (int y = 0; y < image.height(); y += 2)
      for (int x = 0; x < image.width(); x += 2)
        if ((image.pixel(x, y) & 0xFFFFFF) != (background & 0xFFFFFF)) ++drawn;
    QVERIFY2(drawn > 100, "the PNG is blank");

    // SVG: well-formed XML with rectangles.
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svgFile);
    int rects = 0;
    while (!xml.atEnd())
      if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("rect")) ++rects;
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(rects > 0);

    // PDF.
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5) == "%PDF-");

    // With a scenario (the CLI's format); a scenario that does not fit is bad input.
    {
      Scenario sc;
      sc.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 0});
      const QString scenarioPath = dir.filePath(QStringLiteral("s.json"));
      QFile f(scenarioPath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(sc.toJson()));
      f.close();
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("o.png")), kSample,
                    QStringLiteral("--scenario"), scenarioPath, QStringLiteral("--view"), QStringLiteral("overlay")},
                   &err),
               0);
      // One more header line: the hypotheses, then measured → predicted.
      QCOMPARE(QImage(dir.filePath(QStringLiteral("o.png"))).width(), wanted.width());
      QVERIFY(QImage(dir.filePath(QStringLiteral("o.png"))).height() > wanted.height());
      // Lanes: two lanes of at least 14 px per rank.
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("l.png")), kSample,
                    QStringLiteral("--scenario"), scenarioPath, QStringLiteral("--view"), QStringLiteral("lanes"),
                    QStringLiteral("--lane-height"), QStringLiteral("14"), QStringLiteral("--no-header")},
                   &err),
               0);
      QVERIFY(QImage(dir.filePath(QStringLiteral("l.png"))).height() >=
              int(trace->rankCount()) * 2 * ui::kMinExportLanePx);
      sc.hypotheses = {Hypothesis{HypothesisKind::BalanceCompute, {}, 999}};
      const QString badPath = dir.filePath(QStringLiteral("bad.json"));
      QFile b(badPath);
      QVERIFY(b.open(QIODevice::WriteOnly));
      b.write(QByteArray::fromStdString(sc.toJson()));
      b.close();
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("b.png")), kSample,
                    QStringLiteral("--scenario"), badPath, QStringLiteral("--view"), QStringLiteral("overlay")},
                   &err),
               1);
      QVERIFY(err.contains(QStringLiteral("step 999")));
      QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("b.png"))));
    }

    // Never overwrites; bad input 1; bad usage 2.
    const QByteArray before = [&] {
      QFile f(png);
      f.open(QIODevice::ReadOnly);
      return f.readAll();
    }();
    QCOMPARE(run({QStringLiteral("--export-image"), png, kSample}, &err), 1);
    QVERIFY(err.contains(png));
    const QByteArray after = [&] {
      QFile f(png);
      f.open(QIODevice::ReadOnly);
      return f.readAll();
    }();
    QCOMPARE(after, before);
    QVERIFY(err.contains(QStringLiteral("--force")));
    // --force replaces it; --no-header leaves the title out.
    QCOMPARE(
        run({QStringLiteral("--export-image"), png, kSample, QStringLiteral("--force"), QStringLiteral("--no-header")},
            &err),
        0);
    QCOMPARE(QImage(png).size(), plain);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("w.png")), kSample,
                  QStringLiteral("--lane-height"), QStringLiteral("10")}),
             2);
    QCOMPARE(run({QStringLiteral("--force")}), 2);  // needs --export-image
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("x.png")),
                  QStringLiteral("/nonexistent.alog")},
                 &err),
             1);
    QVERIFY(err.contains(QStringLiteral("/nonexistent.alog")));
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("x.bmp")), kSample}), 2);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("y.png"))}), 2);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("z.png")), kSample,
                  QStringLiteral("--view"), QStringLiteral("sideways")}),
             2);
  }
};

namespace {
const RegisterTests<TestGuiHeadless> registered("headless");
}  // namespace

#include "test_gui_headless.moc"
