// Byte buffers between the processes of perwiz-mpi: fixed-width little-endian-as-in-memory
// fields (every process runs the same binary on the same kind of machine), read back with
// bounds checks so that a short or corrupt buffer is an error, not a read past its end.
#pragma once

#include "perwiz/trace.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace perwiz::wire {

class Writer {
 public:
  void u8(std::uint8_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void i32(std::int32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void i64(std::int64_t v) { put(v); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    buf_.append(s.data(), s.size());
  }
  void append(const Writer& o) { buf_ += o.buf_; }
  std::size_t size() const { return buf_.size(); }
  std::string take() { return std::move(buf_); }
  std::string& bytes() { return buf_; }

 private:
  template <class T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    buf_.append(b, sizeof(T));
  }
  std::string buf_;
};

class Reader {
 public:
  Reader(std::string_view data, const char* what) : data_(data), what_(what) {}
  std::uint8_t u8() { return get<std::uint8_t>(); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  std::int32_t i32() { return get<std::int32_t>(); }
  std::uint64_t u64() { return get<std::uint64_t>(); }
  std::int64_t i64() { return get<std::int64_t>(); }
  std::string str() {
    const std::uint32_t n = u32();
    need(n);
    std::string s(data_.substr(at_, n));
    at_ += n;
    return s;
  }
  bool done() const { return at_ == data_.size(); }
  std::size_t remaining() const { return data_.size() - at_; }
  void finish() const {
    if (!done()) throw std::runtime_error(std::string(what_) + ": " + std::to_string(remaining()) + " bytes left over");
  }

 private:
  void need(std::size_t n) const {
    if (data_.size() - at_ < n) throw std::runtime_error(std::string(what_) + ": buffer ends early");
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string_view data_;
  std::size_t at_ = 0;
  const char* what_;
};

// A function's name, kind, operation and colour (what two processes compare or agree on).
inline void putFunction(Writer& w, const Function& f) {
  w.str(f.name);
  w.u8(static_cast<std::uint8_t>(f.kind));
  w.u32(static_cast<std::uint32_t>(f.op));
  w.str(f.color);
}
inline Function getFunction(Reader& r) {
  Function f;
  f.name = r.str();
  f.kind = static_cast<EventKind>(r.u8());
  f.op = static_cast<MpiOp>(r.u32());
  f.color = r.str();
  return f;
}

}  // namespace perwiz::wire
