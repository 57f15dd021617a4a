// Checks on an OTF2 global definition file made before libotf2 reads it (see otf2_def_check.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace perwiz::otf2 {

// Throws TraceError(shown, ...) if a record of the global definition file `file` declares an
// array longer than its own bytes can hold: libotf2 3.0 would read past its buffer (a crash)
// or allocate what the count claims.
void checkGlobalDefinitions(const std::string& shown, const std::string& file);

// Throws TraceError(shown, ...) naming the file and the byte if the last chunk of the event
// file `file` (chunks of `chunkSize` bytes) does not end with OTF2's end-of-file mark inside the
// file: a record running past the file's end (a cut file) or an end-of-chunk mark with no chunk
// after it. libotf2 3.0 then waits for the next chunk forever (read() = 0 in a loop).
void checkEventFileEnd(const std::string& shown, const std::string& file, std::uint64_t chunkSize);

}  // namespace perwiz::otf2
