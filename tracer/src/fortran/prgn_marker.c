/* The C side of the Fortran markers (perwiz_prgn.f90): turns a Fortran string into a C string
 * and hands the marker to the tracer's entry point perwiz_pcontrol, referenced weakly: without
 * the tracer (untraced run) it is null and the markers do nothing. (Not MPI_Pcontrol, as prgn.h
 * does for C under Open MPI: SimGrid's SMPI aborts in MPI_Pcontrol, and this library is built
 * once for both.) With the tracer linked or LD_PRELOADed the reference resolves at load time.
 *
 * Also callable without the module, from old Fortran code: CALL PRGN_BEGIN() / CALL PRGN_END()
 * (external subroutines prgn_begin_ / prgn_end_, unnamed markers). */
#include <string.h>

int perwiz_pcontrol(int level, const char *name) __attribute__((weak));

void perwiz_prgn_marker(int level, const char *name, int length) {
  char buffer[256];
  const char *cname = 0;
  if (!perwiz_pcontrol) return;
  if (name && length > 0) {
    /* Fortran strings are blank-padded, not NUL-terminated. */
    while (length > 0 && name[length - 1] == ' ') --length;
    if (length > (int)sizeof buffer - 1) length = (int)sizeof buffer - 1;
    memcpy(buffer, name, (size_t)length);
    buffer[length] = '\0';
    if (length > 0) cname = buffer;
  }
  perwiz_pcontrol(level, cname);
}

void prgn_begin_(void) { perwiz_prgn_marker(7301, 0, 0); }
void prgn_end_(void) { perwiz_prgn_marker(7302, 0, 0); }
