// Where the communication overhead of each call lies on the timeline: t_oh is the part of the
// call beyond its class's usual maximum t_max, i.e. its last t_oh ns, [leave − t_oh, leave).
#pragma once

#include "perwiz/overhead_detection.h"

#include <utility>
#include <vector>

namespace perwiz::gui {

std::vector<std::vector<std::pair<TimeNs, TimeNs>>> overheadSpans(const Trace& trace,
                                                                 const OverheadAnalysis& analysis);

}  // namespace perwiz::gui
