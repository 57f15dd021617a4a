// Generated benchmark inputs, cached under the build tree (generation is not what we measure).
#pragma once

#include <cstdint>
#include <string>

namespace perwiz::bench {

// Model events in the generated traces; override with PERWIZ_BENCH_EVENTS.
std::uint64_t targetEvents(std::uint64_t fallback);
// Path of an OTF2 anchor / ALOG file generated with ~`events` model events (made if missing).
std::string otf2Archive(std::uint64_t events);
std::string alogFile(std::uint64_t events);
// Resident set size of this process in bytes (/proc/self/statm).
std::uint64_t residentSetBytes();

}  // namespace perwiz::bench
