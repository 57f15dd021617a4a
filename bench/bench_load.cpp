// Load benchmarks for issue #2:
//  * OTF2 load into the model vs. the bare libotf2 global reader with empty callbacks on the
//    same archive (target: model load within 1.5x); bare local readers for reference;
//  * ALOG load throughput (target: >= 50 MB/s on one core; issue #42: >= 200 MB/s on 2 cores on
//    its ring);
//  * resident bytes per event after load (target: <= 32).
#include "bench_data.h"

#include "perwiz/generator.h"
#include "perwiz/time_column.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <otf2/otf2.h>

namespace {

using namespace perwiz;

constexpr std::uint64_t kOtf2Events = 10'000'000;
constexpr std::uint64_t kAlogEvents = 1'000'000;

OTF2_CallbackCode ignoreEnterLeave(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*,
                                   OTF2_RegionRef) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ignoreP2p(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*,
                            uint32_t, OTF2_CommRef, uint32_t, uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ignoreIp2p(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*,
                             uint32_t, OTF2_CommRef, uint32_t, uint64_t, uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ignoreRequest(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*,
                                uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ignoreCollBegin(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ignoreCollEnd(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*,
                                OTF2_CollectiveOp, OTF2_CommRef, uint32_t, uint64_t, uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode collectLocation(void* ud, OTF2_LocationRef self, OTF2_StringRef,
                                  OTF2_LocationType, uint64_t, OTF2_LocationGroupRef) {
  static_cast<std::vector<OTF2_LocationRef>*>(ud)->push_back(self);
  return OTF2_CALLBACK_SUCCESS;
}

// What any OTF2 consumer must at least do: definitions, local definitions, then every event
// with callbacks that do nothing - through the global (time-merged) reader, which the issue's
// target names, or location by location with local readers (what readOtf2 does).
template <class Callbacks>
void setCallbacks(Callbacks* c);

template <>
void setCallbacks(OTF2_GlobalEvtReaderCallbacks* ec) {
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ec, ignoreEnterLeave);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ec, ignoreEnterLeave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ec, ignoreP2p);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ec, ignoreP2p);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ec, ignoreIp2p);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ec, ignoreIp2p);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(ec, ignoreRequest);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(ec, ignoreRequest);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ec, ignoreCollBegin);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, ignoreCollEnd);
}

// Local callbacks take the record's position as an extra third argument.
template <auto Global, class... Rest>
OTF2_CallbackCode local(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t, void* ud,
                        OTF2_AttributeList* a, Rest... rest) {
  return Global(l, t, ud, a, rest...);
}

template <>
void setCallbacks(OTF2_EvtReaderCallbacks* ec) {
  OTF2_EvtReaderCallbacks_SetEnterCallback(ec, &local<ignoreEnterLeave>);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(ec, &local<ignoreEnterLeave>);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(ec, &local<ignoreP2p>);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ec, &local<ignoreP2p>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ec, &local<ignoreIp2p>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ec, &local<ignoreIp2p>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ec, &local<ignoreRequest>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ec, &local<ignoreRequest>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ec, &local<ignoreCollBegin>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, &local<ignoreCollEnd>);
}

std::uint64_t bareRead(const std::string& anchor, bool global) {
  OTF2_Reader* r = OTF2_Reader_Open(anchor.c_str());
  if (!r) throw std::runtime_error("cannot open " + anchor);
  OTF2_Reader_SetSerialCollectiveCallbacks(r);
  std::vector<OTF2_LocationRef> locations;
  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(r);
  OTF2_GlobalDefReaderCallbacks* gc = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gc, collectLocation);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gc, &locations);
  OTF2_GlobalDefReaderCallbacks_Delete(gc);
  uint64_t n = 0;
  OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
  OTF2_Reader_CloseGlobalDefReader(r, gdr);
  for (auto loc : locations) OTF2_Reader_SelectLocation(r, loc);
  OTF2_Reader_OpenDefFiles(r);
  OTF2_Reader_OpenEvtFiles(r);
  for (auto loc : locations) {
    if (OTF2_DefReader* d = OTF2_Reader_GetDefReader(r, loc)) {
      uint64_t m = 0;
      OTF2_Reader_ReadAllLocalDefinitions(r, d, &m);
      OTF2_Reader_CloseDefReader(r, d);
    }
    OTF2_Reader_GetEvtReader(r, loc);
  }
  OTF2_Reader_CloseDefFiles(r);
  uint64_t events = 0;
  if (global) {
    OTF2_GlobalEvtReader* ger = OTF2_Reader_GetGlobalEvtReader(r);
    OTF2_GlobalEvtReaderCallbacks* ec = OTF2_GlobalEvtReaderCallbacks_New();
    setCallbacks(ec);
    OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, ec, nullptr);
    OTF2_GlobalEvtReaderCallbacks_Delete(ec);
    OTF2_Reader_ReadAllGlobalEvents(r, ger, &events);
    OTF2_Reader_CloseGlobalEvtReader(r, ger);
  } else {
    OTF2_EvtReaderCallbacks* ec = OTF2_EvtReaderCallbacks_New();
    setCallbacks(ec);
    for (auto loc : locations) {
      OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(r, loc);
      OTF2_Reader_RegisterEvtCallbacks(r, er, ec, nullptr);
      uint64_t got = 0;
      OTF2_Reader_ReadAllLocalEvents(r, er, &got);
      events += got;
      OTF2_Reader_CloseEvtReader(r, er);
    }
    OTF2_EvtReaderCallbacks_Delete(ec);
  }
  OTF2_Reader_CloseEvtFiles(r);
  OTF2_Reader_Close(r);
  return events;
}

