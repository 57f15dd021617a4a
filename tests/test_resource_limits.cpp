// Resource limits when loading (issue #15, item 5): special files, counts that the files'
// sizes cannot back, the memory estimate, out of memory. Every load of a bad input runs in a
// child process under an address-space limit and an alarm, so a regression (unbounded memory,
// a blocking open) fails the test instead of eating the machine or hanging it.
#include "test_support.h"

#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <malloc.h>
#include <map>
#include <new>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace perwiz;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// AddressSanitizer maps terabytes of shadow memory and keeps a quarantine of freed blocks, so
// an address-space limit there measures ASan, not us: the children then run with the alarm only.
// GCC defines __SANITIZE_ADDRESS__; clang 14 (the sanitizer build in CI) only __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define PERWIZ_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PERWIZ_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(PERWIZ_TEST_UNDER_ASAN)
constexpr bool kLimitAddressSpace = false;
#else
constexpr bool kLimitAddressSpace = true;
#endif

std::uint64_t vmSizeBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

// What a child run ended with: "TraceError: <what()>", "OK", "bad_alloc", "exception: ...",
// or "killed by signal N" (SIGALRM: it hung; SIGABRT/SIGSEGV: it crashed).
std::string runLimited(const std::function<void()>& body, std::uint64_t extraBytes = 256 * kMiB,
                       unsigned seconds = 20) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const std::uint64_t limit = vmSizeBytes() + extraBytes;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    rlimit rl{limit, limit};
    if (kLimitAddressSpace) ::setrlimit(RLIMIT_AS, &rl);
    ::alarm(seconds);
    std::string out;
    try {
      body();
      out = "OK";
    } catch (const TraceError& e) {
      out = std::string("TraceError: ") + e.what();
    } catch (const std::bad_alloc&) {
      out = "bad_alloc";
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
    }
    ssize_t ignored = ::write(fds[1], out.data(), out.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return text;
}

std::string loadLimited(const std::string& path, std::uint64_t extraBytes = 256 * kMiB) {
  return runLimited([&] { loadTrace(path); }, extraBytes);
}

// A small OTF2 archive written by the project's own writer: 4 ranks, 10 steps.
fs::path writeSmallOtf2(const fs::path& dir, GeneratorSpec spec = {}) {
  auto writer = makeOtf2Writer(dir.string());
  generateTrace(spec, *writer);
  return dir;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void writeBytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Offset of the anchor's 32-bit property count: 2 chunk-header bytes, "OTF2\0", the anchor
// format byte, 38 bytes of fixed fields, then three NUL-terminated strings (libotf2 3.0
// OTF2_AnchorFile_Load).
std::size_t propertyCountOffset(const std::string& anchor) {
  std::size_t pos = 2 + 5 + 1 + 38;
  for (int s = 0; s < 3; ++s) pos = anchor.find('\0', pos) + 1;
  return pos;
}

}  // namespace

TEST(ResourceLimits, SpecialFilesAreRefusedWithoutOpeningThem) {
  const fs::path dir = test::freshDir("limits_special");
  const fs::path fifo = dir / "trace.alog";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // Without the stat check the open blocks (no writer) and the alarm kills the child.
  EXPECT_EQ(loadLimited(fifo.string()),
            "TraceError: " + fifo.string() + ": not a regular file (a named pipe (FIFO))");
  EXPECT_EQ(runLimited([&] { detectFormat(fifo.string()); }),
            "TraceError: " + fifo.string() + ": not a regular file (a named pipe (FIFO))");

  // /dev/zero: endless bytes without a line end.
  EXPECT_EQ(loadLimited("/dev/zero"), "TraceError: /dev/zero: not a regular file (a character device)");

  // A socket.
  const fs::path sock = dir / "s.otf2";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  EXPECT_EQ(loadLimited(sock.string()), "TraceError: " + sock.string() + ": not a regular file (a socket)");
  ::close(fd);

  // A directory where a trace file is expected (no anchor in it).
  fs::create_directories(dir / "empty_dir");
  EXPECT_NE(loadLimited((dir / "empty_dir").string()).find("no OTF2 anchor file"), std::string::npos);

  // Inside an archive: a FIFO in place of a location's event file (libotf2 would open it).
  const fs::path archive = writeSmallOtf2(dir / "archive");
  const fs::path evt = archive / "traces" / "0.evt";
  fs::remove(evt);
  ASSERT_EQ(::mkfifo(evt.c_str(), 0600), 0);
  EXPECT_EQ(loadLimited(archive.string()),
            "TraceError: " + archive.string() + ": event file " + evt.string() + ": not a regular file");
}

