// The model's compact storage (issue #16): TimeColumn and the interned side tables.
// Expected values are the inputs themselves: these containers must give back exactly what
// was stored, whatever the encoding chose (offset, escape, unsealed tail).
#include "perwiz/compact_offsets.h"
#include "perwiz/time_column.h"
#include "perwiz/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>

using namespace perwiz;

namespace {
constexpr TimeNs kSec = 1'000'000'000;
constexpr std::size_t B = TimeColumn::kBlock;  // 256
}  // namespace

TEST(TimeColumn, SmallOffsetsCostTheirBitsPerValue) {
  TimeColumn c;
  for (std::size_t i = 0; i < 2 * B; ++i) c.push_back(static_cast<TimeNs>(1000 + 10 * i));
  c.seal();
  ASSERT_EQ(c.size(), 2 * B);
  for (std::size_t i = 0; i < 2 * B; ++i) EXPECT_EQ(c[i], static_cast<TimeNs>(1000 + 10 * i));
  EXPECT_EQ(c.escapes(), 0u);
  // Block 0's largest offset is 10 * 255 = 2550, block 1's the same: 2551 < 2^12, so 12 bits
  // each (the marker 2^12 - 1 is above them). Two blocks of 16 B (base, first bit and width)
  // + 512 offsets of 12 bits in 64-bit words (6144 bits = 96 words) + the zero word after them.
  EXPECT_EQ(c.residentBytes(), 2 * 16 + (2 * B * 12 / 64 + 1) * 8);
}

TEST(TimeColumn, FarValuesAreEscapedAndExact) {
  // Block 0: values near 0 plus one 10 s away (2^32 ns = 4.29 s is the most an offset holds)
  // and the extremes of int64; the block base is the smallest value.
  const TimeNs big = 10 * kSec;
  const TimeNs lo = std::numeric_limits<TimeNs>::min();
  const TimeNs hi = std::numeric_limits<TimeNs>::max();
  TimeColumn c;
  std::vector<TimeNs> want;
  for (std::size_t i = 0; i < B + 3; ++i) {
    TimeNs v = static_cast<TimeNs>(i);
    if (i == 5) v = big;
    if (i == 7) v = lo;
    if (i == 9) v = hi;
    c.push_back(v);
    want.push_back(v);
  }
  EXPECT_TRUE(c == want);
  c.seal();
  EXPECT_TRUE(c == want);
  // Base = lo: every other value of block 0 is more than 2^32 above it; block 1's 3 values fit.
  EXPECT_EQ(c.escapes(), B - 1);
  EXPECT_EQ(c.toVector(), want);
}

TEST(TimeColumn, SetAfterSealingMovesValuesInAndOutOfTheEscapeTable) {
  TimeColumn c;
  for (std::size_t i = 0; i < B; ++i) c.push_back(100);  // sealed at once: base 100, 1 bit
  c.push_back(7);                                        // tail
  ASSERT_EQ(c.escapes(), 0u);
  c.set(3, 100 + 20 * kSec);  // beyond 2^32 above the base: escape
  EXPECT_EQ(c.escapes(), 1u);
  EXPECT_EQ(c[3], 100 + 20 * kSec);
  c.set(4, 50);  // below the base: escape
  EXPECT_EQ(c.escapes(), 2u);
  EXPECT_EQ(c[4], 50);
  c.set(3, 101);  // offset 1 is the 1-bit width's marker: still an escape
  EXPECT_EQ(c.escapes(), 2u);
  EXPECT_EQ(c[3], 101);
  c.set(3, 100);  // offset 0 fits: leaves the escape table
  EXPECT_EQ(c.escapes(), 1u);
  EXPECT_EQ(c[3], 100);
  c.set(4, -3);  // an escape replaced by another escape
  EXPECT_EQ(c[4], -3);
  c.set(B, 8);  // the tail
  EXPECT_EQ(c[B], 8);
  EXPECT_EQ(c[2], 100);
}

