// Safe output files for perwiz-calibrate (see output_file.h).
#include "output_file.h"

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace perwiz::calibrate {
namespace fs = std::filesystem;

namespace {

fs::path parentOf(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
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
  // core's output files: written in a temporary beside `path`, every write and the flush
  // checked, published only when complete (never over a file that appeared meanwhile unless
  // `force`), temporaries removed on failure and on SIGINT/SIGTERM (docs/output-files.md).
  try {
    perwiz::writeOutputFile(path, text + "\n", force ? ExistingOutput::Replace : ExistingOutput::Refuse);
  } catch (const TraceError& e) {
    throw OutputError(e.what());
  }
}

int publishModel(const CalibrateOptions& o, const std::string& model,
                 const std::function<std::string(const CalibrateOptions& shown)>& summarise,
                 const std::vector<std::string>& degenerate) {
  int status = kExitOk;
  const bool refuse = !degenerate.empty() && !o.allowDegenerate;
  if (refuse) {
    std::string why = "perwiz-calibrate: the measured parameters do not describe this network";
    why += o.output.empty() ? ":\n" : " (" + o.output + " not written):\n";
    for (const std::string& d : degenerate) why += "  " + d + "\n";
    why += "Check that ranks 0 and 1 sit where intended and the machine is quiet, or write the model anyway with "
           "--allow-degenerate.\n";
    std::fputs(why.c_str(), stderr);
    status = kExitFailure;
  } else if (!o.output.empty()) {
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