// libotf2 3.0 reads as many anchor properties as the anchor's count says: past the end of the
// file it scans the heap for string ends (it grew to 11-12 GB in 60 s), and a count >= 2^31
// overflows its array size (heap corruption, abort).
// Issue #38 item 6: format detection reads a fixed number of bytes. A 1 GiB file of NULs (or
// of one line without an end) used to be read as one line, 2.1 GB to say "unknown trace
// format"; now it is refused within 64 MiB of address space beyond what the process holds (the
// files are sparse: they take no disk space).
TEST(ResourceLimits, DetectionOfAGigabyteFileStaysWithin64MiB) {
  const fs::path dir = perwiz::test::freshDir("ResourceLimits_detect");
  const fs::path nul = dir / "nul.bin", line = dir / "line.txt";
  {
    std::ofstream(nul, std::ios::binary).put('\0');
    fs::resize_file(nul, std::uintmax_t(1) << 30);
    std::ofstream(line, std::ios::binary) << "# a comment whose line never ends ";
    fs::resize_file(line, std::uintmax_t(1) << 30);
  }
  for (const fs::path& p : {nul, line}) {
    SCOPED_TRACE(p.filename().string());
    const std::string r = runLimited([&] { loadTrace(p.string()); }, 64 * kMiB);
    EXPECT_EQ(r.rfind("TraceError: " + p.string() + ": ", 0), 0u) << r;
    EXPECT_EQ(r.find("memory"), std::string::npos) << r;
  }
}

