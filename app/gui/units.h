// Human-readable times and the "measured T → predicted T (Δ %)" summary.
#pragma once

#include "perwiz/network_model.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"

#include <QString>

namespace perwiz::gui {

// "6.162 ms", "14.000 µs", "812 ns", "1.250 s".
QString formatDuration(TimeNs ns);
// "+3.2 %" / "−12.5 %" change of `predicted` relative to `measured`; "no change" when equal,
// "+<0.05 %" / "−<0.05 %" when smaller than the last digit.
QString formatChange(TimeNs measured, TimeNs predicted);
// "measured 6.162 ms → predicted 5.100 ms (−17.2 %)" (translated).
QString predictionSummary(TimeNs measured, TimeNs predicted);
// A hypothesis as the user reads it: Hypothesis::toString() in English ("zero-wait 1:5",
// "balance-compute step 3"), translated in other languages.
QString hypothesisText(const Hypothesis& h);
// The same in words, with what it names in `trace` (null: as above): "zero the wait of MPI_Recv
// on rank 1 (call 3, at 1.234 s)", "balance the computation of step 153 (iter, at 2.000 ms)".
QString hypothesisText(const Hypothesis& h, const Trace* trace);
// The network model and cost mode a prediction uses, as the window, the inspector and exported
// images name them: "LogGPS myrinet-score, measured local costs" (null model: the default).
QString describeNetwork(const NetworkModel* model, CostMode costs);

}  // namespace perwiz::gui
