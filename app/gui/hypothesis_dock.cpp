#include "hypothesis_dock.h"

#include "units.h"

#include <QAbstractItemView>
#include <QHBoxLayout>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTextLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace perwiz::gui {

namespace {
// Rows as tall as their wrapped text needs, measured line by line with the fonts the text is
// drawn in: the default hint counts lines of the list's own font, so a Japanese sentence
// (drawn in a fallback font with taller lines) was cut after a line and a half.
class WrappedRows : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize hint = QStyledItemDelegate::sizeHint(option, index);
    const auto* view = qobject_cast<const QAbstractItemView*>(parent());
    if (!view) return hint;
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QStyle* style = view->style();
    // The text's width: the viewport's less the check box and the margins around the text.
    const int check = style->pixelMetric(QStyle::PM_IndicatorWidth, &opt, view) +
                      2 * style->pixelMetric(QStyle::PM_FocusFrameHMargin, &opt, view) + 4;
    const int width = std::max(40, view->viewport()->width() - check - 8);
    QTextLayout layout(opt.text, opt.font);
    QTextOption wrap;
    wrap.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(wrap);
    qreal height = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
      line.setLineWidth(width);
      height += line.height();
    }
    layout.endLayout();
    hint.setHeight(std::max(hint.height(), int(std::ceil(height)) + 6));
    return hint;
  }
};
}  // namespace

HypothesisDock::HypothesisDock(QWidget* parent) : QDockWidget(tr("Hypotheses"), parent) {
  setObjectName(QStringLiteral("hypothesisDock"));
  auto* w = new QWidget(this);
  auto* layout = new QVBoxLayout(w);
  layout->setContentsMargins(4, 4, 4, 4);
  empty_ = new QLabel(tr("No hypotheses. Click a message arrow or an event and press Z (zero wait), an event and "
                         "E (zero event), or a parallel step and B (balance computation) or V (balance volume)."),
                      w);
  empty_->setWordWrap(true);
  list_ = new QListWidget(w);
  list_->setObjectName(QStringLiteral("hypothesisList"));
  list_->setWordWrap(true);  // the hypotheses are sentences: wrapped, never cut off
  list_->setTextElideMode(Qt::ElideNone);
  list_->setItemDelegate(new WrappedRows(list_));
  list_->setResizeMode(QListView::Adjust);  // rows measured again when the dock's width changes
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* buttons = new QHBoxLayout;
  remove_ = new QPushButton(tr("Remove"), w);
  remove_->setObjectName(QStringLiteral("removeHypothesis"));
  remove_->setToolTip(tr("Remove the selected hypothesis from the scenario"));
  buttons->addStretch();
  buttons->addWidget(remove_);
  layout->addWidget(empty_);
  layout->addWidget(list_, 1);
  layout->addLayout(buttons);
  setWidget(w);

  connect(list_, &QListWidget::itemChanged, this, &HypothesisDock::onItemChanged);
  connect(list_, &QListWidget::currentRowChanged, this, &HypothesisDock::updateButtons);
  connect(list_, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
    const int row = list_->row(item);
    if (row >= 0 && row < static_cast<int>(shown_.size())) emit activated(shown_[row]);
  });
  connect(remove_, &QPushButton::clicked, this, [this] {
    const int row = list_->currentRow();
    if (row >= 0 && row < static_cast<int>(shown_.size())) emit removeRequested(shown_[row]);
  });
  updateButtons();
}

void HypothesisDock::showDocument(const ScenarioDocument& doc, std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  const QSignalBlocker block(list_);
  const int row = list_->currentRow();
  list_->clear();
  shown_.clear();
  for (const auto& e : doc.entries()) {
    auto* item = new QListWidgetItem(hypothesisText(e.hypothesis, trace_.get()), list_);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    item->setCheckState(e.enabled ? Qt::Checked : Qt::Unchecked);
    // The short form (as in scenario files and perwiz-cli) in the tooltip.
    const QString id = QString::fromStdString(e.hypothesis.toString());
    item->setToolTip(e.enabled ? tr("%1: applied to the prediction").arg(id)
                               : tr("%1: disabled, kept but not applied").arg(id));
    item->setData(Qt::UserRole, item->toolTip());  // the tooltip once its prediction is in
    shown_.push_back(e.hypothesis);
  }
  if (list_->count() > 0) list_->setCurrentRow(std::min(std::max(row, 0), list_->count() - 1));
  empty_->setVisible(list_->count() == 0);
  updateButtons();
}

void HypothesisDock::setRejected(const std::vector<Hypothesis>& rejected, const QStringList& reasons) {
  const QSignalBlocker block(list_);
  for (int row = 0; row < list_->count() && row < static_cast<int>(shown_.size()); ++row) {
    auto* item = list_->item(row);
    auto it = std::find(rejected.begin(), rejected.end(), shown_[row]);
    if (it != rejected.end()) {
      item->setForeground(Qt::red);
      const auto i = static_cast<qsizetype>(it - rejected.begin());
      item->setToolTip(tr("Not applied: %1").arg(i < reasons.size() ? reasons[i] : QString()));
    } else {
      item->setForeground(QBrush());
    }
  }
}

void HypothesisDock::setPending(const std::vector<Hypothesis>& pending) {
  const QSignalBlocker block(list_);
  for (int row = 0; row < list_->count() && row < static_cast<int>(shown_.size()); ++row) {
    auto* item = list_->item(row);
    const QString name = hypothesisText(shown_[row], trace_.get());
    const bool isPending = std::find(pending.begin(), pending.end(), shown_[row]) != pending.end();
    item->setText(isPending ? tr("%1 (pending)").arg(name) : name);
    QFont f = item->font();
    f.setItalic(isPending);
    item->setFont(f);
    item->setToolTip(isPending ? tr("Waiting for its prediction") : item->data(Qt::UserRole).toString());
  }
}

void HypothesisDock::onItemChanged(QListWidgetItem* item) {
  const int row = list_->row(item);
  if (row < 0 || row >= static_cast<int>(shown_.size())) return;
  emit enableRequested(shown_[row], item->checkState() == Qt::Checked);
}

void HypothesisDock::updateButtons() { remove_->setEnabled(list_->currentRow() >= 0); }

}  // namespace perwiz::gui
