#include "network_model_dialog.h"

#include "perwiz/loggp_models.h"
#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace perwiz::gui {

namespace {
constexpr int kUs = 6;        // µs with ns/1000 resolution
constexpr int kUsPerB = 9;    // µs per byte
constexpr double kBig = 1e12;
const char* kKinds[3] = {"LogGPS", "LogGP", "LogGPO"};
}  // namespace

NetworkModelDialog::NetworkModelDialog(std::shared_ptr<const NetworkModel> model, CostMode costs, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Network Model"));
  setObjectName(QStringLiteral("networkModelDialog"));
  auto* layout = new QVBoxLayout(this);

  auto* top = new QFormLayout;
  kind_ = new QComboBox(this);
  for (const char* k : kKinds) kind_->addItem(QString::fromLatin1(k));
  preset_ = new QComboBox(this);
  preset_->addItem(tr("(custom)"));
  for (const auto& n : networkPresetNames()) preset_->addItem(QString::fromStdString(n));
  name_ = new QLineEdit(this);
  costs_ = new QComboBox(this);
  costs_->addItem(tr("Measured local costs (only waits are re-derived)"), static_cast<int>(CostMode::Measured));
  costs_->addItem(tr("Model local costs (retarget to this network)"), static_cast<int>(CostMode::Model));
  top->addRow(tr("Preset:"), preset_);
  top->addRow(tr("Model:"), kind_);
  top->addRow(tr("Name:"), name_);
  top->addRow(tr("Cost mode:"), costs_);
  layout->addLayout(top);

  pages_ = new QStackedWidget(this);
  // LogGPS
  auto* gps = new QWidget(pages_);
  new QFormLayout(gps);
  addField(gps, QStringLiteral("L"), tr("Latency L"), kUs, kBig, tr("µs"));
  addField(gps, QStringLiteral("o"), tr("Overhead o"), kUs, kBig, tr("µs"));
  addField(gps, QStringLiteral("g"), tr("Gap g"), kUs, kBig, tr("µs"));
  addField(gps, QStringLiteral("G"), tr("Gap per byte G"), kUsPerB, kBig, tr("µs/B"));
  addField(gps, QStringLiteral("P"), tr("Processors P (0 = the trace's)"), 0, 4e9, QString());
  addField(gps, QStringLiteral("S"), tr("Synchronous above S"), 0, 1.8e19, tr("bytes"));
  addField(gps, QStringLiteral("s"), tr("Packet size s (0 = one packet)"), 0, 1.8e19, tr("bytes"));
  const std::pair<const char*, QString> lines[4] = {{"os", tr("Send overhead o_s(k)")},
                                                    {"or", tr("Receive overhead o_r(k)")},
                                                    {"ss", tr("Synchronous send (k > S)")},
                                                    {"sr", tr("Synchronous receive (k > S)")}};
  for (const auto& [key, label] : lines) {
    addField(gps, QString::fromLatin1(key) + QStringLiteral(".a"), label + tr(": a"), kUs, kBig, tr("µs"));
    addField(gps, QString::fromLatin1(key) + QStringLiteral(".b"), label + tr(": b"), kUsPerB, kBig, tr("µs/B"));
  }
  addTransferChoices(gps, QString());
  pages_->addWidget(gps);
  // LogGP
  auto* gp = new QWidget(pages_);
  new QFormLayout(gp);
  addField(gp, QStringLiteral("gp.L"), tr("Latency L"), kUs, kBig, tr("µs"));
  addField(gp, QStringLiteral("gp.o"), tr("Overhead o"), kUs, kBig, tr("µs"));
  addField(gp, QStringLiteral("gp.g"), tr("Gap g"), kUs, kBig, tr("µs"));
  addField(gp, QStringLiteral("gp.G"), tr("Gap per byte G"), kUsPerB, kBig, tr("µs/B"));
  addField(gp, QStringLiteral("gp.P"), tr("Processors P (0 = the trace's)"), 0, 4e9, QString());
  pages_->addWidget(gp);
  // LogGPO
  auto* gpo = new QWidget(pages_);
  auto* gpoForm = new QFormLayout(gpo);
  addField(gpo, QStringLiteral("gpo.L"), tr("Latency L"), kUs, kBig, tr("µs"));
  addField(gpo, QStringLiteral("gpo.G"), tr("Gap per byte G"), kUsPerB, kBig, tr("µs/B"));
  addField(gpo, QStringLiteral("gpo.Octrl"), tr("Control message overhead O'"), kUs, kBig, tr("µs"));
  addField(gpo, QStringLiteral("gpo.Oi.a"), tr("Transfer start O_i(k): a"), kUs, kBig, tr("µs"));
  addField(gpo, QStringLiteral("gpo.Oi.b"), tr("Transfer start O_i(k): b"), kUsPerB, kBig, tr("µs/B"));
  addField(gpo, QStringLiteral("gpo.Oc.a"), tr("Memory copy O_c(k): a"), kUs, kBig, tr("µs"));
  addField(gpo, QStringLiteral("gpo.Oc.b"), tr("Memory copy O_c(k): b"), kUsPerB, kBig, tr("µs/B"));
  ownOir_ = new QCheckBox(tr("own line for rendezvous sizes"), gpo);
  gpoForm->addRow(tr("Rendezvous O_i(k):"), ownOir_);
  addField(gpo, QStringLiteral("gpo.Oir.a"), tr("Rendezvous transfer start O_i(k): a"), kUs, kBig, tr("µs"));
  addField(gpo, QStringLiteral("gpo.Oir.b"), tr("Rendezvous transfer start O_i(k): b"), kUsPerB, kBig, tr("µs/B"));
  addField(gpo, QStringLiteral("gpo.S"), tr("Rendezvous above S"), 0, 1.8e19, tr("bytes"));
  addField(gpo, QStringLiteral("gpo.P"), tr("Processors P (0 = the trace's)"), 0, 4e9, QString());
  progress_ = new QComboBox(gpo);
  progress_->addItem(tr("Dependent (progress only inside MPI calls)"), QStringLiteral("dependent"));
  progress_->addItem(tr("Independent (a progress engine)"), QStringLiteral("independent"));
  gpoForm->addRow(tr("Communication progress:"), progress_);
  addTransferChoices(gpo, QStringLiteral("gpo."));
  pages_->addWidget(gpo);
  auto enableOir = [this] {
    for (const char* k : {"gpo.Oir.a", "gpo.Oir.b"}) field(QString::fromLatin1(k))->setEnabled(ownOir_->isChecked());
  };
  enableOir();
  connect(ownOir_, &QCheckBox::toggled, this, enableOir);
  connect(ownOir_, &QCheckBox::toggled, this, &NetworkModelDialog::onChanged);
  layout->addWidget(pages_);

  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  auto* load = buttons->addButton(tr("Load…"), QDialogButtonBox::ActionRole);
  auto* save = buttons->addButton(tr("Save…"), QDialogButtonBox::ActionRole);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(load, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Network Model"), QString(),
                                                      tr("Model files (*.json);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !loadFile(path, &error)) QMessageBox::warning(this, tr("Load Network Model"), error);
  });
  connect(save, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Network Model"), name_->text() + QStringLiteral(".json"),
                                                tr("Model files (*.json)"));
    QString error;
    if (!path.isEmpty() && !saveFile(path, &error)) QMessageBox::warning(this, tr("Save Network Model"), error);
  });
  connect(kind_, &QComboBox::currentIndexChanged, pages_, &QStackedWidget::setCurrentIndex);
  connect(kind_, &QComboBox::currentIndexChanged, this, &NetworkModelDialog::onChanged);
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i > 0) choosePreset(preset_->itemText(i));
  });
  connect(name_, &QLineEdit::textEdited, this, &NetworkModelDialog::onChanged);
  connect(progress_, &QComboBox::currentIndexChanged, this, &NetworkModelDialog::onChanged);

  costs_->setCurrentIndex(costs == CostMode::Model ? 1 : 0);
  if (model) showModel(*model);
}

