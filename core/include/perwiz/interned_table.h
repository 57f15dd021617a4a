// A table of records whose repetitive fields are stored once (the model's
// 32 B/event budget).
//
// A Codec splits a record (its Value type, what callers read) into a small per-record Row and
// a Signature (the fields that repeat: a message's partner, tag, communicator and size; a
// collective's operation, root and sizes). Signatures are interned per table: a rank talks to
// few partners with few sizes, so the signature list stays short and hot in cache. Reading
// decodes a Value from its row and signature; operator[] returns by value. Rows can be changed
// field by field through the codec's setters (see MessageTable/CollectiveTable in trace.h).
//
// The interning index is needed only while the table grows; shrink_to_fit() drops it (the
// builder calls it when the model is finished) and a later push_back rebuilds it.
#pragma once

#include "perwiz/index_iterator.h"
#include "perwiz/release.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <utility>
#include <unordered_map>
#include <vector>

namespace perwiz {

template <class Codec>
class InternedTable {
 public:
  using Value = typename Codec::Value;
  using Row = typename Codec::Row;
  using Signature = typename Codec::Signature;
  using value_type = Value;
  using size_type = std::size_t;

  InternedTable() = default;
  InternedTable(std::initializer_list<Value> values) { assign(values.begin(), values.end()); }
  InternedTable(const std::vector<Value>& values) { assign(values.begin(), values.end()); }
  InternedTable& operator=(const std::vector<Value>& values) {
    assign(values.begin(), values.end());
    return *this;
  }
  InternedTable(const InternedTable& o) : rows_(o.rows_), sigs_(o.sigs_) {}
  InternedTable(InternedTable&&) noexcept = default;
  InternedTable& operator=(const InternedTable& o) {
    rows_ = o.rows_;
    sigs_ = o.sigs_;
    index_.clear();
    return *this;
  }
  InternedTable& operator=(InternedTable&&) noexcept = default;

  template <class It>
  void assign(It first, It last) {
    clear();
    for (; first != last; ++first) push_back(*first);
  }

  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  Value operator[](std::size_t i) const { return Codec::decode(rows_[i], sigs_[Codec::sigOf(rows_[i])], i); }
  Value at(std::size_t i) const {
    (void)rows_.at(i);  // bounds check
    return (*this)[i];
  }
  Value front() const { return (*this)[0]; }
  Value back() const { return (*this)[size() - 1]; }

  void push_back(const Value& v) { rows_.push_back(Codec::encode(v, intern(Codec::signature(v)))); }
  // Replaces record i.
  void set(std::size_t i, const Value& v) { rows_[i] = Codec::encode(v, intern(Codec::signature(v))); }
  // Direct access to a row for the codec's field setters.
  Row& row(std::size_t i) { return rows_[i]; }
  const Row& row(std::size_t i) const { return rows_[i]; }
  const Signature& signatureOf(std::size_t i) const { return sigs_[Codec::sigOf(rows_[i])]; }
  std::size_t signatures() const { return sigs_.size(); }

  void reserve(std::size_t n) { rows_.reserve(n); }
  void clear() {
    rows_.clear();
    sigs_.clear();
    index_.clear();
  }
  // Drops the interning index (end of building).
  void seal() { releaseMemory(index_); }
  void shrink_to_fit() {
    rows_.shrink_to_fit();
    sigs_.shrink_to_fit();
    releaseMemory(index_);
  }
  std::vector<Value> toVector() const {
    std::vector<Value> v;
    v.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) v.push_back((*this)[i]);
    return v;
  }
  std::size_t residentBytes() const { return rows_.size() * sizeof(Row) + sigs_.size() * sizeof(Signature); }

  bool operator==(const InternedTable& o) const {
    if (size() != o.size()) return false;
    for (std::size_t i = 0; i < size(); ++i)
      if (!((*this)[i] == o[i])) return false;
    return true;
  }

  friend bool operator==(const InternedTable& a, const std::vector<Value>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < b.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

  using const_iterator = IndexIterator<InternedTable, Value>;
  using iterator = const_iterator;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  std::uint32_t intern(const Signature& s) {
    // Consecutive records usually repeat one of the last two signatures (a send and a
    // receive alternating): check those before hashing.
    const std::size_t n = sigs_.size();
    if (last_ < n && sigs_[last_] == s) return last_;
    if (prev_ < n && sigs_[prev_] == s) {
      std::swap(last_, prev_);
      return last_;
    }
    if (index_.size() != n) {  // dropped by shrink_to_fit or a copy: rebuild
      index_.clear();
      for (std::size_t k = 0; k < n; ++k) index_.emplace(sigs_[k], static_cast<std::uint32_t>(k));
    }
    auto [it, fresh] = index_.try_emplace(s, static_cast<std::uint32_t>(n));
    if (fresh) sigs_.push_back(s);
    prev_ = last_;
    last_ = it->second;
    return last_;
  }

  std::vector<Row> rows_;
  std::vector<Signature> sigs_;
  std::unordered_map<Signature, std::uint32_t, typename Codec::Hash> index_;
  std::uint32_t last_ = 0xFFFFFFFFu, prev_ = 0xFFFFFFFFu;
};

}  // namespace perwiz
