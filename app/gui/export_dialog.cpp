#include "export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>
#include <QStandardItemModel>

namespace perwiz::gui {

bool askExportChoice(QWidget* parent, bool hasPrediction, ExportChoice& choice) {
  QDialog d(parent);
  d.setObjectName(QStringLiteral("exportImageDialog"));
  d.setWindowTitle(QDialog::tr("Export Image"));
  auto* form = new QFormLayout(&d);

  auto* view = new QComboBox(&d);
  view->setObjectName(QStringLiteral("exportView"));
  view->addItem(QDialog::tr("Measured"), int(ui::TimelineMode::Measured));
  view->addItem(QDialog::tr("Predicted"), int(ui::TimelineMode::Predicted));
  view->addItem(QDialog::tr("Overlay (predicted over measured)"), int(ui::TimelineMode::Overlay));
  view->addItem(QDialog::tr("Lanes (measured and predicted per rank)"), int(ui::TimelineMode::Lanes));
  if (!hasPrediction)  // no prediction yet: only the measured view
    if (auto* model = qobject_cast<QStandardItemModel*>(view->model()))
      for (int i = 1; i < view->count(); ++i) model->item(i)->setEnabled(false);
  const ui::TimelineMode mode = hasPrediction ? choice.options.mode.value_or(ui::TimelineMode::Measured) : ui::TimelineMode::Measured;
  view->setCurrentIndex(view->findData(int(mode)));
  form->addRow(QDialog::tr("View:"), view);

  auto* range = new QComboBox(&d);
  range->setObjectName(QStringLiteral("exportRange"));
  range->addItem(QDialog::tr("Whole trace"));
  range->addItem(QDialog::tr("Current view"));
  range->setCurrentIndex(choice.options.wholeTrace ? 0 : 1);
  form->addRow(QDialog::tr("Range:"), range);

  auto* width = new QSpinBox(&d);
  width->setObjectName(QStringLiteral("exportWidth"));
  width->setRange(200, 20000);
  width->setSuffix(QDialog::tr(" px"));
  width->setValue(choice.options.width);
  form->addRow(QDialog::tr("Width:"), width);

  auto* lane = new QSpinBox(&d);
  lane->setObjectName(QStringLiteral("exportLaneHeight"));
  lane->setRange(ui::kMinExportLanePx, 200);
  lane->setSuffix(QDialog::tr(" px"));
  lane->setValue(std::max(ui::kMinExportLanePx, choice.options.rowHeight));
  form->addRow(QDialog::tr("Lane height:"), lane);

  auto* header = new QCheckBox(QDialog::tr("Title, hypotheses and run times above the timeline"), &d);
  header->setObjectName(QStringLiteral("exportHeader"));
  header->setChecked(choice.header);
  form->addRow(header);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &d);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
  form->addRow(buttons);
  if (d.exec() != QDialog::Accepted) return false;
  choice.options.mode = static_cast<ui::TimelineMode>(view->currentData().toInt());
  choice.options.wholeTrace = range->currentIndex() == 0;
  choice.options.width = width->value();
  choice.options.rowHeight = lane->value();
  choice.header = header->isChecked();
  return true;
}

}  // namespace perwiz::gui
