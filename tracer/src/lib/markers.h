// PRGN_BEGIN / PRGN_END (perwiz/prgn.h, MPI_Pcontrol levels 7301/7302): Enter and Leave of a
// USER region named "PRGN" (unnamed markers) or "PRGN_<name>", which core's readers take as the
// parallel region (docs/trace-model.md). A name that already starts with "PRGN" is used as is.
#pragma once

namespace perwiz::trace {

// begin: PRGN_BEGIN(name); otherwise PRGN_END(name). name may be null (unnamed marker). An
// unnamed PRGN_END closes the innermost open marker; a named one closes that name's.
void prgnMarker(bool begin, const char* name);

}  // namespace perwiz::trace
