/* Linked into the SMPI builds only. SimGrid 3.32's MPI_Pcontrol aborts ("Not yet implemented"),
 * so the PRGN markers (perwiz/prgn.h, which go through MPI_Pcontrol) would kill every untraced
 * simulated run. This weak no-op takes its place, as the MPI standard intends MPI_Pcontrol to
 * behave without a profiling tool; a tracer linked into the program defines the strong symbol
 * and wins. Under Open MPI, MPI_Pcontrol is already a no-op and this file is not compiled. */
#include <mpi.h>

__attribute__((weak)) int MPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}
