// The OTF2 anchor of a path given by the user: the file itself, or the single *.otf2 file in a
// directory. Lives in the OTF2 module because the reader needs it and links before trace_io.
#include "perwiz/trace_io.h"

#include <filesystem>
#include <vector>

namespace fs = std::filesystem;

namespace perwiz {

std::string resolveOtf2Anchor(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw TraceError(path, "no such file or directory");
  if (!fs::is_directory(st)) {
    if (!fs::is_regular_file(st)) throw TraceError(path, "not a regular file");
    return path;
  }
  std::vector<fs::path> anchors;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".otf2" && e.is_regular_file(ec)) anchors.push_back(e.path());
  if (ec) throw TraceError(path, "cannot list the directory: " + ec.message());
  if (anchors.empty()) throw TraceError(path, "directory holds no OTF2 anchor file (*.otf2)");
  if (anchors.size() > 1)
    throw TraceError(path, "directory holds " + std::to_string(anchors.size()) +
                               " OTF2 anchor files; name one of them");
  return anchors.front().string();
}

}  // namespace perwiz
