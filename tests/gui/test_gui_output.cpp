// The GUI's saves on a full disk (issue #15 item 4): session, network model, image export
// (SVG/PNG/PDF) and the headless --export-image. Each must report the file and the OS error and
// leave the previous file byte for byte. A full disk without root: RLIMIT_FSIZE lowered for this
// process with SIGXFSZ ignored (writes past it fail with EFBIG), raised back before checking.
#include "export_image.h"
#include "file_size_limit.h"
#include "network_model_dialog.h"
#include "session_file.h"

#include "perwiz/loggp_models.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include <QApplication>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace perwiz;

namespace {

using perwiz::test::FileSizeLimit;

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::path(PERWIZ_TEST_TMP) / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> listDir(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

const std::string kEfbig = std::string("cannot write (") + std::strerror(EFBIG) + ")";

gui::SessionData session(const QString& trace, int hypotheses) {
  gui::SessionData d;
  d.trace = trace;
  for (int i = 0; i < hypotheses; ++i)
    d.scenario.hypotheses.push_back({HypothesisKind::BalanceCompute, {}, static_cast<std::uint32_t>(i)});
  d.view.mode = ui::TimelineMode::Overlay;
  return d;
}

}  // namespace

TEST(GuiOutput, SessionSaveOnAFullDiskKeepsTheOldSession) {
  const fs::path dir = freshDir("GuiOutput_session");
  const QString path = QString::fromStdString((dir / "s.perwiz").string());
  QString error;
  ASSERT_TRUE(gui::saveSession(path, session(QStringLiteral(PERWIZ_SAMPLE), 1), &error)) << error.toStdString();
  const std::string before = readAll(path.toStdString());
  bool saved = true;
  {
    FileSizeLimit limit(16);  // the new session is larger: its write comes up short
    saved = gui::saveSession(path, session(QStringLiteral(PERWIZ_SAMPLE), 40), &error);
  }
  EXPECT_FALSE(saved);
  EXPECT_NE(error.toStdString().find(path.toStdString() + ": " + kEfbig), std::string::npos) << error.toStdString();
  EXPECT_EQ(readAll(path.toStdString()), before);
  gui::SessionData back;
  EXPECT_TRUE(gui::loadSession(path, back, &error)) << error.toStdString();
  EXPECT_EQ(back.scenario.hypotheses.size(), 1u);
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"s.perwiz"});
}

TEST(GuiOutput, NetworkModelSaveOnAFullDiskKeepsTheOldFile) {
  const fs::path dir = freshDir("GuiOutput_model");
  const QString path = QString::fromStdString((dir / "m.json").string());
  gui::NetworkModelDialog d(std::shared_ptr<const NetworkModel>(networkPreset("myrinet-score")), CostMode::Measured);
  QString error;
  ASSERT_TRUE(d.saveFile(path, &error)) << error.toStdString();
  const std::string before = readAll(path.toStdString());
  d.choosePreset(QStringLiteral("ethernet-table5"));
  bool saved = true;
  {
    FileSizeLimit limit(16);
    saved = d.saveFile(path, &error);
  }
  EXPECT_FALSE(saved);
  EXPECT_NE(error.toStdString().find(path.toStdString() + ": " + kEfbig), std::string::npos) << error.toStdString();
  EXPECT_EQ(readAll(path.toStdString()), before);
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"m.json"});
}

TEST(GuiOutput, ImageExportOnAFullDiskKeepsTheOldImage) {
  const fs::path dir = freshDir("GuiOutput_image");
  auto trace = std::make_shared<const Trace>(loadTrace(PERWIZ_SAMPLE));
  ui::TimelineView view;
  view.setTrace(trace);
  for (const char* name : {"t.svg", "t.png", "t.pdf"}) {
    const fs::path p = dir / name;
    const QString path = QString::fromStdString(p.string());
    { std::ofstream(p) << "the previous export\n"; }
    QString error;
    bool ok = true;
    {
      FileSizeLimit limit(64);
      ok = gui::exportTimelineImage(view, path, ui::TimelineExportOptions{}, true, &error);
    }
    EXPECT_FALSE(ok) << name;
    EXPECT_NE(error.toStdString().find(p.string() + ": " + kEfbig), std::string::npos) << error.toStdString();
    EXPECT_EQ(readAll(p), "the previous export\n") << name;
    // Without overwrite an existing file is refused; with room the export replaces it.
    EXPECT_FALSE(gui::exportTimelineImage(view, path, ui::TimelineExportOptions{}, false, &error));
    EXPECT_NE(error.toStdString().find("exists"), std::string::npos) << error.toStdString();
    ASSERT_TRUE(gui::exportTimelineImage(view, path, ui::TimelineExportOptions{}, true, &error)) << error.toStdString();
    EXPECT_GT(fs::file_size(p), 100u) << name;
  }
  EXPECT_EQ(listDir(dir), (std::vector<std::string>{"t.pdf", "t.png", "t.svg"}));
}

// `perwiz --export-image out.svg` on a full disk exited 0 with a truncated file.
TEST(GuiOutput, HeadlessExportOnAFullDiskFails) {
  const fs::path dir = freshDir("GuiOutput_headless");
  const fs::path out = dir / "out.svg";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{};
    ::getrlimit(RLIMIT_FSIZE, &lim);
    lim.rlim_cur = 256;
    ::setrlimit(RLIMIT_FSIZE, &lim);
    ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::execl(PERWIZ_GUI_BIN, PERWIZ_GUI_BIN, "--export-image", out.c_str(), PERWIZ_SAMPLE, nullptr);
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_NE(WEXITSTATUS(status), 0) << err;
  EXPECT_NE(err.find(out.string() + ": " + kEfbig), std::string::npos) << err;
  EXPECT_TRUE(listDir(dir).empty());
}

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