QDoubleSpinBox* NetworkModelDialog::addField(QWidget* page, const QString& role, const QString& label, int decimals,
                                             double max, const QString& unit) {
  auto* box = new QDoubleSpinBox(page);
  box->setObjectName(role);
  box->setDecimals(decimals);
  box->setRange(0, max);  // never negative
  box->setSuffix(unit.isEmpty() ? QString() : QStringLiteral(" ") + unit);
  box->setMinimumWidth(180);
  static_cast<QFormLayout*>(page->layout())->addRow(label + QStringLiteral(":"), box);
  fields_.insert(role, box);
  connect(box, &QDoubleSpinBox::valueChanged, this, &NetworkModelDialog::onChanged);
  return box;
}

void NetworkModelDialog::addChoice(QWidget* page, const QString& role, const QString& label,
                                   const QList<QPair<QString, QString>>& items) {
  auto* box = new QComboBox(page);
  box->setObjectName(role);
  for (const auto& [text, value] : items) box->addItem(text, value);
  static_cast<QFormLayout*>(page->layout())->addRow(label + QStringLiteral(":"), box);
  choices_.insert(role, box);
  connect(box, &QComboBox::currentIndexChanged, this, &NetworkModelDialog::onChanged);
}

void NetworkModelDialog::addTransferChoices(QWidget* page, const QString& prefix) {
  addChoice(page, prefix + QStringLiteral("eager"), tr("Eager data moves"),
            {{tr("from the send (at-send)"), QStringLiteral("at-send")},
             {tr("once the receive is posted (at-receive)"), QStringLiteral("at-receive")}});
  addChoice(page, prefix + QStringLiteral("duplex"), tr("A host's two directions"),
            {{tr("at once (full duplex)"), QStringLiteral("full")}, {tr("share one link (half duplex)"), QStringLiteral("half")}});
  addChoice(page, prefix + QStringLiteral("collectives"), tr("Collective algorithms"),
            {{tr("binomial trees"), QStringLiteral("binomial")}, {tr("SimGrid SMPI's defaults"), QStringLiteral("smpi")}});
}

