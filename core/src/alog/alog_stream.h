// Pass 2 of the ALOG reader: the data records of a range of processes, streamed into a sink in
// file order (which is each process's execution order). Every stream goes through the whole
// file and skips the other processes' lines — by pass 1's line index (their process and length,
// alog_scan.h) when there is one, else after reading their first two fields — so streams of
// disjoint process ranges can fill parts of one sink on threads of their own
// (TraceSink::openPart).
// Pass 1 has validated every line: what can still fail here is what depends on the header
// (times beyond the range, undefined communicators, PerWiz tokens) and the sink's own checks.
#pragma once

#include "alog_extension.h"
#include "alog_record.h"
#include "event_table.h"

#include "perwiz/trace_sink.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz::alog {

// What pass 1 and the definitions between the passes leave for streaming: read-only, shared by
// the streams of every thread.
struct StreamContext {
  std::string path;
  TimeNs origin = 0;
  std::optional<TimeNs> rolloverNs;
  EventTable actions;
  bool extension = false;  // -60 present: data-record tokens are PerWiz's
  std::size_t comms = 0;   // communicators defined by -62 records
  // Send/receive records without "<tag> <size>" to warn about (the first ones of the file);
  // the rest are only counted.
  std::vector<std::int64_t> messageWarningLines;
};

// Absolute time of a record in ns, or nullopt on overflow (upshot: ts + cycle * rollover).
inline std::optional<TimeNs> absoluteNs(TimeNs stampNs, std::int64_t cycle, std::optional<TimeNs> rolloverNs) {
  TimeNs shift = 0, t = 0;
  if (cycle != 0 && rolloverNs.value_or(0) != 0 && __builtin_mul_overflow(cycle, *rolloverNs, &shift))
    return std::nullopt;
  if (__builtin_add_overflow(stampNs, shift, &t)) return std::nullopt;
  return t;
}

inline constexpr const char* kTimeOverflow = "time out of range (timestamp + cycle * rollover)";

// One of pass 1's chunks with its line index (alog_scan.h, line_index), in file order.
struct IndexedChunk {
  const char* begin = nullptr;  // the chunk's first byte in the file
  std::int64_t lineBase = 0;    // lines of the chunks before
  std::vector<std::uint32_t> lines;
};

class RecordStream {
 public:
  // The records of processes [first, last) go to `sink`; `all`: every process's, unfiltered.
  RecordStream(const StreamContext& ctx, TraceSink& sink, std::uint32_t first, std::uint32_t last, bool all);
  // Streams the lines of `text` (the whole file) and stops after line `stopLine`, which the
  // streams of other threads lower when they fail. `tick` is called about every MiB with the
  // bytes read and may throw to cancel.
  void run(std::string_view text, char eol, const std::function<void(std::size_t)>& tick,
           const std::atomic<std::int64_t>& stopLine);
  // The same over the lines pass 1 indexed (`chunks` cover `text`), for a stream of some
  // processes only: the other processes' lines are skipped by their length.
  void runIndexed(std::string_view text, const std::vector<IndexedChunk>& chunks, char eol,
                  const std::function<void(std::size_t)>& tick, const std::atomic<std::int64_t>& stopLine);
  // The line being streamed: where an exception thrown by run() comes from.
  std::int64_t line() const { return line_; }

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  void emit(const Record& rec);
  void emitMessage(const Record& rec, std::uint32_t rank, TimeNs t, std::int32_t tag, std::uint64_t bytes);
  void emitCallTokens(std::uint32_t rank, TimeNs t, std::string_view comment);

  const StreamContext& ctx_;
  TraceSink& sink_;
  std::uint32_t first_, last_;
  bool all_;
  std::int64_t line_ = 0;
  CallTokens callTokens_;     // the tokens of parsedTokens_
  std::string parsedTokens_;  // the comment callTokens_ holds ("": none)
};

}  // namespace perwiz::alog
