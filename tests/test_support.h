// Helpers shared by the tests: temporary directories and the shared sample traces.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace perwiz::test {

// A fresh empty directory under the build tree, unique per name and process.
std::filesystem::path freshDir(const std::string& name);
// Writes text to a file and returns its path.
std::filesystem::path writeFile(const std::filesystem::path& path, const std::string& text);
// ../shared/traces, or empty if absent (tests then GTEST_SKIP()).
std::filesystem::path sharedTraces();
// Every ALOG file and every OTF2 archive directory under ../shared/traces (empty if absent).
std::vector<std::filesystem::path> sharedAlogFiles();
std::vector<std::filesystem::path> sharedOtf2Archives();

}  // namespace perwiz::test
