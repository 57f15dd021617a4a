#include "model_table.h"

#include "validation/process.h"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace perwiz::models {
namespace fs = std::filesystem;
namespace {

double relative(std::int64_t predicted, std::int64_t measured) {
  return measured > 0 ? 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured) : 0;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string signedPercent(double p) { return (p > 0 ? "+" : "") + fixed(p, 2) + " %"; }
std::string ms(std::int64_t ns) { return fixed(static_cast<double>(ns) / 1e6, 3); }

// A row file is one tab-separated line in the order of Row's fields.
std::string serialize(const Row& r) {
  std::ostringstream s;
  s << r.backend << '\t' << r.program << '\t' << r.args << '\t' << r.ranks << '\t' << r.model << '\t'
    << r.predictedNs << '\t' << r.measuredNs << '\t' << r.predictedPartNs << '\t' << r.measuredPartNs << '\t'
    << r.predictedCommNs << '\t' << r.measuredCommNs << '\t' << (r.asserted ? 1 : 0) << '\n';
  return s.str();
}

bool parse(const std::string& line, Row& r) {
  std::vector<std::string> f;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, '\t')) f.push_back(cell);
  if (f.size() != 12) return false;
  try {
    r = Row{f[0], f[1], f[2], std::stoi(f[3]), f[4], std::stoll(f[5]), std::stoll(f[6]), std::stoll(f[7]),
            std::stoll(f[8]), std::stoll(f[9]), std::stoll(f[10]), f[11] == "1"};
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

int modelOrder(const std::string& m) { return m == "LogGP" ? 0 : m == "LogGPS" ? 1 : 2; }

std::vector<Row> readRows(const fs::path& dir) {
  std::vector<Row> rows;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream f(entry.path());
    std::string line;
    Row r;
    if (std::getline(f, line) && parse(line, r)) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.backend != b.backend) return a.backend == "SMPI";  // SMPI rows first
    return std::make_tuple(a.program, a.args, a.ranks, modelOrder(a.model)) <
           std::make_tuple(b.program, b.args, b.ranks, modelOrder(b.model));
  });
  return rows;
}

// Mean of |error| per backend and model, over the rows there are.
void writeAverages(std::ostream& md, const std::vector<Row>& rows) {
  struct Sums {
    std::string backend, model;
    double t = 0, part = 0, comm = 0;
    int n = 0;
  };
  std::map<std::pair<bool, int>, Sums> sums;  // SMPI first, then the models' order
  for (const Row& r : rows) {
    Sums& s = sums[{r.backend != "SMPI", modelOrder(r.model)}];
    s.backend = r.backend;
    s.model = r.model;
    s.t += std::abs(r.errorPercent());
    s.part += std::abs(r.partErrorPercent());
    s.comm += std::abs(r.commErrorPercent());
    ++s.n;
  }
  md << "\n| backend | model | cases | mean abs. error of T | mean abs. error, timed part | mean abs. error, "
        "communication time |\n| --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const auto& entry : sums) {
    const Sums& s = entry.second;
    md << "| " << s.backend << " | " << s.model << " | " << s.n << " | " << fixed(s.t / s.n, 2) << " % | " << fixed(s.part / s.n, 2)
       << " % | " << fixed(s.comm / s.n, 2) << " % |\n";
  }
}

void writeTable(const std::string& outdir) {
  const std::vector<Row> rows = readRows(fs::path(outdir) / "rows");
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
  const fs::path out = fs::path(outdir) / "models.md";
  const fs::path tmp = fs::path(outdir) / ("models.md." + std::to_string(::getpid()));
  std::ofstream md(tmp, std::ios::binary | std::ios::trunc);
  md << "## Results\n\n"
     << "Written by `examples/models/` (CTest `examples.models.*`), " << date << ", "
     << validation::sourceStamp(PERWIZ_SOURCE_DIR) << ", load average " << load
     << ". Each trace is predicted with `perwiz-cli predict TRACE --model FILE --costs model` (no hypothesis: "
     << "every communication call re-priced by the model) and compared with the measured run it came from; "
     << "error = (predicted − measured) / measured. T is the whole trace, the timed part runs from the "
     << "programs' start barrier to their end barrier, communication time is the time in communication calls "
     << "summed over the ranks. SMPI rows are checked by the test (docs/validation-models.md, \"What the test "
     << "asserts\"); Open MPI rows are only recorded.\n\n"
     << "| backend | program | ranks | model | predicted T (ms) | measured T (ms) | error | error, timed part | "
        "comm. predicted (ms) | comm. measured (ms) | comm. error |\n"
     << "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const Row& r : rows) {
    const std::string program = r.args.empty() ? r.program : r.program + " `" + r.args + "`";
    md << "| " << r.backend << " | " << program << " | " << r.ranks << " | " << r.model << " | " << ms(r.predictedNs)
       << " | " << ms(r.measuredNs) << " | " << signedPercent(r.errorPercent()) << " | "
       << signedPercent(r.partErrorPercent()) << " | " << ms(r.predictedCommNs) << " | " << ms(r.measuredCommNs)
       << " | " << signedPercent(r.commErrorPercent()) << " |\n";
  }
  writeAverages(md, rows);
  md.close();
  if (!md) throw std::runtime_error("cannot write " + tmp.string());
  fs::rename(tmp, out);
}

}  // namespace

double Row::errorPercent() const { return relative(predictedNs, measuredNs); }
double Row::partErrorPercent() const { return relative(predictedPartNs, measuredPartNs); }
double Row::commErrorPercent() const { return relative(predictedCommNs, measuredCommNs); }

void recordRow(const std::string& outdir, const Row& row) {
  const fs::path dir = fs::path(outdir) / "rows";
  fs::create_directories(dir);
  std::string id = row.backend + "-" + row.program + "-" + row.args + "-" + std::to_string(row.ranks) + "-" +
                   row.model + ".tsv";
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  const fs::path file = dir / id;
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << serialize(row);
  f.close();
  if (!f) throw std::runtime_error("cannot write " + file.string());
  // One writer at a time: a table written from a listing taken before another test's row
  // landed would otherwise replace the complete one.
  const std::string lockName = (fs::path(outdir) / "rows.lock").string();
  const int lock = ::open(lockName.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) throw std::runtime_error("cannot open " + lockName);
  ::flock(lock, LOCK_EX);
  try {
    writeTable(outdir);
  } catch (...) {
    ::close(lock);  // closing releases the lock
    throw;
  }
  ::close(lock);
}

}  // namespace perwiz::models
