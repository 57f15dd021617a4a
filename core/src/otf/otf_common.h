// OTF (version 1) archives: shared helpers of the reader and the writer (internal).
//
// An OTF trace is a set of files beside its anchor X.otf: the master control file X.otf maps
// event streams to processes (lines "stream:process[,process...]", hexadecimal), X.0.def[.z]
// holds the definitions, X.<stream>.events[.z] one stream of events each, X.0.marker[.z] the
// markers. Everything is read and written through the reference library (libotf 1.12).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::otf {

// "dir/X.otf" -> "dir/X" (the library's name stub); anything else unchanged.
std::string nameStub(const std::string& path);
// True when `file` is an OTF master control file: every non-blank line of its start is
// "hex:hex[,hex...]", at least one line, and the definition file of the same stub exists.
bool looksLikeAnchor(const std::string& file);
// Streams named by the master control file, in file order (empty if unreadable).
std::vector<std::uint32_t> streamsOf(const std::string& anchor);
// Bytes of the archive's event, definition and marker files (for the memory estimate).
std::uint64_t archiveBytes(const std::string& anchor, bool* compressed = nullptr);

}  // namespace perwiz::otf