// Issue #38 item 6: the OTF2 writer keeps every location's writer open; its memory is
// estimated in begin() and a write that cannot fit is refused before anything is written.
TEST(ResourceLimits, Otf2WriterRefusesWhatDoesNotFitBeforeWriting) {
  const fs::path dir = perwiz::test::freshDir("ResourceLimits_otf2write");
  const fs::path out = dir / "t.otf2";
  ::setenv("PERWIZ_MEMORY_AVAILABLE", "100M", 1);
  std::string error;
  try {
    GeneratorSpec spec;
    spec.ranks = 20000;
    spec.steps = 1;
    auto w = makeOtf2Writer(out.string());
    generateTrace(spec, *w);
  } catch (const TraceError& e) {
    error = e.what();
  }
  ::unsetenv("PERWIZ_MEMORY_AVAILABLE");
  // 16 MiB + 20,000 x 8 KiB = 180,551,680 B, printed as "172 MB" (binary units).
  EXPECT_EQ(error, out.string() + ": needs about 172 MB of memory to write its 20000 locations, 100 MB available");
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(ResourceLimits, AnchorPropertyCountBeyondTheFileIsRefused) {
  const fs::path dir = test::freshDir("limits_anchor");
  const fs::path archive = writeSmallOtf2(dir / "a");
  const fs::path anchor = archive / "traces.otf2";
  const std::string good = readBytes(anchor);
  const std::size_t at = propertyCountOffset(good);
  ASSERT_LT(at + 4, good.size());
  // Our writer sets one property (OTF2::MPI_COMMUNICATION_COMPLETE), little endian.
  ASSERT_EQ(good.substr(at, 4), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(loadLimited(archive.string()), "OK");
  const std::size_t left = good.size() - at - 4;  // bytes after the count

  struct Case {
    unsigned char top;  // new most significant byte of the count
    std::uint64_t count;
  };
  for (const Case c : {Case{0x01, (1u << 24) + 1}, Case{0x80, (1u << 31) + 1}}) {
    std::string bad = good;
    bad[at + 3] = static_cast<char>(c.top);
    writeBytes(anchor, bad);
    EXPECT_EQ(loadLimited(archive.string()),
              "TraceError: " + archive.string() + ": corrupt OTF2 anchor file " + anchor.string() +
                  ": it declares " + std::to_string(c.count) + " properties, but its " +
                  std::to_string(left) + " remaining bytes hold at most " + std::to_string(left / 2));
  }
  // A count that fits the bytes but runs past the strings: 20 properties need 40 strings.
  std::string bad = good;
  bad[at] = 20;
  writeBytes(anchor, bad);
  EXPECT_NE(loadLimited(archive.string()).find("declares 20 properties, but the file ends inside property"),
            std::string::npos);
  // Far larger than any anchor.
  writeBytes(anchor, good + std::string(2 * kMiB, '\0'));
  EXPECT_NE(loadLimited(archive.string()).find("a real anchor has a few hundred"), std::string::npos);
}

// libotf2 3.0 reads a Group definition's members with a loop over the count the record
// declares and no look at the end of its buffer: a count beyond the record read past the file
// (SIGSEGV in OTF2_Buffer_ReadUint64; found by fuzz_otf2 in CI). The records are walked here by
// hand, as libotf2 frames them: an 18-byte chunk header, then per record a type byte and a
// length byte; a Group (type 18) holds self and name (compressed: a size byte, then that many
// bytes), an 8-bit type, the compressed member count, then the members.
TEST(ResourceLimits, GroupMemberCountBeyondItsRecordIsRefused) {
  const fs::path dir = test::freshDir("limits_group");
  const fs::path archive = writeSmallOtf2(dir / "a");
  const fs::path defs = archive / "traces.def";
  const std::string good = readBytes(defs);
  EXPECT_EQ(loadLimited(archive.string()), "OK");
  // The first group with members: the offset of its record and of its count.
  std::size_t record = 0, countAt = 0, length = 0;
  for (std::size_t pos = 18; pos + 1 < good.size() && !countAt;) {
    const auto type = static_cast<unsigned char>(good[pos]);
    if (type == 0 || type == 2) break;  // end of chunk / of file
    length = static_cast<unsigned char>(good[pos + 1]);
    ASSERT_NE(length, 0xffu) << "our writer's groups are small";
    if (type == 18) {
      std::size_t at = pos + 2;
      at += 1 + static_cast<unsigned char>(good[at]);  // self
      at += 1 + static_cast<unsigned char>(good[at]);  // name
      at += 1;                                         // type before OTF2 1.2
      if (good[at] != 0) {                              // a non-zero count
        record = pos;
        countAt = at;
      }
    }
    pos += 2 + length;
  }
  ASSERT_NE(countAt, 0u) << "the generated archive has a group with members";
  ASSERT_EQ(good[countAt], 1) << "a count below 256: one byte after its size byte";
  // The count made 200 (each member takes at least one byte: the record has fewer), then
  // 2^32 - 2 (0xfffffffe; libotf2 would also malloc 32 GB for it).
  std::string bad = good;
  bad[countAt + 1] = static_cast<char>(200);
  writeBytes(defs, bad);
  const std::string prefix = "TraceError: " + archive.string() + ": corrupt OTF2 global definition file " +
                             defs.string() + ": the group definition at byte " + std::to_string(record) +
                             " declares ";
  const std::string got = loadLimited(archive.string());
  EXPECT_EQ(got.rfind(prefix + "200 members, but its " + std::to_string(length) + "-byte record ends inside member ", 0), 0u)
      << got;
  bad = good;
  bad.replace(countAt, 2, std::string("\x04\xfe\xff\xff\xff", 5));
  // The record's length byte grows by the 3 bytes inserted, so that only the count is wrong.
  bad[record + 1] = static_cast<char>(length + 3);
  writeBytes(defs, bad);
  const std::string huge = loadLimited(archive.string());
  EXPECT_EQ(huge.rfind(prefix + "4294967294 members", 0), 0u) << huge;
}

// Every byte of a 2-rank, 1-step archive's global definition file set to 00 and to ff, each
// loaded in a child: a clear error or a trace, never a signal (before the group check, bytes
// 290 and 292, a group's self and name fields, crashed libotf2: their shift turned member bytes
// into a count of 16,777,729, and the member loop read 16 MB past the buffer).
TEST(ResourceLimits, EveryByteOfTheGlobalDefinitionsDamagedIsAnErrorOrATrace) {
  const fs::path dir = test::freshDir("limits_defs_bytes");
  GeneratorSpec spec;
  spec.ranks = 2;
  spec.steps = 1;
  const fs::path archive = writeSmallOtf2(dir / "a", spec);
  const fs::path defs = archive / "traces.def";
  const std::string good = readBytes(defs);
  int errors = 0;
  for (std::size_t i = 0; i < good.size(); ++i)
    for (const char v : {'\x00', '\xff'}) {
      if (good[i] == v) continue;
      std::string bad = good;
      bad[i] = v;
      writeBytes(defs, bad);
      const std::string got = loadLimited(archive.string());
      if (got.rfind("TraceError: " + archive.string() + ": ", 0) == 0) ++errors;
      else EXPECT_EQ(got, "OK") << "byte " << i << " set to " << int(static_cast<unsigned char>(v));
    }
  EXPECT_GT(errors, 0);
}

namespace {

void ok(OTF2_ErrorCode rc) {
  if (rc != OTF2_SUCCESS) ADD_FAILURE() << "libotf2: " << OTF2_Error_GetName(rc);
}
OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {&preFlush, nullptr};

// One MPI process whose location claims `claimedEvents` in the global definitions; it holds
// `calls` MPI_Barrier calls (2 records each). With comms > 0 it also defines that many
// communicators on one group of `groupMembers` members (all the one rank).
void writeClaimingArchive(const fs::path& dir, std::uint64_t claimedEvents, int calls,
                          std::uint32_t comms = 0, std::uint32_t groupMembers = 0) {
  OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE,
                                      OTF2_CHUNK_SIZE_EVENTS_DEFAULT, OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(a, nullptr);
  ok(OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr));
  ok(OTF2_Archive_SetSerialCollectiveCallbacks(a));
  ok(OTF2_Archive_OpenEvtFiles(a));
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 0);
  for (int i = 0; i < calls; ++i) {
    ok(OTF2_EvtWriter_Enter(w, nullptr, 10 * i, 0));
    ok(OTF2_EvtWriter_Leave(w, nullptr, 10 * i + 5, 0));
  }
  ok(OTF2_Archive_CloseEvtWriter(a, w));
  ok(OTF2_Archive_CloseEvtFiles(a));
  ok(OTF2_Archive_OpenDefFiles(a));
  ok(OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 0)));
  ok(OTF2_Archive_CloseDefFiles(a));
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
  ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 10 * calls, OTF2_UNDEFINED_TIMESTAMP));
  ok(OTF2_GlobalDefWriter_WriteString(g, 0, ""));
  ok(OTF2_GlobalDefWriter_WriteString(g, 1, "MPI_Barrier"));
  ok(OTF2_GlobalDefWriter_WriteString(g, 2, "rank 0"));
  ok(OTF2_GlobalDefWriter_WriteString(g, 3, "node"));
  ok(OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI,
                                      OTF2_REGION_FLAG_NONE, 0, 0, 0));
  ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                             OTF2_UNDEFINED_LOCATION_GROUP));
  ok(OTF2_GlobalDefWriter_WriteLocation(g, 0, 2, OTF2_LOCATION_TYPE_CPU_THREAD, claimedEvents, 0));
  if (comms > 0) {
    const std::uint64_t loc = 0;
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, 1, &loc));
    const std::vector<std::uint64_t> members(groupMembers, 0);
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, groupMembers, members.data()));
    for (std::uint32_t c = 0; c < comms; ++c)
      ok(OTF2_GlobalDefWriter_WriteComm(g, c, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  }
  ok(OTF2_Archive_CloseGlobalDefWriter(a, g));
  ok(OTF2_Archive_Close(a));
}

