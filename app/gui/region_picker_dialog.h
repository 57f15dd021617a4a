// Chooses the parallel region of a trace without PRGN markers: any user state or region name
// can mark the steps (paper §2.1: one execution of the region on every rank is a step). The
// list shows how often each name occurs and how many steps it would give.
#pragma once

#include "perwiz/trace.h"

#include <QDialog>

#include <memory>

class QLineEdit;
class QTableWidget;

namespace perwiz::gui {

struct RegionCandidate {
  std::string name;
  std::uint64_t occurrences = 0;  // over all ranks
  std::uint32_t steps = 0;        // most outermost occurrences on one rank = steps it would give
  std::uint32_t ranks = 0;        // ranks where it occurs
};

// Every user state / non-MPI region of the trace, most steps first.
std::vector<RegionCandidate> regionCandidates(const Trace& trace);

// A copy of `trace` whose steps are the executions of `name` (nullptr + reason if no function
// has that name). The copy shares nothing with the original.
std::shared_ptr<const Trace> withParallelRegion(const Trace& trace, const std::string& name, QString* error);

class RegionPickerDialog : public QDialog {
  Q_OBJECT

 public:
  explicit RegionPickerDialog(const Trace& trace, QWidget* parent = nullptr);
  QString chosenName() const;
  QTableWidget* table() const { return table_; }
  QLineEdit* filter() const { return filter_; }

 private:
  void applyFilter(const QString& text);
  QTableWidget* table_;
  QLineEdit* filter_;
};

}  // namespace perwiz::gui
