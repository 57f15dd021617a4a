// MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort and MPI_Pcontrol (the PRGN markers).
#include "call.h"
#include "markers.h"
#include "session.h"

#include "perwiz/prgn.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

using namespace perwiz::trace;

namespace {

// Basename of argv[0] for the default trace name; null lets the session pick its fallback.
const char* programName(int* argc, char*** argv) {
  if (argc && argv && *argv && *argc > 0 && (*argv)[0] && (*argv)[0][0]) {
    const char* slash = std::strrchr((*argv)[0], '/');
    return slash ? slash + 1 : (*argv)[0];
  }
  return nullptr;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const std::uint64_t enter = now();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) sessionStart(enter, Region::Init, programName(argc, argv));
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const std::uint64_t enter = now();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) sessionStart(enter, Region::Init_thread, programName(argc, argv));
  // The record buffer is per rank, not per thread (docs/tracer.md, Limits).
  if (rc == MPI_SUCCESS && g.active && g.rank == 0 && *provided == MPI_THREAD_MULTIPLE)
    std::fprintf(stderr,
                 "perwiz-trace: MPI_THREAD_MULTIPLE: the trace is only right if one thread at a "
                 "time calls MPI\n");
  return rc;
}

int MPI_Finalize(void) {
  sessionFinish();
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  sessionAbort(errorcode);
  return PMPI_Abort(comm, errorcode);
}

// prgn.h passes the region name (const char*, may be null) after the level. Other levels go to
// the MPI library unchanged (MPI_Pcontrol has no portable way to forward the variadic part).
int MPI_Pcontrol(const int level, ...) {
  if (level == PERWIZ_PCONTROL_PRGN_BEGIN || level == PERWIZ_PCONTROL_PRGN_END) {
    va_list ap;
    va_start(ap, level);
    const char* name = va_arg(ap, const char*);
    va_end(ap);
    prgnMarker(level == PERWIZ_PCONTROL_PRGN_BEGIN, name);
    return MPI_SUCCESS;
  }
  return PMPI_Pcontrol(level);
}

// The same markers without MPI_Pcontrol: prgn.h under SMPI (whose MPI_Pcontrol aborts) and the
// Fortran module call this through a weak reference, so they do nothing without the tracer.
int perwiz_pcontrol(int level, const char* name) {
  if (level == PERWIZ_PCONTROL_PRGN_BEGIN || level == PERWIZ_PCONTROL_PRGN_END)
    prgnMarker(level == PERWIZ_PCONTROL_PRGN_BEGIN, name);
  return MPI_SUCCESS;
}

}  // extern "C"
