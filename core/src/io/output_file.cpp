// Output files: temporary beside the target, checked writes, publication without replacing
// what others created, clean-up on failure, on signals and after a kill (see output_file.h).
#include "perwiz/output_file.h"

#include "perwiz/trace_io.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace perwiz {
namespace {

// ---- the signal-safe registry of temporaries in progress -----------------------------------

// A slot is free (0), being filled (1), holds a temporary in progress (2), or holds one being
// moved into place (3: the signal handler waits for it rather than pull it from under the
// move). gen changes with every new temporary, so the handler can tell a slot reused while it
// read the path.
struct Slot {
  std::atomic<int> state{0};
  std::atomic<unsigned> gen{0};
  char path[PATH_MAX];
};
constexpr int kSlots = 64;
Slot gSlots[kSlots];

constexpr int kFree = 0, kFilling = 1, kActive = 2, kPublishing = 3;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Removes a file or a directory tree with async-signal-safe calls only (no malloc, no stdio).
void removeTree(int dirFd, const char* name, int depth) noexcept {
  if (::unlinkat(dirFd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  if (depth > 8) return;
  int fd = ::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Removing entries while listing may make the listing skip some: list again until a pass
  // removes nothing.
  for (int pass = 0; pass < 16; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    alignas(8) char buf[4096];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t off = 0; off < n;) {
        auto* d = reinterpret_cast<struct dirent64*>(buf + off);
        off += d->d_reclen;
        const char* e = d->d_name;
        if (e[0] == '.' && (e[1] == '\0' || (e[1] == '.' && e[2] == '\0'))) continue;
        removeTree(fd, e, depth + 1);
        removed = true;
      }
    }
    if (!removed) break;
  }
  ::close(fd);
  ::unlinkat(dirFd, name, AT_REMOVEDIR);
}

void onSignal(int sig) {
  const int saved = errno;
  removePendingOutputs();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);  // delivered with the default action once this handler returns
}

// Only where the program keeps the default action: a program with its own handler (or one that
// ignores the signal, like nohup) keeps it, and may call removePendingOutputs() itself.
void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = &onSignal;
      sigemptyset(&sa.sa_mask);
      for (int other : kSignals) sigaddset(&sa.sa_mask, other);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

// -1 if the registry is full or the path too long: the temporary is then still removed on
// failure and by the next attempt after a kill, only not by the signal handler.
int registerTemp(const std::string& absolutePath) {
  installHandlers();
  if (absolutePath.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    gSlots[i].gen.fetch_add(1);
    std::memcpy(gSlots[i].path, absolutePath.c_str(), absolutePath.size() + 1);
    gSlots[i].state.store(kActive);
    return i;
  }
  return -1;
}

void unregisterTemp(int& slot) noexcept {
  if (slot >= 0) gSlots[slot].state.store(kFree);
  slot = -1;
}

// Marks a slot as being moved into place, with SIGINT/SIGTERM/SIGHUP blocked in this thread;
// a handler running on another thread waits until the move is done.
class PublishingGuard {
 public:
  explicit PublishingGuard(int slot) : slot_(slot) {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : kSignals) sigaddset(&block, sig);
    ::pthread_sigmask(SIG_BLOCK, &block, &old_);
    if (slot_ >= 0) gSlots[slot_].state.store(kPublishing);
  }
  ~PublishingGuard() {
    if (slot_ >= 0 && gSlots[slot_].state.load() == kPublishing) gSlots[slot_].state.store(kActive);
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  int slot_;
  sigset_t old_;
};

// ---- temporary names -----------------------------------------------------------------------

constexpr std::string_view kTempSuffix = ".perwiz-tmp";

const std::string& hostName() {
  static const std::string host = [] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return std::string("localhost");
    std::string h(buf);
    for (char& c : h)
      if (c == '/') c = '_';
    return h;
  }();
  return host;
}

// ".<name>." — names are cut so that the temporary's name stays within NAME_MAX.
std::string tempPrefix(const std::string& name) { return "." + name.substr(0, 120) + "."; }

std::string tempName(const std::string& name, unsigned n) {
  return tempPrefix(name) + hostName() + "-" + std::to_string(::getpid()) + "-" + std::to_string(n) +
         std::string(kTempSuffix);
}

std::atomic<unsigned> gCounter{0};

