#include "perwiz/widgets/palette.h"

#include <QString>

#include <cctype>
#include <cmath>
#include <string>

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
  switch (op) {
    case MpiOp::Send: case MpiOp::Bsend: case MpiOp::Ssend: case MpiOp::Rsend:
      return {43, 95, 217};
    case MpiOp::Isend: case MpiOp::Ibsend: case MpiOp::Issend: case MpiOp::Irsend:
    case MpiOp::Start: case MpiOp::Startall:
      return {110, 165, 250};
    case MpiOp::Recv: return {36, 150, 60};
    case MpiOp::Irecv: return {130, 205, 110};
    case MpiOp::Sendrecv: case MpiOp::SendrecvReplace: return {20, 160, 160};
    case MpiOp::Wait: case MpiOp::Waitall: case MpiOp::Waitany: case MpiOp::Waitsome:
      return {214, 39, 40};
    case MpiOp::Test: case MpiOp::Testall: case MpiOp::Testany: case MpiOp::Testsome:
      return {250, 140, 135};
    case MpiOp::Probe: case MpiOp::Iprobe: return {180, 140, 120};
    case MpiOp::Barrier: return {235, 190, 0};
    case MpiOp::Bcast: return {255, 127, 14};
    case MpiOp::Reduce: return {180, 140, 225};
    case MpiOp::Allreduce: return {125, 60, 185};
    case MpiOp::Gather: case MpiOp::Gatherv: return {160, 100, 80};
    case MpiOp::Allgather: case MpiOp::Allgatherv: return {120, 70, 50};
    case MpiOp::Scatter: case MpiOp::Scatterv: return {227, 119, 194};
    case MpiOp::Alltoall: case MpiOp::Alltoallv: case MpiOp::Alltoallw: return {200, 20, 90};
    case MpiOp::ReduceScatter: case MpiOp::ReduceScatterBlock: return {100, 80, 160};
    case MpiOp::Scan: case MpiOp::Exscan: return {175, 175, 30};
    case MpiOp::Init: case MpiOp::InitThread: case MpiOp::Finalize: return {120, 120, 120};
    case MpiOp::OtherMpi: return {165, 165, 165};
    case MpiOp::None: break;
  }
  return {150, 150, 150};
}

namespace {
QColor userStateColor(const std::string& name) {
  // A stable muted colour from the name (FNV-1a hash -> golden-ratio hue).
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  const double hue = std::fmod(double(h % 1000) * 0.618033988749895, 1.0);
  return QColor::fromHsvF(float(hue), 0.35f, 0.88f);
}
}  // namespace

QColor functionColor(const Function& f) {
  QColor c = parseTraceColor(f.color);
  if (c.isValid()) {
    if (c.lightnessF() > 0.93f) c = c.darker(125);  // white-ish on a white background
    return c;
  }
  if (f.kind == EventKind::MpiCall) return mpiOpColor(f.op);
  if (f.kind == EventKind::Point) return colors::point;
  return userStateColor(f.name);
}

}  // namespace perwiz::ui
