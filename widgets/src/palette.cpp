#include "perwiz/widgets/palette.h"

#include <QString>

#include <cctype>
#include <cmath>
#include <string>
#include <string_view>

namespace perwiz::ui {

QColor parseTraceColor(std::string_view token) {
  const auto colon = token.find(':');
  if (colon != std::string_view::npos) token = token.substr(0, colon);
  std::string name;
  for (char c : token)
    if (c != ' ' && c != '_' && c != '\t') name.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  if (name.empty()) return {};
  // X11 grey levels: gray0 .. gray100 (percent).
  for (const char* g : {"gray", "grey"}) {
    const std::string_view p(g);
    if (name.size() > p.size() && name.compare(0, p.size(), p) == 0 &&
        std::isdigit(static_cast<unsigned char>(name[p.size()]))) {
      bool ok = false;
      const int pct = QString::fromStdString(name.substr(p.size())).toInt(&ok);
      if (ok && pct >= 0 && pct <= 100) {
        const int v = (pct * 255 + 50) / 100;
        return QColor(v, v, v);
      }
    }
  }
  QColor c = QColor::fromString(QString::fromStdString(name));
  if (!c.isValid() && name.size() > 1 && std::isdigit(static_cast<unsigned char>(name.back()))) {
    // X11 variants "red3", "skyblue1": drop the digit and darken a little per level.
    const int level = name.back() - '0';
    c = QColor::fromString(QString::fromStdString(name.substr(0, name.size() - 1)));
    if (c.isValid() && level > 1) c = c.darker(100 + 12 * (level - 1));
  }
  return c;
}

QColor mpiOpColor(MpiOp op) {
  // Families keep a hue (sends blue, receives green, completion red, tests pink, ...); the
  // members of a family differ in shade, so that MPI_Wait and MPI_Waitall read apart.
  switch (op) {
    case MpiOp::Send: return {43, 95, 217};
    case MpiOp::Bsend: return {20, 55, 150};
    case MpiOp::Ssend: return {95, 80, 220};
    case MpiOp::Rsend: return {30, 130, 200};
    case MpiOp::Isend: return {110, 165, 250};
    case MpiOp::Ibsend: return {75, 130, 205};
    case MpiOp::Issend: return {150, 145, 250};
    case MpiOp::Irsend: return {110, 195, 235};
    case MpiOp::Start: return {170, 205, 255};
    case MpiOp::Startall: return {140, 175, 230};
    case MpiOp::Recv: return {36, 150, 60};
    case MpiOp::Irecv: return {130, 205, 110};
    case MpiOp::Sendrecv: return {20, 160, 160};
    case MpiOp::SendrecvReplace: return {10, 115, 120};
    case MpiOp::Wait: return {214, 39, 40};
    case MpiOp::Waitall: return {240, 100, 30};
    case MpiOp::Waitany: return {155, 20, 35};
    case MpiOp::Waitsome: return {225, 55, 120};
    case MpiOp::Test: return {250, 140, 135};
    case MpiOp::Testall: return {250, 180, 120};
    case MpiOp::Testany: return {205, 110, 110};
    case MpiOp::Testsome: return {245, 160, 200};
    case MpiOp::Probe: return {180, 140, 120};
    case MpiOp::Iprobe: return {210, 180, 160};
    case MpiOp::Barrier: return {235, 190, 0};
    case MpiOp::Bcast: return {255, 127, 14};
    case MpiOp::Reduce: return {180, 140, 225};
    case MpiOp::Allreduce: return {125, 60, 185};
    case MpiOp::Gather: return {160, 100, 80};
    case MpiOp::Gatherv: return {195, 135, 105};
    case MpiOp::Allgather: return {115, 65, 45};
    case MpiOp::Allgatherv: return {140, 95, 30};
    case MpiOp::Scatter: return {227, 119, 194};
    case MpiOp::Scatterv: return {200, 90, 215};
    case MpiOp::Alltoall: return {190, 15, 85};
    case MpiOp::Alltoallv: return {140, 10, 70};
    case MpiOp::Alltoallw: return {215, 70, 150};
    case MpiOp::ReduceScatter: return {100, 80, 160};
    case MpiOp::ReduceScatterBlock: return {70, 55, 120};
    case MpiOp::Scan: return {175, 175, 30};
    case MpiOp::Exscan: return {135, 140, 15};
    case MpiOp::Init: return {110, 110, 110};
    case MpiOp::InitThread: return {85, 85, 85};
    case MpiOp::Finalize: return {140, 140, 140};
    case MpiOp::OtherMpi: return {165, 165, 165};
    case MpiOp::None: break;
  }
  return {150, 150, 150};
}

namespace {
// The golden ratio's fraction: successive multiples spread hues as far apart as they can.
constexpr double kGolden = 0.618033988749895;

// A user state's colour: the `k`-th user function of the trace gets a hue k golden-ratio turns
// on, in one of three muted shades (distinct from each other and from the saturated MPI calls).
QColor userStateColor(std::uint32_t k) {
  const double hue = std::fmod(0.11 + double(k) * kGolden, 1.0);
  static constexpr float kSat[3] = {0.45f, 0.36f, 0.60f}, kVal[3] = {0.90f, 0.78f, 0.68f};
  return QColor::fromHsvF(float(hue), kSat[(k / 3) % 3], kVal[k % 3]);
}

// Another MPI call (MPI_Comm_rank, MPI_Initialized, ...): the `k`-th of the trace, a tinted grey
// of its own (the family: little colour).
QColor otherMpiColor(std::uint32_t k) {
  const double hue = std::fmod(0.55 + double(k) * kGolden, 1.0);
  static constexpr float kVal[4] = {0.75f, 0.62f, 0.86f, 0.69f};
  return QColor::fromHsvF(float(hue), 0.10f + 0.06f * float(k % 2), kVal[k % 4]);
}

// A non-blocking collective ("MPI_Iallgather", "MPI_Ibcast"): a lighter shade of its blocking
// family's colour; None when the name is not one.
MpiOp blockingCollectiveOf(const std::string& name) {
  std::string_view n(name);
  for (std::string_view prefix : {"PMPI_I", "pmpi_i", "MPI_I", "mpi_i"})
    if (n.substr(0, prefix.size()) == prefix) {
      const MpiOp op = classifyMpiName(std::string("MPI_") + std::string(n.substr(prefix.size())));
      return isCollective(op) ? op : MpiOp::None;
    }
  return MpiOp::None;
}

QColor ownColor(const Function& f) {
  QColor c = parseTraceColor(f.color);
  if (c.isValid() && c.lightnessF() > 0.93f) c = c.darker(125);  // white-ish on a white background
  return c;
}
}  // namespace

QColor functionColor(const Function& f) {
  if (const QColor c = ownColor(f); c.isValid()) return c;
  if (f.kind == EventKind::MpiCall) {
    if (f.op == MpiOp::OtherMpi)
      if (const MpiOp blocking = blockingCollectiveOf(f.name); blocking != MpiOp::None)
        return mpiOpColor(blocking).lighter(130);
    return mpiOpColor(f.op);
  }
  if (f.kind == EventKind::Point) return colors::point;
  // Alone, a stable colour from the name (FNV-1a); functionColors numbers a trace's own.
  std::uint32_t h = 2166136261u;
  for (unsigned char c : f.name) h = (h ^ c) * 16777619u;
  return userStateColor(h % 1000);
}

std::vector<QColor> functionColors(const Trace& trace) {
  std::vector<QColor> out;
  out.reserve(trace.functions.size());
  std::uint32_t users = 0, others = 0;
  for (const Function& f : trace.functions) {
    QColor c = ownColor(f);
    if (!c.isValid()) {
      if (f.kind == EventKind::MpiCall && f.op == MpiOp::OtherMpi && blockingCollectiveOf(f.name) == MpiOp::None)
        c = otherMpiColor(others++);
      else if (f.kind != EventKind::MpiCall && f.kind != EventKind::Point)
        c = userStateColor(users++);
      else
        c = functionColor(f);
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace perwiz::ui