QComboBox* NetworkModelDialog::choice(const QString& role) const { return choices_.value(role); }

QDoubleSpinBox* NetworkModelDialog::field(const QString& role) const { return fields_.value(role); }

void NetworkModelDialog::onChanged() {
  if (filling_) return;
  preset_->blockSignals(true);
  preset_->setCurrentIndex(0);  // edited: no longer the preset
  preset_->blockSignals(false);
  QString error;
  const bool ok = model(&error) != nullptr;
  status_->setText(ok ? QString() : error);
  if (auto* box = findChild<QDialogButtonBox*>())
    if (auto* okButton = box->button(QDialogButtonBox::Ok)) okButton->setEnabled(ok);
}

void NetworkModelDialog::showModel(const NetworkModel& m) {
  filling_ = true;
  name_->setText(QString::fromStdString(m.name()));
  // The JSON form carries every parameter in the units shown here.
  const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(m.toJson())).object();
  auto set = [&](const QString& role, double v) {
    if (auto* f = field(role)) f->setValue(v);
  };
  auto line = [&](const QString& key, const QString& role) {
    const QJsonObject o = j.value(key).toObject();
    set(role + QStringLiteral(".a"), o.value(QStringLiteral("a")).toDouble());
    set(role + QStringLiteral(".b"), o.value(QStringLiteral("b_per_byte")).toDouble());
  };
  // A two-valued key: its value's item, the default (first) where the file leaves it out.
  auto choose = [&](const QString& role, const QString& key) {
    if (QComboBox* c = choice(role)) c->setCurrentIndex(std::max(0, c->findData(j.value(key).toString())));
  };
  auto transfer = [&](const QString& prefix) {
    choose(prefix + QStringLiteral("eager"), QStringLiteral("eager_transfer"));
    choose(prefix + QStringLiteral("duplex"), QStringLiteral("duplex"));
    choose(prefix + QStringLiteral("collectives"), QStringLiteral("collectives"));
  };
  const QString kind = j.value(QStringLiteral("model")).toString();
  if (kind == QLatin1String("LogGP")) {
    kind_->setCurrentIndex(1);
    set(QStringLiteral("gp.L"), j.value(QStringLiteral("L_us")).toDouble());
    set(QStringLiteral("gp.o"), j.value(QStringLiteral("o_us")).toDouble());
    set(QStringLiteral("gp.g"), j.value(QStringLiteral("g_us")).toDouble());
    set(QStringLiteral("gp.G"), j.value(QStringLiteral("G_us_per_byte")).toDouble());
    set(QStringLiteral("gp.P"), j.value(QStringLiteral("P")).toDouble());
  } else if (kind == QLatin1String("LogGPO")) {
    kind_->setCurrentIndex(2);
    set(QStringLiteral("gpo.L"), j.value(QStringLiteral("L_us")).toDouble());
    set(QStringLiteral("gpo.G"), j.value(QStringLiteral("G_us_per_byte")).toDouble());
    set(QStringLiteral("gpo.Octrl"), j.value(QStringLiteral("O_ctrl_us")).toDouble());
    line(QStringLiteral("O_i_us"), QStringLiteral("gpo.Oi"));
    line(QStringLiteral("O_c_us"), QStringLiteral("gpo.Oc"));
    set(QStringLiteral("gpo.S"), j.value(QStringLiteral("S_bytes")).toDouble());
    set(QStringLiteral("gpo.P"), j.value(QStringLiteral("P")).toDouble());
    progress_->setCurrentIndex(j.value(QStringLiteral("progress")).toString() == QLatin1String("independent") ? 1 : 0);
    ownOir_->setChecked(j.contains(QStringLiteral("O_i_rendezvous_us")));
    line(QStringLiteral("O_i_rendezvous_us"), QStringLiteral("gpo.Oir"));
    transfer(QStringLiteral("gpo."));
  } else {
    kind_->setCurrentIndex(0);
    set(QStringLiteral("L"), j.value(QStringLiteral("L_us")).toDouble());
    set(QStringLiteral("o"), j.value(QStringLiteral("o_us")).toDouble());
    set(QStringLiteral("g"), j.value(QStringLiteral("g_us")).toDouble());
    set(QStringLiteral("G"), j.value(QStringLiteral("G_us_per_byte")).toDouble());
    set(QStringLiteral("P"), j.value(QStringLiteral("P")).toDouble());
    set(QStringLiteral("S"), j.value(QStringLiteral("S_bytes")).toDouble());
    set(QStringLiteral("s"), j.value(QStringLiteral("s_bytes")).toDouble());
    line(QStringLiteral("send_overhead_us"), QStringLiteral("os"));
    line(QStringLiteral("recv_overhead_us"), QStringLiteral("or"));
    line(QStringLiteral("sync_send_us"), QStringLiteral("ss"));
    line(QStringLiteral("sync_recv_us"), QStringLiteral("sr"));
    transfer(QString());
  }
  pages_->setCurrentIndex(kind_->currentIndex());
  preset_->blockSignals(true);
  const int p = preset_->findText(name_->text());
  preset_->setCurrentIndex(p > 0 ? p : 0);
  preset_->blockSignals(false);
  filling_ = false;
  status_->clear();
}