TEST(TimeColumn, AppendingAfterSealReopensTheLastBlock) {
  TimeColumn c;
  for (std::size_t i = 0; i < 10; ++i) c.push_back(static_cast<TimeNs>(i) * kSec);
  // One incomplete block, values 0..9 s. Widths: 32 bits hold offsets up to 2^32 - 2 ns
  // (4.29 s): 5 escapes, 10 * 32 + 5 * 128 = 960 bits; 31 bits (up to 2.1 s) 7 escapes, 1206;
  // 1 bit 9 escapes, 1162: 32 bits, and 5 s and more are escapes.
  c.seal();
  EXPECT_EQ(c.escapes(), 5u);
  c.push_back(42);
  ASSERT_EQ(c.size(), 11u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(c[i], static_cast<TimeNs>(i) * kSec);
  EXPECT_EQ(c[10], 42);
  EXPECT_EQ(c.back(), 42);
}

TEST(TimeColumn, ShiftIteratorsAndComparison) {
  TimeColumn c{5, 1, 9};
  c.addToAll(-5);
  EXPECT_EQ(c.toVector(), (std::vector<TimeNs>{0, -4, 4}));
  TimeColumn d{0, 2, 4, 6, 8};
  EXPECT_EQ(std::lower_bound(d.begin(), d.end(), 5) - d.begin(), 3);
  TimeNs sum = 0;
  for (TimeNs v : d) sum += v;
  EXPECT_EQ(sum, 20);
  EXPECT_FALSE(c == d);
  EXPECT_TRUE((TimeColumn{0, -4, 4}) == c);
  EXPECT_THROW(d.at(5), std::out_of_range);
}

TEST(TimeColumn, RandomValuesRoundTrip) {
  // Mixed scales: most values close together (offsets), some far (escapes), some sets.
  std::mt19937_64 rng(7);
  TimeColumn c;
  std::vector<TimeNs> want;
  for (std::size_t i = 0; i < 5000; ++i) {
    TimeNs v = static_cast<TimeNs>(rng() % 1000000);
    if (rng() % 50 == 0) v = static_cast<TimeNs>(rng());
    c.push_back(v);
    want.push_back(v);
    if (i % 97 == 0 && i > 0) {
      const std::size_t j = rng() % i;
      const TimeNs w = rng() % 3 == 0 ? static_cast<TimeNs>(rng()) : static_cast<TimeNs>(rng() % 1000000);
      c.set(j, w);
      want[j] = w;
    }
  }
  EXPECT_EQ(c.toVector(), want);
  EXPECT_EQ(c.maxValue(), *std::max_element(want.begin(), want.end()));
  c.shrink_to_fit();
  EXPECT_EQ(c.toVector(), want);
  EXPECT_EQ(c.maxValue(), *std::max_element(want.begin(), want.end()));
  EXPECT_EQ(TimeColumn{}.maxValue(), std::numeric_limits<TimeNs>::min());
  EXPECT_EQ((TimeColumn{-5, -9}).maxValue(), -5);
}

// decode unpacks a block's offsets eight at a time with a routine per width (1..32 bits) and
// one by one at the edges: for every width, from every start within a group of eight, across
// a block's edge and with an escape among them, it gives what operator[] gives.
TEST(TimeColumn, DecodeReadsEveryWidthAsOneByOne) {
  std::mt19937_64 rng(3);
  for (unsigned w = 1; w <= 32; ++w) {
    // Three blocks whose offsets need w bits (below 2^w - 1, the width's escape marker), the
    // block's first value at the base and one offset of 2^w - 1 - 1 so that w is the widest
    // needed; a value far away (an escape) in the middle block.
    std::vector<TimeNs> v;
    for (std::size_t b = 0; b < 3; ++b) {
      const TimeNs base = TimeNs(b) * 10 * kSec;
      for (std::size_t k = 0; k < B; ++k) {
        const std::uint64_t top = (std::uint64_t{1} << w) - 1;  // offsets 0 .. top - 1 fit
        TimeNs x = base + TimeNs(k == 1 ? top - 1 : k == 0 ? 0 : rng() % top);
        if (b == 1 && k == 77) x = base + 4000 * kSec;
        v.push_back(x);
      }
    }
    TimeColumn c;
    c.assignArray(v.data(), v.size());
    ASSERT_EQ(c.toVector(), v) << w;
    ASSERT_GE(c.escapes(), 1u) << w;
    for (std::size_t first = B - 9; first < B + 9; ++first)
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                                std::size_t{70}, B, 2 * B - first}) {
        std::vector<TimeNs> out(count, -1);
        c.decode(first, count, out.data());
        for (std::size_t k = 0; k < count; ++k)
          ASSERT_EQ(out[k], c[first + k]) << "width " << w << " first " << first << " count " << count << " at " << k;
      }
  }
}

