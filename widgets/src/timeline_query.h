// Questions about what is on screen: which item is under a point, the partners of a
// selection, the previous/next event of a row, tooltip text.
#pragma once

#include "timeline_layout.h"

#include "perwiz/widgets/timeline_view.h"

#include <QPointF>
#include <QString>

#include <vector>

namespace perwiz::ui {

class TimelineData;

TimelineItem hitTest(const TimelineData& data, const TimelineLayout& layout, TimelineMode mode,
                     const QPointF& pos);
// Message partners (the calls that post or complete the matched endpoints) and the other
// members of a collective; for a collective ordered by rank starting after the item's rank.
std::vector<TimelineItem> partnersOf(const TimelineData& data, const TimelineItem& item);
// The previous (-1) or next (+1) drawn event on the item's rank (region markers skipped);
// None at the ends.
TimelineItem neighbourEvent(const TimelineData& data, const TimelineItem& item, int direction);
// The event on `rank` nearest to time t (for moving the selection up/down).
TimelineItem eventNear(const TimelineData& data, std::uint32_t rank, TimeNs t, bool predicted);
QString toolTipText(const TimelineData& data, const TimelineItem& item);
// The tooltip over a thread's row ("" elsewhere): the event under the point, as measured.
QString threadToolTip(const TimelineData& data, const TimelineLayout& layout, const QPointF& pos);
// Where the arrow of the message `item` is drawn in drawing `predicted`: from the send's time on
// the sender's lane centre to the receive's on the receiver's; false without a matched receive.
bool messageArrow(const TimelineData& data, const TimelineLayout& L, const TimelineItem& item, bool predicted,
                  QPointF& from, QPointF& to);

}  // namespace perwiz::ui