// Records what a reader announces per rank.
class ExpectationSink final : public TraceSink {
 public:
  std::map<std::uint32_t, std::uint64_t> expected;
  std::uint64_t enters = 0;
  void begin(const TraceHeader&) override {}
  std::uint32_t defineFunction(const Function&) override { return 0; }
  std::uint32_t defineComm(const Communicator&) override { return 1; }
  void enter(std::uint32_t, TimeNs, std::uint32_t) override { ++enters; }
  void leave(std::uint32_t, TimeNs, std::uint32_t) override {}
  void point(std::uint32_t, TimeNs, std::uint32_t, std::string_view) override {}
  void send(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {}
  void recv(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {}
  void isendComplete(std::uint32_t, TimeNs, std::uint64_t) override {}
  void irecvRequest(std::uint32_t, TimeNs, std::uint64_t) override {}
  void collective(std::uint32_t, TimeNs, MpiOp, std::uint32_t, std::int32_t, std::uint64_t,
                  std::uint64_t) override {}
  void expectRecords(std::uint32_t rank, std::uint64_t records) override { expected[rank] = records; }
  void end() override {}
};

}  // namespace

// A location claiming 2^62 events in a small archive once made the builder reserve ~67 GB and
// fail with a bare std::bad_alloc.
TEST(ResourceLimits, Otf2EventCountsAreBoundedByTheEventFiles) {
  const fs::path dir = test::freshDir("limits_claim") / "claim";
  writeClaimingArchive(dir, std::uint64_t{1} << 62, 3);
  const std::uint64_t evtBytes = fs::file_size(dir / "traces" / "0.evt");
  ExpectationSink sink;
  readOtf2(dir.string(), sink);
  ASSERT_EQ(sink.expected.size(), 1u);
  // Every event record takes at least 2 bytes (type and length), so the file holds at most
  // evtBytes / 2 records; the claim is cut to that.
  EXPECT_EQ(sink.expected[0], evtBytes / 2);
  EXPECT_EQ(sink.enters, 3u);
  // The whole load, under a 256 MB address-space limit: 3 calls.
  EXPECT_EQ(runLimited([&] {
              Trace t = loadTrace(dir.string());
              if (t.eventCount() != 3) throw std::runtime_error("events: " + std::to_string(t.eventCount()));
            }),
            "OK");
}

// Communicator records copy their group: 100 comms naming one group of 100,000 members are
// 10^7 world-rank entries, 3 x 4 B each while building (120 MB), from a 100 KB definition file.
TEST(ResourceLimits, Otf2CommunicatorsMustFitTheMemory) {
  const fs::path dir = test::freshDir("limits_comms") / "comms";
  writeClaimingArchive(dir, 2, 1, 100, 100000);
  ASSERT_LT(fs::file_size(dir / "traces.def"), 200000u);
  ExpectationSink sink;
  LoadOptions tight;
  tight.memoryAvailable = 64 * kMiB;  // 64 MiB / 12 B = 5,592,405 entries < 10^7
  try {
    readOtf2(dir.string(), sink, tight);
    ADD_FAILURE() << "read";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": its 100 communicators list 10000000 members "
                                                     "in all, about 114 MB; 64 MB available");
  }
  // The whole load under an address-space limit of 64 MiB more than the test uses.
  if (kLimitAddressSpace) {
    EXPECT_NE(runLimited([&] { loadTrace(dir.string()); }, 64 * kMiB).find("members in all"),
              std::string::npos);
  }
  // Fewer comms fit: 10 x 100,000 = 10^6 entries, 11 MB.
  const fs::path few = test::freshDir("limits_comms_few") / "comms";
  writeClaimingArchive(few, 2, 1, 10, 100000);
  EXPECT_EQ(loadTrace(few.string()).comms.size(), 11u);  // WORLD + the 10
}