TEST(TimeColumn, ArraysAssignedWholeAndSparesReusedReadAsPushed) {
  // assignArray encodes whole blocks at once; it must read back exactly what push_back would
  // give (offsets, escapes, the plain last block), for every length around a block's edge.
  // A column given room with reserveTouched is empty and keeps its storage when filled.
  std::mt19937_64 rng(11);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, B - 1, B, B + 1, 5 * B + 17}) {
    std::vector<TimeNs> v(n);
    for (TimeNs& x : v) x = rng() % 20 == 0 ? static_cast<TimeNs>(rng()) : static_cast<TimeNs>(rng() % (3 * kSec));
    TimeColumn pushed, assigned{1, 2, 3};
    for (TimeNs x : v) pushed.push_back(x);
    assigned.assignArray(v.data(), n);
    EXPECT_EQ(assigned.toVector(), v) << n;
    EXPECT_EQ(assigned, pushed) << n;
    EXPECT_EQ(assigned.escapes(), pushed.escapes()) << n;
    if (n > 0) EXPECT_EQ(assigned.maxValue(), *std::max_element(v.begin(), v.end())) << n;
    // decode: any range, across blocks, escapes and the plain last block, as read one by one.
    for (std::size_t first : {std::size_t{0}, std::size_t{1}, B - 1, B + 3}) {
      if (first > n) continue;
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, B, n - first}) {
        if (first + count > n) continue;
        std::vector<TimeNs> out(count);
        pushed.decode(first, count, out.data());
        EXPECT_TRUE(std::equal(out.begin(), out.end(), v.begin() + std::ptrdiff_t(first)))
            << n << " " << first << " " << count;
      }
    }
    // A spare: room for n values, pages touched, nothing in it.
    TimeColumn spare;
    spare.reserveTouched(n);
    EXPECT_TRUE(spare.empty());
    EXPECT_GE(spare.capacity(), n);
    const void* storage = spare.storage();
    spare.assignArray(v.data(), n);
    EXPECT_EQ(spare.toVector(), v) << n;
    if (n > 0) EXPECT_EQ(spare.storage(), storage) << n;  // written where it was touched
    EXPECT_GE(spare.capacityBytes(), spare.residentBytes());
  }
}

TEST(CompactOffsets, CsrBeginsReadBackCompactOrWide) {
  // Offsets of a CSR read back exactly: compact (2 B per entry) while every block of 64 spans
  // at most 65,535; all plain once one block spans more (one unit with 70,000 dependencies).
  std::mt19937_64 rng(3);
  for (std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{5000}}) {
    std::vector<std::uint32_t> begin(n, 0);
    for (std::size_t i = 1; i < n; ++i) begin[i] = begin[i - 1] + std::uint32_t(rng() % 9);
    CompactOffsets c(begin);
    ASSERT_EQ(c.size(), n);
    EXPECT_FALSE(c.wide());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], begin[i]) << n << " " << i;
    EXPECT_EQ(c.back(), begin.back());
    if (n >= 64) EXPECT_LT(c.bytes(), n * 4);
    begin[n / 2] = begin[n / 2 - (n > 1 ? 1 : 0)];                  // an empty entry
    for (std::size_t i = n / 2 + 1; i < n; ++i) begin[i] += 70000;  // one entry of 70,000
    c.assign(begin);
    EXPECT_EQ(c.wide(), n > 1);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], begin[i]) << n << " " << i;
  }
  EXPECT_TRUE(CompactOffsets{}.empty());
  // From the lists' sizes (the consumers per item, 2 B each): the same offsets, compact or,
  // with a list of 70,000, all plain.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{5000}}) {
    std::vector<std::uint16_t> count(n);
    for (auto& k : count) k = std::uint16_t(rng() % 9);
    std::vector<std::uint32_t> begin(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) begin[i + 1] = begin[i] + count[i];
    CompactOffsets c;
    c.assignCounts(count);
    ASSERT_EQ(c.size(), n + 1);
    EXPECT_FALSE(c.wide());
    for (std::size_t i = 0; i <= n; ++i) ASSERT_EQ(c[i], begin[i]) << n << " " << i;
    if (n < 2) continue;
    std::vector<std::uint32_t> big(count.begin(), count.end());
    big[n / 2] = 70000;
    for (std::size_t i = n / 2 + 1; i <= n; ++i) begin[i] += 70000 - count[n / 2];
    c.assignCounts(big);
    EXPECT_TRUE(c.wide());
    for (std::size_t i = 0; i <= n; ++i) ASSERT_EQ(c[i], begin[i]) << n << " " << i;
  }
}