void BM_Otf2BareGlobalReader(benchmark::State& state) {
  const std::string anchor = bench::otf2Archive(bench::targetEvents(kOtf2Events));
  std::uint64_t records = 0;
  for (auto _ : state) records = bareRead(anchor, true);
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_Otf2BareGlobalReader)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_Otf2BareLocalReaders(benchmark::State& state) {
  const std::string anchor = bench::otf2Archive(bench::targetEvents(kOtf2Events));
  std::uint64_t records = 0;
  for (auto _ : state) records = bareRead(anchor, false);
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_Otf2BareLocalReaders)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The reader's own cost: records translated and handed to a sink that ignores them.
class NullSink final : public TraceSink {
 public:
  void begin(const TraceHeader&) override {}
  std::uint32_t defineFunction(const Function&) override { return functions_++; }
  std::uint32_t defineComm(const Communicator&) override { return ++comms_; }
  void enter(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
  void leave(std::uint32_t, TimeNs, std::uint32_t) override { ++records; }
  void point(std::uint32_t, TimeNs, std::uint32_t, std::string_view) override { ++records; }
  void send(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override { ++records; }
  void recv(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override { ++records; }
  void isendComplete(std::uint32_t, TimeNs, std::uint64_t) override { ++records; }
  void irecvRequest(std::uint32_t, TimeNs, std::uint64_t) override { ++records; }
  void collective(std::uint32_t, TimeNs, MpiOp, std::uint32_t, std::int32_t, std::uint64_t,
                  std::uint64_t) override { ++records; }
  void end() override {}
  std::uint64_t records = 0;

 private:
  std::uint32_t functions_ = 0, comms_ = 0;
};

void BM_Otf2ReadIntoNullSink(benchmark::State& state) {
  const std::string anchor = bench::otf2Archive(bench::targetEvents(kOtf2Events));
  std::uint64_t records = 0;
  for (auto _ : state) {
    NullSink sink;
    readOtf2(anchor, sink);
    records = sink.records;
  }
  state.counters["sink_records"] = static_cast<double>(records);
}
BENCHMARK(BM_Otf2ReadIntoNullSink)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// Argument: LoadOptions::threads (0: the default, one per core; 1: one thread, pipelined).
void BM_Otf2LoadModel(benchmark::State& state) {
  const std::string anchor = bench::otf2Archive(bench::targetEvents(kOtf2Events));
  LoadOptions opts;
  opts.threads = static_cast<unsigned>(state.range(0));
  std::uint64_t events = 0, records = 0;
  double bytesPerEvent = 0, bytesPerRecord = 0, rssPerEvent = 0;
  for (auto _ : state) {
    std::uint64_t rssBefore = bench::residentSetBytes();
    Trace t = loadTrace(anchor, opts);
    std::uint64_t rssAfter = bench::residentSetBytes();
    events = t.eventCount();
    records = t.sourceRecords;
    bytesPerEvent = static_cast<double>(t.residentBytes()) / static_cast<double>(events);
    bytesPerRecord = static_cast<double>(t.residentBytes()) / static_cast<double>(records);
    rssPerEvent = (static_cast<double>(rssAfter) - static_cast<double>(rssBefore)) /
                  static_cast<double>(events);
    benchmark::DoNotOptimize(t.endTime);
    state.PauseTiming();  // freeing the model is not part of loading
    { Trace gone = std::move(t); }
    state.ResumeTiming();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["records"] = static_cast<double>(records);
  state.counters["model_bytes_per_event"] = bytesPerEvent;
  state.counters["model_bytes_per_record"] = bytesPerRecord;
  state.counters["rss_bytes_per_event"] = rssPerEvent;
}
BENCHMARK(BM_Otf2LoadModel)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// ALOG `file` loaded on state.range(0) threads (1: one; 0: one per core — pass 1 over byte
// chunks, pass 2 over ranges of processes; issue #42), timed file to model.
void alogLoad(benchmark::State& state, const std::string& file) {
  const auto bytes = std::filesystem::file_size(file);
  LoadOptions opts;
  opts.threads = static_cast<unsigned>(state.range(0));
  std::uint64_t events = 0;
  double bytesPerEvent = 0;
  for (auto _ : state) {
    Trace t = loadTrace(file, opts);
    events = t.eventCount();
    bytesPerEvent = static_cast<double>(t.residentBytes()) / static_cast<double>(events);
    state.PauseTiming();
    { Trace gone = std::move(t); }
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["events"] = static_cast<double>(events);
  state.counters["model_bytes_per_event"] = bytesPerEvent;
}

// The bench shape at 10^6 events.
void BM_AlogLoad(benchmark::State& state) { alogLoad(state, bench::alogFile(kAlogEvents)); }
BENCHMARK(BM_AlogLoad)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// Issue #42's ring (bench::ringSpec, 3,072,000 events; target: >= 200 MB/s on 2 cores).
void BM_AlogLoadRing(benchmark::State& state) { alogLoad(state, bench::alogRing()); }
BENCHMARK(BM_AlogLoadRing)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

// OTF (issue #17): the model load against the reference library's own tool on the same trace,
// `otfprint` (every record decoded and printed; its output goes to /dev/null), in one run.
// Target: records/s of the load >= 0.5 x otfprint's. 3.85·10^6 events are about 10^7 records.
constexpr std::uint64_t kOtfEvents = 3'850'000;

// The same trace uncompressed (arg 0) and with its streams zlib-compressed by otfcompress
// (arg 1, as VampirTrace writes them): target (issue #37) >= 0.5 x the uncompressed records/s.
void BM_OtfLoad(benchmark::State& state) {
  const std::string anchor = state.range(0) ? bench::otfTraceCompressed(kOtfEvents) : bench::otfTrace(kOtfEvents);
  if (anchor.empty()) {
    state.SkipWithError("otfcompress not installed (Debian package otf-trace)");
    return;
  }
  std::uint64_t events = 0, records = 0;
  double bytesPerEvent = 0;
  for (auto _ : state) {
    Trace t = loadTrace(anchor);
    events = t.eventCount();
    records = t.sourceRecords;
    bytesPerEvent = static_cast<double>(t.residentBytes()) / static_cast<double>(events);
    state.PauseTiming();
    { Trace gone = std::move(t); }
    state.ResumeTiming();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["records"] = static_cast<double>(records);
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(records) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["model_bytes_per_event"] = bytesPerEvent;
}
BENCHMARK(BM_OtfLoad)->Arg(0)->Arg(1)->ArgName("compressed")->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_OtfprintReference(benchmark::State& state) {
  if (!std::filesystem::exists("/usr/bin/otfprint")) {
    state.SkipWithError("otfprint not installed (Debian package otf-trace)");
    return;
  }
  const std::string anchor = bench::otfTrace(kOtfEvents);
  const std::string cmd = "/usr/bin/otfprint '" + anchor + "' > /dev/null 2>&1";
  for (auto _ : state)
    if (std::system(cmd.c_str()) != 0) state.SkipWithError("otfprint failed");
}
BENCHMARK(BM_OtfprintReference)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// Issue #38 item 6: writing an OTF2 archive of many ranks (`generate --ranks 20000 --steps 1`:
// 20,000 locations, 3 events each). The whole write runs in a child process per iteration, so
// `peak_rss_mb` is that write's own peak resident set (wait4's ru_maxrss), not the benchmark's
// (target: <= 1 GB; it was 5.1 GB). Then the archive is loaded in a child with at most 1,024
// open files (the common default; libotf2 kept a file per location open: 1,020 ranks were the
// most that loaded), `read_ok` = 1 when it loaded all 20,000 ranks.
void BM_Otf2WriteManyRanks(benchmark::State& state) {
  const auto ranks = static_cast<std::uint32_t>(state.range(0));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("perwiz-bench-ranks-" + std::to_string(::getpid()));
  double peakMb = 0;
  bool readOk = true;
  for (auto _ : state) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "t.otf2").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      GeneratorSpec spec;
      spec.ranks = ranks;
      spec.steps = 1;
      try {
        auto w = makeOtf2Writer(out);
        generateTrace(spec, *w);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) state.SkipWithError("the write failed");
    peakMb = std::max(peakMb, static_cast<double>(ru.ru_maxrss) * 1024 / 1e6);
    state.PauseTiming();
    const pid_t reader = ::fork();
    if (reader == 0) {
      rlimit files{1024, 1024};
      ::setrlimit(RLIMIT_NOFILE, &files);
      try {
        ::_exit(loadTrace(out).rankCount() == ranks ? 0 : 1);
      } catch (...) {
        ::_exit(1);
      }
    }
    ::waitpid(reader, &status, 0);
    readOk = readOk && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    state.ResumeTiming();
  }
  std::filesystem::remove_all(dir);
  state.counters["peak_rss_mb"] = peakMb;
  state.counters["read_ok"] = readOk ? 1 : 0;
}
BENCHMARK(BM_Otf2WriteManyRanks)->Arg(20000)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The model's times read back (TimeColumn, bit-packed: docs/trace-model.md): 2 * 10^7
// increasing times 1-61 us apart, read one by one (operator[]) and a block at a time
// (decode, as the timeline's sweep reads them). items_per_second: times read.
TimeColumn& benchColumn() {
  static TimeColumn c = [] {
    TimeColumn col;
    std::uint64_t x = 88172645463325252ull;  // xorshift64
    TimeNs t = 0;
    for (int i = 0; i < 20'000'000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      t += 1000 + TimeNs(x % 60000);
      col.push_back(t);
    }
    col.seal();
    return col;
  }();
  return c;
}

void BM_TimeColumnRead(benchmark::State& state) {
  const TimeColumn& c = benchColumn();
  for (auto _ : state) {
    TimeNs s = 0;
    for (std::size_t i = 0; i < c.size(); ++i) s += c[i];
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * c.size()));
}
BENCHMARK(BM_TimeColumnRead)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TimeColumnDecode(benchmark::State& state) {
  const TimeColumn& c = benchColumn();
  TimeNs buf[256];
  for (auto _ : state) {
    TimeNs s = 0;
    for (std::size_t i = 0; i < c.size(); i += 256) {
      const std::size_t n = std::min<std::size_t>(256, c.size() - i);
      c.decode(i, n, buf);
      for (std::size_t k = 0; k < n; ++k) s += buf[k];
    }
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * c.size()));
}
BENCHMARK(BM_TimeColumnDecode)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// Issue #42: the model's bytes per event for every generator shape (64 ranks, 10^6 events; the
// ratio does not depend on the size), built in memory by the generator, and where they go.
// Argument: the shape (0 blocking Sendrecv ring, the default; 1 Send/Recv ring; 2 non-blocking
// ring; 3 random; 4 pairs; 5 an Allreduce per step only). Budget: 32 B/event.
void BM_ModelPerShape(benchmark::State& state) {
  GeneratorSpec spec;
  spec.ranks = 64;
  switch (state.range(0)) {
    case 1: spec.blockingCalls = BlockingCalls::SendThenRecv; break;
    case 2: spec.nonBlocking = true; break;
    case 3: spec.pattern = P2PPattern::Random; break;
    case 4: spec.pattern = P2PPattern::Pairs; break;
    case 5: spec.pattern = P2PPattern::None; break;
    default: break;
  }
  spec = specForEventCount(spec, bench::targetEvents(1000000));
  double events = 0, total = 0, messages = 0, collectives = 0, times = 0, functions = 0, other = 0;
  for (auto _ : state) {
    TraceBuilder b("shape", "generated");
    generateTrace(spec, b);
    Trace t = b.take();
    events = static_cast<double>(t.eventCount());
    total = static_cast<double>(t.residentBytes());
    messages = collectives = times = functions = 0;
    for (const RankTrace& r : t.ranks) {
      messages += static_cast<double>(r.messages.residentBytes());
      collectives += static_cast<double>(r.collectives.residentBytes());
      times += static_cast<double>(r.enter.residentBytes() + r.leave.residentBytes());
      functions += static_cast<double>(r.function.size() * sizeof(r.function[0]));
    }
    other = total - messages - collectives - times - functions;
    state.PauseTiming();
    { Trace gone = std::move(t); }
    state.ResumeTiming();
  }
  state.counters["events"] = events;
  state.counters["model_bytes_per_event"] = total / events;
  state.counters["messages_B"] = messages / events;
  state.counters["collectives_B"] = collectives / events;
  state.counters["times_B"] = times / events;
  state.counters["function_B"] = functions / events;
  state.counters["other_B"] = other / events;
}
BENCHMARK(BM_ModelPerShape)
    ->ArgName("shape")
    ->DenseRange(0, 5)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

BENCHMARK_MAIN();
