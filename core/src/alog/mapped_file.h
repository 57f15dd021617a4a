// A whole input file, read-only in memory (mmap), so the reader can walk it twice without
// copying. Throws TraceError for anything that is not a readable, non-empty regular file
// (directories, FIFOs and devices would otherwise hang or mislead the reader).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace perwiz::alog {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace perwiz::alog