TEST(CompactIndex, PositionsReadBackNarrowWideOrPlain) {
  // Values in no order read back exactly: 2 B an entry where a block of 32 spans at most
  // 65,535; a block that spans more (a rank's last units and the next rank's first ones, far
  // apart in a schedule) keeps its 32 values plain; a value of 2^31 or more makes all plain.
  std::mt19937_64 rng(5);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{4000}}) {
    // Ranks of 100 units interleaved in a schedule of 4 ranks: unit u of rank r at 4 * u + r,
    // then one rank far away (positions 10^6 on) from entry 1000.
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = i < 1000 ? std::uint32_t(4 * (i % 100) + (i / 100) % 4) : std::uint32_t(1000000 + rng() % 60000);
    CompactIndex c;
    auto each = [&](auto&& put) {
      for (std::size_t k = n; k > 0; --k) put(k - 1, v[k - 1]);  // any order
    };
    c.fill(n, each);
    ASSERT_EQ(c.size(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], v[i]) << n << " " << i;
    // Only the block holding both sides of entry 1000 (entries 992..1023) spans more than 65,535.
    EXPECT_EQ(c.wideBlocks(), n > 1000 ? 1u : 0u) << n;
    EXPECT_FALSE(c.plain());
    if (n >= 4000) EXPECT_LT(c.bytes(), n * 3);
    if (n == 0) continue;
    v[n / 2] = 0x80000000u;
    c.fill(n, each);
    EXPECT_TRUE(c.plain());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], v[i]) << n << " " << i;
  }
}

TEST(MessageTable, EndpointsComeBackAsStoredWithSharedSignatures) {
  MessageTable t;
  MessageEndpoint a;
  a.time = 10; a.event = 1; a.postEvent = 0; a.peer = 3; a.tag = 7; a.comm = 0; a.bytes = 64;
  a.request = 12345; a.isSend = true;
  MessageEndpoint b = a;
  b.time = 20; b.event = b.postEvent = 4; b.request = 0; b.isSend = false;
  MessageEndpoint c = a;  // same signature as a: partner, tag, comm, size, direction, non-blocking
  c.time = 30; c.event = 6; c.postEvent = 5; c.matchRank = 3; c.matchIndex = 9;
  t.push_back(a);
  t.push_back(b);
  t.push_back(c);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.signatures(), 2u);
  // 3 rows of 24 B and 2 signatures.
  EXPECT_EQ(t.residentBytes(), 3 * sizeof(MessageRow) + 2 * sizeof(MessageSignature));
  EXPECT_EQ(sizeof(MessageRow), 24u);
  // Everything but the tracer's request handle comes back; request = index + 1 if non-blocking.
  MessageEndpoint wantA = a;
  wantA.request = 1;
  MessageEndpoint wantC = c;
  wantC.request = 3;
  EXPECT_EQ(t[0], wantA);
  EXPECT_EQ(t[1], b);
  EXPECT_EQ(t[2], wantC);
  EXPECT_TRUE(t[2].matched());
  EXPECT_FALSE(t[0].matched());

  t.setEvent(1, 8);
  t.setMatch(0, 3, 2);
  t.setTime(2, 35);
  EXPECT_EQ(t[1].event, 8u);
  EXPECT_EQ(t[0].matchRank, 3u);
  EXPECT_EQ(t[0].matchIndex, 2u);
  EXPECT_EQ(t[2].time, 35);
  t.setMatch(0, kNone32, kNone32);
  EXPECT_FALSE(t[0].matched());
  // A match must be on the endpoint's peer: the model derives the rank from it.
  EXPECT_THROW(t.setMatch(0, 2, 0), std::logic_error);
  MessageEndpoint bad = a;
  bad.matchRank = 1;
  bad.matchIndex = 0;
  EXPECT_THROW(t.push_back(bad), std::logic_error);

  // Copies compare equal; interning resumes after seal().
  MessageTable copy = t;
  EXPECT_TRUE(copy == t);
  copy.seal();
  copy.push_back(b);
  EXPECT_EQ(copy.signatures(), 2u);
  EXPECT_FALSE(copy == t);
}

