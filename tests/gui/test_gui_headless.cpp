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
