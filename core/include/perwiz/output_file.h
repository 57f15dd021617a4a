// How every output file of PerWiz is written (traces, sessions, scenarios, network models,
// images): under a temporary name beside its final path, every write and the final flush
// checked, then published by a rename that never replaces what someone else created (unless the
// caller asks to replace, e.g. Save Session over the user's old file). So:
//  - a failure (full disk, quota, EFBIG, I/O error) throws TraceError naming the file and the OS
//    error, removes the temporary and leaves the final path as it was (absent, or the old file);
//  - a writer never removes a file it did not create (a file that appears at the final path
//    while we write is kept byte for byte: we refuse instead);
//  - SIGINT, SIGTERM and SIGHUP remove the temporaries in progress (a signal-safe registry,
//    cleaned by a handler that then re-raises the signal; installed on first use, only where the
//    program keeps the default action);
//  - after a SIGKILL, the next write of the same path removes the temporaries that dead
//    processes of this host left for it, so nothing blocks or confuses the next attempt.
// Temporaries are named ".<name>.<host>-<pid>-<n>.perwiz-tmp" in the final path's directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perwiz {

enum class ExistingOutput {
  Refuse,   // the final path must not exist, before or at publication
  Replace,  // an existing regular file is replaced atomically (its permissions are kept)
};

// One regular file. Throws TraceError(path, problem) on every failure.
class OutputFile {
 public:
  explicit OutputFile(std::string path, ExistingOutput existing = ExistingOutput::Refuse);
  ~OutputFile();  // not committed: the temporary goes, the final path is untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  // All of `bytes`, or TraceError "cannot write (No space left on device)".
  void write(std::string_view bytes);
  // Flushes to disk, closes and publishes; afterwards the file is at path().
  void commit();

 private:
  void discard() noexcept;

  std::string path_;    // as given (for messages)
  std::string target_;  // where it is published (a symlink's target when replacing)
  std::string temp_;
  ExistingOutput existing_;
  int fd_ = -1;
  int slot_ = -1;
};

// The whole content at once.
void writeOutputFile(const std::string& path, std::string_view content,
                     ExistingOutput existing = ExistingOutput::Refuse);

// Several entries written together (an OTF2 archive: X.otf2, X.def and X/), built in a temporary
// directory; commit flushes its files to disk (errors: "cannot write (...)") and moves the
// entries into place, the last entry (the one readers open) last, none replacing an existing
// one. Never half-way: on a conflict the entries already moved go back and the temporary is
// removed.
class OutputDirectory {
 public:
  // `entries` (names, no '/') to create inside the existing directory `dir`; messages name
  // `shown` (the path the user gave).
  static OutputDirectory entries(std::string dir, std::vector<std::string> names,
                                 std::string shown);
  // `path` itself, a directory that must not exist; its content is written into workDir().
  static OutputDirectory whole(std::string path);

  OutputDirectory(OutputDirectory&&) noexcept;
  OutputDirectory& operator=(OutputDirectory&&) = delete;
  OutputDirectory(const OutputDirectory&) = delete;
  ~OutputDirectory();  // not committed: the temporary directory and all in it go

  // Where to write: the entries go directly in it (whole(): it becomes `path`).
  const std::string& workDir() const { return temp_; }
  const std::string& shown() const { return shown_; }
  void commit();

 private:
  OutputDirectory() = default;
  void create();
  void discard() noexcept;

  std::string dir_;                 // final parent directory
  std::vector<std::string> names_;  // entries (whole(): the directory's own name)
  std::string shown_;
  bool whole_ = false;
  std::string temp_;
  int slot_ = -1;
};

// The first of `paths` that exists (as anything, a dangling symlink included), "" if none.
std::string firstExisting(const std::vector<std::string>& paths);

// Throws TraceError(existing, "already exists; not overwriting[ (writing <shown>)]") if one of
// `paths` exists: the message names the file that is actually there.
void refuseExisting(const std::vector<std::string>& paths, const std::string& shown);

// "No space left on device" etc. for a failed write of `path`: "cannot write (<strerror>)".
std::string cannotWrite(int err);

// Removes every temporary in progress. Async-signal-safe: for programs that install their own
// SIGINT/SIGTERM handlers (the default handlers call it, then re-raise).
void removePendingOutputs() noexcept;

}  // namespace perwiz