// Sealed, the table stores its rows field by field in bit-packed columns: every value comes
// back as stored, including the ones a block cannot hold in its width (kNone32 matches, a
// far time), a change after sealing unpacks it, and sealing again packs it.
TEST(MessageTable, SealedRowsComeBackAsStoredAndTakeLessRoom) {
  std::mt19937_64 rng(42);
  MessageTable t;
  std::vector<MessageEndpoint> want;
  TimeNs time = 1000;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    MessageEndpoint e;
    time += static_cast<TimeNs>(rng() % 5000);
    e.time = i == 1234 ? (TimeNs{1} << 50) : time;  // one time far from its block: an escape
    e.event = i * 2 + 1;
    e.postEvent = i % 3 == 0 ? i * 2 : e.event;
    e.peer = static_cast<std::int32_t>(i % 4);
    e.tag = static_cast<std::int32_t>(i % 2);
    e.bytes = 1024;
    e.isSend = i % 2 == 0;
    e.request = i % 3 == 0 ? 1 : 0;
    if (i % 10 != 7) {  // every tenth unmatched: kNone32 among small match indexes
      e.matchRank = static_cast<std::uint32_t>(e.peer);
      e.matchIndex = i + static_cast<std::uint32_t>(rng() % 8);
    }
    t.push_back(e);
    e.request = e.request ? i + 1 : 0;  // what reading gives: index + 1 if non-blocking
    want.push_back(e);
  }
  const std::size_t plain = t.residentBytes();
  EXPECT_FALSE(t.sealed());
  t.seal();
  EXPECT_TRUE(t.sealed());
  ASSERT_EQ(t.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(t[i], want[i]) << i;
  // 24 B per row before; far less sealed (the signatures are the same in both).
  EXPECT_LT(t.residentBytes() * 2, plain);
  EXPECT_EQ(t.signatureOf(5).peer, want[5].peer);

  MessageTable copy = t;  // a copy stays sealed and equal
  EXPECT_TRUE(copy.sealed());
  EXPECT_TRUE(copy == t);

  t.setMatch(17, kNone32, kNone32);
  t.setTime(18, 5);
  EXPECT_FALSE(t.sealed());
  want[17].matchRank = want[17].matchIndex = kNone32;
  want[18].time = 5;
  t.push_back(want[0]);
  want.push_back(want[0]);
  want.back().request = want.size();  // non-blocking: its own index + 1
  t.seal();
  ASSERT_EQ(t.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(t[i], want[i]) << i;
  EXPECT_FALSE(copy == t);
}

TEST(CollectiveTable, SealedCallsComeBackAsStored) {
  CollectiveTable t;
  std::vector<CollectiveCall> want;
  for (std::uint32_t i = 0; i < 700; ++i) {
    CollectiveCall c{
        i * 3, i % 5 == 0 ? MpiOp::Bcast : MpiOp::Allreduce, 0, i % 5 == 0 ? 2 : -1, 8, 8, i == 300 ? kNone32 : i};
    t.push_back(c);
    want.push_back(c);
  }
  t.seal();
  ASSERT_TRUE(t.sealed());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(t[i], want[i]) << i;
  t.setInstance(3, 99);
  want[3].instance = 99;
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(t[i], want[i]) << i;
}

TEST(CollectiveTable, CallsComeBackAsStored) {
  CollectiveTable t;
  t.push_back(CollectiveCall{3, MpiOp::Allreduce, 0, -1, 8, 8, 0});
  t.push_back(CollectiveCall{9, MpiOp::Allreduce, 0, -1, 8, 8, 1});
  t.push_back(CollectiveCall{12, MpiOp::Bcast, 1, 2, 0, 100, kNone32});
  EXPECT_EQ(t.signatures(), 2u);
  EXPECT_EQ(sizeof(CollectiveRow), 12u);
  EXPECT_EQ(t[1], (CollectiveCall{9, MpiOp::Allreduce, 0, -1, 8, 8, 1}));
  EXPECT_EQ(t[2], (CollectiveCall{12, MpiOp::Bcast, 1, 2, 0, 100, kNone32}));
  t.setInstance(2, 4);
  t.setEvent(0, 2);
  EXPECT_EQ(t[2].instance, 4u);
  EXPECT_EQ(t[0].event, 2u);
  std::vector<CollectiveCall> v = t.toVector();
  CollectiveTable u;
  u = v;
  EXPECT_TRUE(u == t);
}