// "1 1000000 0 0 0 0" (17 bytes) once built a million empty ranks (438 MB); converting that to
// OTF2 took more than 6 GB.
TEST(ResourceLimits, AlogProcessIdsMustBeBackedByRecords) {
  const fs::path dir = test::freshDir("limits_alog");
  const fs::path one = test::writeFile(dir / "one.alog", "1 1000000 0 0 0 0\n");
  EXPECT_EQ(loadLimited(one.string(), 128 * kMiB),
            "TraceError: " + one.string() + ": 1000001 processes but only 1 data records (every "
            "process logs at least one record; up to 4096 processes are accepted without): "
            "process id 1000000 at line 1");
  // The same through a -3 process count.
  const fs::path np = test::writeFile(dir / "np.alog", "-3 0 0 500000 0 0\n1 0 0 0 0 5\n");
  EXPECT_NE(loadLimited(np.string(), 128 * kMiB).find(": process count 500000 (-3) at line 1"),
            std::string::npos);
  // A few processes without records stay accepted (a -3 header naming 8, records of 1).
  const fs::path few = test::writeFile(dir / "few.alog", "-3 0 0 8 0 0\n1 7 0 0 0 5\n");
  Trace t = loadTrace(few.string());
  EXPECT_EQ(t.rankCount(), 8u);
}

