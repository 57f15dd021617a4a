// Fuzz target: scenario JSON (scenarioFromJson). A refused input must come with an error
// naming the source; an accepted one must survive its canonical form: toJson() parses again
// to the same canonical text (equal scenarios give byte-identical files, scenario.h).
#include "fuzz_common.h"

#include "perwiz/scenario.h"

using namespace perwiz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  Scenario s;
  std::string error;
  if (!scenarioFromJson(json, "fuzz.json", s, &error)) {
    if (error.rfind("fuzz.json", 0) != 0) fuzz::fail("scenario error does not name the source: " + error);
    return 0;
  }
  const std::string canon = s.toJson();
  Scenario again;
  if (!scenarioFromJson(canon, "canonical.json", again, &error))
    fuzz::fail("canonical scenario JSON does not load: " + error + "\n" + canon);
  if (again.toJson() != canon) fuzz::fail("canonical scenario JSON is not stable:\n" + canon + "\n" + again.toJson());
  if (!compensationConflict(again.hypotheses).empty()) fuzz::fail("accepted scenario holds two compensations");
  return 0;
}
