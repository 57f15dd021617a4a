#include "table.h"

#include "process.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace perwiz::validation {
namespace fs = std::filesystem;
namespace {

double relativeError(std::int64_t predicted, std::int64_t measured) {
  return measured > 0 ? 100.0 * std::abs(static_cast<double>(predicted - measured)) / static_cast<double>(measured) : 0;
}

std::string percent(double p) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << p << " %";
  return s.str();
}

std::string ms(std::int64_t ns) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << static_cast<double>(ns) / 1e6;
  return s.str();
}

// A row file is one tab-separated line in the order of Row's fields.
std::string serialize(const Row& r) {
  std::ostringstream s;
  s << r.backend << '\t' << r.program << '\t' << r.ranks << '\t' << r.hypotheses << '\t' << r.improved << '\t'
    << r.originalNs << '\t' << r.predictedNs << '\t' << r.improvedNs << '\t' << r.originalStartNs << '\t'
    << r.improvedStartNs << '\t' << (r.asserted ? 1 : 0) << '\n';
  return s.str();
}

bool parse(const std::string& line, Row& r) {
  std::vector<std::string> f;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, '\t')) f.push_back(cell);
  if (f.size() != 11) return false;
  try {
    r = Row{f[0], f[1], std::stoi(f[2]), f[3], f[4], std::stoll(f[5]), std::stoll(f[6]), std::stoll(f[7]),
            std::stoll(f[8]), std::stoll(f[9]), f[10] == "1"};
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

void writeTable(const std::string& outdir) {
  std::vector<Row> rows;
  for (const auto& entry : fs::directory_iterator(fs::path(outdir) / "rows")) {
    std::ifstream f(entry.path());
    std::string line;
    Row r;
    if (std::getline(f, line) && parse(line, r)) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.backend != b.backend) return a.backend == "SMPI";  // SMPI rows first
    return std::tie(a.program, a.ranks) < std::tie(b.program, b.ranks);
  });
  std::string load = "unknown";  // Open MPI rows depend on it: the cores are shared
  if (std::ifstream la("/proc/loadavg"); la) {
    std::string one, five;
    la >> one >> five;
    load = one + " (1 min), " + five + " (5 min)";
  }
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));

  // Written beside and renamed: tests running in parallel never leave a half-written table.
  const fs::path out = fs::path(outdir) / "validation.md";
  const fs::path tmp = fs::path(outdir) / ("validation.md." + std::to_string(::getpid()));
  std::ofstream md(tmp, std::ios::binary | std::ios::trunc);
  md << "# Prediction validation\n\n"
     << "Written by the end-to-end validation test (`examples/validation/`, CTest `examples.validation.*`), " << date
     << ", " << sourceStamp(PERWIZ_SOURCE_DIR) << ", load average " << load
     << ". Each case traces the original program, predicts the hypothesis with `perwiz-cli predict`, "
     << "runs the improved variant through the tracer and compares its measured T with the prediction "
     << "(error = |predicted − measured| / measured). T is the whole trace; the last column compares the "
     << "time after the programs' start barrier instead, which leaves out `MPI_Init` (about 0.1 ms under "
     << "SMPI, some 300 ms of start-up noise under Open MPI here). SMPI rows are asserted to be within 5 % "
     << "(both errors); Open MPI rows (4 ranks, oversubscribed on a shared 2-core machine, larger "
     << "workloads) are only recorded: there the waiting ranks poll inside MPI on the cores the computing "
     << "ranks need, and the time a rank spends descheduled counts as its computation or as a call's local "
     << "cost, which no hypothesis removes. What each hypothesis and variant mean: `docs/examples.md`.\n\n"
     << "Command: `ctest --test-dir BUILD -R examples.validation` (the table is "
     << "`BUILD/examples/validation/validation.md`). How the network models LogGP, LogGPS and LogGPO "
     << "compare on the same programs: `docs/validation-models.md`.\n\n"
     << "| backend | program | ranks | hypotheses | improved variant | original T (ms) | predicted T (ms) | "
        "measured T (ms) | error | error after start |\n"
     << "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const Row& r : rows) {
    const std::string note = r.asserted ? "" : " (recorded)";
    md << "| " << r.backend << " | " << r.program << " | " << r.ranks << " | " << r.hypotheses << " | `"
       << r.improved << "` | " << ms(r.originalNs) << " | " << ms(r.predictedNs) << " | " << ms(r.improvedNs)
       << " | " << percent(r.errorPercent()) << note << " | " << percent(r.windowErrorPercent()) << note << " |\n";
  }
  md.close();
  if (!md) throw std::runtime_error("cannot write " + tmp.string());
  fs::rename(tmp, out);
}

}  // namespace

double Row::errorPercent() const { return relativeError(predictedNs, improvedNs); }
double Row::windowErrorPercent() const {
  return relativeError(predictedNs - originalStartNs, improvedNs - improvedStartNs);
}

void recordRow(const std::string& outdir, const Row& row) {
  const fs::path dir = fs::path(outdir) / "rows";
  fs::create_directories(dir);
  std::string id = row.backend + "-" + row.program + "-" + std::to_string(row.ranks) + ".tsv";
  std::replace(id.begin(), id.end(), ' ', '_');
  const fs::path file = dir / id;
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << serialize(row);
  if (!f) throw std::runtime_error("cannot write " + file.string());
  f.close();
  writeTable(outdir);
}

}  // namespace perwiz::validation