TEST(ResourceLimits, LoadRefusesWhatDoesNotFitTheMemoryEstimate) {
  const fs::path dir = test::freshDir("limits_estimate");
  // 1000 lines of 12 bytes: the estimate is 32 MiB + 3 B per ALOG byte (trace_io.cpp,
  // docs/performance.md) = 33,554,432 + 36,000.
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "1 0 0 0 0 " + std::to_string(i % 10) + "\n";
  const fs::path alog = test::writeFile(dir / "t.alog", text);
  ASSERT_EQ(fs::file_size(alog), 12000u);
  EXPECT_EQ(estimateLoadMemory(alog.string()), 33554432u + 36000u);
  LoadOptions tight;
  tight.memoryAvailable = 16 * kMiB;
  try {
    loadTrace(alog.string(), tight);
    ADD_FAILURE() << "loaded";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), alog.string() + ": needs about 32 MB of memory to load, 16 MB available");
  }
  LoadOptions roomy;
  roomy.memoryAvailable = 64 * kMiB;
  EXPECT_EQ(loadTrace(alog.string(), roomy).eventCount(), 1000u);

  // The default budget comes from the system; the environment variable overrides it.
  ::setenv("PERWIZ_MEMORY_AVAILABLE", "20M", 1);
  EXPECT_EQ(availableMemory(), 20 * kMiB);
  EXPECT_THROW(loadTrace(alog.string()), TraceError);
  ::unsetenv("PERWIZ_MEMORY_AVAILABLE");
  // Under an address-space limit, what is left below it counts (at most the limit's headroom).
  if (!kLimitAddressSpace) return;
  EXPECT_EQ(runLimited([] {
              if (availableMemory() > 64 * kMiB) throw std::runtime_error("ignores RLIMIT_AS");
            }, 64 * kMiB),
            "OK");
}

