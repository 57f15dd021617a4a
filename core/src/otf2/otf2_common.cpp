#include "otf2_common.h"

#include <cstdint>

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <cerrno>
#include <utility>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace perwiz::otf2 {

namespace {

thread_local std::string lastMessage;
thread_local int firstOsError = 0;  // errno of the first POSIX-class error since the last take

// libotf2's POSIX-class codes back to errno values (its own numbering differs).
int errnoOf(OTF2_ErrorCode code) {
  static const std::pair<OTF2_ErrorCode, int> kCodes[] = {
      {OTF2_ERROR_E2BIG, E2BIG},
      {OTF2_ERROR_EACCES, EACCES},
      {OTF2_ERROR_EADDRNOTAVAIL, EADDRNOTAVAIL},
      {OTF2_ERROR_EAFNOSUPPORT, EAFNOSUPPORT},
      {OTF2_ERROR_EAGAIN, EAGAIN},
      {OTF2_ERROR_EALREADY, EALREADY},
      {OTF2_ERROR_EBADF, EBADF},
      {OTF2_ERROR_EBADMSG, EBADMSG},
      {OTF2_ERROR_EBUSY, EBUSY},
      {OTF2_ERROR_ECANCELED, ECANCELED},
      {OTF2_ERROR_ECHILD, ECHILD},
      {OTF2_ERROR_ECONNREFUSED, ECONNREFUSED},
      {OTF2_ERROR_ECONNRESET, ECONNRESET},
      {OTF2_ERROR_EDEADLK, EDEADLK},
      {OTF2_ERROR_EDESTADDRREQ, EDESTADDRREQ},
      {OTF2_ERROR_EDOM, EDOM},
      {OTF2_ERROR_EDQUOT, EDQUOT},
      {OTF2_ERROR_EEXIST, EEXIST},
      {OTF2_ERROR_EFAULT, EFAULT},
      {OTF2_ERROR_EFBIG, EFBIG},
      {OTF2_ERROR_EINPROGRESS, EINPROGRESS},
      {OTF2_ERROR_EINTR, EINTR},
      {OTF2_ERROR_EINVAL, EINVAL},
      {OTF2_ERROR_EIO, EIO},
      {OTF2_ERROR_EISCONN, EISCONN},
      {OTF2_ERROR_EISDIR, EISDIR},
      {OTF2_ERROR_ELOOP, ELOOP},
      {OTF2_ERROR_EMFILE, EMFILE},
      {OTF2_ERROR_EMLINK, EMLINK},
      {OTF2_ERROR_EMSGSIZE, EMSGSIZE},
      {OTF2_ERROR_EMULTIHOP, EMULTIHOP},
      {OTF2_ERROR_ENAMETOOLONG, ENAMETOOLONG},
      {OTF2_ERROR_ENETDOWN, ENETDOWN},
      {OTF2_ERROR_ENETRESET, ENETRESET},
      {OTF2_ERROR_ENETUNREACH, ENETUNREACH},
      {OTF2_ERROR_ENFILE, ENFILE},
      {OTF2_ERROR_ENOBUFS, ENOBUFS},
      {OTF2_ERROR_ENODATA, ENODATA},
      {OTF2_ERROR_ENODEV, ENODEV},
      {OTF2_ERROR_ENOENT, ENOENT},
      {OTF2_ERROR_ENOEXEC, ENOEXEC},
      {OTF2_ERROR_ENOLCK, ENOLCK},
      {OTF2_ERROR_ENOLINK, ENOLINK},
      {OTF2_ERROR_ENOMEM, ENOMEM},
      {OTF2_ERROR_ENOMSG, ENOMSG},
      {OTF2_ERROR_ENOPROTOOPT, ENOPROTOOPT},
      {OTF2_ERROR_ENOSPC, ENOSPC},
      {OTF2_ERROR_ENOSR, ENOSR},
      {OTF2_ERROR_ENOSTR, ENOSTR},
      {OTF2_ERROR_ENOSYS, ENOSYS},
      {OTF2_ERROR_ENOTCONN, ENOTCONN},
      {OTF2_ERROR_ENOTDIR, ENOTDIR},
      {OTF2_ERROR_ENOTEMPTY, ENOTEMPTY},
      {OTF2_ERROR_ENOTSOCK, ENOTSOCK},
      {OTF2_ERROR_ENOTSUP, ENOTSUP},
      {OTF2_ERROR_ENOTTY, ENOTTY},
      {OTF2_ERROR_ENXIO, ENXIO},
      {OTF2_ERROR_EOPNOTSUPP, EOPNOTSUPP},
      {OTF2_ERROR_EOVERFLOW, EOVERFLOW},
      {OTF2_ERROR_EPERM, EPERM},
      {OTF2_ERROR_EPIPE, EPIPE},
      {OTF2_ERROR_EPROTO, EPROTO},
      {OTF2_ERROR_EPROTONOSUPPORT, EPROTONOSUPPORT},
      {OTF2_ERROR_EPROTOTYPE, EPROTOTYPE},
      {OTF2_ERROR_ERANGE, ERANGE},
      {OTF2_ERROR_EROFS, EROFS},
      {OTF2_ERROR_ESPIPE, ESPIPE},
      {OTF2_ERROR_ESRCH, ESRCH},
      {OTF2_ERROR_ESTALE, ESTALE},
      {OTF2_ERROR_ETIME, ETIME},
      {OTF2_ERROR_ETIMEDOUT, ETIMEDOUT},
      {OTF2_ERROR_ETXTBSY, ETXTBSY},
      {OTF2_ERROR_EWOULDBLOCK, EWOULDBLOCK},
      {OTF2_ERROR_EXDEV, EXDEV},
  };
  for (const auto& [otf2Code, err] : kCodes)
    if (otf2Code == code) return err;
  return 0;
}

// libotf2 calls this instead of printing. It returns the code unchanged so the failing call
// still reports it; we turn it into a TraceError at the call site. The first OS error is kept:
// libotf2 reports a failed write()'s ENOSPC, then replaces it on the way up ("Buffer deletion
// failed!", OTF2_ERROR_INTEGRITY_FAULT).
OTF2_ErrorCode keepQuiet(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                         const char* format, va_list args) {
  if (firstOsError == 0) firstOsError = errnoOf(code);
  char buffer[512];
  buffer[0] = '\0';
  if (format) std::vsnprintf(buffer, sizeof buffer, format, args);
  lastMessage = buffer;
  return code;
}

}  // namespace