void NetworkModelDialog::choosePreset(const QString& name) {
  if (auto m = networkPreset(name.toStdString())) showModel(*m);
}

std::string NetworkModelDialog::toJson() const {
  QJsonObject j;
  auto v = [&](const QString& role) { return field(role)->value(); };
  auto line = [&](const QString& role) {
    QJsonObject o;
    o[QStringLiteral("a")] = v(role + QStringLiteral(".a"));
    o[QStringLiteral("b_per_byte")] = v(role + QStringLiteral(".b"));
    return o;
  };
  // A two-valued key, written where it is not the default (as the core writes them).
  auto chosen = [&](const QString& role, const QString& key) {
    const QComboBox* c = choice(role);
    if (c->currentIndex() > 0) j[key] = c->currentData().toString();
  };
  auto transfer = [&](const QString& prefix) {
    chosen(prefix + QStringLiteral("eager"), QStringLiteral("eager_transfer"));
    chosen(prefix + QStringLiteral("duplex"), QStringLiteral("duplex"));
    chosen(prefix + QStringLiteral("collectives"), QStringLiteral("collectives"));
  };
  j[QStringLiteral("model")] = QString::fromLatin1(kKinds[kind_->currentIndex()]);
  j[QStringLiteral("version")] = 2;  // a model file of today (docs/model.md, "Parameter files")
  if (!name_->text().trimmed().isEmpty()) j[QStringLiteral("name")] = name_->text().trimmed();
  switch (kind_->currentIndex()) {
    case 1:
      j[QStringLiteral("L_us")] = v(QStringLiteral("gp.L"));
      j[QStringLiteral("o_us")] = v(QStringLiteral("gp.o"));
      j[QStringLiteral("g_us")] = v(QStringLiteral("gp.g"));
      j[QStringLiteral("G_us_per_byte")] = v(QStringLiteral("gp.G"));
      j[QStringLiteral("P")] = qint64(v(QStringLiteral("gp.P")));
      break;
    case 2:
      j[QStringLiteral("L_us")] = v(QStringLiteral("gpo.L"));
      j[QStringLiteral("G_us_per_byte")] = v(QStringLiteral("gpo.G"));
      j[QStringLiteral("O_ctrl_us")] = v(QStringLiteral("gpo.Octrl"));
      j[QStringLiteral("O_i_us")] = line(QStringLiteral("gpo.Oi"));
      j[QStringLiteral("O_c_us")] = line(QStringLiteral("gpo.Oc"));
      j[QStringLiteral("S_bytes")] = qint64(v(QStringLiteral("gpo.S")));
      j[QStringLiteral("P")] = qint64(v(QStringLiteral("gpo.P")));
      j[QStringLiteral("progress")] = progress_->currentData().toString();
      if (ownOir_->isChecked()) j[QStringLiteral("O_i_rendezvous_us")] = line(QStringLiteral("gpo.Oir"));
      transfer(QStringLiteral("gpo."));
      break;
    default:
      j[QStringLiteral("L_us")] = v(QStringLiteral("L"));
      j[QStringLiteral("o_us")] = v(QStringLiteral("o"));
      j[QStringLiteral("g_us")] = v(QStringLiteral("g"));
      j[QStringLiteral("G_us_per_byte")] = v(QStringLiteral("G"));
      j[QStringLiteral("P")] = qint64(v(QStringLiteral("P")));
      j[QStringLiteral("S_bytes")] = qint64(v(QStringLiteral("S")));
      j[QStringLiteral("s_bytes")] = qint64(v(QStringLiteral("s")));
      j[QStringLiteral("send_overhead_us")] = line(QStringLiteral("os"));
      j[QStringLiteral("recv_overhead_us")] = line(QStringLiteral("or"));
      j[QStringLiteral("sync_send_us")] = line(QStringLiteral("ss"));
      j[QStringLiteral("sync_recv_us")] = line(QStringLiteral("sr"));
      transfer(QString());
  }
  return QJsonDocument(j).toJson(QJsonDocument::Compact).toStdString();
}

std::shared_ptr<const NetworkModel> NetworkModelDialog::model(QString* error) const {
  std::string problem;
  std::unique_ptr<NetworkModel> m = networkModelFromJson(toJson(), "dialog", &problem);
  if (!m && error) *error = QString::fromStdString(problem);
  return std::shared_ptr<const NetworkModel>(std::move(m));
}

CostMode NetworkModelDialog::costMode() const { return static_cast<CostMode>(costs_->currentData().toInt()); }

bool NetworkModelDialog::loadFile(const QString& path, QString* error) {
  std::string problem;
  std::unique_ptr<NetworkModel> m = loadNetworkModel(path.toStdString(), &problem);
  if (!m) {
    if (error) *error = QString::fromStdString(problem);
    return false;
  }
  showModel(*m);
  return true;
}

bool NetworkModelDialog::saveFile(const QString& path, QString* error) const {
  QString why;
  auto m = model(&why);
  if (!m) {
    if (error) *error = tr("%1: %2").arg(path, why);
    return false;
  }
  // Every write and the flush checked; the old file is replaced only by a complete new one.
  try {
    writeOutputFile(path.toStdString(), m->toJson() + "\n", ExistingOutput::Replace);
  } catch (const TraceError& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

}  // namespace perwiz::gui