// The replay's estimate covers what a Replayer really keeps, and a replay that does not fit is
// refused with it before it starts (issue #16: never killed by the kernel part-way).
TEST(ResourceLimits, ReplayEstimateCoversTheReplayerAndRefusesWhatDoesNotFit) {
  GeneratorSpec spec;
  spec.ranks = 16;
  spec.steps = 400;
  spec.nonBlocking = true;
  spec.imbalance = 0.2;
  TraceBuilder b("estimate", "generated");
  generateTrace(spec, b);
  const Trace t = b.take();
  std::uint64_t calls = 0, endpoints = 0, members = 0;
  for (const RankTrace& rt : t.ranks) {
    calls += rt.mpiCalls.size() + 1;
    endpoints += rt.messages.size();
    members += rt.collectives.size();
  }
  // 1 MiB + 26 B per call (and per rank's end) + 20 B per endpoint + 30 B per member; cost
  // mode "model" 26 B more per call and 24 B more per endpoint.
  const std::uint64_t estimate = estimateReplayMemory(t);
  EXPECT_EQ(estimate, (1u << 20) + 26 * calls + 20 * endpoints + 30 * members);
  const std::uint64_t modelEstimate = estimateReplayMemory(t, CostMode::Model);
  EXPECT_EQ(modelEstimate, (1u << 20) + 52 * calls + 44 * endpoints + 30 * members);
  // What the constructor keeps allocated (mallinfo2: the heap in use, small and mmapped).
  auto inUse = [] {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<std::uint64_t>(m.uordblks + m.hblkhd);
  };
  // (Sanitizers replace malloc and mallinfo2 reports nothing there.)
  if (kLimitAddressSpace) {
    const std::uint64_t before = inUse();
    auto rp = std::make_unique<Replayer>(t, Scenario{});
    const std::uint64_t kept = inUse() - before;
    EXPECT_GT(kept, estimate / 4) << "the estimate is far off what the replay holds";
    EXPECT_LE(kept, estimate);
    rp.reset();
    const std::uint64_t beforeModel = inUse();
    auto model = std::make_unique<Replayer>(t, Scenario{nullptr, CostMode::Model, {}});
    const std::uint64_t keptModel = inUse() - beforeModel;
    EXPECT_GT(keptModel, kept) << "cost mode model keeps more (its links, prices and waits)";
    EXPECT_LE(keptModel, modelEstimate);
  }
  try {
    requireMemory("t.otf2", estimate, "replay it", estimate - 1);
    ADD_FAILURE() << "not refused";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("t.otf2: needs about "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" of memory to replay it, "), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(requireMemory("t.otf2", estimate, "replay it", estimate));
}

// Running out of memory anyway (the estimate let it through) names the file and what was being
// built instead of a bare "std::bad_alloc".
TEST(ResourceLimits, OutOfMemoryNamesTheFileAndWhatWasBuilt) {
  if (!kLimitAddressSpace) GTEST_SKIP() << "needs an address-space limit (not under ASan)";
  const fs::path dir = test::freshDir("limits_oom");
  // 200,000 point events on one rank: 200,000 x 21 B of columns (4.2 MB, and twice that while a
  // vector grows), far above the 2 MiB the child gets beyond the mapped file.
  std::string text;
  text.reserve(200000 * 12);
  for (int i = 0; i < 200000; ++i) text += "1 0 0 0 0 " + std::to_string(i % 10) + "\n";
  const fs::path alog = test::writeFile(dir / "big.alog", text);
  const std::string got = runLimited(
      [&] {
        LoadOptions o;
        o.memoryAvailable = std::uint64_t{1} << 40;  // pretend there is plenty
        loadTrace(alog.string(), o);
      },
      fs::file_size(alog) + 2 * kMiB);
  EXPECT_EQ(got.rfind("TraceError: " + alog.string() + ": out of memory while building the model of rank 0 (", 0), 0u)
      << got;
}
