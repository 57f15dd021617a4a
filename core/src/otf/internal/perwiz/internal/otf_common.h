// OTF (version 1) archives: shared helpers of the reader and the writer (internal).
//
// An OTF trace is a set of files beside its anchor X.otf: the master control file X.otf maps
// event streams to processes (lines "stream:process[,process...]", hexadecimal), X.0.def[.z]
// holds the definitions, X.<stream>.events[.z] one stream of events each, X.0.marker[.z] the
// markers. Everything is read and written through the reference library (libotf 1.12).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perwiz::otf {

// "dir/X.otf" -> "dir/X" (the library's name stub); anything else unchanged.
std::string nameStub(const std::string& path);
// True when `file` is an OTF master control file: every non-blank line of its start is
// "hex:hex[,hex...]", at least one line, and the definition file of the same stub exists.
// requireDefinitions = false: the content alone (a master control file whose X.0.def is
// missing is still named as an OTF archive, so the reader can say which file is missing).
bool looksLikeAnchor(const std::string& file, bool requireDefinitions = true);
// One line of the master control file: a stream and the processes it holds.
struct StreamEntry {
  std::uint32_t stream = 0;
  std::vector<std::uint32_t> processes;
};
// The master control file's lines in file order; nothing if a non-blank line is not
// "hex:hex[,hex...]" with 32-bit numbers (its 1-based number goes to *badLine).
std::optional<std::vector<StreamEntry>> readMasterControl(const std::string& anchor,
                                                          std::size_t* badLine = nullptr);
// A stream's event file X.<hex>.events, or X.<hex>.events.z when that one exists.
struct StreamFile {
  std::string path;
  bool compressed = false;
  bool exists = false;
  std::uint64_t bytes = 0;
};
StreamFile eventsFile(const std::string& stub, std::uint32_t stream);
// X.<hex>.events (the name only; what writers create).
std::string eventsFileName(const std::string& stub, std::uint32_t stream);
// Bytes of the archive's event, definition and marker files (for the memory estimate).
std::uint64_t archiveBytes(const std::string& anchor, bool* compressed = nullptr);

}  // namespace perwiz::otf
