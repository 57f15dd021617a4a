// Checks on an OTF2 anchor file made before libotf2 sees it (see otf2_anchor.cpp).
#pragma once

#include <string>

namespace perwiz::otf2 {

// Throws TraceError(shown, ...) if the anchor file `anchor` is not one libotf2 can load with
// bounded memory: larger than any real anchor, or with counts its own bytes cannot hold.
void checkAnchor(const std::string& shown, const std::string& anchor);

}  // namespace perwiz::otf2
