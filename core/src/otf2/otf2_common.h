// Small pieces shared by the OTF2 reader and writer: silencing libotf2, turning its error
// codes into TraceError, clock arithmetic and archive file names.
#pragma once

#include "perwiz/trace.h"

#include <otf2/otf2.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace perwiz::otf2 {

// Installs (once per process) an error callback so that libotf2 never prints to stderr; the
// text of the last message on this thread is kept for takeLastMessage().
void silenceLibrary();
// Detail of the last libotf2 error raised on this thread ("" if none), then forgets it.
std::string takeLastMessage();

// Throws TraceError(file, "<what>: <description>[ (<detail>)]") if code is not OTF2_SUCCESS.
void check(OTF2_ErrorCode code, const std::string& file, const std::string& what);
[[noreturn]] void fail(OTF2_ErrorCode code, const std::string& file, const std::string& what);
// For the writer: an OS error behind the failure (the code itself, or the first one libotf2
// reported since takeLastMessage()) becomes "cannot write (No space left on device)"; else fail().
[[noreturn]] void failWrite(OTF2_ErrorCode code, const std::string& file, const std::string& what);
// libotf2 drops some failed writes (a short fwrite when a buffer is flushed at close) after
// reporting them to the error callback only: throws "cannot write (...)" if an OS error was
// reported on this thread since takeLastMessage(), though every call returned success.
void checkNoWriteErrorReported(const std::string& file);

// Ticks -> ns since globalOffset, exactly: (t - offset) * 1e9 / resolution in 128-bit signed
// integers (t may precede the offset: EZTrace). Floors, so the mapping stays monotonic.
// Returns nullopt if the result does not fit in TimeNs.
std::optional<TimeNs> ticksToNs(std::uint64_t ticks, std::uint64_t globalOffset,
                                std::uint64_t timerResolution);

// Archive layout: <dir>/<name>.otf2 (anchor), <dir>/<name>.def (global definitions),
// <dir>/<name>/<location>.evt|.def (per location).
struct ArchivePaths {
  std::filesystem::path dir;
  std::string name;
  std::filesystem::path anchor() const { return dir / (name + ".otf2"); }
  std::filesystem::path globalDefs() const { return dir / (name + ".def"); }
  std::filesystem::path locationDir() const { return dir / name; }
  std::filesystem::path locationFile(std::uint64_t location, const char* ext) const {
    return locationDir() / (std::to_string(location) + ext);
  }
};
ArchivePaths archivePathsOfAnchor(const std::filesystem::path& anchor);

// The bytes of `file`, read before libotf2 reads it (anchor and definition checks). Opened
// O_NONBLOCK and fstat'ed, so that a FIFO in its place never blocks; `what` names it in the
// TraceError(shown, ...) ("the OTF2 anchor file"); a file over `maxBytes` is refused with
// `tooLarge` appended to the message.
std::string readFileBeforeLibotf2(const std::string& shown, const std::string& file, const std::string& what,
                                  std::uint64_t maxBytes = UINT64_MAX, const std::string& tooLarge = {});

}  // namespace perwiz::otf2
