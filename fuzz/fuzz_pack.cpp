// fuzz_pack: converts between an OTF2 archive directory and the OTF2 fuzz target's container
// (archive_container.h). Not a fuzzer; built with the fuzz targets.
//   fuzz_pack pack DIR OUT.bin     every regular file below DIR, paths relative to DIR, sorted
//   fuzz_pack unpack IN.bin DIR    the archive a fuzz input stands for (DIR is emptied first)
//   fuzz_pack seeds DIR            seeds of the JSON targets written by the project's own code:
//                                  DIR/network_model (every preset, LogGP, LogGPO), DIR/scenario
//                                  (every hypothesis kind, both cost modes), DIR/session
#include "archive_container.h"

#include "perwiz/loggp_models.h"
#include "perwiz/network_model.h"
#include "perwiz/scenario.h"

#include <cstdio>
#include <iterator>
#include <sstream>

namespace fs = std::filesystem;
using namespace perwiz::fuzz;

namespace {

void writeText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

void writeJsonSeeds(const fs::path& dir) {
  using namespace perwiz;
  std::vector<std::shared_ptr<const NetworkModel>> models;
  for (const std::string& name : networkPresetNames()) models.push_back(networkPreset(name));
  LogGpParams gp{"loggp-seed", 5000, 1500, 800, 0.5, 8};
  models.push_back(std::make_shared<LogGpModel>(gp));
  LogGpoParams gpo;
  gpo.name = "loggpo-seed";
  gpo.L = 4000;
  gpo.G = 0.3;
  gpo.Octrl = 700;
  gpo.Oi = {900, 0.01};
  gpo.Oc = {300, 0.2};
  gpo.S = 65536;
  gpo.progress = ProgressStrategy::Independent;
  models.push_back(std::make_shared<LogGpoModel>(gpo));
  for (std::size_t i = 0; i < models.size(); ++i)
    writeText(dir / "network_model" / ("model" + std::to_string(i) + ".json"), models[i]->toJson());

  Hypothesis zw;
  zw.kind = HypothesisKind::ZeroWait;
  zw.event = {1, 5, false};
  Hypothesis ze;
  ze.kind = HypothesisKind::ZeroEvent;
  ze.event = {0, 2, true};
  Hypothesis bc;
  bc.kind = HypothesisKind::BalanceCompute;
  bc.step = 3;
  Hypothesis bv;
  bv.kind = HypothesisKind::BalanceVolume;
  bv.step = 1;
  const std::vector<std::vector<Hypothesis>> sets = {
      {}, {zw}, {ze, bc}, {bv, Hypothesis::compensate(480)}, {zw, ze, bc, bv, Hypothesis::compensateFromTrace()}};
  int n = 0;
  for (const auto& hs : sets)
    for (int m = 0; m < 2; ++m) {
      Scenario s;
      s.model = models[static_cast<std::size_t>(n) % models.size()];
      s.costs = m ? CostMode::Model : CostMode::Measured;
      s.hypotheses = hs;
      s.normalize();
      const std::string json = s.toJson();
      writeText(dir / "scenario" / ("scenario" + std::to_string(n) + ".json"), json);
      writeText(dir / "session" / ("session" + std::to_string(n) + ".perwiz"),
                "{\"perwiz_session\": 1, \"trace\": \"ring4.alog\", \"scenario\": " + json +
                    ", \"disabled\": [\"" + (hs.empty() ? std::string() : hs.front().toString()) +
                    "\"], \"view\": {\"mode\": \"overlay\", \"begin_ns\": 1000, \"end_ns\": 90000}" +
                    (n % 2 ? ", \"region\": \"PRGN_step\"" : "") + "}\n");
      ++n;
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "seeds") {
    writeJsonSeeds(argv[2]);
    return 0;
  }
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s pack DIR OUT | unpack IN DIR\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "pack") {
    std::vector<ArchiveEntry> entries;
    for (const auto& f : fs::recursive_directory_iterator(argv[2])) {
      if (!f.is_regular_file()) continue;
      const std::string rel = fs::relative(f.path(), argv[2]).generic_string();
      if (!safeRelativePath(rel)) {
        std::fprintf(stderr, "%s: path not representable, skipped\n", rel.c_str());
        continue;
      }
      std::ifstream in(f.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      entries.push_back({rel, s.str()});
    }
    std::sort(entries.begin(), entries.end(), [](const ArchiveEntry& a, const ArchiveEntry& b) { return a.path < b.path; });
    std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
    out << serializeContainer(entries);
    if (!out) {
      std::fprintf(stderr, "%s: cannot write\n", argv[3]);
      return 1;
    }
    return 0;
  }
  if (mode == "unpack") {
    std::ifstream in(argv[2], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read\n", argv[2]);
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    unpackContainer(parseContainer(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), argv[3]);
    return 0;
  }
  std::fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
