// Chooses the parallel region of a trace without PRGN markers: any user state or region name
// can mark the steps (paper §2.1: one execution of the region on every rank is a step). The
// list shows how often each name occurs and how many steps it would give.
#pragma once

#include "parallel_region.h"

#include "perwiz/trace.h"

#include <QDialog>

#include <memory>

class QLineEdit;
class QTableWidget;

namespace perwiz::gui {

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