bool processIsGone(long pid) {
  if (pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Temporaries for `name` in `dir` that processes of this host left when they were killed
// (SIGKILL, power cut): removed, so they neither pile up nor confuse anyone. Another host's
// (a shared file system) or a live process's are left alone, as are other users'.
void removeStaleTemps(const fs::path& dir, const std::string& name) {
  const std::string prefix = tempPrefix(name);
  const std::string hostPart = hostName() + "-";
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string e = it->path().filename().string();
    if (!e.starts_with(prefix) || !e.ends_with(kTempSuffix)) continue;
    std::string rest = e.substr(prefix.size(), e.size() - prefix.size() - kTempSuffix.size());
    if (!rest.starts_with(hostPart)) continue;
    rest = rest.substr(hostPart.size());  // "<pid>-<n>"
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    char* stop = nullptr;
    const long pid = std::strtol(rest.c_str(), &stop, 10);
    if (stop != rest.c_str() + dash) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    if (!processIsGone(pid)) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

fs::path parentOf(const fs::path& p) {
  fs::path dir = p.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

void requireDirectory(const fs::path& dir, const std::string& shown) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw TraceError(shown, "cannot write: directory '" + dir.string() + "' does not exist");
}

std::string absolutePath(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return ec ? p.string() : a.string();
}

// rename(from, to) that fails with EEXIST instead of replacing `to`; 0 or an errno.
int moveNoReplace(const std::string& from, const std::string& to, bool directory) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  int err = errno;
  if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP && err != ENOTSUP) return err;
  // A file system without RENAME_NOREPLACE: link() refuses to replace too.
  if (!directory) {
    if (::link(from.c_str(), to.c_str()) == 0) {
      ::unlink(from.c_str());
      return 0;
    }
    if (errno == EEXIST) return EEXIST;
  }
  // Neither: check, then rename (a tiny window, but never half a file).
  struct stat st {};
  if (::lstat(to.c_str(), &st) == 0) return EEXIST;
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

// The files under a finished temporary directory on disk before their names go public (what
// OutputFile::commit does for one file): 0 or the first errno.
int syncTree(const std::string& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int err = 0;
    if (::fdatasync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
    ::close(fd);
    if (err != 0) return err;
  }
  return ec ? ec.value() : 0;
}

}  // namespace

// ---- public helpers ------------------------------------------------------------------------

std::string cannotWrite(int err) { return std::string("cannot write (") + std::strerror(err) + ")"; }

std::string firstExisting(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) return p;
  }
  return {};
}

void refuseExisting(const std::vector<std::string>& paths, const std::string& shown) {
  const std::string found = firstExisting(paths);
  if (found.empty()) return;
  throw TraceError(found, "already exists; not overwriting" +
                              (found == shown ? std::string() : " (writing " + shown + ")"));
}

void removePendingOutputs() noexcept {
  const int saved = errno;
  for (Slot& s : gSlots) {
    // A temporary being moved into place: its thread has these signals blocked and finishes
    // within microseconds; wait for it (bounded) rather than remove half-moved entries.
    for (int i = 0; i < 2000 && s.state.load() == kPublishing; ++i) {
      struct timespec ms = {0, 1'000'000};
      ::nanosleep(&ms, nullptr);
    }
    const unsigned gen = s.gen.load();
    if (s.state.load() != kActive) continue;
    char path[PATH_MAX];
    std::memcpy(path, s.path, sizeof path);
    path[PATH_MAX - 1] = '\0';
    if (s.state.load() != kActive || s.gen.load() != gen) continue;
    removeTree(AT_FDCWD, path, 0);
  }
  errno = saved;
}

// ---- OutputFile ----------------------------------------------------------------------------

