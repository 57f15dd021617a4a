#include "parent_column.h"

#include <algorithm>

namespace perwiz::ui {

std::uint32_t ParentColumn::far(std::size_t i) const {
  const auto it =
      std::lower_bound(far_.begin(), far_.end(), std::uint32_t(i),
                       [](const std::pair<std::uint32_t, std::uint32_t>& f, std::uint32_t k) { return f.first < k; });
  return it->second;  // present by construction: a far marker always has its entry
}

void ParentColumn::sealBlock() {
  const std::size_t begin = table_.size(), block0 = code_.size();
  first_.push_back(std::uint32_t(begin));
  // The block's distinct parents in first-seen order, found by a linear search: almost always
  // one to three of them. Past kFar of them the rest are far.
  for (std::size_t k = 0; k < pending_.size(); ++k) {
    const std::uint32_t p = pending_[k];
    std::size_t c = begin;
    while (c < table_.size() && table_[c] != p) ++c;
    if (c == table_.size()) {
      if (c - begin == kFar) {
        code_.push_back(kFar);
        far_.emplace_back(std::uint32_t(block0 + k), p);
        continue;
      }
      table_.push_back(p);
    }
    code_.push_back(std::uint8_t(c - begin));
  }
  pending_.clear();
}

}  // namespace perwiz::ui