void silenceLibrary() {
  static std::once_flag once;
  std::call_once(once, [] { OTF2_Error_RegisterCallback(&keepQuiet, nullptr); });
}

std::string takeLastMessage() {
  std::string m;
  m.swap(lastMessage);
  firstOsError = 0;
  return m;
}

namespace {
// Argument errors are libotf2's or ours, not the disk's: those keep libotf2's own words.
bool isIoError(int err) {
  return err != 0 && err != EINVAL && err != EDOM && err != ERANGE && err != EOVERFLOW && err != EFAULT;
}
}  // namespace

void failWrite(OTF2_ErrorCode code, const std::string& file, const std::string& what) {
  int err = errnoOf(code);
  if (err == 0) err = firstOsError;
  if (isIoError(err)) {
    takeLastMessage();
    throw TraceError(file, cannotWrite(err));
  }
  fail(code, file, what);
}

void checkNoWriteErrorReported(const std::string& file) {
  const int err = firstOsError;
  if (isIoError(err)) {
    takeLastMessage();
    throw TraceError(file, cannotWrite(err));
  }
}

void fail(OTF2_ErrorCode code, const std::string& file, const std::string& what) {
  std::string problem = what + ": " + OTF2_Error_GetDescription(code);
  std::string detail = takeLastMessage();
  if (!detail.empty()) problem += " (" + detail + ")";
  throw TraceError(file, problem);
}

void check(OTF2_ErrorCode code, const std::string& file, const std::string& what) {
  if (code != OTF2_SUCCESS) fail(code, file, what);
}

std::optional<TimeNs> ticksToNs(std::uint64_t ticks, std::uint64_t globalOffset,
                                std::uint64_t timerResolution) {
  if (timerResolution == 0) return std::nullopt;
  // Offsets are ~7e15 ticks and resolutions up to ~4e9, so a double would lose the low
  // digits; 128-bit integers keep the result exact.
  __int128 delta = static_cast<__int128>(ticks) - static_cast<__int128>(globalOffset);
  __int128 num = delta * 1'000'000'000;
  __int128 den = static_cast<__int128>(timerResolution);
  __int128 q = num / den;
  if ((num % den) != 0 && num < 0) --q;  // floor, not truncation towards zero
  if (q > std::numeric_limits<TimeNs>::max() || q < std::numeric_limits<TimeNs>::min())
    return std::nullopt;
  return static_cast<TimeNs>(q);
}

ArchivePaths archivePathsOfAnchor(const std::filesystem::path& anchor) {
  ArchivePaths p;
  p.dir = anchor.parent_path();
  if (p.dir.empty()) p.dir = ".";
  p.name = anchor.stem().string();
  return p;
}

std::string readFileBeforeLibotf2(const std::string& shown, const std::string& file, const std::string& what,
                                  std::uint64_t maxBytes, const std::string& tooLarge) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw TraceError(shown, "cannot open " + what + " " + file + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw TraceError(shown, what + " " + file + " is not a regular file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    throw TraceError(shown, what + " " + file + " has " + std::to_string(st.st_size) + " bytes; " + tooLarge);
  }
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace perwiz::otf2
