// Round-trip helpers shared by the format tests: `perwiz-cli info --json` counts and
// `perwiz-cli convert`, through the built CLI.
#pragma once

#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace perwiz::test {

// `info --json` without the keys that describe the file rather than the trace ("file",
// "format", "records": the file's own record count, "warnings": about the file).
inline nlohmann::json infoCounts(const std::string& cli, const std::filesystem::path& dir,
                                  const std::filesystem::path& trace) {
  CliResult r = runProgram(cli, dir, {"info", trace.string(), "--json"});
  EXPECT_EQ(r.status, 0) << trace << ": " << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) {
    ADD_FAILURE() << trace << ": info --json printed no JSON: " << r.out;
    return nlohmann::json::object();
  }
  for (const char* key : {"file", "format", "records", "warnings"}) j.erase(key);
  return j;
}

inline void convertTrace(const std::string& cli, const std::filesystem::path& dir,
                         const std::filesystem::path& in, const std::filesystem::path& out) {
  CliResult r = runProgram(cli, dir, {"convert", in.string(), out.string()});
  ASSERT_EQ(r.status, 0) << in << " -> " << out << ": " << r.err;
}

}  // namespace perwiz::test
