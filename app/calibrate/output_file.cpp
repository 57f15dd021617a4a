// Safe output files for perwiz-calibrate (see output_file.h).
#include "output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace perwiz::calibrate {
namespace fs = std::filesystem;

namespace {

fs::path parentOf(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Writes all of `text` to a new file; `mode` "wx" refuses an existing one.
void writeNew(const std::string& path, const std::string& text, const char* mode,
              const std::string& shownPath) {
  std::FILE* f = std::fopen(path.c_str(), mode);
  if (!f) {
    const int err = errno;
    if (err == EEXIST) throw OutputError(shownPath + ": file exists; use --force to overwrite it");
    throw OutputError(shownPath + ": cannot create the model file: " + std::strerror(err));
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::error_code ec;
    fs::remove(path, ec);
    throw OutputError(shownPath + ": cannot write the model file: " + std::strerror(err));
  }
}

}  // namespace

void checkOutputPath(const std::string& path, bool force) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(fs::status(path, ec)))
      throw OutputError(path + ": is a directory, not a model file");
    if (!force) throw OutputError(path + ": file exists; use --force to overwrite it");
  }
  const fs::path parent = parentOf(path);
  if (!fs::is_directory(parent, ec))
    throw OutputError(path + ": directory " + parent.string() + " does not exist");
  if (::access(parent.c_str(), W_OK) != 0)
    throw OutputError(path + ": directory " + parent.string() + " is not writable");
}

void writeOutputFile(const std::string& path, const std::string& text, bool force) {
  const std::string content = text + "\n";
  if (!force) {
    writeNew(path, content, "wx", path);
    return;
  }
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  writeNew(temporary, content, "wx", path);
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw OutputError(path + ": cannot replace the model file: " + ec.message());
  }
}

int publishModel(const CalibrateOptions& o, const std::string& model,
                 const std::function<std::string(const CalibrateOptions& shown)>& summarise) {
  int status = kExitOk;
  if (!o.output.empty()) {
    try {
      writeOutputFile(o.output, model, o.force);
    } catch (const OutputError& e) {
      std::fprintf(stderr, "perwiz-calibrate: %s\n", e.what());
      status = kExitFailure;
    }
  }
  CalibrateOptions shown = o;
  if (status != kExitOk) shown.output.clear();  // nothing was written
  std::fputs(summarise(shown).c_str(), stdout);
  std::fflush(stdout);
  return status;
}

}  // namespace perwiz::calibrate
