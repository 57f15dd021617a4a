// Checked arithmetic on times and sizes (docs/model.md, "Limits").
//
// Every time is int64 ns (trace.h). A prediction must fit: kTimeOverflow (INT64_MAX, about 292
// years) is reserved to mean "the value did not fit", never a time. Sums that may leave the
// range saturate there instead of wrapping (signed overflow is undefined behaviour and wrapped a
// huge prediction into a negative one); a caller checks once, after a whole computation, whether
// a result reached kTimeOverflow and then reports which input made it (a message's size, a
// model parameter, a hypothesis), instead of printing it. Header-only, no Qt: core, widgets and
// the CLI share it.
#pragma once

#include <cstdint>
#include <limits>

namespace perwiz {

inline constexpr std::int64_t kTimeOverflow = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kTimeUnderflow = std::numeric_limits<std::int64_t>::min();

// a + b, saturated at kTimeOverflow / kTimeUnderflow.
constexpr std::int64_t satAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kTimeOverflow : kTimeUnderflow;
  return r;
}

// a - b, saturated.
constexpr std::int64_t satSub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? kTimeOverflow : kTimeUnderflow;
  return r;
}

// a * b, saturated.
constexpr std::int64_t satMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? kTimeUnderflow : kTimeOverflow;
  return r;
}

// Checked forms: false (and *out unspecified) when the exact result does not fit in int64.
constexpr bool checkedAdd(std::int64_t a, std::int64_t b, std::int64_t* out) { return !__builtin_add_overflow(a, b, out); }
constexpr bool checkedSub(std::int64_t a, std::int64_t b, std::int64_t* out) { return !__builtin_sub_overflow(a, b, out); }
constexpr bool checkedMul(std::int64_t a, std::int64_t b, std::int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// A time that reached the reserved value: the computation that produced it overflowed.
constexpr bool overflowed(std::int64_t t) { return t == kTimeOverflow || t == kTimeUnderflow; }

}  // namespace perwiz
