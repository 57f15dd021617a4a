#include "test_support.h"

#include <algorithm>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace perwiz::test {

fs::path freshDir(const std::string& name) {
  // CTest runs test cases as parallel processes; a per-process directory keeps them apart.
  fs::path p = fs::path(PERWIZ_TEST_TMP) / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

fs::path writeFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

fs::path sharedTraces() {
  fs::path p(PERWIZ_SHARED_TRACES);
  std::error_code ec;
  return fs::is_directory(p, ec) ? fs::canonical(p) : fs::path();
}

std::vector<fs::path> sharedAlogFiles() {
  std::vector<fs::path> out;
  fs::path root = sharedTraces();
  if (root.empty() || !fs::is_directory(root / "alog")) return out;
  for (const auto& e : fs::directory_iterator(root / "alog"))
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> sharedOtf2Archives() {
  std::vector<fs::path> out;
  fs::path root = sharedTraces();
  if (root.empty() || !fs::is_directory(root / "otf2")) return out;
  for (const auto& e : fs::directory_iterator(root / "otf2"))
    if (e.is_directory()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace perwiz::test
