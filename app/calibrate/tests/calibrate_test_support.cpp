// Helpers for perwiz-calibrate's tests (see calibrate_test_support.h).
#include "calibrate_test_support.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace perwiz::calibrate::test {

std::filesystem::path freshDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(PERWIZ_CALIBRATE_TEST_TMP) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

CommandResult runCommand(const std::string& command, const std::filesystem::path& dir) {
  CommandResult r;
  const std::filesystem::path out = dir / "command.out", err = dir / "command.err";
  r.command = command;
  const int raw = std::system((command + " >'" + out.string() + "' 2>'" + err.string() + "'").c_str());
  if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  r.out = readFile(out);
  r.err = readFile(err);
  return r;
}

LogGpsParams loadLogGps(const std::filesystem::path& path) {
  std::string error;
  const std::unique_ptr<NetworkModel> model = loadNetworkModel(path.string(), &error);
  if (!model) {
    ADD_FAILURE() << "the model file does not load: " << error;
    return {};
  }
  const auto* loggps = dynamic_cast<const LogGpsModel*>(model.get());
  if (!loggps) {
    ADD_FAILURE() << path << " loaded as " << model->kind() << ", not LogGPS";
    return {};
  }
  return loggps->params();
}

LogGpoParams loadLogGpo(const std::filesystem::path& path) {
  std::string error;
  const std::unique_ptr<NetworkModel> model = loadNetworkModel(path.string(), &error);
  if (!model) {
    ADD_FAILURE() << "the model file does not load: " << error;
    return {};
  }
  const auto* loggpo = dynamic_cast<const LogGpoModel*>(model.get());
  if (!loggpo) {
    ADD_FAILURE() << path << " loaded as " << model->kind() << ", not LogGPO";
    return {};
  }
  return loggpo->params();
}

std::string smpirunCommand(const std::string& smpirun, const std::filesystem::path& dir,
                           const std::string& platformXml, const std::string& hosts, int ranks,
                           const std::string& program, const std::vector<std::string>& cfg,
                           const std::string& args) {
  writeFile(dir / "platform.xml", platformXml);
  writeFile(dir / "hosts", hosts);
  // TMPDIR of the test's own: smpirun and SimGrid keep per-rank copies of the program there under
  // names that do not differ between runs, so tests side by side (ctest -j) would collide.
  std::string command = "TMPDIR='" + dir.string() + "' " + smpirun + " -np " + std::to_string(ranks) + " -platform '" +
                        (dir / "platform.xml").string() + "' -hostfile '" +
                        (dir / "hosts").string() + "' '" + program + "'";
  for (const std::string& c : cfg) command += " '--cfg=" + c + "'";
  return command + " --log=root.thres:warning " + args;
}

}  // namespace perwiz::calibrate::test
