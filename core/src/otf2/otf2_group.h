// libotf2's collective callbacks over a ProcessGroup (perwiz-mpi writes one OTF2 archive from
// all its processes: each writes its ranks' event files, process 0 the anchor and the global
// definitions). Core stays free of MPI: the group's exchange() and broadcast() carry the bytes.
#pragma once

#include "perwiz/process_group.h"

#include <otf2/otf2.h>

namespace perwiz::otf2 {

// For OTF2_Archive_SetCollectiveCallbacks(archive, groupCallbacks(), &group, nullptr, nullptr).
// Every callback is collective over the group; one that fails (an exchange that throws, a
// buffer of the wrong size) returns OTF2_CALLBACK_ERROR, which libotf2 returns to its caller.
const OTF2_CollectiveCallbacks* groupCallbacks();

}  // namespace perwiz::otf2
