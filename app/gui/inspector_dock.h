// Details of the selected timeline item — an event (function, rank, measured and predicted
// times, wait, local cost, bytes and partners), a message (its sending and receiving calls,
// bytes, the receiver's wait) or a parallel step — and buttons that turn it into a hypothesis.
#pragma once

#include "perwiz/overhead_detection.h"
#include "prediction_result.h"

#include "perwiz/widgets/timeline_view.h"

#include <QDockWidget>

class QLabel;
class QPushButton;
class QFormLayout;

namespace perwiz::gui {

// Model event index -> MPI call index ("RANK:INDEX"), or -1 if the event is no MPI call.
int mpiIndexOf(const Trace& trace, std::uint32_t rank, std::uint32_t event);
// The parallel step holding an event of a rank, or -1.
int stepOf(const Trace& trace, std::uint32_t rank, std::uint32_t event);
// The call a hypothesis on `item` is about: the item itself for an event, the call that
// completes the receive for a message (Z on a message zeroes the receiver's wait); None if
// the message has no matched receive.
ui::TimelineItem callOf(const Trace& trace, const ui::TimelineItem& item);

class InspectorDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit InspectorDock(QWidget* parent = nullptr);

  // Shows the item of the trace (null: none loaded) with its predicted times where the
  // prediction is the trace's.
  void inspect(const Trace* trace, const ui::TimelineItem& item,
               const std::shared_ptr<const PredictionResult>& prediction);
  ui::TimelineItem item() const { return item_; }
  // The communication-overhead analysis of the shown trace (null: none), for the call's t_oh.
  void setOverhead(std::shared_ptr<const OverheadAnalysis> analysis) { overhead_ = std::move(analysis); }

 signals:
  void hypothesisRequested(perwiz::HypothesisKind kind, const perwiz::ui::TimelineItem& item);
  void zeroComputationRequested(const perwiz::ui::TimelineItem& item);

 private:
  void showMessage(const Trace& trace, const ui::TimelineItem& item,
                   const std::shared_ptr<const PredictionResult>& prediction);
  void showCall(const Trace& trace, const ui::TimelineItem& item, int mpi, int step,
                const std::shared_ptr<const PredictionResult>& prediction);
  void showStepSpans(const Trace& trace, std::uint32_t step, const std::shared_ptr<const PredictionResult>& prediction);
  void addPartnerRows(const Trace& trace, const ui::TimelineItem& item);
  void addRow(const QString& label, const QString& value);
  void clearRows();

  ui::TimelineItem item_;
  std::shared_ptr<const OverheadAnalysis> overhead_;
  QLabel* title_;
  QWidget* form_;
  QFormLayout* layout_;
  QPushButton* zeroWait_;
  QPushButton* zeroEvent_;
  QPushButton* zeroComputation_;
  QPushButton* balanceCompute_;
  QPushButton* balanceVolume_;
};

}  // namespace perwiz::gui
