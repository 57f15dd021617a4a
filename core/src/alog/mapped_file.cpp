#include "mapped_file.h"

#include "perwiz/trace_io.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perwiz::alog {

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    throw TraceError(path, err == ENOENT ? std::string("no such file")
                                         : std::string("cannot open: ") + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw TraceError(path, std::string("cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw TraceError(path, "is a directory, not an ALOG file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw TraceError(path, "not a regular file");
  }
  if (st.st_size == 0) {
    ::close(fd);
    throw TraceError(path, "empty file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  ::close(fd);  // the mapping keeps the file alive
  if (p == MAP_FAILED) throw TraceError(path, std::string("cannot map: ") + std::strerror(err));
  ::madvise(p, size_, MADV_SEQUENTIAL);
  data_ = static_cast<const char*>(p);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace perwiz::alog
