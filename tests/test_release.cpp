// releaseMemory gives a container's storage back; `= {}` would not (perwiz/release.h).
#include "perwiz/release.h"

#include <gtest/gtest.h>

#include <unordered_map>
#include <vector>

namespace perwiz {
namespace {

TEST(ReleaseMemory, VectorCapacityIsFreed) {
  std::vector<int> v(100000, 7);
  // The pitfall the helper exists for: the initializer_list assignment keeps the capacity.
  std::vector<int> w(100000, 7);
  w = {};
  EXPECT_TRUE(w.empty());
  EXPECT_GE(w.capacity(), 100000u);
  releaseMemory(v);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 0u);
  v.push_back(1);  // still usable
  EXPECT_EQ(v.size(), 1u);
}

TEST(ReleaseMemory, NestedVectorsAndMapsAreFreed) {
  std::vector<std::vector<int>> nested(100, std::vector<int>(1000, 1));
  releaseMemory(nested);
  EXPECT_EQ(nested.capacity(), 0u);
  std::unordered_map<int, int> m;
  for (int i = 0; i < 10000; ++i) m[i] = i;
  const std::size_t before = m.bucket_count();
  releaseMemory(m);
  EXPECT_TRUE(m.empty());
  EXPECT_LT(m.bucket_count(), before);
}

}  // namespace
}  // namespace perwiz
