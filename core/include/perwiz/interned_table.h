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
// The interning index is needed only while the table grows; seal() drops it (the builder calls
// it when the model is finished) and a later push_back rebuilds it.
//
// Sealed, the rows are stored field by field (issue #42: a blocking ring's endpoints were
// 16 B of its 38 B per event): the codec names its row's fields (kFields, field, setField) and
// each field is kept in a TimeColumn (time_column.h: blocks of 256 values, each stored as its
// offset above the block's least in as few bits as the block needs). A rank's endpoints in
// posting order have close times, events and match indexes and few signatures: about 7 B per
// endpoint instead of 24. Reading decodes one value per field. A change after sealing (the
// codec's setters, set, push_back) first unpacks the table into plain rows; seal() packs it
// again.
#pragma once

#include "perwiz/index_iterator.h"
#include "perwiz/release.h"
#include "perwiz/time_column.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
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
  InternedTable(const InternedTable& o) : rows_(o.rows_), packed_(o.packed_), isPacked_(o.isPacked_), sigs_(o.sigs_) {}
  InternedTable(InternedTable&&) noexcept = default;
  InternedTable& operator=(const InternedTable& o) {
    rows_ = o.rows_;
    packed_ = o.packed_;
    isPacked_ = o.isPacked_;
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

  std::size_t size() const { return isPacked_ ? packed_[0].size() : rows_.size(); }
  bool empty() const { return size() == 0; }
  Value operator[](std::size_t i) const {
    const Row r = row(i);
    return Codec::decode(r, sigs_[Codec::sigOf(r)], i);
  }
  Value at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("InternedTable::at");
    return (*this)[i];
  }
  Value front() const { return (*this)[0]; }
  Value back() const { return (*this)[size() - 1]; }

  void push_back(const Value& v) {
    const std::uint32_t sig = intern(Codec::signature(v));
    unpack();
    rows_.push_back(Codec::encode(v, sig));
  }
  // Replaces record i.
  void set(std::size_t i, const Value& v) { mutableRow(i) = Codec::encode(v, intern(Codec::signature(v))); }
  // Row i by value (decoded field by field when sealed).
  Row row(std::size_t i) const {
    if (!isPacked_) return rows_[i];
    Row r{};
    for (std::size_t k = 0; k < Codec::kFields; ++k) Codec::setField(r, k, packed_[k][i]);
    return r;
  }
  // Row i for the codec's field setters (unpacks a sealed table).
  Row& mutableRow(std::size_t i) {
    unpack();
    return rows_[i];
  }
  const Signature& signatureOf(std::size_t i) const {
    const std::uint32_t sig =
        isPacked_ ? static_cast<std::uint32_t>(packed_[Codec::kSigField][i]) : Codec::sigOf(rows_[i]);
    return sigs_[sig];
  }
  std::size_t signatures() const { return sigs_.size(); }
  // Signature number s (< signatures()), as Codec::sigOf(row(i)) names it.
  const Signature& signatureAt(std::uint32_t s) const { return sigs_[s]; }
  bool sealed() const { return isPacked_; }

  void reserve(std::size_t n) {
    if (!isPacked_) rows_.reserve(n);
  }
  void clear() {
    rows_.clear();
    for (TimeColumn& c : packed_) c.clear();
    isPacked_ = false;
    sigs_.clear();
    index_.clear();
  }
  // End of building: drops the interning index and stores the rows field by field.
  void seal() {
    releaseMemory(index_);
    pack();
  }
  void shrink_to_fit() {
    sigs_.shrink_to_fit();
    releaseMemory(index_);
    pack();
  }
  std::vector<Value> toVector() const {
    std::vector<Value> v;
    v.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) v.push_back((*this)[i]);
    return v;
  }
  std::size_t residentBytes() const {
    std::size_t b = rows_.size() * sizeof(Row) + sigs_.size() * sizeof(Signature);
    for (const TimeColumn& c : packed_) b += c.residentBytes();
    return b;
  }

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

  // Sequential reading (a rank's endpoints in order, by the replay's program builder): values
  // decoded a block of rows at a time, field by field, instead of one value per field read.
  // Any index works; a reference is valid until the next read.
  class Reader {
   public:
    explicit Reader(const InternedTable& t) : t_(t) {}
    const Value& operator[](std::size_t i) {
      if (i - first_ >= n_) load(i);
      return buf_[i - first_];
    }

   private:
    void load(std::size_t i) {
      first_ = i & ~(TimeColumn::kBlock - 1);
      n_ = std::min(TimeColumn::kBlock, t_.size() - first_);
      std::array<Row, TimeColumn::kBlock> rows{};
      if (t_.isPacked_) {
        std::array<std::int64_t, TimeColumn::kBlock> v;
        for (std::size_t k = 0; k < Codec::kFields; ++k) {
          t_.packed_[k].decode(first_, n_, v.data());
          for (std::size_t j = 0; j < n_; ++j) Codec::setField(rows[j], k, v[j]);
        }
      } else {
        std::copy_n(t_.rows_.begin() + static_cast<std::ptrdiff_t>(first_), n_, rows.begin());
      }
      for (std::size_t j = 0; j < n_; ++j)
        buf_[j] = Codec::decode(rows[j], t_.sigs_[Codec::sigOf(rows[j])], first_ + j);
    }
    const InternedTable& t_;
    std::size_t first_ = 0, n_ = 0;
    std::array<Value, TimeColumn::kBlock> buf_{};
  };

  using const_iterator = IndexIterator<InternedTable, Value>;
  using iterator = const_iterator;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  void pack() {
    if (isPacked_) return;
    const std::size_t n = rows_.size();
    if (n == 0) {
      releaseMemory(rows_);
      return;
    }
    std::vector<std::int64_t> values(n);
    for (std::size_t k = 0; k < Codec::kFields; ++k) {
      for (std::size_t i = 0; i < n; ++i) values[i] = Codec::field(rows_[i], k);
      packed_[k].assignArray(values.data(), n);
      packed_[k].shrink_to_fit();
    }
    releaseMemory(rows_);
    isPacked_ = true;
  }
  void unpack() {
    if (!isPacked_) return;
    const std::size_t n = packed_[0].size();
    rows_.assign(n, Row{});
    std::vector<std::int64_t> values(std::min<std::size_t>(n, TimeColumn::kBlock));
    for (std::size_t k = 0; k < Codec::kFields; ++k) {
      for (std::size_t first = 0; first < n; first += values.size()) {
        const std::size_t m = std::min(values.size(), n - first);
        packed_[k].decode(first, m, values.data());
        for (std::size_t i = 0; i < m; ++i) Codec::setField(rows_[first + i], k, values[i]);
      }
      packed_[k] = TimeColumn();
    }
    isPacked_ = false;
  }

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

  std::vector<Row> rows_;                            // unsealed: the rows as they are
  std::array<TimeColumn, Codec::kFields> packed_{};  // sealed: field k of every row
  bool isPacked_ = false;
  std::vector<Signature> sigs_;
  std::unordered_map<Signature, std::uint32_t, typename Codec::Hash> index_;
  std::uint32_t last_ = 0xFFFFFFFFu, prev_ = 0xFFFFFFFFu;
};

}  // namespace perwiz
