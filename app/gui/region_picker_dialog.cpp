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

std::vector<RegionCandidate> regionCandidates(const Trace& trace) {
  const std::size_t F = trace.functions.size();
  std::vector<RegionCandidate> c(F);
  std::vector<char> usable(F, 0);
  for (std::size_t f = 0; f < F; ++f) {
    c[f].name = trace.functions[f].name;
    usable[f] = trace.functions[f].kind == EventKind::UserState;
  }
  // Per rank: occurrences, and outermost ones (not inside another of the same name), which is
  // what declareParallelRegion counts as steps.
  std::vector<std::uint32_t> outer(F), open(F);
  std::vector<std::pair<TimeNs, std::uint32_t>> ends;  // (leave, function) of open states
  for (const RankTrace& rt : trace.ranks) {
    std::fill(outer.begin(), outer.end(), 0);
    std::fill(open.begin(), open.end(), 0);
    ends.clear();
    for (std::size_t e = 0; e < rt.size(); ++e) {
      const std::uint32_t f = rt.function[e];
      if (f >= F || !usable[f]) continue;
      while (!ends.empty() && ends.back().first <= rt.enter[e]) {
        --open[ends.back().second];
        ends.pop_back();
      }
      ++c[f].occurrences;
      if (open[f] == 0) ++outer[f];
      ++open[f];
      ends.emplace_back(rt.leave[e], f);
      std::sort(ends.begin(), ends.end(), [](auto& a, auto& b) { return a.first > b.first; });
    }
    for (std::size_t f = 0; f < F; ++f)
      if (outer[f] > 0) {
        c[f].steps = std::max(c[f].steps, outer[f]);
        ++c[f].ranks;
      }
  }
  std::vector<RegionCandidate> out;
  for (std::size_t f = 0; f < F; ++f)
    if (usable[f] && c[f].occurrences > 0) out.push_back(c[f]);
  std::stable_sort(out.begin(), out.end(), [](const RegionCandidate& a, const RegionCandidate& b) {
    return a.steps != b.steps ? a.steps > b.steps : a.name < b.name;
  });
  return out;
}

std::shared_ptr<const Trace> withParallelRegion(const Trace& trace, const std::string& name, QString* error) {
  auto copy = std::make_shared<Trace>(trace);
  if (!declareParallelRegion(*copy, name)) {
    if (error)
      *error = QCoreApplication::translate("RegionPicker", "The trace has no state or region named '%1'")
                   .arg(QString::fromStdString(name));
    return nullptr;
  }
  return copy;
}

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
