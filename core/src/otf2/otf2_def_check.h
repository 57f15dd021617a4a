// Checks on an OTF2 global definition file made before libotf2 reads it (see otf2_def_check.cpp).
#pragma once

#include <string>

namespace perwiz::otf2 {

// Throws TraceError(shown, ...) if a record of the global definition file `file` declares an
// array longer than its own bytes can hold: libotf2 3.0 would read past its buffer (a crash)
// or allocate what the count claims.
void checkGlobalDefinitions(const std::string& shown, const std::string& file);

}  // namespace perwiz::otf2
