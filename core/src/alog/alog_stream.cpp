#include "alog_stream.h"

#include "alog_scan.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace perwiz::alog {

RecordStream::RecordStream(const StreamContext& ctx, TraceSink& sink, std::uint32_t first, std::uint32_t last, bool all)
    : ctx_(ctx), sink_(sink), first_(first), last_(last), all_(all) {}

void RecordStream::fail(const std::string& problem) const {
  throw TraceError(ctx_.path, problem + " at line " + std::to_string(line_));
}

void RecordStream::run(std::string_view text, char eol, const std::function<void(std::size_t)>& tick,
                       const std::atomic<std::int64_t>& stopLine) {
  constexpr std::size_t kTickBytes = std::size_t{1} << 20;
  LineCursor cur(text, eol);
  std::string_view line;
  Record rec;
  std::string problem;
  const char* nextTick = text.data() + kTickBytes;
  while (cur.next(line)) {
    line_ = cur.lineNo();
    if (cur.position() >= nextTick) {
      nextTick = cur.position() + kTickBytes;
      if (tick) tick(static_cast<std::size_t>(cur.position() - text.data()));
    }
    if (line_ > stopLine.load(std::memory_order_relaxed)) return;  // another stream failed before
    if (!cur.complete()) continue;                                 // the cut last line (pass 1 warned)
    if (!all_) {
      std::int64_t type = 0, process = 0;
      if (!peekTypeAndProcess(line, type, process) || isHeaderType(type) || type == kConstDef || process < first_ ||
          process >= last_)
        continue;
    } else if (isSkippableLine(line)) {
      continue;
    }
    if (!parseRecord(line, rec, problem)) fail(problem);  // pass 1 accepted it: the file changed
    if (isHeaderType(rec.type) || rec.type == kConstDef) continue;
    emit(rec);
  }
}

void RecordStream::runIndexed(std::string_view text, const std::vector<IndexedChunk>& chunks, char eol,
                              const std::function<void(std::size_t)>& tick, const std::atomic<std::int64_t>& stopLine) {
  constexpr std::size_t kTickBytes = std::size_t{1} << 20;
  const char* const end = text.data() + text.size();
  Record rec;
  std::string problem;
  const char* nextTick = text.data() + kTickBytes;
  for (const IndexedChunk& c : chunks) {
    const char* p = c.begin;
    for (std::size_t k = 0; k < c.lines.size(); ++k) {
      const std::uint32_t e = c.lines[k];
      const std::uint32_t length = line_index::length(e);
      const char* lineEnd = p + length;
      if (length == line_index::kLongLine) {
        lineEnd = static_cast<const char*>(std::memchr(p, eol, static_cast<std::size_t>(end - p)));
        if (!lineEnd) lineEnd = end;
      }
      const std::uint32_t process = line_index::process(e);
      if (process >= first_ && process < last_) {  // never kNotStreamed: last_ <= kMaxProcessId + 1
        line_ = c.lineBase + static_cast<std::int64_t>(k) + 1;
        if (line_ > stopLine.load(std::memory_order_relaxed)) return;  // another stream failed before
        if (p >= nextTick) {
          nextTick = p + kTickBytes;
          if (tick) tick(static_cast<std::size_t>(p - text.data()));
        }
        if (!parseRecord(std::string_view(p, static_cast<std::size_t>(lineEnd - p)), rec, problem)) fail(problem);
        emit(rec);
      }
      p = lineEnd + 1;
    }
  }
}

void RecordStream::emit(const Record& rec) {
  sink_.setPosition(line_);
  auto abs = absoluteNs(rec.stampNs, rec.cycle, ctx_.rolloverNs);
  TimeNs t = 0;
  if (!abs || __builtin_sub_overflow(*abs, ctx_.origin, &t)) fail(kTimeOverflow);
  const auto rank = static_cast<std::uint32_t>(rec.process);
  if (rec.type == kSend || rec.type == kRecv) {
    std::int32_t tag;
    std::uint64_t bytes;
    if (parseMessageComment(rec.comment, tag, bytes)) {
      emitMessage(rec, rank, t, tag, bytes);
      return;
    }
    const auto& warned = ctx_.messageWarningLines;
    if (std::find(warned.begin(), warned.end(), line_) != warned.end())
      sink_.warn(Diagnostic{ctx_.path, line_, "",
                            "record " + std::to_string(rec.type) + " without '<tag> <size>' comment (" +
                                quoteBytes(rec.comment) + "); kept as a lone event"});
  }
  const EventAction& a = ctx_.actions.find(rec.type);
  // An event may end one state and start the next (a chain of phases): leave first.
  if (a.leave != kNone32) sink_.leave(rank, t, a.leave);
  if (a.enter != kNone32) {
    sink_.enter(rank, t, a.enter);
    if (ctx_.extension && !rec.comment.empty()) emitCallTokens(rank, t, rec.comment);
  }
  if (a.point != kNone32) sink_.point(rank, t, a.point, rec.comment);
}

void RecordStream::emitMessage(const Record& rec, std::uint32_t rank, TimeNs t, std::int32_t tag, std::uint64_t bytes) {
  // The partner is a world rank (MPE-1 logged communicator ranks; nothing better is known).
  // Out-of-range partners stay as they are: the builder reports them.
  std::int32_t peer =
      rec.data >= std::numeric_limits<std::int32_t>::min() && rec.data <= std::numeric_limits<std::int32_t>::max()
          ? static_cast<std::int32_t>(rec.data)
          : -1;
  std::uint32_t comm = 0;
  std::uint64_t request = 0;
  if (ctx_.extension && !parseMessageTokens(rec.comment, comm, request))
    fail("bad PerWiz message tokens in '" + quoteBytes(rec.comment, 60) + "'");
  if (comm > ctx_.comms) fail("message on undefined communicator " + std::to_string(comm));
  if (rec.type == kSend)
    sink_.send(rank, t, peer, comm, tag, bytes, request);
  else
    sink_.recv(rank, t, peer, comm, tag, bytes, request);
}

// The records PerWiz wrote as tokens on an MPI call's start event, right after its enter.
void RecordStream::emitCallTokens(std::uint32_t rank, TimeNs t, std::string_view comment) {
  // A run repeats the same few calls: the tokens of the last comment are kept parsed.
  if (comment != parsedTokens_) {
    std::string bad;
    parsedTokens_.clear();
    if (!parseCallTokens(comment, callTokens_, bad))
      fail("bad PerWiz token '" + quoteBytes(bad, 60) + "' on a state's start event");
    parsedTokens_.assign(comment);
  }
  for (std::uint64_t r : callTokens_.irecvPosts) sink_.irecvRequest(rank, t, r);
  for (std::uint64_t r : callTokens_.isendDones) sink_.isendComplete(rank, t, r);
  for (const auto& c : callTokens_.collectives) {
    if (c.comm > ctx_.comms) fail("collective on undefined communicator " + std::to_string(c.comm));
    sink_.collective(rank, t, c.op, c.comm, c.root, c.sent, c.received);
  }
}

}  // namespace perwiz::alog
