// What the Fortran wrappers need from the MPI library beneath: its Fortran sentinels
// (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS(ES)_IGNORE are addresses of special variables) and, for
// SMPI, its own Fortran MPI_Init/MPI_Finalize entries (which set up its Fortran layer).
//
// Open MPI 4.1's Fortran bindings (mpif.h, use mpi, use mpi_f08) call PMPI_ functions, not the
// C MPI_ ones (checked with nm: libmpi_mpifh.so has 367 undefined PMPI_ symbols and no MPI_
// one), so a C-only PMPI tool never sees a Fortran program's calls. The tracer therefore
// defines the Fortran entry points too (wrap_fortran.cpp): each converts its arguments and calls
// the tracer's C wrapper. SMPI's Fortran bindings call MPI_ functions, but from inside
// libsimgrid, which the per-rank copy of the tracer cannot interpose; the same wrappers serve.
#pragma once

#include <mpi.h>

#include <dlfcn.h>

extern "C" {
#ifdef PERWIZ_TRACE_SMPI
extern int mpi_in_place_;
extern int mpi_bottom_;
extern int mpi_status_ignore_;
extern int mpi_statuses_ignore_;
#else
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;
#endif
}

namespace perwiz::trace {

inline void* fortranBuffer(void* buf) {
#ifdef PERWIZ_TRACE_SMPI
  if (buf == &mpi_in_place_) return MPI_IN_PLACE;
  if (buf == &mpi_bottom_) return MPI_BOTTOM;
#else
  if (buf == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buf == &mpi_fortran_bottom_) return MPI_BOTTOM;
#endif
  return buf;
}

inline bool fortranStatusIgnored(const MPI_Fint* status) {
#ifdef PERWIZ_TRACE_SMPI
  return status == nullptr || status == &mpi_status_ignore_;
#else
  return status == MPI_F_STATUS_IGNORE;
#endif
}

inline bool fortranStatusesIgnored(const MPI_Fint* statuses) {
#ifdef PERWIZ_TRACE_SMPI
  return statuses == nullptr || statuses == &mpi_statuses_ignore_;
#else
  return statuses == MPI_F_STATUSES_IGNORE;
#endif
}

// MPI_STATUS_SIZE: a Fortran status holds a C status.
inline constexpr int kFortranStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);

using FortranErrFn = void (*)(MPI_Fint*);

#ifdef PERWIZ_TRACE_SMPI
// SimGrid's own Fortran MPI_INIT / MPI_FINALIZE (null if not found), asked from the library that
// implements PMPI_Init (libsimgrid): the per-rank copies SMPI loads make a global lookup
// (RTLD_DEFAULT) crash in the dynamic loader.
inline FortranErrFn libraryFortran(const char* name) {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) == 0 || !info.dli_fname) return nullptr;
  void* simgrid = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!simgrid) return nullptr;
  auto* fn = reinterpret_cast<FortranErrFn>(::dlsym(simgrid, name));
  ::dlclose(simgrid);  // drops the reference NOLOAD took; the library stays loaded
  return fn;
}
#endif

}  // namespace perwiz::trace