OutputFile::OutputFile(std::string path, ExistingOutput existing)
    : path_(std::move(path)), target_(path_), existing_(existing) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path_, ec);
  if (existing_ == ExistingOutput::Refuse) {
    if (fs::exists(link)) throw TraceError(path_, "already exists; not overwriting");
  } else if (fs::is_symlink(link)) {
    // Replacing through a symlink replaces the file it points to, not the link.
    fs::path resolved = fs::weakly_canonical(path_, ec);
    if (!ec) target_ = resolved.string();
  }
  struct stat old {};
  const bool replacing = existing_ == ExistingOutput::Replace && ::stat(target_.c_str(), &old) == 0;
  if (replacing && S_ISDIR(old.st_mode)) throw TraceError(path_, "is a directory");
  const fs::path dir = parentOf(target_);
  requireDirectory(dir, path_);
  const std::string name = fs::path(target_).filename().string();
  removeStaleTemps(dir, name);

  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temp = absolutePath(dir / tempName(name, gCounter++));
    slot_ = registerTemp(temp);  // before it exists: a signal right after open() finds it
    // Not mkstemp: its 0600 mode would survive the rename, whereas 0666 gives what the umask asks.
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      temp_ = temp;
      if (replacing) ::fchmod(fd_, old.st_mode & 07777);  // keep the old file's permissions
      return;
    }
    const int err = errno;
    unregisterTemp(slot_);
    if (err != EEXIST) throw TraceError(path_, cannotWrite(err));
  }
  throw TraceError(path_, "cannot create a temporary file in '" + dir.string() + "'");
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  unregisterTemp(slot_);
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) throw TraceError(path_, "write after commit");
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      discard();
      throw TraceError(path_, cannotWrite(err));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::commit() {
  if (fd_ < 0) throw TraceError(path_, "commit without a file");
  // The data on disk before the name: a later I/O error (NFS, a full thin-provisioned disk)
  // shows here, and a crash after the rename never leaves an empty file under the final name.
  int err = 0;
  if (::fdatasync(fd_) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (::close(std::exchange(fd_, -1)) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err != 0) {
    discard();
    throw TraceError(path_, cannotWrite(err));
  }
  if (existing_ == ExistingOutput::Replace) {
    if (::rename(temp_.c_str(), target_.c_str()) != 0) err = errno;
  } else {
    err = moveNoReplace(temp_, target_, false);
  }
  if (err != 0) {
    discard();
    if (err == EEXIST)
      throw TraceError(path_, "already exists (created by another program while this one was "
                              "writing); not overwriting");
    throw TraceError(path_, cannotWrite(err));
  }
  temp_.clear();
  unregisterTemp(slot_);
}

void writeOutputFile(const std::string& path, std::string_view content, ExistingOutput existing) {
  OutputFile f(path, existing);
  f.write(content);
  f.commit();
}

// ---- OutputDirectory -----------------------------------------------------------------------

OutputDirectory OutputDirectory::entries(std::string dir, std::vector<std::string> names,
                                         std::string shown) {
  OutputDirectory d;
  d.dir_ = parentOf(fs::path(dir) / "x").string();
  d.names_ = std::move(names);
  d.shown_ = std::move(shown);
  requireDirectory(d.dir_, d.shown_);
  std::vector<std::string> finals;
  for (const std::string& n : d.names_) finals.push_back((fs::path(d.dir_) / n).string());
  refuseExisting(finals, d.shown_);
  d.create();
  return d;
}

OutputDirectory OutputDirectory::whole(std::string path) {
  OutputDirectory d;
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "out/" names "out"
  d.dir_ = parentOf(p).string();
  d.names_ = {p.filename().string()};
  d.shown_ = std::move(path);
  d.whole_ = true;
  requireDirectory(d.dir_, d.shown_);
  refuseExisting({p.string()}, d.shown_);
  d.create();
  return d;
}

void OutputDirectory::create() {
  const std::string& key = names_.back();
  removeStaleTemps(dir_, key);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temp = absolutePath(fs::path(dir_) / tempName(key, gCounter++));
    slot_ = registerTemp(temp);
    if (::mkdir(temp.c_str(), 0777) == 0) {
      temp_ = temp;
      return;
    }
    const int err = errno;
    unregisterTemp(slot_);
    if (err != EEXIST) throw TraceError(shown_, cannotWrite(err));
  }
  throw TraceError(shown_, "cannot create a temporary directory in '" + dir_ + "'");
}

OutputDirectory::OutputDirectory(OutputDirectory&& o) noexcept
    : dir_(std::move(o.dir_)),
      names_(std::move(o.names_)),
      shown_(std::move(o.shown_)),
      whole_(o.whole_),
      temp_(std::exchange(o.temp_, {})),
      slot_(std::exchange(o.slot_, -1)) {}

OutputDirectory::~OutputDirectory() { discard(); }

void OutputDirectory::discard() noexcept {
  if (!temp_.empty()) removeTree(AT_FDCWD, temp_.c_str(), 0);
  temp_.clear();
  unregisterTemp(slot_);
}

void OutputDirectory::commit() {
  if (temp_.empty()) throw TraceError(shown_, "commit without a directory");
  std::string conflict;
  int err = syncTree(temp_);
  if (err != 0) {
    discard();
    throw TraceError(shown_, cannotWrite(err));
  }
  {
    PublishingGuard guard(slot_);
    if (whole_) {
      const std::string final = (fs::path(dir_) / names_.front()).string();
      err = moveNoReplace(temp_, final, true);
      if (err == 0) {
        temp_.clear();
        unregisterTemp(slot_);
        return;
      }
      if (err == EEXIST) conflict = final;
    } else {
      // The entry readers open comes last: until then the archive is not there to be read.
      std::size_t moved = 0;
      for (; moved < names_.size(); ++moved) {
        const std::string from = (fs::path(temp_) / names_[moved]).string();
        const std::string to = (fs::path(dir_) / names_[moved]).string();
        struct stat st {};
        if (::lstat(from.c_str(), &st) != 0) continue;  // the writer did not make this one
        err = moveNoReplace(from, to, S_ISDIR(st.st_mode));
        if (err != 0) {
          if (err == EEXIST) conflict = to;
          break;
        }
      }
      if (err == 0) {
        removeTree(AT_FDCWD, temp_.c_str(), 0);  // empty, unless the writer made more than names_
        temp_.clear();
        unregisterTemp(slot_);
        return;
      }
      // Put back what was moved (ours: we just moved it), so nothing half is left.
      while (moved-- > 0) {
        const std::string from = (fs::path(temp_) / names_[moved]).string();
        const std::string to = (fs::path(dir_) / names_[moved]).string();
        ::rename(to.c_str(), from.c_str());
      }
    }
  }
  discard();
  if (!conflict.empty())
    throw TraceError(conflict, "already exists (created by another program while this one was "
                               "writing " + shown_ + "); not overwriting");
  throw TraceError(shown_, cannotWrite(err));
}

}  // namespace perwiz
