// Feeds one record stream to several sinks (PERWIZ_FORMAT=otf2,alog writes both formats from
// one pass over the raw files).
#pragma once

#include "perwiz/trace_sink.h"

#include <vector>

namespace perwiz::trace {

class TeeSink final : public TraceSink {
 public:
  explicit TeeSink(std::vector<TraceSink*> sinks) : sinks_(std::move(sinks)) {}

  void begin(const TraceHeader& h) override { each([&](TraceSink& s) { s.begin(h); }); }
  // Every sink numbers definitions densely in definition order, so they all return the same
  // index; the first one's is used.
  std::uint32_t defineFunction(const Function& f) override {
    std::uint32_t index = 0;
    for (std::size_t i = 0; i < sinks_.size(); ++i) {
      const std::uint32_t k = sinks_[i]->defineFunction(f);
      if (i == 0) index = k;
    }
    return index;
  }
  std::uint32_t defineComm(const Communicator& c) override {
    std::uint32_t index = 0;
    for (std::size_t i = 0; i < sinks_.size(); ++i) {
      const std::uint32_t k = sinks_[i]->defineComm(c);
      if (i == 0) index = k;
    }
    return index;
  }
  void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override { each([&](TraceSink& s) { s.enter(r, t, f); }); }
  void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override { each([&](TraceSink& s) { s.leave(r, t, f); }); }
  void point(std::uint32_t r, TimeNs t, std::uint32_t f, std::string_view label) override {
    each([&](TraceSink& s) { s.point(r, t, f, label); });
  }
  void send(std::uint32_t r, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t request) override {
    each([&](TraceSink& s) { s.send(r, t, peer, comm, tag, bytes, request); });
  }
  void recv(std::uint32_t r, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t request) override {
    each([&](TraceSink& s) { s.recv(r, t, peer, comm, tag, bytes, request); });
  }
  void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t request) override {
    each([&](TraceSink& s) { s.isendComplete(r, t, request); });
  }
  void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t request) override {
    each([&](TraceSink& s) { s.irecvRequest(r, t, request); });
  }
  void collective(std::uint32_t r, TimeNs t, MpiOp op, std::uint32_t comm, std::int32_t root,
                  std::uint64_t sent, std::uint64_t received) override {
    each([&](TraceSink& s) { s.collective(r, t, op, comm, root, sent, received); });
  }
  void end() override { each([&](TraceSink& s) { s.end(); }); }

 private:
  template <class F>
  void each(F&& f) {
    for (TraceSink* s : sinks_) f(*s);
  }
  std::vector<TraceSink*> sinks_;
};

}  // namespace perwiz::trace
