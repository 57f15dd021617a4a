// The OTF2 writer of perwiz-mpi's processes: one archive written by all of them together.
#pragma once

#include "perwiz/process_group.h"
#include "perwiz/trace_io.h"
#include "perwiz/trace_sink.h"

#include <memory>
#include <string>
#include <vector>

namespace perwiz {

struct Otf2Share {
  ProcessGroup* group = nullptr;
  RankRange own;  // the ranks whose records this process writes (the others' stay empty)
  // The labels of this process's point events, in the order it writes them; every process's
  // are numbered in process order, as one writer numbers the labels of ranks 0, 1, ... (so the
  // archive is the one makeOtf2Writer writes, byte for byte).
  std::vector<std::string> labels;
};

// makeOtf2Writer's archive, each process writing the event files of `own` and process 0 the
// anchor and the global definitions (libotf2's collective mode over the group: otf2_group.h).
// Every process of the group calls the constructor, begin() and end() in the same order, with
// the same definitions; they are collective and a problem on any process (a file that exists,
// a write that fails, a record out of order) is raised on every process as GroupError.
// The path must be seen alike by every process (one machine, or a shared file system).
// Records it cannot write are held until end(); endAfter(problem) ends as end() does, with a
// problem of the caller's (a rank it failed to produce) agreed on too.
class Otf2GroupWriter : public TraceSink {
 public:
  virtual void endAfter(const std::string& problem) = 0;
  // Every record of `rank` is written: its event file is finished now and its buffers freed.
  virtual void rankDone(std::uint32_t rank) = 0;
};
std::unique_ptr<Otf2GroupWriter> makeOtf2GroupWriter(const std::string& path, Otf2Share share);

}  // namespace perwiz
