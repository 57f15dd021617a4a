#include "region_picker_dialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace perwiz::gui {

RegionPickerDialog::RegionPickerDialog(const Trace& trace, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Parallel Region"));
  setObjectName(QStringLiteral("regionPicker"));
  resize(560, 420);
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Choose the user state or region whose executions are the parallel steps "
                              "(each execution on every rank is one step)."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter names"));
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  table_ = new QTableWidget(0, 4, this);
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Steps"), tr("Occurrences"), tr("Ranks")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  const auto candidates = regionCandidates(trace);
  table_->setRowCount(static_cast<int>(candidates.size()));
  for (int r = 0; r < static_cast<int>(candidates.size()); ++r) {
    const auto& c = candidates[r];
    table_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(c.name)));
    auto number = [](std::uint64_t v) {
      auto* it = new QTableWidgetItem(QString::number(v));
      it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      return it;
    };
    table_->setItem(r, 1, number(c.steps));
    table_->setItem(r, 2, number(c.occurrences));
    table_->setItem(r, 3, number(c.ranks));
  }
  layout->addWidget(table_, 1);
  if (candidates.empty()) layout->addWidget(new QLabel(tr("The trace has no user states or regions."), this));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons);
  auto* ok = buttons->button(QDialogButtonBox::Ok);
  ok->setEnabled(false);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(table_, &QTableWidget::itemSelectionChanged, this, [this, ok] { ok->setEnabled(!chosenName().isEmpty()); });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this] {
    if (!chosenName().isEmpty()) accept();
  });
  connect(filter_, &QLineEdit::textChanged, this, &RegionPickerDialog::applyFilter);
  if (!candidates.empty()) table_->selectRow(0);
}

void RegionPickerDialog::applyFilter(const QString& text) {
  for (int r = 0; r < table_->rowCount(); ++r)
    table_->setRowHidden(r, !table_->item(r, 0)->text().contains(text, Qt::CaseInsensitive));
}

QString RegionPickerDialog::chosenName() const {
  const auto rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty() || table_->isRowHidden(rows.first().row())) return {};
  return table_->item(rows.first().row(), 0)->text();
}

}  // namespace perwiz::gui
