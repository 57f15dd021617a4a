// Edits the network model of the prediction: LogGPS, LogGP or LogGPO parameters, presets,
// JSON parameter files (the CLI's --model files) and the cost mode. Values are shown in µs
// (µs per byte for slopes); the spin boxes cannot go negative. The model is rebuilt through
// the core's JSON parser, so what the dialog makes is exactly what a saved file loads as.
#pragma once

#include "perwiz/network_model.h"
#include "perwiz/scenario.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace perwiz::gui {

class NetworkModelDialog : public QDialog {
  Q_OBJECT

 public:
  NetworkModelDialog(std::shared_ptr<const NetworkModel> model, CostMode costs, QWidget* parent = nullptr);

  // The model the fields describe (nullptr + *error if they do not make one).
  std::shared_ptr<const NetworkModel> model(QString* error = nullptr) const;
  CostMode costMode() const;
  // Shows `m` in the fields (its kind's page).
  void showModel(const NetworkModel& m);
  void choosePreset(const QString& name);
  // File operations without dialogs (the buttons call these); errors name the file.
  bool loadFile(const QString& path, QString* error);
  bool saveFile(const QString& path, QString* error) const;  // complete or untouched (output_file.h)

  // Widgets by role, for tests: "L", "o", "g", "G", "P", "S", "s", "os.a", "os.b", "or.a",
  // "or.b", "ss.a", "ss.b", "sr.a", "sr.b" (LogGPS); "gp.*" (LogGP); "gpo.*" (LogGPO: L, G,
  // Octrl, Oi.a, Oi.b, Oc.a, Oc.b, S, P).
  QDoubleSpinBox* field(const QString& role) const;
  QComboBox* kindBox() const { return kind_; }
  QComboBox* presetBox() const { return preset_; }
  QComboBox* costBox() const { return costs_; }
  QComboBox* progressBox() const { return progress_; }
  // Two-valued keys of a model file (docs/model.md, "Parameter files"), by role: "eager",
  // "duplex", "collectives" (LogGPS) and "gpo.eager", "gpo.duplex", "gpo.collectives" (LogGPO);
  // item data = the file's value, the first item the default. "gpo.OiRendezvous": LogGPO's
  // own O_i(k) line for rendezvous sizes (otherwise O_i(k) for every size).
  QComboBox* choice(const QString& role) const;
  QCheckBox* ownRendezvousInit() const { return ownOir_; }

 private:
  QDoubleSpinBox* addField(QWidget* page, const QString& role, const QString& label, int decimals,
                           double max, const QString& unit);
  // A combo box for the model file's key of this role: (shown text, file value) pairs.
  void addChoice(QWidget* page, const QString& role, const QString& label,
                 const QList<QPair<QString, QString>>& items);
  void addTransferChoices(QWidget* page, const QString& prefix);  // eager, duplex, collectives
  std::string toJson() const;
  void onChanged();

  QComboBox* kind_;
  QComboBox* preset_;
  QComboBox* costs_;
  QComboBox* progress_;
  QLineEdit* name_;
  QStackedWidget* pages_;
  QLabel* status_;
  QMap<QString, QDoubleSpinBox*> fields_;
  QMap<QString, QComboBox*> choices_;
  QCheckBox* ownOir_;
  bool filling_ = false;
};

}  // namespace perwiz::gui
